/*
 * Model descriptions: lifetime, picking a layer group, overriding spec keys.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/model.h>
#include <posenc/scheme.h>

#include "core/strutil.h"
#include "model/model_internal.h"
#include "io/read_json.h"

void pe_model_destroy(struct pe_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_groups; i++) {
		free(m->groups[i].name);
		free(m->groups[i].spec);
		free(m->groups[i].layers);
	}
	for (size_t i = 0; i < m->n_warnings; i++)
		free(m->warnings[i]);
	free(m->warnings);
	for (size_t i = 0; i < m->n_facts; i++) {
		free(m->facts[i].key);
		free(m->facts[i].value);
		free(m->facts[i].what);
	}
	free(m->facts);
	free(m->groups);
	free(m->name);
	free(m->model_type);
	free(m->note);
	free(m->mrope_spec);
	free(m);
}

enum pe_status pe_model_add_fact(struct pe_model *m, const char *key, const char *what,
                                 const char *value)
{
	/* once, though several layers or groups can state the same fact */
	for (size_t i = 0; i < m->n_facts; i++)
		if (strcmp(m->facts[i].key, key) == 0 && strcmp(m->facts[i].value, value) == 0)
			return PE_OK;
	struct pe_model_fact *f = realloc(m->facts, (m->n_facts + 1) * sizeof(*f));
	if (!f)
		return PE_ENOMEM;
	m->facts = f;
	f = &m->facts[m->n_facts];
	f->key = pe_strdup(key);
	f->value = pe_strdup(value);
	f->what = pe_strdup(what);
	if (!f->key || !f->value || !f->what) {
		free(f->key);
		free(f->value);
		free(f->what);
		return PE_ENOMEM;
	}
	m->n_facts++;
	return PE_OK;
}

char *pe_model_layer_list(const unsigned char *flag, size_t n)
{
	struct strbuf b = {0};
	for (size_t i = 0; i < n; i++) {
		if (!flag[i] || (i && flag[i - 1]))
			continue;
		size_t j = i;
		while (j + 1 < n && flag[j + 1])
			j++;
		strbuf_addf(&b, b.len ? ",%zu" : "%zu", i);
		if (j > i)
			strbuf_addf(&b, "-%zu", j);
	}
	if (b.failed) {
		free(b.buf);
		return NULL;
	}
	return b.buf ? b.buf : pe_strdup("");
}

static int parse_index(const char *s, size_t *out)
{
	if (!*s)
		return -1;
	size_t v = 0;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s) || v > ((size_t)-1 - 9) / 10)
			return -1;
		v = v * 10 + (size_t)(*s - '0');
	}
	*out = v;
	return 0;
}

const struct pe_model_group *pe_model_group_find(const struct pe_model *m, const char *which)
{
	if (!m->n_groups)
		return NULL;
	if (!which)
		return &m->groups[0];
	/* A number is a layer index, always: a group a config named "0" (its
	 * layer type) cannot capture --layer 0. */
	size_t layer;
	if (parse_index(which, &layer) != 0) {
		for (size_t i = 0; i < m->n_groups; i++)
			if (strcmp(m->groups[i].name, which) == 0)
				return &m->groups[i];
		return NULL;
	}
	for (size_t i = 0; i < m->n_groups; i++)
		for (size_t k = 0; k < m->groups[i].n_layers; k++)
			if (m->groups[i].layers[k] == layer)
				return &m->groups[i];
	return NULL;
}

/* Whether item "key=value" has the key @key (length @klen). */
static int same_key(const char *item, size_t len, const char *key, size_t klen)
{
	const char *eq = memchr(item, '=', len);
	size_t il = eq ? (size_t)(eq - item) : len;
	return il == klen && memcmp(item, key, klen) == 0;
}

/* Keys that belong to a RoPE scaling: a new scaling= drops the old ones. */
static const char *const scaling_keys[] = {
        "factor",         "original",
        "length",         "low",
        "high",           "beta-fast",
        "beta-slow",      "mscale",
        "mscale-all-dim", "attention-factor",
        "truncate",       "long-factor",
        "short-factor",   "short-mscale",
        "long-mscale",    "proportion",
        "mixed-b",        NULL,
};

static int is_scaling_key(const char *item, size_t klen)
{
	for (size_t i = 0; scaling_keys[i]; i++)
		if (strlen(scaling_keys[i]) == klen && memcmp(scaling_keys[i], item, klen) == 0)
			return 1;
	return 0;
}

static int overrides_key(const char *overrides, const char *key, size_t klen)
{
	const char *o = overrides;
	while (o && *o) {
		size_t ol = strcspn(o, ",");
		if (same_key(o, ol, key, klen))
			return 1;
		o += ol + (o[ol] == ',');
	}
	return 0;
}

char *pe_spec_override(const char *spec, const char *overrides)
{
	int new_scaling = overrides_key(overrides, "scaling", 7);
	struct strbuf b = {0};
	const char *colon = strchr(spec, ':');
	size_t name_len = colon ? (size_t)(colon - spec) : strlen(spec);
	strbuf_add(&b, spec, name_len);
	int first = 1;
	/* The spec's own items, minus those an override replaces. */
	const char *p = colon ? colon + 1 : NULL;
	while (p && *p) {
		size_t len = strcspn(p, ",");
		const char *eq = memchr(p, '=', len);
		size_t klen = eq ? (size_t)(eq - p) : len;
		int replaced = overrides_key(overrides, p, klen) ||
		               (new_scaling && is_scaling_key(p, klen));
		if (!replaced) {
			strbuf_add(&b, first ? ":" : ",", 1);
			strbuf_add(&b, p, len);
			first = 0;
		}
		p += len + (p[len] == ',');
	}
	const char *o = overrides;
	while (o && *o) {
		size_t ol = strcspn(o, ",");
		if (ol) {
			strbuf_add(&b, first ? ":" : ",", 1);
			strbuf_add(&b, o, ol);
			first = 0;
		}
		o += ol + (o[ol] == ',');
	}
	if (b.failed || !b.buf) {
		free(b.buf);
		return NULL;
	}
	return b.buf;
}

enum pe_status pe_model_check_specs(const struct pe_model *m, char **err)
{
	for (size_t i = 0; i < m->n_groups; i++) {
		if (!m->groups[i].spec)
			continue;
		struct pe_scheme *s = NULL;
		char *why = NULL;
		enum pe_status st = pe_scheme_parse(m->groups[i].spec, &s, &why);
		pe_scheme_destroy(s);
		if (st == PE_ENOMEM) {
			free(why);
			return st;
		}
		if (st != PE_OK) {
			/* A value the config allows but no analysis can use (factor 2e22). */
			if (err && !*err)
				*err = pe_asprintf("layer group '%s': %s", m->groups[i].name,
				                   why ? why : "the encoding is out of range");
			free(why);
			return PE_EFORMAT;
		}
		free(why);
	}
	return PE_OK;
}

double pe_model_width_fraction(size_t width, size_t head_dim)
{
	double p = (double)width / (double)head_dim;
	/* upward: towards a bound like 2.0 it would go down past 2 and loop for ever */
	while ((size_t)((double)head_dim * p) < width)
		p = nextafter(p, INFINITY);
	return p;
}

double pe_model_hf_json_cost(const char *text, size_t len)
{
	/* the tree, and the model's texts (small beside it) */
	return json_cost_bound(text, len) + 65536.0;
}
