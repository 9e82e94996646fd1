#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/read_internal.h"
#include "io/read_json.h"

struct parser {
	const char *start, *p, *end;
	char **err;
	int failed;
};

static void fail(struct parser *ps, const char *what)
{
	if (ps->failed)
		return;
	ps->failed = 1;
	rd_fail(ps->err, PE_EFORMAT, "invalid JSON at byte %zu: %s", (size_t)(ps->p - ps->start),
	        what);
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static void json_clear(struct json *j)
{
	free(j->string);
	for (size_t i = 0; i < j->n; i++) {
		json_clear(&j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	memset(j, 0, sizeof(*j));
}

double json_cost_bound(const char *text, size_t len)
{
	/* Values <= 1 + separators + openings; each a node (twice its size at
	 * most, arrays grow by doubling) and a key slot; each string a block
	 * with malloc's overhead and its text. */
	size_t values = 1, quotes = 0;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		values += c == ',' || c == '[' || c == '{';
		quotes += c == '"';
	}
	double node = 2.0 * (double)(sizeof(struct json) + sizeof(char *)) + 16.0;
	return (double)values * node + (double)(quotes / 2) * 32.0 + (double)len;
}

void json_free(struct json *j)
{
	if (!j)
		return;
	json_clear(j);
	free(j);
}

int json_utf8_valid(const unsigned char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		unsigned c = s[i];
		size_t n;
		uint32_t cp, min;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1, cp = c & 0x1f, min = 0x80;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2, cp = c & 0x0f, min = 0x800;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3, cp = c & 0x07, min = 0x10000;
		} else {
			return 0;
		}
		if (len - i - 1 < n)
			return 0;
		for (size_t k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += n + 1;
	}
	return 1;
}

static int hex4(const char *p, uint32_t *out)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return 0;
	}
	*out = v;
	return 1;
}

static size_t put_utf8(char *dst, uint32_t cp)
{
	if (cp < 0x80) {
		dst[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		dst[0] = (char)(0xc0 | cp >> 6);
		dst[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		dst[0] = (char)(0xe0 | cp >> 12);
		dst[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		dst[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	dst[0] = (char)(0xf0 | cp >> 18);
	dst[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	dst[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	dst[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Parses a string at ps->p (on the opening quote) into a new C string. */
static char *parse_string(struct parser *ps)
{
	ps->p++;
	const char *s = ps->p;
	/* First pass: find the end, so the decoded text (never longer) fits. */
	while (ps->p < ps->end && *ps->p != '"') {
		if (*ps->p == '\\') {
			if (ps->end - ps->p < 2) {
				fail(ps, "unterminated string");
				return NULL;
			}
			ps->p++;
		}
		ps->p++;
	}
	if (ps->p >= ps->end) {
		fail(ps, "unterminated string");
		return NULL;
	}
	const char *e = ps->p;
	char *out = malloc((size_t)(e - s) + 1);
	if (!out) {
		fail(ps, "out of memory");
		return NULL;
	}
	size_t n = 0;
	for (const char *q = s; q < e;) {
		unsigned char c = (unsigned char)*q;
		if (c < 0x20) {
			ps->p = q;
			fail(ps, "control character in a string");
			free(out);
			return NULL;
		}
		if (c != '\\') {
			out[n++] = (char)c;
			q++;
			continue;
		}
		q++;
		char esc = *q++;
		const char *simple = strchr("\"\\/bfnrt", esc);
		if (esc && simple) {
			static const char map[] = "\"\\/\b\f\n\r\t";
			out[n++] = map[simple - "\"\\/bfnrt"];
			continue;
		}
		uint32_t cp;
		if (esc != 'u' || e - q < 4 || !hex4(q, &cp)) {
			ps->p = q - 1;
			fail(ps, "invalid escape in a string");
			free(out);
			return NULL;
		}
		q += 4;
		if (cp >= 0xd800 && cp <= 0xdbff) {
			uint32_t lo;
			if (e - q < 6 || q[0] != '\\' || q[1] != 'u' || !hex4(q + 2, &lo) ||
			    lo < 0xdc00 || lo > 0xdfff) {
				ps->p = q;
				fail(ps, "unpaired surrogate in a string");
				free(out);
				return NULL;
			}
			q += 6;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		} else if (cp >= 0xdc00 && cp <= 0xdfff) {
			ps->p = q;
			fail(ps, "unpaired surrogate in a string");
			free(out);
			return NULL;
		}
		if (cp == 0) {
			ps->p = q;
			fail(ps, "\\u0000 in a string");
			free(out);
			return NULL;
		}
		/* A \uXXXX escape (6 bytes) decodes to at most 4 bytes. */
		n += put_utf8(out + n, cp);
	}
	out[n] = '\0';
	ps->p = e + 1;
	return out;
}

static void parse_number(struct parser *ps, struct json *j)
{
	const char *s = ps->p;
	j->type = JSON_NUMBER;
	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
		fail(ps, "malformed number");
		return;
	}
	int plain = *s != '-';
	uint64_t v = 0;
	int fits = 1;
	if (*ps->p == '0') {
		ps->p++;
	} else {
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
			unsigned d = (unsigned)(*ps->p - '0');
			if (v > (UINT64_MAX - d) / 10)
				fits = 0;
			else
				v = v * 10 + d;
			ps->p++;
		}
	}
	if (ps->p < ps->end && *ps->p == '.') {
		plain = 0;
		ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
			fail(ps, "malformed number");
			return;
		}
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		plain = 0;
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
			fail(ps, "malformed number");
			return;
		}
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	j->is_uint = plain && fits;
	j->uint = v;
	/* strtod needs a terminated copy; the span is digits, sign, '.', 'e' only. */
	size_t span = (size_t)(ps->p - s);
	char small[64];
	char *copy = span < sizeof(small) ? small : malloc(span + 1);
	if (!copy) {
		fail(ps, "out of memory");
		return;
	}
	memcpy(copy, s, span);
	copy[span] = '\0';
	j->number = strtod(copy, NULL);
	if (copy != small)
		free(copy);
}

static int literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, word, n) == 0) {
		ps->p += n;
		return 1;
	}
	return 0;
}

static void parse_value(struct parser *ps, struct json *j, int depth);

/* Appends a zeroed item (and key slot for objects); NULL when out of memory. */
static struct json *grow(struct parser *ps, struct json *j, size_t *cap)
{
	if (j->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4;
		struct json *items = realloc(j->items, ncap * sizeof(*items));
		if (!items) {
			fail(ps, "out of memory");
			return NULL;
		}
		j->items = items;
		if (j->type == JSON_OBJECT) {
			char **keys = realloc(j->keys, ncap * sizeof(*keys));
			if (!keys) {
				fail(ps, "out of memory");
				return NULL;
			}
			j->keys = keys;
		}
		*cap = ncap;
	}
	struct json *item = &j->items[j->n];
	memset(item, 0, sizeof(*item));
	if (j->type == JSON_OBJECT)
		j->keys[j->n] = NULL;
	j->n++;
	return item;
}

static void parse_container(struct parser *ps, struct json *j, int depth)
{
	int object = *ps->p == '{';
	char close = object ? '}' : ']';
	j->type = object ? JSON_OBJECT : JSON_ARRAY;
	ps->p++;
	size_t cap = 0;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return;
	}
	for (;;) {
		skip_ws(ps);
		char *key = NULL;
		if (object) {
			if (ps->p >= ps->end || *ps->p != '"') {
				fail(ps, "expected a string key");
				return;
			}
			key = parse_string(ps);
			if (!key)
				return;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				free(key);
				fail(ps, "expected ':'");
				return;
			}
			ps->p++;
		}
		struct json *item = grow(ps, j, &cap);
		if (!item) {
			free(key);
			return;
		}
		if (object)
			j->keys[j->n - 1] = key;
		parse_value(ps, item, depth + 1);
		if (ps->failed)
			return;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return;
		}
		fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
		return;
	}
}

