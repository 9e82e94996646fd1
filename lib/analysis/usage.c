/*
 * RoPE frequency usage from a checkpoint's query and key weights: per
 * layer, query head and pair, the norm of the pair's two rows (usage.h).
 *
 * The row layouts follow transformers' modeling files: LlamaAttention
 * (q_proj rows [head 0 | head 1 | ...], k_proj likewise over key heads,
 * repeat_kv giving query head h the key head h // n_rep); Phi3Attention's
 * qkv_proj and QWenAttention's c_attn split as [q | k | v];
 * GPTNeoXAttention's query_key_value viewed as (heads, 3 * head_size)
 * (GPTNeoXJapaneseAttention the same, PersimmonAttention as (heads, 3,
 * head_dim), ChatGLM's SelfAttention without multi_query_attention as
 * (heads, 3 * head_dim)) and FalconAttention's new_decoder_architecture as
 * (kv_heads, n_rep + 2, head_dim), all "per key head, its query heads then
 * k then v"; ChatGLM's with multi_query_attention split [q | k | v] over
 * multi_query_group_num key heads; CodeGenAttention's qkv_proj cut into
 * mp_num = 4 blocks, each split [q | v | k] (in that order) over a quarter
 * of the heads;
 * DeepseekV3Attention's q_b_proj (q_proj without q_lora_rank) viewed as
 * (heads, qk_nope_head_dim + qk_rope_head_dim) with the rope part last,
 * and kv_a_proj_with_mqa's last qk_rope_head_dim rows as the one key head
 * of every query head. GGUF files as llama.cpp's graphs view them: the same
 * MLA rows under attn_q_b (attn_q) and attn_kv_a_mqa (deepseek2.cpp and the
 * graphs that share its views), and qwen3next.cpp's attn_q per head [query |
 * gate], as Qwen3NextAttention's q_proj.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/rope.h>
#include <posenc/scheme.h>
#include <posenc/usage.h>

#include "analysis/usage_internal.h"
#include "core/strutil.h"
#include "io/read_internal.h"
#include "io/read_json.h"
#include "io/tensor_store_internal.h"

#define TWO_PI 6.283185307179586476925

void pe_usage_pair_norms(const double *row_sq, const double *scale, size_t rotary, int interleaved,
                         double *out)
{
	size_t h = rotary / 2;
	for (size_t i = 0; i < h; i++) {
		size_t a = interleaved ? 2 * i : i, b = interleaved ? 2 * i + 1 : i + h;
		double sa = scale ? scale[a] * scale[a] : 1.0,
		       sb = scale ? scale[b] * scale[b] : 1.0;
		out[i] = sqrt(sa * row_sq[a] + sb * row_sq[b]);
	}
}

const char *pe_usage_arch_name(enum pe_usage_arch arch)
{
	switch (arch) {
	case PE_USAGE_SEPARATE:
		return "q_proj/k_proj";
	case PE_USAGE_CONCAT:
		return "fused qkv, rows [q | k | v]";
	case PE_USAGE_GROUPED:
		return "fused qkv, per key head [q... | k | v]";
	case PE_USAGE_MLA:
		return "DeepSeek MLA, rope part of q_b_proj and kv_a_proj_with_mqa (GGUF: attn_q_b "
		       "and attn_kv_a_mqa)";
	case PE_USAGE_CODEGEN:
		return "CodeGen qkv_proj, 4 blocks of [q | v | k]";
	}
	return "unknown";
}

void pe_usage_destroy(struct pe_usage *u)
{
	if (!u)
		return;
	for (size_t l = 0; u->layer && l < u->layers; l++) {
		free(u->layer[l].theta);
		free(u->layer[l].scaled);
		free(u->layer[l].q_name);
		free(u->layer[l].k_name);
	}
	free(u->layer);
	free(u->q);
	free(u->k);
	free(u->qk);
	free(u->prefix);
	free(u);
}

/* ---- config.json: the counts the model description does not carry ---- */

struct cfg {
	size_t heads, kv_heads;
	size_t nope, rope;      /* DeepSeek qk_nope_head_dim, qk_rope_head_dim */
	size_t kv_lora;         /* kv_lora_rank */
	size_t nextn;           /* num_nextn_predict_layers: MTP layers after the model's */
	int gemma;              /* norms scale by 1 + weight (Gemma, Qwen3-Next, Qwen 3.5) */
	int gated_q;            /* q_proj rows per head [q | output gate] (Qwen3-Next, Qwen 3.5) */
	int falcon_grouped;     /* falcon: new_decoder_architecture, or neither multi_query */
	int per_head;           /* query_key_value per head [q | k | v] */
	int codegen;            /* qkv_proj in CodeGen's 4 blocks */
	const char *model_type; /* borrowed from the JSON */
	const char *gguf_arch;  /* a GGUF's general.architecture (borrowed), else NULL */
};

static const struct json *key(const struct json *o, const char *k)
{
	if (!o || o->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->keys[i], k) == 0)
			return &o->items[i];
	return NULL;
}

/* A count at the top level or in text_config (multimodal configs). */
static int count_of(const struct json *root, const char *k, size_t *out)
{
	const struct json *v = key(root, k);
	if (!v || v->type == JSON_NULL)
		v = key(key(root, "text_config"), k);
	if (!v || v->type == JSON_NULL)
		return 0;
	if (!v->is_uint || v->uint > (1u << 30))
		return -1;
	*out = (size_t)v->uint;
	return 1;
}

/* A boolean key, or @dflt (the configuration class's default) when the file leaves it out. */
static int flag_of(const struct json *root, const char *k, int dflt)
{
	const struct json *v = key(root, k);
	if (!v)
		v = key(key(root, "text_config"), k);
	return v && v->type == JSON_BOOL ? v->boolean : dflt;
}

