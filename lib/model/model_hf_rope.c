/*
 * RoPE from a config.json: the rope block (rope_scaling / rope_parameters)
 * as transformers' modeling_rope_utils.py reads it, and the per-layer
 * structure (layer types, local bases, NoPE layers) as each architecture's
 * configuration class and modeling file build it. doc/models.md restates
 * the rules with their sources.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_hf.h"

/* A key path prefix ("rope_scaling.") without its separator, for "%.*s: ". */
static int path_len(const char *where)
{
	size_t n = strlen(where);
	while (n && (where[n - 1] == '.' || where[n - 1] == ' ' || where[n - 1] == ':'))
		n--;
	return (int)n;
}
#define PATH(w) path_len(w), (w)

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
        "alpha", /* HunYuan's NTK-alpha (modeling_hunyuan_v1_dense.py) */
        NULL,
};

static const char *const rope_types[] = {"default", "linear",   "dynamic",      "yarn",
                                         "llama3",  "longrope", "proportional", NULL};

/*
 * Keys no rope type reads: transformers (rope_config_validation) warns
 * "Unrecognized keys" and computes without them; so does posenc.
 */
static enum pe_status check_block_keys(struct hf *h, const char *where, const struct json *b)
{
	for (size_t i = 0; i < b->n; i++) {
		int known = 0;
		for (size_t k = 0; block_keys[k]; k++)
			known |= strcmp(b->keys[i], block_keys[k]) == 0;
		if (known)
			continue;
		enum pe_status st = hf_warn(h,
		                            "%.*s.%s: unknown key, ignored (the reference warns "
		                            "about unrecognized rope keys and goes on)",
		                            PATH(where), b->keys[i]);
		if (st != PE_OK)
			return st;
	}
	return PE_OK;
}

static enum pe_status put_list(struct hf *h, struct strbuf *b, const char *where,
                               const struct json *block, const char *key, const char *spec_key,
                               size_t want)
{
	const struct json *v = hf_present(block, key);
	if (!v)
		return hf_fail(h, PE_EFORMAT, "%.*s: longrope needs '%s'", PATH(where), key);
	if (v->type != JSON_ARRAY)
		return hf_fail(h, PE_EFORMAT, "%s%s: is not a list of numbers", where, key);
	if (v->n != want)
		return hf_fail(h, PE_EFORMAT, "%s%s: has %zu numbers, the rotary width needs %zu",
		               where, key, v->n, want);
	strbuf_addf(b, ",%s=", spec_key);
	for (size_t i = 0; i < v->n; i++) {
		const struct json *x = &v->items[i];
		if (x->type != JSON_NUMBER || !isfinite(x->number) || x->number <= 0.0)
			return hf_fail(h, PE_EFORMAT, "%s%s[%zu]: is not a positive number", where,
			               key, i);
		if (i)
			strbuf_add(b, "/", 1);
		hf_put_number(b, x->number);
	}
	return PE_OK;
}

struct rope_ctx {
	size_t head_dim;
	double max_pos;       /* max_position_embeddings; 0 if absent */
	int top_original_set; /* Phi-3: original_max_position_embeddings at top level */
	double top_original;
	double top_theta;     /* rope_theta (or rotary_emb_base) at top level; NaN if absent */
	double top_partial;   /* partial_rotary_factor at top level; NaN if absent */
	double class_partial; /* the configuration class's default; NaN if none */
	int per_layer;        /* the block is one of several keyed by layer type */
	const char *layout;   /* "half" or "interleaved" */
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
		return hf_fail(h, PE_EFORMAT, "%sfactor: %.17g must be > 0", where, factor);
	if (warn_below_one && factor < 1.0) {
		enum pe_status st =
		        hf_warn(h, "%sfactor %.17g is below 1 (the reference warns and goes on)",
		                where, factor);
		if (st != PE_OK)
			return st;
	}
	hf_put_key(b, "factor", factor);
	return PE_OK;
}

static enum pe_status put_mscales(struct hf *h, struct strbuf *b, const char *where,
                                  const struct json *block, double original, int block_original);

