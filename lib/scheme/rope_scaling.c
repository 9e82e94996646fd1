/*
 * RoPE frequency scalings, restating HF modeling_rope_utils
 * (ROPE_INIT_FUNCTIONS) in float64. Formulas: doc/conventions.md §3.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include <posenc/rope.h>

#include "scheme/scheme_type.h"

#define TWO_PI 6.283185307179586

static int positive(double x)
{
	return isfinite(x) && x > 0.0;
}

enum pe_status pe_rope_base_frequencies(double base, size_t d_rot, double *theta)
{
	if (d_rot == 0 || d_rot % 2 != 0 || !positive(base))
		return PE_ERANGE;
	for (size_t i = 0; i < d_rot / 2; i++)
		theta[i] = 1.0 / pow(base, (double)(2 * i) / (double)d_rot);
	return PE_OK;
}

enum pe_status pe_rope_critical_dim(double base, size_t d, double train_length, size_t *out)
{
	if (d == 0 || d % 2 != 0 || !isfinite(base) || base <= 1.0 || !positive(train_length))
		return PE_ERANGE;
	double x = ceil((double)(d / 2) * log(train_length / TWO_PI) / log(base));
	if (x < 0.0)
		x = 0.0;
	if (x > (double)(d / 2))
		x = (double)(d / 2);
	*out = 2 * (size_t)x;
	return PE_OK;
}

/* The evaluation length: HF treats anything up to the original as the original. */
static double eval_length(const struct pe_rope_scaling_params *p)
{
	return p->length > p->original ? p->length : p->original;
}

/* Dynamic NTK: a larger base once the sequence outgrows the original context. */
static enum pe_status scale_dynamic(const struct pe_rope_scaling_params *p, double base,
                                    size_t d_rot, double *theta, struct pe_rope_scaling_info *info)
{
	if (d_rot < 4)
		return PE_ERANGE; /* the exponent d/(d-2) needs d > 2 */
	double d = (double)d_rot;
	double grow = p->factor * eval_length(p) / p->original - (p->factor - 1.0);
	double b = base * pow(grow, d / (d - 2.0));
	if (!positive(b))
		return PE_ERANGE;
	info->base = b;
	return pe_rope_base_frequencies(b, d_rot, theta);
}

/* YaRN's correction dimension: the pair index that turns r times in the original context. */
static double correction_dim(double r, double d, double base, double original)
{
	return d * log(original / (TWO_PI * r)) / (2.0 * log(base));
}

static double yarn_mscale(double scale, double m)
{
	return scale <= 1.0 ? 1.0 : 0.1 * m * log(scale) + 1.0;
}

static enum pe_status scale_yarn(const struct pe_rope_scaling_params *p, double base, size_t d_rot,
                                 double *theta, struct pe_rope_scaling_info *info)
{
	if (!isfinite(base) || base <= 1.0 || !positive(p->beta_fast) || !positive(p->beta_slow))
		return PE_ERANGE;
	double d = (double)d_rot;
	double low = correction_dim(p->beta_fast, d, base, p->original);
	double high = correction_dim(p->beta_slow, d, base, p->original);
	if (p->truncate) {
		low = floor(low);
		high = ceil(high);
	}
	if (low < 0.0)
		low = 0.0;
	if (high > d - 1.0)
		high = d - 1.0;
	if (low == high)
		high += 0.001;
	for (size_t i = 0; i < d_rot / 2; i++) {
		double ramp = ((double)i - low) / (high - low);
		ramp = ramp < 0.0 ? 0.0 : ramp > 1.0 ? 1.0 : ramp;
		/* HF's and vLLM's interpolated frequency is 1 / (factor pos_freq), which
		 * can differ from theta / factor in the last bit: taken so whenever theta is
		 * the base's own 1 / pos_freq (other frequencies: theta / factor) */
		double pos_freq = pow(base, (double)(2 * i) / d);
		double interpolation = 1.0 / pos_freq == theta[i] ? 1.0 / (p->factor * pos_freq)
		                                                  : theta[i] / p->factor;
		/* HF's weighting: interpolation (1 - extrapolation_factor) + extrapolation it */
		double extrapolation = 1.0 - ramp;
		theta[i] = interpolation * (1.0 - extrapolation) + theta[i] * extrapolation;
	}
	info->yarn_low = low;
	info->yarn_high = high;
	if (!isnan(p->attention_factor))
		info->attention_factor = p->attention_factor;
	else if (p->mscale != 0.0 && p->mscale_all_dim != 0.0)
		info->attention_factor = yarn_mscale(p->factor, p->mscale) /
		                         yarn_mscale(p->factor, p->mscale_all_dim);
	else
		info->attention_factor = yarn_mscale(p->factor, 1.0);
	return PE_OK;
}

