/* libFuzzer target: the Hugging Face config.json reader (pe_model_from_hf_json). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/model.h>
#include <posenc/scheme.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pe_model *m = NULL;
	char *err = NULL;
	enum pe_status st = pe_model_from_hf_json((const char *)data, size, NULL, &m, &err);
	if (st == PE_OK) {
		if (!m || err)
			abort();
		/* Every group a config yields must be a spec the parser accepts. */
		for (size_t i = 0; i < m->n_groups; i++) {
			struct pe_scheme *s = NULL;
			char *perr = NULL;
			if (!m->groups[i].spec)
				continue;
			if (pe_scheme_parse(m->groups[i].spec, &s, &perr) != PE_OK)
				abort();
			pe_scheme_destroy(s);
			free(perr);
			/* --layer NAME reaches this group, not another of the same name */
			if (pe_model_group_find(m, m->groups[i].name) != &m->groups[i])
				abort();
		}
		pe_model_destroy(m);
	} else {
		if (m || (st != PE_ENOMEM && !err))
			abort();
		free(err);
	}
	return 0;
}
