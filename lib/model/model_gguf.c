/*
 * A GGUF file's metadata as a model description.
 *
 * Keys follow ggml's GGUF specification and llama.cpp's names
 * ({arch}.rope.freq_base, .rope.dimension_count, .rope.scaling.*, ...).
 * GGUF does not say how rotary pairs are laid out; llama.cpp decides by
 * architecture (llama_model_rope_type in llama-model.cpp), and so does the
 * table below (SmolLM3 is NORM there: its converter permutes q/k as for
 * LLaMA), with the NoPE layer step its loader hard-codes: "norm"
 * there is our interleaved (pairs 2i, 2i+1; llama.cpp's converter permutes
 * HF LLaMA weights back to Meta's order), "neox" our half. doc/models.md
 * states the mapping.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/model.h>

#include "core/strutil.h"
#include "model/model_internal.h"
#include "io/read_gguf.h"

/* What llama.cpp's graph for an architecture does beyond its rope type. */
enum {
	/* RoPE only in sliding-window layers (cohere2.cpp: ggml_rope_ext under is_swa;
	 * exaone4.cpp: is_swa or no SWA at all) */
	GG_ROPE_SWA_ONLY = 1u << 0,
	/* sliding layers only with attention.sliding_window present and > 0 (gemma3.cpp;
	 * otherwise swa_type NONE) */
	GG_SWA_NEEDS_WINDOW = 1u << 1,
	/* reads rope.scaling.yarn_beta_fast/slow (grok.cpp, mistral3.cpp; the others run
	 * with llama.cpp's defaults 32 and 1 whatever the file says) */
	GG_YARN_BETAS = 1u << 2,
	/* reads rope.scaling.yarn_log_multiplier (deepseek2.cpp, deepseek32.cpp,
	 * glm-dsa.cpp, mistral3.cpp) */
	GG_YARN_LOG_MUL = 1u << 3,
	/* llama.cpp's graph has no positional encoding for it (rope type NONE) */
	GG_NO_ROPE = 1u << 4,
	/* the file's yarn_log_multiplier is 0.1 x mscale_all_dim, which the loader divides
	 * by 0.1 again (deepseek2.cpp, deepseek32.cpp: TAG_DEEPSEEK2_YARN_LOG_MUL_FIX) */
	GG_LOG_MUL_TENTHS = 1u << 5,
	/* rope.scaling.finetuned false switches RoPE off (granite.cpp) */
	GG_FINETUNED_SWITCH = 1u << 6,
};

struct gguf_arch {
	const char *name;
	const char *layout;   /* NULL: ALiBi, or with GG_NO_ROPE: none */
	unsigned swa_pattern; /* every swa_pattern-th layer global; 0: none */
	/* llama.cpp's hparams.n_no_rope_layer_step, hard-coded per architecture in its loader
	 * (no GGUF key): layer il rotates only if (il + 1) % step != 0; 0: every layer rotates */
	unsigned nope_step;
	unsigned flags;
	const char *why; /* GG_NO_ROPE: what the model has instead */
};

