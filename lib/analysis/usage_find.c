/*
 * The query and key tensors of a checkpoint's layers, by their names as
 * transformers' modeling files name them: LlamaAttention's q_proj/k_proj
 * (most models), Phi-3's qkv_proj, Qwen's c_attn, GPT-NeoX's and Falcon's
 * query_key_value, DBRX's Wqkv, InternLM2's wqkv, Baichuan's W_pack,
 * DeepSeek-V2/V3's q_b_proj (q_proj without q_lora_rank) and
 * kv_a_proj_with_mqa, q_norm/k_norm (Qwen3, Gemma 3, OLMo 2); and as
 * llama.cpp's GGUF files name them (gguf-py's tensor_mapping.py):
 * blk.N.attn_q, attn_k, the fused attn_qkv, attn_q_norm and attn_k_norm, and
 * DeepSeek-V2's MLA tensors attn_q_b (attn_q without q_lora_rank) and
 * attn_kv_a_mqa (conversion/deepseek.py maps q_b_proj and kv_a_proj_with_mqa
 * to them unchanged).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/usage_internal.h"
#include "core/strutil.h"
#include "io/read_internal.h"

#define MAX_LAYERS 100000

struct role_name {
	const char *module; /* the last component before weight/bias */
	int bias;           /* 1: .bias, 0: .weight */
	enum us_role role;
	int mla, fused;
};

static const struct role_name roles[] = {
        {"q_proj", 0, US_Q, 0, 0},
        {"k_proj", 0, US_K, 0, 0},
        {"q_proj", 1, US_QB, 0, 0},
        {"k_proj", 1, US_KB, 0, 0},
        {"q_b_proj", 0, US_Q, 1, 0},
        {"q_b_proj", 1, US_QB, 1, 0},
        {"kv_a_proj_with_mqa", 0, US_K, 1, 0},
        {"kv_a_proj_with_mqa", 1, US_KB, 1, 0},
        {"qkv_proj", 0, US_QKV, 0, 1},
        {"qkv_proj", 1, US_QKVB, 0, 1},
        {"query_key_value", 0, US_QKV, 0, 1},
        {"query_key_value", 1, US_QKVB, 0, 1},
        {"c_attn", 0, US_QKV, 0, 1},
        {"c_attn", 1, US_QKVB, 0, 1},
        {"Wqkv", 0, US_QKV, 0, 1},
        {"Wqkv", 1, US_QKVB, 0, 1},
        {"wqkv", 0, US_QKV, 0, 1},
        {"wqkv", 1, US_QKVB, 0, 1},
        {"W_pack", 0, US_QKV, 0, 1},
        {"W_pack", 1, US_QKVB, 0, 1},
        {"q_norm", 0, US_QNORM, 0, 0},
        {"k_norm", 0, US_KNORM, 0, 0},
        {"q_layernorm", 0, US_QLN, 0, 0},
        {"k_layernorm", 0, US_KLN, 0, 0},
        {"attn_q", 0, US_Q, 0, 0},
        {"attn_k", 0, US_K, 0, 0},
        {"attn_q", 1, US_QB, 0, 0},
        {"attn_k", 1, US_KB, 0, 0},
        {"attn_qkv", 0, US_QKV, 0, 1},
        {"attn_qkv", 1, US_QKVB, 0, 1},
        {"attn_q_b", 0, US_Q, 1, 0},
        {"attn_kv_a_mqa", 0, US_K, 1, 0},
        {"attn_q_norm", 0, US_QNORM, 0, 0},
        {"attn_k_norm", 0, US_KNORM, 0, 0},
};

/* One name cut as PREFIX<layer>.MODULE.ROLE.(weight|bias). */
struct cut {
	size_t prefix_len; /* up to and with the '.' before the layer */
	size_t layer;
	const char *module; /* start of MODULE (may be empty: ROLE follows the layer) */
	size_t module_len;
	const struct role_name *role;
};

