/*
 * The layers of a RoPE model from its config.json: layer types, local
 * bases, NoPE layers and the groups of layers with equal encodings, as each
 * architecture's configuration class and modeling file build them, and
 * what the attention does besides cos/sin (windows, softmax scale,
 * temperature). The rope block itself is model_hf_rope.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_hf.h"
#include "model/model_internal.h"

/* ---- layers ---------------------------------------------------------- */

struct layer {
	const char *spec; /* NULL: no positional encoding (NoPE) */
	const char *type;
};

/* The spec text of one rope block as a kind of layer reads it. */
struct spec_cache {
	const struct json *block;
	int local, global; /* the sliding layers' own base; Gemma 4's global head width */
	char *spec;        /* owned */
};

static const char *short_type(const char *type)
{
	if (strcmp(type, "sliding_attention") == 0)
		return "local";
	if (strcmp(type, "full_attention") == 0)
		return "global";
	if (strcmp(type, "chunked_attention") == 0)
		return "chunked";
	if (strcmp(type, "compressed_sparse_attention") == 0 ||
	    strcmp(type, "heavily_compressed_attention") == 0)
		return "compress";
	return type;
}

static enum pe_status group_add_layer(struct pe_model_group *g, size_t layer)
{
	size_t *l = realloc(g->layers, (g->n_layers + 1) * sizeof(*l));
	if (!l)
		return PE_ENOMEM;
	g->layers = l;
	l[g->n_layers++] = layer;
	return PE_OK;
}

static int same_spec(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Groups layers with equal specs; names them and labels each spec. */
static enum pe_status group_layers(struct hf *h, struct layer *ls, size_t n)
{
	/* Distinct texts are few (one per block and variant): each layer is
	 * compared with them, not with every earlier layer. */
	size_t distinct_rope = 0, has_nope = 0;
	const char **distinct = calloc(n ? n : 1, sizeof(*distinct));
	if (!distinct)
		return PE_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		has_nope |= !ls[i].spec;
		if (!ls[i].spec)
			continue;
		int first = 1;
		for (size_t j = 0; j < distinct_rope && first; j++)
			first = !same_spec(ls[i].spec, distinct[j]);
		if (first)
			distinct[distinct_rope++] = ls[i].spec;
	}
	free(distinct);
	for (size_t i = 0; i < n; i++) {
		struct pe_model_group *g = NULL;
		for (size_t k = 0; k < h->m->n_groups; k++) {
			/* compare against the unlabelled text kept in layer order */
			size_t first = h->m->groups[k].layers[0];
			if (same_spec(ls[first].spec, ls[i].spec))
				g = &h->m->groups[k];
		}
		if (!g) {
			const char *name = !ls[i].spec         ? "nope"
			                   : distinct_rope > 1 ? short_type(ls[i].type)
			                   : has_nope          ? "rope"
			                                       : "all";
			enum pe_status st = hf_add_group(h, name, ls[i].spec);
			if (st != PE_OK)
				return st;
			g = &h->m->groups[h->m->n_groups - 1];
		}
		enum pe_status st = group_add_layer(g, i);
		if (st != PE_OK)
			return st;
	}
	/* Labels: the model, and the group when there are several. */
	for (size_t k = 0; k < h->m->n_groups; k++) {
		struct pe_model_group *g = &h->m->groups[k];
		if (!g->spec) {
			/* NoPE layers: the nope scheme, no positional information */
			g->spec = pe_asprintf("nope:label=%s nope", h->label);
			if (!g->spec)
				return PE_ENOMEM;
			continue;
		}
		char *labelled = h->m->n_groups > 1
		                         ? pe_asprintf("%s,label=%s %s", g->spec, h->label, g->name)
		                         : pe_asprintf("%s,label=%s", g->spec, h->label);
		if (!labelled)
			return PE_ENOMEM;
		free(g->spec);
		g->spec = labelled;
	}
	return PE_OK;
}

/* 1 if the config has a sliding window (its own or the class default), 0 if
 * sliding_window is null or absent without a default, -1 if it is not a number. */
static int has_window(struct hf *h)
{
	double w;
	int rc = hf_cfg_number(h, "sliding_window", &w, NULL);
	return rc < 0 ? -1 : rc > 0;
}

/*
 * Which layers carry no positional encoding: no_rope_layers (1 = the layer
 * uses RoPE, as Llama 4 and SmolLM3 read it), else no_rope_layer_interval
 * (the file's or the class default: layer i is NoPE when (i + 1) % interval
 * == 0); layer types that are not attention (linear_attention, conv, mamba:
 * Qwen3-Next, LFM2, MiniMax, hybrids); and full-attention layers of models
 * whose modeling applies RoPE only in sliding layers (Cohere2, EXAONE 4).
 */
static enum pe_status nope_flags(struct hf *h, size_t n, const char **types, unsigned char *nope)
{
	const struct json *list = hf_present(h->cfg, "no_rope_layers");
	/* Llama4TextConfig: an empty list means the default schedule */
	if (list && list->type == JSON_ARRAY && list->n == 0)
		list = NULL;
	size_t interval = 0;
	int rc = hf_cfg_count(h, "no_rope_layer_interval", &interval, NULL);
	if (rc < 0)
		return PE_EFORMAT;
	if (list) {
		if (list->type != JSON_ARRAY || list->n != n)
			return hf_fail(h, PE_EFORMAT,
			               "no_rope_layers: is not a list of %zu flags (one per layer)",
			               n);
		for (size_t i = 0; i < n; i++) {
			const struct json *x = &list->items[i];
			if (x->type != JSON_NUMBER || (x->number != 0.0 && x->number != 1.0))
				return hf_fail(h, PE_EFORMAT, "no_rope_layers[%zu]: is not 0 or 1",
				               i);
			nope[i] = x->number == 0.0;
		}
	} else if (interval) {
		for (size_t i = 0; i < n; i++)
			nope[i] = (i + 1) % interval == 0;
	}
	const struct json *cross = hf_present(h->cfg, "cross_attention_layers");
	if (cross && (h->arch->flags & HF_CROSS_NOPE)) {
		if (cross->type != JSON_ARRAY)
			return hf_fail(h, PE_EFORMAT, "cross_attention_layers: is not a list");
		for (size_t k = 0; k < cross->n; k++) {
			const struct json *x = &cross->items[k];
			if (x->type != JSON_NUMBER || x->number < 0 || x->number >= (double)n ||
			    x->number != floor(x->number))
				return hf_fail(
				        h, PE_EFORMAT,
				        "cross_attention_layers[%zu]: is not a layer index below "
				        "%zu",
				        k, n);
			nope[(size_t)x->number] = 1; /* MllamaTextCrossAttention: no RoPE */
		}
	}
	/* Muse Glimmer: the model hands a layer no cos/sin when its layer_rope_theta is
	 * 0; any other value still gets the one rotary built from rope_parameters */
	if (h->arch->flags & HF_LAYER_THETA_NOPE) {
		const struct json *lt;
		if (hf_layer_list(h, "layer_rope_theta", n, "numbers (one per layer)", &lt) < 0)
			return PE_EFORMAT;
		for (size_t i = 0; i < n; i++) {
			if (!lt) {
				nope[i] = (n - 1 - i) % 4 == 0;
				continue;
			}
			const struct json *x = &lt->items[i];
			if (x->type != JSON_NUMBER || !(x->number >= 0) || !isfinite(x->number))
				return hf_fail(h, PE_EFORMAT,
				               "layer_rope_theta[%zu]: is not a number >= 0", i);
			nope[i] = x->number == 0.0;
		}
	}
	/* GraniteMoeHybrid: position_embedding_type "nope" (Granite 4.0) */
	const struct json *pet = hf_present(h->cfg, "position_embedding_type");
	if (pet && pet->type == JSON_STRING && strcmp(pet->string, "nope") == 0)
		memset(nope, 1, n);
	/* Cohere2Attention rotates where its sliding_window is set, which is the
	 * config's in sliding layers only; Exaone4Attention where the config has no
	 * window or the layer slides. A missing key is the class default 4096. */
	unsigned fl = h->arch->flags;
	int windowed = 0;
	if ((fl & (HF_FULL_NOPE | HF_SLIDING_ROPE)) && (windowed = has_window(h)) < 0)
		return PE_EFORMAT;
	for (size_t i = 0; i < n; i++) {
		int full = strcmp(types[i], "full_attention") == 0;
		if (!strstr(types[i], "attention") || strcmp(types[i], "linear_attention") == 0)
			nope[i] = 1;
		if ((fl & HF_FULL_NOPE) && windowed && full)
			nope[i] = 1;
		if ((fl & HF_SLIDING_ROPE) && !windowed)
			nope[i] = 1;
	}
	return PE_OK;
}

