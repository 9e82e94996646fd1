/*
 * Reduced-precision RoPE: the rounding functions and the recipe of
 * posenc/precision.h, one position at a time.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/precision.h>
#include <posenc/rope.h>

#include "analysis/precision_internal.h"

static const char *const float_names[] = {"exact", "f64", "f32", "bf16", "f16"};

const char *pe_float_name(enum pe_float f)
{
	return (unsigned)f < 5 ? float_names[f] : "unknown";
}

static int parse_float(const char *text, size_t len, enum pe_float *out)
{
	for (int i = 0; i < 5; i++)
		if (strlen(float_names[i]) == len && strncmp(text, float_names[i], len) == 0) {
			*out = (enum pe_float)i;
			return 1;
		}
	return 0;
}

/* Bits of significand each precision keeps: a coarser one has fewer. */
static int float_bits(enum pe_float f)
{
	static const int bits[] = {1000, 53, 24, 8, 11};
	return bits[f];
}

enum pe_status pe_precision_parse(const char *text, struct pe_precision *out)
{
	if (!text)
		return PE_EINVAL;
	const char *slash = strchr(text, '/');
	struct pe_precision p;
	size_t len = slash ? (size_t)(slash - text) : strlen(text);
	if (!parse_float(text, len, &p.compute))
		return PE_EINVAL;
	p.store = p.compute;
	if (slash && !parse_float(slash + 1, strlen(slash + 1), &p.store))
		return PE_EINVAL;
	if (float_bits(p.store) > float_bits(p.compute))
		return PE_EINVAL;
	/* f16 and bf16 each hold numbers the other cannot: no rounding chain between them */
	if ((p.store == PE_FLOAT_F16 && p.compute == PE_FLOAT_BF16) ||
	    (p.store == PE_FLOAT_BF16 && p.compute == PE_FLOAT_F16))
		return PE_EINVAL;
	*out = p;
	return PE_OK;
}

const char *pe_precision_name(struct pe_precision p, char *buf, size_t cap)
{
	if (p.store == p.compute)
		snprintf(buf, cap, "%s", pe_float_name(p.compute));
	else
		snprintf(buf, cap, "%s/%s", pe_float_name(p.compute), pe_float_name(p.store));
	return buf;
}

/* The exported names; the recipe below calls the inline ones. */
double pe_round_f32(double x)
{
	return round_f32(x);
}

double pe_round_bf16(double x)
{
	return round_bf16(x);
}

double pe_round_f16(double x)
{
	return round_f16(x);
}

double pe_round(enum pe_float f, double x)
{
	return round_to(f, x);
}

/* An operation of a reduced precision: done in float32, rounded to it. */
static inline double op_round(enum pe_float f, double exact)
{
	return round_to(f, round_f32(exact));
}

static inline void sincos_fast(double x, double *s, double *c)
{
	if (!(fabs(x) < 1125899906842624.0)) { /* 2^50, and NaN */
		*s = sin(x);
		*c = cos(x);
		return;
	}
	double r, k;
	if (fabs(x) < 52707178.0) { /* 2^25 pi/2: k below 2^25 */
		/*
		 * Cody-Waite: pi/2 = C1 + C2 + C3 with C1, C2 of 28 bits, so k * C1
		 * and k * C2 are exact and x - k * C1 is exact (Sterbenz).
		 */
		static const double C1 = 1.570796325802803, C2 = 9.920935739593517e-10,
		                    C3 = 5.721188726109832e-18;
		/* round to nearest through the 2^52 + 2^51 shift (no libm call) */
		k = (x * 0.6366197723675814 + 6755399441055744.0) - 6755399441055744.0;
		r = ((x - k * C1) - k * C2) - k * C3;
	} else {
		/* pi/2 as three doubles: k * P1 is exact inside fma, P3 reaches 2^-160 */
		static const double P1 = 1.5707963267948966, P2 = 6.123233995736766e-17,
		                    P3 = -1.4973849048591698e-33;
		k = nearbyint(x * 0.6366197723675814);
		r = fma(-k, P1, x);
		r = fma(-k, P2, r);
		r = fma(-k, P3, r);
	}
	double r2 = r * r;
	/* Taylor series to r^17 and r^18: the remainder is below 1e-19 for |r| <= pi/4 + */
	double ps = -1.0 / 6.0 +
	            r2 * (1.0 / 120.0 +
	                  r2 * (-1.0 / 5040.0 +
	                        r2 * (1.0 / 362880.0 +
	                              r2 * (-1.0 / 39916800.0 +
	                                    r2 * (1.0 / 6227020800.0 +
	                                          r2 * (-1.0 / 1307674368000.0 +
	                                                r2 * (1.0 / 355687428096000.0)))))));
	double sr = r + r * r2 * ps;
	double pc = 1.0 / 24.0 +
	            r2 * (-1.0 / 720.0 +
	                  r2 * (1.0 / 40320.0 +
	                        r2 * (-1.0 / 3628800.0 +
	                              r2 * (1.0 / 479001600.0 +
	                                    r2 * (-1.0 / 87178291200.0 +
	                                          r2 * (1.0 / 20922789888000.0 +
	                                                r2 * (-1.0 / 6402373705728000.0)))))));
	double cr = 1.0 - 0.5 * r2 + r2 * r2 * pc;
	switch ((int64_t)k & 3) {
	case 0:
		*s = sr;
		*c = cr;
		break;
	case 1:
		*s = cr;
		*c = -sr;
		break;
	case 2:
		*s = -sr;
		*c = -cr;
		break;
	default:
		*s = -cr;
		*c = sr;
		break;
	}
}

