/*
 * A Hugging Face config.json as a model description.
 *
 * The semantics are those of transformers' modeling_rope_utils.py (the
 * revision with rope_parameters and standardize_rope_params) and of each
 * architecture's modeling code for the pairing layout; doc/models.md
 * restates them with sources. Keys outside positions are ignored; inside
 * a rope_scaling / rope_parameters block every key must be known.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/model.h>

#include "core/strutil.h"
#include "model/model_internal.h"
#include "io/read_json.h"

enum enc { ENC_ROPE, ENC_ALIBI, ENC_T5, ENC_LEARNED };

/*
 * model_type -> how positions enter. RoPE pairing: "half" is rotate_half
 * (pairs i, i + d/2), "interleaved" is rotate_every_two / complex
 * multiplication (pairs 2i, 2i+1); each as the HF modeling file of that
 * architecture applies it.
 */
struct arch {
	const char *model_type;
	enum enc enc;
	const char *layout; /* rope only */
};

static const struct arch archs[] = {
        {"llama", ENC_ROPE, "half"},
        {"mistral", ENC_ROPE, "half"},
        {"mixtral", ENC_ROPE, "half"},
        {"qwen2", ENC_ROPE, "half"},
        {"qwen2_moe", ENC_ROPE, "half"},
        {"qwen3", ENC_ROPE, "half"},
        {"qwen3_moe", ENC_ROPE, "half"},
        {"qwen2_vl", ENC_ROPE, "half"},
        {"qwen2_5_vl", ENC_ROPE, "half"},
        {"gemma", ENC_ROPE, "half"},
        {"gemma2", ENC_ROPE, "half"},
        {"gemma3", ENC_ROPE, "half"},
        {"gemma3_text", ENC_ROPE, "half"},
        {"gemma4", ENC_ROPE, "half"},
        {"gemma4_text", ENC_ROPE, "half"},
        {"phi", ENC_ROPE, "half"},
        {"phi3", ENC_ROPE, "half"},
        {"phimoe", ENC_ROPE, "half"},
        {"gpt_neox", ENC_ROPE, "half"},
        {"gpt_oss", ENC_ROPE, "half"},
        {"falcon", ENC_ROPE, "half"},
        {"starcoder2", ENC_ROPE, "half"},
        {"stablelm", ENC_ROPE, "half"},
        {"olmo", ENC_ROPE, "half"},
        {"olmo2", ENC_ROPE, "half"},
        {"smollm3", ENC_ROPE, "half"},
        {"granite", ENC_ROPE, "half"},
        {"gptj", ENC_ROPE, "interleaved"},
        {"codegen", ENC_ROPE, "interleaved"},
        {"cohere", ENC_ROPE, "interleaved"},
        {"deepseek_v2", ENC_ROPE, "interleaved"},
        {"deepseek_v3", ENC_ROPE, "interleaved"},
        {"llama4", ENC_ROPE, "interleaved"},
        {"llama4_text", ENC_ROPE, "interleaved"},
        {"bloom", ENC_ALIBI, NULL},
        {"mpt", ENC_ALIBI, NULL},
        {"t5", ENC_T5, NULL},
        {"mt5", ENC_T5, NULL},
        {"gpt2", ENC_LEARNED, NULL},
        {"gpt_neo", ENC_LEARNED, NULL},
        {"bert", ENC_LEARNED, NULL},
        {"distilbert", ENC_LEARNED, NULL},
};

struct hf {
	const struct json *root;
	const struct json *cfg; /* text_config when there is one */
	struct pe_model *m;
	char **err;
	const char *label;
	const struct arch *arch;
};

