/*
 * The config.json reader's shared helpers: messages, typed look-ups with
 * transformers' attribute_map aliases and class defaults, spec text.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_hf.h"
#include "model/model_internal.h"

enum pe_status hf_fail(struct hf *h, enum pe_status st, const char *fmt, ...)
{
	if (h->err && !*h->err) {
		va_list ap;
		va_start(ap, fmt);
		*h->err = pe_vasprintf(fmt, ap);
		va_end(ap);
	}
	return st;
}

enum pe_status hf_warn(struct hf *h, const char *fmt, ...)
{
	char **grown = realloc(h->m->warnings, (h->m->n_warnings + 1) * sizeof(*grown));
	if (!grown)
		return PE_ENOMEM;
	h->m->warnings = grown;
	va_list ap;
	va_start(ap, fmt);
	char *text = pe_vasprintf(fmt, ap);
	va_end(ap);
	if (!text)
		return PE_ENOMEM;
	/* once, though every layer of a group reads the same block */
	for (size_t i = 0; i < h->m->n_warnings; i++)
		if (strcmp(grown[i], text) == 0) {
			free(text);
			return PE_OK;
		}
	grown[h->m->n_warnings++] = text;
	return PE_OK;
}

static const struct json *get_n(const struct json *obj, const char *key, size_t len)
{
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	const struct json *found = NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (strlen(obj->keys[i]) == len && strncmp(obj->keys[i], key, len) == 0)
			found = &obj->items[i];
	return found;
}

const struct json *hf_get(const struct json *obj, const char *key)
{
	const struct json *found = get_n(obj, key, strlen(key));
	if (found || !strchr(key, '.'))
		return found;
	/* a registry path into a sub-object (attn_config.rope_theta) */
	for (const char *dot; (dot = strchr(key, '.')) != NULL; key = dot + 1)
		if (!(obj = get_n(obj, key, (size_t)(dot - key))))
			return NULL;
	return get_n(obj, key, strlen(key));
}

const struct json *hf_present(const struct json *obj, const char *key)
{
	const struct json *v = hf_get(obj, key);
	return v && v->type != JSON_NULL ? v : NULL;
}

const struct json *hf_block_type(const struct json *block)
{
	const struct json *t = hf_present(block, "rope_type");
	return t ? t : hf_present(block, "type");
}

int hf_layer_list(struct hf *h, const char *key, size_t n, const char *what,
                  const struct json **out)
{
	*out = hf_present(h->cfg, key);
	if (!*out)
		return 0;
	if ((*out)->type != JSON_ARRAY || (*out)->n != n) {
		hf_fail(h, PE_EFORMAT, "%s: is not a list of %zu %s", key, n, what);
		return -1;
	}
	return 1;
}

int hf_number(struct hf *h, const char *where, const struct json *obj, const char *key, double *out)
{
	const struct json *v = hf_present(obj, key);
	if (!v)
		return 0;
	if (v->type != JSON_NUMBER || !isfinite(v->number)) {
		hf_fail(h, PE_EFORMAT, "%s%s: is not a finite number", where, key);
		return -1;
	}
	*out = v->number;
	return 1;
}

static int whole(struct hf *h, const char *key, double v, size_t *out)
{
	if (v < 1.0 || v > 1e15 || v != floor(v)) {
		hf_fail(h, PE_EFORMAT, "%s: %.17g is not a whole number > 0", key, v);
		return -1;
	}
	*out = (size_t)v;
	return 1;
}

int hf_count(struct hf *h, const char *where, const struct json *obj, const char *key, size_t *out)
{
	double v;
	int rc = hf_number(h, where, obj, key, &v);
	if (rc <= 0)
		return rc;
	if (v < 1.0 || v > 1e15 || v != floor(v)) {
		hf_fail(h, PE_EFORMAT, "%s%s: %.17g is not a whole number > 0", where, key, v);
		return -1;
	}
	*out = (size_t)v;
	return 1;
}

/*
 * The union of the attribute_map tables of transformers' configuration
 * classes (GPT-2, GPT-J, CodeGen, BLOOM, MPT, GPT-Neo, T5, Falcon's legacy
 * n_embed, DistilBERT, Whisper): the canonical name first.
 */
#define NAMES 6
static const char *const aliases[][NAMES] = {
        {"num_hidden_layers", "n_layer", "n_layers", "num_layers", NULL, NULL},
        {"num_attention_heads", "n_head", "n_heads", "num_heads", NULL, NULL},
        {"hidden_size", "n_embd", "n_embed", "d_model", "dim", "emb_dim"},
        {"max_position_embeddings", "n_positions", "max_seq_len", NULL, NULL, NULL},
};

int hf_arch_default(const struct hf_arch *a, const char *key, double *out)
{
	const char *p = a ? a->defaults : NULL;
	size_t klen = strlen(key);
	while (p && *p) {
		size_t len = strcspn(p, ",");
		if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
			*out = strtod(p + klen + 1, NULL);
			return 1;
		}
		p += len + (p[len] == ',');
	}
	return 0;
}

