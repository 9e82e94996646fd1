/*
 * posenc check: RoPE as ggml computes it in float32 (llama.cpp's CPU
 * backend, ggml/src/ggml-cpu/ops.cpp: ggml_rope_cache_init, rope_yarn,
 * rope_yarn_ramp; ggml.c: ggml_rope_yarn_corr_dims).
 *
 * ggml never forms inv_freq. For each position p it starts from
 * theta = (float)p and multiplies by theta_scale = powf(freq_base,
 * -2.0f/n_dims) once per pair, so pair i's angle carries i float32
 * roundings; each pair's angle is divided by its freq_factor (llama.cpp's
 * rope_freqs / LongRoPE factor tensors), times freq_scale (1/factor), mixed
 * with the unscaled angle by YaRN's ramp when ext_factor is not 0, and
 * cosf/sinf of it are multiplied by mscale. Everything here is float
 * arithmetic (C11, FLT_EVAL_METHOD 0, contraction off in the build), so it
 * rounds as ggml's does, except where ggml's own build may fuse a multiply-add
 * (YaRN's mix: both are tried); cos and sin are correctly rounded, which
 * libm's cosf/sinf are within an ulp of.
 */
#include <math.h>
#include <stdlib.h>

#include <posenc/rope.h>

#include "analysis/check_internal.h"

/* ggml_rope_yarn_corr_dim: the pair that turns n_rot times in the original context. */
static float corr_dim(float n_dims, float n_ctx_orig, float n_rot, float base)
{
	return n_dims * logf(n_ctx_orig / (n_rot * 2 * (float)3.14159265358979323846)) /
	       (2 * logf(base));
}

/*
 * Pair @i's divisor as convert_hf_to_gguf.py computes Llama 3's rope_freqs: a
 * float32 freqs tensor, then per element (0-d float32 tensors, Python numbers
 * cast to float32; "number / tensor" is torch's reciprocal, then a product):
 * wavelen = 2 pi / freq; 1, factor, or 1 / ((1 - smooth) / factor + smooth)
 * with smooth = (original / wavelen - low) / (high - low).
 */
static float llama3_factor(const struct pe_rope_scaling_params *p, double base, double D, size_t i)
{
	float e = (float)(2 * i) / (float)D;
	float freq = 1.0f / (float)pow((double)(float)base, (double)e);
	float wl = (1.0f / freq) * (float)6.283185307179586;
	if (wl < (float)(p->original / p->high_freq_factor))
		return 1.0f;
	if (wl > (float)(p->original / p->low_freq_factor))
		return (float)p->factor;
	float sm = ((1.0f / wl) * (float)p->original - (float)p->low_freq_factor) /
	           (float)(p->high_freq_factor - p->low_freq_factor);
	return 1.0f / ((1.0f - sm) / (float)p->factor + sm);
}

