/* libFuzzer target: the GGUF metadata reader behind -s gguf:FILE (pe_model_from_gguf). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/model.h>
#include <posenc/scheme.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct mem {
	const uint8_t *data;
	size_t size;
};

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct mem *m = ctx;
	/* the reader must never ask for bytes outside the file */
	if (off > m->size || len > m->size - off)
		abort();
	memcpy(buf, m->data + off, len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m = {data, size};
	struct pe_model_source src = {mem_read, &m, size};
	struct pe_model *model = NULL;
	char *err = NULL;
	enum pe_status st = pe_model_from_gguf(&src, (uint64_t)1 << 26, NULL, &model, &err);
	if (st == PE_OK) {
		if (!model || err)
			abort();
		for (size_t i = 0; i < model->n_groups; i++) {
			struct pe_scheme *s = NULL;
			char *perr = NULL;
			if (model->groups[i].spec &&
			    pe_scheme_parse(model->groups[i].spec, &s, &perr) != PE_OK)
				abort();
			pe_scheme_destroy(s);
			free(perr);
		}
		pe_model_destroy(model);
	} else {
		if (model || (st != PE_ENOMEM && !err))
			abort();
		free(err);
	}
	return 0;
}
