/* libFuzzer target: the scheme spec parser (pe_scheme_parse). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/scheme.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Specs are C strings: cut at the first NUL. */
	char *spec = malloc(size + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	struct pe_scheme *s = NULL;
	char *err = NULL;
	enum pe_status st = pe_scheme_parse(spec, &s, &err);
	if (st == PE_OK) {
		if (!s || err || !s->label || !s->canonical)
			abort();
		struct pe_scheme *copy = NULL;
		if (pe_scheme_copy(s, &copy) == PE_OK)
			pe_scheme_destroy(copy);
		pe_scheme_destroy(s);
	} else {
		if (s)
			abort();
		free(err);
	}
	free(spec);
	return 0;
}
