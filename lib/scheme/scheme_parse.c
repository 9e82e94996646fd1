/*
 * The scheme-spec parser: NAME[:key=value[,key=value]...].
 *
 * Keys are described by one table (name, which schemes take them, type,
 * limits); parsing fills a struct pe_scheme in place, then cross-key
 * rules (RoPE scaling keys need the right scaling) are checked once every
 * key is known. Messages name the offending key and value.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/scheme.h>

#include "core/strutil.h"

#define S_SIN     (1u << PE_SCHEME_SINUSOIDAL)
#define S_ROPE    (1u << PE_SCHEME_ROPE)
#define S_LEARNED (1u << PE_SCHEME_LEARNED)
#define S_BINARY  (1u << PE_SCHEME_BINARY)
#define S_FILE    (1u << PE_SCHEME_FILE)
#define S_ALIBI   (1u << PE_SCHEME_ALIBI)
#define S_T5      (1u << PE_SCHEME_T5)
#define S_ALL     0x7fu

#define R_LINEAR   (1u << PE_ROPE_SCALING_LINEAR)
#define R_DYNAMIC  (1u << PE_ROPE_SCALING_DYNAMIC)
#define R_YARN     (1u << PE_ROPE_SCALING_YARN)
#define R_LLAMA3   (1u << PE_ROPE_SCALING_LLAMA3)
#define R_LONGROPE (1u << PE_ROPE_SCALING_LONGROPE)
#define R_SCALED   (R_LINEAR | R_DYNAMIC | R_YARN | R_LLAMA3 | R_LONGROPE)

enum key_type {
	K_DOUBLE, /* finite double in [min, max], min exclusive if min_open */
	K_COUNT,  /* whole number in [min, max] stored as unsigned */
	K_U64,    /* any uint64_t */
	K_BOOL,
	K_ENUM,
	K_STRING,
	K_LIST,  /* numbers separated by '/', or @FILE */
	K_ROWS,  /* A:B */
	K_LABEL, /* free text */
};

struct key {
	const char *name;
	unsigned schemes;
	unsigned scalings; /* rope keys valid only with these scalings; 0 = any */
	enum key_type type;
	size_t offset;
	const char *const *choices; /* K_ENUM: names, index = stored value */
	double min, max;
	int min_open;
};

static const char *const sin_layouts[] = {"interleaved", "blocks", NULL};
/* Index = enum pe_layout: rope's "half" is value 2, "blocks" is not for rope. */
static const char *const rope_layouts[] = {"interleaved", "", "half", NULL};
static const char *const freqs[] = {"paper", "t2t", NULL};
static const char *const scalings[] = {"none",   "linear",   "dynamic", "yarn",
                                       "llama3", "longrope", NULL};
static const char *const alibi_forms[] = {"paper", "official", NULL};

#define OFF(field) offsetof(struct pe_scheme, field)
#define ROFF(field)                                                                                \
	(offsetof(struct pe_scheme, scaling) + offsetof(struct pe_rope_scaling_params, field))

