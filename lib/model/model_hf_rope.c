/*
 * One rope block (rope_scaling / rope_parameters) of a config.json as
 * spec text, as transformers' modeling_rope_utils.py reads it (with the
 * modeling files' variants: HunYuan's NTK-alpha, PhiMoE's mscales, Gemma
 * 4's proportional RoPE), and the M-RoPE note. doc/models.md restates the
 * rules with their sources.
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
 * The keys each rope type reads besides rope_type/type, rope_theta,
 * partial_rotary_factor and the M-RoPE keys (rope_config_validation's
 * required and optional keys); index as rope_types[].
 */
static const char *const type_keys[] = {
        "",
        "factor",
        "factor original_max_position_embeddings alpha",
        "factor original_max_position_embeddings attention_factor beta_fast beta_slow mscale "
        "mscale_all_dim truncate",
        "factor original_max_position_embeddings low_freq_factor high_freq_factor",
        "factor original_max_position_embeddings attention_factor short_factor long_factor "
        "short_mscale long_mscale",
        "factor",
};

static int in_words(const char *words, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = words; *p;) {
		size_t l = strcspn(p, " ");
		if (l == kl && strncmp(p, key, kl) == 0)
			return 1;
		p += l + (p[l] == ' ');
	}
	return 0;
}

/*
 * Keys the rope type does not read: transformers (rope_config_validation)
 * warns "Unrecognized keys" and computes without them; so does posenc.
 */