/*
 * Layer types: layer_types, else the class's pattern: sliding_window_pattern
 * (layer i slides unless (i + 1) % pattern == 0: Gemma 2/3, Cohere2,
 * gpt-oss, EXAONE 4 when it has a window) or ModernBERT's
 * global_attn_every_n_layers (layer i is global when i % n == 0).
 */
static enum pe_status layer_types(struct hf *h, size_t n, const char **types)
{
	const struct json *lt;
	for (size_t i = 0; i < n; i++)
		types[i] = "full_attention";
	int rc = hf_layer_list(h, "layer_types", n, "names (num_hidden_layers)", &lt);
	if (rc < 0)
		return PE_EFORMAT;
	if (rc) {
		for (size_t i = 0; i < n; i++) {
			if (lt->items[i].type != JSON_STRING)
				return hf_fail(h, PE_EFORMAT, "layer_types[%zu]: is not a string",
				               i);
			types[i] = lt->items[i].string;
		}
		return PE_OK;
	}
	/* a list of its own (RecurrentGemma's block_types, repeated; Zamba2's
	 * layers_block_type): the named value is attention, the others are not */
	if (h->arch->types) {
		const char *slash = strchr(h->arch->types, '/');
		char key[64];
		size_t klen = slash ? (size_t)(slash - h->arch->types) : strlen(h->arch->types);
		if (klen >= sizeof(key))
			klen = sizeof(key) - 1;
		memcpy(key, h->arch->types, klen);
		key[klen] = '\0';
		/* "value=kind": the layers of that value are of that kind */
		char attn[64] = "attention";
		const char *kind = "full_attention";
		if (slash) {
			size_t vlen = strcspn(slash + 1, "=");
			if (vlen >= sizeof(attn))
				vlen = sizeof(attn) - 1;
			memcpy(attn, slash + 1, vlen);
			attn[vlen] = '\0';
			if (slash[1 + vlen] == '=')
				kind = slash + 2 + vlen;
		}
		const struct json *bt = hf_present(h->cfg, key);
		int cycle = (h->arch->flags & HF_TYPES_CYCLE) != 0;
		if (!bt)
			return hf_fail(
			        h, PE_EFORMAT,
			        "%s: missing; it says which layers attend, and posenc will not "
			        "guess",
			        key);
		if (bt->type != JSON_ARRAY || !bt->n || (!cycle && bt->n != n))
			return hf_fail(h, PE_EFORMAT, "%s: is not a list of %s names", key,
			               cycle ? "layer" : "num_hidden_layers");
		for (size_t i = 0; i < n; i++) {
			const struct json *x = &bt->items[i % bt->n];
			if (x->type != JSON_STRING)
				return hf_fail(h, PE_EFORMAT, "%s[%zu]: is not a string", key,
				               i % bt->n);
			types[i] = strcmp(x->string, attn) == 0 ? kind : x->string;
		}
		return PE_OK;
	}
	/* Bamba: a layer attends when attn_layer_indices holds its index (Python's `in`:
	 * 9.0 is 9, an index past the last layer names none); the others are Mamba-2 */
	if (h->arch->flags & HF_ATTN_INDICES) {
		const struct json *ai = hf_present(h->cfg, "attn_layer_indices");
		for (size_t i = 0; i < n; i++)
			types[i] = "mamba";
		if (ai && ai->type != JSON_ARRAY)
			return hf_fail(h, PE_EFORMAT,
			               "attn_layer_indices: is not a list of layer indices");
		for (size_t k = 0; ai && k < ai->n; k++) {
			const struct json *x = &ai->items[k];
			if (x->type != JSON_NUMBER || !isfinite(x->number))
				return hf_fail(h, PE_EFORMAT,
				               "attn_layer_indices[%zu]: is not a number", k);
			if (x->number >= 0 && x->number < (double)n &&
			    x->number == floor(x->number))
				types[(size_t)x->number] = "full_attention";
		}
		return PE_OK;
	}
	/* DeepSeek-V4's compress_ratios: 0 sliding, 4 and 128 compressed (the list may
	 * go on for the MTP layer: the class keeps the first num_hidden_layers) */
	if (h->arch->flags & HF_COMPRESS_RATIOS) {
		const struct json *cr = hf_present(h->cfg, "compress_ratios");
		if (cr && (cr->type != JSON_ARRAY || cr->n < n))
			return hf_fail(h, PE_EFORMAT,
			               "compress_ratios: is not a list of at least %zu numbers "
			               "(num_hidden_layers)",
			               n);
		for (size_t i = 0; i < n; i++) {
			const struct json *x = cr ? &cr->items[i] : NULL;
			if (x && (x->type != JSON_NUMBER ||
			          (x->number != 0 && x->number != 4 && x->number != 128)))
				return hf_fail(h, PE_EFORMAT,
				               "compress_ratios[%zu]: is not 0, 4 or 128", i);
			types[i] = x && x->number == 0   ? "sliding_attention"
			           : x && x->number == 4 ? "compressed_sparse_attention"
			                                 : "heavily_compressed_attention";
		}
		return PE_OK;
	}
	/* DeciLM / Nemotron-NAS: each block's attention may be a no-op or a linear
	 * map (DeciLMDecoderLayer), neither of which rotates */
	if (h->arch->flags & HF_BLOCK_CONFIGS) {
		const struct json *bc;
		if (hf_layer_list(h, "block_configs", n, "blocks (num_hidden_layers)", &bc) < 0)
			return PE_EFORMAT;
		for (size_t i = 0; bc && i < n; i++) {
			const struct json *at = hf_present(&bc->items[i], "attention");
			if (bc->items[i].type != JSON_OBJECT || !at || at->type != JSON_OBJECT)
				return hf_fail(
				        h, PE_EFORMAT,
				        "block_configs[%zu].attention: missing or not an object",
				        i);
			char where[64];
			snprintf(where, sizeof(where), "block_configs[%zu].attention.", i);
			int noop = hf_bool(h, where, at, "no_op", 0);
			int linear = noop < 0 ? 0 : hf_bool(h, where, at, "replace_with_linear", 0);
			if (noop < 0 || linear < 0)
				return PE_EFORMAT;
			/* AttentionConfig clears these for no_op and linear blocks; on an
			 * attending block they change its mask or make it another block */
			static const char *const other[] = {"window_length", "mamba", "llama4"};
			for (size_t k = 0; !noop && !linear && k < 3; k++)
				if (hf_present(at, other[k]))
					return hf_fail(h, PE_EUNSUPPORTED,
					               "%s%s: a %s block, which posenc does not "
					               "restate",
					               where, other[k],
					               k == 0   ? "sliding or sink window"
					               : k == 1 ? "Mamba"
					                        : "Llama 4 attention");
			types[i] = noop ? "no_op" : linear ? "linear_attention" : "full_attention";
		}
		return PE_OK;
	}
	/* Muse Glimmer: every 4th layer counted back from the last is full */
	if (h->arch->flags & HF_LAYER_THETA_NOPE) {
		for (size_t i = 0; i < n; i++)
			types[i] = (n - 1 - i) % 4 == 0 ? "full_attention" : "sliding_attention";
		return PE_OK;
	}
	if (h->arch->flags & HF_MAMBA_STEP) {
		int on = hf_bool(h, "", h->cfg, "mamba_enabled", 1);
		size_t step = 2;
		if (on < 0 || hf_cfg_count(h, "mamba_step", &step, NULL) < 0)
			return PE_EFORMAT;
		/* the reference asserts it: with 1 no layer would attend */
		if (on && step < 2)
			return hf_fail(h, PE_EFORMAT, "mamba_step: %zu must be at least 2", step);
		for (size_t i = 0; on && i < n; i++) {
			int attends = n <= step / 2 ? i == n - 1 : i % step == step / 2;
			types[i] = attends ? "full_attention" : "mamba";
		}
		return PE_OK;
	}
	if (h->arch->flags & HF_MIMO_TYPES) {
		for (size_t i = 0; i < n; i++)
			types[i] =
			        i == 0 || (i + 1) % 6 == 0 ? "full_attention" : "sliding_attention";
		return PE_OK;
	}
	/* MiniMax's attn_type_list: 1 softmax attention, 0 lightning (linear) attention */
	const struct json *atl = hf_present(h->cfg, "attn_type_list");
	if (atl && atl->type == JSON_ARRAY && atl->n == n) {
		for (size_t i = 0; i < n; i++) {
			const struct json *x = &atl->items[i];
			if (x->type != JSON_NUMBER || (x->number != 0 && x->number != 1))
				return hf_fail(h, PE_EFORMAT, "attn_type_list[%zu]: is not 0 or 1",
				               i);
			types[i] = x->number == 1 ? "full_attention" : "linear_attention";
		}
		return PE_OK;
	}
	/* Qwen3-Next: full_attention_interval, the others linear (Gated DeltaNet) */
	size_t full_every = 0;
	if (hf_cfg_count(h, "full_attention_interval", &full_every, NULL) < 0)
		return PE_EFORMAT;
	for (size_t i = 0; full_every && i < n; i++)
		types[i] = (i + 1) % full_every ? "linear_attention" : "full_attention";
	if (full_every)
		return PE_OK;
	unsigned fl = h->arch->flags;
	size_t every = 0, pattern = 0;
	if ((fl & HF_EVERY_N) && hf_cfg_count(h, "global_attn_every_n_layers", &every, NULL) < 0)
		return PE_EFORMAT;
	int windowed = 1;
	if ((fl & HF_PATTERN_IF_WINDOW) && (windowed = has_window(h)) < 0)
		return PE_EFORMAT;
	if ((fl & HF_PATTERN) && windowed &&
	    hf_cfg_count(h, "sliding_window_pattern", &pattern, NULL) < 0)
		return PE_EFORMAT;
	for (size_t i = 0; every && i < n; i++)
		types[i] = i % every ? "sliding_attention" : "full_attention";
	for (size_t i = 0; pattern && i < n; i++)
		types[i] = (i + 1) % pattern ? "sliding_attention" : "full_attention";
	return PE_OK;
}