enum pe_status check_ggml_init(struct check_model *m, const struct pe_scheme *s,
                               const struct check_hyp *h)
{
	const struct pe_rope_scaling_params *p = &h->scaling;
	size_t d_rot = m->rope.d_rot, half = d_rot / 2;
	double base = h->base > 0 ? h->base : s->base;
	double D = h->exponent_width > 0 ? h->exponent_width : (double)d_rot;
	struct check_ggml *g = &m->g;
	g->freq_scale = 1.0f;
	g->ext_factor = 0.0f;
	g->mscale = (float)m->rope.att;
	g->ff = NULL;
	if (p->type == PE_ROPE_SCALING_PROPORTIONAL)
		return PE_EUNSUPPORTED; /* frequency 0: no freq_factor gives it */
	if (p->type == PE_ROPE_SCALING_NTK)
		return PE_EUNSUPPORTED; /* vLLM's own: llama.cpp has no such type */
	double *theta = malloc(half * sizeof(*theta));
	if (!theta)
		return PE_ENOMEM;
	for (size_t i = 0; i < half; i++)
		theta[i] = 1.0 / pow(base, (double)(2 * i) / D);
	struct pe_rope_scaling_info info = {1.0, base, NAN, NAN};
	enum pe_status st = PE_OK;
	if (p->type != PE_ROPE_SCALING_NONE)
		st = pe_rope_scale_frequencies(p, base, d_rot, theta, &info);
	if (st != PE_OK) {
		free(theta);
		return st;
	}
	/* dynamic NTK: ggml would be handed the grown base */
	double b = p->type == PE_ROPE_SCALING_DYNAMIC ? info.base : base;
	g->theta_scale = powf((float)b, -2.0f / (float)D);
	switch (p->type) {
	case PE_ROPE_SCALING_NONE:
	case PE_ROPE_SCALING_DYNAMIC:
		break;
	case PE_ROPE_SCALING_LINEAR:
		g->freq_scale = 1.0f / (float)p->factor;
		break;
	case PE_ROPE_SCALING_YARN: {
		g->freq_scale = 1.0f / (float)p->factor;
		g->ext_factor = 1.0f;
		float lo =
		        corr_dim((float)d_rot, (float)p->original, (float)p->beta_fast, (float)b);
		float hi =
		        corr_dim((float)d_rot, (float)p->original, (float)p->beta_slow, (float)b);
		if (p->truncate) {
			lo = floorf(lo);
			hi = ceilf(hi);
		}
		g->corr[0] = lo > 0 ? lo : 0;
		g->corr[1] = hi < (float)d_rot - 1 ? hi : (float)d_rot - 1;
		break;
	}
	default: {
		/* llama3, longrope: per-pair divisors, as the converter stores them (float32) */
		g->ff = malloc(half * sizeof(*g->ff));
		if (!g->ff) {
			free(theta);
			return PE_ENOMEM;
		}
		for (size_t i = 0; i < half; i++)
			g->ff[i] =
			        p->type == PE_ROPE_SCALING_LLAMA3
			                ? llama3_factor(p, base, D, i)
			                : (float)(1.0 / pow(base, (double)(2 * i) / D) / theta[i]);
		break;
	}
	}
	free(theta);
	/* pairs that never turn: a divisor of infinity gives ggml's angle 0 */
	if (h->zero) {
		if (!g->ff) {
			g->ff = malloc(half * sizeof(*g->ff));
			if (!g->ff)
				return PE_ENOMEM;
			for (size_t i = 0; i < half; i++)
				g->ff[i] = 1.0f;
		}
		for (size_t i = 0; i < half; i++)
			if (h->zero[i])
				g->ff[i] = INFINITY;
	}
	m->ggml = 1;
	return PE_OK;
}

/* rope_yarn_ramp: 1 below the correction range, 0 above it. */
static float ramp(const float corr[2], size_t i0)
{
	float y = ((float)(i0 / 2) - corr[0]) / fmaxf(0.001f, corr[1] - corr[0]);
	return 1 - fminf(1, fmaxf(0, y));
}

void check_ggml_pairs(const struct check_model *m, double pos, double *ang, double *c, double *s)
{
	const struct check_ggml *g = &m->g;
	size_t half = m->rope.d_rot / 2;
	float theta = (float)pos;
	for (size_t i = 0; i < half; i++) {
		float ff = g->ff ? g->ff[i] : 1.0f;
		float extrap = theta / ff;
		float t = g->freq_scale * extrap;
		if (g->ext_factor != 0.0f) {
			float mix = ramp(g->corr, 2 * i) * g->ext_factor;
			/* a build with FMA contraction (x86-64 -march=native) fuses the first
			 * product */
			t = g->fma ? fmaf(t, 1 - mix, extrap * mix) : t * (1 - mix) + extrap * mix;
		}
		double sv, cv;
		pe_sincos_fast((double)t, &sv, &cv);
		float cf = (float)cv, sf = (float)sv;
		if (g->mscale != 1.0f) {
			cf *= g->mscale;
			sf *= g->mscale;
		}
		/* float32, as ggml's cache holds them: check_expected_row() rounds them to the
		 * storage precision where a table of them is stored */
		c[i] = (double)cf;
		s[i] = (double)sf;
		if (ang)
			ang[i] = (double)t;
		theta *= g->theta_scale;
	}
}