void pe_sincos_fast(double x, double *s, double *c)
{
	sincos_fast(x, s, c);
}

/* sin and cos of the real product x * w: the double product and its rounding error. */
static void exact_sincos(double x, double w, double *s, double *c, double *angle)
{
	double hi = x * w, lo = fma(x, w, -hi);
	double sh = sin(hi), ch = cos(hi), sl, cl;
	/* |lo| <= ulp(hi) / 2: third order leaves lo^4 / 24, below 1e-18 under 1e-4 */
	if (fabs(lo) < 1e-4) {
		sl = lo - lo * lo * lo / 6.0;
		cl = 1.0 - lo * lo / 2.0;
	} else {
		sl = sin(lo);
		cl = cos(lo);
	}
	*s = sh * cl + ch * sl;
	*c = ch * cl - sh * sl;
	if (angle)
		*angle = hi + lo;
}

/*
 * A tensor divided by a Python number, @x / @num, in @R. On the CPU torch
 * casts the number to float32 (the arithmetic type of float32, bfloat16 and
 * float16 alike) and divides; on a GPU (div_true_kernel_cuda, "a *
 * reciprocal(b)") it multiplies by the number's reciprocal rounded to float32
 * (@recip): the two round differently unless the number is a power of two.
 */
static double div_number(enum pe_float R, double x, double num, int recip)
{
	if (recip)
		return op_round(R, x * round_f32(1.0 / num));
	return op_round(R, x / round_f32(num));
}

/*
 * pos_freqs_i = base^(2i/D) as torch computes it in @R: the exponent
 * arange(0, D, 2) / D rounded (@recip: as a GPU divides), the float32 base
 * raised to it and the power rounded once (torch's pow is correctly rounded).
 */
static double pos_freq(enum pe_float R, double base, size_t i, double D, int recip)
{
	double e = div_number(R, round_to(R, (double)(2 * i)), D, recip);
	return op_round(R, pow(round_f32(base), e));
}

/*
 * Llama 3's frequencies in a reduced precision, every tensor operation of
 * _compute_llama3_parameters (transformers) and Llama3RotaryEmbedding
 * (vLLM: the same steps) rounded in turn, the Python numbers cast to the
 * tensor's type: wavelen = 2 pi / inv_freq; smooth = (original / wavelen -
 * low) / (high - low); (1 - smooth) * inv_freq / factor + smooth * inv_freq
 * in the band. "number / tensor" is torch's Tensor.__rtruediv__,
 * tensor.reciprocal() * number: two roundings, not one division. In the band
 * original / wavelen - low cancels to a few bits, so rounding the exact result
 * instead is several ulps off torch's.
 */