/*
 * What the attention does besides cos/sin: sliding windows, the softmax
 * scale of Gemma's query_pre_attn_scalar, Llama 4's chunks and temperature
 * tuning, the NoPE layers.
 */
static enum pe_status attention_facts(struct hf *h, size_t n, const char **types,
                                      const unsigned char *nope)
{
	enum pe_status st = PE_OK;
	unsigned char *flag = calloc(n ? n : 1, 1);
	if (!flag)
		return PE_ENOMEM;
	size_t sliding = 0, chunked = 0, nopes = 0;
	/* Llama 4 without layer_types: its RoPE layers attend in chunks */
	int chunk_rope = (h->arch->flags & HF_TEMP_TUNING) && !hf_present(h->cfg, "layer_types");
	for (size_t i = 0; i < n; i++) {
		sliding += strcmp(types[i], "sliding_attention") == 0;
		chunked += strcmp(types[i], "chunked_attention") == 0 || (chunk_rope && !nope[i]);
		nopes += nope[i];
	}
	double window = 0;
	int local_attention = (h->arch->flags & HF_LOCAL_ATTENTION) != 0;
	int local_half = (h->arch->flags & HF_LOCAL_HALF) != 0;
	int rc = hf_cfg_number(h,
	                       local_attention || local_half ? "local_attention" : "sliding_window",
	                       &window, NULL);
	if (rc < 0) {
		st = PE_EFORMAT;
		goto done;
	}
	/* integer division, as the configuration class does */
	if (local_half)
		window = floor(window / 2);
	if (local_half && !(window > 0))
		rc = 0;
	/* Qwen2/Qwen3's classes drop the window without use_sliding_window */
	uint64_t fl = h->arch->flags;
	if (rc > 0 && (fl & HF_USE_SLIDING)) {
		int on = hf_bool(h, "", h->cfg, "use_sliding_window", 0);
		if (on < 0) {
			st = PE_EFORMAT;
			goto done;
		}
		if (!on)
			rc = 0;
	}
	/* a window of 0 masks nothing these classes would call a window */
	if ((fl & (HF_WINDOW_ALL | HF_USE_SLIDING)) && !(window > 0))
		rc = 0;
	/* Qwen2/Qwen3 without layer_types: the class's list slides from
	 * max_window_layers on */
	size_t from = n;
	int own_types = hf_present(h->cfg, "layer_types") != NULL;
	int by_index = rc > 0 && (fl & HF_MAX_WINDOW_LAYERS) && !own_types;
	if (by_index && hf_cfg_count(h, "max_window_layers", &from, NULL) < 0) {
		st = PE_EFORMAT;
		goto done;
	}
	/* Ministral without layer_types: every layer from 0 */
	if (rc > 0 && (fl & HF_TYPES_ALL_SLIDE) && !own_types) {
		by_index = 1;
		from = 0;
	}
	/* HF_WINDOW_ALL: every attention layer, whatever its type says (MiniMax's
	 * lightning layers take no mask) */
	for (size_t i = 0; i < n; i++)
		flag[i] = (fl & HF_WINDOW_ALL) ? strcmp(types[i], "full_attention") == 0 ||
		                                         strcmp(types[i], "sliding_attention") == 0
		          : by_index ? i >= from
		                     : strcmp(types[i], "sliding_attention") == 0;
	if (rc > 0 && (fl & (HF_WINDOW_ALL | HF_MAX_WINDOW_LAYERS | HF_TYPES_ALL_SLIDE))) {
		sliding = 0;
		for (size_t i = 0; i < n; i++)
			sliding += flag[i];
	}
	if (sliding && rc > 0) {
		char *list = pe_model_layer_list(flag, n);
		st = list ? hf_fact(h, "sliding_window",
		                    local_attention
		                            ? "a sliding layer sees window/2 positions on each "
		                              "side (ModernBERT's local_attention)"
		                    : local_half ? "a sliding layer sees this many positions back "
		                                   "(local_attention // 2, ModernBERT's decoder)"
		                                 : "a sliding layer sees this many positions back "
		                                   "(sliding_window)",
		                    "%.17g", window)
		          : PE_ENOMEM;
		if (st == PE_OK)
			st = hf_fact(h, "sliding_layers", "the layers with that window", "%s",
			             list);
		free(list);
		if (st != PE_OK)
			goto done;
	}
	if (chunked) {
		double chunk = 0;
		if ((rc = hf_cfg_number(h, "attention_chunk_size", &chunk, NULL)) < 0) {
			st = PE_EFORMAT;
			goto done;
		}
		if (rc > 0 &&
		    (st = hf_fact(h, "attention_chunk_size",
		                  "chunked layers attend within blocks of this many positions",
		                  "%.17g", chunk)) != PE_OK)
			goto done;
	}
	if (nopes) {
		char *list = pe_model_layer_list(nope, n);
		st = list ? hf_fact(h, "nope_layers", "layers without positional encoding", "%s",
		                    list)
		          : PE_ENOMEM;
		free(list);
		if (st != PE_OK)
			goto done;
	}
	/* A key the modeling reads must be a number when present, as everywhere
	 * (hf_cfg_number has reported it otherwise): never a model with an error. */
	double qs = 0;
	if ((h->arch->flags & HF_QUERY_SCALAR) &&
	    (rc = hf_cfg_number(h, "query_pre_attn_scalar", &qs, NULL)) < 0) {
		st = PE_EFORMAT;
		goto done;
	}
	if ((h->arch->flags & HF_QUERY_SCALAR) && rc > 0 && qs > 0 &&
	    (st = hf_fact(h, "softmax_scale",
	                  "softmax scale query_pre_attn_scalar^-0.5, in place of "
	                  "head_dim^-0.5 (Gemma)",
	                  "%.17g", 1.0 / sqrt(qs))) != PE_OK)
		goto done;
	double mult = 0;
	if ((h->arch->flags & HF_ATTN_MULT) &&
	    (rc = hf_cfg_number(h, "attention_multiplier", &mult, NULL)) < 0) {
		st = PE_EFORMAT;
		goto done;
	}
	if ((h->arch->flags & HF_ATTN_MULT) && rc > 0 &&
	    (st = hf_fact(h, "softmax_scale",
	                  "softmax scale attention_multiplier, in place of head_dim^-0.5 "
	                  "(Granite)",
	                  "%.17g", mult)) != PE_OK)
		goto done;
	int rv = (h->arch->flags & HF_ROTARY_VALUE) ? hf_bool(h, "", h->cfg, "rotary_value", 0) : 0;
	if (rv < 0) {
		st = PE_EFORMAT;
		goto done;
	}
	if (rv &&
	    (st = hf_fact(h, "rotary_value",
	                  "the values are rotated as the keys are (RoFormerSelfAttention), which "
	                  "the tables here do not show",
	                  "true")) != PE_OK)
		goto done;
	/* Zamba2's attention divides by sqrt(head_dim / 2) (Zamba2Attention) */
	if ((h->arch->flags & HF_ZAMBA_HEAD) && h->m->head_dim >= 2 &&
	    (st = hf_fact(h, "softmax_scale",
	                  "softmax scale (head_dim / 2)^-0.5, in place of head_dim^-0.5 "
	                  "(Zamba2Attention)",
	                  "%.17g", 1.0 / sqrt((double)h->m->head_dim / 2.0))) != PE_OK)
		goto done;
	const struct json *tt = hf_present(h->cfg, "attn_temperature_tuning");
	int tuning = (h->arch->flags & HF_TEMP_TUNING) &&
	             (!tt || (tt->type == JSON_BOOL && tt->boolean) ||
	              (tt->type == JSON_NUMBER && tt->number != 0));
	if (tuning && nopes) {
		double scale = 0.1, floor_scale = 8192;
		if (hf_cfg_number(h, "attn_scale", &scale, NULL) < 0 ||
		    hf_cfg_number(h, "floor_scale", &floor_scale, NULL) < 0) {
			st = PE_EFORMAT;
			goto done;
		}
		st = hf_fact(h, "attn_temperature_tuning",
		             "queries of the NoPE layers are multiplied by 1 + attn_scale x "
		             "log(floor((position + 1) / floor_scale) + 1) (Llama4TextAttention)",
		             "attn_scale=%.17g floor_scale=%.17g", scale, floor_scale);
	}
done:
	free(flag);
	return st;
}

