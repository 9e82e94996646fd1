/*
 * The scheme registry: every scheme posenc knows, and the questions any
 * code may ask a scheme (its name, its keys, what it can do).
 *
 * How to add a scheme NAME:
 *   1. Write lib/scheme/scheme_NAME.c with one
 *      `const struct pe_scheme_type pe_scheme_NAME` (scheme_type.h says
 *      what each member means): its spec name, a one-line summary, its
 *      PE_CAP_* capabilities, its keys (name, type, field, range, default
 *      text, one line of help) and the functions behind the capabilities
 *      (rows for PE_CAP_ENCODE, frequencies for PE_CAP_FREQS, ...). New
 *      per-scheme fields go into struct pe_scheme (posenc/scheme.h) only
 *      when no existing field fits.
 *   2. Add `X(NAME)` to PE_SCHEMES below and 'scheme_NAME.c' to
 *      lib/scheme/meson.build.
 * No other code changes: the parser, `posenc help schemes`, the bash
 * completion and every command ask these tables. Then write what each
 * analysis gives for it: a paragraph in doc/posenc.1.in's SCHEME SPECS
 * (tests/packaging/test_man.py checks every scheme is there), a row in
 * README's scheme table, and a test that states those results by hand
 * (nope: tests/cli/test_nope_cli.py).
 *
 * How to add a RoPE scaling: one row in pe_rope_scalings[] (rope_scaling.c:
 * name, freqs columns, keys, defaults, function), its value in enum
 * pe_rope_scaling (posenc/scheme.h) and its name in scheme_rope.c's choice
 * list (both lengths are asserted).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/strutil.h"
#include "scheme/scheme_type.h"

/* The schemes, in the order help lists them: one X(NAME) per scheme. */
#define PE_SCHEMES(X)                                                                              \
	X(sinusoidal)                                                                              \
	X(rope)                                                                                    \
	X(learned)                                                                                 \
	X(binary)                                                                                  \
	X(file)                                                                                    \
	X(alibi)                                                                                   \
	X(t5)                                                                                      \
	X(nope)                                                                                    \
	X(mrope)                                                                                   \
	X(xl)                                                                                      \
	X(shaw)

#define DECLARE(name) extern const struct pe_scheme_type pe_scheme_##name;
PE_SCHEMES(DECLARE)
#define ENTRY(name) &pe_scheme_##name,
const struct pe_scheme_type *const pe_scheme_registry[] = {PE_SCHEMES(ENTRY)};
const size_t pe_scheme_registry_count = sizeof(pe_scheme_registry) / sizeof(pe_scheme_registry[0]);

const struct pe_scheme_type *const *pe_scheme_types(size_t *count)
{
	*count = pe_scheme_registry_count;
	return pe_scheme_registry;
}

const struct pe_scheme_type *pe_scheme_type_find(const char *name)
{
	for (size_t i = 0; i < pe_scheme_registry_count; i++)
		if (strcmp(pe_scheme_registry[i]->name, name) == 0)
			return pe_scheme_registry[i];
	return NULL;
}

const char *pe_scheme_type_name(const struct pe_scheme_type *t)
{
	return t->name;
}

const char *pe_scheme_type_summary(const struct pe_scheme_type *t)
{
	return t->summary;
}

unsigned pe_scheme_type_caps(const struct pe_scheme_type *t)
{
	return t->caps;
}

int pe_scheme_type_key(const struct pe_scheme_type *t, size_t i, struct pe_scheme_key_info *out,
                       char *buf, size_t cap)
{
	if (i >= t->n_keys)
		return 0;
	const struct pe_scheme_key *k = &t->keys[i];
	out->name = k->name;
	out->def = k->def;
	out->help = k->help;
	out->choices = NULL;
	static const char *const metavars[] = {
	        [PE_KEY_DOUBLE] = "X",    [PE_KEY_WHOLE] = "N",
	        [PE_KEY_COUNT] = "N",     [PE_KEY_U64] = "N",
	        [PE_KEY_BOOL] = "0|1",    [PE_KEY_ENUM] = "NAME",
	        [PE_KEY_STRING] = "TEXT", [PE_KEY_LIST] = "A/B/...|@FILE",
	        [PE_KEY_ROWS] = "A:B",
	};
	_Static_assert(sizeof(metavars) / sizeof(metavars[0]) == PE_KEY_ROWS + 1,
	               "one metavar per enum pe_key_type value");
	out->metavar = metavars[k->type];
	if (k->type == PE_KEY_ENUM || k->type == PE_KEY_BOOL) {
		size_t len = 0;
		if (cap)
			buf[0] = '\0';
		/* Choices with the default first. */
		static const char *const bools0[] = {"0", "1", NULL}, *const bools1[] = {"1", "0",
		                                                                         NULL};
		const char *const *c = k->type != PE_KEY_BOOL               ? k->choices
		                       : k->def && strcmp(k->def, "1") == 0 ? bools1
		                                                            : bools0;
		for (size_t j = 0; c[j]; j++) {
			if (!c[j][0])
				continue;
			int w = snprintf(buf + len, cap > len ? cap - len : 0, "%s%s",
			                 len ? "|" : "", c[j]);
			if (w > 0)
				len += (size_t)w;
		}
		out->choices = len < cap ? buf : NULL;
	}
	return 1;
}

const char *pe_scheme_name(const struct pe_scheme *s)
{
	return s->type->name;
}

int pe_scheme_has(const struct pe_scheme *s, unsigned caps)
{
	return (s->type->caps & caps) == caps;
}

const char *pe_scheme_row_name(const struct pe_scheme *s)
{
	return s && s->type->row_name ? s->type->row_name : "position";
}

int pe_scheme_takes_key(const struct pe_scheme *s, const char *key)
{
	if (strcmp(key, "label") == 0)
		return 1;
	for (size_t i = 0; i < s->type->n_keys; i++)
		if (strcmp(s->type->keys[i].name, key) == 0)
			return 1;
	return 0;
}

int pe_scheme_is_vector(const struct pe_scheme *s)
{
	return pe_scheme_has(s, PE_CAP_VECTORS);
}

int pe_scheme_is_untrained(const struct pe_scheme *s)
{
	return pe_scheme_has(s, PE_CAP_UNTRAINED);
}

enum pe_status pe_scheme_bucket(const struct pe_scheme *s, int64_t rel, unsigned *out)
{
	return s->type->bucket ? s->type->bucket(s, rel, out) : PE_EUNSUPPORTED;
}

enum pe_kernel_form pe_scheme_kernel(const struct pe_scheme *s, enum pe_view view)
{
	return s->type->kernel ? s->type->kernel(s, view) : PE_KERNEL_NONE;
}

void pe_scheme_value_range(const struct pe_scheme *s, enum pe_view view, double *lo, double *hi,
                           int *is_signed)
{
	*lo = *hi = NAN;
	*is_signed = 1;
	if (s->type->value_range)
		s->type->value_range(s, view, lo, hi, is_signed);
}

uint64_t pe_scheme_position_offset(const struct pe_scheme *s)
{
	return s->type->position_offset ? s->type->position_offset(s) : 0;
}

char *pe_scheme_errf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = pe_vasprintf(fmt, ap);
	va_end(ap);
	return m;
}