static enum pe_status llama3_reduced(enum pe_float R, const struct pe_rope_scaling_params *p,
                                     double base, double D, size_t h, int recip, double *theta)
{
	double orig = round_to(R, p->original);
	double low = round_to(R, p->low_freq_factor);
	double low_wl = round_to(R, p->original / p->low_freq_factor);
	double high_wl = round_to(R, p->original / p->high_freq_factor);
	double span = p->high_freq_factor - p->low_freq_factor;
	double two_pi = round_to(R, 6.283185307179586); /* Python's 2 * math.pi */
	for (size_t i = 0; i < h; i++) {
		double inv = op_round(R, 1.0 / pos_freq(R, base, i, D, recip));
		/* a Python number over a tensor is Tensor.__rtruediv__: reciprocal, then times */
		double wl = op_round(R, op_round(R, 1.0 / inv) * two_pi);
		double out = wl > low_wl ? div_number(R, inv, p->factor, recip) : inv;
		if (!(wl < high_wl) && !(wl > low_wl)) {
			double sm = op_round(R, op_round(R, op_round(R, 1.0 / wl) * orig) - low);
			sm = div_number(R, sm, span, recip);
			if (!isfinite(sm))
				return PE_ERANGE; /* high == low on the boundary: 0 / 0 */
			double a = div_number(R, op_round(R, op_round(R, 1.0 - sm) * out),
			                      p->factor, recip);
			out = op_round(R, a + op_round(R, sm * out));
		}
		theta[i] = out;
	}
	return PE_OK;
}

/*
 * YaRN's frequencies in a reduced precision, as _compute_yarn_parameters
 * (transformers) and YaRNScalingRotaryEmbedding / DeepseekScalingRotaryEmbedding
 * (vLLM) compute them: pos_freqs = base^(2i/d); extrapolation 1 / pos_freqs,
 * interpolation 1 / (factor * pos_freqs); the ramp (i - low) / (high - low)
 * clamped to [0, 1] over a float32 arange (low and high are Python numbers,
 * @info's, already floored, clamped and separated); mask = 1 - ramp;
 * interpolation * (1 - mask) + extrapolation * mask. Rounding the float64
 * blend once instead was up to 39 ulps off where the mask is small.
 */
static void yarn_reduced(enum pe_float R, const struct pe_rope_scaling_params *p, double base,
                         double D, size_t h, const struct pe_rope_scaling_info *info, int recip,
                         double *theta)
{
	double f = round_to(R, p->factor), low = round_to(R, info->yarn_low);
	double span = info->yarn_high - info->yarn_low;
	for (size_t i = 0; i < h; i++) {
		double pf = pos_freq(R, base, i, D, recip);
		double extra = op_round(R, 1.0 / pf);
		double inter = op_round(R, 1.0 / op_round(R, f * pf));
		double ramp = div_number(R, op_round(R, (double)i - low), span, recip);
		ramp = ramp < 0.0 ? 0.0 : ramp > 1.0 ? 1.0 : ramp;
		double mask = op_round(R, 1.0 - ramp);
		theta[i] = op_round(R, op_round(R, inter * op_round(R, 1.0 - mask)) +
		                               op_round(R, extra * mask));
	}
}

/*
 * vLLM's NTK scaling (ntk_scaling_rope.py) in a reduced precision. Fixed:
 * inv_freq at the base times the factor (a Python number), divided by the
 * Python number factor ** (2 / rotary_dim). Mixed: a = torch.tensor(factor).log()
 * / (rotary_dim / 2) ** b, a tensor of the default dtype, which vLLM's loader
 * sets to the model's (@S, the cache's storage); then inv_freq / exp(a *
 * arange(1, d/2 + 1).float() ** b), the exponent b cast to float32 as torch's
 * pow with a Python exponent does.
 */
static void ntk_reduced(enum pe_float R, enum pe_float S, const struct pe_rope_scaling_params *p,
                        double base, double D, size_t h, int recip, double *theta)
{
	if (isnan(p->mixed_b)) {
		double div = pow(p->factor, 2.0 / D);
		for (size_t i = 0; i < h; i++)
			theta[i] = div_number(
			        R, op_round(R, 1.0 / pos_freq(R, base * p->factor, i, D, recip)),
			        div, recip);
		return;
	}
	enum pe_float A = S == PE_FLOAT_BF16 || S == PE_FLOAT_F16 ? S : R;
	double a = op_round(A, log(round_to(A, p->factor)));
	a = div_number(A, a, pow(D / 2.0, p->mixed_b), recip);
	double b = round_f32(p->mixed_b);
	for (size_t i = 0; i < h; i++) {
		double k = op_round(R, pow((double)(i + 1), b));
		double lam = op_round(R, exp(op_round(R, a * k)));
		theta[i] = op_round(R, op_round(R, 1.0 / pos_freq(R, base, i, D, recip)) / lam);
	}
}

