/*
 * RoPE views. theta_i = 1 / base^(2i/d_rot) as HF computes inv_freq, then
 * the scaling; angles m * theta_i. Columns of pair i: (2i, 2i+1) for the
 * interleaved layout, (i, i + d_rot/2) for rotate_half. Columns past d_rot
 * are not rotated. cos, sin and rotated carry the scaling's attention
 * factor, as HF's cos/sin tables do.
 */
#include <math.h>
#include <stdlib.h>

#include <posenc/rope.h>

#include "scheme/encode_internal.h"

size_t pe_rope_rotary_width(const struct pe_scheme *s, size_t d)
{
	/* int(head_dim * partial_rotary_factor), as HF and GPT-NeoX do. */
	return (size_t)((double)d * s->rotary);
}

enum pe_status pe_rope_theta(const struct pe_scheme *s, size_t d_rot, double *theta,
                             struct pe_rope_scaling_info *info)
{
	for (size_t i = 0; i < d_rot / 2; i++)
		theta[i] = 1.0 / pow(s->base, (double)(2 * i) / (double)d_rot);
	return pe_rope_scale_frequencies(&s->scaling, s->base, d_rot, theta, info);
}

/* One row at position m (a block centre) with pairs damped over a block. */
/* The two values of pair i at position m (its first and second column). */
static void rope_pair(double theta, double att, enum pe_view view, double m, double block,
                      double *va, double *vb)
{
	double sv, cv, angle;
	pe_exact_sincos(m, theta, 0, &sv, &cv, &angle);
	if (block > 1.0) {
		/* The angle is linear in m: its block mean is its value at the centre. */
		double damp = pe_block_damping(block, theta);
		sv *= damp;
		cv *= damp;
	}
	switch (view) {
	case PE_VIEW_ANGLE:
		*va = *vb = angle;
		break;
	case PE_VIEW_COS:
		*va = *vb = att * cv;
		break;
	case PE_VIEW_SIN:
		*va = *vb = att * sv;
		break;
	default:
		/* The all-ones vector: (1,1) rotated by the angle. */
		*va = att * (cv - sv);
		*vb = att * (sv + cv);
		break;
	}
}

/* The columns past the rotated ones: what each view shows of an unrotated 1. */
static double rope_pass(enum pe_view view)
{
	return view == PE_VIEW_ANGLE || view == PE_VIEW_SIN ? 0.0 : 1.0;
}

static void rope_row(const struct pe_scheme *s, size_t d, const double *theta, double att,
                     enum pe_view view, double m, double block, double *row)
{
	size_t d_rot = pe_rope_rotary_width(s, d), h = d_rot / 2;
	for (size_t i = 0; i < h; i++) {
		size_t a = s->layout == PE_LAYOUT_HALF ? i : 2 * i;
		size_t b = s->layout == PE_LAYOUT_HALF ? i + h : 2 * i + 1;
		rope_pair(theta[i], att, view, m, block, &row[a], &row[b]);
	}
	for (size_t j = d_rot; j < d; j++)
		row[j] = rope_pass(view);
}

/* Column j of the row rope_row() forms. */
static double rope_col(const struct pe_scheme *s, size_t d, const double *theta, double att,
                       enum pe_view view, double m, double block, size_t j)
{
	size_t d_rot = pe_rope_rotary_width(s, d), h = d_rot / 2;
	if (j >= 2 * h)
		return rope_pass(view);
	size_t i = s->layout == PE_LAYOUT_HALF ? (j < h ? j : j - h) : j / 2;
	int first = s->layout == PE_LAYOUT_HALF ? j < h : j % 2 == 0;
	double va, vb;
	rope_pair(theta[i], att, view, m, block, &va, &vb);
	return first ? va : vb;
}

/* Positions come as rows (block == NULL) or as the blocks of a window. */
static enum pe_status rope_fill(const struct pe_scheme *s, size_t d, uint64_t first,
                                const struct pe_window *w, const struct pe_block *blocks,
                                size_t count, enum pe_view view, const size_t *cols, size_t ncols,
                                double *dst)
{
	size_t d_rot = pe_rope_rotary_width(s, d), h = d_rot / 2;
	double *theta = malloc((h ? h : 1) * sizeof(*theta));
	if (!theta)
		return PE_ENOMEM;
	struct pe_rope_scaling_info info;
	enum pe_status st = pe_rope_theta(s, d_rot, theta, &info);
	if (st != PE_OK) {
		free(theta);
		return st;
	}
	if (view == PE_VIEW_DEFAULT)
		view = PE_VIEW_ROTATED;
	for (size_t r = 0; r < count; r++) {
		double m = (double)(first + r), len = 1.0;
		if (w)
			pe_window_block(w, first + r, &m, &len);
		if (blocks)
			pe_block_centre(&blocks[r], &m, &len);
		if (!cols)
			rope_row(s, d, theta, info.attention_factor, view, m, len, dst + r * d);
		for (size_t c = 0; cols && c < ncols; c++)
			dst[r * ncols + c] =
			        rope_col(s, d, theta, info.attention_factor, view, m, len, cols[c]);
	}
	free(theta);
	return PE_OK;
}

enum pe_status pe_rope_rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                            enum pe_view view, double *dst)
{
	return rope_fill(s, d, first, NULL, NULL, n, view, NULL, 0, dst);
}

enum pe_status pe_rope_window(const struct pe_scheme *s, size_t d, const struct pe_window *w,
                              size_t r0, size_t count, enum pe_view view, double *dst)
{
	return rope_fill(s, d, r0, w, NULL, count, view, NULL, 0, dst);
}

enum pe_status pe_rope_blocks_cols(const struct pe_scheme *s, size_t d, enum pe_view view,
                                   const struct pe_block *blocks, size_t count, const size_t *cols,
                                   size_t ncols, double *dst)
{
	return rope_fill(s, d, 0, NULL, blocks, count, view, cols, ncols, dst);
}
