/* Frequency tables: unscaled theta and wavelength, then each RoPE scaling variant. */
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include <posenc/encode.h>
#include <posenc/freqs.h>

#include "scheme/scheme_type.h"

#define TWO_PI       6.283185307179586
#define MAX_VARIANTS 4

/* The defaults shown for a rope scheme without scaling (see posenc/freqs.h). */
static struct pe_rope_scaling_params default_variant(enum pe_rope_scaling type, double length)
{
	struct pe_rope_scaling_params p = {0};
	p.type = type;
	p.factor = pe_rope_scalings[type].factor;
	p.original = pe_rope_scalings[type].original;
	p.length = length > 0 ? length : 4.0 * 4096.0;
	p.low_freq_factor = 1.0;
	p.high_freq_factor = 4.0;
	p.beta_fast = 32.0;
	p.beta_slow = 1.0;
	p.attention_factor = NAN;
	p.truncate = 1;
	return p;
}

/* The variants of a scheme; returns their count. */
static size_t variants_of(const struct pe_scheme *s, size_t d_rot,
                          const struct pe_freqs_options *opt, struct pe_rope_scaling_params *v)
{
	if (!pe_scheme_has(s, PE_CAP_SCALING))
		return 0;
	/* Unscaled with a magnitude of its own (llama.cpp's attn_factor): that one
	 * variant, so that its attention factor is reported; its factor is no part of it. */
	if (s->scaling.type == PE_ROPE_SCALING_NONE && !isnan(s->scaling.attention_factor)) {
		v[0] = s->scaling;
		v[0].factor = 1.0;
		return 1;
	}
	/* An explicit scaling=none (a real model without scaling) asks for no variants. */
	if (s->scaling.type == PE_ROPE_SCALING_NONE && s->canonical &&
	    strstr(s->canonical, " scaling=none"))
		return 0;
	if (s->scaling.type != PE_ROPE_SCALING_NONE) {
		v[0] = s->scaling;
		if (opt->length > 0)
			v[0].length = opt->length;
		return 1;
	}
	const enum pe_rope_scaling set[MAX_VARIANTS] = {
	        PE_ROPE_SCALING_LINEAR, PE_ROPE_SCALING_DYNAMIC, PE_ROPE_SCALING_YARN,
	        PE_ROPE_SCALING_LLAMA3};
	size_t count = 0;
	for (size_t k = 0; k < MAX_VARIANTS; k++) {
		/* Dynamic NTK's exponent d/(d-2) has no value at a rotary width of 2. */
		if (set[k] == PE_ROPE_SCALING_DYNAMIC && d_rot < 4)
			continue;
		v[count++] = default_variant(set[k], opt->length);
	}
	return count;
}

void pe_freq_table_destroy(struct pe_freq_table *t)
{
	if (!t)
		return;
	pe_matrix_destroy(t->values);
	free(t->axes);
	free(t->columns);
	free(t->variants);
	free(t);
}

/* Fill the per-variant columns; theta holds the unscaled frequencies. */
static enum pe_status fill_variants(struct pe_freq_table *t, const struct pe_scheme *s,
                                    const struct pe_rope_scaling_params *v, const double *theta,
                                    double *work)
{
	size_t pairs = t->values->rows, cols = t->values->cols;
	for (size_t k = 0; k < t->n_variants; k++) {
		for (size_t i = 0; i < pairs; i++)
			work[i] = theta[i];
		struct pe_freq_variant *fv = &t->variants[k];
		enum pe_status st =
		        pe_rope_scale_frequencies(&v[k], s->base, t->d_pairs, work, &fv->info);
		if (st != PE_OK)
			return st;
		fv->type = v[k].type;
		fv->factor = v[k].factor;
		fv->original = v[k].original;
		fv->length = v[k].length > v[k].original ? v[k].length : v[k].original;
		t->columns[2 + 2 * k] = pe_rope_scalings[fv->type].theta_column;
		t->columns[3 + 2 * k] = pe_rope_scalings[fv->type].ratio_column;
		for (size_t i = 0; i < pairs; i++) {
			double *row = t->values->data + i * cols;
			row[2 + 2 * k] = work[i];
			row[3 + 2 * k] = work[i] / theta[i];
		}
	}
	return PE_OK;
}