enum pe_status pe_rope_model_init(struct pe_rope_model *m, const struct pe_scheme *s, size_t d,
                                  struct pe_precision prec, double base, double exponent_width,
                                  const struct pe_rope_scaling_params *scaling)
{
	return pe_rope_model_init_flags(m, s, d, prec, base, exponent_width, scaling, 0);
}

enum pe_status pe_rope_model_init_flags(struct pe_rope_model *m, const struct pe_scheme *s,
                                        size_t d, struct pe_precision prec, double base,
                                        double exponent_width,
                                        const struct pe_rope_scaling_params *scaling,
                                        unsigned flags)
{
	int recip = (flags & PE_ROPE_RECIP_DIV) != 0;
	memset(m, 0, sizeof(*m));
	int mrope = s && (flags & PE_ROPE_MROPE) && strcmp(pe_scheme_name(s), "mrope") == 0;
	if (!s || !(pe_scheme_has(s, PE_CAP_SCALING) || mrope))
		return PE_EUNSUPPORTED;
	enum pe_status st = pe_encode_check(s, d, PE_VIEW_COS, NULL);
	if (st != PE_OK)
		return st;
	if (base == 0)
		base = s->base;
	if (!scaling)
		scaling = &s->scaling;
	size_t d_rot = pe_rope_rotary_width(s, d), h = d_rot / 2;
	double D = exponent_width > 0 ? exponent_width : (double)d_rot;
	if (!(base > 0) || !isfinite(base))
		return PE_ERANGE;
	double *theta = malloc(h * sizeof(*theta));
	if (!theta)
		return PE_ENOMEM;
	enum pe_float R = prec.compute;
	int reduced = R == PE_FLOAT_F32 || R == PE_FLOAT_BF16 || R == PE_FLOAT_F16;
	for (size_t i = 0; i < h; i++) {
		if (!reduced) {
			theta[i] = 1.0 / pow(base, (double)(2 * i) / D);
			continue;
		}
		theta[i] = op_round(R, 1.0 / pos_freq(R, base, i, D, recip));
	}
	struct pe_rope_scaling_info info = {1.0, base, NAN, NAN};
	/* none leaves theta as is but may carry an attention factor (rope's; mrope has
	 * no scaling keys) */
	if (scaling->type != PE_ROPE_SCALING_NONE || pe_scheme_has(s, PE_CAP_SCALING))
		st = pe_rope_scale_frequencies(scaling, base, d_rot, theta, &info);
	if (st != PE_OK) {
		free(theta);
		return st;
	}
	if (scaling->type != PE_ROPE_SCALING_NONE) {
		if (reduced && scaling->type == PE_ROPE_SCALING_LLAMA3) {
			st = llama3_reduced(R, scaling, base, D, h, recip, theta);
			if (st != PE_OK) {
				free(theta);
				return st;
			}
		} else if (reduced && scaling->type == PE_ROPE_SCALING_YARN) {
			yarn_reduced(R, scaling, base, D, h, &info, recip, theta);
		} else if (reduced && scaling->type == PE_ROPE_SCALING_NTK) {
			ntk_reduced(R, prec.store, scaling, base, D, h, recip, theta);
		} else if (reduced && scaling->type == PE_ROPE_SCALING_DYNAMIC) {
			/* the grown base (a Python number) through the unscaled path's steps */
			for (size_t i = 0; i < h; i++)
				theta[i] = op_round(R, 1.0 / pos_freq(R, info.base, i, D, recip));
		} else if (reduced && scaling->type == PE_ROPE_SCALING_LONGROPE) {
			/* HF and vLLM: 1 / (float32(ext) * base^e) with the float32 power */
			const double *ext = scaling->length > scaling->original
			                            ? scaling->long_factor
			                            : scaling->short_factor;
			for (size_t i = 0; i < h; i++)
				theta[i] = op_round(
				        R,
				        1.0 / op_round(R, round_to(R, ext[i]) *
				                                  pos_freq(R, base, i, D, recip)));
		} else if (reduced) {
			for (size_t i = 0; i < h; i++)
				theta[i] = op_round(R, theta[i]);
		}
	}
	m->d = d;
	m->d_rot = d_rot;
	m->layout = s->layout;
	m->prec = prec;
	m->att = info.attention_factor;
	m->theta = theta;
	return PE_OK;
}

