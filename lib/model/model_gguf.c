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

struct gguf_arch {
	const char *name;
	const char *layout;   /* NULL: ALiBi */
	unsigned swa_pattern; /* every swa_pattern-th layer global; 0: none */
	/* llama.cpp's hparams.n_no_rope_layer_step, hard-coded per architecture in its loader
	 * (no GGUF key): layer il rotates only if (il + 1) % step != 0; 0: every layer rotates */
	unsigned nope_step;
};

static const struct gguf_arch gguf_archs[] = {
        {"llama", "interleaved", 0, 0},
        {"llama4", "interleaved", 0, 4},
        {"deci", "interleaved", 0, 0},
        {"baichuan", "interleaved", 0, 0},
        {"internlm2", "interleaved", 0, 0},
        {"minicpm", "interleaved", 0, 0},
        {"command-r", "interleaved", 0, 0},
        {"cohere2", "interleaved", 4, 0},
        {"olmo", "interleaved", 0, 0},
        {"deepseek", "interleaved", 0, 0},
        {"deepseek2", "interleaved", 0, 0},
        {"granite", "interleaved", 0, 0},
        {"granitemoe", "interleaved", 0, 0},
        {"chatglm", "interleaved", 0, 0},
        {"falcon", "half", 0, 0},
        {"grok", "half", 0, 0},
        {"dbrx", "half", 0, 0},
        {"stablelm", "half", 0, 0},
        {"qwen", "half", 0, 0},
        {"qwen2", "half", 0, 0},
        {"qwen2moe", "half", 0, 0},
        {"qwen3", "half", 0, 0},
        {"qwen3moe", "half", 0, 0},
        {"qwen2vl", "half", 0, 0},
        {"phi2", "half", 0, 0},
        {"phi3", "half", 0, 0},
        {"phimoe", "half", 0, 0},
        {"gemma", "half", 0, 0},
        {"gemma2", "half", 2, 0},
        {"gemma3", "half", 6, 0},
        {"gemma4", "half", 0, 0},
        {"starcoder2", "half", 0, 0},
        {"gptneox", "half", 0, 0},
        {"olmo2", "half", 0, 0},
        {"nemotron", "half", 0, 0},
        {"exaone", "half", 0, 0},
        {"minicpm3", "half", 0, 0},
        {"gpt-oss", "half", 2, 0},
        {"smollm3", "interleaved", 0, 4},
        {"bloom", NULL, 0, 0},
        {"mpt", NULL, 0, 0},
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
			free(v);
			return fail(h, PE_EFORMAT,
			            "tensor '%s': value %zu is not a positive number", name, i);
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

	strbuf_addf(bp, "rope:layout=%s", a->layout);
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
	if (linear > 0) {
		factor = v; /* the older key */
		if (!type)
			t = "linear";
	}
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
		/* llama.cpp's loader reads the beta keys only for some architectures (Grok);
		 * the others run with its defaults 32 and 1 whatever the file says */
		int betas = strcmp(a->name, "grok") == 0;
		if ((betas && (num(h, "rope.scaling.yarn_beta_fast", &fast) < 0 ||
		               num(h, "rope.scaling.yarn_beta_slow", &slow) < 0)) ||
		    num(h, "rope.scaling.yarn_log_multiplier", &logmul) < 0)
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
		if (logmul != 0) /* DeepSeek: mscale = mscale_all_dim, so the factor is 1 */
			strbuf_addf(bp, ",attention-factor=1");
		else if (!isnan(attn))
			put_number(bp, "attention-factor",
			           attn * (factor > 1 ? 0.1 * log(factor) + 1.0 : 1.0));
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
	/* read before the layer flags are allocated, as an error returns at once */
	double swa = -1;
	if (num(h, "attention.sliding_window", &swa) < 0)
		return PE_EFORMAT;
	/* which layers slide: {arch}.attention.sliding_window_pattern when the file has it
	 * (a period, or one flag per layer, true = sliding, as llama.cpp's get_key_or_arr
	 * reads it), else the period llama.cpp hard-codes for the architecture */
	unsigned char *slides = m->n_layers ? calloc(m->n_layers, 1) : NULL;
	if (m->n_layers && !slides)
		return PE_ENOMEM;
	char pkey[256];
	snprintf(pkey, sizeof(pkey), "%s.attention.sliding_window_pattern", h->arch);
	const struct gguf_kv *pk = gguf_find(h->g, pkey);
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
	/* llama.cpp's Llama 4 loader: a sliding_window of 0 means every layer rotates */
	if (strcmp(a->name, "llama4") == 0 && swa == 0)
		nope = 0;
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
	st = a->layout ? read_rope(&h, a, m->name) : read_alibi(&h, m->name);
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
			if (sec->arr_n >= 3) {
				strbuf_addf(
				        &nb,
				        "; image and video tokens: -s mrope:base=%.17g,t=%.0f,"
				        "h=%.0f,w=%.0f with text=N,frames=F,height=H,width=W or "
				        "with --position-ids FILE; either, given with this model "
				        "spec, selects that mrope spec",
				        base, sec->arr[0], sec->arr[1], sec->arr[2]);
				free(m->mrope_spec);
				m->mrope_spec = pe_asprintf("mrope:base=%.17g,t=%.0f,h=%.0f,w=%.0f,"
				                            "label=%s",
				                            base, sec->arr[0], sec->arr[1],
				                            sec->arr[2], m->name);
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
