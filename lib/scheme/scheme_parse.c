/*
 * The scheme-spec parser: NAME[:key=value[,key=value]...].
 *
 * NAME picks a type from the registry (registry.c); the type's key table
 * (name, type, field, limits, default text) drives parsing: defaults
 * first, then the spec's keys, then the type's rules across keys (RoPE
 * scaling keys need the right scaling), then the canonical text in the
 * table's key order. Messages name the offending key and value.
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
#include "scheme/scheme_type.h"

/* Keys every scheme takes besides its own. */
static const struct pe_scheme_key label_key = {
        "label",
        PE_KEY_STRING,
        offsetof(struct pe_scheme, label),
        0,
        NULL,
        0,
        0,
        0,
        NULL,
        "the legend and CSV label (default: the canonical spec)"};

#define MAX_KEYS 64

struct parser {
	struct pe_scheme *s;
	char **err;
	unsigned char given[MAX_KEYS];
	unsigned char label_given;
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

static int parse_double(const char *text, double *out)
{
	if (!*text || isspace((unsigned char)*text))
		return -1;
	/* decimal only, as the options read numbers: strtod would take 0x10 as 16 */
	const char *digits = *text == '+' || *text == '-' ? text + 1 : text;
	if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
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

/*
 * Whether decimal text DIGITS[.DIGITS][e[+-]DIGITS] is exactly a whole
 * number ("2.0" and "1e1" are; "4503599627370497.5" is not, though it
 * rounds to a whole double): every digit the exponent leaves after the
 * point is 0.
 */
static int text_is_whole(const char *t)
{
	const char *digits = t;
	size_t nint = strspn(t, "0123456789"), nfrac = 0;
	const char *frac = t + nint;
	if (*frac == '.') {
		frac++;
		nfrac = strspn(frac, "0123456789");
	}
	const char *c = frac + nfrac;
	long exp = 0;
	if (*c == 'e' || *c == 'E') {
		c++;
		int neg = *c == '-';
		if (*c == '+' || *c == '-')
			c++;
		for (; *c >= '0' && *c <= '9'; c++)
			if (exp < 100000)
				exp = exp * 10 + (*c - '0');
		exp = neg ? -exp : exp;
	}
	/* Digits of the fraction part, and the last -exp of the integer part, are after the point.
	 */
	long after = (long)nfrac - exp;
	for (long i = 0; i < after && i < (long)(nint + nfrac); i++) {
		size_t at = nint + nfrac - 1 - (size_t)i;
		char dig = at < nint ? digits[at] : frac[at - nint];
		if (dig != '0')
			return 0;
	}
	return 1;
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

static enum pe_status set_value(struct parser *p, const struct pe_scheme_key *k, const char *value)
{
	char *field = (char *)p->s + k->offset;
	double d;
	unsigned long long u;
	int rc;

	switch (k->type) {
	case PE_KEY_DOUBLE:
	case PE_KEY_WHOLE:
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
		if (k->type == PE_KEY_WHOLE && (d != floor(d) || !text_is_whole(value)))
			return fail(p, PE_EINVAL, "key '%s': '%s' is not a whole number", k->name,
			            value);
		*(double *)field = d;
		return PE_OK;
	case PE_KEY_COUNT:
		rc = parse_u64(value, &u);
		if (rc == -1)
			return fail(p, PE_EINVAL, "key '%s': '%s' is not a whole number", k->name,
			            value);
		if (rc == -2 || u < (unsigned long long)k->min || u > (unsigned long long)k->max)
			return fail(p, PE_ERANGE, "key '%s': %s must be in %.0f..%.0f", k->name,
			            value, k->min, k->max);
		*(unsigned *)field = (unsigned)u;
		return PE_OK;
	case PE_KEY_U64:
		rc = parse_u64(value, &u);
		if (rc != 0)
			return fail(p, rc == -1 ? PE_EINVAL : PE_ERANGE,
			            "key '%s': '%s' is not a whole number from 0 to 2^64-1",
			            k->name, value);
		*(uint64_t *)field = (uint64_t)u;
		return PE_OK;
	case PE_KEY_BOOL:
		if (!strcmp(value, "1") || !strcmp(value, "true") || !strcmp(value, "yes"))
			*(int *)field = 1;
		else if (!strcmp(value, "0") || !strcmp(value, "false") || !strcmp(value, "no"))
			*(int *)field = 0;
		else
			return fail(p, PE_EINVAL, "key '%s': '%s' is not 0, 1, true or false",
			            k->name, value);
		return PE_OK;
	case PE_KEY_ENUM:
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
	case PE_KEY_STRING:
		if (!*value && k != &label_key)
			return fail(p, PE_EINVAL, "key '%s': the value is empty", k->name);
		free(*(char **)field);
		*(char **)field = pe_strdup(value);
		return *(char **)field ? PE_OK : PE_ENOMEM;
	case PE_KEY_LIST: {
		double **list = (double **)field;
		size_t *count = (size_t *)((char *)p->s + k->count_offset);
		free(*list);
		*list = NULL;
		return parse_list(p, k->name, value, list, count);
	}
	case PE_KEY_ROWS: {
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
	const struct pe_scheme_type *type = p->s->type;
	struct strbuf b = {0};
	for (size_t i = 0; i < type->n_keys; i++)
		strbuf_addf(&b, "%s, ", type->keys[i].name);
	strbuf_addf(&b, "%s", label_key.name);
	enum pe_status st = fail(p, PE_EINVAL, "unknown key '%s' for %s (known: %s)", key,
	                         type->name, b.buf ? b.buf : "");
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
	const struct pe_scheme_type *type = p->s->type;
	unsigned char *given = NULL;
	const struct pe_scheme_key *k = NULL;
	for (size_t i = 0; i < type->n_keys && !k; i++) {
		if (strcmp(type->keys[i].name, name) == 0) {
			k = &type->keys[i];
			given = &p->given[i];
		}
	}
	if (!k && strcmp(name, label_key.name) == 0) {
		k = &label_key;
		given = &p->label_given;
	}
	if (!k)
		return unknown_key(p, name);
	if (*given)
		return fail(p, PE_EINVAL, "key '%s' is given twice", name);
	*given = 1;
	return set_value(p, k, value);
}

static size_t key_index(const struct pe_scheme_type *type, const char *name)
{
	for (size_t i = 0; i < type->n_keys; i++)
		if (strcmp(type->keys[i].name, name) == 0)
			return i;
	return MAX_KEYS - 1;
}

/* The type's defaults: each key's default text, then what text cannot say. */
static enum pe_status set_defaults(struct parser *p)
{
	const struct pe_scheme_type *type = p->s->type;
	if (type->n_keys >= MAX_KEYS)
		return fail(p, PE_EINVAL, "scheme '%s' has more keys than the parser holds",
		            type->name);
	for (size_t i = 0; i < type->n_keys; i++) {
		const struct pe_scheme_key *k = &type->keys[i];
		if (!k->def)
			continue;
		enum pe_status st = set_value(p, k, k->def);
		if (st != PE_OK)
			return st;
	}
	if (type->init)
		type->init(p->s);
	return PE_OK;
}

/* Rules that involve several keys, checked once all are known. */
static enum pe_status check_combinations(struct parser *p)
{
	const struct pe_scheme_type *type = p->s->type;
	if (!type->finish)
		return PE_OK;
	char *msg = NULL;
	enum pe_status st = type->finish(p->s, p->given, &msg);
	if (st != PE_OK) {
		if (msg)
			fail(p, st, "%s", msg);
		else if (st != PE_ENOMEM)
			st = PE_ENOMEM;
	}
	free(msg);
	return st;
}

static void canon_value(struct strbuf *b, const struct pe_scheme *s, const struct pe_scheme_key *k)
{
	const char *field = (const char *)s + k->offset;
	switch (k->type) {
	case PE_KEY_DOUBLE:
	case PE_KEY_WHOLE:
		strbuf_addf(b, "%.17g", *(const double *)field);
		break;
	case PE_KEY_COUNT:
		strbuf_addf(b, "%u", *(const unsigned *)field);
		break;
	case PE_KEY_U64:
		strbuf_addf(b, "%llu", (unsigned long long)*(const uint64_t *)field);
		break;
	case PE_KEY_BOOL:
		strbuf_addf(b, "%d", *(const int *)field);
		break;
	case PE_KEY_ENUM:
		strbuf_addf(b, "%s", k->choices[*(const int *)field]);
		break;
	case PE_KEY_STRING:
		strbuf_addf(b, "%s", *(char *const *)field);
		break;
	case PE_KEY_LIST: {
		const double *v = *(double *const *)field;
		size_t n = *(const size_t *)((const char *)s + k->count_offset);
		for (size_t i = 0; i < n; i++)
			strbuf_addf(b, "%s%.17g", i ? "/" : "", v[i]);
		break;
	}
	case PE_KEY_ROWS:
		strbuf_addf(b, "%zu:", s->row_first);
		if (s->row_end_set)
			strbuf_addf(b, "%zu", s->row_end);
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
	const struct pe_scheme_type *type = s->type;
	struct strbuf *b = &p->canon;
	strbuf_addf(b, "%s", type->name);
	for (size_t i = 0; i < type->n_keys; i++) {
		const struct pe_scheme_key *k = &type->keys[i];
		if (!p->given[i])
			continue;
		strbuf_addf(b, " %s=", k->name);
		size_t from = b->len;
		canon_value(b, s, k);
		if (k->type == PE_KEY_DOUBLE || k->type == PE_KEY_WHOLE)
			canon_number_shorten(b, from);
	}
	if (b->failed)
		return PE_ENOMEM;
	s->canonical = b->buf;
	b->buf = NULL;
	if (!s->label) {
		/* An untrained table must never pass for a trained one. */
		s->label = pe_scheme_has(s, PE_CAP_UNTRAINED)
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

/* "unknown scheme 'x' (known: sinusoidal, rope, ...)" from the registry. */
static enum pe_status unknown_scheme(struct parser *p, const char *name)
{
	struct strbuf b = {0};
	for (size_t i = 0; i < pe_scheme_registry_count; i++)
		strbuf_addf(&b, "%s%s", i ? ", " : "", pe_scheme_registry[i]->name);
	enum pe_status st =
	        fail(p, PE_EINVAL, "unknown scheme '%s' (known: %s)", name, b.buf ? b.buf : "");
	free(b.buf);
	return st;
}

/* Short form PATH#TENSOR or a bare path: the file scheme without keys. */
static enum pe_status parse_file_short(struct parser *p, const char *spec, char *copy)
{
	struct pe_scheme *s = p->s;
	strcpy(copy, spec);
	char *hash = strrchr(copy, '#');
	if (hash) {
		*hash = '\0';
		s->tensor = pe_strdup(hash + 1);
		if (!s->tensor)
			return PE_ENOMEM;
		if (!hash[1])
			return fail(p, PE_EINVAL, "'%s': the tensor name after '#' is empty", spec);
		p->given[key_index(s->type, "tensor")] = 1;
	}
	if (!*copy)
		return fail(p, PE_EINVAL, "'%s': the file path is empty", spec);
	s->path = pe_strdup(copy);
	if (!s->path)
		return PE_ENOMEM;
	p->given[key_index(s->type, "path")] = 1;
	return PE_OK;
}

static enum pe_status parse_keys(struct parser *p, const char *spec, char *rest)
{
	if (!rest)
		return PE_OK;
	if (!*rest)
		return fail(p, PE_EINVAL, "'%s' has nothing after ':'", spec);
	if (rest[strlen(rest) - 1] == ',' || rest[0] == ',' || strstr(rest, ",,"))
		return fail(p, PE_EINVAL, "'%s' has an empty key=value item", spec);
	char *save = NULL;
	for (char *item = rest;; item = NULL) {
		char *tok = strtok_r(item, ",", &save);
		if (!tok)
			return PE_OK;
		enum pe_status st = parse_pair(p, tok);
		if (st != PE_OK)
			return st;
	}
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
	char *colon = strchr(copy, ':');
	char *rest = NULL;
	if (colon) {
		*colon = '\0';
		rest = colon + 1;
	}
	s->type = pe_scheme_type_find(copy);
	int short_file = !s->type && looks_like_file(spec);
	if (short_file)
		s->type = pe_scheme_type_find("file");
	if (!s->type) {
		st = *copy ? unknown_scheme(&p, copy)
		           : fail(&p, PE_EINVAL, "empty scheme name in '%s'", spec);
		goto done;
	}
	/* file:PATH and file:PATH#TENSOR: the short form behind the scheme's name. */
	const char *short_spec = short_file ? spec : NULL;
	if (!short_file && rest && (s->type->caps & PE_CAP_TABLE) && !strchr(rest, '=') &&
	    looks_like_file(rest))
		short_spec = spec + (rest - copy);
	st = set_defaults(&p);
	if (st == PE_OK)
		st = short_spec ? parse_file_short(&p, short_spec, copy)
		                : parse_keys(&p, spec, rest);
	if (st == PE_OK)
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
	c->mrope_positions = NULL;
	int bad = 0;
	bad |= s->label && !(c->label = pe_strdup(s->label));
	bad |= s->canonical && !(c->canonical = pe_strdup(s->canonical));
	bad |= s->path && !(c->path = pe_strdup(s->path));
	bad |= s->tensor && !(c->tensor = pe_strdup(s->tensor));
	bad |= dup_list(&c->scaling.long_factor, s->scaling.long_factor, s->scaling.n_long_factor);
	bad |= dup_list(&c->scaling.short_factor, s->scaling.short_factor,
	                s->scaling.n_short_factor);
	bad |= dup_list(&c->mrope_positions, s->mrope_positions, 3 * s->mrope_n_positions);
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
	free(s->mrope_positions);
	free(s);
}