static enum pe_status scale_llama3(const struct pe_rope_scaling_params *p, double base,
                                   size_t d_rot, double *theta, struct pe_rope_scaling_info *info)
{
	(void)base;
	(void)info;
	if (!positive(p->low_freq_factor) || !positive(p->high_freq_factor))
		return PE_ERANGE;
	/* high <= low is computed as the reference does (it only warns): the band
	 * between the two wavelengths is then empty, or with high == low just a
	 * wavelength of exactly original / low, where its smoothing is 0 / 0. */
	double low_wl = p->original / p->low_freq_factor;
	double high_wl = p->original / p->high_freq_factor;
	for (size_t i = 0; i < d_rot / 2; i++) {
		double wl = TWO_PI / theta[i];
		if (wl > low_wl) {
			theta[i] /= p->factor;
		} else if (!(wl < high_wl)) {
			double s = (p->original / wl - p->low_freq_factor) /
			           (p->high_freq_factor - p->low_freq_factor);
			if (!isfinite(s))
				return PE_ERANGE;
			theta[i] = (1.0 - s) * theta[i] / p->factor + s * theta[i];
		}
	}
	return PE_OK;
}

static enum pe_status scale_longrope(const struct pe_rope_scaling_params *p, double base,
                                     size_t d_rot, double *theta, struct pe_rope_scaling_info *info)
{
	size_t half = d_rot / 2;
	if ((p->long_factor && p->n_long_factor != half) ||
	    (p->short_factor && p->n_short_factor != half))
		return PE_ERANGE;
	const double *ext = p->length > p->original ? p->long_factor : p->short_factor;
	if (!ext)
		return PE_EINVAL;
	for (size_t i = 0; i < half; i++) {
		if (!positive(ext[i]))
			return PE_ERANGE;
	}
	for (size_t i = 0; i < half; i++)
		theta[i] = 1.0 / (ext[i] * pow(base, (double)(2 * i) / (double)d_rot));
	/* PhiMoE: the regime's mscale, when given, replaces the attention factor. */
	double mscale = p->length > p->original ? p->long_mscale : p->short_mscale;
	if (mscale > 0.0) /* NaN or 0: unset */
		info->attention_factor = mscale;
	else if (!isnan(p->attention_factor))
		info->attention_factor = p->attention_factor;
	else if (p->factor <= 1.0)
		info->attention_factor = 1.0;
	else
		info->attention_factor = sqrt(1.0 + log(p->factor) / log(p->original));
	return PE_OK;
}

/*
 * Proportional RoPE (Gemma 4's global layers): the first int(proportion *
 * d_rot // 2) pairs keep base^(-2i/d_rot), where d_rot is the whole head
 * width, and the rest do not turn at all; then HF divides every frequency by
 * factor. Zero frequencies are written, not dropped, so that the pairs stay
 * where the reference's rotate_half puts them (i, i + d_rot/2).
 */
static enum pe_status scale_proportional(const struct pe_rope_scaling_params *p, double base,
                                         size_t d_rot, double *theta,
                                         struct pe_rope_scaling_info *info)
{
	(void)base;
	(void)info;
	if (!(p->proportion >= 0.0 && p->proportion <= 1.0))
		return PE_ERANGE;
	size_t turning = pe_rope_turning_pairs(p, d_rot);
	for (size_t i = 0; i < d_rot / 2; i++)
		theta[i] = i < turning ? theta[i] / p->factor : 0.0;
	return PE_OK;
}

size_t pe_rope_turning_pairs(const struct pe_rope_scaling_params *p, size_t d_rot)
{
	if (p->type != PE_ROPE_SCALING_PROPORTIONAL)
		return d_rot / 2;
	if (!(p->proportion >= 0.0 && p->proportion <= 1.0))
		return 0;
	/* Python's int(proportion * head_dim // 2): x // 2 is floor(x / 2), and x / 2 is exact. */
	return (size_t)floor(p->proportion * (double)d_rot / 2.0);
}

/*
 * vLLM's NTK scaling (ntk_scaling_rope.py, NTKScalingRotaryEmbedding; no
 * transformers rope_type). Fixed: the base times the factor, every
 * frequency then divided by factor^(2/d). Mixed (mixed_b = b): the base kept,
 * pair i divided by exp(a (i+1)^b) with a = ln(factor) / (d/2)^b, so the
 * last pair is divided by the factor itself.
 */
static enum pe_status scale_ntk(const struct pe_rope_scaling_params *p, double base, size_t d_rot,
                                double *theta, struct pe_rope_scaling_info *info)
{
	double d = (double)d_rot;
	if (isnan(p->mixed_b)) {
		double b = base * p->factor, div = pow(p->factor, 2.0 / d);
		if (!positive(b))
			return PE_ERANGE;
		info->base = b;
		for (size_t i = 0; i < d_rot / 2; i++)
			theta[i] = 1.0 / pow(b, (double)(2 * i) / d) / div;
		return PE_OK;
	}
	if (!(p->mixed_b >= 0.0) || !isfinite(p->mixed_b))
		return PE_ERANGE;
	double a = log(p->factor) / pow(d / 2.0, p->mixed_b);
	for (size_t i = 0; i < d_rot / 2; i++)
		theta[i] /= exp(a * pow((double)(i + 1), p->mixed_b));
	return PE_OK;
}

