/* -s hf:PATH and -s model:NAME: load the model, pick layer groups, expand to specs. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <posenc/rope.h>

#include "cli.h"
#include "shared/model_spec.h"

/* A config.json is a few kilobytes; refuse anything absurd before reading it. */
#define MAX_CONFIG_BYTES (64u << 20)

int cli_is_model_spec(const char *spec)
{
	return strncmp(spec, "hf:", 3) == 0 || strncmp(spec, "model:", 6) == 0 ||
	       strncmp(spec, "gguf:", 5) == 0;
}

static int file_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	FILE *f = ctx;
	if (off > (uint64_t)INT64_MAX || fseeko(f, (off_t)off, SEEK_SET) != 0)
		return -1;
	return fread(buf, 1, len, f) == len ? 0 : -1;
}

static int load_gguf(const struct cli_common *o, const char *path, struct pe_model **out)
{
	/* O_NONBLOCK: a FIFO is refused at once instead of waiting for a writer (and
	 * a regular file reads as ever; the flag is dropped before reading) */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return cli_error("gguf:%s: cannot open: %s", path, strerror(errno));
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return cli_error("gguf:%s: not a regular file", path);
	}
	FILE *f = fcntl(fd, F_SETFL, 0) == 0 ? fdopen(fd, "rb") : NULL;
	if (!f) {
		int e = errno;
		close(fd);
		return cli_error("gguf:%s: cannot open: %s", path, strerror(e));
	}
	struct pe_model_source src = {file_read, f, (uint64_t)sb.st_size};
	char *err = NULL;
	enum pe_status st = pe_model_from_gguf(&src, o->max_memory, NULL, out, &err);
	fclose(f);
	int rc = 0;
	if (st == PE_ENOMEM)
		rc = cli_error("gguf:%s: out of memory", path);
	else if (st != PE_OK)
		rc = cli_error("gguf:%s: %s", path, err ? err : pe_status_str(st));
	free(err);
	return rc;
}