static const struct gguf_arch gguf_archs[] = {
        {"llama", "interleaved", 0, 0, 0, NULL},
        {"llama4", "interleaved", 0, 4, 0, NULL},
        {"deci", "interleaved", 0, 0, 0, NULL},
        {"baichuan", "interleaved", 0, 0, 0, NULL},
        {"internlm2", "interleaved", 0, 0, 0, NULL},
        {"minicpm", "interleaved", 0, 0, 0, NULL},
        {"xverse", "interleaved", 0, 0, 0, NULL},
        {"command-r", "interleaved", 0, 0, 0, NULL},
        {"cohere2", "interleaved", 4, 0, GG_ROPE_SWA_ONLY, NULL},
        {"olmo", "interleaved", 0, 0, 0, NULL},
        {"deepseek", "interleaved", 0, 0, 0, NULL},
        {"deepseek2", "interleaved", 0, 0, GG_YARN_LOG_MUL | GG_LOG_MUL_TENTHS, NULL},
        {"deepseek32", "interleaved", 0, 0, GG_YARN_LOG_MUL | GG_LOG_MUL_TENTHS, NULL},
        {"glm-dsa", "interleaved", 0, 0, 0, NULL},
        {"granite", "interleaved", 0, 0, GG_FINETUNED_SWITCH, NULL},
        {"granitemoe", "interleaved", 0, 0, 0, NULL},
        {"chatglm", "interleaved", 0, 0, 0, NULL},
        /* NORM, or M-RoPE (pairs i, i + n/2) when rope.dimension_sections is given */
        {"glm4", "interleaved", 0, 0, 0, NULL},
        {"arcee", "interleaved", 0, 0, 0, NULL},
        {"bailingmoe", "interleaved", 0, 0, 0, NULL},
        {"ernie4_5", "interleaved", 0, 0, 0, NULL},
        {"ernie4_5-moe", "interleaved", 0, 0, 0, NULL},
        {"mistral3", "interleaved", 0, 0, GG_YARN_BETAS | GG_YARN_LOG_MUL, NULL},
        {"smollm3", "interleaved", 0, 4, 0, NULL},
        {"falcon", "half", 0, 0, 0, NULL},
        {"grok", "half", 0, 0, GG_YARN_BETAS, NULL},
        {"dbrx", "half", 0, 0, 0, NULL},
        {"stablelm", "half", 0, 0, 0, NULL},
        {"qwen", "half", 0, 0, 0, NULL},
        {"qwen2", "half", 0, 0, 0, NULL},
        {"qwen2moe", "half", 0, 0, 0, NULL},
        {"qwen3", "half", 0, 0, 0, NULL},
        {"qwen3moe", "half", 0, 0, 0, NULL},
        {"qwen2vl", "half", 0, 0, 0, NULL},
        /* interleaved M-RoPE sections; text positions are plain NEOX RoPE */
        {"qwen3vl", "half", 0, 0, 0, NULL},
        {"qwen3vlmoe", "half", 0, 0, 0, NULL},
        {"phi2", "half", 0, 0, 0, NULL},
        {"phi3", "half", 0, 0, 0, NULL},
        {"phimoe", "half", 0, 0, 0, NULL},
        {"gemma", "half", 0, 0, 0, NULL},
        {"gemma2", "half", 2, 0, 0, NULL},
        {"gemma3", "half", 6, 0, GG_SWA_NEEDS_WINDOW, NULL},
        {"gemma4", "half", 0, 0, 0, NULL},
        {"starcoder2", "half", 0, 0, 0, NULL},
        {"gptneox", "half", 0, 0, 0, NULL},
        /* Olmo 3 (converted as olmo2): sliding layers with a window, unscaled (olmo2.cpp) */
        {"olmo2", "half", 4, 0, GG_SWA_NEEDS_WINDOW, NULL},
        {"olmoe", "half", 0, 0, 0, NULL},
        {"nemotron", "half", 0, 0, 0, NULL},
        {"exaone", "half", 0, 0, 0, NULL},
        /* sliding layers (and RoPE only there) in the 64-layer 32B alone: exaone4.cpp */
        {"exaone4", "half", 4, 0, GG_ROPE_SWA_ONLY, NULL},
        {"minicpm3", "half", 0, 0, 0, NULL},
        {"gpt-oss", "half", 2, 0, 0, NULL},
        {"glm4moe", "half", 0, 0, 0, NULL},
        {"hunyuan-dense", "half", 0, 0, 0, NULL},
        {"hunyuan-moe", "half", 0, 0, 0, NULL},
        {"seed_oss", "half", 0, 0, 0, NULL},
        {"apertus", "half", 0, 0, 0, NULL},
        {"dots1", "half", 0, 0, 0, NULL},
        {"bitnet", "half", 0, 0, 0, NULL},
        {"orion", "half", 0, 0, 0, NULL},
        {"minimax-m2", "half", 0, 0, 0, NULL},
        {"nomic-bert", "half", 0, 0, 0, NULL},
        {"bloom", NULL, 0, 0, 0, NULL},
        {"mpt", NULL, 0, 0, 0, NULL},
        {"gpt2", NULL, 0, 0, GG_NO_ROPE, "a learned position table (hf:config.json reads it)"},
        {"t5", NULL, 0, 0, GG_NO_ROPE,
         "T5's relative position buckets (hf:config.json reads them)"},
        {"t5encoder", NULL, 0, 0, GG_NO_ROPE,
         "T5's relative position buckets (hf:config.json reads them)"},
        {"mamba", NULL, 0, 0, GG_NO_ROPE, "no positional encoding: a state-space model"},
        {"mamba2", NULL, 0, 0, GG_NO_ROPE, "no positional encoding: a state-space model"},
        {"rwkv6", NULL, 0, 0, GG_NO_ROPE, "no positional encoding: a recurrent model"},
        {"rwkv7", NULL, 0, 0, GG_NO_ROPE, "no positional encoding: a recurrent model"},
        {"jamba", NULL, 0, 0, GG_NO_ROPE, "no positional encoding in its attention layers"},
        {"nemotron_h", NULL, 0, 0, GG_NO_ROPE, "no positional encoding in its attention layers"},
};

struct gg {
	struct gguf *g;
	const struct pe_model_source *src;
	const char *arch;
	struct pe_model *m;
	char **err;
};

static enum pe_status fail(struct gg *h, enum pe_status st, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static enum pe_status fail(struct gg *h, enum pe_status st, const char *fmt, ...)
{
	if (h->err && !*h->err) {
		va_list ap;
		va_start(ap, fmt);
		*h->err = pe_vasprintf(fmt, ap);
		va_end(ap);
	}
	return st;
}

/* {arch}.@suffix as a number: 1 and *out, 0 if absent, -1 (reported) if not a number. */
static int num(struct gg *h, const char *suffix, double *out)
{
	char key[256];
	snprintf(key, sizeof(key), "%s.%s", h->arch, suffix);
	const struct gguf_kv *kv = gguf_find(h->g, key);
	if (!kv)
		return 0;
	if (kv->type == GGUF_STRING || kv->type == GGUF_ARRAY || !isfinite(kv->num)) {
		fail(h, PE_EFORMAT, "%s: is not a number", key);
		return -1;
	}
	*out = kv->num;
	return 1;
}

static void put_number(struct strbuf *b, const char *key, double v)
{
	char text[40];
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(text, sizeof(text), "%.0f", v);
	} else {
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(text, sizeof(text), "%.*g", prec, v);
			if (strtod(text, NULL) == v)
				break;
		}
	}
	strbuf_addf(b, ",%s=%s", key, text);
}