/* Canonical order: the order keys appear in canonical spec text. */
static const struct key keys[] = {
        {"base", S_SIN | S_ROPE, 0, K_DOUBLE, OFF(base), NULL, 1.0, 1e300, 1},
        {"layout", S_SIN, 0, K_ENUM, OFF(layout), sin_layouts, 0, 0, 0},
        {"layout", S_ROPE, 0, K_ENUM, OFF(layout), rope_layouts, 0, 0, 0},
        {"freq", S_SIN, 0, K_ENUM, OFF(freq), freqs, 0, 0, 0},
        {"start", S_SIN, 0, K_DOUBLE, OFF(start), NULL, 0.0, 9007199254740992.0, 0},
        {"rotary", S_ROPE, 0, K_DOUBLE, OFF(rotary), NULL, 0.0, 1.0, 1},
        {"scaling", S_ROPE, 0, K_ENUM, ROFF(type), scalings, 0, 0, 0},
        {"factor", S_ROPE, R_SCALED, K_DOUBLE, ROFF(factor), NULL, 1.0, 1e12, 0},
        {"original", S_ROPE, R_DYNAMIC | R_YARN | R_LLAMA3 | R_LONGROPE, K_DOUBLE, ROFF(original),
         NULL, 1.0, 1e15, 0},
        {"length", S_ROPE, R_DYNAMIC | R_LONGROPE, K_DOUBLE, ROFF(length), NULL, 0.0, 1e15, 0},
        {"low", S_ROPE, R_LLAMA3, K_DOUBLE, ROFF(low_freq_factor), NULL, 0.0, 1e12, 1},
        {"high", S_ROPE, R_LLAMA3, K_DOUBLE, ROFF(high_freq_factor), NULL, 0.0, 1e12, 1},
        {"beta-fast", S_ROPE, R_YARN, K_DOUBLE, ROFF(beta_fast), NULL, 0.0, 1e12, 1},
        {"beta-slow", S_ROPE, R_YARN, K_DOUBLE, ROFF(beta_slow), NULL, 0.0, 1e12, 1},
        {"mscale", S_ROPE, R_YARN, K_DOUBLE, ROFF(mscale), NULL, 0.0, 1e6, 0},
        {"mscale-all-dim", S_ROPE, R_YARN, K_DOUBLE, ROFF(mscale_all_dim), NULL, 0.0, 1e6, 0},
        {"attention-factor", S_ROPE, R_YARN | R_LONGROPE, K_DOUBLE, ROFF(attention_factor), NULL,
         0.0, 1e6, 1},
        {"truncate", S_ROPE, R_YARN, K_BOOL, ROFF(truncate), NULL, 0, 0, 0},
        {"long-factor", S_ROPE, R_LONGROPE, K_LIST, ROFF(long_factor), NULL, 0, 0, 0},
        {"short-factor", S_ROPE, R_LONGROPE, K_LIST, ROFF(short_factor), NULL, 0, 0, 0},
        {"seed", S_LEARNED, 0, K_U64, OFF(seed), NULL, 0, 0, 0},
        /* Squares of values (distances, dot products) stay finite and normal. */
        {"std", S_LEARNED, 0, K_DOUBLE, OFF(std), NULL, 1e-100, 1e100, 0},
        {"path", S_FILE, 0, K_STRING, OFF(path), NULL, 0, 0, 0},
        {"tensor", S_FILE, 0, K_STRING, OFF(tensor), NULL, 0, 0, 0},
        {"rows", S_FILE, 0, K_ROWS, 0, NULL, 0, 0, 0},
        {"heads", S_ALIBI, 0, K_COUNT, OFF(heads), NULL, 1, 65536, 0},
        {"form", S_ALIBI, 0, K_ENUM, OFF(form), alibi_forms, 0, 0, 0},
        {"buckets", S_T5, 0, K_COUNT, OFF(buckets), NULL, 2, 65536, 0},
        {"max-distance", S_T5, 0, K_COUNT, OFF(max_distance), NULL, 1, 1u << 30, 0},
        {"bidirectional", S_T5, 0, K_BOOL, OFF(bidirectional), NULL, 0, 0, 0},
        {"label", S_ALL, 0, K_LABEL, OFF(label), NULL, 0, 0, 0},
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static const char *const scheme_names[] = {"sinusoidal", "rope",  "learned", "binary",
                                           "file",       "alibi", "t5"};

const char *pe_scheme_name(enum pe_scheme_kind kind)
{
	if ((unsigned)kind < sizeof(scheme_names) / sizeof(scheme_names[0]))
		return scheme_names[kind];
	return "?";
}

int pe_scheme_is_vector(const struct pe_scheme *s)
{
	return s->kind != PE_SCHEME_ALIBI && s->kind != PE_SCHEME_T5;
}

int pe_scheme_is_untrained(const struct pe_scheme *s)
{
	return s->kind == PE_SCHEME_LEARNED;
}

struct parser {
	struct pe_scheme *s;
	char **err;
	unsigned char given[NKEYS];
	struct strbuf canon;
};

static enum pe_status fail(struct parser *p, enum pe_status st, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static enum pe_status fail(struct parser *p, enum pe_status st, const char *fmt, ...)
{
	if (p->err && !*p->err) {
		va_list ap;
		va_start(ap, fmt);
		*p->err = pe_vasprintf(fmt, ap);
		va_end(ap);
	}
	return st;
}

static void set_defaults(struct pe_scheme *s)
{
	s->base = 10000.0;
	s->layout = PE_LAYOUT_INTERLEAVED;
	s->freq = PE_FREQ_PAPER;
	s->rotary = 1.0;
	s->scaling.type = PE_ROPE_SCALING_NONE;
	s->scaling.attention_factor = NAN;
	s->scaling.truncate = 1;
	s->scaling.beta_fast = 32.0;
	s->scaling.beta_slow = 1.0;
	s->scaling.low_freq_factor = 1.0;
	s->scaling.high_freq_factor = 4.0;
	s->std = 0.02;
	s->heads = 8;
	s->form = PE_ALIBI_PAPER;
	s->buckets = 32;
	s->max_distance = 128;
	s->bidirectional = 1;
}

/* Defaults that depend on the chosen scaling, applied for keys not given. */
static void set_scaling_defaults(struct parser *p, int factor_given, int original_given)
{
	struct pe_rope_scaling_params *r = &p->s->scaling;
	int llama3 = r->type == PE_ROPE_SCALING_LLAMA3;
	int longrope = r->type == PE_ROPE_SCALING_LONGROPE;
	if (!factor_given)
		r->factor = llama3 ? 8.0 : longrope ? 1.0 : 4.0;
	if (!original_given)
		r->original = llama3 ? 8192.0 : 4096.0;
}

static int parse_double(const char *text, double *out)
{
	if (!*text || isspace((unsigned char)*text))
		return -1;
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (*end || end == text)
		return -1;
	if (!isfinite(v))
		return -2;
	if (errno == ERANGE && fabs(v) > 1.0)
		return -2;
	*out = v;
	return 0;
}

static int parse_u64(const char *text, unsigned long long *out)
{
	if (!isdigit((unsigned char)*text))
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (*end)
		return -1;
	if (errno == ERANGE)
		return -2;
	*out = v;
	return 0;
}

static enum pe_status parse_list_text(struct parser *p, const char *key, const char *text,
                                      const char *seps, double **out, size_t *count)
{
	size_t cap = 16, n = 0;
	double *v = malloc(cap * sizeof(*v));
	if (!v)
		return PE_ENOMEM;
	const char *c = text;
	for (;;) {
		while (*c && strchr(seps, *c))
			c++;
		if (!*c)
			break;
		size_t len = strcspn(c, seps);
		char item[64];
		if (len >= sizeof(item)) {
			free(v);
			return fail(p, PE_EINVAL, "key '%s': item '%.20s...' is not a number", key,
			            c);
		}
		memcpy(item, c, len);
		item[len] = '\0';
		double x;
		int rc = parse_double(item, &x);
		if (rc != 0 || x <= 0) {
			free(v);
			return fail(p, rc == -1 ? PE_EINVAL : PE_ERANGE,
			            "key '%s': item '%s' is not a positive finite number", key,
			            item);
		}
		if (n == cap) {
			double *nv = realloc(v, 2 * cap * sizeof(*v));
			if (!nv) {
				free(v);
				return PE_ENOMEM;
			}
			v = nv;
			cap *= 2;
		}
		v[n++] = x;
		c += len;
	}
	if (n == 0) {
		free(v);
		return fail(p, PE_EINVAL, "key '%s': the list is empty", key);
	}
	*out = v;
	*count = n;
	return PE_OK;
}

static enum pe_status parse_list(struct parser *p, const char *key, const char *value, double **out,
                                 size_t *count)
{
	if (value[0] != '@')
		return parse_list_text(p, key, value, "/", out, count);
	FILE *f = fopen(value + 1, "r");
	if (!f)
		return fail(p, PE_EIO, "key '%s': cannot open '%s': %s", key, value + 1,
		            strerror(errno));
	struct strbuf text = {0};
	char chunk[4096];
	size_t got;
	int ok = 1, too_long = 0;
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (text.len + got > (1u << 24)) {
			too_long = 1;
			break;
		}
		if (strbuf_add(&text, chunk, got) != 0) {
			ok = 0;
			break;
		}
	}
	int read_error = ferror(f);
	fclose(f);
	if (!ok || read_error) {
		free(text.buf);
		return fail(p, read_error ? PE_EIO : PE_ENOMEM, "key '%s': cannot read '%s'", key,
		            value + 1);
	}
	if (ok && too_long) {
		free(text.buf);
		return fail(p, PE_EINVAL, "key '%s': '%s' is longer than 16 MiB", key, value + 1);
	}
	/* A list is text: a NUL byte would end it early and silently. */
	const char *nul = text.buf ? memchr(text.buf, '\0', text.len) : NULL;
	if (nul) {
		size_t at = (size_t)(nul - text.buf);
		free(text.buf);
		return fail(p, PE_EINVAL,
		            "key '%s': '%s' holds a NUL byte at offset %zu (not a text list)", key,
		            value + 1, at);
	}
	/* White space, commas and JSON brackets separate the numbers. */
	enum pe_status st =
	        parse_list_text(p, key, text.buf ? text.buf : "", " \t\r\n,[]", out, count);
	free(text.buf);
	return st;
}

static int find_choice(const char *const *choices, const char *value)
{
	for (int i = 0; choices[i]; i++)
		if (choices[i][0] && strcmp(choices[i], value) == 0)
			return i;
	return -1;
}

static void join_choices(struct strbuf *b, const char *const *choices)
{
	int first = 1;
	for (int i = 0; choices[i]; i++) {
		if (!choices[i][0])
			continue;
		strbuf_addf(b, "%s%s", first ? "" : ", ", choices[i]);
		first = 0;
	}
}

static enum pe_status set_value(struct parser *p, const struct key *k, const char *value)
{
	char *field = (char *)p->s + k->offset;
	double d;
	unsigned long long u;
	int rc;

	switch (k->type) {
	case K_DOUBLE:
		rc = parse_double(value, &d);
		if (rc == -1)
			return fail(p, PE_EINVAL, "key '%s': '%s' is not a number", k->name, value);
		if (rc == -2 || d < k->min || d > k->max || (k->min_open && d == k->min)) {
			if (rc == -2)
				return fail(p, PE_ERANGE, "key '%s': '%s' is not finite", k->name,
				            value);
			if (d > k->max)
				return fail(p, PE_ERANGE, "key '%s': %s must be at most %g",
				            k->name, value, k->max);
			return fail(p, PE_ERANGE, "key '%s': %s must be %s %g", k->name, value,
			            k->min_open ? ">" : ">=", k->min);
		}
		/* Digits only: 4503599627370497.5 would round to a whole double. */
		if (strcmp(k->name, "start") == 0 && value[strspn(value, "0123456789")] != '\0')
			return fail(p, PE_EINVAL, "key 'start': '%s' is not a whole number", value);
		if (strcmp(k->name, "rotary") == 0 && d > 1.0)
			return fail(p, PE_ERANGE, "key 'rotary': %s must be in (0, 1]", value);
		*(double *)field = d;
		return PE_OK;
	case K_COUNT:
		rc = parse_u64(value, &u);
		if (rc == -1)
			return fail(p, PE_EINVAL, "key '%s': '%s' is not a whole number", k->name,
			            value);
		if (rc == -2 || u < (unsigned long long)k->min || u > (unsigned long long)k->max)
			return fail(p, PE_ERANGE, "key '%s': %s must be in %.0f..%.0f", k->name,
			            value, k->min, k->max);
		*(unsigned *)field = (unsigned)u;
		return PE_OK;
	case K_U64:
		rc = parse_u64(value, &u);
		if (rc != 0)
			return fail(p, rc == -1 ? PE_EINVAL : PE_ERANGE,
			            "key '%s': '%s' is not a whole number from 0 to 2^64-1",
			            k->name, value);
		*(uint64_t *)field = (uint64_t)u;
		return PE_OK;
	case K_BOOL:
		if (!strcmp(value, "1") || !strcmp(value, "true") || !strcmp(value, "yes"))
			*(int *)field = 1;
		else if (!strcmp(value, "0") || !strcmp(value, "false") || !strcmp(value, "no"))
			*(int *)field = 0;
		else
			return fail(p, PE_EINVAL, "key '%s': '%s' is not 0, 1, true or false",
			            k->name, value);
		return PE_OK;
	case K_ENUM:
		rc = find_choice(k->choices, value);
		if (rc < 0) {
			struct strbuf b = {0};
			join_choices(&b, k->choices);
			enum pe_status st = fail(p, PE_EINVAL, "key '%s': '%s' is not one of %s",
			                         k->name, value, b.buf ? b.buf : "");
			free(b.buf);
			return st;
		}
		*(int *)field = rc;
		return PE_OK;
	case K_STRING:
	case K_LABEL:
		if (!*value && k->type == K_STRING)
			return fail(p, PE_EINVAL, "key '%s': the value is empty", k->name);
		free(*(char **)field);
		*(char **)field = pe_strdup(value);
		return *(char **)field ? PE_OK : PE_ENOMEM;
	case K_LIST: {
		double **list = (double **)field;
		size_t *count = strcmp(k->name, "long-factor") == 0 ? &p->s->scaling.n_long_factor
		                                                    : &p->s->scaling.n_short_factor;
		return parse_list(p, k->name, value, list, count);
	}
	case K_ROWS: {
		const char *colon = strchr(value, ':');
		if (!colon)
			return fail(p, PE_EINVAL, "key 'rows': '%s' is not A:B (e.g. 2:1026)",
			            value);
		char first[32] = "", last[32] = "";
		size_t la = (size_t)(colon - value), lb = strlen(colon + 1);
		if (la >= sizeof(first) || lb >= sizeof(last))
			return fail(p, PE_EINVAL, "key 'rows': '%s' is not A:B", value);
		memcpy(first, value, la);
		memcpy(last, colon + 1, lb + 1);
		unsigned long long a = 0, b = 0;
		if ((la && parse_u64(first, &a) != 0) || (lb && parse_u64(last, &b) != 0))
			return fail(p, PE_EINVAL, "key 'rows': '%s' is not A:B with whole numbers",
			            value);
		if (lb && b <= a)
			return fail(p, PE_ERANGE, "key 'rows': %s is empty (B must exceed A)",
			            value);
		p->s->row_first = (size_t)a;
		p->s->row_end = (size_t)b;
		p->s->row_end_set = lb != 0;
		return PE_OK;
	}
	}
	return PE_EINVAL;
}

static enum pe_status unknown_key(struct parser *p, const char *key)
{
	struct strbuf b = {0};
	const char *seen[NKEYS];
	size_t nseen = 0;
	unsigned mask = 1u << p->s->kind;
	for (size_t i = 0; i < NKEYS; i++) {
		if (!(keys[i].schemes & mask))
			continue;
		int dup = 0;
		for (size_t j = 0; j < nseen; j++)
			dup |= strcmp(seen[j], keys[i].name) == 0;
		if (dup)
			continue;
		seen[nseen++] = keys[i].name;
		strbuf_addf(&b, "%s%s", nseen > 1 ? ", " : "", keys[i].name);
	}
	enum pe_status st = fail(p, PE_EINVAL, "unknown key '%s' for %s (known: %s)", key,
	                         pe_scheme_name(p->s->kind), b.buf ? b.buf : "");
	free(b.buf);
	return st;
}

static enum pe_status parse_pair(struct parser *p, char *item)
{
	char *eq = strchr(item, '=');
	if (!eq)
		return fail(p, PE_EINVAL, "'%s' is not key=value", item);
	*eq = '\0';
	const char *name = item, *value = eq + 1;
	if (!*name)
		return fail(p, PE_EINVAL, "'=%s' has no key", value);
	unsigned mask = 1u << p->s->kind;
	for (size_t i = 0; i < NKEYS; i++) {
		if (strcmp(keys[i].name, name) != 0 || !(keys[i].schemes & mask))
			continue;
		if (p->given[i])
			return fail(p, PE_EINVAL, "key '%s' is given twice", name);
		p->given[i] = 1;
		return set_value(p, &keys[i], value);
	}
	return unknown_key(p, name);
}

static size_t key_index(const char *name, unsigned schemes)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].name, name) == 0 && (keys[i].schemes & schemes))
			return i;
	return NKEYS;
}