static enum pe_status read_cfg(const struct json *root, struct cfg *c, char **err)
{
	memset(c, 0, sizeof(*c));
	static const char *const names[][2] = {
	        {"num_attention_heads", "heads"},
	        {"n_head", "heads"},
	        {"n_heads", "heads"},
	        {"num_key_value_heads", "kv"},
	        {"num_kv_heads", "kv"},
	        {"qk_nope_head_dim", "nope"},
	        {"qk_rope_head_dim", "rope"},
	        {"kv_lora_rank", "kv_lora"},
	        {"num_nextn_predict_layers", "nextn"},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t v = 0;
		int rc = count_of(root, names[i][0], &v);
		if (rc < 0)
			return rd_fail(err, PE_EFORMAT, "config: %s is not a whole number",
			               names[i][0]);
		if (!rc)
			continue;
		size_t *dst = strcmp(names[i][1], "heads") == 0   ? &c->heads
		              : strcmp(names[i][1], "kv") == 0    ? &c->kv_heads
		              : strcmp(names[i][1], "nope") == 0  ? &c->nope
		              : strcmp(names[i][1], "rope") == 0  ? &c->rope
		              : strcmp(names[i][1], "nextn") == 0 ? &c->nextn
		                                                  : &c->kv_lora;
		if (!*dst)
			*dst = v;
	}
	const struct json *mt = key(root, "model_type");
	const struct json *tmt = key(key(root, "text_config"), "model_type");
	c->model_type = mt && mt->type == JSON_STRING ? mt->string : "";
	const char *text_type = tmt && tmt->type == JSON_STRING ? tmt->string : c->model_type;
	/* Gemma, Gemma 2 and Gemma 3's RMSNorm scale by 1 + weight (Gemma3RMSNorm);
	 * Gemma 3n's and Gemma 4's by the weight itself (Gemma4RMSNorm, with_scale). */
	static const char *const one_plus[] = {"gemma",           "gemma2",     "gemma3",
	                                       "gemma3_text",     "qwen3_next", "qwen3_5_text",
	                                       "qwen3_5_moe_text"};
	for (size_t i = 0; i < sizeof(one_plus) / sizeof(one_plus[0]); i++)
		c->gemma |= strcmp(text_type, one_plus[i]) == 0;
	/* Qwen3NextAttention (Qwen 3.5's the same): q_proj(x).view(..., -1, 2 * head_dim)
	 * chunked in two, the query then the gate of its output; Qwen3NextRMSNorm, its
	 * q_norm and k_norm, scales by 1 + weight */
	static const char *const gated[] = {"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"};
	for (size_t i = 0; i < sizeof(gated) / sizeof(gated[0]); i++)
		c->gated_q |= strcmp(text_type, gated[i]) == 0;
	/* The fused tensor per key head [its query heads | k | v]: GPTNeoXAttention,
	 * GPTNeoXJapaneseAttention and PersimmonAttention (Fuyu's text model) view
	 * query_key_value (heads, 3 * head_dim); Phi-3-small's (kv_heads, q_per_kv + 2,
	 * head_dim); InternLM2's wqkv is rearranged (h gs d) with gs = 2 + its groups */
	static const char *const per_head[] = {"gpt_neox", "gpt_neox_japanese", "persimmon",
	                                       "phi3small", "internlm2"};
	for (size_t i = 0; i < sizeof(per_head) / sizeof(per_head[0]); i++)
		c->per_head |= strcmp(text_type, per_head[i]) == 0;
	c->codegen = strcmp(text_type, "codegen") == 0;
	if (strcmp(text_type, "chatglm") == 0) {
		/* ChatGLMConfig: multi_query_attention False, multi_query_group_num 1 */
		if (flag_of(root, "multi_query_attention", 0)) {
			size_t g = 1;
			if (count_of(root, "multi_query_group_num", &g) < 0)
				return rd_fail(
				        err, PE_EFORMAT,
				        "config: multi_query_group_num is not a whole number");
			c->kv_heads = g;
		} else {
			c->per_head = 1;
			c->kv_heads = c->heads;
		}
	}
	if (strcmp(c->model_type, "dbrx") == 0 && !c->kv_heads) {
		/* DbrxAttentionConfig's kv_n_heads, 1 when left out */
		const struct json *v = key(key(root, "attn_config"), "kv_n_heads");
		if (v && (!v->is_uint || v->uint > (1u << 30)))
			return rd_fail(err, PE_EFORMAT,
			               "config: attn_config.kv_n_heads is not a whole number");
		c->kv_heads = v ? (size_t)v->uint : 1;
	}
	if (strcmp(c->model_type, "falcon") == 0) {
		/* FalconConfig: multi_query defaults to True */
		int multi = flag_of(root, "multi_query", 1);
		int newarch = flag_of(root, "new_decoder_architecture", 0);
		c->falcon_grouped = newarch || !multi;
		if (multi && !newarch)
			c->kv_heads = 1;
		else if (!newarch)
			c->kv_heads = c->heads;
	}
	return PE_OK;
}

/* A whole-number scalar key "<arch>.<suffix>": 1 with *out set, 0 when absent, -1 when not a
 * count, -2 out of memory. */
static int gguf_count(const struct gguf *g, const char *arch, const char *suffix, size_t *out)
{
	char *k = pe_asprintf("%s.%s", arch, suffix);
	if (!k)
		return -2;
	const struct gguf_kv *v = gguf_find(g, k);
	free(k);
	if (!v)
		return 0;
	if (v->type == GGUF_STRING || v->type == GGUF_ARRAY || !(v->num >= 0) ||
	    v->num > (1u << 30) || v->num != floor(v->num))
		return -1;
	*out = (size_t)v->num;
	return 1;
}

/*
 * MLA's widths from a GGUF's keys, as llama_model_deepseek2::load_arch_hparams and its
 * graph (src/models/deepseek2.cpp) take them: the rope part of a head is n_rot
 * (rope.dimension_count, which the converter writes from qk_rope_head_dim), a query
 * head n_embd_head_k_mla() wide (attention.key_length_mla, or attention.key_length in
 * files converted before MLA's key was written), its nope part first (q_pe is viewed at
 * offset n_embd_head_qk_nope), and kv_lora_rank (attention.kv_lora_rank) rows of
 * attn_kv_a_mqa before the rope part (k_pe at offset kv_lora_rank).
 */
static enum pe_status gguf_mla_cfg(const struct gguf *g, const char *arch, struct cfg *c,
                                   char **err)
{
	size_t rot = 0, head = 0, lora = 0;
	static const char *const keys[] = {"rope.dimension_count", "attention.key_length_mla",
	                                   "attention.key_length", "attention.kv_lora_rank"};
	size_t *dst[] = {&rot, &head, &head, &lora};
	for (size_t i = 0; i < 4; i++) {
		if (i == 2 && head)
			continue; /* key_length_mla wins */
		int rc = gguf_count(g, arch, keys[i], dst[i]);
		if (rc == -2)
			return rd_fail(err, PE_ENOMEM, "out of memory");
		if (rc < 0)
			return rd_fail(err, PE_EFORMAT, "GGUF: %s.%s is not a count", arch,
			               keys[i]);
	}
	if (!rot || !lora || head <= rot)
		return rd_fail(err, PE_EFORMAT,
		               "GGUF: %s's MLA tensors need %s.rope.dimension_count, "
		               "attention.kv_lora_rank and a query head (attention.key_length_mla "
		               "or key_length) wider than the rope part",
		               arch, arch);
	c->rope = rot;
	c->nope = head - rot;
	c->kv_lora = lora;
	return PE_OK;
}