/*
 * InternLM's 'rotary' object (InternLMAttention._init_rope): base, type
 * 'origin' (plain RoPE) or 'dynamic' (transformers' dynamic NTK formula with
 * scaling_factor, default 1, against max_position_embeddings), anything else
 * a ValueError. Sets the base and makes the equivalent rope block in *out.
 */
static enum pe_status rotary_dict(struct hf *h, struct hf_rope_ctx *c, struct json **out)
{
	const struct json *r = hf_present(h->cfg, "rotary");
	struct json *dflt = NULL;
	enum pe_status st = PE_OK;
	if (r && r->type != JSON_OBJECT)
		return hf_fail(h, PE_EFORMAT, "rotary: is not an object");
	if (!r) {
		dflt = json_parse(h->arch->rope_block, strlen(h->arch->rope_block), NULL);
		if (!dflt)
			return PE_ENOMEM; /* the registry's own text parses */
		r = dflt;
		st = hf_warn(
		        h,
		        "rotary: missing, so the configuration class's default %s is read "
		        "(the first revisions of the modeling file had no 'rotary' and rotated "
		        "at 10000 without dynamic scaling)",
		        h->arch->rope_block);
	}
	double base = NAN, factor = 1.0;
	int rc = st == PE_OK ? hf_number(h, "rotary.", r, "base", &base) : 1;
	const struct json *t = hf_present(r, "type");
	if (st == PE_OK && rc < 0)
		st = PE_EFORMAT;
	else if (st == PE_OK && rc == 0)
		st = hf_fail(h, PE_EFORMAT, "rotary.base: missing (the modeling file reads it)");
	else if (st == PE_OK && (!t || t->type != JSON_STRING))
		st = hf_fail(h, PE_EFORMAT, "rotary.type: missing or not a string");
	else if (st == PE_OK && strcmp(t->string, "origin") != 0 &&
	         strcmp(t->string, "dynamic") != 0)
		st = hf_fail(h, PE_EUNSUPPORTED,
		             "rotary.type: '%s' is neither 'origin' nor 'dynamic', the two the "
		             "model's own code builds (it raises ValueError otherwise)",
		             t->string);
	else if (st == PE_OK && hf_number(h, "rotary.", r, "scaling_factor", &factor) < 0)
		st = PE_EFORMAT;
	char *text = NULL;
	if (st == PE_OK) {
		c->top_theta = base;
		text = strcmp(t->string, "origin") == 0
		               ? pe_strdup("{\"rope_type\":\"default\"}")
		               : pe_asprintf("{\"rope_type\":\"dynamic\",\"factor\":%.17g}",
		                             factor);
		if (!text || !(*out = json_parse(text, strlen(text), NULL)))
			st = PE_ENOMEM;
	}
	free(text);
	json_free(dflt);
	return st;
}