/* Rules that involve several keys, checked once all are known. */
static enum pe_status check_combinations(struct parser *p)
{
	struct pe_scheme *s = p->s;
	if (s->kind == PE_SCHEME_ROPE) {
		unsigned r = 1u << s->scaling.type;
		for (size_t i = 0; i < NKEYS; i++) {
			if (!p->given[i] || !keys[i].scalings || (keys[i].scalings & r))
				continue;
			struct strbuf b = {0};
			int first = 1;
			for (int t = 1; scalings[t]; t++) {
				if (keys[i].scalings & (1u << t)) {
					strbuf_addf(&b, "%s%s", first ? "" : "|", scalings[t]);
					first = 0;
				}
			}
			enum pe_status st =
			        fail(p, PE_EINVAL, "key '%s' needs scaling=%s (scaling is %s)",
			             keys[i].name, b.buf ? b.buf : "", scalings[s->scaling.type]);
			free(b.buf);
			return st;
		}
		set_scaling_defaults(p, p->given[key_index("factor", S_ROPE)],
		                     p->given[key_index("original", S_ROPE)]);
		struct pe_rope_scaling_params *sc = &s->scaling;
		if (sc->type == PE_ROPE_SCALING_LLAMA3 &&
		    sc->high_freq_factor <= sc->low_freq_factor)
			return fail(p, PE_ERANGE, "key 'high': %g must exceed low (%g)",
			            sc->high_freq_factor, sc->low_freq_factor);
		if (sc->type == PE_ROPE_SCALING_YARN && sc->beta_fast <= sc->beta_slow)
			return fail(p, PE_ERANGE, "key 'beta-fast': %g must exceed beta-slow (%g)",
			            sc->beta_fast, sc->beta_slow);
		if (sc->type == PE_ROPE_SCALING_LONGROPE && (!sc->long_factor || !sc->short_factor))
			return fail(p, PE_EINVAL,
			            "key '%s': scaling=longrope needs long-factor and short-factor "
			            "(numbers separated by '/', or @FILE)",
			            sc->long_factor ? "short-factor" : "long-factor");
	}
	if (s->kind == PE_SCHEME_T5) {
		unsigned exact = s->bidirectional ? s->buckets / 4 : s->buckets / 2;
		if (s->bidirectional && s->buckets % 2)
			return fail(p, PE_ERANGE,
			            "key 'buckets': %u must be even when bidirectional",
			            s->buckets);
		if (exact < 1)
			return fail(p, PE_ERANGE, "key 'buckets': %u leaves no exact buckets",
			            s->buckets);
		if (s->max_distance <= exact)
			return fail(p, PE_ERANGE,
			            "key 'max-distance': %u must exceed the %u exact buckets",
			            s->max_distance, exact);
	}
	if (s->kind == PE_SCHEME_FILE && !s->path)
		return fail(p, PE_EINVAL, "key 'path': the file scheme needs path=FILE");
	return PE_OK;
}

