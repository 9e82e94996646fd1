/*
 * posenc/bias.h - attention biases: ALiBi slopes and bias tensors, T5 buckets
 *
 * ALiBi slopes are those of the official get_slopes (ofirpress/
 * attention_with_linear_biases): 2^(-8k/n) for n a power of two; otherwise
 * the slopes of c = 2^floor(log2 n) heads followed by every other slope of
 * 2c heads, 2^(-8k/(2c)) for odd k, until there are n (not monotonic).
 * Bias of head h, query i, key j (causal; keys after the query are masked
 * with -INFINITY):
 *   form=paper     -m_h (i - j)
 *   form=official  m_h j, the same in every row (equal to the paper's only
 *                  after softmax, which ignores the per-row constant m_h i).
 *
 * T5 buckets are those of HF T5Attention._relative_position_bucket with
 * rel = key - query: bidirectional (encoder) halves the buckets and puts
 * keys after the query in the upper half; causal (decoder) sends every
 * future key to bucket 0. Offsets from max_exact on are placed
 * logarithmically up to max_distance, in float32 and truncated as torch's
 * .float() and .to(long) do.
 */
#ifndef POSENC_BIAS_H
#define POSENC_BIAS_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/matrix.h>
#include <posenc/scheme.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * pe_bias_check() - whether a scheme is an attention bias (alibi, t5)
 *
 * @why: if not NULL, on failure a static string saying why; do not free.
 *
 * @return PE_OK, PE_EUNSUPPORTED for position-vector schemes, PE_ERANGE for
 * parameters the bias cannot use (0 heads; t5 with fewer buckets than 4
 * bidirectional or 2 causal, or max_distance not above max_exact).
 */
PE_API enum pe_status pe_bias_check(const struct pe_scheme *s, const char **why);

/*
 * pe_alibi_slopes() - the slope of each of @heads heads
 *
 * @slopes: room for @heads doubles.
 *
 * @return PE_OK, PE_ERANGE if heads is 0.
 */
PE_API enum pe_status pe_alibi_slopes(unsigned heads, double *slopes);

/*
 * pe_alibi_mpt_slopes() - MPT's slopes (build_mpt_alibi_tensor in
 * transformers' modeling_mpt.py): with n2 the power of two >= @heads,
 * 1 / 2^(k x @bias_max / n2) for k = 1..n2; past a power of two the odd
 * ones (k = 2, 4, ...) come first, then the even ones, cut to @heads.
 *
 * @slopes: room for @heads doubles.
 * @return PE_OK, PE_ERANGE if heads is 0 or bias_max is not > 0.
 */
PE_API enum pe_status pe_alibi_mpt_slopes(unsigned heads, double bias_max, double *slopes);

/*
 * pe_alibi_scheme_slopes() - the slopes of an alibi scheme (its slopes= key)
 *
 * @return PE_OK, PE_ERANGE as above, PE_ENOMEM.
 */
PE_API enum pe_status pe_alibi_scheme_slopes(const struct pe_scheme *s, double *slopes);

/*
 * pe_alibi_bias() - the ALiBi bias tensor of an alibi scheme, heads x n x n
 *
 * @out: on success a new (heads * n) x n matrix: row h * n + i holds head h,
 *       query i; column j is the key. Free it with pe_matrix_destroy().
 *
 * @return PE_OK, PE_EUNSUPPORTED if s is not alibi, PE_ERANGE (0 heads),
 * PE_ETOOBIG if heads * n * n overflows, PE_ENOMEM.
 */
PE_API enum pe_status pe_alibi_bias(const struct pe_scheme *s, size_t n, struct pe_matrix **out);

/*
 * pe_t5_bucket() - the bucket of relative position rel = key - query
 *
 * @return PE_OK and *bucket, or PE_ERANGE for parameters pe_bias_check()
 * refuses.
 */
PE_API enum pe_status pe_t5_bucket(int64_t rel, unsigned buckets, unsigned max_distance,
                                   int bidirectional, unsigned *bucket);

/*
 * pe_t5_bucket_map() - the n x n bucket map of a t5 scheme
 *
 * @out: on success a new n x n matrix, row i the query, column j the key,
 *       entry the bucket of j - i. Free it with pe_matrix_destroy().
 *
 * @return PE_OK, PE_EUNSUPPORTED if s is not t5, PE_ERANGE (see
 * pe_bias_check()), PE_ETOOBIG if n * n overflows, PE_ENOMEM.
 */
PE_API enum pe_status pe_t5_bucket_map(const struct pe_scheme *s, size_t n, struct pe_matrix **out);

/*
 * pe_bias_rows() - rows r0..r0+count-1 of pe_alibi_bias() (a (heads * n) x
 * n matrix: row h * n + i is head h, query i) or of pe_t5_bucket_map(),
 * the same values, for writers that stream the tensor a block of rows at a
 * time in O(n) memory beyond @dst.
 *
 * @dst: count * n values.
 *
 * @return PE_OK, PE_EUNSUPPORTED if s is neither alibi nor t5, the errors
 * of pe_bias_check(), PE_ERANGE if the rows pass the end or count is 0,
 * PE_ETOOBIG, PE_ENOMEM.
 */
PE_API enum pe_status pe_bias_rows(const struct pe_scheme *s, size_t n, size_t r0, size_t count,
                                   double *dst);

/*
 * pe_bias_grid() - the (heads * g) x g block means of an alibi or t5 scheme
 * (heads = 1 for t5), head h in rows h * g .. h * g + g - 1
 *
 * A figure of 10^5 positions needs a few hundred cells a side, not the
 * heads x n x n tensor. The n positions are cut into g blocks (block b is
 * floor(b n / g) .. floor((b+1) n / g) - 1), and each cell holds the mean
 * bias over the query block x key block in closed form: ALiBi is linear in
 * i and j, T5 depends on j - i only (prefix sums over the relative
 * positions). Masked (future) keys are left out of a mean; a block with
 * only masked keys is NaN. With g = n every block is one position and the
 * cells are the biases themselves.
 *
 * @return PE_OK and *out (free with pe_matrix_destroy()), PE_EINVAL if g is
 * 0 or above n, the errors of pe_bias_check(), PE_ENOMEM.
 */
PE_API enum pe_status pe_bias_grid(const struct pe_scheme *s, size_t n, size_t g,
                                   struct pe_matrix **out);

#ifdef __cplusplus
}
#endif

#endif