/* A rope type outside the row's @scalings: the model's own code raises. */
static enum pe_status accepted_scaling(struct hf *h, const char *bname, const struct json *block)
{
	const char *list = h->arch->scalings;
	const struct json *t = hf_block_type(block);
	if (!list || !t || t->type != JSON_STRING || strcmp(t->string, "default") == 0)
		return PE_OK;
	size_t len = strlen(t->string);
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, " ");
		if (l == len && strncmp(p, t->string, len) == 0)
			return PE_OK;
		p += l + (p[l] == ' ');
	}
	return hf_fail(h, PE_EUNSUPPORTED,
	               "%s.type: '%s' is not a scaling the model's own code (model_type '%s') "
	               "builds; it accepts only: %s (anything else raises ValueError there)",
	               bname, t->string, h->arch->model_type, list);
}

/* Qwen v1 / TeleChat's alpha at running length @len against @ref. */
static double ntk_alpha(double len, double ref)
{
	double a = pow(2.0, ceil(log2(len / ref) + 1.0)) - 1.0;
	return a > 1.0 ? a : 1.0;
}

/*
 * HF_NTK_STEPS: the static part (TeleChat rotates at least at its
 * training_seqlen, so a base already raised when that exceeds base_seqlen)
 * goes into the base; the growth with the running length, Qwen's logn
 * query scaling and TeleChat's mscale are said, not computed. *@len gets
 * the length up to which the frequencies shown hold.
 */
static enum pe_status ntk_steps(struct hf *h, struct hf_rope_ctx *c, double *len)
{
	const char *ref_key = hf_arch_key(h->arch, "ntk_length");
	const char *floor_key = hf_arch_key(h->arch, "ntk_floor");
	const char *on_key = hf_arch_key(h->arch, "ntk_switch");
	const char *logn_key = hf_arch_key(h->arch, "logn_switch");
	size_t ref = 0, floor_len = 0;
	int rc = hf_cfg_count(h, "ntk_length", &ref, NULL);
	if (rc < 0)
		return PE_EFORMAT;
	if (rc == 0)
		return hf_fail(h, PE_EFORMAT,
		               "%s: missing; the model's own code reads it (its class has no "
		               "default) for the length its NTK steps count from",
		               ref_key);
	if (floor_key && hf_cfg_count(h, "ntk_floor", &floor_len, NULL) < 0)
		return PE_EFORMAT;
	int on = on_key ? hf_bool(h, "", h->cfg, on_key, 1) : 1;
	int logn = logn_key ? hf_bool(h, "", h->cfg, logn_key, 1) : 0;
	if (on < 0 || logn < 0)
		return PE_EFORMAT;
	double partial = !isnan(c->top_partial)     ? c->top_partial
	                 : !isnan(c->class_partial) ? c->class_partial
	                                            : 1.0;
	double d = floor((double)c->head_dim * partial);
	enum pe_status st = PE_OK;
	*len = floor_len ? (double)floor_len : (double)ref;
	if (on && floor_len && d > 2) {
		double alpha = ntk_alpha((double)floor_len, (double)ref);
		c->top_theta *= pow(alpha, d / (d - 2.0));
		st = hf_fact(h, "ntk_alpha",
		             "the alpha of the base the model rotates at up to this length: "
		             "base x alpha^(d/(d-2)), alpha = max(2^ceil(log2(L / S) + 1) - 1, 1)",
		             "%.17g (L %zu, S %zu)", alpha, floor_len, ref);
	}
	if (st == PE_OK && on)
		st = hf_fact(h, "ntk_steps",
		             "beyond this length the model's own code raises the base at each "
		             "running length L: base x alpha^(d/(d-2)), alpha = max(2^ceil(log2(L "
		             "/ S) + 1) - 1, 1), S the value here",
		             "%zu", ref);
	if (st == PE_OK && on)
		st = hf_warn(h,
		             "%s %zu: beyond %.17g tokens the model's own code grows the base with "
		             "the running length (its NTK-alpha steps%s), which the frequencies "
		             "shown do not follow: they hold up to that length",
		             ref_key, ref, *len,
		             floor_len ? ", and cos and sin times 0.1 ln(L / training length) + 1"
		                       : "");
	if (st == PE_OK && logn)
		st = hf_fact(h, "logn_attention",
		             "queries at position p (from 0) with p + 1 > S are multiplied by "
		             "log(p + 1) / log(S), S the value here",
		             "%zu", ref);
	if (st == PE_OK && logn)
		st = hf_warn(h,
		             "%s: queries beyond %zu tokens are scaled by log(p + 1) / log(%zu) "
		             "at inference, which posenc does not apply",
		             logn_key, ref, ref);
	return st;
}

enum pe_status hf_read_rope(struct hf *h)
{
	const struct json *cfg = h->cfg;
	struct pe_model *m = h->m;
	struct hf_rope_ctx c = {.top_theta = NAN, .top_partial = NAN, .class_partial = NAN};
	size_t heads = 0, hidden = 0, hd = 0, n = 0;
	int rc;
	enum pe_status st;
	const char *hname = "hidden_size", *nname = "num_attention_heads";

