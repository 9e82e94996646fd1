/*
 * M-RoPE (Qwen2-VL, Wang et al. 2024): RoPE whose pairs are split between
 * three position axes, temporal, height and width. Pair i rotates by
 * p_axis(i) * theta_i with theta_i = base^(-2i/d): in Qwen2-VL/2.5-VL the
 * first t pairs follow the temporal position, the next h the height and
 * the last w the width (mrope_section, rotate_half pairing); in the
 * interleaved variant (Qwen3-VL) pair i follows height when i % 3 == 1 and
 * i < 3h, width when i % 3 == 2 and i < 3w, else time. A text token has
 * the same position on every axis, which is plain RoPE; grid=... lays the
 * positions over a frames x height x width patch grid (row-major), each
 * axis position being the patch's index on that axis.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "scheme/encode_internal.h"
#include "scheme/scheme_type.h"

#define OFF(field) offsetof(struct pe_scheme, field)

static const struct pe_scheme_key keys[] = {
        {"base", PE_KEY_DOUBLE, OFF(base), 0, NULL, 1.0, 1e300, 1, "10000",
         "theta_i = base^(-2i/d) (> 1)"},
        {"t", PE_KEY_COUNT, OFF(mrope_pairs[0]), 0, NULL, 0, 1u << 20, 0, "16",
         "pairs following the temporal position (mrope_section[0])"},
        {"h", PE_KEY_COUNT, OFF(mrope_pairs[1]), 0, NULL, 0, 1u << 20, 0, "24",
         "pairs following the height position (mrope_section[1])"},
        {"w", PE_KEY_COUNT, OFF(mrope_pairs[2]), 0, NULL, 0, 1u << 20, 0, "24",
         "pairs following the width position (mrope_section[2])"},
        {"interleaved", PE_KEY_BOOL, OFF(mrope_interleaved), 0, NULL, 0, 0, 0, "0",
         "pairs assigned to axes in turn (Qwen3-VL) instead of in sections"},
        {"frames", PE_KEY_COUNT, OFF(mrope_grid[0]), 0, NULL, 0, 1u << 30, 0, "0",
         "patch grid frames (0: text positions, equal on every axis)"},
        {"height", PE_KEY_COUNT, OFF(mrope_grid[1]), 0, NULL, 0, 1u << 30, 0, "0",
         "patch grid rows"},
        {"width", PE_KEY_COUNT, OFF(mrope_grid[2]), 0, NULL, 0, 1u << 30, 0, "0",
         "patch grid columns"},
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static void init(struct pe_scheme *s)
{
	s->layout = PE_LAYOUT_HALF;
	s->rotary = 1.0;
}

static enum pe_status finish(struct pe_scheme *s, const unsigned char *given, char **err)
{
	(void)given;
	const unsigned *g = s->mrope_grid;
	int any = g[0] || g[1] || g[2];
	if (any && !(g[0] && g[1] && g[2])) {
		*err = pe_scheme_errf("keys 'frames', 'height', 'width': a patch grid needs all "
		                      "three above 0 (or none, for text positions)");
		return PE_EINVAL;
	}
	return PE_OK;
}

static enum pe_status check(const struct pe_scheme *s, size_t d, enum pe_view view,
                            const char **why)
{
	(void)view;
	const unsigned *p = s->mrope_pairs;
	if (d % 2 || (size_t)p[0] + p[1] + p[2] != d / 2) {
		*why = "mrope needs t + h + w pairs to be d/2 (Qwen2-VL: 16 + 24 + 24 = 128/2)";
		return PE_ERANGE;
	}
	if (view != PE_VIEW_DEFAULT && view != PE_VIEW_ROTATED) {
		*why = "mrope has the default (rotated) view only";
		return PE_EUNSUPPORTED;
	}
	return PE_OK;
}

/* The axis pair i follows. */
static int axis_of(const struct pe_scheme *s, size_t i)
{
	const unsigned *p = s->mrope_pairs;
	if (s->mrope_interleaved) {
		if (i % 3 == 1 && i < 3 * (size_t)p[1])
			return 1;
		if (i % 3 == 2 && i < 3 * (size_t)p[2])
			return 2;
		return 0;
	}
	return i < p[0] ? 0 : i < (size_t)p[0] + p[1] ? 1 : 2;
}

static enum pe_status rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                           enum pe_view view, double *dst)
{
	(void)view;
	size_t h = d / 2;
	double *theta = malloc((h ? h : 1) * sizeof(*theta));
	if (!theta)
		return PE_ENOMEM;
	enum pe_status st = pe_rope_base_frequencies(s->base, d, theta);
	const unsigned *g = s->mrope_grid;
	for (size_t r = 0; r < n && st == PE_OK; r++) {
		uint64_t q = first + r;
		double pos[3] = {(double)q, (double)q, (double)q};
		if (g[0]) {
			pos[2] = (double)(q % g[2]);
			pos[1] = (double)(q / g[2] % g[1]);
			pos[0] = (double)(q / g[2] / g[1]);
		}
		double *row = dst + r * d;
		for (size_t i = 0; i < h; i++) {
			double sv, cv, angle;
			pe_exact_sincos(pos[axis_of(s, i)], theta[i], 0, &sv, &cv, &angle);
			/* the all-ones vector rotated, at rotate_half's columns i, i + d/2 */
			row[i] = cv - sv;
			row[i + h] = sv + cv;
		}
	}
	free(theta);
	return st;
}

const struct pe_scheme_type pe_scheme_mrope = {
        .name = "mrope",
        .summary = "multimodal RoPE: pairs split between time, height and width (Qwen2-VL)",
        .caps = PE_CAP_VECTORS | PE_CAP_ENCODE,
        .keys = keys,
        .n_keys = NKEYS,
        .init = init,
        .finish = finish,
        .check = check,
        .rows = rows,
};
