/*
 * posenc help schemes: the scheme specs, read from the library's registry
 * so the help cannot fall behind the schemes (lib/scheme/registry.c).
 */
#include <stdio.h>
#include <string.h>

#include <posenc/scheme.h>

#include "shared/help_schemes.h"

#define WIDTH    79 /* the last column of a line */
#define KEY_COL  4
#define HELP_COL 28

/* @text from column @col on, wrapped at WIDTH onto lines starting at @indent. */
static void print_wrapped(FILE *out, const char *text, size_t col, size_t indent)
{
	while (*text) {
		size_t room = WIDTH > col ? WIDTH - col : 1, len = strlen(text);
		size_t cut = len;
		if (len > room) {
			cut = room;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = strcspn(text, " ");
		}
		fprintf(out, "%.*s\n", (int)cut, text);
		text += cut;
		while (*text == ' ')
			text++;
		if (*text)
			fprintf(out, "%*s", (int)indent, "");
		col = indent;
	}
}

/* One key: "key=DEFAULT", "key=A|B|C" (default first) or "key=METAVAR", then its help. */
static void print_key(FILE *out, const struct pe_scheme_key_info *k)
{
	char left[160];
	if (k->choices && k->def && strncmp(k->choices, k->def, strlen(k->def)) != 0)
		snprintf(left, sizeof(left), "%s=%s (default %s)", k->name, k->choices, k->def);
	else
		snprintf(left, sizeof(left), "%s=%s", k->name,
		         k->choices ? k->choices
		         : k->def   ? k->def
		                    : k->metavar);
	int w = fprintf(out, "%*s%s", KEY_COL, "", left);
	size_t col = w > 0 ? (size_t)w : 0;
	if (col + 1 >= HELP_COL) {
		fprintf(out, "\n%*s", HELP_COL, "");
		col = HELP_COL;
	} else {
		fprintf(out, "%*s", (int)(HELP_COL - col), "");
		col = HELP_COL;
	}
	print_wrapped(out, k->help, col, HELP_COL);
}

void cli_help_schemes(FILE *out)
{
	fputs("Scheme specs: NAME[:key=value[,key=value]...]; every scheme also takes\n"
	      "label=TEXT, the name in legends, titles and CSV headers.\n"
	      "Each key is shown with its default, or its choices with the default first;\n"
	      "rope's keys from factor on belong to the scalings named in their help.\n",
	      out);
	size_t count;
	const struct pe_scheme_type *const *types = pe_scheme_types(&count);
	for (size_t i = 0; i < count; i++) {
		const struct pe_scheme_type *t = types[i];
		int w = fprintf(out, "\n  %-10s  ", pe_scheme_type_name(t));
		size_t col = w > 1 ? (size_t)w - 1 : 0;
		print_wrapped(out, pe_scheme_type_summary(t), col, col);
		struct pe_scheme_key_info k;
		char buf[256];
		for (size_t j = 0; pe_scheme_type_key(t, j, &k, buf, sizeof(buf)); j++)
			print_key(out, &k);
	}
	/* Model specs are not scheme types (they become one), so the registry does not list them.
	 */
	fputs("\nA model's own encoding, read from its files or a preset (the spec it becomes is\n"
	      "printed by 'posenc model SPEC'):\n"
	      "  hf:config.json      a Hugging Face config.json\n"
	      "  gguf:FILE.gguf      a GGUF file's metadata (llama.cpp)\n"
	      "  model:NAME          a preset ('posenc help models')\n",
	      out);
}