/*
 * The GGUF architectures whose MLA tensors usage reads, each graph read for the same views
 * (q_pe at offset n_embd_head_k - n_rot of each query head, k_pe at offset kv_lora_rank
 * of attn_kv_a_mqa's output) and each converter for rows written unchanged: deepseek2
 * (deepseek2.cpp; conversion/deepseek.py), mistral4 (models.h: llama_model_mistral4 uses
 * llama_model_deepseek2's loader and graph; conversion/mistral3.py's Mistral4Model is a
 * DeepseekV2Model), plm (plm.cpp; conversion/plm.py maps names only) and minicpm3
 * (minicpm3.cpp; conversion/minicpm.py's MiniCPM3Model leaves the tensors as they are).
 * The others (deepseek32, glm-dsa, bailingmoe3, hy_v4, dots3note, ...) have graphs of their
 * own, not checked.
 */
static enum pe_status gguf_mla(const struct gguf *g, struct cfg *c, char **err)
{
	static const char *const archs[] = {"deepseek2", "mistral4", "plm", "minicpm3"};
	for (size_t i = 0; i < sizeof(archs) / sizeof(archs[0]); i++)
		if (strcmp(c->gguf_arch, archs[i]) == 0)
			return gguf_mla_cfg(g, c->gguf_arch, c, err);
	return rd_fail(err, PE_EUNSUPPORTED,
	               "GGUF: %s's MLA tensors (attn_kv_a_mqa) are not read: usage reads those "
	               "of deepseek2, mistral4, plm and minicpm3, whose graphs it follows",
	               c->gguf_arch);
}

/*
 * The counts of a GGUF file's own keys (llama.cpp's LLM_KV_ATTENTION_HEAD_COUNT and
 * _HEAD_COUNT_KV: "<arch>.attention.head_count[_kv]", a number or one per layer). Nothing
 * else of a config applies: the converter has already added Gemma's 1 to its norm weights
 * (conversion/gemma.py), so they scale as stored.
 */
static enum pe_status gguf_cfg(const struct gguf *g, struct cfg *c, char **err)
{
	memset(c, 0, sizeof(*c));
	c->model_type = "";
	const struct gguf_kv *arch = gguf_find(g, "general.architecture");
	if (!arch || arch->type != GGUF_STRING || !arch->str)
		return rd_fail(err, PE_EFORMAT, "GGUF: no general.architecture");
	static const char *const keys[] = {"head_count", "head_count_kv"};
	for (size_t i = 0; i < 2; i++) {
		char *k = pe_asprintf("%s.attention.%s", arch->str, keys[i]);
		if (!k)
			return rd_fail(err, PE_ENOMEM, "out of memory");
		const struct gguf_kv *v = gguf_find(g, k);
		size_t n = 0;
		int ok = 1;
		if (v && v->type == GGUF_ARRAY) {
			/* one per layer: a count only when every layer has it (else the shapes
			 * say, layer by layer) */
			for (uint64_t j = 0; v->arr && j < v->arr_n; j++)
				ok &= j == 0 || v->arr[j] == v->arr[0];
			if (v->arr && v->arr_n && ok && v->arr[0] >= 0 && v->arr[0] <= (1u << 30) &&
			    v->arr[0] == floor(v->arr[0]))
				n = (size_t)v->arr[0];
		} else if (v && v->type != GGUF_STRING) {
			ok = v->num >= 0 && v->num <= (1u << 30) && v->num == floor(v->num);
			n = ok ? (size_t)v->num : 0;
		}
		if (!ok && v && v->type != GGUF_ARRAY) {
			enum pe_status st = rd_fail(err, PE_EFORMAT, "GGUF: %s is not a count", k);
			free(k);
			return st;
		}
		free(k);
		*(i ? &c->kv_heads : &c->heads) = n;
	}
	/* qwen3next.cpp's build_layer_attn views attn_q's output (n_embd_head * 2, n_head):
	 * per head the query at offset 0, the gate of its output after it; the converter
	 * (conversion/qwen.py Qwen3NextModel) writes q_proj unchanged */
	c->gated_q = strcmp(arch->str, "qwen3next") == 0;
	c->gguf_arch = arch->str;
	return PE_OK;
}

/* ---- reading rows ---- */

struct reader {
	struct pe_tensor_store *s;
	uint64_t slice_bytes;
	double *buf; /* slice_bytes of float64 */
	size_t cap;  /* doubles */
};

/* A dtype the store converts; a GGUF's quantised blocks need ggml's tables, which posenc
 * does not carry. */
static enum pe_status readable(const struct reader *rd, const struct pe_tensor_info *t, char **err)
{
	if (pe_tensor_store_readable(t))
		return PE_OK;
	if (rd_tensor_store_gguf(rd->s))
		return rd_fail(err, PE_EUNSUPPORTED,
		               "tensor %s is %s; usage reads F32, F16, BF16 and F64 GGUF tensors",
		               t->name, t->dtype);
	return rd_fail(err, PE_EFORMAT,
	               "tensor '%s' has dtype %s; readable dtypes: F64, F32, F16, BF16", t->name,
	               t->dtype);
}

static enum pe_status tensor_2d(const struct reader *rd, const struct pe_tensor_info *t,
                                size_t *rows, size_t *cols, char **err)
{
	enum pe_status st = readable(rd, t, err);
	if (st != PE_OK)
		return st;
	if (t->ndim != 2 || t->shape[0] == 0 || t->shape[1] == 0 || t->shape[0] > SIZE_MAX / 16 ||
	    t->shape[1] > SIZE_MAX / 16)
		return rd_fail(err, PE_EFORMAT, "tensor '%s': expected a non-empty 2-D weight",
		               t->name);
	*rows = (size_t)t->shape[0];
	*cols = (size_t)t->shape[1];
	return PE_OK;
}

/*
 * Squared norms of rows [r0, r1) of a 2-D tensor into sq[r - r0], adding
 * to what sq holds, read a slice at a time.
 */
static enum pe_status rows_sq(struct reader *rd, const struct pe_tensor_info *t, size_t cols,
                              size_t r0, size_t r1, double *sq, char **err)
{
	uint64_t first = (uint64_t)r0 * cols, end = (uint64_t)r1 * cols;
	while (first < end) {
		size_t k = end - first < rd->cap ? (size_t)(end - first) : rd->cap;
		enum pe_status st = pe_tensor_store_read(rd->s, t, first, k, rd->buf, err);
		if (st != PE_OK)
			return st;
		for (size_t i = 0; i < k;) {
			uint64_t e = first + i;
			size_t row = (size_t)(e / cols), col = (size_t)(e % cols);
			size_t run = cols - col < k - i ? cols - col : k - i;
			double acc = 0;
			for (size_t j = 0; j < run; j++)
				acc += rd->buf[i + j] * rd->buf[i + j];
			if (!isfinite(acc))
				return rd_fail(
				        err, PE_EFORMAT,
				        "tensor '%s': row %zu holds a NaN or infinity, or its "
				        "squares overflow",
				        t->name, row);
			sq[row - r0] += acc;
			i += run;
		}
		first += k;
	}
	return PE_OK;
}