static enum pe_status check_block_keys(struct hf *h, const char *where, const struct json *b,
                                       int ti)
{
	static const char *const common =
	        "rope_type type rope_theta partial_rotary_factor mrope_section mrope_interleaved";
	for (size_t i = 0; i < b->n; i++) {
		const char *key = b->keys[i];
		if (in_words(common, key) || in_words(type_keys[ti], key))
			continue;
		int known = 0;
		for (size_t k = 0; block_keys[k]; k++)
			known |= strcmp(key, block_keys[k]) == 0;
		/* remote code reads the keys it knows and never looks at the others */
		const char *why = (h->arch->flags & HF_REMOTE_CODE)
		                          ? "the model's own code does not read it"
		                          : "the reference warns about unrecognized rope keys and "
		                            "goes on";
		enum pe_status st =
		        known ? hf_warn(h, "%.*s.%s: not read by rope_type '%s', ignored (%s)",
		                        PATH(where), key, rope_types[ti], why)
		              : hf_warn(h, "%.*s.%s: unknown key, ignored (%s)", PATH(where), key,
		                        why);
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
static void put_rope_start(struct hf *h, const struct hf_rope_ctx *c, double theta,
                           struct strbuf *b)
{
	strbuf_addf(b, "rope:base=");
	hf_put_number(b, theta);
	strbuf_addf(b, ",layout=%s", c->layout);
	if (c->head_dim != h->m->head_dim)
		strbuf_addf(b, ",head=%zu", c->head_dim);
}

/*
 * The rotated fraction of the head: the top-level partial_rotary_factor (or
 * its kin) overwrites the block's, as standardize_rope_params does; else the
 * block's; else the class default; else 1 (@partial is left alone). Returns
 * 1 if the block has the key, 0 if not, -1 when it is not a number.
 */
static int rotary_fraction(struct hf *h, const struct hf_rope_ctx *c, const char *where,
                           const struct json *block, double *partial)
{
	int rc = block ? hf_number(h, where, block, "partial_rotary_factor", partial) : 0;
	if (rc < 0)
		return rc;
	if (!isnan(c->top_partial))
		*partial = c->top_partial;
	else if (rc == 0 && !isnan(c->class_partial))
		*partial = c->class_partial;
	return rc;
}

/*
 * Proportional RoPE (transformers' _compute_proportional_rope_parameters,
 * Gemma 4's full-attention layers): int(partial_rotary_factor * head_dim // 2)
 * pairs at base^(-2i/head_dim), the others at frequency 0, all divided by
 * the block's factor (default 1). The reference warns when the block has no
 * partial_rotary_factor (then it is linear scaling).
 */
static enum pe_status proportional_spec(struct hf *h, const struct hf_rope_ctx *c,
                                        const char *where, const struct json *block, double theta,
                                        double partial, int partial_given, struct strbuf *b,
                                        double *train)
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

enum pe_status hf_rope_spec(struct hf *h, const struct hf_rope_ctx *c, const char *where,
                            const struct json *block, struct strbuf *b, double *train)
{
	enum pe_status st;
	const char *type = "default";
	const struct json *t = hf_block_type(block);
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
	if (ti < 0 && strcmp(type, "ntk") == 0)
		return hf_fail(
		        h, PE_EFORMAT,
		        "%srope_type: 'ntk' is vLLM's own (NTKScalingRotaryEmbedding), which "
		        "transformers does not have; give it as a spec: "
		        "rope:...,scaling=ntk,factor=F (and mixed-b=B for mixed_b)",
		        where);
	if (ti < 0)
		return hf_fail(h, PE_EFORMAT,
		               "%srope_type: '%s' is not one of default, linear, dynamic, yarn, "
		               "llama3, longrope, proportional (or the aliases su, mrope)",
		               where, type);
	if (block && (st = check_block_keys(h, where, block, ti)) != PE_OK)
		return st;

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
	if (!(theta > 1.0)) /* named where it was read: the block's key, or the top level's */
		return hf_fail(h, PE_EFORMAT, "%srope_theta: %.17g must exceed 1", rc ? where : "",
		               theta);
	if ((rc = rotary_fraction(h, c, where, block, &partial)) < 0)
		return PE_EFORMAT;
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
		if (!rc && (h->arch->flags & HF_YARN_UNIT_ATT)) {
			att = 1.0;
			rc = 1;
		}
		if (rc)
			hf_put_key(b, "attention-factor", att);
		int truncate = hf_bool(h, where, block, "truncate", 1);
		if (truncate < 0)
			return PE_EFORMAT;
		if (!truncate)
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
		if (!(factor > 0) || !(low > 0) || !(high > 0))
			return hf_fail(h, PE_EFORMAT,
			               "%.*s: llama3 needs factor, low_freq_factor and "
			               "high_freq_factor > 0",
			               PATH(where));
		/* _validate_llama3_parameters only warns (Llama 4 Scout publishes 1 and 1):
		 * no wavelength is then smoothed, the long ones are divided by the factor. */
		if (!(high > low)) {
			enum pe_status wst = hf_warn(
			        h,
			        "%.*s: high_freq_factor %.17g is not above low_freq_factor %.17g, "
			        "which the reference warns of and computes: no band is smoothed, "
			        "wavelengths above original / low_freq_factor are divided by the "
			        "factor",
			        PATH(where), high, low);
			if (wst != PE_OK)
				return wst;
		}
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
		if ((h->arch->flags & HF_LONGROPE_AT_MAX) && c->max_pos > original)
			hf_put_key(b, "length", c->max_pos);
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
 * one keeps it); Phi-3-small's rotary does the same (vLLM's
 * Phi3LongRoPEScaledRotaryEmbedding, which its phi3_small.py builds from the
 * block). Other architectures' modeling does not read them.
 */
static enum pe_status put_mscales(struct hf *h, struct strbuf *b, const char *where,
                                  const struct json *block, double original, int block_original)
{
	int phimoe = (h->arch->flags & HF_PHIMOE_MSCALE) != 0;
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
			        "(only PhiMoE's does, and Phi-3-small's remote code); ignored",
			        where, h->arch->model_type);
		double ms;
		if (hf_number(h, where, block, keys[k], &ms) < 0)
			return PE_EFORMAT;
		if (!(ms > 0.0))
			return hf_fail(h, PE_EFORMAT, "%s%s: %.17g is not a number > 0", where,
			               keys[k], ms);
		/* the mscale switches at the block's own original length;
		 * posenc has one switch length for frequencies and mscale. */
		double own;
		if (!block_original ||
		    hf_number(h, where, block, "original_max_position_embeddings", &own) <= 0)
			return hf_fail(h, PE_EFORMAT,
			               "%soriginal_max_position_embeddings: the model compares the "
			               "sequence length with the rope_scaling block's own value to "
			               "pick %s; the block has none",
			               where, keys[k]);
		if (own != original)
			return hf_fail(h, PE_EFORMAT,
			               "%soriginal_max_position_embeddings: %.17g differs from the "
			               "top-level %.17g: the model would pick the mscale at one "
			               "length and "
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
enum pe_status hf_mrope_note(struct hf *h, const struct hf_rope_ctx *c, const struct json *block)
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
	double partial = 1.0;
	if (rotary_fraction(h, c, "", block, &partial) < 0)
		return PE_EFORMAT;
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
	/* rope_theta as rope_spec reads it: the block's, else the top level's; read
	 * before the note is begun (an error here must not leave it behind) */
	double theta = isnan(c->top_theta) ? 10000.0 : c->top_theta;
	if (hf_number(h, "", block, "rope_theta", &theta) < 0)
		return PE_EFORMAT;
	struct strbuf nb = {0};
	strbuf_addf(&nb,
	            "M-RoPE sections %.17g/%.17g/%.17g (pairs per temporal/height/width axis): "
	            "text positions are equal on every axis, which is plain RoPE (what this "
	            "spec is); image and video tokens: -s mrope:",
	            sec[0], sec[1], sec[2]);
	char *spec = pe_asprintf("mrope:base=%.17g,t=%.17g,h=%.17g,w=%.17g%s", theta, sec[0],
	                         sec[1], sec[2], interleaved ? ",interleaved=1" : "");
	if (!spec) {
		free(nb.buf);
		return PE_ENOMEM;
	}
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
