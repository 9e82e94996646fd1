/*
 * read_json.h - a small strict JSON parser for safetensors headers
 *
 * RFC 8259 grammar, nesting at most JSON_MAX_DEPTH deep. Strings are
 * decoded to UTF-8 (\u0000 is refused: names are C strings). Integers
 * without sign, fraction or exponent are also kept as uint64 when they fit.
 */
#ifndef POSENC_READ_JSON_H
#define POSENC_READ_JSON_H

#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 64

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json {
	enum json_type type;
	int boolean;
	int is_uint;        /* number: a plain non-negative integer that fits */
	uint64_t uint;      /* when is_uint */
	double number;      /* number: the nearest double (+-HUGE_VAL if it overflows) */
	char *string;       /* string: decoded, owned */
	size_t n;           /* array, object: number of items */
	struct json *items; /* owned */
	char **keys;        /* object: n decoded keys, owned */
};

/*
 * Parses text[0..len) (a whole document: value then white space only).
 * On failure returns NULL and, if err, a malloc'd message with the byte
 * offset.
 */
struct json *json_parse(const char *text, size_t len, char **err);

void json_free(struct json *j);

/*
 * An upper bound on the heap json_parse() takes for text[0..len): the tree
 * costs far more than the text (a 2-byte "1," is a 64-byte node in an array
 * that grows by doubling), about 30 times for long arrays of numbers. From
 * one pass over the bytes, so that callers refuse a document over their
 * memory budget before parsing it.
 */
double json_cost_bound(const char *text, size_t len);

/* Whether bytes s[0..len) are valid UTF-8 (no overlongs or surrogates). */
int json_utf8_valid(const unsigned char *s, size_t len);

#endif