/* A 1-D vector (bias, norm weight) of exactly @n values, into out. */
static enum pe_status vector(struct reader *rd, const struct pe_tensor_info *t, size_t n,
                             double *out, char **err)
{
	enum pe_status rs = readable(rd, t, err);
	if (rs != PE_OK)
		return rs;
	if (t->ndim != 1 || t->shape[0] != n)
		return rd_fail(err, PE_EFORMAT, "tensor '%s': expected %zu values, shape has %llu",
		               t->name, n, t->ndim == 1 ? (unsigned long long)t->shape[0] : 0ull);
	enum pe_status st = pe_tensor_store_read(rd->s, t, 0, n, out, err);
	for (size_t i = 0; st == PE_OK && i < n; i++)
		if (!isfinite(out[i]))
			st = rd_fail(err, PE_EFORMAT, "tensor '%s': value [%zu] is %g, not finite",
			             t->name, i, out[i]);
	return st;
}

/* ---- one layer's pairing and frequencies, from its group's spec ---- */

static enum pe_status layer_freqs(const struct pe_model *m, size_t gi, size_t head_dim,
                                  struct pe_usage_layer *L, char **err)
{
	const struct pe_model_group *g = &m->groups[gi];
	L->band_lo = L->band_hi = NAN;
	if (!g->spec) {
		L->rope = 0;
		L->head_dim = head_dim;
		return PE_OK;
	}
	struct pe_scheme *s = NULL;
	char *e = NULL;
	enum pe_status st = pe_scheme_parse(g->spec, &s, &e);
	if (st != PE_OK) {
		st = rd_fail(err, st, "layer group '%s': %s", g->name, e ? e : pe_status_str(st));
		free(e);
		return st;
	}
	if (strcmp(pe_scheme_name(s), "nope") == 0) { /* Llama 4, SmolLM3: no RoPE here */
		pe_scheme_destroy(s);
		L->rope = 0;
		L->head_dim = head_dim;
		return PE_OK;
	}
	if (!pe_scheme_has(s, PE_CAP_SCALING)) {
		pe_scheme_destroy(s);
		return rd_fail(err, PE_EUNSUPPORTED,
		               "layer group '%s' is not RoPE (%s): its weights have no pairs",
		               g->name, g->spec);
	}
	size_t d = s->head ? s->head : head_dim;
	size_t d_rot = (size_t)((double)d * s->rotary);
	if (d_rot < 2 || d_rot % 2 || d_rot > d) {
		pe_scheme_destroy(s);
		return rd_fail(err, PE_EFORMAT, "layer group '%s': rotary width %zu of head %zu",
		               g->name, d_rot, d);
	}
	L->rope = 1;
	L->interleaved = s->layout == PE_LAYOUT_INTERLEAVED;
	L->head_dim = d;
	L->rotary = d_rot;
	L->pairs = d_rot / 2;
	L->theta = malloc(L->pairs * sizeof(double));
	L->scaled = malloc(L->pairs * sizeof(double));
	if (!L->theta || !L->scaled) {
		pe_scheme_destroy(s);
		return rd_fail(err, PE_ENOMEM, "out of memory");
	}
	struct pe_rope_scaling_params p = s->scaling;
	if (p.length == 0.0 && m->context > 0)
		p.length = m->context;
	struct pe_rope_scaling_info info;
	st = pe_rope_base_frequencies(s->base, d_rot, L->theta);
	if (st == PE_OK) {
		memcpy(L->scaled, L->theta, L->pairs * sizeof(double));
		st = pe_rope_scale_frequencies(&p, s->base, d_rot, L->scaled, &info);
	}
	if (st != PE_OK) {
		pe_scheme_destroy(s);
		return rd_fail(err, st, "layer group '%s': %s", g->name, pe_status_str(st));
	}
	size_t crit = 0;
	double train = m->train_context > 0 ? m->train_context : m->context;
	if (train > 0 && s->base > 1.0 &&
	    pe_rope_critical_dim(s->base, d_rot, train, &crit) == PE_OK) {
		L->has_critical = 1;
		L->critical = crit / 2;
	}
	if (p.type == PE_ROPE_SCALING_LLAMA3) {
		L->band_lo = p.original / p.high_freq_factor;
		L->band_hi = p.original / p.low_freq_factor;
	} else if (p.type == PE_ROPE_SCALING_YARN && isfinite(info.yarn_low) &&
	           isfinite(info.yarn_high)) {
		/* pairs at or below yarn_low keep theta, at or above yarn_high are divided */
		double lo = fmax(0.0, fmin(info.yarn_low, (double)(L->pairs - 1)));
		double hi = fmax(0.0, fmin(info.yarn_high, (double)(L->pairs - 1)));
		L->band_lo = TWO_PI / L->theta[(size_t)lo];
		L->band_hi = TWO_PI / L->theta[(size_t)hi];
	}
	pe_scheme_destroy(s);
	return PE_OK;
}

static size_t group_of(const struct pe_model *m, size_t layer)
{
	for (size_t g = 0; g < m->n_groups; g++)
		for (size_t k = 0; k < m->groups[g].n_layers; k++)
			if (m->groups[g].layers[k] == layer)
				return g;
	return m->n_groups == 1 ? 0 : SIZE_MAX;
}

/* ---- the computation ---- */

/* CodeGenAttention's mp_num: the TPU-v4 cores its qkv_proj was laid out for */
#define CODEGEN_BLOCKS 4

/* How a fused tensor's rows are laid out, by the architecture that wrote it. */
static enum pe_usage_arch fused_arch(const struct cfg *c, const struct pe_tensor_info *t)
{
	const char *name = t ? t->name : "";
	if (c->codegen && strstr(name, "qkv_proj"))
		return PE_USAGE_CODEGEN;
	if ((c->per_head || c->falcon_grouped) &&
	    (strstr(name, "query_key_value") || strstr(name, ".wqkv.")))
		return PE_USAGE_GROUPED;
	return PE_USAGE_CONCAT;
}

struct ctx {
	const struct pe_usage_options *opt;
	struct reader rd;
	struct cfg cfg;
	struct us_found found;
	struct pe_usage *u;
	uint64_t *count; /* not NULL: count the weight values to read, read none */
};

/* Where query head h's coordinate j and key head g's coordinate j lie. */
struct rowmap {
	size_t q_base, q_stride; /* q row of (h, j): q_base + h * q_stride + j (SEPARATE, MLA) */
	size_t k_base, k_stride;
	size_t group_rows; /* GROUPED: rows per key head block */
	size_t rep;        /* query heads per key head */
	size_t block;      /* CODEGEN: heads per block */
	enum pe_usage_arch arch;
	size_t hd; /* head width (position part) */
};