void pe_rope_model_free(struct pe_rope_model *m)
{
	if (!m)
		return;
	free(m->theta);
	m->theta = NULL;
}

/* One pair of a float32 model, scalar: lanes the row kernel leaves out. */
static void f32_pair(double theta, int scaled, double mr, double att, double *c, double *s)
{
	double a = round_f32(mr * theta), sv, cv;
	sincos_fast(a, &sv, &cv);
	cv = op_round(PE_FLOAT_F32, cv);
	sv = op_round(PE_FLOAT_F32, sv);
	if (scaled) {
		cv = op_round(PE_FLOAT_F32, cv * att);
		sv = op_round(PE_FLOAT_F32, sv * att);
	}
	*c = cv;
	*s = sv;
}

/* The float32 row of @h frequencies @theta at the rounded position @mr, stored as @S. */
static void f32_row(const double *theta, size_t h, int scaled, double mr, double att,
                    enum pe_float S, double *c, double *s)
{
	unsigned char bad[PE_PREC_LANES];
	for (size_t i0 = 0; i0 < h; i0 += PE_PREC_LANES) {
		size_t w = h - i0 < PE_PREC_LANES ? h - i0 : PE_PREC_LANES;
		if (!pe_prec_f32_row(theta + i0, w, mr, att, scaled, c + i0, s + i0, bad))
			continue;
		for (size_t i = i0; i < i0 + w; i++)
			if (bad[i - i0])
				f32_pair(theta[i], scaled, mr, att, &c[i], &s[i]);
	}
	for (size_t i = 0; S != PE_FLOAT_F32 && i < h; i++) {
		c[i] = round_to(S, c[i]);
		s[i] = round_to(S, s[i]);
	}
}

void pe_rope_model_pairs_some(const struct pe_rope_model *m, double pos, const uint32_t *idx,
                              size_t n, double *theta, double *c, double *s)
{
	for (size_t j = 0; j < n; j++)
		theta[j] = m->theta[idx[j]];
	f32_row(theta, n, m->att != 1.0, round_f32(pos), round_f32(m->att), m->prec.store, c, s);
}