static enum pe_status put_tensor(struct gg *h, struct strbuf *b, const char *name, const char *key,
                                 size_t n)
{
	const struct gguf_tensor *t = gguf_tensor(h->g, name);
	double *v = malloc(n * sizeof(double));
	if (!v)
		return PE_ENOMEM;
	struct gguf_source s = {h->src->read, h->src->ctx, h->src->size};
	enum pe_status st = gguf_tensor_f32(&s, t, v, n);
	if (st != PE_OK) {
		free(v);
		return fail(h, st, "tensor '%s': %s", name,
		            st == PE_EUNSUPPORTED ? "not a one-dimensional F32 tensor"
		            : st == PE_EIO        ? "cannot read it"
		                                  : "not rotary-width/2 values inside the file");
	}
	strbuf_addf(b, ",%s=", key);
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0) || !isfinite(v[i])) {
			double bad = v[i]; /* named after v is freed */
			free(v);
			return fail(h, PE_EFORMAT,
			            "tensor '%s': value [%zu] = %g is not a positive number", name,
			            i, bad);
		}
		/* the float32 value exactly, as the shortest double text */
		char text[40];
		for (int prec = 9; prec <= 17; prec++) {
			snprintf(text, sizeof(text), "%.*g", prec, v[i]);
			if (strtod(text, NULL) == v[i])
				break;
		}
		strbuf_addf(b, "%s%s", i ? "/" : "", text);
	}
	free(v);
	return PE_OK;
}

static enum pe_status add_group(struct pe_model *m, const char *name, char *spec)
{
	struct pe_model_group *g = realloc(m->groups, (m->n_groups + 1) * sizeof(*g));
	if (!g) {
		free(spec);
		return PE_ENOMEM;
	}
	m->groups = g;
	g = &m->groups[m->n_groups++];
	memset(g, 0, sizeof(*g));
	g->name = pe_strdup(name);
	g->spec = spec;
	return g->name ? PE_OK : PE_ENOMEM;
}

static enum pe_status layer_add(struct pe_model_group *g, size_t i)
{
	size_t *l = realloc(g->layers, (g->n_layers + 1) * sizeof(*l));
	if (!l)
		return PE_ENOMEM;
	g->layers = l;
	l[g->n_layers++] = i;
	return PE_OK;
}

static enum pe_status layers_of(struct pe_model_group *g, size_t n, unsigned pattern, int global)
{
	enum pe_status st = PE_OK;
	for (size_t i = 0; i < n && st == PE_OK; i++) {
		int is_global = pattern == 0 || i % pattern == pattern - 1;
		if (is_global == global)
			st = layer_add(g, i);
	}
	return st;
}

/* The layers whose flag is @want. */
static enum pe_status layers_flagged(struct pe_model_group *g, const unsigned char *flags, size_t n,
                                     int want)
{
	enum pe_status st = PE_OK;
	for (size_t i = 0; i < n && st == PE_OK; i++)
		if ((flags[i] != 0) == (want != 0))
			st = layer_add(g, i);
	return st;
}

/* Cohere2, EXAONE 4 32B: the sliding layers rotate with the main spec at @base, the
 * others have no positional encoding. */
static enum pe_status rope_in_sliding(struct gg *h, struct strbuf *bp, const char *label,
                                      double base, const unsigned char *slides)
{
	struct pe_model *m = h->m;
	/* the main spec with its base (the second key, ",base=...,") replaced */
	const char *b = strstr(bp->buf, ",base=");
	const char *rest = b ? strchr(b + 1, ',') : NULL;
	struct strbuf sb = {0};
	if (b)
		strbuf_addf(&sb, "%.*s", (int)(b - bp->buf), bp->buf);
	else
		strbuf_addf(&sb, "%s", bp->buf);
	put_number(&sb, "base", base);
	if (b && rest)
		strbuf_addf(&sb, "%s", rest);
	strbuf_addf(&sb, ",label=%s rope", label);
	char *nspec = pe_asprintf("nope:label=%s nope", label);
	enum pe_status st = sb.failed || !nspec ? PE_ENOMEM : PE_OK;
	if (st == PE_OK) {
		st = add_group(m, "rope", sb.buf); /* owns the spec from here */
		sb.buf = NULL;
	}
	if (st == PE_OK) {
		st = add_group(m, "nope", nspec);
		nspec = NULL;
	}
	if (st == PE_OK && (st = layers_flagged(&m->groups[0], slides, m->n_layers, 1)) == PE_OK)
		st = layers_flagged(&m->groups[1], slides, m->n_layers, 0);
	free(sb.buf);
	free(nspec);
	return st;
}

