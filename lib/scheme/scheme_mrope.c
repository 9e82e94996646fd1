/*
 * M-RoPE (Qwen2-VL, Wang et al. 2024): RoPE whose pairs are split between
 * three position axes, temporal, height and width. Pair i rotates by
 * p_axis(i) * theta_i with theta_i = base^(-2i/d): in Qwen2-VL/2.5-VL the
 * first t pairs follow the temporal position, the next h the height and
 * the last w the width (mrope_section, rotate_half pairing); in the
 * interleaved variant (Qwen3-VL) pair i follows height when i % 3 == 1 and
 * i < 3h, width when i % 3 == 2 and i < 3w, else time.
 *
 * The position ids are those of transformers' Qwen2-VL get_rope_index for
 * one sequence "text=N tokens, one image or video grid, more text" (see
 * pe_mrope_position() in posenc/rope.h), or explicit triples. A text token
 * has the same position on every axis, which is plain RoPE.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
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
         "patch grid frames (0: no grid, text positions equal on every axis)"},
        {"height", PE_KEY_COUNT, OFF(mrope_grid[1]), 0, NULL, 0, 1u << 30, 0, "0",
         "patch grid rows (after the vision merge: image_grid_thw h / merge)"},
        {"width", PE_KEY_COUNT, OFF(mrope_grid[2]), 0, NULL, 0, 1u << 30, 0, "0",
         "patch grid columns (after the vision merge)"},
        {"text", PE_KEY_COUNT, OFF(mrope_text), 0, NULL, 0, 1u << 30, 0, "0",
         "text tokens before the grid; tokens after it resume at max id + 1"},
        {"tstep", PE_KEY_DOUBLE, OFF(mrope_tstep), 0, NULL, 0.0, 1e6, 0, "1",
         "temporal ids per frame: t = floor(frame * tstep) (Qwen2.5-VL video: "
         "tokens_per_second x second_per_grid_t)"},
};
#define NKEYS     (sizeof(keys) / sizeof(keys[0]))
#define KEY_TEXT  8
#define KEY_TSTEP 9
_Static_assert(NKEYS == 10, "KEY_TEXT and KEY_TSTEP index keys[]");

static void init(struct pe_scheme *s)
{
	s->layout = PE_LAYOUT_HALF;
	s->rotary = 1.0;
}

static enum pe_status finish(struct pe_scheme *s, const unsigned char *given, char **err)
{
	const unsigned *g = s->mrope_grid;
	int any = g[0] || g[1] || g[2];
	if (any && !(g[0] && g[1] && g[2])) {
		*err = pe_scheme_errf("keys 'frames', 'height', 'width': a patch grid needs all "
		                      "three above 0 (or none, for text positions)");
		return PE_EINVAL;
	}
	/* Every patch is a token: the grid must fit the exact positions. */
	if (any && (double)g[0] * (double)g[1] * (double)g[2] > PE_POSITION_MAX) {
		*err = pe_scheme_errf("keys 'frames', 'height', 'width': %u x %u x %u patches "
		                      "pass 2^53, the last exact position",
		                      g[0], g[1], g[2]);
		return PE_ERANGE;
	}
	/* Their defaults (text=0, tstep=1) change nothing without a grid. */
	int set[2] = {s->mrope_text != 0, s->mrope_tstep != 1.0};
	for (int k = KEY_TEXT; k <= KEY_TSTEP; k++) {
		if (given[k] && set[k - KEY_TEXT] && !any) {
			*err = pe_scheme_errf("key '%s' places a patch grid: it needs frames, "
			                      "height and width",
			                      keys[k].name);
			return PE_EINVAL;
		}
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
	return PE_OK;
}

enum pe_status pe_mrope_position(const struct pe_scheme *s, uint64_t q, double pos[3])
{
	if (!s || strcmp(pe_scheme_name(s), "mrope") != 0)
		return PE_EINVAL;
	if (s->mrope_positions) {
		if (q >= s->mrope_n_positions)
			return PE_ERANGE;
		memcpy(pos, s->mrope_positions + 3 * q, 3 * sizeof(double));
		return PE_OK;
	}
	const unsigned *g = s->mrope_grid;
	double text = (double)s->mrope_text;
	uint64_t area = (uint64_t)g[1] * g[2], patches = (uint64_t)g[0] * area;
	if (!g[0] || q < s->mrope_text) {
		pos[0] = pos[1] = pos[2] = (double)q;
	} else if (q - s->mrope_text < patches) {
		uint64_t k = q - s->mrope_text;
		/* get_rope_index: time_tensor.long() truncates; ids are >= 0. */
		pos[0] = text + floor((double)(k / area) * s->mrope_tstep);
		pos[1] = text + (double)(k / g[2] % g[1]);
		pos[2] = text + (double)(k % g[2]);
	} else {
		/* st_idx = llm_pos_ids_list[-1].max() + 1 over the grid's three axes */
		double top = fmax(floor((double)(g[0] - 1) * s->mrope_tstep),
		                  (double)(g[1] > g[2] ? g[1] : g[2]) - 1.0);
		double after = (double)(q - s->mrope_text - patches);
		pos[0] = pos[1] = pos[2] = text + top + 1.0 + after;
	}
	for (int a = 0; a < 3; a++)
		if (!(pos[a] <= PE_POSITION_MAX))
			return PE_ERANGE;
	return PE_OK;
}