	if ((rc = hf_cfg_count(h, "qk_rope_head_dim", &hd, NULL)) < 0)
		return PE_EFORMAT;
	if (!rc && (rc = hf_cfg_count(h, "head_dim", &hd, NULL)) < 0)
		return PE_EFORMAT;
	if (!rc) {
		if ((rc = hf_cfg_count(h, "hidden_size", &hidden, &hname)) <= 0)
			return rc < 0 ? PE_EFORMAT
			              : hf_fail(h, PE_EFORMAT,
			                        "hidden_size: missing (and no head_dim)");
		if ((rc = hf_cfg_count(h, "num_attention_heads", &heads, &nname)) <= 0)
			return rc < 0 ? PE_EFORMAT
			              : hf_fail(h, PE_EFORMAT,
			                        "num_attention_heads: missing (and no head_dim)");
		/* integer division, as the reference; Zamba2's attention reads the residual
		 * concatenated with the embeddings (2 * hidden_size wide) */
		hd = ((h->arch->flags & HF_ZAMBA_HEAD) ? 2 * hidden : hidden) / heads;
		if (hd == 0)
			return hf_fail(h, PE_EFORMAT, "%s %zu // %s %zu: the head width is 0",
			               hname, hidden, nname, heads);
	}
	/* the widest head a rope spec takes (its 'head' key): refused before the
	 * tables of a 2^31-wide head are made */
	if (hd > HF_HEAD_MAX)
		return hf_fail(h, PE_EFORMAT,
		               "head width %zu: wider than the %u dimensions posenc computes", hd,
		               HF_HEAD_MAX);
	c.head_dim = hd;
	m->head_dim = hd;
	/* Gemma 4: full-attention layers have heads of global_head_dim (its
	 * Gemma4TextAttention), and their proportional RoPE reads that key (else
	 * hidden_size // num_attention_heads, which must then agree). */
	int gemma4 = (h->arch->flags & HF_GEMMA4) != 0;
	size_t global_hd = hd;
	if (gemma4) {
		size_t g = 0;
		if ((rc = hf_count(h, "", cfg, "global_head_dim", &g)) < 0)
			return PE_EFORMAT;
		if (rc && g)
			global_hd = g;
		if (global_hd > HF_HEAD_MAX)
			return hf_fail(
			        h, PE_EFORMAT,
			        "global_head_dim: %zu is wider than the %u dimensions posenc "
			        "computes",
			        global_hd, HF_HEAD_MAX);
		if (!hf_present(cfg, "layer_types"))
			return hf_fail(
			        h, PE_EFORMAT,
			        "layer_types: missing; Gemma 4 configs list which layers are "
			        "sliding and which full, and posenc will not guess");
		int hrc = 1, nrc = 1;
		if (!(rc && g) &&
		    ((hrc = hf_cfg_count(h, "hidden_size", &hidden, NULL)) < 0 ||
		     (nrc = hf_cfg_count(h, "num_attention_heads", &heads, NULL)) < 0))
			return PE_EFORMAT;
		if (!(rc && g) && hrc > 0 && nrc > 0 && hidden / heads != hd)
			return hf_fail(
			        h, PE_EFORMAT,
			        "global_head_dim: missing, so the reference's proportional RoPE "
			        "would use hidden_size // num_attention_heads = %zu, not the "
			        "head_dim %zu of the attention",
			        hidden / heads, hd);
	}
	c.layout = h->arch->layout;
	/* A key the class does not restate, set and not false (NomicBERT's
	 * rotary_scaling_factor, Zamba2's use_long_context) */
	const char *unread = hf_arch_key(h->arch, "unsupported");
	const struct json *uv = unread ? hf_present(cfg, unread) : NULL;
	if (uv && !(uv->type == JSON_BOOL && !uv->boolean))
		return hf_fail(h, PE_EUNSUPPORTED,
		               "%s: set, and the rotary variant it selects in the model's own code "
		               "is not one posenc restates",
		               unread);
	/* DeepSeek-V3 in transformers: rope_interleave (default true) picks the pairing;
	 * flash-attn's rotary (NomicBERT): rotary_emb_interleaved. */
	const char *ri_key = hf_arch_key(h->arch, "rope_interleave");
	if (!ri_key)
		ri_key = "rope_interleave";
	/* 2: not given (or not read: the pairing is the modeling file's) */
	int ri = h->arch->flags & HF_FIXED_PAIRING ? 2 : hf_bool(h, "", cfg, ri_key, 2);
	if (ri < 0)
		return PE_EFORMAT;
	if (ri != 2)
		c.layout = ri ? "interleaved" : "half";
	/* a string key whose one value selects pairs 2i, 2i+1 ("rope_impl:interleave":
	 * Molmo's RotaryEmbedding rotates every two then, else rotate_half) */
	const char *sel = hf_arch_key(h->arch, "interleave_if");
	if (sel) {
		char skey[64];
		size_t klen = strcspn(sel, ":");
		if (klen >= sizeof(skey) || !sel[klen])
			return PE_EINVAL; /* the registry's own text is well formed */
		memcpy(skey, sel, klen);
		skey[klen] = '\0';
		const struct json *sv = hf_present(cfg, skey);
		if (sv && sv->type != JSON_STRING)
			return hf_fail(h, PE_EFORMAT, "%s: is not a string", skey);
		if (sv)
			c.layout = strcmp(sv->string, sel + klen + 1) == 0 ? "interleaved" : "half";
	}
	/* The rotated part: rotary_dim (GPT-J, CodeGen, MiniMax: a width),
	 * partial_rotary_factor, GPT-NeoX's rotary_pct, Nemotron's rope_percent. */
	size_t rotary_dim = 0;
	double v;
	if ((rc = hf_count(h, "", cfg, "rotary_dim", &rotary_dim)) < 0)
		return PE_EFORMAT;
	/* The reference slices q[..., :rotary_dim]: a wider one fails there. */
	if (rc && rotary_dim > hd)
		return hf_fail(h, PE_EFORMAT, "rotary_dim: %zu is wider than the head width %zu",
		               rotary_dim, hd);
	if (rc)
		c.top_partial = pe_model_width_fraction(rotary_dim, hd);
	/* the class's own name first (NomicBERT's rotary_emb_fraction) */
	const char *partial_keys[] = {hf_arch_key(h->arch, "partial_rotary_factor"),
	                              "partial_rotary_factor", "rotary_pct", "rope_percent"};
	if (!partial_keys[0])
		partial_keys[0] = partial_keys[1];
	/* a key the class keeps and its modeling never reads (EXAONE 3's rotary_pct) */
	const char *unread_key = hf_arch_key(h->arch, "unread");
	for (size_t k = 0; k < 4 && isnan(c.top_partial); k++) {
		if (unread_key && strcmp(partial_keys[k], unread_key) == 0)
			continue;
		if ((rc = hf_number(h, "", cfg, partial_keys[k], &v)) < 0)
			return PE_EFORMAT;
		if (rc)
			c.top_partial = v;
	}
	/* a class that overwrites the config's value (Bamba) */
	if ((h->arch->flags & HF_FIXED_PARTIAL) &&
	    hf_arch_default(h->arch, "partial_rotary_factor", &v)) {
		enum pe_status wst = PE_OK;
		if (!isnan(c.top_partial) && c.top_partial != v)
			wst = hf_warn(h,
			              "partial_rotary_factor: %.17g is not read; the configuration "
			              "class sets it to %.17g",
			              c.top_partial, v);
		if (wst != PE_OK)
			return wst;
		c.top_partial = v;
	}
	if (isnan(c.top_partial)) {
		if (hf_arch_default(h->arch, "rotary_dim", &v) && (size_t)v > hd)
			return hf_fail(h, PE_EFORMAT,
			               "rotary_dim: missing, and the class default %zu is wider "
			               "than the head width %zu",
			               (size_t)v, hd);
		if (hf_arch_default(h->arch, "rotary_dim", &v))
			c.class_partial = pe_model_width_fraction((size_t)v, hd);
		else if (hf_arch_default(h->arch, "partial_rotary_factor", &v) ||
		         hf_arch_default(h->arch, "rotary_pct", &v))
			c.class_partial = v;
	}
	/* The base: rope_theta (GPT-NeoX: rotary_emb_base only; ModernBERT:
	 * global_rope_theta), else the class default. */
	const char *theta_key = h->arch->theta_key ? h->arch->theta_key : "rope_theta";
	if ((rc = hf_number(h, "", cfg, theta_key, &v)) < 0)
		return PE_EFORMAT;
	if (h->arch->flags & HF_FIXED_BASE) {
		double fixed = NAN;
		hf_arch_default(h->arch, theta_key, &fixed);
		enum pe_status wst = PE_OK;
		if (rc && v != fixed)
			wst = hf_warn(
			        h,
			        "%s: %.17g is not read; the model's own code builds its rotary "
			        "embedding at its fixed base %.17g",
			        theta_key, v, fixed);
		if (wst != PE_OK)
			return wst;
		c.top_theta = fixed;
	} else if (rc || hf_arch_default(h->arch, theta_key, &v)) {
		c.top_theta = v;
	}
	if (h->arch->flags & HF_TYPE_ROPE) {
		c.top_theta = NAN;
		c.top_partial = NAN;
		/* published files still carry the flat keys; the class reads none of them */
		static const char *const flat[] = {"rope_theta", "partial_rotary_factor",
		                                   "swa_rope_theta", "rotary_dim"};
		for (size_t k = 0; k < sizeof(flat) / sizeof(*flat); k++) {
			enum pe_status wst = PE_OK;
			if (hf_present(cfg, flat[k]))
				wst = hf_warn(
				        h,
				        "%s: not read (the class takes each layer type's base and "
				        "rotated fraction from its rope_parameters block)",
				        flat[k]);
			if (wst != PE_OK)
				return wst;
		}
	}
	if (h->arch->flags & HF_ROPE_RATIO) {
		double ratio = 1.0;
		if (hf_number(h, "", cfg, "rope_ratio", &ratio) < 0)
			return PE_EFORMAT;
		if (!(ratio > 0.0 && isfinite(ratio)))
			return hf_fail(h, PE_EFORMAT, "rope_ratio: %.17g must be > 0", ratio);
		c.top_theta *= ratio;
	}
	if ((rc = hf_cfg_number(h, "max_position_embeddings", &c.max_pos, NULL)) < 0)
		return PE_EFORMAT;
	/* the reference keeps any int; as a context length 0, -1 or 1e30 says nothing */
	if (rc > 0 && !(c.max_pos >= 1 && c.max_pos <= 1e15 && c.max_pos == floor(c.max_pos))) {
		enum pe_status wst =
		        hf_warn(h,
		                "max_position_embeddings: %.17g is not a context length; "
		                "ignored (no context is shown)",
		                c.max_pos);
		if (wst != PE_OK)
			return wst;
		c.max_pos = 0;
	}
	if ((rc = hf_number(h, "", cfg, "original_max_position_embeddings", &c.top_original)) < 0)
		return PE_EFORMAT;
	c.top_original_set = rc;
	double static_len = 0;
	if ((h->arch->flags & HF_NTK_STEPS) && (st = ntk_steps(h, &c, &static_len)) != PE_OK)
		return st;
	if ((rc = hf_cfg_count(h, "num_hidden_layers", &n, NULL)) < 0)
		return PE_EFORMAT;
	if (!rc)
		n = 1;
	if (n > 4096) /* real models have a few hundred; the grouping is quadratic */
		return hf_fail(h, PE_EFORMAT,
		               "num_hidden_layers: %zu is more than the 4096 posenc reads", n);
	m->n_layers = rc ? n : 0;
	m->context = c.max_pos;