static void canon_value(struct strbuf *b, const struct pe_scheme *s, const struct key *k)
{
	const char *field = (const char *)s + k->offset;
	switch (k->type) {
	case K_DOUBLE:
		strbuf_addf(b, "%.17g", *(const double *)field);
		break;
	case K_COUNT:
		strbuf_addf(b, "%u", *(const unsigned *)field);
		break;
	case K_U64:
		strbuf_addf(b, "%llu", (unsigned long long)*(const uint64_t *)field);
		break;
	case K_BOOL:
		strbuf_addf(b, "%d", *(const int *)field);
		break;
	case K_ENUM:
		strbuf_addf(b, "%s", k->choices[*(const int *)field]);
		break;
	case K_STRING:
		strbuf_addf(b, "%s", *(char *const *)field);
		break;
	case K_LIST: {
		const double *v = *(double *const *)field;
		size_t n = strcmp(k->name, "long-factor") == 0 ? s->scaling.n_long_factor
		                                               : s->scaling.n_short_factor;
		for (size_t i = 0; i < n; i++)
			strbuf_addf(b, "%s%.17g", i ? "/" : "", v[i]);
		break;
	}
	case K_ROWS:
		strbuf_addf(b, "%zu:", s->row_first);
		if (s->row_end_set)
			strbuf_addf(b, "%zu", s->row_end);
		break;
	case K_LABEL:
		break;
	}
}

