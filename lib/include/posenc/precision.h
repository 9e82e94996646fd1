/*
 * posenc/precision.h - RoPE tables as an implementation working in reduced
 * precision computes them, and how far they are from the exact values
 *
 * posenc's own tables are exact (float64 frequencies, the product m * theta
 * carried without rounding into sin and cos). Real implementations form
 * the same tables in float32, bfloat16 or float16, step by step. This
 * header simulates that recipe (doc/precision.md describes each step and
 * the implementations that follow it):
 *
 *   1. e_i     = R(R(2i) / R(D))            arange(0, D, 2).float() / D
 *   2. p_i     = R(pow(base, e_i))          base ** e, base as a float32 number
 *   3. theta_i = R(1 / p_i)                 inv_freq
 *   4. theta_i = R(scaling(theta_i))        the scaling (llama3, yarn, ...) done in
 *                                            float64 on the rounded inv_freq, then rounded
 *   5. m_R     = R(m)                        positions.float()
 *   6. a       = R(m_R * theta_i)            freqs = outer(positions, inv_freq)
 *   7. c, s    = R(cos a), R(sin a)          emb.cos(), emb.sin()
 *   8. c, s    = R(c * R(att)), R(s * R(att)) times the attention factor (if not 1)
 *   9. c, s    = S(c), S(s)                  .to(dtype): the storage precision
 *
 * R rounds to the compute precision, S to the storage precision. Every
 * operation in bfloat16 or float16 is done in float32 and its result
 * rounded (PyTorch and numpy do half-precision arithmetic this way). The
 * float64 recipe rounds the product m * theta_i to float64 and takes libm's
 * cos and sin of it: what numpy does in float64.
 *
 * Rounding is to nearest, ties to even. bfloat16 is float32 rounded to its
 * top 16 bits; float16 (binary16: 11 significant bits, exponents -14..15,
 * subnormals down to 2^-24, overflow past 65504 to infinity) is rounded in
 * portable C11 without _Float16.
 */
#ifndef POSENC_PRECISION_H
#define POSENC_PRECISION_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/encode.h>
#include <posenc/matrix.h>
#include <posenc/scheme.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pe_float {
	PE_FLOAT_EXACT, /* posenc's exact values (no rounding model) */
	PE_FLOAT_F64,   /* IEEE binary64 */
	PE_FLOAT_F32,   /* IEEE binary32 */
	PE_FLOAT_BF16,  /* bfloat16: float32 rounded to its top 16 bits */
	PE_FLOAT_F16,   /* IEEE binary16 */
};

/*
 * A precision: the one the arithmetic is done in and the one the values are
 * stored in at the end. "f32" is {F32, F32}; "f32/bf16" is {F32, BF16}: the
 * Hugging Face recipe of a bfloat16 model (float32 angles, cos and sin cast
 * to bfloat16 by .to(x.dtype)).
 */
struct pe_precision {
	enum pe_float compute;
	enum pe_float store;
};

/*
 * pe_precision_parse() - "f64", "f32", "bf16", "f16", or "COMPUTE/STORE"
 *
 * Also accepts "exact" (no rounding). The storage precision must not be
 * finer than the compute one ("bf16/f32" is refused).
 *
 * @return PE_OK, PE_EINVAL for anything else.
 */
PE_API enum pe_status pe_precision_parse(const char *text, struct pe_precision *out);

/*
 * pe_precision_name() - the text pe_precision_parse() reads back ("f32/bf16")
 *
 * @buf: at least 16 bytes. @return buf.
 */
PE_API const char *pe_precision_name(struct pe_precision p, char *buf, size_t cap);

/*
 * pe_float_name() - "exact", "f64", "f32", "bf16", "f16"
 */
PE_API const char *pe_float_name(enum pe_float f);

/*
 * pe_round_f32(), pe_round_bf16(), pe_round_f16() - round to nearest even
 *
 * pe_round_bf16() rounds to float32 first, then to the top 16 bits (as
 * PyTorch converts); pe_round_f16() rounds the double directly (the
 * recipe only passes it float32 values). NaN stays NaN, overflow gives
 * infinity of the right sign.
 */
PE_API double pe_round_f32(double x);
PE_API double pe_round_bf16(double x);
PE_API double pe_round_f16(double x);

/* pe_round() - round @x to @f (EXACT and F64 leave it as it is). */
PE_API double pe_round(enum pe_float f, double x);

/*
 * pe_sincos_fast() - sin and cos of x, within about 2 ulp
 *
 * For the error curves of many positions: reduction by pi/2 in three parts
 * with fma (exact enough for |x| < 2^50), then polynomials; libm beyond.
 */
PE_API void pe_sincos_fast(double x, double *s, double *c);

/*
 * A RoPE table in a precision: the frequencies as the recipe holds them and
 * what a row is made of. Fill it with pe_rope_model_init(); the caller may
 * then change att (an attention-factor hypothesis). Free with
 * pe_rope_model_free().
 */
struct pe_rope_model {
	size_t d;              /* row width */
	size_t d_rot;          /* rotated features (even, <= d) */
	enum pe_layout layout; /* PE_LAYOUT_INTERLEAVED or PE_LAYOUT_HALF */
	struct pe_precision prec;
	double att;    /* attention factor on cos and sin (HF attention_scaling) */
	double *theta; /* d_rot / 2 inverse frequencies (values of the compute precision) */
};

/*
 * pe_rope_model_init() - the model of a rope scheme at width d
 *
 * @exponent_width: D in theta_i = base^(-2i/D); 0 means the rotary width
 *                  int(d * rotary) (any other value models a mistake).
 * @base:           0 means the scheme's base.
 * @scaling:        NULL means the scheme's scaling; else these parameters
 *                  (type PE_ROPE_SCALING_NONE: no scaling).
 *
 * @return PE_OK, PE_EUNSUPPORTED for a scheme that is not rope, the errors
 * of pe_encode_check() and pe_rope_scale_frequencies(), PE_ENOMEM.
 */