	/* RoPE only when a flag of the class says so (Zamba2's use_mem_rope, default false) */
	if ((h->arch->flags & HF_LAYER_THETA_NOPE) && hf_present(cfg, "layer_rope_theta")) {
		const struct json *lt = hf_present(cfg, "layer_rope_theta");
		const struct json *rt =
		        hf_present(hf_present(cfg, "rope_parameters"), "rope_theta");
		double base = rt && rt->type == JSON_NUMBER ? rt->number : c.top_theta;
		for (size_t i = 0; lt->type == JSON_ARRAY && i < lt->n; i++) {
			const struct json *x = &lt->items[i];
			if (x->type != JSON_NUMBER || x->number == 0.0 || x->number == base)
				continue;
			enum pe_status wst = hf_warn(
			        h,
			        "layer_rope_theta[%zu]: %.17g is not the rope base; the model "
			        "builds one rotary from rope_parameters for every layer and reads "
			        "this list only as RoPE on (non-zero) or off (0)",
			        i, x->number);
			if (wst != PE_OK)
				return wst;
			break;
		}
	}
	if (h->arch->rope_key) {
		const struct json *on = hf_present(cfg, h->arch->rope_key);
		if (on && on->type != JSON_BOOL)
			return hf_fail(h, PE_EFORMAT, "%s: is not true or false",
			               h->arch->rope_key);
		if (!on || !on->boolean)
			return hf_fail(
			        h, PE_EUNSUPPORTED,
			        "model_type '%s': %s is %s, so its attention has no positional "
			        "encoding to show",
			        h->arch->model_type, h->arch->rope_key,
			        on ? "false" : "missing (the class default is false)");
	}