const char *hf_arch_key(const struct hf_arch *a, const char *key)
{
	size_t klen = strlen(key);
	for (const char *const *p = a ? a->keys : NULL; p && *p; p++)
		if (strncmp(*p, key, klen) == 0 && (*p)[klen] == '=')
			return *p + klen + 1;
	return NULL;
}

int hf_cfg_number(struct hf *h, const char *key, double *out, const char **name)
{
	/* the class's own attribute_map first, then the aliases every class shares */
	const char *names[NAMES + 1] = {key, NULL, NULL, NULL, NULL, NULL, NULL};
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(aliases[i][0], key) == 0)
			memcpy(names, aliases[i], NAMES * sizeof(names[0]));
	const char *own = hf_arch_key(h->arch, key);
	if (own) {
		memmove(names + 1, names, NAMES * sizeof(names[0]));
		names[0] = own;
	}
	/* Every spelling present must be valid: an alias must not hide a bad value. */
	int found = 0;
	for (size_t i = 0; i < NAMES + 1 && names[i]; i++) {
		double v;
		int rc = hf_number(h, "", h->cfg, names[i], &v);
		if (rc < 0)
			return rc;
		if (rc && !found) {
			found = 1;
			*out = v;
			if (name)
				*name = names[i];
		}
	}
	if (found)
		return 1;
	/* An explicit null is None in the reference: no class default then. */
	for (size_t i = 0; i < NAMES + 1 && names[i]; i++)
		if (hf_get(h->cfg, names[i]))
			return 0;
	for (size_t i = 0; i < NAMES + 1 && names[i]; i++)
		if (hf_arch_default(h->arch, names[i], out)) {
			if (name)
				*name = names[i];
			return 2;
		}
	return 0;
}

int hf_cfg_count(struct hf *h, const char *key, size_t *out, const char **name)
{
	double v;
	const char *n = key;
	int rc = hf_cfg_number(h, key, &v, &n);
	if (name)
		*name = n;
	if (rc <= 0)
		return rc;
	return whole(h, n, v, out) < 0 ? -1 : rc;
}

void hf_put_number(struct strbuf *b, double v)
{
	char text[40];
	if (v == floor(v) && fabs(v) < 1e15) {
		strbuf_addf(b, "%.0f", v);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(text, sizeof(text), "%.*g", prec, v);
		if (strtod(text, NULL) == v)
			break;
	}
	strbuf_addf(b, "%s", text);
}

void hf_put_key(struct strbuf *b, const char *key, double v)
{
	strbuf_addf(b, ",%s=", key);
	hf_put_number(b, v);
}

/* A name from the config (a layer type) goes into spec labels and is matched
 * by --layer: only letters, digits, '_', '-' and '.', so that "g,rotary=0.5"
 * cannot add a key to the spec (nor escapes reach a terminal). */
static void name_sanitize(char *name)
{
	for (char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' || *c == '.'))
			*c = '_';
}

int hf_bool(struct hf *h, const char *where, const struct json *obj, const char *key, int dflt)
{
	const struct json *v = hf_present(obj, key);
	if (!v)
		return dflt;
	if (v->type != JSON_BOOL) {
		hf_fail(h, PE_EFORMAT, "%s%s: is not true or false", where, key);
		return -1;
	}
	return v->boolean;
}

enum pe_status hf_add_group(struct hf *h, const char *name, const char *spec)
{
	struct pe_model *m = h->m;
	struct pe_model_group *g = realloc(m->groups, (m->n_groups + 1) * sizeof(*g));
	if (!g)
		return PE_ENOMEM;
	m->groups = g;
	g = &m->groups[m->n_groups];
	memset(g, 0, sizeof(*g));
	m->n_groups++;
	g->name = pe_strdup(name);
	g->spec = spec ? pe_strdup(spec) : NULL;
	if (!g->name || (spec && !g->spec))
		return PE_ENOMEM;
	name_sanitize(g->name);
	/* Two layer types can read alike then ("a attention", "a_attention"):
	 * --layer NAME must still reach each group, so a repeated name gets a
	 * suffix (-2, -3, ...). */
	for (size_t k = 2;; k++) {
		int taken = 0;
		for (size_t i = 0; i + 1 < m->n_groups && !taken; i++)
			taken = strcmp(m->groups[i].name, g->name) == 0;
		if (!taken)
			return PE_OK;
		free(g->name);
		g->name = pe_asprintf("%s-%zu", name, k);
		if (!g->name)
			return PE_ENOMEM;
		name_sanitize(g->name);
	}
}

enum pe_status hf_fact(struct hf *h, const char *key, const char *what, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *value = pe_vasprintf(fmt, ap);
	va_end(ap);
	if (!value)
		return PE_ENOMEM;
	enum pe_status st = pe_model_add_fact(h->m, key, what, value);
	free(value);
	return st;
}
