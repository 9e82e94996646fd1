/*
 * posenc/rope.h - RoPE frequencies and their long-context scalings
 *
 * The scalings are those of Hugging Face modeling_rope_utils
 * (ROPE_INIT_FUNCTIONS): linear, dynamic (NTK), yarn, llama3, longrope.
 * Each returns per-pair inverse frequencies and an attention factor that
 * multiplies both cos and sin (so q.k logits scale by its square).
 */
#ifndef POSENC_ROPE_H
#define POSENC_ROPE_H

#include <stddef.h>

#include <posenc/scheme.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a scaling did besides changing the frequencies. */
struct pe_rope_scaling_info {
	double attention_factor; /* 1 unless yarn/longrope say otherwise */
	double base;             /* the base actually used (dynamic changes it) */
	double yarn_low;         /* yarn: first interpolated pair boundary; else NaN */
	double yarn_high;        /* yarn: last boundary; else NaN */
};

/*
 * pe_rope_scale_frequencies() - apply a scaling to unscaled frequencies
 *
 * @p:      the scaling (p->type PE_ROPE_SCALING_NONE leaves theta as is).
 * @base:   the rope base.
 * @d_rot:  the rotary width (even, > 0).
 * @theta:  in: the d_rot/2 unscaled inverse frequencies base^(-2i/d_rot);
 *          out: the scaled ones.
 * @info:   if not NULL, filled in.
 *
 * @return PE_OK, PE_ERANGE for parameters the scaling cannot use (longrope
 * factor lists whose length is not d_rot/2, ...).
 */
enum pe_status pe_rope_scale_frequencies(const struct pe_rope_scaling_params *p, double base,
					 size_t d_rot, double *theta,
					 struct pe_rope_scaling_info *info);

#ifdef __cplusplus
}
#endif

#endif