static enum pe_status rope_groups(struct gg *h, const struct gguf_arch *a, const char *label,
                                  struct strbuf *bp)
{
	struct pe_model *m = h->m;
	double v, heads = 0, width = 0, key_len = 0, n_rot = 0, base = 10000.0, ctx = 0, layers = 0;
	int has_ctx = 0, has_layers = 0;
	if (num(h, "attention.head_count", &heads) < 0 || num(h, "embedding_length", &width) < 0 ||
	    num(h, "attention.key_length", &key_len) < 0 ||
	    num(h, "rope.dimension_count", &n_rot) < 0 || num(h, "rope.freq_base", &base) < 0 ||
	    (has_ctx = num(h, "context_length", &ctx)) < 0 ||
	    (has_layers = num(h, "block_count", &layers)) < 0)
		return PE_EFORMAT;
	/* granite.cpp: rope.scaling.finetuned false switches RoPE off in every layer */
	char fkey[256];
	snprintf(fkey, sizeof(fkey), "%s.rope.scaling.finetuned", h->arch);
	const struct gguf_kv *fine = gguf_find(h->g, fkey);
	if ((a->flags & GG_FINETUNED_SWITCH) && fine && fine->type == GGUF_BOOL && fine->num == 0)
		return fail(h, PE_EUNSUPPORTED,
		            "%s false: llama.cpp's %s graph applies no RoPE then, so there is no "
		            "positional encoding to show",
		            fkey, a->name);
	/* the multi-token-prediction layers past the main stack run only for speculative
	 * decoding (llama_hparams::n_layer: block_count - nextn_predict_layers) */
	double nextn = 0;
	if (num(h, "nextn_predict_layers", &nextn) < 0)
		return PE_EFORMAT;
	if (has_layers && nextn >= 1 && nextn < layers && nextn == floor(nextn))
		layers -= nextn;
	/* missing is tolerated (no context, no layer list); present must be a count */
	if (has_ctx && !(ctx >= 1 && ctx <= 1e15 && ctx == floor(ctx)))
		return fail(h, PE_EFORMAT, "%s.context_length: %.17g is not a whole number > 0",
		            h->arch, ctx);
	if (has_layers && !(layers >= 1 && layers <= 1e6 && layers == floor(layers)))
		return fail(h, PE_EFORMAT, "%s.block_count: %.17g is not a whole number > 0",
		            h->arch, layers);
	double hd = key_len > 0 ? key_len : heads > 0 ? floor(width / heads) : 0;
	if (!(hd >= 2) || hd > 1e6 || hd != floor(hd))
		return fail(h, PE_EFORMAT,
		            "%s.attention.key_length (or embedding_length / head_count): no head "
		            "width",
		            h->arch);
	if (n_rot == 0)
		n_rot = hd;
	if (!(n_rot >= 2) || n_rot > hd || fmod(n_rot, 2) != 0)
		return fail(h, PE_EFORMAT,
		            "%s.rope.dimension_count: %.17g is not even and <= %.17g", h->arch,
		            n_rot, hd);
	if (!(base > 1.0))
		return fail(h, PE_EFORMAT, "%s.rope.freq_base: %.17g must exceed 1", h->arch, base);
	m->head_dim = (size_t)hd;
	m->context = ctx;
	m->n_layers = layers > 0 && layers < 1e6 ? (size_t)layers : 0;
	size_t pairs = (size_t)n_rot / 2;