/* llama.cpp multiplies cos and sin by {arch}.rope.scaling.attn_factor whatever the
 * scaling (llama-context.cpp), so none and linear take a magnitude too: 1 unless given.
 * The key is > 0, so a zeroed parameter block (a scheme without scaling keys) is 1. */
static enum pe_status scale_none(const struct pe_rope_scaling_params *p, double base, size_t d_rot,
                                 double *theta, struct pe_rope_scaling_info *info)
{
	(void)base;
	(void)d_rot;
	(void)theta;
	if (p->attention_factor > 0.0)
		info->attention_factor = p->attention_factor;
	return PE_OK;
}

static enum pe_status scale_linear(const struct pe_rope_scaling_params *p, double base,
                                   size_t d_rot, double *theta, struct pe_rope_scaling_info *info)
{
	for (size_t i = 0; i < d_rot / 2; i++)
		theta[i] /= p->factor;
	return scale_none(p, base, d_rot, theta, info);
}

/*
 * The scalings, index = enum pe_rope_scaling. To add one: a row here (its
 * name, its freqs columns, the rope keys it takes, its defaults and its
 * function), its value in enum pe_rope_scaling (posenc/scheme.h) and its
 * name in scheme_rope.c's choice list; asserts check both lengths, and
 * help, completion and freqs follow from the row. A key no scaling takes
 * yet is a row in scheme_rope.c's key table.
 */
const struct pe_rope_scaling_type pe_rope_scalings[] = {
        {"none", "none_theta", "none_ratio", "attention-factor", 4.0, 4096.0, scale_none},
        {"linear", "linear_theta", "linear_ratio", "factor attention-factor", 4.0, 4096.0,
         scale_linear},
        {"dynamic", "dynamic_theta", "dynamic_ratio", "factor original length", 4.0, 4096.0,
         scale_dynamic},
        {"yarn", "yarn_theta", "yarn_ratio",
         "factor original beta-fast beta-slow mscale mscale-all-dim attention-factor truncate", 4.0,
         4096.0, scale_yarn},
        {"llama3", "llama3_theta", "llama3_ratio", "factor original low high", 8.0, 8192.0,
         scale_llama3},
        {"longrope", "longrope_theta", "longrope_ratio",
         "factor original length attention-factor long-factor short-factor short-mscale "
         "long-mscale",
         1.0, 4096.0, scale_longrope},
        {"proportional", "proportional_theta", "proportional_ratio", "factor proportion", 1.0,
         4096.0, scale_proportional},
        {"ntk", "ntk_theta", "ntk_ratio", "factor mixed-b", 4.0, 4096.0, scale_ntk},
};
_Static_assert(sizeof(pe_rope_scalings) / sizeof(pe_rope_scalings[0]) == PE_ROPE_SCALING_NTK + 1,
               "one row per enum pe_rope_scaling value");
const size_t pe_rope_scaling_count = sizeof(pe_rope_scalings) / sizeof(pe_rope_scalings[0]);

const char *pe_rope_scaling_name(enum pe_rope_scaling type)
{
	if ((unsigned)type < pe_rope_scaling_count)
		return pe_rope_scalings[type].name;
	return "unknown";
}

int pe_rope_scaling_has_original(enum pe_rope_scaling type)
{
	return pe_rope_scaling_takes(type, "original");
}

int pe_rope_scaling_takes(enum pe_rope_scaling type, const char *key)
{
	if ((unsigned)type >= pe_rope_scaling_count)
		return 0;
	size_t len = strlen(key);
	for (const char *k = pe_rope_scalings[type].keys; *k;) {
		size_t n = strcspn(k, " ");
		if (n == len && strncmp(k, key, n) == 0)
			return 1;
		k += n;
		k += strspn(k, " ");
	}
	return 0;
}

enum pe_status pe_rope_scale_frequencies(const struct pe_rope_scaling_params *p, double base,
                                         size_t d_rot, double *theta,
                                         struct pe_rope_scaling_info *info)
{
	struct pe_rope_scaling_info local = {1.0, base, NAN, NAN};
	if (d_rot == 0 || d_rot % 2 != 0 || !positive(base))
		return PE_ERANGE;
	if ((unsigned)p->type >= pe_rope_scaling_count)
		return PE_EINVAL;
	if (p->type != PE_ROPE_SCALING_NONE && (!positive(p->factor) || !positive(p->original)))
		return PE_ERANGE;
	if (p->type == PE_ROPE_SCALING_LONGROPE && p->original <= 1.0 && p->factor > 1.0)
		return PE_ERANGE; /* ln(original) is the denominator of the attention factor */

	const struct pe_rope_scaling_type *t = &pe_rope_scalings[p->type];
	enum pe_status st = t->scale ? t->scale(p, base, d_rot, theta, &local) : PE_OK;
	if (st == PE_OK && info)
		*info = local;
	return st;
}