static int read_config(const struct cli_common *o, const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return cli_error("hf:%s: cannot open: %s", path, strerror(errno));
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	int rc = 0;
	while (buf) {
		if (n == cap) {
			if (cap >= MAX_CONFIG_BYTES || (double)cap * 2 > (double)o->max_memory) {
				rc = cli_error("hf:%s: larger than %u MiB, not a config.json", path,
				               MAX_CONFIG_BYTES >> 20);
				break;
			}
			char *grown = realloc(buf, cap * 2);
			if (!grown)
				break;
			buf = grown;
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (!rc && buf && ferror(f))
		rc = cli_error("hf:%s: cannot read: %s", path, strerror(errno));
	fclose(f);
	if (!buf)
		return cli_error("hf:%s: out of memory", path);
	if (rc) {
		free(buf);
		return rc;
	}
	/* The tree the text parses into counts against the budget too. */
	double cost = pe_model_hf_json_cost(buf, n);
	char what[64], size[32];
	snprintf(what, sizeof(what), "parsing this config.json of %s",
	         cli_format_bytes((double)n, size));
	/* a config.json is a few kB: a large file is likely something else */
	rc = cli_check_memory(o, cost, what,
	                      n > (1u << 20) ? "give a config.json, not this file"
	                                     : "a budget this small holds no config");
	if (rc) {
		free(buf);
		return rc;
	}
	*text = buf;
	*len = n;
	return 0;
}

/* Models read this run, by "hf:PATH", "gguf:PATH" or "model:NAME". */
static struct loaded {
	char *key;
	struct pe_model *m;
	char *text; /* an hf: config's bytes, for usage (read once) */
	size_t len;
} * loaded;
static size_t n_loaded;

static void loaded_free(void)
{
	for (size_t i = 0; i < n_loaded; i++) {
		free(loaded[i].key);
		free(loaded[i].text);
		pe_model_destroy(loaded[i].m);
	}
	free(loaded);
	loaded = NULL;
	n_loaded = 0;
}

int cli_spec_scheme_is(const char *spec, const char *name)
{
	size_t n = strlen(name);
	return spec && strncmp(spec, name, n) == 0 && (spec[n] == '\0' || spec[n] == ':');
}

void cli_model_forget(void)
{
	loaded_free();
}

static struct loaded *loaded_entry(const char *key)
{
	for (size_t i = 0; i < n_loaded; i++)
		if (strcmp(loaded[i].key, key) == 0)
			return &loaded[i];
	return NULL;
}

static struct pe_model *loaded_find(const char *key)
{
	struct loaded *l = loaded_entry(key);
	return l ? l->m : NULL;
}

/* Keeps @m (and @text, may be NULL) under @key; on failure destroys them.
 * @return 0 or an exit code. */
static int loaded_add(const char *key, struct pe_model *m, char *text, size_t len)
{
	static int registered;
	struct loaded *grown = realloc(loaded, (n_loaded + 1) * sizeof(*grown));
	char *k = strdup(key);
	if (!grown || !k) {
		if (grown)
			loaded = grown;
		free(k);
		free(text);
		pe_model_destroy(m);
		return cli_error("out of memory");
	}
	loaded = grown;
	loaded[n_loaded++] = (struct loaded){k, m, text, len};
	if (!registered)
		registered = atexit(loaded_free) == 0;
	return 0;
}

static void say_warnings(const struct cli_common *o, const char *spec, const struct pe_model *m)
{
	if (o->quiet)
		return;
	for (size_t i = 0; i < m->n_warnings; i++) {
		char *a = cli_escape(spec), *b = cli_escape(m->warnings[i]);
		fprintf(stderr, "posenc: warning: %s: %s\n", a ? a : "?", b ? b : "?");
		free(a);
		free(b);
	}
}

static int names_mrope_key(const char *overrides);

/*
 * The overrides after a model spec, tried on each group's spec (its mrope spec for M-RoPE
 * keys) once the model is read, so that a bad key is said of the spec as written and
 * before any output, not of a group's spec text the user never wrote, half-way through.
 */
static int check_overrides(const char *spec, const struct pe_model *m, const char *overrides)
{
	if (!overrides || m->learned)
		return 0;
	for (size_t i = 0; i < m->n_groups; i++) {
		const char *g = m->groups[i].spec;
		if (!g || cli_spec_scheme_is(g, "nope"))
			continue;
		if (m->mrope_spec && cli_spec_scheme_is(g, "rope") && names_mrope_key(overrides))
			g = m->mrope_spec;
		char *text = pe_spec_override(g, overrides), *err = NULL;
		if (!text)
			return cli_error("out of memory");
		struct pe_scheme *s = NULL;
		enum pe_status st = pe_scheme_parse(text, &s, &err);
		free(text);
		pe_scheme_destroy(s);
		int rc = st == PE_OK       ? 0
		         : st == PE_ENOMEM ? cli_error("out of memory")
		                           : cli_usage_error("scheme '%s': %s", spec,
		                                             err ? err : pe_status_str(st));
		free(err);
		if (rc)
			return rc;
	}
	return 0;
}

int cli_model_load(const struct cli_common *o, const char *spec, struct pe_model **out,
                   const char **overrides)
{
	*out = NULL;
	int hf = strncmp(spec, "hf:", 3) == 0, gguf = strncmp(spec, "gguf:", 5) == 0;
	const char *what = spec + (hf ? 3 : gguf ? 5 : 6);
	const char *comma = strchr(what, ',');
	*overrides = comma ? comma + 1 : NULL;
	/* Overrides are KEY=VALUE items: none empty (hf:c.json, or hf:c.json,,). */
	if (comma) {
		const char *ov = comma + 1;
		size_t ol = strlen(ov);
		if (!ol || ov[0] == ',' || ov[ol - 1] == ',' || strstr(ov, ",,"))
			return cli_usage_error("scheme '%s': an empty key after ','", spec);
		/* A layer group is not a key of the groups' rope specs: said here, rather than
		 * as an unknown rope key of a spec text the user never wrote. */
		for (const char *p = ov; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
			if (strncmp(p, "layer=", 6) == 0) {
				size_t vl = strcspn(p + 6, ",");
				return cli_usage_error(
				        "scheme '%s': layer= is not a key of a model spec: "
				        "--layer %.*s picks that group (of every model given)",
				        spec, (int)vl, p + 6);
			}
	}
	size_t wl = comma ? (size_t)(comma - what) : strlen(what);
	char *name = malloc(wl + 1);
	if (!name)
		return cli_error("out of memory");
	memcpy(name, what, wl);
	name[wl] = '\0';
	if (!*name) {
		free(name);
		return cli_usage_error("scheme '%s': %s needs a %s", spec,
		                       hf     ? "hf:"
		                       : gguf ? "gguf:"
		                              : "model:",
		                       hf     ? "path to a config.json"
		                       : gguf ? "path to a .gguf file"
		                              : "model name");
	}
	size_t kl = (size_t)(what - spec) + wl;
	char *key = malloc(kl + 1);
	if (!key) {
		free(name);
		return cli_error("out of memory");
	}
	memcpy(key, spec, kl);
	key[kl] = '\0';
	struct pe_model *seen = loaded_find(key);
	if (seen) {
		free(key);
		free(name);
		int bad = check_overrides(spec, seen, *overrides);
		if (bad)
			return bad;
		*out = seen;
		say_warnings(o, spec, seen);
		return 0;
	}
	char *err = NULL, *text = NULL;
	size_t len = 0;
	enum pe_status st;
	int rc = 0;
	if (gguf) {
		rc = load_gguf(o, name, out);
		st = rc ? PE_EFORMAT : PE_OK;
	} else if (hf) {
		rc = read_config(o, name, &text, &len);
		if (rc) {
			free(name);
			free(key);
			return rc;
		}
		/* The label: the model's folder for .../NAME/config.json, else the file name. */
		char label[128];
		const char *slash = strrchr(name, '/');
		const char *base = slash ? slash + 1 : name;
		if (strcmp(base, "config.json") == 0 && slash) {
			const char *p = slash;
			while (p > name && p[-1] != '/')
				p--;
			snprintf(label, sizeof(label), "%.*s", (int)(slash - p), p);
		} else {
			size_t bl = strlen(base);
			if (bl > 5 && strcmp(base + bl - 5, ".json") == 0)
				bl -= 5;
			snprintf(label, sizeof(label), "%.*s", (int)bl, base);
		}
		/* a label is free text up to the next ','; keep the spec grammar intact */
		for (char *c = label; *c; c++)
			if (*c == ',' || *c == '=' || *c == ':')
				*c = '_';
		st = pe_model_from_hf_json(text, len, *label ? label : NULL, out, &err);
		if (st != PE_OK)
			rc = st == PE_ENOMEM
			             ? cli_error("hf:%s: out of memory", name)
			             : cli_error("hf:%s: %s", name, err ? err : pe_status_str(st));
	} else {
		st = pe_model_preset(name, out, &err);
		if (st != PE_OK)
			rc = st == PE_ENOMEM ? cli_error("out of memory")
			                     : cli_usage_error("scheme '%s': %s", spec,
			                                       err ? err : pe_status_str(st));
	}
	free(err);
	free(name);
	if (!rc) {
		rc = loaded_add(key, *out, text, len);
		text = NULL;
	}
	free(text);
	free(key);
	if (rc || (rc = check_overrides(spec, *out, *overrides))) {
		*out = NULL; /* a model read stays in the cache, which owns it */
		return rc;
	}
	say_warnings(o, spec, *out);
	return rc;
}

int cli_model_config_text(const struct cli_common *o, const char *spec, char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	int hf = strncmp(spec, "hf:", 3) == 0;
	if (!hf && strncmp(spec, "model:", 6) != 0)
		return cli_usage_error("scheme '%s': needs the model's config (hf:config.json or "
		                       "model:NAME)",
		                       spec);
	const char *what = spec + (hf ? 3 : 6);
	size_t wl = strcspn(what, ",");
	char *name = malloc(wl + 1);
	if (!name)
		return cli_error("out of memory");
	memcpy(name, what, wl);
	name[wl] = '\0';
	int rc = 0;
	/* the bytes cli_model_load() read, if it did: each file is read once */
	size_t kl = 3 + wl;
	char *key = malloc(kl + 1);
	struct loaded *l = NULL;
	if (key) {
		memcpy(key, spec, kl);
		key[kl] = '\0';
		l = hf ? loaded_entry(key) : NULL;
		free(key);
	}
	if (l && l->text) {
		if (!(*text = malloc(l->len + 1)))
			rc = cli_error("out of memory");
		else {
			memcpy(*text, l->text, l->len);
			(*text)[l->len] = '\0';
			*len = l->len;
		}
	} else if (hf) {
		rc = read_config(o, name, text, len);
	} else {
		const char *t = pe_model_preset_config(name);
		if (!t)
			rc = cli_usage_error(
			        "scheme '%s': unknown model '%s' ('posenc help models')", spec,
			        name);
		else if (!(*text = malloc(strlen(t) + 1)))
			rc = cli_error("out of memory");
		else {
			*len = strlen(t);
			memcpy(*text, t, *len + 1);
		}
	}
	free(name);
	return rc;
}

void cli_layer_ranges(const size_t *layers, size_t n, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && len < cap; i++) {
		size_t j = i;
		while (j + 1 < n && layers[j + 1] == layers[j] + 1)
			j++;
		int w = j > i ? snprintf(buf + len, cap - len, "%s%zu-%zu", i ? "," : "", layers[i],
		                         layers[j])
		              : snprintf(buf + len, cap - len, "%s%zu", i ? "," : "", layers[i]);
		if (w < 0)
			break;
		len += (size_t)w;
		i = j;
	}
}

/* Whether the overrides name a key only M-RoPE has (text=, frames=, ...). */
static int names_mrope_key(const char *overrides)
{
	static const char *const keys[] = {"t",      "h",     "w",    "interleaved", "frames",
	                                   "height", "width", "text", "tstep"};
	for (const char *p = overrides; p && *p;) {
		size_t len = strcspn(p, ","), klen = strcspn(p, "=,");
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (klen == strlen(keys[k]) && strncmp(p, keys[k], klen) == 0)
				return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

static int group_spec(const struct cli_common *o, const char *spec, const struct pe_model *m,
                      const struct pe_model_group *g, const char *overrides, char **out)
{
	/* An M-RoPE model (Qwen2-VL) is plain RoPE on text; per-axis positions
	 * (--position-ids, or a grid in the overrides) need its mrope spec. Only its RoPE
	 * layers: Qwen 3.5's linear-attention layers have no positions to split by axis. */
	if (m->mrope_spec && cli_spec_scheme_is(g->spec, "rope") &&
	    (o->position_ids || names_mrope_key(overrides))) {
		/* The mrope scheme turns pairs at base^(-2i/d) unscaled: a scaled RoPE
		 * (a Qwen2.5-VL config given YaRN) would silently lose its scaling. */
		struct pe_scheme *rope = NULL;
		enum pe_status st = pe_scheme_parse(g->spec, &rope, NULL);
		enum pe_rope_scaling scaling =
		        st == PE_OK ? rope->scaling.type : PE_ROPE_SCALING_NONE;
		pe_scheme_destroy(rope);
		if (st == PE_ENOMEM)
			return cli_error("out of memory");
		if (scaling != PE_ROPE_SCALING_NONE)
			return cli_usage_error(
			        "scheme '%s': its RoPE has %s scaling, which the mrope scheme does "
			        "not take: per-axis positions (mrope keys, --position-ids) would "
			        "drop "
			        "it",
			        spec, pe_rope_scaling_name(scaling));
		*out = pe_spec_override(m->mrope_spec, overrides);
		return *out ? 0 : cli_error("out of memory");
	}
	if (!g->spec)
		return cli_usage_error("scheme '%s': layer group '%s' has no positional encoding "
		                       "(NoPE), and the nope scheme is not available yet",
		                       spec, g->name);
	/* A rope group is for the model's head width: said as head= so that each model of a
	 * comparison keeps its own width (a group wider than the others has it already). */
	char *with_head = NULL;
	if (strncmp(g->spec, "rope:", 5) == 0 && m->head_dim && !strstr(g->spec, ",head=")) {
		char head[40];
		snprintf(head, sizeof(head), "head=%zu", m->head_dim);
		with_head = pe_spec_override(g->spec, head);
		if (!with_head)
			return cli_error("out of memory");
	}
	*out = pe_spec_override(with_head ? with_head : g->spec, overrides);
	free(with_head);
	return *out ? 0 : cli_error("out of memory");
}

/* The head width a group spec is for: its head=, else the model's. */
static size_t group_head(const struct pe_model *m, const char *spec)
{
	const char *h = spec ? strstr(spec, ",head=") : NULL;
	return h ? (size_t)strtoull(h + 6, NULL, 10) : m->head_dim;
}

/* Whether layer @k is in @list ("0-4,6-10,12"), the form pe_model_layer_list() writes. */
static int layer_listed(const char *list, size_t k)
{
	const char *p = list;
	while (*p) {
		char *end;
		unsigned long long lo = strtoull(p, &end, 10), hi = lo;
		if (end == p)
			return 0;
		if (*end == '-') {
			p = end + 1;
			hi = strtoull(p, &end, 10);
			if (end == p)
				return 0;
		}
		if (k >= lo && k <= hi)
			return 1;
		p = *end == ',' ? end + 1 : end;
		if (*end != ',' && *end != '\0')
			return 0;
	}
	return 0;
}

/* The window every layer of @g slides over, else 0 (see struct cli_model_info). */
static double group_window(const struct pe_model *m, const struct pe_model_group *g)
{
	const char *window = NULL, *layers = NULL;
	for (size_t i = 0; i < m->n_facts; i++) {
		if (strcmp(m->facts[i].key, "sliding_window") == 0)
			window = m->facts[i].value;
		else if (strcmp(m->facts[i].key, "sliding_layers") == 0)
			layers = m->facts[i].value;
	}
	if (!window || !layers || !g->n_layers)
		return 0;
	char *end;
	double w = strtod(window, &end);
	if (*end != '\0' || !isfinite(w) || !(w > 0))
		return 0;
	for (size_t i = 0; i < g->n_layers; i++)
		if (!layer_listed(layers, g->layers[i]))
			return 0;
	return w;
}

static void fill_info(const struct pe_model *m, const struct pe_model_group *g, const char *spec,
                      struct cli_model_info *info)
{
	memset(info, 0, sizeof(*info));
	snprintf(info->model, sizeof(info->model), "%s", m->name ? m->name : "model");
	snprintf(info->group, sizeof(info->group), "%s", g->name ? g->name : "");
	snprintf(info->model_type, sizeof(info->model_type), "%s",
	         m->model_type ? m->model_type : "");
	info->n_groups = m->n_groups;
	info->head_dim = group_head(m, spec);
	info->context = m->context;
	info->train_context = m->train_context;
	info->has_train = m->train_context > 0;
	info->window = group_window(m, g);
	for (size_t i = 0; i < m->n_facts; i++)
		if (strcmp(m->facts[i].key, "softmax_scale_factor") == 0) {
			char *end;
			double x = strtod(m->facts[i].value, &end);
			if (*end == '\0' && isfinite(x) && x > 0)
				info->softmax_scale_factor = x;
		}
}

int cli_model_specs(const struct cli_common *o, const char *spec, size_t max, char ***out,
                    size_t *count, struct cli_model_info **info)
{
	struct pe_model *m = NULL;
	const char *overrides = NULL;
	int rc = cli_model_load(o, spec, &m, &overrides);
	if (rc)
		return rc;
	*out = NULL;
	*count = 0;
	if (m->learned || m->n_groups == 0) {
		rc = cli_usage_error("scheme '%s': %s", spec,
		                     m->note ? m->note : "the model has no computable encoding");
		return rc;
	}
	const struct pe_model_group *pick[64];
	size_t n = 0;
	if (o->layer) {
		const struct pe_model_group *g = pe_model_group_find(m, o->layer);
		if (!g) {
			char names[256] = "";
			for (size_t i = 0; i < m->n_groups; i++) {
				size_t len = strlen(names);
				snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
				         m->groups[i].name);
			}
			rc = cli_usage_error("option '--layer': '%s' is neither a group (%s) nor a "
			                     "layer index below %zu of '%s'",
			                     o->layer, names, m->n_layers, spec);
			return rc;
		}
		pick[n++] = g;
	} else {
		/* A hybrid model's NoPE layers (Qwen 3.5's linear attention, Llama
		 * 4's every fourth layer) have nothing to tabulate or draw: the
		 * groups that carry positions come first, NoPE only if alone. */
		for (size_t i = 0; i < m->n_groups && n < max && n < 64; i++)
			if (m->groups[i].spec && !cli_spec_scheme_is(m->groups[i].spec, "nope"))
				pick[n++] = &m->groups[i];
		if (n == 0)
			pick[n++] = &m->groups[0];
		if (n < m->n_groups && !o->quiet) {
			/* one group: its layers; several: their names */
			char shown[160] = "";
			if (n == 1) {
				char layers[128];
				cli_layer_ranges(pick[0]->layers, pick[0]->n_layers, layers,
				                 sizeof(layers));
				snprintf(shown, sizeof(shown), "'%s'%s%s%s", pick[0]->name,
				         *layers ? " (layers " : "", layers, *layers ? ")" : "");
			} else {
				for (size_t i = 0; i < n; i++) {
					size_t len = strlen(shown);
					snprintf(shown + len, sizeof(shown) - len, "%s'%s'",
					         i ? ", " : "", pick[i]->name);
				}
			}
			cli_note(0, "%s: %zu layer groups; showing %s; --layer picks another", spec,
			         m->n_groups, shown);
		}
	}
	char **list = calloc(n, sizeof(*list));
	struct cli_model_info *inf = info ? calloc(n, sizeof(*inf)) : NULL;
	if (!list || (info && !inf)) {
		free(list);
		free(inf);
		return cli_error("out of memory");
	}
	for (size_t i = 0; i < n && !rc; i++) {
		rc = group_spec(o, spec, m, pick[i], overrides, &list[i]);
		if (!rc && inf)
			fill_info(m, pick[i], list[i], &inf[i]);
	}
	if (rc) {
		for (size_t i = 0; i < n; i++)
			free(list[i]);
		free(list);
		free(inf);
		return rc;
	}
	if (info)
		*info = inf;
	*out = list;
	*count = n;
	return 0;
}

int cli_help_models(void)
{
	const struct pe_model_preset_info *p = pe_model_presets();
	puts("Model presets for -s model:NAME (each is the position-related part of the\n"
	     "model's public config.json; 'posenc model model:NAME' shows what it means):\n");
	for (; p->name; p++)
		printf("  %-18s %s\n  %-18s %s\n", p->name, p->title, "", p->source);
	puts("\nAny Hugging Face config.json: -s hf:PATH. Keys after a comma override the\n"
	     "model's spec (model:llama-3.1-8b,scaling=none); --layer picks a layer group.");
	return CLI_OK;
}
