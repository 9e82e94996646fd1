/*
 * posenc/rope.h - RoPE frequencies and their long-context scalings
 *
 * The scalings are those of Hugging Face modeling_rope_utils
 * (ROPE_INIT_FUNCTIONS): linear, dynamic (NTK), yarn, llama3, longrope,
 * proportional (Gemma 4's p-RoPE).
 * Each returns per-pair inverse frequencies and an attention factor that
 * multiplies both cos and sin (so q.k logits scale by its square).
 */
#ifndef POSENC_ROPE_H
#define POSENC_ROPE_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/scheme.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a scaling did besides changing the frequencies. */
struct pe_rope_scaling_info {
	double attention_factor; /* 1 unless the scaling or its attention_factor says */
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
 * Conventions (HF modeling_rope_utils, the revisions that read
 * original_max_position_embeddings): p->original is the original context
 * for every scaling; p->length the sequence length at which dynamic and
 * longrope are evaluated (0 or anything <= original: the original, so
 * dynamic changes nothing and longrope uses short_factor). dynamic
 * recomputes theta from its effective base, which info->base reports.
 * yarn's info->yarn_low/high are the ramp ends after truncation and
 * clamping (pairs <= low keep theta, pairs >= high are divided by factor).
 * none, linear, yarn and longrope take p->attention_factor when it is not NaN.
 *
 * proportional zeroes the frequencies of the pairs past
 * pe_rope_turning_pairs() and divides the others by p->factor.
 *
 * @return PE_OK, PE_ERANGE for parameters the scaling cannot use (factor,
 * original or base not finite and > 0, llama3 with low == high, longrope
 * factor lists whose length is not d_rot/2, d_rot odd or zero, a
 * proportion outside 0..1),
 * PE_EINVAL when longrope lacks the list it needs.
 */
PE_API enum pe_status pe_rope_scale_frequencies(const struct pe_rope_scaling_params *p, double base,
                                                size_t d_rot, double *theta,
                                                struct pe_rope_scaling_info *info);

/*
 * pe_rope_turning_pairs() - how many of the d_rot/2 pairs turn at all
 *
 * d_rot/2, except for proportional: int(proportion * d_rot // 2), as HF's
 * _compute_proportional_rope_parameters counts its rope_angles; the pairs
 * after those have frequency 0.
 */
PE_API size_t pe_rope_turning_pairs(const struct pe_rope_scaling_params *p, size_t d_rot);

/*
 * pe_rope_base_frequencies() - the unscaled inverse frequencies base^(-2i/d_rot)
 *
 * Computed as 1 / base^(2i/d_rot), the way HF and Meta compute them.
 *
 * @theta: room for d_rot/2 doubles.
 *
 * @return PE_OK, PE_ERANGE if d_rot is zero or odd or base is not a finite
 * number > 0.
 */
PE_API enum pe_status pe_rope_base_frequencies(double base, size_t d_rot, double *theta);

/*
 * pe_rope_critical_dim() - Liu et al.'s critical dimension for a training length
 *
 * d_extra = 2 * ceil((d/2) * log_base(train_length / 2 pi)), clamped to
 * 0..d: the features whose wavelength 2 pi / theta_i fits into the training
 * length and so were seen over full periods (LLaMA-2, d 128, 4096: 92).
 *
 * @return PE_OK and *out, PE_ERANGE if d is zero or odd, base is not > 1
 * or train_length is not a finite number > 0.
 */
PE_API enum pe_status pe_rope_critical_dim(double base, size_t d, double train_length, size_t *out);

/*
 * pe_rope_scaling_name() - "none", "linear", "dynamic", "yarn", "llama3", "longrope",
 *                          "proportional", "ntk"
 *
 * @return a static string ("unknown" outside the enum).
 */
PE_API const char *pe_rope_scaling_name(enum pe_rope_scaling type);

/*
 * pe_rope_scaling_has_original() - whether scaling @type reads an original context
 * (original_max_position_embeddings): dynamic, yarn, llama3 and longrope do;
 * none, linear, proportional and ntk have no part for one, so none is shown.
 *
 * @return 1 or 0 (0 outside the enum).
 */
PE_API int pe_rope_scaling_has_original(enum pe_rope_scaling type);

/*
 * pe_mrope_position() - the (t, h, w) position ids of token @q of an mrope scheme
 *
 * As Qwen2-VL's get_rope_index (Hugging Face transformers) numbers them:
 * the mrope_text text tokens before the patch grid have t = h = w = q; the
 * grid's patches, in row-major (frame, row, column) order, have
 * t = text + floor(frame * tstep), h = text + row, w = text + column; the
 * text after the grid resumes at the largest position id so far + 1, on
 * every axis. Without a grid every token is text (t = h = w = q); with
 * explicit positions (pe_mrope_set_positions()) token q has the q-th triple.
 *
 * @return PE_OK and pos[0..2], PE_EINVAL if @s is not an mrope scheme,
 * PE_ERANGE if q is past the explicit positions or a position id would
 * pass PE_POSITION_MAX.
 */
PE_API enum pe_status pe_mrope_position(const struct pe_scheme *s, uint64_t q, double pos[3]);

/*
 * pe_mrope_set_positions() - give an mrope scheme explicit position ids
 *
 * @thw:   @count triples (t, h, w), token by token; copied.
 * @err:   on failure, if not NULL, a message naming the bad value; free().
 *
 * @return PE_OK; PE_EINVAL if @s is not mrope or its spec already lays out
 * positions (text=, frames=, ...); PE_ERANGE for an empty list or a value
 * that is not a whole number in 0..PE_POSITION_MAX (position ids are
 * integers); PE_ENOMEM.
 */
PE_API enum pe_status pe_mrope_set_positions(struct pe_scheme *s, const double *thw, size_t count,
                                             char **err);

/*
 * pe_mrope_pair_axis() - the position axis that pair @i of an mrope scheme turns with
 *
 * 0 temporal (t), 1 height (h), 2 width (w). In sections (Qwen2-VL and Qwen2.5-VL's
 * apply_multimodal_rotary_pos_emb) the first t= pairs are temporal, the next h= height
 * and the last w= width; interleaved (interleaved=1, Qwen3-VL's apply_interleaved_mrope)
 * pair i is height when i % 3 == 1 and i < 3h, width when i % 3 == 2 and i < 3w, and
 * temporal otherwise. Pair i is the one at columns i and i + d/2 (rotate_half), turning
 * at theta_i = base^(-2i/d) (pe_scheme_frequencies()) times that axis's position id.
 *
 * @return 0, 1 or 2; -1 if @s is not an mrope scheme or @i is not below t + h + w.
 */
PE_API int pe_mrope_pair_axis(const struct pe_scheme *s, size_t i);

#ifdef __cplusplus
}
#endif

#endif