static size_t q_row(const struct rowmap *r, size_t h, size_t j)
{
	if (r->arch == PE_USAGE_CODEGEN)
		return (h / r->block) * 3 * r->block * r->hd + (h % r->block) * r->hd + j;
	if (r->arch == PE_USAGE_GROUPED)
		return (h / r->rep) * r->group_rows + (h % r->rep) * r->hd + j;
	return r->q_base + h * r->q_stride + j;
}

static size_t k_row(const struct rowmap *r, size_t g, size_t j)
{
	if (r->arch == PE_USAGE_CODEGEN) /* the block's k follows its q and v */
		return (g / r->block) * 3 * r->block * r->hd + 2 * r->block * r->hd +
		       (g % r->block) * r->hd + j;
	if (r->arch == PE_USAGE_GROUPED)
		return g * r->group_rows + r->rep * r->hd + j;
	return r->k_base + g * r->k_stride + j;
}

/*
 * Squared norms of the rows @want marks (rows of tensor t), runs of marked
 * rows read together; unmarked rows are never read (V, DeepSeek's nope part).
 */
static enum pe_status marked_rows_sq(struct reader *rd, const struct pe_tensor_info *t, size_t rows,
                                     size_t cols, const unsigned char *want, double *sq, char **err)
{
	for (size_t r = 0; r < rows;) {
		if (!want[r]) {
			r++;
			continue;
		}
		size_t e = r;
		while (e < rows && want[e])
			e++;
		enum pe_status st = rows_sq(rd, t, cols, r, e, sq + r, err);
		if (st != PE_OK)
			return st;
		r = e;
	}
	return PE_OK;
}

/* The norm weights of a head's coordinates: per head (head_dim) or per row (all heads). */
static enum pe_status norm_scale(struct ctx *c, const struct pe_tensor_info *t, size_t hd,
                                 size_t heads, double **out, size_t *per_row, char **err)
{
	*out = NULL;
	if (!t)
		return PE_OK;
	size_t n = t->ndim == 1 ? (size_t)t->shape[0] : 0;
	if (n != hd && n != hd * heads)
		return rd_fail(err, PE_EFORMAT,
		               "tensor '%s': %zu values, neither the head width %zu nor %zu heads "
		               "x %zu",
		               t->name, n, hd, heads, hd);
	double *w = malloc(n * sizeof(double));
	if (!w)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	enum pe_status st = vector(&c->rd, t, n, w, err);
	if (st != PE_OK) {
		free(w);
		return st;
	}
	for (size_t i = 0; i < n; i++)
		w[i] = c->cfg.gemma ? 1.0 + w[i] : w[i];
	*per_row = n != hd;
	*out = w;
	return PE_OK;
}