static enum pe_status fail(struct hf *h, enum pe_status st, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static enum pe_status fail(struct hf *h, enum pe_status st, const char *fmt, ...)
{
	if (h->err && !*h->err) {
		va_list ap;
		va_start(ap, fmt);
		*h->err = pe_vasprintf(fmt, ap);
		va_end(ap);
	}
	return st;
}

static enum pe_status warn(struct hf *h, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

static enum pe_status warn(struct hf *h, const char *fmt, ...)
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
	grown[h->m->n_warnings++] = text;
	return PE_OK;
}

static const struct json *get(const struct json *obj, const char *key)
{
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	/* The last duplicate wins, as in Python's json module. */
	const struct json *found = NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (strcmp(obj->keys[i], key) == 0)
			found = &obj->items[i];
	return found;
}

/* A present, non-null value. */
static const struct json *present(const struct json *obj, const char *key)
{
	const struct json *v = get(obj, key);
	return v && v->type != JSON_NULL ? v : NULL;
}

/* 1 and *out if @key is a number, 0 if absent or null, -1 (reported) otherwise. */
static int number(struct hf *h, const char *where, const struct json *obj, const char *key,
                  double *out)
{
	const struct json *v = present(obj, key);
	if (!v)
		return 0;
	if (v->type != JSON_NUMBER || !isfinite(v->number)) {
		fail(h, PE_EFORMAT, "%s%s: is not a finite number", where, key);
		return -1;
	}
	*out = v->number;
	return 1;
}

/* Like number(), for a whole number > 0. */
static int count(struct hf *h, const char *where, const struct json *obj, const char *key,
                 size_t *out)
{
	double v;
	int rc = number(h, where, obj, key, &v);
	if (rc <= 0)
		return rc;
	if (v < 1.0 || v > 1e15 || v != floor(v)) {
		fail(h, PE_EFORMAT, "%s%s: %.17g is not a whole number > 0", where, key, v);
		return -1;
	}
	*out = (size_t)v;
	return 1;
}

/* count() of @key, else of @alias when @key is absent: -1 (reported) as soon
 * as either is present but not a whole number > 0. */
static int count_either(struct hf *h, const struct json *obj, const char *key, const char *alias,
                        size_t *out)
{
	int rc = count(h, "", obj, key, out);
	return rc != 0 ? rc : count(h, "", obj, alias, out);
}

/* The shortest text that reads back as the same double. */
static void put_number(struct strbuf *b, double v)
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

static void put_key(struct strbuf *b, const char *key, double v)
{
	strbuf_addf(b, ",%s=", key);
	put_number(b, v);
}

/* ---- the rope block -------------------------------------------------- */

static const char *const block_keys[] = {
        "rope_type",
        "type",
        "rope_theta",
        "partial_rotary_factor",
        "factor",
        "original_max_position_embeddings",
        "attention_factor",
        "beta_fast",
        "beta_slow",
        "mscale",
        "mscale_all_dim",
        "truncate",
        "short_factor",
        "long_factor",
        "low_freq_factor",
        "high_freq_factor",
        "short_mscale",
        "long_mscale",
        "mrope_section",
        "mrope_interleaved",
        NULL,
};

static const char *const rope_types[] = {"default", "linear",   "dynamic",      "yarn",
                                         "llama3",  "longrope", "proportional", NULL};

static enum pe_status check_block_keys(struct hf *h, const char *where, const struct json *b)
{
	for (size_t i = 0; i < b->n; i++) {
		int known = 0;
		for (size_t k = 0; block_keys[k]; k++)
			known |= strcmp(b->keys[i], block_keys[k]) == 0;
		if (!known)
			return fail(
			        h, PE_EFORMAT,
			        "%s: unknown key '%s' (known: rope_type, type, rope_theta, "
			        "partial_rotary_factor, factor, original_max_position_embeddings, "
			        "attention_factor, beta_fast, beta_slow, mscale, mscale_all_dim, "
			        "truncate, short_factor, long_factor, low_freq_factor, "
			        "high_freq_factor, short_mscale, long_mscale, mrope_section, "
			        "mrope_interleaved)",
			        where, b->keys[i]);
	}
	return PE_OK;
}

static enum pe_status put_list(struct hf *h, struct strbuf *b, const char *where,
                               const struct json *block, const char *key, const char *spec_key,
                               size_t want)
{
	const struct json *v = present(block, key);
	if (!v)
		return fail(h, PE_EFORMAT, "%s: longrope needs '%s'", where, key);
	if (v->type != JSON_ARRAY)
		return fail(h, PE_EFORMAT, "%s%s: is not a list of numbers", where, key);
	if (v->n != want)
		return fail(h, PE_EFORMAT, "%s%s: has %zu numbers, the rotary width needs %zu",
		            where, key, v->n, want);
	strbuf_addf(b, ",%s=", spec_key);
	for (size_t i = 0; i < v->n; i++) {
		const struct json *x = &v->items[i];
		if (x->type != JSON_NUMBER || !isfinite(x->number) || x->number <= 0.0)
			return fail(h, PE_EFORMAT, "%s%s[%zu]: is not a positive number", where,
			            key, i);
		if (i)
			strbuf_add(b, "/", 1);
		put_number(b, x->number);
	}
	return PE_OK;
}

struct rope_ctx {
	size_t head_dim;
	double max_pos;       /* max_position_embeddings; 0 if absent */
	int top_original_set; /* Phi-3: original_max_position_embeddings at top level */
	double top_original;
	double top_theta;   /* rope_theta (or rotary_emb_base) at top level; NaN if absent */
	double top_partial; /* partial_rotary_factor at top level; NaN if absent */
	int per_layer;      /* the block is one of several keyed by layer type */
	const char *layout; /* "half" or "interleaved" */
};

/*
 * Spec text (without label) of one rope block; @block may be NULL (no
 * scaling). Sets *train to the pretraining context it implies.
 */
/*
 * The scaling factor into the spec: it must be positive; below 1 the
 * reference warns (linear, dynamic, yarn) and goes on.
 */
static enum pe_status put_factor(struct hf *h, struct strbuf *b, const char *where, double factor,
                                 int warn_below_one)
{
	if (!(factor > 0.0))
		return fail(h, PE_EFORMAT, "%sfactor: %.17g must be > 0", where, factor);
	if (warn_below_one && factor < 1.0) {
		enum pe_status st =
		        warn(h, "%sfactor %.17g is below 1 (the reference warns and goes on)",
		             where, factor);
		if (st != PE_OK)
			return st;
	}
	put_key(b, "factor", factor);
	return PE_OK;
}

static enum pe_status put_mscales(struct hf *h, struct strbuf *b, const char *where,
                                  const struct json *block, double original, int block_original);

/* "rope:base=..,layout=..": head= too when the layers are wider than the model's head_dim. */
static void put_rope_start(struct hf *h, const struct rope_ctx *c, double theta, struct strbuf *b)
{
	strbuf_addf(b, "rope:base=");
	put_number(b, theta);
	strbuf_addf(b, ",layout=%s", c->layout);
	if (c->head_dim != h->m->head_dim)
		strbuf_addf(b, ",head=%zu", c->head_dim);
}

/*
 * Proportional RoPE (transformers' _compute_proportional_rope_parameters,
 * Gemma 4's full-attention layers): int(partial_rotary_factor * head_dim // 2)
 * pairs at base^(-2i/head_dim), the others at frequency 0, all divided by
 * the block's factor (default 1). The reference warns when the block has no
 * partial_rotary_factor (then it is linear scaling).
 */
static enum pe_status proportional_spec(struct hf *h, const struct rope_ctx *c, const char *where,
                                        const struct json *block, double theta, double partial,
                                        int partial_given, struct strbuf *b, double *train)
{
	enum pe_status st;
	if (c->head_dim < 2 || c->head_dim % 2)
		return fail(h, PE_EFORMAT,
		            "%s: proportional RoPE needs an even head width, not %zu", where,
		            c->head_dim);
	if (!partial_given && isnan(c->top_partial) &&
	    (st = warn(h,
	               "%spartial_rotary_factor: missing, so every pair turns and proportional "
	               "is linear scaling (the reference warns)",
	               where)) != PE_OK)
		return st;
	put_rope_start(h, c, theta, b);
	strbuf_addf(b, ",scaling=proportional");
	double factor = NAN;
	if (number(h, where, block, "factor", &factor) < 0)
		return PE_EFORMAT;
	if (!isnan(factor) && (st = put_factor(h, b, where, factor, 0)) != PE_OK)
		return st;
	if (partial != 1.0)
		put_key(b, "proportion", partial);
	*train = c->max_pos;
	return PE_OK;
}

static enum pe_status rope_spec(struct hf *h, const struct rope_ctx *c, const char *where,
                                const struct json *block, struct strbuf *b, double *train)
{
	enum pe_status st;
	if (block && (st = check_block_keys(h, where, block)) != PE_OK)
		return st;
	const char *type = "default";
	const struct json *t = present(block, "rope_type");
	if (!t)
		t = present(block, "type");
	if (t) {
		if (t->type != JSON_STRING)
			return fail(h, PE_EFORMAT, "%srope_type: is not a string", where);
		type = t->string;
	}
	/* Early Phi-3 configs say "su"; Qwen2-VL says "mrope" (default RoPE with sections). */
	if (strcmp(type, "su") == 0)
		type = "longrope";
	if (strcmp(type, "mrope") == 0)
		type = "default";
	int ti = -1;
	for (int i = 0; rope_types[i]; i++)
		if (strcmp(type, rope_types[i]) == 0)
			ti = i;
	if (ti < 0)
		return fail(h, PE_EFORMAT,
		            "%srope_type: '%s' is not one of default, linear, dynamic, yarn, "
		            "llama3, longrope, proportional (or the aliases su, mrope)",
		            where, type);

	if (c->head_dim != h->m->head_dim && ti != 6)
		return fail(
		        h, PE_EFORMAT,
		        "%srope_type '%s': these layers' heads are global_head_dim %zu wide, but "
		        "the reference computes this type's frequencies for head_dim %zu (only "
		        "proportional reads global_head_dim)",
		        where, rope_types[ti], c->head_dim, h->m->head_dim);
	double theta = 10000.0, partial = 1.0;
	int rc = number(h, where, block, "rope_theta", &theta);
	if (rc < 0)
		return PE_EFORMAT;
	if (rc == 0 && !isnan(c->top_theta))
		theta = c->top_theta;
	if (!(theta > 1.0))
		return fail(h, PE_EFORMAT, "%srope_theta: %.17g must exceed 1", where, theta);
	rc = number(h, where, block, "partial_rotary_factor", &partial);
	if (rc < 0)
		return PE_EFORMAT;
	if (!isnan(c->top_partial))
		partial = c->top_partial; /* the top-level value overwrites the block's */
	/* Gemma 4's own default RoPE (Gemma4TextRotaryEmbedding.compute_default_rope_parameters)
	 * rotates the whole head_dim and never reads partial_rotary_factor. */
	if (ti == 0 && strncmp(h->arch->model_type, "gemma4", 6) == 0)
		partial = 1.0;
	if (ti == 6) {
		/* proportional: the factor says which pairs turn; the frequencies span the
		 * whole head (0 is allowed: no pair turns). */
		if (!(partial >= 0.0 && partial <= 1.0))
			return fail(h, PE_EFORMAT,
			            "%spartial_rotary_factor: %.17g is not in [0, 1]", where,
			            partial);
		return proportional_spec(h, c, where, block, theta, partial, rc > 0, b, train);
	}
	if (!(partial > 0.0 && partial <= 1.0))
		return fail(h, PE_EFORMAT, "%spartial_rotary_factor: %.17g is not in (0, 1]", where,
		            partial);
	size_t d_rot = (size_t)((double)c->head_dim * partial);
	if (d_rot < 2 || d_rot % 2)
		return fail(h, PE_EFORMAT,
		            "%spartial_rotary_factor: %.17g of head_dim %zu gives %zu rotated "
		            "dimensions, not an even number >= 2",
		            where, partial, c->head_dim, d_rot);

	put_rope_start(h, c, theta, b);
	if (partial != 1.0)
		put_key(b, "rotary", partial);
	*train = c->max_pos;
	if (ti == 0) {
		/* said explicitly: freqs then shows the model, not hypothetical scalings */
		strbuf_addf(b, ",scaling=none");
		return PE_OK;
	}

	/* Where the pretraining length comes from (standardize_rope_params). */
	double original = c->max_pos;
	int orig_rc = number(h, where, block, "original_max_position_embeddings", &original);
	if (orig_rc < 0)
		return PE_EFORMAT;
	if (!c->per_layer && c->top_original_set)
		original = c->top_original;
	double factor = NAN;
	if (number(h, where, block, "factor", &factor) < 0)
		return PE_EFORMAT;
	strbuf_addf(b, ",scaling=%s", rope_types[ti]);

	switch (ti) {
	case 1: /* linear */
	case 2: /* dynamic */
		if (isnan(factor))
			return fail(h, PE_EFORMAT, "%s: rope_type '%s' needs 'factor'", where,
			            rope_types[ti]);
		if ((st = put_factor(h, b, where, factor, 1)) != PE_OK)
			return st;
		if (ti == 2) {
			/* Dynamic NTK compares with max_position_embeddings itself. */
			if (!(c->max_pos > 0))
				return fail(h, PE_EFORMAT,
				            "max_position_embeddings: dynamic scaling needs it");
			put_key(b, "original", c->max_pos);
		}
		return PE_OK;
	case 3: { /* yarn */
		if (!(original > 0))
			return fail(h, PE_EFORMAT,
			            "%soriginal_max_position_embeddings: yarn needs it (or "
			            "max_position_embeddings)",
			            where);
		if (isnan(factor)) {
			if (!(c->max_pos > 0))
				return fail(h, PE_EFORMAT, "%s: yarn needs 'factor'", where);
			factor = c->max_pos / original;
		}
		if ((st = put_factor(h, b, where, factor, 1)) != PE_OK)
			return st;
		put_key(b, "original", original);
		double v, fast = 32.0, slow = 1.0;
		/* "x or 32": 0 and null take the default, as in the reference */
		if ((rc = number(h, where, block, "beta_fast", &v)) < 0)
			return PE_EFORMAT;
		if (rc && v != 0.0)
			fast = v;
		if ((rc = number(h, where, block, "beta_slow", &v)) < 0)
			return PE_EFORMAT;
		if (rc && v != 0.0)
			slow = v;
		if (!(fast > 0) || !(slow > 0))
			return fail(h, PE_EFORMAT, "%sbeta_fast, beta_slow: must be > 0", where);
		if (fast < slow &&
		    (st = warn(h,
		               "%sbeta_fast %.17g is below beta_slow %.17g (the reference warns)",
		               where, fast, slow)) != PE_OK)
			return st;
		put_key(b, "beta-fast", fast);
		put_key(b, "beta-slow", slow);
		double ms = 0, msa = 0, att;
		if ((rc = number(h, where, block, "mscale", &ms)) < 0)
			return PE_EFORMAT;
		if (rc && ms != 0.0)
			put_key(b, "mscale", ms);
		if ((rc = number(h, where, block, "mscale_all_dim", &msa)) < 0)
			return PE_EFORMAT;
		if (rc && msa != 0.0)
			put_key(b, "mscale-all-dim", msa);
		if ((rc = number(h, where, block, "attention_factor", &att)) < 0)
			return PE_EFORMAT;
		if (rc)
			put_key(b, "attention-factor", att);
		const struct json *tr = present(block, "truncate");
		if (tr && tr->type != JSON_BOOL)
			return fail(h, PE_EFORMAT, "%struncate: is not true or false", where);
		if (tr && !tr->boolean)
			strbuf_addf(b, ",truncate=0");
		double implicit = c->max_pos / original;
		if (c->max_pos > 0 && implicit != factor && implicit != 1.0 &&
		    (st = warn(h,
		               "%sfactor %.17g differs from max_position_embeddings / "
		               "original_max_position_embeddings = %.17g (the reference warns and "
		               "uses factor)",
		               where, factor, implicit)) != PE_OK)
			return st;
		*train = original;
		return PE_OK;
	}
	case 4: { /* llama3 */
		static const char *const need[] = {"factor", "low_freq_factor", "high_freq_factor",
		                                   "original_max_position_embeddings"};
		for (size_t i = 0; i < 4; i++)
			if (!present(block, need[i]) && !(i == 3 && c->top_original_set))
				return fail(h, PE_EFORMAT, "%s: rope_type 'llama3' needs '%s'",
				            where, need[i]);
		double low = NAN, high = NAN;
		if (number(h, where, block, "low_freq_factor", &low) < 0 ||
		    number(h, where, block, "high_freq_factor", &high) < 0)
			return PE_EFORMAT;
		if (!(factor > 0) || !(low > 0) || !(high > low))
			return fail(h, PE_EFORMAT,
			            "%s: llama3 needs factor > 0 and high_freq_factor > "
			            "low_freq_factor > 0",
			            where);
		put_key(b, "factor", factor);
		put_key(b, "original", original);
		put_key(b, "low", low);
		put_key(b, "high", high);
		*train = original;
		return PE_OK;
	}
	case 5: { /* longrope */
		if (!(original > 0))
			return fail(h, PE_EFORMAT,
			            "%soriginal_max_position_embeddings: longrope needs it", where);
		if (isnan(factor)) {
			if (!(c->max_pos > 0))
				return fail(h, PE_EFORMAT, "%s: longrope needs 'factor'", where);
			factor = c->max_pos / original;
		}
		if ((st = put_factor(h, b, where, factor, 0)) != PE_OK)
			return st;
		put_key(b, "original", original);
		double att;
		if ((rc = number(h, where, block, "attention_factor", &att)) < 0)
			return PE_EFORMAT;
		if (rc)
			put_key(b, "attention-factor", att);
		if ((st = put_list(h, b, where, block, "long_factor", "long-factor", d_rot / 2)) ||
		    (st = put_list(h, b, where, block, "short_factor", "short-factor", d_rot / 2)))
			return st;
		if ((st = put_mscales(h, b, where, block, original, orig_rc)) != PE_OK)
			return st;
		*train = original;
		return PE_OK;
	}
	}
	return PE_OK;
}

/*
 * short_mscale/long_mscale: transformers' PhiMoE (modeling_phimoe.py,
 * PhimoeRotaryEmbedding) multiplies cos and sin by long_mscale when the
 * sequence length exceeds rope_scaling["original_max_position_embeddings"],
 * else by short_mscale, in place of longrope's attention factor (a missing
 * one keeps it). Other architectures' modeling does not read them.
 */
static enum pe_status put_mscales(struct hf *h, struct strbuf *b, const char *where,
                                  const struct json *block, double original, int block_original)
{
	int phimoe = strcmp(h->arch->model_type, "phimoe") == 0;
	static const char *const keys[] = {"short_mscale", "long_mscale"};
	static const char *const spec_keys[] = {"short-mscale", "long-mscale"};
	for (int k = 0; k < 2; k++) {
		const struct json *v = present(block, keys[k]);
		if (!v || v->type == JSON_NULL)
			continue;
		if (!phimoe)
			return warn(
			        h,
			        "%sshort_mscale/long_mscale: the %s modeling does not read them "
			        "(only PhiMoE's does); ignored",
			        where, h->arch->model_type);
		double ms;
		if (number(h, where, block, keys[k], &ms) < 0)
			return PE_EFORMAT;
		if (!(ms > 0.0))
			return fail(h, PE_EFORMAT, "%s%s: %.17g is not a number > 0", where,
			            keys[k], ms);
		/* PhiMoE switches its mscale at the block's own original length;
		 * posenc has one switch length for frequencies and mscale. */
		double own;
		if (!block_original ||
		    number(h, where, block, "original_max_position_embeddings", &own) <= 0)
			return fail(h, PE_EFORMAT,
			            "%soriginal_max_position_embeddings: PhiMoE compares the "
			            "sequence length with the rope_scaling block's own value to "
			            "pick %s; the block has none",
			            where, keys[k]);
		if (own != original)
			return fail(
			        h, PE_EFORMAT,
			        "%soriginal_max_position_embeddings: %.17g differs from the "
			        "top-level %.17g: PhiMoE would pick the mscale at one length and "
			        "the factors at the other, which posenc cannot express",
			        where, own, original);
		put_key(b, spec_keys[k], ms);
	}
	return PE_OK;
}

/*
 * Qwen2-VL/2.5-VL (mrope_section, rope_type "mrope" or "default"): the text
 * positions are plain RoPE, which is the model's spec; the note gives the
 * mrope spec for image and video tokens. The sections must be three whole
 * numbers adding up to the rotary pairs, as apply_multimodal_rotary_pos_emb
 * splits the cos/sin tables by them.
 */
static enum pe_status mrope_note(struct hf *h, const struct rope_ctx *c, const struct json *block)
{
	const struct json *ms = present(block, "mrope_section");
	double sec[3] = {0, 0, 0};
	if (ms->type != JSON_ARRAY || ms->n != 3)
		return fail(h, PE_EFORMAT,
		            "mrope_section: is not a list of 3 numbers (pairs per temporal, height "
		            "and width axis)");
	for (size_t i = 0; i < 3; i++) {
		const struct json *x = &ms->items[i];
		if (x->type != JSON_NUMBER || !(x->number >= 0.0 && x->number <= 1e6) ||
		    x->number != floor(x->number))
			return fail(h, PE_EFORMAT, "mrope_section[%zu]: is not a whole number >= 0",
			            i);
		sec[i] = x->number;
	}
	double partial = isnan(c->top_partial) ? 1.0 : c->top_partial;
	double pairs = floor((double)c->head_dim * partial) / 2.0;
	if (sec[0] + sec[1] + sec[2] != pairs)
		return fail(h, PE_EFORMAT,
		            "mrope_section: %.17g + %.17g + %.17g pairs is not the %.17g rotary "
		            "pairs",
		            sec[0], sec[1], sec[2], pairs);
	int interleaved = 0;
	const struct json *il = present(block, "mrope_interleaved");
	if (il && il->type != JSON_NULL) {
		if (il->type != JSON_BOOL)
			return fail(h, PE_EFORMAT, "mrope_interleaved: is not true or false");
		interleaved = il->boolean;
	}
	struct strbuf nb = {0};
	strbuf_addf(&nb,
	            "M-RoPE sections %.17g/%.17g/%.17g (pairs per temporal/height/width axis): "
	            "text positions are equal on every axis, which is plain RoPE (what this "
	            "spec is); image and video tokens: -s mrope:",
	            sec[0], sec[1], sec[2]);
	/* rope_theta as rope_spec reads it: the block's, else the top level's */
	double theta = isnan(c->top_theta) ? 10000.0 : c->top_theta;
	if (number(h, "", block, "rope_theta", &theta) < 0)
		return PE_EFORMAT;
	char *spec = pe_asprintf("mrope:base=%.17g,t=%.17g,h=%.17g,w=%.17g%s", theta, sec[0],
	                         sec[1], sec[2], interleaved ? ",interleaved=1" : "");
	if (!spec)
		return PE_ENOMEM;
	strbuf_addf(&nb, "%s with text=N,frames=F,height=H,width=W", spec + strlen("mrope:"));
	const struct json *vc = present(h->root, "vision_config");
	const struct json *tps =
	        vc && vc->type == JSON_OBJECT ? present(vc, "tokens_per_second") : NULL;
	if (tps && tps->type == JSON_NUMBER)
		strbuf_addf(&nb, " (a video: tstep=%.17g x second_per_grid_t)", tps->number);
	strbuf_addf(&nb, " or with --position-ids FILE (any sequence); either, given with this "
	                 "model spec, selects that mrope spec");
	char *labelled = pe_asprintf("%s,label=%s", spec, h->label);
	free(spec);
	if (nb.failed || !labelled) {
		free(nb.buf);
		free(labelled);
		return PE_ENOMEM;
	}
	h->m->note = nb.buf;
	free(h->m->mrope_spec);
	h->m->mrope_spec = labelled;
	return PE_OK;
}

/* ---- layers ---------------------------------------------------------- */

struct layer {
	const char *spec; /* NULL: no positional encoding (NoPE) */
	const char *type;
};

/* The spec text of one rope block as a kind of layer reads it. */
struct spec_cache {
	const struct json *block;
	int local, global; /* Gemma 3's local base; Gemma 4's global head width */
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
	return type;
}

static enum pe_status add_group(struct hf *h, const char *name, const char *spec)
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
	/* A name from the config (a layer type) goes into spec labels and is
	 * matched by --layer: only letters, digits, '_', '-' and '.', so that
	 * "g,rotary=0.5" cannot add a key to the spec (nor escapes reach a
	 * terminal). */
	for (char *c = g->name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' || *c == '.'))
			*c = '_';
	return PE_OK;
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
			enum pe_status st = add_group(h, name, ls[i].spec);
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

/* Which layers carry no positional encoding (Llama 4, SmolLM3). */
static enum pe_status nope_flags(struct hf *h, size_t n, unsigned char *nope)
{
	const struct json *list = present(h->cfg, "no_rope_layers");
	size_t interval = 0;
	int rc = count(h, "", h->cfg, "no_rope_layer_interval", &interval);
	if (rc < 0)
		return PE_EFORMAT;
	if (list) {
		if (list->type != JSON_ARRAY || list->n != n)
			return fail(h, PE_EFORMAT,
			            "no_rope_layers: is not a list of %zu flags (one per layer)",
			            n);
		for (size_t i = 0; i < n; i++) {
			const struct json *x = &list->items[i];
			if (x->type != JSON_NUMBER || (x->number != 0.0 && x->number != 1.0))
				return fail(h, PE_EFORMAT, "no_rope_layers[%zu]: is not 0 or 1", i);
			/* 1 means the layer uses RoPE, as the reference reads it */
			nope[i] = x->number == 0.0;
		}
	} else if (interval) {
		for (size_t i = 0; i < n; i++)
			nope[i] = (i + 1) % interval == 0;
	}
	return PE_OK;
}

static enum pe_status layer_types(struct hf *h, size_t n, const char **types)
{
	const struct json *lt = present(h->cfg, "layer_types");
	const char *mt = h->arch->model_type;
	for (size_t i = 0; i < n; i++)
		types[i] = "full_attention";
	if (lt) {
		if (lt->type != JSON_ARRAY || lt->n != n)
			return fail(h, PE_EFORMAT,
			            "layer_types: is not a list of %zu names (num_hidden_layers)",
			            n);
		for (size_t i = 0; i < n; i++) {
			if (lt->items[i].type != JSON_STRING)
				return fail(h, PE_EFORMAT, "layer_types[%zu]: is not a string", i);
			types[i] = lt->items[i].string;
		}
		return PE_OK;
	}
	size_t pattern = 0;
	if (strncmp(mt, "gemma3", 6) == 0) {
		pattern = 6; /* Gemma3TextConfig's default */
		if (count(h, "", h->cfg, "sliding_window_pattern", &pattern) < 0)
			return PE_EFORMAT;
	} else if (strcmp(mt, "gemma2") == 0) {
		pattern = 2;
	}
	for (size_t i = 0; pattern && i < n; i++)
		types[i] = (i + 1) % pattern ? "sliding_attention" : "full_attention";
	return PE_OK;
}

static enum pe_status read_rope(struct hf *h)
{
	const struct json *cfg = h->cfg;
	struct pe_model *m = h->m;
	struct rope_ctx c = {.top_theta = NAN, .top_partial = NAN};
	size_t heads = 0, hidden = 0, hd = 0, n = 0;
	int rc;
	enum pe_status st;

	if ((rc = count(h, "", cfg, "qk_rope_head_dim", &hd)) < 0)
		return PE_EFORMAT;
	if (!rc && (rc = count(h, "", cfg, "head_dim", &hd)) < 0)
		return PE_EFORMAT;
	if (!rc) {
		if ((rc = count_either(h, cfg, "hidden_size", "n_embd", &hidden)) <= 0)
			return rc < 0 ? PE_EFORMAT
			              : fail(h, PE_EFORMAT,
			                     "hidden_size: missing (and no head_dim)");
		if ((rc = count_either(h, cfg, "num_attention_heads", "n_head", &heads)) <= 0)
			return rc < 0 ? PE_EFORMAT
			              : fail(h, PE_EFORMAT,
			                     "num_attention_heads: missing (and no head_dim)");
		hd = hidden / heads; /* integer division, as the reference */
	}
	c.head_dim = hd;
	m->head_dim = hd;
	/* Gemma 4: full-attention layers have heads of global_head_dim (its
	 * Gemma4TextAttention), and their proportional RoPE reads that key (else
	 * hidden_size // num_attention_heads, which must then agree). */
	int gemma4 = strncmp(h->arch->model_type, "gemma4", 6) == 0;
	size_t global_hd = hd;
	if (gemma4) {
		size_t g = 0;
		if ((rc = count(h, "", cfg, "global_head_dim", &g)) < 0)
			return PE_EFORMAT;
		if (rc && g)
			global_hd = g;
		if (!present(cfg, "layer_types"))
			return fail(h, PE_EFORMAT,
			            "layer_types: missing; Gemma 4 configs list which layers are "
			            "sliding and which full, and posenc will not guess");
		if (!(rc && g) && count_either(h, cfg, "hidden_size", "n_embd", &hidden) > 0 &&
		    count_either(h, cfg, "num_attention_heads", "n_head", &heads) > 0 &&
		    hidden / heads != hd)
			return fail(
			        h, PE_EFORMAT,
			        "global_head_dim: missing, so the reference's proportional RoPE "
			        "would use hidden_size // num_attention_heads = %zu, not the "
			        "head_dim %zu of the attention",
			        hidden / heads, hd);
	}
	c.layout = h->arch->layout;
	/* DeepSeek-V3 in transformers: rope_interleave (default true) picks the pairing. */
	const struct json *ri = present(cfg, "rope_interleave");
	if (ri && ri->type != JSON_BOOL)
		return fail(h, PE_EFORMAT, "rope_interleave: is not true or false");
	if (ri)
		c.layout = ri->boolean ? "interleaved" : "half";
	size_t rotary_dim = 0;
	if ((rc = count(h, "", cfg, "rotary_dim", &rotary_dim)) < 0)
		return PE_EFORMAT;
	if (rc)
		c.top_partial = (double)rotary_dim / (double)hd; /* GPT-J, CodeGen: a width */
	double v;
	if ((rc = number(h, "", cfg, "partial_rotary_factor", &v)) < 0)
		return PE_EFORMAT;
	if (rc)
		c.top_partial = v;
	else if ((rc = number(h, "", cfg, "rotary_pct", &v)) < 0)
		return PE_EFORMAT;
	else if (rc)
		c.top_partial = v; /* GPT-NeoX */
	if ((rc = number(h, "", cfg, "rope_theta", &v)) < 0)
		return PE_EFORMAT;
	if (rc)
		c.top_theta = v;
	else if ((rc = number(h, "", cfg, "rotary_emb_base", &v)) < 0)
		return PE_EFORMAT;
	else if (rc)
		c.top_theta = v;
	if ((rc = number(h, "", cfg, "max_position_embeddings", &c.max_pos)) < 0)
		return PE_EFORMAT;
	if ((rc = number(h, "", cfg, "original_max_position_embeddings", &c.top_original)) < 0)
		return PE_EFORMAT;
	c.top_original_set = rc;
	if ((rc = count(h, "", cfg, "num_hidden_layers", &n)) < 0)
		return PE_EFORMAT;
	if (!rc)
		n = 1;
	if (n > 4096) /* real models have a few hundred; the grouping is quadratic */
		return fail(h, PE_EFORMAT,
		            "num_hidden_layers: %zu is more than the 4096 posenc reads", n);
	m->n_layers = rc ? n : 0;
	m->context = c.max_pos;

	/* rope_scaling wins over rope_parameters when both are set, as in the reference. */
	const char *bname = "rope_scaling";
	const struct json *block = present(cfg, "rope_scaling");
	if (block && block->type == JSON_OBJECT && block->n == 0)
		block = NULL;
	if (!block) {
		bname = "rope_parameters";
		block = present(cfg, "rope_parameters");
	}
	if (block && block->type != JSON_OBJECT)
		return fail(h, PE_EFORMAT, "%s: is not an object", bname);

	struct spec_cache *cache = NULL;
	size_t n_cache = 0;
	const char **types = calloc(n, sizeof(*types));
	unsigned char *nope = calloc(n, 1);
	struct layer *ls = calloc(n, sizeof(*ls));
	if (!types || !nope || !ls) {
		st = PE_ENOMEM;
		goto done;
	}
	if ((st = layer_types(h, n, types)) != PE_OK || (st = nope_flags(h, n, nope)) != PE_OK)
		goto done;
	/* Keyed per layer type when every key names a layer type. */
	int per_type = 0;
	if (block && block->n && present(cfg, "layer_types")) {
		per_type = 1;
		for (size_t i = 0; i < block->n && per_type; i++) {
			int found = 0;
			for (size_t k = 0; k < n && !found; k++)
				found = strcmp(block->keys[i], types[k]) == 0;
			per_type &= found;
		}
	}
	double local_base = NAN;
	if ((rc = number(h, "", cfg, "rope_local_base_freq", &local_base)) < 0) {
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
			b = present(block, types[i]);
			if (!b || b->type != JSON_OBJECT) {
				st = fail(h, PE_EFORMAT, "%s.%s: missing or not an object", bname,
				          types[i]);
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
			/* Gemma 3: local layers at their own base, never scaled. */
			struct rope_ctx lc = c;
			lc.top_theta = local_base;
			st = rope_spec(h, &lc, "rope_local_base_freq: ", NULL, &sb, &t);
		} else {
			struct rope_ctx lc = c;
			if (global)
				lc.head_dim = global_hd;
			st = rope_spec(h, &lc, where, b, &sb, &t);
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
	m->train_context = train > 0 ? train : c.max_pos;
	if (present(block, "mrope_section") && (st = mrope_note(h, &c, block)) != PE_OK)
		goto done;
	st = group_layers(h, ls, n);
done:
	for (size_t k = 0; k < n_cache; k++)
		free(cache[k].spec);
	free(cache);
	free(ls);
	free(types);
	free(nope);
	return st;
}

/* ---- the other encodings --------------------------------------------- */

static int is_pow2(size_t x)
{
	return x && !(x & (x - 1));
}

static enum pe_status read_alibi(struct hf *h)
{
	const struct json *cfg = h->cfg;
	size_t heads = 0;
	const char *form = "official"; /* BLOOM adds m * j (the key position) */
	if (strcmp(h->arch->model_type, "mpt") == 0) {
		const struct json *ac = present(cfg, "attn_config");
		const struct json *al = present(ac, "alibi");
		if (!al || al->type != JSON_BOOL || !al->boolean)
			return fail(h, PE_EUNSUPPORTED,
			            "attn_config.alibi: this MPT uses no ALiBi (learned positions "
			            "come from the weights: -s file:...)");
		double max = 8.0;
		if (number(h, "attn_config.", ac, "alibi_bias_max", &max) < 0)
			return PE_EFORMAT;
		if (count(h, "", cfg, "n_heads", &heads) <= 0)
			return fail(h, PE_EFORMAT, "n_heads: missing");
		if (max != 8.0 || !is_pow2(heads))
			return fail(h, PE_EUNSUPPORTED,
			            "attn_config.alibi_bias_max: posenc computes the slopes "
			            "2^(-8k/heads) of alibi_bias_max 8 with a power-of-two head "
			            "count (got %.17g, %zu heads)",
			            max, heads);
		form = "paper"; /* MPT's bias is -m (i - j) up to a per-row constant */
	} else {
		int rc = count_either(h, cfg, "n_head", "num_attention_heads", &heads);
		if (rc <= 0)
			return rc < 0 ? PE_EFORMAT : fail(h, PE_EFORMAT, "n_head: missing");
	}
	size_t layers = 0;
	if (count(h, "", cfg, "n_layer", &layers) < 0 || count(h, "", cfg, "n_layers", &layers) < 0)
		return PE_EFORMAT;
	h->m->n_layers = layers;
	char *spec = pe_asprintf("alibi:heads=%zu,form=%s,label=%s", heads, form, h->label);
	if (!spec)
		return PE_ENOMEM;
	enum pe_status st = add_group(h, "all", spec);
	free(spec);
	return st;
}

static enum pe_status read_t5(struct hf *h)
{
	const struct json *cfg = h->cfg;
	size_t buckets = 32, dist = 128, layers = 0;
	if (count(h, "", cfg, "relative_attention_num_buckets", &buckets) < 0 ||
	    count(h, "", cfg, "relative_attention_max_distance", &dist) < 0 ||
	    count(h, "", cfg, "d_kv", &h->m->head_dim) < 0 ||
	    count(h, "", cfg, "num_layers", &layers) < 0)
		return PE_EFORMAT;
	h->m->n_layers = layers;
	/* The encoder looks both ways, the decoder only back. */
	for (int dec = 0; dec < 2; dec++) {
		char *spec =
		        pe_asprintf("t5:buckets=%zu,max-distance=%zu,bidirectional=%d,"
		                    "label=%s %s",
		                    buckets, dist, !dec, h->label, dec ? "decoder" : "encoder");
		if (!spec)
			return PE_ENOMEM;
		enum pe_status st = add_group(h, dec ? "decoder" : "encoder", spec);
		free(spec);
		if (st != PE_OK)
			return st;
	}
	return PE_OK;
}

static enum pe_status read_learned(struct hf *h)
{
	const struct json *cfg = h->cfg;
	struct pe_model *m = h->m;
	size_t rows = 0, cols = 0;
	if (count(h, "", cfg, "n_positions", &rows) < 0 ||
	    (!rows && count(h, "", cfg, "max_position_embeddings", &rows) < 0))
		return PE_EFORMAT;
	if (count(h, "", cfg, "n_embd", &cols) < 0 ||
	    (!cols && count(h, "", cfg, "hidden_size", &cols) < 0) ||
	    (!cols && count(h, "", cfg, "dim", &cols) < 0))
		return PE_EFORMAT;
	if (!rows || !cols)
		return fail(h, PE_EFORMAT, "n_positions, n_embd: the table shape is missing");
	const struct json *pet = present(cfg, "position_embedding_type");
	if (pet && (pet->type != JSON_STRING || strcmp(pet->string, "absolute") != 0))
		return fail(h, PE_EUNSUPPORTED,
		            "position_embedding_type: only 'absolute' tables are supported");
	m->learned = 1;
	m->table_rows = rows;
	m->table_cols = cols;
	m->context = (double)rows;
	m->train_context = (double)rows;
	const char *tensor = strcmp(h->arch->model_type, "gpt2") == 0 ? "wpe.weight"
	                     : strcmp(h->arch->model_type, "gpt_neo") == 0
	                             ? "transformer.wpe.weight"
	                     : strcmp(h->arch->model_type, "distilbert") == 0
	                             ? "distilbert.embeddings.position_embeddings.weight"
	                             : "bert.embeddings.position_embeddings.weight";
	m->note = pe_asprintf("a learned absolute table of %zu positions x %zu dimensions: its "
	                      "values are in the weights, not the config; use "
	                      "-s file:model.safetensors#%s",
	                      rows, cols, tensor);
	return m->note ? PE_OK : PE_ENOMEM;
}

enum pe_status pe_model_from_hf_json(const char *text, size_t len, const char *label,
                                     struct pe_model **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	char *jerr = NULL;
	struct json *root = json_parse(text, len, &jerr);
	if (!root) {
		if (err)
			*err = pe_asprintf("not JSON: %s", jerr ? jerr : "malformed");
		free(jerr);
		return PE_EFORMAT;
	}
	struct pe_model *m = calloc(1, sizeof(*m));
	struct hf h = {.root = root, .cfg = root, .m = m, .err = err};
	enum pe_status st = PE_OK;
	if (!m) {
		st = PE_ENOMEM;
		goto done;
	}
	if (root->type != JSON_OBJECT) {
		st = fail(&h, PE_EFORMAT, "the config is not a JSON object");
		goto done;
	}
	const struct json *tc = present(root, "text_config");
	if (tc && tc->type == JSON_OBJECT)
		h.cfg = tc;
	const struct json *mt = present(h.cfg, "model_type");
	if (!mt)
		mt = present(root, "model_type");
	if (!mt || mt->type != JSON_STRING) {
		st = fail(&h, PE_EFORMAT,
		          "model_type: missing (posenc needs it to know how the architecture "
		          "encodes positions)");
		goto done;
	}
	for (size_t i = 0; i < sizeof(archs) / sizeof(archs[0]); i++)
		if (strcmp(archs[i].model_type, mt->string) == 0)
			h.arch = &archs[i];
	if (!h.arch) {
		struct strbuf known = {0};
		for (size_t i = 0; i < sizeof(archs) / sizeof(archs[0]); i++)
			strbuf_addf(&known, "%s%s", i ? ", " : "", archs[i].model_type);
		st = fail(&h, PE_EUNSUPPORTED,
		          "model_type: '%s' is not an architecture posenc knows (known: %s)",
		          mt->string, known.buf ? known.buf : "");
		free(known.buf);
		goto done;
	}
	m->model_type = pe_strdup(mt->string);
	m->name = pe_strdup(label ? label : mt->string);
	h.label = m->name;
	if (!m->model_type || !m->name) {
		st = PE_ENOMEM;
		goto done;
	}
	/* Falcon: ALiBi or RoPE by a flag. */
	const struct json *falcon_alibi = present(h.cfg, "alibi");
	int falcon = strcmp(mt->string, "falcon") == 0 && falcon_alibi &&
	             falcon_alibi->type == JSON_BOOL && falcon_alibi->boolean;
	switch (falcon ? ENC_ALIBI : h.arch->enc) {
	case ENC_ROPE:
		st = read_rope(&h);
		break;
	case ENC_ALIBI:
		st = read_alibi(&h);
		break;
	case ENC_T5:
		st = read_t5(&h);
		break;
	case ENC_LEARNED:
		st = read_learned(&h);
		break;
	}
	if (st == PE_OK && !(m->train_context > 0))
		m->train_context = m->context;
	if (st == PE_OK)
		st = pe_model_check_specs(m, err);
done:
	json_free(root);
	if (st != PE_OK) {
		if (st == PE_ENOMEM && err && !*err)
			*err = pe_strdup("out of memory");
		pe_model_destroy(m);
		return st;
	}
	*out = m;
	return PE_OK;
}