void pe_rope_model_pairs(const struct pe_rope_model *m, double pos, double *angle, double *c,
                         double *s)
{
	size_t h = m->d_rot / 2;
	enum pe_float R = m->prec.compute, S = m->prec.store;
	if (R == PE_FLOAT_EXACT) {
		for (size_t i = 0; i < h; i++) {
			double a;
			exact_sincos(pos, m->theta[i], &s[i], &c[i], &a);
			c[i] *= m->att;
			s[i] *= m->att;
			if (angle)
				angle[i] = a;
		}
		return;
	}
	if (R == PE_FLOAT_F64) {
		unsigned char bad[PE_PREC_LANES];
		for (size_t i0 = 0; i0 < h; i0 += PE_PREC_LANES) {
			size_t w = h - i0 < PE_PREC_LANES ? h - i0 : PE_PREC_LANES;
			if (!pe_prec_f64_row(m->theta + i0, w, pos, m->att, c + i0, s + i0, bad))
				continue;
			for (size_t i = i0; i < i0 + w; i++) {
				if (!bad[i - i0])
					continue;
				sincos_fast(pos * m->theta[i], &s[i], &c[i]);
				c[i] *= m->att;
				s[i] *= m->att;
			}
		}
		for (size_t i = 0; angle && i < h; i++)
			angle[i] = pos * m->theta[i];
		return;
	}
	double mr = round_to(R, pos), att = round_f32(m->att);
	if (R == PE_FLOAT_F32) {
		/* the vectorised row, then the storage's rounding */
		f32_row(m->theta, h, m->att != 1.0, mr, att, S, c, s);
		for (size_t i = 0; angle && i < h; i++)
			angle[i] = round_f32(mr * m->theta[i]);
		return;
	}
	/*
	 * bfloat16, float16: the angles here, the float32 sine-cosine of a row
	 * of them vectorised (in c[], s[] in place), each lane then rounded on
	 * here; a flagged lane takes the whole recipe.
	 */
	unsigned char bad[PE_PREC_LANES];
	for (size_t i0 = 0; i0 < h; i0 += PE_PREC_LANES) {
		size_t w = h - i0 < PE_PREC_LANES ? h - i0 : PE_PREC_LANES;
		/* both factors hold at most 24 bits: their double product is exact */
		for (size_t i = i0; i < i0 + w; i++)
			c[i] = round_to(R, mr * m->theta[i]);
		for (size_t i = i0; angle && i < i0 + w; i++)
			angle[i] = c[i];
		int any = pe_prec_f32_sincos_row(c + i0, w, c + i0, s + i0, bad);
		for (size_t i = i0; i < i0 + w; i++) {
			double cv = c[i], sv = s[i];
			if (any && bad[i - i0]) {
				sincos_fast(round_to(R, mr * m->theta[i]), &sv, &cv);
				cv = round_f32(cv);
				sv = round_f32(sv);
			}
			/* op_round(R, x): x is a float32 number already */
			cv = round_to(R, cv);
			sv = round_to(R, sv);
			if (m->att != 1.0) {
				cv = op_round(R, cv * att);
				sv = op_round(R, sv * att);
			}
			c[i] = round_to(S, cv);
			s[i] = round_to(S, sv);
		}
	}
}

enum pe_status pe_precision_encode(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                                   enum pe_view view, struct pe_precision prec, double *dst)
{
	if (n && (double)first + (double)(n - 1) > PE_POSITION_MAX)
		return PE_ERANGE;
	struct pe_rope_model m;
	enum pe_status st = pe_rope_model_init(&m, s, d, prec, 0, 0, NULL);
	if (st != PE_OK)
		return st;
	size_t h = m.d_rot / 2;
	double *buf = malloc((3 * h + 1) * sizeof(*buf));
	if (!buf) {
		pe_rope_model_free(&m);
		return PE_ENOMEM;
	}
	double *ang = buf, *c = buf + h, *sn = buf + 2 * h;
	for (size_t r = 0; r < n; r++) {
		double *row = dst + r * d;
		pe_rope_model_pairs(&m, (double)(first + r), ang, c, sn);
		for (size_t i = 0; i < h; i++) {
			size_t a = m.layout == PE_LAYOUT_HALF ? i : 2 * i;
			size_t b = m.layout == PE_LAYOUT_HALF ? i + h : 2 * i + 1;
			switch (view) {
			case PE_VIEW_ANGLE:
				row[a] = row[b] = round_to(prec.store, ang[i]);
				break;
			case PE_VIEW_COS:
				row[a] = row[b] = c[i];
				break;
			case PE_VIEW_SIN:
				row[a] = row[b] = sn[i];
				break;
			default:
				row[a] = round_to(prec.store, c[i] - sn[i]);
				row[b] = round_to(prec.store, sn[i] + c[i]);
				break;
			}
		}
		double pass = view == PE_VIEW_ANGLE || view == PE_VIEW_SIN ? 0.0 : 1.0;
		for (size_t j = m.d_rot; j < d; j++)
			row[j] = pass;
	}
	free(buf);
	pe_rope_model_free(&m);
	return PE_OK;
}

/* One pair of pe_rope_model_exact_fast(), scalar: lanes the row kernel leaves out. */
static void exact_fast_pair(double theta, double att, double pos, double *c, double *s)
{
	double hi = pos * theta, lo = fma(pos, theta, -hi), sh, ch;
	sincos_fast(hi, &sh, &ch);
	if (fabs(lo) < 1e-4) {
		double sl = lo - lo * lo * lo / 6.0, cl = 1.0 - lo * lo / 2.0;
		*s = (sh * cl + ch * sl) * att;
		*c = (ch * cl - sh * sl) * att;
	} else {
		*s = (sh * cos(lo) + ch * sin(lo)) * att;
		*c = (ch * cos(lo) - sh * sin(lo)) * att;
	}
}