	/* rope_scaling wins over rope_parameters when both are set, as in the reference. */
	const char *bname = "rope_scaling";
	const struct json *block = hf_present(cfg, "rope_scaling");
	if (block && block->type == JSON_OBJECT && block->n == 0)
		block = NULL;
	if (!block) {
		bname = "rope_parameters";
		block = hf_present(cfg, "rope_parameters");
	}
	struct json *class_block = NULL;
	if (block && (h->arch->flags & (HF_NO_ROPE_BLOCK | HF_ROTARY_DICT))) {
		if ((st = hf_warn(h,
		                  "%s: not read; the model's own code (model_type '%s') builds its "
		                  "rotary embedding without it, so it is ignored",
		                  bname, h->arch->model_type)) != PE_OK)
			return st;
		block = NULL;
	}
	if (h->arch->flags & HF_ROTARY_DICT) {
		if ((st = rotary_dict(h, &c, &class_block)) != PE_OK)
			return st;
		block = class_block;
		bname = "rotary";
	}
	if (block && block->type != JSON_OBJECT)
		return hf_fail(h, PE_EFORMAT, "%s: is not an object", bname);
	if (block && (st = accepted_scaling(h, bname, block)) != PE_OK) {
		json_free(class_block);
		return st;
	}
	/* a number of the config that divides the positions, which is linear scaling
	 * by it when no block says otherwise (Phi-3-small's rope_position_scale) */
	const char *lin_key = hf_arch_key(h->arch, "linear_factor");
	double lin = 1.0;
	if (lin_key && (rc = hf_number(h, "", cfg, lin_key, &lin)) < 0) {
		json_free(class_block);
		return PE_EFORMAT;
	}
	if (lin_key && !(lin > 0.0 && lin <= 1e6)) {
		json_free(class_block);
		return hf_fail(h, PE_EFORMAT, "%s: %.17g is not in (0, 1e6]", lin_key, lin);
	}
	if (!block && lin != 1.0) {
		char text[96];
		snprintf(text, sizeof(text), "{\"rope_type\": \"linear\", \"factor\": %.17g}", lin);
		class_block = json_parse(text, strlen(text), NULL);
		if (!class_block)
			return PE_ENOMEM;
		block = class_block;
		bname = lin_key;
	} else if (block && lin != 1.0 && !hf_present(block, "factor")) {
		json_free(class_block);
		return hf_fail(h, PE_EUNSUPPORTED,
		               "%s: %.17g beside %s, which the model's own code reads as that "
		               "block's factor; posenc does not restate the combination",
		               lin_key, lin, bname);
	}
	/* the class's own rope_parameters when the config has none (CWM's llama3) */
	if (!block && h->arch->rope_block && !(h->arch->flags & HF_NO_ROPE_BLOCK)) {
		class_block = json_parse(h->arch->rope_block, strlen(h->arch->rope_block), NULL);
		if (!class_block)
			return PE_ENOMEM; /* the registry's own text parses */
		block = class_block;
		bname = "rope_parameters (the class default)";
	}

	struct spec_cache *cache = NULL;
	size_t n_cache = 0;
	const char **types = calloc(n, sizeof(*types));
	unsigned char *nope = calloc(n, 1);
	struct layer *ls = calloc(n, sizeof(*ls));
	if (!types || !nope || !ls) {
		st = PE_ENOMEM;
		goto done;
	}
	if ((st = layer_types(h, n, types)) != PE_OK ||
	    (st = nope_flags(h, n, types, nope)) != PE_OK)
		goto done;
	size_t rotating = 0;
	for (size_t i = 0; i < n; i++)
		rotating += !nope[i];
	if (!rotating) {
		st = hf_fail(h, PE_EUNSUPPORTED,
		             "model_type '%s': no layer has a positional encoding (every layer is "
		             "NoPE or not attention), so there is none to show",
		             h->m->model_type ? h->m->model_type : h->arch->model_type);
		goto done;
	}
	/* Keyed per layer type when every key names a layer type. */
	int per_type = 0;
	if (block && (h->arch->flags & HF_TYPE_ROPE)) {
		per_type = 1;
		for (size_t i = 0; i < block->n; i++) {
			int found = 0;
			for (size_t k = 0; k < n && !found; k++)
				found = strcmp(block->keys[i], types[k]) == 0;
			if (!found && block->items[i].type != JSON_OBJECT &&
			    (st = hf_warn(h,
			                  "%s.%s: names no layer type, so the rotary embedding "
			                  "never reads it; ignored",
			                  bname, block->keys[i])) != PE_OK)
				goto done;
		}
	} else if (block && block->n) {
		per_type = 1;
		for (size_t i = 0; i < block->n && per_type; i++) {
			int found = 0;
			for (size_t k = 0; k < n && !found; k++)
				found = strcmp(block->keys[i], types[k]) == 0;
			per_type &= found;
		}
	}
	/* Sliding layers at their own base, unscaled (Gemma 3's
	 * rope_local_base_freq, ModernBERT's local_rope_theta). */
	double local_base = NAN;
	if (h->arch->local_theta &&
	    (rc = hf_cfg_number(h, h->arch->local_theta, &local_base, NULL)) < 0) {
		st = PE_EFORMAT;
		goto done;
	}
	c.per_layer = per_type;
	double train = c.max_pos;
	/* Each block is read once, for all the layers that share it (and says
	 * its warnings once): layers hold the spec of their (block, variant). */
	cache = calloc(n, sizeof(*cache));
	if (!cache) {
		st = PE_ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		ls[i].type = types[i];
		if (nope[i])
			continue;
		const struct json *b = block;
		if (per_type) {
			b = hf_present(block, types[i]);
			if (!b || b->type != JSON_OBJECT) {
				st = hf_fail(h, PE_EFORMAT, "%s.%s: missing or not an object",
				             bname, types[i]);
				goto done;
			}
			if ((h->arch->flags & HF_TYPE_ROPE) && !hf_present(b, "rope_theta")) {
				st = hf_fail(
				        h, PE_EFORMAT,
				        "%s.%s.rope_theta: missing (the class reads it from the "
				        "layer type's block only)",
				        bname, types[i]);
				goto done;
			}
		}
		int local = !per_type && !isnan(local_base) &&
		            strcmp(types[i], "sliding_attention") == 0;
		int global = gemma4 && strcmp(types[i], "full_attention") == 0;
		struct spec_cache *e = NULL;
		for (size_t k = 0; k < n_cache && !e; k++)
			if (cache[k].block == b && cache[k].local == local &&
			    cache[k].global == global)
				e = &cache[k];
		if (e) {
			ls[i].spec = e->spec;
			continue;
		}
		char where[96];
		snprintf(where, sizeof(where), "%s.", bname);
		if (per_type)
			snprintf(where, sizeof(where), "%s.%s.", bname, types[i]);
		struct strbuf sb = {0};
		double t = c.max_pos;
		if (local) {
			struct hf_rope_ctx lc = c;
			lc.top_theta = local_base;
			char lw[64];
			snprintf(lw, sizeof(lw), "%s: ", h->arch->local_theta);
			st = hf_rope_spec(h, &lc, lw, NULL, &sb, &t);
		} else {
			struct hf_rope_ctx lc = c;
			if (global)
				lc.head_dim = global_hd;
			st = hf_rope_spec(h, &lc, where, b, &sb, &t);
			if (t > 0 && (!(train > 0) || t < train))
				train = t;
		}
		if (st == PE_OK && sb.failed)
			st = PE_ENOMEM;
		if (st != PE_OK) {
			free(sb.buf);
			goto done;
		}
		cache[n_cache++] = (struct spec_cache){b, local, global, sb.buf};
		ls[i].spec = sb.buf;
	}
	m->train_context = static_len > 0 ? static_len : train > 0 ? train : c.max_pos;
	if (hf_present(block, "mrope_section") && (st = hf_mrope_note(h, &c, block)) != PE_OK)
		goto done;
	if ((st = attention_facts(h, n, types, nope)) != PE_OK)
		goto done;
	st = group_layers(h, ls, n);
done:
	for (size_t k = 0; k < n_cache; k++)
		free(cache[k].spec);
	json_free(class_block);
	free(cache);
	free(ls);
	free(types);
	free(nope);
	return st;
}
