/*
 * Writes the bash completion from its template at build time: the scheme
 * names, each scheme's keys (rope's by scaling) and the values of keys with
 * a closed set, all read from the library's scheme registry.
 *
 * Usage: gen_completion TEMPLATE OUTPUT
 * The template's @SCHEMES@ is replaced by the names, the lines @SCHEME_KEYS@
 * and @KEY_VALUES@ by the bodies of _posenc_scheme_keys and _posenc_key_values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/scheme.h>

#include "scheme/scheme_type.h"

/* Whether some scaling takes rope key @key (then it is offered with that scaling). */
static int scaling_key(const char *key)
{
	for (size_t r = 0; r < pe_rope_scaling_count; r++)
		if (pe_rope_scaling_takes((enum pe_rope_scaling)r, key))
			return 1;
	return 0;
}

static void scheme_keys(FILE *out)
{
	fputs("\tcase $name in\n", out);
	for (size_t i = 0; i < pe_scheme_registry_count; i++) {
		const struct pe_scheme_type *t = pe_scheme_registry[i];
		int scaled = (t->caps & PE_CAP_SCALING) != 0;
		fprintf(out, "\t%s)\n", t->name);
		if (scaled)
			fputs("\t\t[[ ,$spec, =~ ,scaling=([a-z0-9]*), ]] && "
			      "scaling=${BASH_REMATCH[1]}\n",
			      out);
		fputs("\t\techo", out);
		for (size_t k = 0; k < t->n_keys; k++)
			if (!scaled || !scaling_key(t->keys[k].name))
				fprintf(out, " %s", t->keys[k].name);
		fputs(" label\n", out);
		if (scaled) {
			fputs("\t\tcase $scaling in\n", out);
			for (size_t r = 0; r < pe_rope_scaling_count; r++)
				if (pe_rope_scalings[r].keys[0])
					fprintf(out, "\t\t%s) echo %s ;;\n",
					        pe_rope_scalings[r].name, pe_rope_scalings[r].keys);
			fputs("\t\tesac\n", out);
		}
		fputs("\t\t;;\n", out);
	}
	fputs("\tesac", out);
}

static void key_values(FILE *out)
{
	fputs("\tcase $1:$2 in\n", out);
	for (size_t i = 0; i < pe_scheme_registry_count; i++) {
		const struct pe_scheme_type *t = pe_scheme_registry[i];
		for (size_t k = 0; k < t->n_keys; k++) {
			struct pe_scheme_key_info info;
			char buf[512];
			if (!pe_scheme_type_key(t, k, &info, buf, sizeof(buf)) || !info.choices)
				continue;
			for (char *c = buf; *c; c++)
				if (*c == '|')
					*c = ' ';
			fprintf(out, "\t%s:%s) echo %s ;;\n", t->name, info.name, info.choices);
		}
	}
	fputs("\tesac", out);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: gen_completion TEMPLATE OUTPUT\n");
		return 2;
	}
	FILE *in = fopen(argv[1], "r");
	FILE *out = fopen(argv[2], "w");
	if (!in || !out) {
		fprintf(stderr, "gen_completion: cannot open %s\n", !in ? argv[1] : argv[2]);
		return 1;
	}
	char line[4096];
	while (fgets(line, sizeof(line), in)) {
		char *at;
		if (strcmp(line, "@SCHEME_KEYS@\n") == 0) {
			scheme_keys(out);
			fputc('\n', out);
		} else if (strcmp(line, "@KEY_VALUES@\n") == 0) {
			key_values(out);
			fputc('\n', out);
		} else if ((at = strstr(line, "@SCHEMES@"))) {
			fprintf(out, "%.*s", (int)(at - line), line);
			for (size_t i = 0; i < pe_scheme_registry_count; i++)
				fprintf(out, "%s%s", i ? " " : "", pe_scheme_registry[i]->name);
			fputs(at + strlen("@SCHEMES@"), out);
		} else {
			fputs(line, out);
		}
	}
	int bad = ferror(in) || fclose(out) != 0;
	fclose(in);
	if (bad) {
		fprintf(stderr, "gen_completion: cannot write %s\n", argv[2]);
		remove(argv[2]);
		return 1;
	}
	return 0;
}