/* The exact row of @h frequencies @theta (the model's, or some of them). */
static void exact_row(const double *theta, size_t h, double att, double pos, double *c, double *s)
{
	unsigned char bad[PE_PREC_LANES];
	for (size_t i0 = 0; i0 < h; i0 += PE_PREC_LANES) {
		size_t w = h - i0 < PE_PREC_LANES ? h - i0 : PE_PREC_LANES;
		if (!pe_prec_exact_row(theta + i0, w, pos, att, c + i0, s + i0, bad))
			continue;
		for (size_t i = i0; i < i0 + w; i++)
			if (bad[i - i0])
				exact_fast_pair(theta[i], att, pos, &c[i], &s[i]);
	}
}

void pe_rope_model_exact_fast(const struct pe_rope_model *m, double pos, double *c, double *s)
{
	exact_row(m->theta, m->d_rot / 2, m->att, pos, c, s);
}

void pe_rope_model_exact_some(const struct pe_rope_model *m, double pos, const uint32_t *idx,
                              size_t n, double *theta, double *c, double *s)
{
	for (size_t j = 0; j < n; j++)
		theta[j] = m->theta[idx[j]];
	exact_row(theta, n, m->att, pos, c, s);
}

void pe_rope_model_exact_f32_some(const struct pe_rope_model *ex, const struct pe_rope_model *m,
                                  double pos, const uint32_t *idx, size_t n, double *theta,
                                  double *ec, double *es, double *c, double *s)
{
	double *th32 = theta + n, mr = round_f32(pos), att = round_f32(m->att);
	int scaled = m->att != 1.0;
	for (size_t j = 0; j < n; j++) {
		theta[j] = ex->theta[idx[j]];
		th32[j] = m->theta[idx[j]];
	}
	unsigned char bad[PE_PREC_LANES], bad32[PE_PREC_LANES];
	for (size_t i0 = 0; i0 < n; i0 += PE_PREC_LANES) {
		size_t w = n - i0 < PE_PREC_LANES ? n - i0 : PE_PREC_LANES;
		int any =
		        pe_prec_exact_f32_row(theta + i0, th32 + i0, w, pos, ex->att, mr, att,
		                              scaled, ec + i0, es + i0, c + i0, s + i0, bad, bad32);
		for (size_t i = i0; any && i < i0 + w; i++) {
			if (bad[i - i0])
				exact_fast_pair(theta[i], ex->att, pos, &ec[i], &es[i]);
			if (bad32[i - i0])
				f32_pair(th32[i], scaled, mr, att, &c[i], &s[i]);
		}
	}
	for (size_t i = 0; m->prec.store != PE_FLOAT_F32 && i < n; i++) {
		c[i] = round_to(m->prec.store, c[i]);
		s[i] = round_to(m->prec.store, s[i]);
	}
}

void pe_rope_model_exact_f32_at(const struct pe_rope_model *ex, const struct pe_rope_model *m,
                                const double *pos, const double *thex, const double *th32, size_t n,
                                double *ec, double *es, double *c, double *s)
{
	double att = round_f32(m->att);
	int scaled = m->att != 1.0;
	unsigned char bad[PE_PREC_LANES], bad32[PE_PREC_LANES];
	for (size_t i0 = 0; i0 < n; i0 += PE_PREC_LANES) {
		size_t w = n - i0 < PE_PREC_LANES ? n - i0 : PE_PREC_LANES;
		int any =
		        pe_prec_exact_f32_at(pos + i0, thex + i0, th32 + i0, w, ex->att, att,
		                             scaled, ec + i0, es + i0, c + i0, s + i0, bad, bad32);
		for (size_t i = i0; any && i < i0 + w; i++) {
			if (bad[i - i0])
				exact_fast_pair(thex[i], ex->att, pos[i], &ec[i], &es[i]);
			if (bad32[i - i0])
				f32_pair(th32[i], scaled, round_f32(pos[i]), att, &c[i], &s[i]);
		}
	}
	for (size_t i = 0; m->prec.store != PE_FLOAT_F32 && i < n; i++) {
		c[i] = round_to(m->prec.store, c[i]);
		s[i] = round_to(m->prec.store, s[i]);
	}
}