static void parse_value(struct parser *ps, struct json *j, int depth)
{
	skip_ws(ps);
	if (depth > JSON_MAX_DEPTH) {
		fail(ps, "nested too deeply");
		return;
	}
	if (ps->p >= ps->end) {
		fail(ps, "unexpected end");
		return;
	}
	char c = *ps->p;
	if (c == '{' || c == '[') {
		parse_container(ps, j, depth);
	} else if (c == '"') {
		j->type = JSON_STRING;
		j->string = parse_string(ps);
	} else if (literal(ps, "NaN")) {
		/* Python's json (and so transformers) reads NaN and [-]Infinity, and
		 * published configs hold them (Nemotron-H's "time_step_limit": [0.0,
		 * Infinity]); a reader that needs a finite number says so for its key. */
		j->type = JSON_NUMBER;
		j->number = NAN;
	} else if (literal(ps, "Infinity") || literal(ps, "-Infinity")) {
		j->type = JSON_NUMBER;
		j->number = c == '-' ? -INFINITY : INFINITY;
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		parse_number(ps, j);
	} else if (literal(ps, "true")) {
		j->type = JSON_BOOL;
		j->boolean = 1;
	} else if (literal(ps, "false")) {
		j->type = JSON_BOOL;
	} else if (literal(ps, "null")) {
		j->type = JSON_NULL;
	} else {
		fail(ps, "unexpected character");
	}
}

struct json *json_parse(const char *text, size_t len, char **err)
{
	struct parser ps = {text, text, text + len, err, 0};
	struct json *j = calloc(1, sizeof(*j));
	if (!j) {
		rd_fail(err, PE_ENOMEM, "out of memory");
		return NULL;
	}
	parse_value(&ps, j, 0);
	if (!ps.failed) {
		skip_ws(&ps);
		if (ps.p != ps.end)
			fail(&ps, "text after the JSON value");
	}
	if (ps.failed) {
		json_free(j);
		return NULL;
	}
	return j;
}