	/* GLM-4: NORM, but M-RoPE (pairs i, i + n/2, as NEOX) when the file has sections */
	char skey[256];
	snprintf(skey, sizeof(skey), "%s.rope.dimension_sections", h->arch);
	int glm4_mrope = strcmp(a->name, "glm4") == 0 && gguf_find(h->g, skey) != NULL;
	strbuf_addf(bp, "rope:layout=%s", glm4_mrope ? "half" : a->layout);
	put_number(bp, "base", base);
	/* int(hd * rotary) must give n_rot back: n_rot / hd can give one less (30 of 44) */
	if (n_rot != hd)
		put_number(bp, "rotary", pe_model_width_fraction((size_t)n_rot, (size_t)hd));
	char key[256];
	snprintf(key, sizeof(key), "%s.rope.scaling.type", h->arch);
	const struct gguf_kv *type = gguf_find(h->g, key);
	if (type && !type->str)
		return fail(h, PE_EFORMAT, "%s: is not a string", key);
	const char *t = type ? type->str : "none";
	double factor = 0, orig = 0, attn = NAN;
	if (num(h, "rope.scaling.factor", &factor) < 0 ||
	    num(h, "rope.scaling.original_context_length", &orig) < 0 ||
	    num(h, "rope.scaling.attn_factor", &attn) < 0)
		return PE_EFORMAT;
	int linear = factor == 0 ? num(h, "rope.scale_linear", &v) : 0;
	if (linear < 0)
		return PE_EFORMAT;
	if (linear > 0)
		factor = v; /* the older key */
	/* llama-model.cpp: a missing scaling type is "linear" (with no factor, a scale of 1) */
	if (!type && factor != 0 && factor != 1)
		t = "linear";
	int long_t = gguf_tensor(h->g, "rope_factors_long.weight") != NULL;
	int short_t = gguf_tensor(h->g, "rope_factors_short.weight") != NULL;
	int freqs_t = gguf_tensor(h->g, "rope_freqs.weight") != NULL;
	enum pe_status st = PE_OK;
	if (strcmp(t, "none") != 0 && strcmp(t, "linear") != 0 && strcmp(t, "yarn") != 0)
		return fail(h, PE_EFORMAT, "%s: '%s' is not none, linear or yarn", key, t);
	/* llama.cpp multiplies freq_scale into the angles of the factor tensors too:
	 * one spec cannot say both, so a file that has both is refused, not half read */
	if ((long_t || short_t || freqs_t) && strcmp(t, "none") != 0 && factor != 1)
		return fail(h, PE_EFORMAT,
		            "%s '%s' (factor %.17g) with the per-pair factor tensor %s: llama.cpp "
		            "would apply both, which posenc does not model",
		            key, t, factor,
		            freqs_t ? "rope_freqs.weight" : "rope_factors_long/short.weight");
	m->train_context = orig > 0 ? orig : ctx;
	if (long_t || short_t) {
		/* Phi-3: LongRoPE lists as tensors. */
		if (!(long_t && short_t))
			return fail(h, PE_EFORMAT,
			            "rope_factors_long.weight and rope_factors_short.weight come "
			            "together");
		if (!(orig > 0))
			orig = ctx;
		if (!(orig > 0))
			return fail(h, PE_EFORMAT,
			            "%s.rope.scaling.original_context_length: missing", h->arch);
		strbuf_addf(bp, ",scaling=longrope");
		put_number(bp, "factor", ctx > 0 ? ctx / orig : 1.0);
		put_number(bp, "original", orig);
		if (!isnan(attn))
			put_number(bp, "attention-factor", attn);
		if ((st = put_tensor(h, bp, "rope_factors_long.weight", "long-factor", pairs)) ||
		    (st = put_tensor(h, bp, "rope_factors_short.weight", "short-factor", pairs)))
			return st;
	} else if (freqs_t) {
		/* Llama 3.1: the llama3 scaling precomputed as per-pair divisors. */
		strbuf_addf(bp, ",scaling=longrope,factor=1");
		put_number(bp, "original", ctx > 0 ? ctx : 1);
		strbuf_addf(bp, ",attention-factor=1");
		if ((st = put_tensor(h, bp, "rope_freqs.weight", "long-factor", pairs)) ||
		    (st = put_tensor(h, bp, "rope_freqs.weight", "short-factor", pairs))) {
			return st;
		}
		m->note = pe_strdup("rope_freqs.weight: per-pair frequency divisors (llama.cpp's "
		                    "freq_factors), shown as longrope with equal long and short "
		                    "lists and attention factor 1");
		m->train_context = ctx;
	} else if (strcmp(t, "linear") == 0) {
		if (!(factor > 0))
			return fail(h, PE_EFORMAT, "%s.rope.scaling.factor: missing or not > 0",
			            h->arch);
		strbuf_addf(bp, ",scaling=linear");
		put_number(bp, "factor", factor);
	} else if (strcmp(t, "yarn") == 0) {
		double fast = 32, slow = 1, logmul = 0;
		/* llama.cpp's loader reads the beta keys and the log multiplier only for some
		 * architectures; the others run with its defaults whatever the file says */
		int betas = (a->flags & GG_YARN_BETAS) != 0;
		if ((betas && (num(h, "rope.scaling.yarn_beta_fast", &fast) < 0 ||
		               num(h, "rope.scaling.yarn_beta_slow", &slow) < 0)) ||
		    ((a->flags & GG_YARN_LOG_MUL) &&
		     num(h, "rope.scaling.yarn_log_multiplier", &logmul) < 0))
			return PE_EFORMAT;
		if (!(factor > 0) || !(orig > 0))
			return fail(
			        h, PE_EFORMAT,
			        "%s.rope.scaling.factor and .original_context_length: yarn needs "
			        "both",
			        h->arch);
		strbuf_addf(bp, ",scaling=yarn");
		put_number(bp, "factor", factor);
		put_number(bp, "original", orig);
		put_number(bp, "beta-fast", fast);
		put_number(bp, "beta-slow", slow);
		/* llama-context.cpp: get_mscale(f, mscale) / get_mscale(f, log_mul) with mscale
		 * 1 (DeepSeek-V2 with log_mul != 1: log_mul itself, a ratio of 1), else
		 * get_mscale(f, 1); times rope.scaling.attn_factor. ggml's rope_yarn multiplies
		 * by 1 + 0.1 ln f, which llama.cpp divides out first. */
		double ms = factor > 1 ? 0.1 * log(factor) + 1.0 : 1.0;
		if (a->flags & GG_LOG_MUL_TENTHS)
			logmul = (double)((float)logmul / 0.1f);
		if (logmul != 0) {
			double all = factor > 1 ? 0.1 * logmul * log(factor) + 1.0 : 1.0;
			int ds2 = strcmp(a->name, "deepseek2") == 0 && logmul != 1.0;
			ms = ds2 ? 1.0 : ms / all;
		}
		if (logmul != 0 || !isnan(attn))
			put_number(bp, "attention-factor", ms * (isnan(attn) ? 1.0 : attn));
	} else if (strcmp(t, "none") == 0) {
		strbuf_addf(bp, ",scaling=none");
	} else {
		return fail(h, PE_EFORMAT, "%s: '%s' is not none, linear or yarn", key, t);
	}
	if (bp->failed) {
		return PE_ENOMEM;
	}
	double swa_base = NAN;
	int has_swa = num(h, "rope.freq_base_swa", &swa_base);
	if (has_swa < 0) {
		return PE_EFORMAT;
	}
	unsigned pattern = a->swa_pattern;
	if ((strcmp(a->name, "gemma3") == 0 || strcmp(a->name, "gemma4") == 0) && !has_swa)
		swa_base = 10000.0; /* llama.cpp's Gemma 3 and 4 local base */
	if (strcmp(a->name, "olmo2") == 0)
		swa_base = base; /* olmo2.cpp reads freq_base_swa but turns them at freq_base */
	/* read before the layer flags are allocated, as an error returns at once */
	double swa = -1;
	int has_window = num(h, "attention.sliding_window", &swa);
	if (has_window < 0)
		return PE_EFORMAT;
	/* gemma3.cpp: no window (or 0), no sliding layers; exaone4.cpp: sliding layers in
	 * the 64-layer model only */
	int no_swa = ((a->flags & GG_SWA_NEEDS_WINDOW) && !(has_window && swa > 0)) ||
	             (strcmp(a->name, "exaone4") == 0 && m->n_layers != 64);
	if (no_swa)
		pattern = 0;
	/* RoPE only in sliding layers: they keep the main spec (their base if the file
	 * gives one, as the loaders read rope.freq_base_swa), the others have none */
	if ((a->flags & GG_ROPE_SWA_ONLY) && !has_swa)
		swa_base = base;
	/* which layers slide: {arch}.attention.sliding_window_pattern when the file has it
	 * (a period, or one flag per layer, true = sliding, as llama.cpp's get_key_or_arr
	 * reads it), else the period llama.cpp hard-codes for the architecture */
	unsigned char *slides = m->n_layers ? calloc(m->n_layers, 1) : NULL;
	if (m->n_layers && !slides)
		return PE_ENOMEM;
	char pkey[256];
	snprintf(pkey, sizeof(pkey), "%s.attention.sliding_window_pattern", h->arch);
	/* where the loader decided there is no SWA, it reads no pattern key either */
	const struct gguf_kv *pk = no_swa ? NULL : gguf_find(h->g, pkey);
	int any = 0;
	if (pk && pk->arr && pk->arr_n == m->n_layers) {
		for (size_t i = 0; i < m->n_layers; i++)
			any |= slides[i] = (unsigned char)(pk->arr[i] != 0);
	} else if (pk && pk->type != GGUF_ARRAY && pk->type != GGUF_STRING && pk->num >= 1 &&
	           pk->num <= 1e6) {
		pattern = (unsigned)pk->num;
	} else if (pk) {
		free(slides);
		return fail(h, PE_EFORMAT,
		            "%s: neither a period nor one value per layer (%zu layers)", pkey,
		            m->n_layers);
	}
	if (!any)
		for (size_t i = 0; i < m->n_layers && pattern > 1; i++)
			any |= slides[i] = (unsigned char)(i % pattern != pattern - 1);
	int split = any && !isnan(swa_base) && m->n_layers;
	unsigned nope = a->nope_step;
	/* llama.cpp's Llama 4 loader: a sliding_window of 0 sets n_no_rope_layer_step to
	 * n_layer ("always use rope"), and (il + 1) % n_layer leaves the last layer
	 * unrotated: what it runs, so what this reads */
	if (strcmp(a->name, "llama4") == 0 && has_window && swa == 0)
		nope = m->n_layers > 0 && m->n_layers < 1e6 ? (unsigned)m->n_layers : 0;
	if (split && (a->flags & GG_ROPE_SWA_ONLY)) {
		enum pe_status rst = rope_in_sliding(h, bp, label, swa_base, slides);
		free(slides);
		return rst;
	}
	if (!split)
		free(slides);
	if (!split && nope && m->n_layers) {
		char *spec = pe_asprintf("%s,label=%s rope", bp->buf, label);
		char *nspec = pe_asprintf("nope:label=%s nope", label);
		if (!spec || !nspec) {
			free(spec);
			free(nspec);
			return PE_ENOMEM;
		}
		if ((st = add_group(m, "rope", spec)) != PE_OK) {
			free(nspec);
			return st;
		}
		if ((st = add_group(m, "nope", nspec)) != PE_OK)
			return st;
		if ((st = layers_of(&m->groups[0], m->n_layers, nope, 0)) != PE_OK)
			return st;
		return layers_of(&m->groups[1], m->n_layers, nope, 1);
	}
	if (!split) {
		char *spec = pe_asprintf("%s,label=%s", bp->buf, label);
		if (!spec || (st = add_group(m, "all", spec)) != PE_OK)
			return spec ? st : PE_ENOMEM;
		return layers_of(&m->groups[0], m->n_layers, 0, 1);
	}
	/* Sliding-window layers: their own base, unscaled (llama.cpp's Gemma 3), and their
	 * own head and rotary widths where the file gives them (key_length_swa,
	 * rope.dimension_count_swa: Gemma 4). */
	double hd_swa = hd, n_rot_swa = 0;
	if (num(h, "attention.key_length_swa", &hd_swa) < 0 ||
	    num(h, "rope.dimension_count_swa", &n_rot_swa) < 0) {
		free(slides);
		return PE_EFORMAT;
	}
	if (n_rot_swa == 0)
		n_rot_swa = hd_swa == hd ? n_rot : hd_swa;
	if (!(hd_swa >= 2) || hd_swa > 1e6 || hd_swa != floor(hd_swa) || !(n_rot_swa >= 2) ||
	    n_rot_swa > hd_swa || fmod(n_rot_swa, 2) != 0) {
		free(slides);
		return fail(h, PE_EFORMAT,
		            "%s.attention.key_length_swa / rope.dimension_count_swa: %.17g of "
		            "%.17g is not an even width within the head",
		            h->arch, n_rot_swa, hd_swa);
	}
	struct strbuf lb = {0};
	strbuf_addf(&lb, "rope:layout=%s", a->layout);
	put_number(&lb, "base", swa_base);
	if (n_rot_swa != hd_swa)
		put_number(&lb, "rotary",
		           pe_model_width_fraction((size_t)n_rot_swa, (size_t)hd_swa));
	if (hd_swa != hd)
		put_number(&lb, "head", hd_swa);
	strbuf_addf(&lb, ",scaling=none,label=%s local", label);
	char *gspec = pe_asprintf("%s,label=%s global", bp->buf, label);
	if (lb.failed || !gspec) {
		free(lb.buf);
		free(gspec);
		free(slides);
		return PE_ENOMEM;
	}
	if ((st = add_group(m, "local", lb.buf)) != PE_OK) {
		free(gspec);
		free(slides);
		return st;
	}
	if ((st = add_group(m, "global", gspec)) == PE_OK &&
	    (st = layers_flagged(&m->groups[0], slides, m->n_layers, 1)) == PE_OK)
		st = layers_flagged(&m->groups[1], slides, m->n_layers, 0);
	free(slides);
	return st;
}