enum pe_status pe_mrope_set_positions(struct pe_scheme *s, const double *thw, size_t count,
                                      char **err)
{
	if (err)
		*err = NULL;
	if (!s || strcmp(pe_scheme_name(s), "mrope") != 0) {
		if (err)
			*err = pe_strdup("explicit (t, h, w) position ids are for mrope schemes");
		return PE_EINVAL;
	}
	if (s->mrope_grid[0]) {
		if (err)
			*err = pe_strdup(
			        "the spec already lays positions out (frames, height, width, "
			        "text): give one or the other");
		return PE_EINVAL;
	}
	if (count == 0 || count > SIZE_MAX / (3 * sizeof(double))) {
		if (err)
			*err = pe_strdup(count ? "too many positions" : "no positions");
		return PE_ERANGE;
	}
	for (size_t i = 0; i < 3 * count; i++) {
		double v = thw[i];
		if (!(v >= 0.0 && v <= PE_POSITION_MAX && v == floor(v))) {
			if (err)
				*err = pe_asprintf("token %zu, %s: %.17g is not a whole number in "
				                   "0..2^53 (position ids are integers)",
				                   i / 3,
				                   i % 3 == 0   ? "t"
				                   : i % 3 == 1 ? "h"
				                                : "w",
				                   v);
			return PE_ERANGE;
		}
	}
	double *copy = malloc(3 * count * sizeof(double));
	if (!copy)
		return PE_ENOMEM;
	memcpy(copy, thw, 3 * count * sizeof(double));
	free(s->mrope_positions);
	s->mrope_positions = copy;
	s->mrope_n_positions = count;
	return PE_OK;
}

int pe_mrope_axis(const unsigned pairs[3], int interleaved, size_t i)
{
	const unsigned *p = pairs;
	if (interleaved) {
		if (i % 3 == 1 && i < 3 * (size_t)p[1])
			return 1;
		if (i % 3 == 2 && i < 3 * (size_t)p[2])
			return 2;
		return 0;
	}
	return i < p[0] ? 0 : i < (size_t)p[0] + p[1] ? 1 : 2;
}

int pe_mrope_pair_axis(const struct pe_scheme *s, size_t i)
{
	if (!s || strcmp(pe_scheme_name(s), "mrope") != 0)
		return -1;
	const unsigned *p = s->mrope_pairs;
	if (i >= (size_t)p[0] + p[1] + p[2])
		return -1;
	return pe_mrope_axis(p, s->mrope_interleaved, i);
}

/* Every axis turns pair i at the same theta_i: the axes differ in position ids only. */
static enum pe_status frequencies(const struct pe_scheme *s, size_t d, double *theta, size_t *count)
{
	enum pe_status st = pe_rope_base_frequencies(s->base, d, theta);
	*count = st == PE_OK ? d / 2 : 0;
	return st;
}

static enum pe_status rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                           enum pe_view view, double *dst)
{
	size_t h = d / 2;
	double *theta = malloc((h ? h : 1) * sizeof(*theta));
	if (!theta)
		return PE_ENOMEM;
	enum pe_status st = pe_rope_base_frequencies(s->base, d, theta);
	for (size_t r = 0; r < n && st == PE_OK; r++) {
		double pos[3];
		if ((st = pe_mrope_position(s, first + r, pos)) != PE_OK)
			break;
		double *row = dst + r * d;
		for (size_t i = 0; i < h; i++) {
			double sv, cv, angle;
			pe_exact_sincos(pos[pe_mrope_axis(s->mrope_pairs, s->mrope_interleaved, i)],
			                theta[i], 0, &sv, &cv, &angle);
			/* rotate_half's columns i, i + d/2, as HF's cos/sin tables */
			switch (view) {
			case PE_VIEW_ANGLE:
				row[i] = row[i + h] = angle;
				break;
			case PE_VIEW_COS:
				row[i] = row[i + h] = cv;
				break;
			case PE_VIEW_SIN:
				row[i] = row[i + h] = sv;
				break;
			default:
				/* the all-ones vector rotated */
				row[i] = cv - sv;
				row[i + h] = sv + cv;
				break;
			}
		}
	}
	free(theta);
	return st;
}

const struct pe_scheme_type pe_scheme_mrope = {
        .name = "mrope",
        .summary = "multimodal RoPE: pairs split between time, height and width (Qwen2-VL)",
        .caps = PE_CAP_VECTORS | PE_CAP_ENCODE | PE_CAP_VIEWS | PE_CAP_FREQS,
        .keys = keys,
        .n_keys = NKEYS,
        .init = init,
        .finish = finish,
        .check = check,
        .rows = rows,
        .frequencies = frequencies,
};