/* "rope:base=..,layout=..": head= too when the layers are wider than the model's head_dim. */
static void put_rope_start(struct hf *h, const struct rope_ctx *c, double theta, struct strbuf *b)
{
	strbuf_addf(b, "rope:base=");
	hf_put_number(b, theta);
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
		return hf_fail(h, PE_EFORMAT,
		               "%.*s: proportional RoPE needs an even head width, not %zu",
		               PATH(where), c->head_dim);
	if (!partial_given && isnan(c->top_partial) &&
	    (st = hf_warn(h,
	                  "%spartial_rotary_factor: missing, so every pair turns and proportional "
	                  "is linear scaling (the reference warns)",
	                  where)) != PE_OK)
		return st;
	put_rope_start(h, c, theta, b);
	strbuf_addf(b, ",scaling=proportional");
	double factor = NAN;
	if (hf_number(h, where, block, "factor", &factor) < 0)
		return PE_EFORMAT;
	if (!isnan(factor) && (st = put_factor(h, b, where, factor, 0)) != PE_OK)
		return st;
	if (partial != 1.0)
		hf_put_key(b, "proportion", partial);
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
	const struct json *t = hf_present(block, "rope_type");
	if (!t)
		t = hf_present(block, "type");
	if (t) {
		if (t->type != JSON_STRING)
			return hf_fail(h, PE_EFORMAT, "%srope_type: is not a string", where);
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
		return hf_fail(h, PE_EFORMAT,
		               "%srope_type: '%s' is not one of default, linear, dynamic, yarn, "
		               "llama3, longrope, proportional (or the aliases su, mrope)",
		               where, type);

	if (c->head_dim != h->m->head_dim && ti != 6)
		return hf_fail(
		        h, PE_EFORMAT,
		        "%srope_type '%s': these layers' heads are global_head_dim %zu wide, but "
		        "the reference computes this type's frequencies for head_dim %zu (only "
		        "proportional reads global_head_dim)",
		        where, rope_types[ti], c->head_dim, h->m->head_dim);
	double theta = 10000.0, partial = 1.0;
	int rc = hf_number(h, where, block, "rope_theta", &theta);
	if (rc < 0)
		return PE_EFORMAT;
	if (rc == 0 && !isnan(c->top_theta))
		theta = c->top_theta;
	if (!(theta > 1.0))
		return hf_fail(h, PE_EFORMAT, "%srope_theta: %.17g must exceed 1", where, theta);
	rc = hf_number(h, where, block, "partial_rotary_factor", &partial);
	if (rc < 0)
		return PE_EFORMAT;
	if (!isnan(c->top_partial))
		partial = c->top_partial; /* the top-level value overwrites the block's */
	else if (rc == 0 && !isnan(c->class_partial))
		partial = c->class_partial;
	/* Gemma 4's own default RoPE (Gemma4TextRotaryEmbedding.compute_default_rope_parameters)
	 * rotates the whole head_dim and never reads partial_rotary_factor. */
	if (ti == 0 && strncmp(h->arch->model_type, "gemma4", 6) == 0)
		partial = 1.0;
	if (ti == 6) {
		/* proportional: the factor says which pairs turn; the frequencies span the
		 * whole head (0 is allowed: no pair turns). */
		if (!(partial >= 0.0 && partial <= 1.0))
			return hf_fail(h, PE_EFORMAT,
			               "%spartial_rotary_factor: %.17g is not in [0, 1]", where,
			               partial);
		return proportional_spec(h, c, where, block, theta, partial, rc > 0, b, train);
	}
	if (!(partial > 0.0 && partial <= 1.0))
		return hf_fail(h, PE_EFORMAT, "%spartial_rotary_factor: %.17g is not in (0, 1]",
		               where, partial);
	size_t d_rot = (size_t)((double)c->head_dim * partial);
	if (d_rot < 2 || d_rot % 2)
		return hf_fail(h, PE_EFORMAT,
		               "%spartial_rotary_factor: %.17g of head_dim %zu gives %zu rotated "
		               "dimensions, not an even number >= 2",
		               where, partial, c->head_dim, d_rot);

	/* HunYuan (HunYuanDenseV1RotaryEmbedding): "dynamic" with alpha is a fixed
	 * NTK base, theta * alpha^(d/(d-2)), with no other scaling. */
	const struct json *alpha_v = hf_present(block, "alpha");
	if (alpha_v && ti == 2 && (h->arch->flags & HF_NTK_ALPHA)) {
		double alpha;
		if (hf_number(h, where, block, "alpha", &alpha) < 0)
			return PE_EFORMAT;
		if (!(alpha > 0.0))
			return hf_fail(h, PE_EFORMAT, "%salpha: %.17g must be > 0", where, alpha);
		theta *= pow(alpha, (double)d_rot / (double)(d_rot - 2));
		if (!isfinite(theta) || !(theta > 1.0))
			return hf_fail(h, PE_EFORMAT, "%salpha: %.17g gives no usable base", where,
			               alpha);
		enum pe_status fst = hf_fact(
		        h, "ntk_alpha", "HunYuan NTK-alpha: base = rope_theta * alpha^(d/(d-2))",
		        "%.17g", alpha);
		if (fst != PE_OK)
			return fst;
		ti = 0;
	} else if (alpha_v && (st = hf_warn(h,
	                                    "%.*s.alpha: only HunYuan's modeling reads it "
	                                    "(NTK-alpha); ignored",
	                                    PATH(where))) != PE_OK) {
		return st;
	}

	put_rope_start(h, c, theta, b);
	if (partial != 1.0)
		hf_put_key(b, "rotary", partial);
	*train = c->max_pos;
	if (ti == 0) {
		/* said explicitly: freqs then shows the model, not hypothetical scalings */
		strbuf_addf(b, ",scaling=none");
		return PE_OK;
	}

	/* Where the pretraining length comes from (standardize_rope_params). */
	double original = c->max_pos;
	int orig_rc = hf_number(h, where, block, "original_max_position_embeddings", &original);
	if (orig_rc < 0)
		return PE_EFORMAT;
	if (!c->per_layer && c->top_original_set)
		original = c->top_original;
	double factor = NAN;
	if (hf_number(h, where, block, "factor", &factor) < 0)
		return PE_EFORMAT;
	strbuf_addf(b, ",scaling=%s", rope_types[ti]);

	switch (ti) {
	case 1: /* linear */
	case 2: /* dynamic */
		if (isnan(factor))
			return hf_fail(h, PE_EFORMAT, "%.*s: rope_type '%s' needs 'factor'",
			               PATH(where), rope_types[ti]);
		if ((st = put_factor(h, b, where, factor, 1)) != PE_OK)
			return st;
		if (ti == 2) {
			/* Dynamic NTK compares with max_position_embeddings itself. */
			if (!(c->max_pos > 0))
				return hf_fail(h, PE_EFORMAT,
				               "max_position_embeddings: dynamic scaling needs it");
			hf_put_key(b, "original", c->max_pos);
		}
		return PE_OK;
	case 3: { /* yarn */
		if (!(original > 0))
			return hf_fail(h, PE_EFORMAT,
			               "%soriginal_max_position_embeddings: yarn needs it (or "
			               "max_position_embeddings)",
			               where);
		if (isnan(factor)) {
			if (!(c->max_pos > 0))
				return hf_fail(h, PE_EFORMAT, "%.*s: yarn needs 'factor'",
				               PATH(where));
			factor = c->max_pos / original;
		}
		if ((st = put_factor(h, b, where, factor, 1)) != PE_OK)
			return st;
		hf_put_key(b, "original", original);
		double v, fast = 32.0, slow = 1.0;
		/* "x or 32": 0 and null take the default, as in the reference */
		if ((rc = hf_number(h, where, block, "beta_fast", &v)) < 0)
			return PE_EFORMAT;
		if (rc && v != 0.0)
			fast = v;
		if ((rc = hf_number(h, where, block, "beta_slow", &v)) < 0)
			return PE_EFORMAT;
		if (rc && v != 0.0)
			slow = v;
		if (!(fast > 0) || !(slow > 0))
			return hf_fail(h, PE_EFORMAT, "%sbeta_fast, beta_slow: must be > 0", where);
		if (fast < slow &&
		    (st = hf_warn(
		             h, "%sbeta_fast %.17g is below beta_slow %.17g (the reference warns)",
		             where, fast, slow)) != PE_OK)
			return st;
		hf_put_key(b, "beta-fast", fast);
		hf_put_key(b, "beta-slow", slow);
		double ms = 0, msa = 0, att;
		if ((rc = hf_number(h, where, block, "mscale", &ms)) < 0)
			return PE_EFORMAT;
		if (rc && ms != 0.0)
			hf_put_key(b, "mscale", ms);
		if ((rc = hf_number(h, where, block, "mscale_all_dim", &msa)) < 0)
			return PE_EFORMAT;
		if (rc && msa != 0.0)
			hf_put_key(b, "mscale-all-dim", msa);
		if ((rc = hf_number(h, where, block, "attention_factor", &att)) < 0)
			return PE_EFORMAT;
		if (rc)
			hf_put_key(b, "attention-factor", att);
		const struct json *tr = hf_present(block, "truncate");
		if (tr && tr->type != JSON_BOOL)
			return hf_fail(h, PE_EFORMAT, "%struncate: is not true or false", where);
		if (tr && !tr->boolean)
			strbuf_addf(b, ",truncate=0");
		/*
		 * Releases differ here. The current code (_compute_yarn_parameters,
		 * "if factor is None") uses the block's factor and derives it only
		 * when missing; the revisions from DeepSeek-V3's port (4.x) into the
		 * first rope_parameters ones took max_position_embeddings /
		 * original_max_position_embeddings whenever the block had
		 * original_max_position_embeddings. posenc follows the current code
		 * and says what the others compute.
		 */
		double implicit = c->max_pos / original;
		int given = hf_present(block, "factor") != NULL;
		if (given && orig_rc > 0 && c->max_pos > 0 && implicit != factor) {
			if ((st = hf_warn(
			             h,
			             "%sfactor: %.17g, as the current transformers code "
			             "reads it (effective context %.17g x %.17g = %.17g); the "
			             "releases from DeepSeek-V3's port (4.x) to the first "
			             "rope_parameters ones took "
			             "max_position_embeddings / original_max_position_embeddings "
			             "= %.17g instead (effective context %.17g)%s",
			             where, factor, original, factor, original * factor, implicit,
			             c->max_pos,
			             implicit == 1.0 ? ", which is no scaling at all" : "")) !=
			    PE_OK)
				return st;
			if ((st = hf_fact(h, "yarn_factor_older_releases",
			                  "yarn factor of the revisions from DeepSeek-V3's "
			                  "port to the first rope_parameters ones: "
			                  "max_position_embeddings / original",
			                  "%.17g", implicit)) != PE_OK ||
			    (st = hf_fact(h, "effective_context",
			                  "context the yarn frequencies are stretched to: "
			                  "original x factor, current release",
			                  "%.17g", original * factor)) != PE_OK ||
			    (st = hf_fact(h, "effective_context_older_releases",
			                  "the same in those revisions", "%.17g", c->max_pos)) !=
			            PE_OK)
				return st;
		} else if (given && c->max_pos > 0 && implicit != factor && implicit != 1.0 &&
		           (st = hf_warn(h,
		                         "%sfactor %.17g differs from max_position_embeddings / "
		                         "original_max_position_embeddings = %.17g (the reference "
		                         "warns and uses factor)",
		                         where, factor, implicit)) != PE_OK) {
			return st;
		}
		if (msa != 0.0 && (h->arch->flags & HF_MSCALE_SOFTMAX)) {
			double mscale = factor <= 1.0 ? 1.0 : 0.1 * msa * log(factor) + 1.0;
			if ((st = hf_fact(h, "softmax_scale_factor",
			                  "the softmax scale times yarn's mscale(factor, "
			                  "mscale_all_dim)^2, as DeepseekV3Attention sets it",
			                  "%.17g", mscale * mscale)) != PE_OK)
				return st;
		}
		*train = original;
		return PE_OK;
	}
	case 4: { /* llama3 */
		static const char *const need[] = {"factor", "low_freq_factor", "high_freq_factor",
		                                   "original_max_position_embeddings"};
		for (size_t i = 0; i < 4; i++)
			if (!hf_present(block, need[i]) && !(i == 3 && c->top_original_set))
				return hf_fail(h, PE_EFORMAT, "%.*s: rope_type 'llama3' needs '%s'",
				               PATH(where), need[i]);
		double low = NAN, high = NAN;
		if (hf_number(h, where, block, "low_freq_factor", &low) < 0 ||
		    hf_number(h, where, block, "high_freq_factor", &high) < 0)
			return PE_EFORMAT;
		if (!(factor > 0) || !(low > 0) || !(high > low))
			return hf_fail(h, PE_EFORMAT,
			               "%.*s: llama3 needs factor > 0 and high_freq_factor > "
			               "low_freq_factor > 0",
			               PATH(where));
		hf_put_key(b, "factor", factor);
		hf_put_key(b, "original", original);
		hf_put_key(b, "low", low);
		hf_put_key(b, "high", high);
		*train = original;
		return PE_OK;
	}
	case 5: { /* longrope */
		if (!(original > 0))
			return hf_fail(h, PE_EFORMAT,
			               "%soriginal_max_position_embeddings: longrope needs it",
			               where);
		if (isnan(factor)) {
			if (!(c->max_pos > 0))
				return hf_fail(h, PE_EFORMAT, "%.*s: longrope needs 'factor'",
				               PATH(where));
			factor = c->max_pos / original;
		}
		if ((st = put_factor(h, b, where, factor, 0)) != PE_OK)
			return st;
		hf_put_key(b, "original", original);
		double att;
		if ((rc = hf_number(h, where, block, "attention_factor", &att)) < 0)
			return PE_EFORMAT;
		if (rc)
			hf_put_key(b, "attention-factor", att);
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
		const struct json *v = hf_present(block, keys[k]);
		if (!v || v->type == JSON_NULL)
			continue;
		if (!phimoe)
			return hf_warn(
			        h,
			        "%sshort_mscale/long_mscale: the %s modeling does not read them "
			        "(only PhiMoE's does); ignored",
			        where, h->arch->model_type);
		double ms;
		if (hf_number(h, where, block, keys[k], &ms) < 0)
			return PE_EFORMAT;
		if (!(ms > 0.0))
			return hf_fail(h, PE_EFORMAT, "%s%s: %.17g is not a number > 0", where,
			               keys[k], ms);
		/* PhiMoE switches its mscale at the block's own original length;
		 * posenc has one switch length for frequencies and mscale. */
		double own;
		if (!block_original ||
		    hf_number(h, where, block, "original_max_position_embeddings", &own) <= 0)
			return hf_fail(h, PE_EFORMAT,
			               "%soriginal_max_position_embeddings: PhiMoE compares the "
			               "sequence length with the rope_scaling block's own value to "
			               "pick %s; the block has none",
			               where, keys[k]);
		if (own != original)
			return hf_fail(
			        h, PE_EFORMAT,
			        "%soriginal_max_position_embeddings: %.17g differs from the "
			        "top-level %.17g: PhiMoE would pick the mscale at one length and "
			        "the factors at the other, which posenc cannot express",
			        where, own, original);
		hf_put_key(b, spec_keys[k], ms);
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
	const struct json *ms = hf_present(block, "mrope_section");
	double sec[3] = {0, 0, 0};
	if (ms->type != JSON_ARRAY || ms->n != 3)
		return hf_fail(
		        h, PE_EFORMAT,
		        "mrope_section: is not a list of 3 numbers (pairs per temporal, height "
		        "and width axis)");
	for (size_t i = 0; i < 3; i++) {
		const struct json *x = &ms->items[i];
		if (x->type != JSON_NUMBER || !(x->number >= 0.0 && x->number <= 1e6) ||
		    x->number != floor(x->number))
			return hf_fail(h, PE_EFORMAT,
			               "mrope_section[%zu]: is not a whole number >= 0", i);
		sec[i] = x->number;
	}
	double partial = isnan(c->top_partial) ? 1.0 : c->top_partial;
	double pairs = floor((double)c->head_dim * partial) / 2.0;
	if (sec[0] + sec[1] + sec[2] != pairs)
		return hf_fail(h, PE_EFORMAT,
		               "mrope_section: %.17g + %.17g + %.17g pairs is not the %.17g rotary "
		               "pairs",
		               sec[0], sec[1], sec[2], pairs);
	int interleaved = 0;
	const struct json *il = hf_present(block, "mrope_interleaved");
	if (il && il->type != JSON_NULL) {
		if (il->type != JSON_BOOL)
			return hf_fail(h, PE_EFORMAT, "mrope_interleaved: is not true or false");
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
	if (hf_number(h, "", block, "rope_theta", &theta) < 0)
		return PE_EFORMAT;
	char *spec = pe_asprintf("mrope:base=%.17g,t=%.17g,h=%.17g,w=%.17g%s", theta, sec[0],
	                         sec[1], sec[2], interleaved ? ",interleaved=1" : "");
	if (!spec)
		return PE_ENOMEM;
	strbuf_addf(&nb, "%s with text=N,frames=F,height=H,width=W", spec + strlen("mrope:"));
	const struct json *vc = hf_present(h->root, "vision_config");
	const struct json *tps =
	        vc && vc->type == JSON_OBJECT ? hf_present(vc, "tokens_per_second") : NULL;
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
	char *spec; /* owned; NULL: no positional encoding (NoPE) */
	const char *type;
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
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Groups layers with equal specs; names them and labels each spec. */
static enum pe_status group_layers(struct hf *h, struct layer *ls, size_t n)
{
	size_t distinct_rope = 0, has_nope = 0;
	for (size_t i = 0; i < n; i++) {
		int first = 1;
		for (size_t j = 0; j < i; j++)
			first &= !same_spec(ls[i].spec, ls[j].spec);
		if (first && ls[i].spec)
			distinct_rope++;
		has_nope |= !ls[i].spec;
	}
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
	int sliding = 0;
	for (size_t i = 0; i < n; i++)
		sliding |= strcmp(types[i], "sliding_attention") == 0;
	for (size_t i = 0; i < n; i++) {
		if (!strstr(types[i], "attention") || strcmp(types[i], "linear_attention") == 0)
			nope[i] = 1;
		if ((h->arch->flags & HF_FULL_NOPE) && sliding &&
		    strcmp(types[i], "full_attention") == 0)
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
	const struct json *lt = hf_present(h->cfg, "layer_types");
	for (size_t i = 0; i < n; i++)
		types[i] = "full_attention";
	if (lt) {
		if (lt->type != JSON_ARRAY || lt->n != n)
			return hf_fail(
			        h, PE_EFORMAT,
			        "layer_types: is not a list of %zu names (num_hidden_layers)", n);
		for (size_t i = 0; i < n; i++) {
			if (lt->items[i].type != JSON_STRING)
				return hf_fail(h, PE_EFORMAT, "layer_types[%zu]: is not a string",
				               i);
			types[i] = lt->items[i].string;
		}
		return PE_OK;
	}
	unsigned fl = h->arch->flags;
	size_t every = 0, pattern = 0;
	if ((fl & HF_EVERY_N) && hf_cfg_count(h, "global_attn_every_n_layers", &every, NULL) < 0)
		return PE_EFORMAT;
	if ((fl & HF_PATTERN) &&
	    !((fl & HF_PATTERN_IF_WINDOW) && !hf_present(h->cfg, "sliding_window")) &&
	    hf_cfg_count(h, "sliding_window_pattern", &pattern, NULL) < 0)
		return PE_EFORMAT;
	for (size_t i = 0; every && i < n; i++)
		types[i] = i % every ? "sliding_attention" : "full_attention";
	for (size_t i = 0; pattern && i < n; i++)
		types[i] = (i + 1) % pattern ? "sliding_attention" : "full_attention";
	return PE_OK;
}

/* "0-4,6-10,12" of the layers whose flag is set. */
static char *layer_list(const unsigned char *flag, size_t n)
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
	const char *wkey = "sliding_window";
	int rc = hf_cfg_number(h, "sliding_window", &window, NULL);
	if (h->arch->flags & HF_EVERY_N) {
		wkey = "local_attention";
		rc = hf_cfg_number(h, "local_attention", &window, NULL);
	}
	if (rc < 0) {
		st = PE_EFORMAT;
		goto done;
	}
	if (sliding && rc > 0) {
		for (size_t i = 0; i < n; i++)
			flag[i] = strcmp(types[i], "sliding_attention") == 0;
		char *list = layer_list(flag, n);
		st = list ? hf_fact(h, "sliding_window",
		                    (h->arch->flags & HF_EVERY_N)
		                            ? "a sliding layer sees window/2 positions on each "
		                              "side (ModernBERT's local_attention)"
		                            : "a sliding layer sees this many positions back "
		                              "(sliding_window)",
		                    "%.17g", window)
		          : PE_ENOMEM;
		if (st == PE_OK)
			st = hf_fact(h, "sliding_layers", "the layers with that window", "%s",
			             list);
		free(list);
		(void)wkey;
		if (st != PE_OK)
			goto done;
	}
	if (chunked) {
		double chunk = 0;
		if (hf_cfg_number(h, "attention_chunk_size", &chunk, NULL) > 0 &&
		    (st = hf_fact(h, "attention_chunk_size",
		                  "chunked layers attend within blocks of this many positions",
		                  "%.17g", chunk)) != PE_OK)
			goto done;
	}
	if (nopes) {
		char *list = layer_list(nope, n);
		st = list ? hf_fact(h, "nope_layers", "layers without positional encoding", "%s",
		                    list)
		          : PE_ENOMEM;
		free(list);
		if (st != PE_OK)
			goto done;
	}
	double qs = 0;
	if ((h->arch->flags & HF_QUERY_SCALAR) &&
	    hf_cfg_number(h, "query_pre_attn_scalar", &qs, NULL) > 0 && qs > 0 &&
	    (st = hf_fact(h, "softmax_scale",
	                  "softmax scale query_pre_attn_scalar^-0.5, in place of "
	                  "head_dim^-0.5 (Gemma)",
	                  "%.17g", 1.0 / sqrt(qs))) != PE_OK)
		goto done;
	double mult = 0;
	if ((h->arch->flags & HF_ATTN_MULT) &&
	    hf_cfg_number(h, "attention_multiplier", &mult, NULL) > 0 &&
	    (st = hf_fact(h, "softmax_scale",
	                  "softmax scale attention_multiplier, in place of head_dim^-0.5 "
	                  "(Granite)",
	                  "%.17g", mult)) != PE_OK)
		goto done;
	const struct json *tt = hf_present(h->cfg, "attn_temperature_tuning");
	int tuning = (h->arch->flags & HF_TEMP_TUNING) &&
	             (!tt || (tt->type == JSON_BOOL && tt->boolean) ||
	              (tt->type == JSON_NUMBER && tt->number != 0));
	if (tuning && nopes) {
		double scale = 0.1, floor_scale = 8192;
		hf_cfg_number(h, "attn_scale", &scale, NULL);
		hf_cfg_number(h, "floor_scale", &floor_scale, NULL);
		st = hf_fact(h, "attn_temperature_tuning",
		             "queries of the NoPE layers are multiplied by 1 + attn_scale x "
		             "log(floor((position + 1) / floor_scale) + 1) (Llama4TextAttention)",
		             "attn_scale=%.17g floor_scale=%.17g", scale, floor_scale);
	}
done:
	free(flag);
	return st;
}

enum pe_status hf_read_rope(struct hf *h)
{
	const struct json *cfg = h->cfg;
	struct pe_model *m = h->m;
	struct rope_ctx c = {.top_theta = NAN, .top_partial = NAN, .class_partial = NAN};
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
		hd = hidden / heads; /* integer division, as the reference */
		if (hd == 0)
			return hf_fail(h, PE_EFORMAT, "%s %zu // %s %zu: the head width is 0",
			               hname, hidden, nname, heads);
	}
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
		if (!hf_present(cfg, "layer_types"))
			return hf_fail(
			        h, PE_EFORMAT,
			        "layer_types: missing; Gemma 4 configs list which layers are "
			        "sliding and which full, and posenc will not guess");
		if (!(rc && g) && hf_cfg_count(h, "hidden_size", &hidden, NULL) > 0 &&
		    hf_cfg_count(h, "num_attention_heads", &heads, NULL) > 0 &&
		    hidden / heads != hd)
			return hf_fail(
			        h, PE_EFORMAT,
			        "global_head_dim: missing, so the reference's proportional RoPE "
			        "would use hidden_size // num_attention_heads = %zu, not the "
			        "head_dim %zu of the attention",
			        hidden / heads, hd);
	}
	c.layout = h->arch->layout;
	/* DeepSeek-V3 in transformers: rope_interleave (default true) picks the pairing. */
	const struct json *ri = hf_present(cfg, "rope_interleave");
	if (ri && ri->type != JSON_BOOL)
		return hf_fail(h, PE_EFORMAT, "rope_interleave: is not true or false");
	if (ri)
		c.layout = ri->boolean ? "interleaved" : "half";
	/* The rotated part: rotary_dim (GPT-J, CodeGen, MiniMax: a width),
	 * partial_rotary_factor, GPT-NeoX's rotary_pct, Nemotron's rope_percent. */
	size_t rotary_dim = 0;
	double v;
	if ((rc = hf_count(h, "", cfg, "rotary_dim", &rotary_dim)) < 0)
		return PE_EFORMAT;
	if (rc)
		c.top_partial = (double)rotary_dim / (double)hd;
	static const char *const partial_keys[] = {"partial_rotary_factor", "rotary_pct",
	                                           "rope_percent"};
	for (size_t k = 0; k < 3 && isnan(c.top_partial); k++) {
		if ((rc = hf_number(h, "", cfg, partial_keys[k], &v)) < 0)
			return PE_EFORMAT;
		if (rc)
			c.top_partial = v;
	}
	if (isnan(c.top_partial)) {
		if (hf_arch_default(h->arch, "rotary_dim", &v))
			c.class_partial = v / (double)hd;
		else if (hf_arch_default(h->arch, "partial_rotary_factor", &v) ||
		         hf_arch_default(h->arch, "rotary_pct", &v))
			c.class_partial = v;
	}
	/* The base: rope_theta (GPT-NeoX: rotary_emb_base only; ModernBERT:
	 * global_rope_theta), else the class default. */
	const char *theta_key = h->arch->theta_key ? h->arch->theta_key : "rope_theta";
	if ((rc = hf_number(h, "", cfg, theta_key, &v)) < 0)
		return PE_EFORMAT;
	if (rc || hf_arch_default(h->arch, theta_key, &v))
		c.top_theta = v;
	if ((rc = hf_cfg_number(h, "max_position_embeddings", &c.max_pos, NULL)) < 0)
		return PE_EFORMAT;
	if ((rc = hf_number(h, "", cfg, "original_max_position_embeddings", &c.top_original)) < 0)
		return PE_EFORMAT;
	c.top_original_set = rc;
	if ((rc = hf_cfg_count(h, "num_hidden_layers", &n, NULL)) < 0)
		return PE_EFORMAT;
	if (!rc)
		n = 1;
	if (n > 4096) /* real models have a few hundred; the grouping is quadratic */
		return hf_fail(h, PE_EFORMAT,
		               "num_hidden_layers: %zu is more than the 4096 posenc reads", n);
	m->n_layers = rc ? n : 0;
	m->context = c.max_pos;

	/* rope_scaling wins over rope_parameters when both are set, as in the reference. */
	const char *bname = "rope_scaling";
	const struct json *block = hf_present(cfg, "rope_scaling");
	if (block && block->type == JSON_OBJECT && block->n == 0)
		block = NULL;
	if (!block) {
		bname = "rope_parameters";
		block = hf_present(cfg, "rope_parameters");
	}
	if (block && block->type != JSON_OBJECT)
		return hf_fail(h, PE_EFORMAT, "%s: is not an object", bname);

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
	/* Keyed per layer type when every key names a layer type. */
	int per_type = 0;
	if (block && block->n) {
		per_type = 1;
		for (size_t i = 0; i < block->n; i++) {
			int found = 0;
			for (size_t k = 0; k < n; k++)
				found |= strcmp(block->keys[i], types[k]) == 0;
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
	for (size_t i = 0; i < n; i++) {
		ls[i].type = types[i];
		if (nope[i])
			continue;
		const struct json *b = block;
		char where[96];
		snprintf(where, sizeof(where), "%s.", bname);
		if (per_type) {
			b = hf_present(block, types[i]);
			if (!b || b->type != JSON_OBJECT) {
				st = hf_fail(h, PE_EFORMAT, "%s.%s: missing or not an object",
				             bname, types[i]);
				goto done;
			}
			snprintf(where, sizeof(where), "%s.%s.", bname, types[i]);
		}
		struct strbuf sb = {0};
		double t = c.max_pos;
		if (!per_type && !isnan(local_base) && strcmp(types[i], "sliding_attention") == 0) {
			struct rope_ctx lc = c;
			lc.top_theta = local_base;
			char lw[64];
			snprintf(lw, sizeof(lw), "%s: ", h->arch->local_theta);
			st = rope_spec(h, &lc, lw, NULL, &sb, &t);
		} else {
			struct rope_ctx lc = c;
			if (gemma4 && strcmp(types[i], "full_attention") == 0)
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
		ls[i].spec = sb.buf;
	}
	m->train_context = train > 0 ? train : c.max_pos;
	if (hf_present(block, "mrope_section") && (st = mrope_note(h, &c, block)) != PE_OK)
		goto done;
	if ((st = attention_facts(h, n, types, nope)) != PE_OK)
		goto done;
	st = group_layers(h, ls, n);
done:
	for (size_t i = 0; ls && i < n; i++)
		free(ls[i].spec);
	free(ls);
	free(types);
	free(nope);
	return st;
}