static int cut_name(const char *name, struct cut *c)
{
	size_t len = strlen(name);
	const char *last = NULL;
	if (len > 7 && strcmp(name + len - 7, ".weight") == 0)
		last = name + len - 7;
	else if (len > 5 && strcmp(name + len - 5, ".bias") == 0)
		last = name + len - 5;
	if (!last)
		return 0;
	int bias = last[1] == 'b';
	const char *rs = last;
	while (rs > name && rs[-1] != '.')
		rs--;
	size_t rl = (size_t)(last - rs);
	c->role = NULL;
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (roles[i].bias == bias && strlen(roles[i].module) == rl &&
		    memcmp(roles[i].module, rs, rl) == 0)
			c->role = &roles[i];
	if (!c->role || rs == name)
		return 0;
	/* The layer: the last all-digit component before the role. */
	const char *end = rs - 1; /* the '.' before the role */
	while (end > name) {
		const char *st = end;
		while (st > name && st[-1] != '.')
			st--;
		size_t dl = (size_t)(end - st);
		int digits = dl > 0 && dl < 7;
		for (size_t i = 0; digits && i < dl; i++)
			digits = isdigit((unsigned char)st[i]) != 0;
		if (digits) {
			c->layer = (size_t)strtoul(st, NULL, 10);
			c->prefix_len = (size_t)(st - name);
			/* MODULE lies between the '.' after the layer and the one before the role.
			 */
			c->module = end + 1;
			c->module_len = rs - 1 > end ? (size_t)(rs - 1 - (end + 1)) : 0;
			return c->layer < MAX_LAYERS;
		}
		if (st == name)
			return 0;
		end = st - 1;
	}
	return 0;
}

static int has_main(const struct us_layer *l)
{
	return (l->t[US_Q] && l->t[US_K]) || l->t[US_QKV];
}

static int is_side_part(const char *prefix)
{
	static const char *const words[] = {"vision", "visual",  "audio", "image",
	                                    "mm_",    "encoder", "vit",   "siglip"};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(prefix, words[i]))
			return 1;
	return 0;
}

void us_found_free(struct us_found *f)
{
	if (!f)
		return;
	free(f->prefix);
	free(f->module);
	free(f->layer);
	memset(f, 0, sizeof(*f));
}

