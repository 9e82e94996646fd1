/*
 * The file scheme: a table of position vectors read from .npy,
 * .safetensors or .csv (lib/io/); the parser also takes the short forms
 * PATH#TENSOR and a bare path ending in one of those suffixes.
 */
#include <stddef.h>
#include <stdlib.h>

#include "scheme/scheme_type.h"

#define OFF(field) offsetof(struct pe_scheme, field)

static const struct pe_scheme_key keys[] = {
        {"path", PE_KEY_STRING, OFF(path), 0, NULL, 0, 0, 0, NULL,
         "the .npy, .safetensors or .csv file"},
        {"tensor", PE_KEY_STRING, OFF(tensor), 0, NULL, 0, 0, 0, NULL,
         "the tensor's name (default: the file's only tensor)"},
        {"rows", PE_KEY_ROWS, 0, 0, NULL, 0, 0, 0, NULL,
         "A:B keeps rows A..B-1 (either end may be left out)"},
};

static enum pe_status finish(struct pe_scheme *s, const unsigned char *given, char **err)
{
	(void)given;
	if (!s->path) {
		*err = pe_scheme_errf("key 'path': the file scheme needs path=FILE");
		return PE_EINVAL;
	}
	return PE_OK;
}

const struct pe_scheme_type pe_scheme_file = {
        .name = "file",
        .summary =
                "a table read from .npy, .safetensors or .csv (also file:PATH, PATH, PATH#TENSOR)",
        .caps = PE_CAP_VECTORS | PE_CAP_TABLE,
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
        .finish = finish,
};