/* "%.17g" prints 10000 as 10000 and 0.1 as 0.10000000000000001: use the
 * shortest text that reads back to the same double. */
static void canon_number_shorten(struct strbuf *b, size_t from)
{
	char *text = b->buf + from;
	double v;
	if (parse_double(text, &v) != 0)
		return;
	char shortest[40];
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(shortest, sizeof(shortest), "%.0f", v);
	} else {
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(shortest, sizeof(shortest), "%.*g", prec, v);
			if (strtod(shortest, NULL) == v)
				break;
		}
	}
	b->len = from;
	b->buf[from] = '\0';
	strbuf_addf(b, "%s", shortest);
}

static enum pe_status build_canonical(struct parser *p)
{
	struct pe_scheme *s = p->s;
	struct strbuf *b = &p->canon;
	strbuf_addf(b, "%s", pe_scheme_name(s->kind));
	for (size_t i = 0; i < NKEYS; i++) {
		if (!p->given[i] || keys[i].type == K_LABEL)
			continue;
		strbuf_addf(b, " %s=", keys[i].name);
		size_t from = b->len;
		canon_value(b, s, &keys[i]);
		if (keys[i].type == K_DOUBLE)
			canon_number_shorten(b, from);
	}
	if (b->failed)
		return PE_ENOMEM;
	s->canonical = b->buf;
	b->buf = NULL;
	if (!s->label) {
		/* An untrained table must never pass for a trained one. */
		s->label = s->kind == PE_SCHEME_LEARNED
		                   ? pe_asprintf("%s (untrained init)", s->canonical)
		                   : pe_strdup(s->canonical);
		if (!s->label)
			return PE_ENOMEM;
	}
	return PE_OK;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

static int looks_like_file(const char *spec)
{
	return strchr(spec, '#') || has_suffix(spec, ".npy") || has_suffix(spec, ".safetensors") ||
	       has_suffix(spec, ".csv");
}

enum pe_status pe_scheme_parse(const char *spec, struct pe_scheme **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	struct pe_scheme *s = calloc(1, sizeof(*s));
	char *copy = pe_strdup(spec);
	struct parser p = {.s = s, .err = err};
	enum pe_status st = PE_OK;
	if (!s || !copy) {
		st = PE_ENOMEM;
		goto done;
	}
	set_defaults(s);

	char *colon = strchr(copy, ':');
	char *rest = NULL;
	if (colon) {
		*colon = '\0';
		rest = colon + 1;
	}
	int kind = -1;
	for (size_t i = 0; i < sizeof(scheme_names) / sizeof(scheme_names[0]); i++)
		if (strcmp(copy, scheme_names[i]) == 0)
			kind = (int)i;
	if (kind < 0 && looks_like_file(spec)) {
		/* Short form PATH#TENSOR or a bare path: no keys. */
		s->kind = PE_SCHEME_FILE;
		strcpy(copy, spec);
		char *hash = strrchr(copy, '#');
		if (hash) {
			*hash = '\0';
			s->tensor = pe_strdup(hash + 1);
			if (!s->tensor || !hash[1]) {
				st = s->tensor ? fail(&p, PE_EINVAL,
				                      "'%s': the tensor name after '#' is empty",
				                      spec)
				               : PE_ENOMEM;
				goto done;
			}
			p.given[key_index("tensor", S_FILE)] = 1;
		}
		if (!*copy) {
			st = fail(&p, PE_EINVAL, "'%s': the file path is empty", spec);
			goto done;
		}
		s->path = pe_strdup(copy);
		if (!s->path) {
			st = PE_ENOMEM;
			goto done;
		}
		p.given[key_index("path", S_FILE)] = 1;
	} else if (kind < 0) {
		if (!*copy)
			st = fail(&p, PE_EINVAL, "empty scheme name in '%s'", spec);
		else
			st = fail(&p, PE_EINVAL,
			          "unknown scheme '%s' (known: sinusoidal, rope, learned, binary, "
			          "file, alibi, t5)",
			          copy);
		goto done;
	} else {
		s->kind = (enum pe_scheme_kind)kind;
		if (rest) {
			if (!*rest) {
				st = fail(&p, PE_EINVAL, "'%s' has nothing after ':'", spec);
				goto done;
			}
			if (rest[strlen(rest) - 1] == ',' || rest[0] == ',' || strstr(rest, ",,")) {
				st = fail(&p, PE_EINVAL, "'%s' has an empty key=value item", spec);
				goto done;
			}
			char *save = NULL;
			for (char *item = rest;; item = NULL) {
				char *tok = strtok_r(item, ",", &save);
				if (!tok)
					break;
				st = parse_pair(&p, tok);
				if (st != PE_OK)
					goto done;
			}
		}
	}
	st = check_combinations(&p);
	if (st == PE_OK)
		st = build_canonical(&p);
done:
	free(copy);
	free(p.canon.buf);
	if (st != PE_OK) {
		if (st == PE_ENOMEM && err && !*err)
			*err = pe_strdup("out of memory");
		pe_scheme_destroy(s);
		return st;
	}
	*out = s;
	return PE_OK;
}

static int dup_list(double **dst, const double *src, size_t n)
{
	if (!src) {
		*dst = NULL;
		return 0;
	}
	*dst = malloc(n * sizeof(double));
	if (!*dst)
		return -1;
	memcpy(*dst, src, n * sizeof(double));
	return 0;
}

enum pe_status pe_scheme_copy(const struct pe_scheme *s, struct pe_scheme **out)
{
	struct pe_scheme *c = malloc(sizeof(*c));
	if (!c)
		return PE_ENOMEM;
	*c = *s;
	c->label = c->canonical = c->path = c->tensor = NULL;
	c->scaling.long_factor = c->scaling.short_factor = NULL;
	int bad = 0;
	bad |= s->label && !(c->label = pe_strdup(s->label));
	bad |= s->canonical && !(c->canonical = pe_strdup(s->canonical));
	bad |= s->path && !(c->path = pe_strdup(s->path));
	bad |= s->tensor && !(c->tensor = pe_strdup(s->tensor));
	bad |= dup_list(&c->scaling.long_factor, s->scaling.long_factor, s->scaling.n_long_factor);
	bad |= dup_list(&c->scaling.short_factor, s->scaling.short_factor,
	                s->scaling.n_short_factor);
	if (bad) {
		pe_scheme_destroy(c);
		return PE_ENOMEM;
	}
	*out = c;
	return PE_OK;
}

enum pe_status pe_scheme_set_label(struct pe_scheme *s, const char *label)
{
	char *copy = pe_strdup(label);
	if (!copy)
		return PE_ENOMEM;
	free(s->label);
	s->label = copy;
	return PE_OK;
}

void pe_scheme_destroy(struct pe_scheme *s)
{
	if (!s)
		return;
	free(s->label);
	free(s->canonical);
	free(s->path);
	free(s->tensor);
	free(s->scaling.long_factor);
	free(s->scaling.short_factor);
	free(s);
}