/* The spec text under construction is freed here whatever happens. */
static enum pe_status read_rope(struct gg *h, const struct gguf_arch *a, const char *label)
{
	struct strbuf b = {0};
	enum pe_status st = rope_groups(h, a, label, &b);
	free(b.buf);
	return st;
}

static enum pe_status read_alibi(struct gg *h, const char *label)
{
	double heads = 0, bias = 8.0, layers = 0;
	if (num(h, "attention.head_count", &heads) < 0 ||
	    num(h, "attention.max_alibi_bias", &bias) < 0 || num(h, "block_count", &layers) < 0)
		return PE_EFORMAT;
	if (!(heads >= 1) || heads > 65536 || heads != floor(heads))
		return fail(h, PE_EFORMAT, "%s.attention.head_count: missing or not a count",
		            h->arch);
	if (bias != 8.0)
		return fail(
		        h, PE_EUNSUPPORTED,
		        "%s.attention.max_alibi_bias: posenc computes ALiBi slopes of max bias 8, "
		        "not %.9g",
		        h->arch, bias);
	h->m->n_layers = layers > 0 && layers < 1e6 ? (size_t)layers : 0;
	/* llama.cpp adds the slope times the key position (BLOOM's form). */
	char *spec = pe_asprintf("alibi:heads=%.0f,form=official,label=%s", heads, label);
	if (!spec)
		return PE_ENOMEM;
	enum pe_status st = add_group(h->m, "all", spec);
	if (st == PE_OK)
		st = layers_of(&h->m->groups[0], h->m->n_layers, 0, 1);
	return st;
}