static void set_critical_dim(struct pe_freq_table *t, const struct pe_scheme *s,
                             const struct pe_freqs_options *opt)
{
	int rope = pe_scheme_has(s, PE_CAP_SCALING);
	int same_as_rope = rope || t->axes || (s->freq == PE_FREQ_PAPER && t->d_pairs % 2 == 0);
	/* No training length is invented: a plain table has none unless one is given. */
	int own = rope && pe_rope_scaling_has_original(s->scaling.type);
	t->train_length = opt->train_length > 0 ? opt->train_length
	                  : own                 ? s->scaling.original
	                                        : 0.0;
	t->has_critical_dim = same_as_rope && t->train_length > 0 &&
	                      pe_rope_critical_dim(s->base, t->d_pairs, t->train_length,
	                                           &t->critical_dim) == PE_OK;
}

enum pe_pair_regime pe_pair_regime(const struct pe_freq_variant *v, double ratio)
{
	const double tol = 1e-12;
	if (ratio == 0.0)
		return PE_REGIME_STATIC;
	if (fabs(ratio - 1.0) <= tol)
		return PE_REGIME_KEPT;
	if (v->type == PE_ROPE_SCALING_LONGROPE)
		return PE_REGIME_RESCALED;
	if (v->factor > 0 && fabs(ratio * v->factor - 1.0) <= tol)
		return PE_REGIME_INTERPOLATED;
	return PE_REGIME_RAMPED;
}

const char *pe_pair_regime_name(enum pe_pair_regime r)
{
	static const char *const names[] = {"kept", "ramped", "interpolated", "rescaled", "static"};
	return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : "unknown";
}

enum pe_status pe_freq_table_create(const struct pe_scheme *s, size_t d,
                                    const struct pe_freqs_options *opt, struct pe_freq_table **out)
{
	*out = NULL;
	const struct pe_freqs_options none = {0, 0};
	if (!opt)
		opt = &none;
	if (!pe_scheme_has(s, PE_CAP_FREQS))
		return PE_EUNSUPPORTED;
	size_t count;
	double *theta = malloc((d + 1) * sizeof(*theta));
	double *work = malloc((d + 1) * sizeof(*work));
	struct pe_freq_table *t = calloc(1, sizeof(*t));
	enum pe_status st = theta && work && t ? PE_OK : PE_ENOMEM;
	if (st == PE_OK && pe_scheme_has(s, PE_CAP_SCALING)) {
		/* The unscaled frequencies: theta is the reference of every ratio. */
		t->d_pairs = pe_rope_rotary_width(s, d);
		st = pe_encode_check(s, d, PE_VIEW_DEFAULT, NULL);
		if (st == PE_OK)
			st = pe_rope_base_frequencies(s->base, t->d_pairs, theta);
		count = t->d_pairs / 2;
	} else if (st == PE_OK) {
		t->d_pairs = d;
		st = pe_scheme_frequencies(s, d, theta, &count);
	}
	struct pe_rope_scaling_params v[MAX_VARIANTS];
	if (st == PE_OK) {
		t->n_variants = variants_of(s, t->d_pairs, opt, v);
		t->illustrative = t->n_variants > 0 && s->scaling.type == PE_ROPE_SCALING_NONE &&
		                  isnan(s->scaling.attention_factor);
		t->values = pe_matrix_create(count, 2 + 2 * t->n_variants);
		t->columns = calloc(2 + 2 * t->n_variants, sizeof(*t->columns));
		t->variants = calloc(t->n_variants ? t->n_variants : 1, sizeof(*t->variants));
		if (!t->values || !t->columns || !t->variants)
			st = PE_ENOMEM;
	}
	if (st == PE_OK) {
		t->base = s->base;
		t->columns[0] = "theta";
		t->columns[1] = "wavelength";
		for (size_t i = 0; i < count; i++) {
			t->values->data[i * t->values->cols] = theta[i];
			t->values->data[i * t->values->cols + 1] = TWO_PI / theta[i];
		}
		st = fill_variants(t, s, v, theta, work);
	}
	if (st == PE_OK && pe_mrope_pair_axis(s, 0) >= 0) {
		t->axes = malloc(count ? count : 1);
		if (!t->axes)
			st = PE_ENOMEM;
		for (size_t i = 0; st == PE_OK && i < count; i++)
			t->axes[i] = (unsigned char)pe_mrope_pair_axis(s, i);
	}
	if (st == PE_OK)
		set_critical_dim(t, s, opt);
	free(theta);
	free(work);
	if (st != PE_OK) {
		pe_freq_table_destroy(t);
		return st;
	}
	*out = t;
	return PE_OK;
}