static enum pe_status compute_layer(struct ctx *c, const struct pe_model *m, size_t l, char **err)
{
	struct pe_usage *u = c->u;
	struct pe_usage_layer *L = &u->layer[l];
	const struct us_layer *T = &c->found.layer[l];
	const struct cfg *cf = &c->cfg;
	size_t gi = group_of(m, l);
	if (gi == SIZE_MAX)
		return rd_fail(err, PE_EFORMAT, "layer %zu is in no layer group of the config", l);
	L->group = gi;
	size_t hd0 = m->head_dim;
	enum pe_status st = layer_freqs(m, gi, hd0, L, err);
	if (st != PE_OK)
		return st;
	size_t hd = L->head_dim;
	struct rowmap r = {0};
	r.hd = hd;
	r.arch = u->arch;
	size_t q_rows = 0, q_cols = 0, k_rows = 0, k_cols = 0;
	const struct pe_tensor_info *qt =
	        u->arch == PE_USAGE_SEPARATE || u->arch == PE_USAGE_MLA ? T->t[US_Q] : T->t[US_QKV];
	const struct pe_tensor_info *kt = qt == T->t[US_QKV] ? NULL : T->t[US_K];
	/* A hybrid model's layer without RoPE and without attention tensors (linear attention,
	 * a state-space block, Mllama's cross-attention): nothing to read. */
	if (!L->rope && !T->t[US_Q] && !T->t[US_K] && !T->t[US_QKV])
		return PE_OK;
	/* Every layer as layer 0: a checkpoint mixing fused and separate projections is not one
	 * layout. */
	if (!qt || (qt != T->t[US_QKV] && !kt))
		return rd_fail(err, PE_EFORMAT,
		               "layer %zu has not the tensors of layer 0 (%s): a mixed checkpoint",
		               l, pe_usage_arch_name(u->arch));
	if ((st = tensor_2d(&c->rd, qt, &q_rows, &q_cols, err)) != PE_OK)
		return st;
	if (kt && (st = tensor_2d(&c->rd, kt, &k_rows, &k_cols, err)) != PE_OK)
		return st;
	size_t heads = c->opt->heads ? c->opt->heads : cf->heads;
	size_t kv = c->opt->kv_heads ? c->opt->kv_heads : cf->kv_heads;
	size_t qper = cf->gated_q ? 2 : 1; /* q_proj rows per query coordinate */
	switch (u->arch) {
	case PE_USAGE_SEPARATE:
		/* Counts from the shapes: Gemma 4's global layers have their own. */
		if (q_rows % (qper * hd) || k_rows % hd)
			return rd_fail(
			        err, PE_EFORMAT,
			        "layer %zu: '%s' has %zu rows and '%s' %zu, not whole heads of "
			        "%zu%s",
			        l, qt->name, q_rows, kt->name, k_rows, hd,
			        qper > 1 ? " (q_proj: each with its gate)" : "");
		/* q and k project the same hidden state: different widths are not one layer's */
		if (q_cols != k_cols)
			return rd_fail(err, PE_EFORMAT,
			               "layer %zu: '%s' has %zu columns and '%s' %zu: not the same "
			               "input",
			               l, qt->name, q_cols, kt->name, k_cols);
		L->heads = q_rows / (qper * hd);
		L->kv_heads = k_rows / hd;
		if (heads && L->heads != heads)
			return rd_fail(err, PE_EFORMAT,
			               "layer %zu: '%s' has %zu rows, %zu heads of %zu, the config "
			               "says %zu heads",
			               l, qt->name, q_rows, L->heads, qper * hd, heads);
		r.q_stride = qper * hd;
		r.k_stride = hd;
		break;
	case PE_USAGE_MLA:
		if (!cf->rope || !cf->kv_lora || !heads)
			return rd_fail(err, PE_EFORMAT,
			               "config: DeepSeek's MLA tensors need num_attention_heads, "
			               "qk_rope_head_dim and kv_lora_rank");
		/* the rope part is rotated whole: hf: describes it as the head, a GGUF as the
		 * rotary width n_rot of a kv_lora_rank + n_rot head */
		if (cf->rope != L->rotary)
			return rd_fail(err, PE_EFORMAT,
			               "%s: qk_rope_head_dim %zu, but the rotary width is %zu",
			               cf->gguf_arch ? "GGUF" : "config", cf->rope, L->rotary);
		if (q_rows != heads * (cf->nope + cf->rope))
			return rd_fail(err, PE_EFORMAT,
			               "layer %zu: '%s' has %zu rows, not %zu heads x (%zu + %zu)",
			               l, qt->name, q_rows, heads, cf->nope, cf->rope);
		if (k_rows != cf->kv_lora + cf->rope)
			return rd_fail(err, PE_EFORMAT,
			               "layer %zu: '%s' has %zu rows, not kv_lora_rank %zu + "
			               "qk_rope_head_dim %zu",
			               l, kt->name, k_rows, cf->kv_lora, cf->rope);
		L->heads = heads;
		L->kv_heads = 1;
		r.q_base = cf->nope;
		r.q_stride = cf->nope + cf->rope;
		r.k_base = cf->kv_lora;
		r.k_stride = 0;
		break;
	case PE_USAGE_CONCAT:
	case PE_USAGE_GROUPED:
	case PE_USAGE_CODEGEN:
		if (!heads)
			return rd_fail(err, PE_EFORMAT,
			               "config: a fused qkv tensor needs num_attention_heads");
		if (!kv || u->arch == PE_USAGE_CODEGEN) /* CodeGen: every head has its key */
			kv = heads;
		if (u->arch == PE_USAGE_CODEGEN && heads % CODEGEN_BLOCKS)
			return rd_fail(
			        err, PE_EFORMAT,
			        "config: CodeGen's qkv_proj holds %d blocks of heads, which %zu "
			        "heads do not fill evenly",
			        CODEGEN_BLOCKS, heads);
		r.block = heads / CODEGEN_BLOCKS;
		if (q_rows != (heads + 2 * kv) * hd)
			return rd_fail(err, PE_EFORMAT,
			               "layer %zu: '%s' has %zu rows, not (%zu heads + 2 x %zu key "
			               "heads) x %zu",
			               l, qt->name, q_rows, heads, kv, hd);
		L->heads = heads;
		L->kv_heads = kv;
		r.q_stride = r.k_stride = hd;
		r.k_base = heads * hd;
		break;
	}
	if (!L->kv_heads || L->heads % L->kv_heads)
		return rd_fail(err, PE_EFORMAT, "layer %zu: %zu query heads on %zu key heads", l,
		               L->heads, L->kv_heads);
	if (L->heads > u->heads)
		return rd_fail(err, PE_EFORMAT, "layer %zu has %zu query heads, layer 0 %zu", l,
		               L->heads, u->heads);
	r.rep = L->heads / L->kv_heads;
	r.group_rows = (r.rep + 2) * hd;
	L->q_name = pe_strdup(qt->name);
	L->k_name = pe_strdup(kt ? kt->name : qt->name);
	if (!L->q_name || !L->k_name)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	if (!L->rope)
		return PE_OK;
	/* Which rows hold pairs; only those are read. */
	unsigned char *qwant = calloc(q_rows, 1), *kwant = kt ? calloc(k_rows, 1) : NULL;
	double *qsq = calloc(q_rows, sizeof(double)),
	       *ksq = kt ? calloc(k_rows, sizeof(double)) : NULL;
	double *qn = NULL, *kn = NULL, *bias = NULL, *hq = malloc(2 * hd * sizeof(double)),
	       *pq = malloc(L->pairs * sizeof(double)), *pk = malloc(L->pairs * sizeof(double));
	size_t qn_row = 0, kn_row = 0;
	unsigned char *kw = kt ? kwant : qwant;
	double *ksqp = kt ? ksq : qsq;
	if (!qwant || !qsq || (kt && (!kwant || !ksq)) || !hq || !pq || !pk) {
		st = rd_fail(err, PE_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t h = 0; h < L->heads; h++)
		for (size_t j = 0; j < L->rotary; j++)
			qwant[q_row(&r, h, j)] = 1;
	for (size_t g = 0; g < L->kv_heads; g++)
		for (size_t j = 0; j < L->rotary; j++)
			kw[k_row(&r, g, j)] = 1;
	if (c->count) {
		/* the marked rows' values; biases and norm weights are a row's worth at most */
		for (size_t i = 0; i < q_rows; i++)
			*c->count += qwant[i] ? (uint64_t)q_cols + 1 : 0;
		for (size_t i = 0; kt && i < k_rows; i++)
			*c->count += kwant[i] ? (uint64_t)k_cols + 1 : 0;
		goto done;
	}
	if ((st = marked_rows_sq(&c->rd, qt, q_rows, q_cols, qwant, qsq, err)) != PE_OK)
		goto done;
	if (kt && (st = marked_rows_sq(&c->rd, kt, k_rows, k_cols, kwant, ksq, err)) != PE_OK)
		goto done;
	/* Biases: each row's input gains a constant-1 column. */
	const struct pe_tensor_info *qb = kt ? T->t[US_QB] : T->t[US_QKVB];
	const struct pe_tensor_info *kb = kt ? T->t[US_KB] : NULL;
	if (qb || kb)
		u->has_bias = 1;
	if (c->opt->fold_bias && (qb || kb)) {
		u->bias_folded = 1;
		size_t nmax = q_rows > k_rows ? q_rows : k_rows;
		if (!(bias = malloc(nmax * sizeof(double)))) {
			st = rd_fail(err, PE_ENOMEM, "out of memory");
			goto done;
		}
		if (qb) {
			if ((st = vector(&c->rd, qb, q_rows, bias, err)) != PE_OK)
				goto done;
			for (size_t i = 0; i < q_rows; i++)
				qsq[i] += qwant[i] ? bias[i] * bias[i] : 0.0;
		}
		if (kb) {
			if ((st = vector(&c->rd, kb, k_rows, bias, err)) != PE_OK)
				goto done;
			for (size_t i = 0; i < k_rows; i++)
				ksq[i] += kwant[i] ? bias[i] * bias[i] : 0.0;
		}
	}
	if ((st = norm_scale(c, T->t[US_QNORM], hd, L->heads, &qn, &qn_row, err)) != PE_OK ||
	    (st = norm_scale(c, T->t[US_KNORM], hd, L->kv_heads, &kn, &kn_row, err)) != PE_OK)
		goto done;
	if (qn || kn)
		u->norm = c->cfg.gemma ? PE_USAGE_NORM_ONE_PLUS : PE_USAGE_NORM_WEIGHT;
	if (T->t[US_QLN] || T->t[US_KLN])
		u->layernorm_skipped = 1;
	for (size_t h = 0; h < L->heads; h++) {
		size_t g = h / r.rep;
		for (size_t j = 0; j < L->rotary; j++) {
			hq[j] = qsq[q_row(&r, h, j)];
			hq[hd + j] = ksqp[k_row(&r, g, j)];
		}
		pe_usage_pair_norms(hq, qn ? qn + (qn_row ? h * hd : 0) : NULL, L->rotary,
		                    L->interleaved, pq);
		pe_usage_pair_norms(hq + hd, kn ? kn + (kn_row ? g * hd : 0) : NULL, L->rotary,
		                    L->interleaved, pk);
		size_t at = (l * u->heads + h) * u->pairs;
		for (size_t i = 0; i < L->pairs; i++) {
			u->q[at + i] = pq[i];
			u->k[at + i] = pk[i];
			u->qk[at + i] = pq[i] * pk[i];
		}
	}
done:
	free(qwant);
	free(kwant);
	free(qsq);
	free(ksq);
	free(qn);
	free(kn);
	free(bias);
	free(hq);
	free(pq);
	free(pk);
	return st;
}

/* The pairs and heads the result arrays need: the largest of any layer. */
static enum pe_status sizes(struct ctx *c, const struct pe_model *m, char **err)
{
	struct pe_usage *u = c->u;
	for (size_t l = 0; l < u->layers; l++) {
		size_t gi = group_of(m, l);
		if (gi == SIZE_MAX)
			return rd_fail(err, PE_EFORMAT,
			               "layer %zu is in no layer group of the config", l);
		struct pe_usage_layer tmp = {0};
		enum pe_status st = layer_freqs(m, gi, m->head_dim, &tmp, err);
		free(tmp.theta);
		free(tmp.scaled);
		if (st != PE_OK)
			return st;
		if (tmp.pairs > u->pairs)
			u->pairs = tmp.pairs;
		/* heads: from layer 0's shape, or the config's for fused tensors */
		const struct us_layer *T = &c->found.layer[l];
		size_t heads = c->opt->heads ? c->opt->heads : c->cfg.heads;
		if (u->arch == PE_USAGE_SEPARATE && T->t[US_Q] && T->t[US_Q]->ndim == 2 &&
		    tmp.head_dim)
			heads = (size_t)(T->t[US_Q]->shape[0] / tmp.head_dim /
			                 (c->cfg.gated_q ? 2 : 1));
		if (heads > u->heads)
			u->heads = heads;
	}
	if (!u->heads)
		return rd_fail(err, PE_EFORMAT,
		               "config: num_attention_heads is missing, which the %s layout needs "
		               "(its rows do not say how many heads they hold)",
		               u->arch == PE_USAGE_MLA ? "DeepSeek MLA" : "fused qkv");
	if (!u->pairs)
		return rd_fail(err, PE_EUNSUPPORTED, "no layer has RoPE pairs");
	return PE_OK;
}

/*
 * The model's layers in the checkpoint; those without RoPE may lack attention tensors.
 * @side_fused: a fused attn_qkv in a layer without RoPE is not attention's (Qwen3-Next's
 * Gated DeltaNet layers: conversion/qwen.py writes in_proj_qkvz's q, k, v as attn_qkv),
 * and is left aside.
 */
static enum pe_status find_layers(const struct pe_tensor_store *store, const struct pe_model *m,
                                  int side_fused, struct us_found *found, char **err)
{
	unsigned char *optional = m->n_layers ? calloc(m->n_layers, 1) : NULL;
	if (m->n_layers && !optional)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	for (size_t l = 0; l < m->n_layers; l++) {
		size_t gi = group_of(m, l);
		struct pe_usage_layer tmp = {0};
		/* a group that does not parse is reported when its layer is computed */
		if (gi != SIZE_MAX && layer_freqs(m, gi, m->head_dim, &tmp, NULL) == PE_OK)
			optional[l] = !tmp.rope;
		free(tmp.theta);
		free(tmp.scaled);
	}
	enum pe_status st = us_find(store, m->n_layers, optional, found, err);
	if (st == PE_OK && side_fused) {
		found->fused = 0;
		for (size_t l = 0; l < found->layers; l++) {
			struct us_layer *T = &found->layer[l];
			if (l < m->n_layers && optional[l])
				T->t[US_QKV] = T->t[US_QKVB] = NULL;
			found->fused |= T->t[US_QKV] != NULL;
		}
	}
	free(optional);
	return st;
}

/* pe_usage_compute(), or with @count the values it would read (nothing read, *out NULL). */
static enum pe_status usage_run(struct pe_tensor_store *store, const char *config,
                                size_t config_len, const struct pe_model *m,
                                const struct pe_usage_options *opt, struct pe_usage **out,
                                uint64_t *count, char **err)
{
	if (err)
		*err = NULL;
	*out = NULL;
	struct pe_usage_options defaults = {0};
	struct ctx c = {0};
	c.opt = opt ? opt : &defaults;
	c.count = count;
	if (!m || !m->n_groups || !m->head_dim)
		return rd_fail(err, PE_EINVAL, "the model has no layer groups or head width");
	/* A GGUF's rows are as its converter wrote them (llama's permuted for ggml's NORM
	 * rope), paired as its own metadata says: an HF config would pair them wrongly. */
	const struct gguf *g = rd_tensor_store_gguf(store);
	if (g && config)
		return rd_fail(err, PE_EUNSUPPORTED,
		               "GGUF weights are paired as the GGUF's own metadata says: read its "
		               "config from the same file (gguf:), not config.json");
	if (!g && !config)
		return rd_fail(err, PE_EINVAL,
		               "safetensors weights need their config.json (a GGUF's metadata "
		               "describes only its own tensors)");
	struct json *root = NULL;
	enum pe_status st = PE_OK;
	if (g) {
		st = gguf_cfg(g, &c.cfg, err);
	} else {
		char *jerr = NULL;
		root = json_parse(config, config_len, &jerr);
		if (!root) {
			st = rd_fail(err, PE_EFORMAT, "config: %s", jerr ? jerr : "malformed");
			free(jerr);
			return st;
		}
		st = read_cfg(root, &c.cfg, err);
	}
	if (st == PE_OK)
		st = find_layers(store, m, g && c.cfg.gated_q, &c.found, err);
	/* The multi-token-prediction layers DeepSeek-V3 and GLM-4.5 store after the model's own
	 * (model.layers.<num_hidden_layers>...): transformers leaves them out when it loads
	 * (_keys_to_ignore_on_load_unexpected), and so does this. */
	if (st == PE_OK && m->n_layers && c.found.layers > m->n_layers &&
	    c.found.layers <= m->n_layers + c.cfg.nextn)
		c.found.layers = m->n_layers;
	if (st == PE_OK && m->n_layers && c.found.layers != m->n_layers)
		st = rd_fail(err, PE_EFORMAT,
		             "the checkpoint has layers 0..%zu under '%s', the config %zu layers",
		             c.found.layers - 1, c.found.prefix, m->n_layers);
	if (st == PE_OK && !(c.u = calloc(1, sizeof(*c.u))))
		st = rd_fail(err, PE_ENOMEM, "out of memory");
	struct pe_usage *u = c.u;
	if (st == PE_OK) {
		u->layers = c.found.layers;
		u->context = m->context;
		u->train_context = m->train_context;
		u->prefix = pe_asprintf("%sN%s%s", c.found.prefix, *c.found.module ? "." : "",
		                        c.found.module);
		size_t first =
		        0; /* the first layer with attention tensors (us_find: there is one) */
		while (first + 1 < c.found.layers && !c.found.layer[first].t[US_Q] &&
		       !c.found.layer[first].t[US_QKV])
			first++;
		u->arch = c.found.mla      ? PE_USAGE_MLA
		          : !c.found.fused ? PE_USAGE_SEPARATE
		                           : fused_arch(&c.cfg, c.found.layer[first].t[US_QKV]);
		if (c.found.fused && c.found.layer[first].t[US_Q])
			u->arch = PE_USAGE_SEPARATE; /* both kinds: q_proj and k_proj win */
		if (g && u->arch == PE_USAGE_MLA)
			st = gguf_mla(g, &c.cfg, err);
		/* qwen3next.cpp's fused attn_qkv holds [q and gate per head | k | v], a layout
		 * of its own */
		if (st == PE_OK && g && c.cfg.gated_q && u->arch != PE_USAGE_SEPARATE)
			st = rd_fail(
			        err, PE_EUNSUPPORTED,
			        "GGUF: %s's gated query in a fused attn_qkv is not read (usage "
			        "reads its separate attn_q and attn_k)",
			        c.cfg.gguf_arch);
		u->layer = calloc(u->layers, sizeof(*u->layer));
		if (!u->prefix || !u->layer)
			st = rd_fail(err, PE_ENOMEM, "out of memory");
	}
	if (st == PE_OK)
		st = sizes(&c, m, err);
	if (st == PE_OK) {
		size_t n = u->layers * u->heads * u->pairs;
		u->q = malloc(n * sizeof(double));
		u->k = malloc(n * sizeof(double));
		u->qk = malloc(n * sizeof(double));
		uint64_t sb = c.opt->slice_bytes ? c.opt->slice_bytes : (uint64_t)16 << 20;
		c.rd.s = store;
		c.rd.cap = (size_t)(sb / sizeof(double)) ? (size_t)(sb / sizeof(double)) : 1;
		c.rd.buf = malloc(c.rd.cap * sizeof(double));
		if (!u->q || !u->k || !u->qk || !c.rd.buf)
			st = rd_fail(err, PE_ENOMEM, "out of memory");
		for (size_t i = 0; st == PE_OK && i < n; i++)
			u->q[i] = u->k[i] = u->qk[i] = NAN;
	}
	for (size_t l = 0; st == PE_OK && l < u->layers; l++)
		st = compute_layer(&c, m, l, err);
	free(c.rd.buf);
	us_found_free(&c.found);
	json_free(root);
	if (st != PE_OK || count) {
		pe_usage_destroy(u);
		return st;
	}
	*out = u;
	return PE_OK;
}

enum pe_status pe_usage_compute(struct pe_tensor_store *store, const char *config,
                                size_t config_len, const struct pe_model *m,
                                const struct pe_usage_options *opt, struct pe_usage **out,
                                char **err)
{
	return usage_run(store, config, config_len, m, opt, out, NULL, err);
}

enum pe_status pe_usage_values(struct pe_tensor_store *store, const char *config, size_t config_len,
                               const struct pe_model *m, const struct pe_usage_options *opt,
                               uint64_t *values, char **err)
{
	*values = 0;
	struct pe_usage *u = NULL;
	return usage_run(store, config, config_len, m, opt, &u, values, err);
}

enum pe_status pe_usage_fold_activations(const struct pe_usage *u, const double *in, size_t layers,
                                         size_t heads, size_t width, double **out, char **err)
{
	if (err)
		*err = NULL;
	*out = NULL;
	/* Query heads, or the key heads of every RoPE layer (a statistic of k). */
	size_t max_hd = 0, kv = SIZE_MAX;
	int all_rotary = 1;
	for (size_t l = 0; l < u->layers; l++) {
		const struct pe_usage_layer *L = &u->layer[l];
		if (!L->rope)
			continue;
		max_hd = L->head_dim > max_hd ? L->head_dim : max_hd;
		kv = kv == SIZE_MAX || kv == L->kv_heads ? L->kv_heads : 0;
		all_rotary &= L->rotary == width;
	}
	int key_side = heads != u->heads && heads == kv;
	if (layers != u->layers || (heads != u->heads && !key_side))
		return rd_fail(err, PE_ERANGE,
		               "%zu layers x %zu heads, the checkpoint has %zu layers of %zu query "
		               "heads%s",
		               layers, heads, u->layers, u->heads,
		               kv && kv != SIZE_MAX && kv != u->heads ? " (or key heads)" : "");
	/* Per coordinate: the widest head (narrower layers use their first coordinates),
	 * or every layer's rotary width; else per pair. */
	int per_pair = 0;
	if (width != max_hd && !all_rotary) {
		if (width != u->pairs)
			return rd_fail(err, PE_ERANGE,
			               "width %zu is neither the head width %zu nor the %zu pairs",
			               width, max_hd, u->pairs);
		per_pair = 1;
	}
	size_t n = u->layers * u->heads * u->pairs;
	double *o = malloc((n ? n : 1) * sizeof(double));
	double *sq = malloc((width ? width : 1) * sizeof(double));
	if (!o || !sq) {
		free(o);
		free(sq);
		return rd_fail(err, PE_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		o[i] = NAN;
	for (size_t l = 0; l < layers; l++) {
		const struct pe_usage_layer *L = &u->layer[l];
		if (!L->rope)
			continue;
		for (size_t h = 0; h < L->heads; h++) {
			size_t src = key_side ? h / (L->heads / L->kv_heads) : h;
			const double *row = in + (l * heads + src) * width;
			double *dst = o + (l * u->heads + h) * u->pairs;
			if (per_pair) {
				memcpy(dst, row, L->pairs * sizeof(double));
				continue;
			}
			for (size_t j = 0; j < L->rotary; j++)
				sq[j] = row[j] * row[j];
			pe_usage_pair_norms(sq, NULL, L->rotary, L->interleaved, dst);
		}
	}
	free(sq);
	*out = o;
	return PE_OK;
}