enum pe_status pe_model_from_gguf(const struct pe_model_source *src, uint64_t budget,
                                  const char *label, struct pe_model **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	static const char *const want[] = {"rope_freqs.weight", "rope_factors_long.weight",
	                                   "rope_factors_short.weight", NULL};
	struct gguf_source gs = {src->read, src->ctx, src->size};
	struct gguf *g = NULL;
	enum pe_status st = gguf_read(&gs, want, budget, &g, err);
	if (st != PE_OK)
		return st;
	struct pe_model *m = calloc(1, sizeof(*m));
	struct gg h = {.g = g, .src = src, .m = m, .err = err};
	const struct gguf_kv *arch = gguf_find(g, "general.architecture");
	const struct gguf_arch *a = NULL;
	if (!m) {
		st = PE_ENOMEM;
		goto done;
	}
	if (!arch || !arch->str) {
		st = fail(&h, PE_EFORMAT, "general.architecture: missing or not a string");
		goto done;
	}
	h.arch = arch->str;
	for (size_t i = 0; i < sizeof(gguf_archs) / sizeof(gguf_archs[0]); i++)
		if (strcmp(gguf_archs[i].name, arch->str) == 0)
			a = &gguf_archs[i];
	if (!a) {
		struct strbuf known = {0};
		for (size_t i = 0; i < sizeof(gguf_archs) / sizeof(gguf_archs[0]); i++)
			strbuf_addf(&known, "%s%s", i ? ", " : "", gguf_archs[i].name);
		st = fail(&h, PE_EUNSUPPORTED,
		          "general.architecture: '%s' is not one posenc knows the pairing layout "
		          "of (known: %s)",
		          arch->str, known.buf ? known.buf : "");
		free(known.buf);
		goto done;
	}
	m->model_type = pe_strdup(arch->str);
	m->name = pe_strdup(label ? label : arch->str);
	if (!m->model_type || !m->name) {
		st = PE_ENOMEM;
		goto done;
	}
	if (a->flags & GG_NO_ROPE) {
		st = fail(&h, PE_EUNSUPPORTED,
		          "general.architecture '%s': llama.cpp's graph applies no RoPE to it (%s)",
		          arch->str, a->why);
		goto done;
	}
	int alibi = !a->layout;
	if (strcmp(a->name, "baichuan") == 0) {
		/* baichuan.cpp: 32 layers (7B) rotate, 40 (13B) take ALiBi of max bias 8,
		 * other sizes neither */
		double layers = 0;
		if (num(&h, "block_count", &layers) < 0) {
			st = PE_EFORMAT;
			goto done;
		}
		if (layers != 32 && layers != 40) {
			st = fail(
			        &h, PE_EUNSUPPORTED,
			        "baichuan.block_count %.17g: llama.cpp rotates Baichuan's 32-layer "
			        "7B and gives its 40-layer 13B ALiBi; other sizes get no "
			        "positional "
			        "encoding",
			        layers);
			goto done;
		}
		alibi = layers == 40;
	}
	st = alibi ? read_alibi(&h, m->name) : read_rope(&h, a, m->name);
	if (st == PE_OK) {
		char key[256];
		snprintf(key, sizeof(key), "%s.rope.dimension_sections", arch->str);
		const struct gguf_kv *sec = gguf_find(g, key);
		for (uint64_t i = 0; sec && sec->arr && i < sec->arr_n && st == PE_OK; i++) {
			double x = sec->arr[i];
			if (!(x >= 0 && x <= 1e6 && x == floor(x)))
				st = fail(&h, PE_EFORMAT,
				          "%s[%llu]: %.17g is not a whole number of pairs >= 0",
				          key, (unsigned long long)i, x);
		}
		if (st == PE_OK && sec && sec->arr) {
			struct strbuf nb = {0};
			strbuf_addf(&nb, "M-RoPE sections");
			for (uint64_t i = 0; i < sec->arr_n; i++)
				strbuf_addf(&nb, "%s%.0f", i ? "/" : " ", sec->arr[i]);
			strbuf_addf(&nb, " (pairs per axis): text positions are equal on every "
			                 "axis, which is plain RoPE (this spec)");
			double base = 10000.0;
			num(&h, "rope.freq_base", &base);
			/* llama_model_rope_type: IMROPE, the sections interleaved over the pairs */
			const char *il =
			        strncmp(a->name, "qwen3vl", 7) == 0 ? ",interleaved=1" : "";
			if (sec->arr_n >= 3) {
				strbuf_addf(
				        &nb,
				        "; image and video tokens: -s mrope:base=%.17g,t=%.0f,"
				        "h=%.0f,w=%.0f%s with text=N,frames=F,height=H,width=W or "
				        "with --position-ids FILE; either, given with this model "
				        "spec, selects that mrope spec",
				        base, sec->arr[0], sec->arr[1], sec->arr[2], il);
				free(m->mrope_spec);
				m->mrope_spec = pe_asprintf(
				        "mrope:base=%.17g,t=%.0f,h=%.0f,w=%.0f%s,"
				        "label=%s",
				        base, sec->arr[0], sec->arr[1], sec->arr[2], il, m->name);
				if (!m->mrope_spec)
					st = PE_ENOMEM;
			}
			free(m->note);
			m->note = nb.buf;
			if (nb.failed)
				st = PE_ENOMEM;
		}
	}
	if (st == PE_OK && !(m->train_context > 0))
		m->train_context = m->context;
	if (st == PE_OK)
		st = pe_model_check_specs(m, err);
done:
	gguf_free(g);
	if (st != PE_OK) {
		if (st == PE_ENOMEM && err && !*err)
			*err = pe_strdup("out of memory");
		pe_model_destroy(m);
		return st;
	}
	*out = m;
	return PE_OK;
}
