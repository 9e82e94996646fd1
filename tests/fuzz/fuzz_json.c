/* libFuzzer target: the JSON parser of safetensors headers and configs
 * (json_parse), and the bound on its memory (json_cost_bound). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/read_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Of a document that is valid UTF-8 (the safetensors reader checks that
 * first), every decoded string and key is valid UTF-8 too: escapes decode
 * to whole code points, no lone surrogates.
 */
static size_t nodes, text_bytes;
static int utf8_input;

static void walk(const struct json *j, int depth)
{
	nodes++;
	if (j->type == JSON_STRING && j->string)
		text_bytes += strlen(j->string) + 1;
	if (depth > JSON_MAX_DEPTH + 1)
		abort();
	if (j->type == JSON_STRING &&
	    (!j->string ||
	     (utf8_input && !json_utf8_valid((const unsigned char *)j->string, strlen(j->string)))))
		abort();
	if (j->type != JSON_ARRAY && j->type != JSON_OBJECT)
		return;
	if (j->n && !j->items)
		abort();
	for (size_t i = 0; i < j->n; i++) {
		if (j->type == JSON_OBJECT &&
		    (!j->keys || !j->keys[i] ||
		     (utf8_input &&
		      !json_utf8_valid((const unsigned char *)j->keys[i], strlen(j->keys[i])))))
			abort();
		if (j->type == JSON_OBJECT && j->keys && j->keys[i])
			text_bytes += strlen(j->keys[i]) + 1;
		walk(&j->items[i], depth + 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL;
	struct json *j = json_parse((const char *)data, size, &err);
	if (j) {
		if (err)
			abort();
		nodes = text_bytes = 0;
		utf8_input = json_utf8_valid(data, size);
		walk(j, 0);
		/* The budget's bound covers what the tree holds: its nodes and the
		 * decoded strings (read_json.h, json_cost_bound). */
		double bound = json_cost_bound((const char *)data, size);
		if (!(bound >= (double)nodes * sizeof(struct json) + (double)text_bytes))
			abort();
		json_free(j);
	} else {
		free(err); /* NULL only when out of memory */
	}
	return 0;
}