PE_API enum pe_status pe_rope_model_init(struct pe_rope_model *m, const struct pe_scheme *s,
                                         size_t d, struct pe_precision prec, double base,
                                         double exponent_width,
                                         const struct pe_rope_scaling_params *scaling);

/* pe_rope_model_free() - free what init allocated (the struct is the caller's) */
PE_API void pe_rope_model_free(struct pe_rope_model *m);

/*
 * pe_rope_model_pairs() - angle, cos and sin of every pair at position @pos
 *
 * @angle, @c, @s: d_rot / 2 doubles each (any may be NULL except c and s).
 * cos and sin carry att and the storage rounding; the angle is the
 * compute-precision value (exact: the double nearest m * theta).
 * @pos is a whole number (negative ones model positions before 0).
 */
PE_API void pe_rope_model_pairs(const struct pe_rope_model *m, double pos, double *angle, double *c,
                                double *s);

/*
 * pe_precision_encode() - the rows of a rope scheme in a precision
 *
 * As pe_encode_rows() (same views and layouts) with every value made by the
 * recipe above; PE_VIEW_ROTATED rotates the all-ones vector with the stored
 * cos and sin and rounds the result to the storage precision.
 *
 * @dst: n * d doubles.
 *
 * @return PE_OK, PE_EUNSUPPORTED for a scheme that is not rope, the errors
 * of pe_rope_model_init(), PE_ERANGE past PE_POSITION_MAX.
 */
PE_API enum pe_status pe_precision_encode(const struct pe_scheme *s, size_t d, uint64_t first,
                                          size_t n, enum pe_view view, struct pe_precision prec,
                                          double *dst);

/*
 * The error of several precisions against the exact values, by blocks of
 * positions: for each position m the error is the largest |value - exact|
 * over the cos and sin of every pair (the attention factor included); a
 * block's value is the largest error of its positions. Every position is
 * computed: the blocks only gather them.
 */
struct pe_precision_curve {
	size_t nprec;
	size_t nblocks;
	uint64_t first;   /* first position */
	uint64_t n;       /* positions */
	uint64_t block;   /* positions per block (the last may be shorter) */
	double *err;      /* nblocks x nprec, row-major */
	uint64_t *exceed; /* nprec: first position whose error > threshold; UINT64_MAX if none */
	double *max_err;  /* nprec: the largest error */
	uint64_t *max_at; /* nprec: where */
};

/*
 * pe_precision_curve_compute() - error curves of @nprec precisions
 *
 * @block:     positions per block (>= 1).
 * @threshold: the error whose first crossing is reported.
 * @threads:   worker threads (0: 2).
 * @out:       on success a new curve; free with pe_precision_curve_destroy().
 *
 * The exact values use pe_sincos_fast() on the double product and correct
 * by its rounding error (within 1e-15 of exact, far below any error shown).
 * Every error is the same number as the largest |value - exact| over the
 * pairs of pe_rope_model_pairs() and those exact values, bit for bit; the
 * work is less (doc/precision.md, "Speed"): the exact row is turned from
 * position to position and recomputed every 256, only the pairs that can
 * hold the largest error are compared exactly, a float32 precision's pairs
 * are pruned by bounds from their angles, and a precision's values are
 * recomputed only when its rounded position changes (bfloat16 holds one
 * position in 256 at 65536).
 *
 * @return PE_OK, the errors of pe_rope_model_init(), PE_EINVAL for block 0
 * or no precision, PE_ERANGE past PE_POSITION_MAX, PE_ENOMEM.
 */
PE_API enum pe_status pe_precision_curve_compute(const struct pe_scheme *s, size_t d,
                                                 uint64_t first, uint64_t n,
                                                 const struct pe_precision *precs, size_t nprec,
                                                 uint64_t block, double threshold, unsigned threads,
                                                 struct pe_precision_curve **out);

/*
 * pe_precision_curve_seconds() - the time pe_precision_curve_compute() with
 * the same arguments is expected to take, in seconds of wall time with the
 * threads it would use (@threads 0: 2), before starting it
 *
 * A cost model of the code fitted on this project's machines (2-vCPU AMD
 * EPYC VMs, AVX-512): per position and pair for the exact values, and per
 * precision by how it is computed (a float32 precision is pruned to a few
 * pairs per position, bfloat16 rows are recomputed rarely, float16 costs
 * nothing past its overflow at 65520, f64 a row every position), more for
 * positions past 5e7 and 1e15. Within about 2x there; callers refuse work
 * over a time budget with it.
 */
PE_API double pe_precision_curve_seconds(const struct pe_scheme *s, size_t d, uint64_t first,
                                         uint64_t n, const struct pe_precision *precs, size_t nprec,
                                         uint64_t block, unsigned threads);

/*
 * pe_precision_curve_bytes() - the memory pe_precision_curve_compute() with
 * the same arguments allocates, in bytes, before starting it
 *
 * Each thread's working rows (about 3 nprec + 10 doubles a pair of the
 * rotary width, and its batches of candidate pairs), the models'
 * frequencies and the error table of the curve: callers refuse work over a
 * memory budget with it.
 */
PE_API double pe_precision_curve_bytes(const struct pe_scheme *s, size_t d, uint64_t n,
                                       size_t nprec, uint64_t block, unsigned threads);

/* pe_precision_curve_destroy() - free a curve; NULL is a no-op */
PE_API void pe_precision_curve_destroy(struct pe_precision_curve *c);

#ifdef __cplusplus
}
#endif

#endif