enum pe_status us_find(const struct pe_tensor_store *s, size_t n_layers,
                       const unsigned char *optional, struct us_found *out, char **err)
{
	memset(out, 0, sizeof(*out));
	size_t cap = 0, n = 0;
	struct us_found *sets = NULL;
	enum pe_status st = PE_OK;
	size_t count = pe_tensor_store_count(s);
	for (size_t i = 0; i < count && st == PE_OK; i++) {
		const struct pe_tensor_info *t = pe_tensor_store_info(s, i);
		struct cut c;
		if (!t->name || !cut_name(t->name, &c))
			continue;
		size_t k = 0;
		for (; k < n; k++)
			if (strlen(sets[k].prefix) == c.prefix_len &&
			    memcmp(sets[k].prefix, t->name, c.prefix_len) == 0 &&
			    strlen(sets[k].module) == c.module_len &&
			    memcmp(sets[k].module, c.module, c.module_len) == 0)
				break;
		if (k == n) {
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 4;
				struct us_found *b = realloc(sets, nc * sizeof(*b));
				if (!b) {
					st = rd_fail(err, PE_ENOMEM, "out of memory");
					break;
				}
				sets = b;
				cap = nc;
			}
			memset(&sets[n], 0, sizeof(sets[n]));
			sets[n].prefix = pe_asprintf("%.*s", (int)c.prefix_len, t->name);
			sets[n].module = pe_asprintf("%.*s", (int)c.module_len, c.module);
			n++;
			if (!sets[k].prefix || !sets[k].module) {
				st = rd_fail(err, PE_ENOMEM, "out of memory");
				break;
			}
		}
		struct us_found *f = &sets[k];
		if (c.layer >= f->layers) {
			struct us_layer *b = realloc(f->layer, (c.layer + 1) * sizeof(*b));
			if (!b) {
				st = rd_fail(err, PE_ENOMEM, "out of memory");
				break;
			}
			memset(b + f->layers, 0, (c.layer + 1 - f->layers) * sizeof(*b));
			f->layer = b;
			f->layers = c.layer + 1;
		}
		f->layer[c.layer].t[c.role->role] = t;
		f->mla |= c.role->mla;
		f->fused |= c.role->fused;
	}
	/* Keep the sets whose every layer has its q and k, or may lack them. */
	size_t kept = 0, gap_layer = 0, gap_of = 0;
	for (size_t k = 0; k < n; k++) {
		int ok = 0;
		for (size_t l = 0; l < sets[k].layers; l++)
			ok |= has_main(&sets[k].layer[l]);
		/* trailing layers missing: the model's only if all may lack q and k; else the
		 * count differs from the config's, which the caller reports */
		size_t span = sets[k].layers;
		while (optional && span < n_layers && optional[span])
			span++;
		if (span < n_layers)
			span = sets[k].layers;
		size_t gap = 0;
		for (size_t l = 0; ok && l < span; l++) {
			ok = (l < sets[k].layers && has_main(&sets[k].layer[l])) ||
			     (optional && l < n_layers && optional[l]);
			gap = l;
		}
		if (ok && st == PE_OK && span > sets[k].layers) {
			struct us_layer *b = realloc(sets[k].layer, span * sizeof(*b));
			if (b) {
				memset(b + sets[k].layers, 0, (span - sets[k].layers) * sizeof(*b));
				sets[k].layer = b;
				sets[k].layers = span;
			} else {
				st = rd_fail(err, PE_ENOMEM, "out of memory");
			}
		}
		if (ok && st == PE_OK) {
			sets[kept++] = sets[k];
		} else {
			if (sets[k].layers > gap_of) { /* the largest set names the gap */
				gap_of = sets[k].layers;
				gap_layer = gap;
			}
			us_found_free(&sets[k]);
		}
	}
	n = kept;
	if (st == PE_OK && n == 0 && gap_of)
		st = rd_fail(
		        err, PE_ENOTFOUND,
		        "layers 0..%zu are named, but layer %zu has no query and key "
		        "projections (q_proj and k_proj, qkv_proj, query_key_value, c_attn, "
		        "Wqkv, wqkv, W_pack, q_b_proj and kv_a_proj_with_mqa, or GGUF's attn_q and "
		        "attn_k, attn_qkv, attn_q_b and attn_kv_a_mqa)",
		        gap_of - 1, gap_layer);
	else if (st == PE_OK && n == 0)
		st = rd_fail(
		        err, PE_ENOTFOUND,
		        "no layers with query and key projections (q_proj and k_proj, "
		        "qkv_proj, query_key_value, c_attn, Wqkv, wqkv, W_pack, q_b_proj and "
		        "kv_a_proj_with_mqa, or GGUF's attn_q and attn_k, attn_qkv, attn_q_b and "
		        "attn_kv_a_mqa) in every layer "
		        "0..N-1");
	if (st == PE_OK && n > 1 && n_layers) {
		size_t m = 0;
		for (size_t k = 0; k < n; k++)
			if (sets[k].layers == n_layers)
				m++;
		if (m > 0) {
			kept = 0;
			for (size_t k = 0; k < n; k++) {
				if (sets[k].layers == n_layers)
					sets[kept++] = sets[k];
				else
					us_found_free(&sets[k]);
			}
			n = kept;
		}
	}
	if (st == PE_OK && n > 1) {
		size_t m = 0;
		for (size_t k = 0; k < n; k++)
			m += !is_side_part(sets[k].prefix);
		if (m > 0) {
			kept = 0;
			for (size_t k = 0; k < n; k++) {
				if (!is_side_part(sets[k].prefix))
					sets[kept++] = sets[k];
				else
					us_found_free(&sets[k]);
			}
			n = kept;
		}
	}
	if (st == PE_OK && n > 1)
		st = rd_fail(err, PE_EFORMAT,
		             "two sets of attention layers fit: '%sN.%s' and '%sN.%s' (%zu and %zu "
		             "layers)",
		             sets[0].prefix, sets[0].module, sets[1].prefix, sets[1].module,
		             sets[0].layers, sets[1].layers);
	if (st == PE_OK) {
		*out = sets[0];
		for (size_t k = 1; k < n; k++)
			us_found_free(&sets[k]);
	} else {
		for (size_t k = 0; k < n; k++)
			us_found_free(&sets[k]);
	}
	free(sets);
	return st;
}
