/*
 * posenc/encode.h - encoding matrices: one row per position
 *
 * Positions are whole numbers first, first+1, ..., first+n-1 (at most
 * PE_POSITION_MAX). Angles are formed as real code forms them (numpy/HF:
 * p / base^(2k/d) for the paper's table, p * inv_freq for RoPE) and the
 * rounding error of that product is carried into sin/cos, so a row at
 * position 10^7 is as exact as a row at position 1.
 *
 * The learned scheme's table is reproducible on every IEEE-754 machine and
 * for any position range: element k (row-major, position * d + column) is
 * a normal variate by Marsaglia's polar method from the splitmix64 stream
 * started at mix(mix(seed) + k), uniforms from the top 53 bits, with
 * posenc's own logarithm (only +, -, *, /, sqrt), times std.
 */
#ifndef POSENC_ENCODE_H
#define POSENC_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/matrix.h>
#include <posenc/scheme.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest position accepted: 2^53, the last integer a double holds. */
#define PE_POSITION_MAX 9007199254740992.0

enum pe_view {
	PE_VIEW_DEFAULT, /* rope: rotated; others: the table itself */
	PE_VIEW_ANGLE,   /* rope: m * theta of the pair each column belongs to */
	PE_VIEW_COS,     /* rope: cos of the angle (1 for unrotated columns) */
	PE_VIEW_SIN,     /* rope: sin of the angle (0 for unrotated columns) */
	PE_VIEW_ROTATED, /* rope: the all-ones vector rotated to position m */
	/* Keep PE_VIEW_ROTATED last: name tables assert their length against it. */
};

/*
 * A set of n position vectors of width d, the input of every analysis:
 * rows first..first+n-1 of @table when it is set (learned checkpoints,
 * files), otherwise the encoding of positions first..first+n-1 by @scheme
 * in @view. Nothing is owned: the struct only points at its sources.
 */
struct pe_vectors {
	const struct pe_scheme *scheme; /* may be NULL when table is set */
	const struct pe_matrix *table;  /* NULL: compute rows from scheme */
	size_t d;                       /* width; table->cols when table is set */
	enum pe_view view;
	uint64_t first;
	size_t n;
};

/*
 * pe_vectors_rows() - fill rows r0..r0+count-1 of a vector set (d wide each)
 *
 * @dst: count * v->d doubles.
 *
 * @return PE_OK, PE_ERANGE if the rows lie outside the table, or the errors
 * of pe_encode_rows().
 */
PE_API enum pe_status pe_vectors_rows(const struct pe_vectors *v, size_t r0, size_t count,
                                      double *dst);

/*
 * pe_scheme_value_range() - limits every value of the encoding keeps to
 *
 * For colour scales that need no pass over the data: sinusoidal [-1, 1],
 * binary [0, 1] (unsigned). @lo and @hi are NaN when nothing is known;
 * *is_signed is 0 when values are never negative (binary, rope angles).
 */
PE_API void pe_scheme_value_range(const struct pe_scheme *s, enum pe_view view, double *lo,
                                  double *hi, int *is_signed);

/*
 * pe_encode_check() - whether a scheme can encode width d in this view
 *
 * @why: if not NULL, on failure a static string saying why ("rope needs an
 *       even rotary width, int(d * rotary) = 5"); do not free.
 *
 * @return PE_OK, PE_ERANGE (d is 0 or the rotary width is odd or zero),
 * PE_EUNSUPPORTED (alibi/t5; a view other than default for a non-rope scheme).
 */
PE_API enum pe_status pe_encode_check(const struct pe_scheme *s, size_t d, enum pe_view view,
                                      const char **why);

/*
 * pe_encode_rows() - fill n rows of width d into a caller buffer
 *
 * @dst: n * d doubles, row-major; row r is position first + r.
 *
 * @return PE_OK, the errors of pe_encode_check(), PE_ERANGE if a position
 * exceeds PE_POSITION_MAX, PE_EUNSUPPORTED for the file scheme (read it
 * with the file readers instead), PE_ENOMEM.
 */
PE_API enum pe_status pe_encode_rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                                     enum pe_view view, double *dst);

/*
 * pe_encode() - the n x d encoding matrix for positions first..first+n-1
 *
 * @out: on success a new matrix; free it with pe_matrix_destroy().
 *
 * @return as pe_encode_rows(), plus PE_ETOOBIG if n * d overflows.
 */
PE_API enum pe_status pe_encode(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                                enum pe_view view, struct pe_matrix **out);

/*
 * A window: positions first..first+n-1 split into @rows blocks as evenly as
 * possible. Block r covers [r*q + min(r, e), (r+1)*q + min(r+1, e)) after
 * first, with q = n / rows and e = n % rows (the first e blocks are one
 * position longer).
 */
struct pe_window {
	uint64_t first;
	size_t n;
	size_t rows; /* 1 <= rows <= n */
};

/*
 * pe_encode_window() - block means of an encoding, for figures
 *
 * Row r of @dst (d wide) is the mean encoding over block r0 + r of the
 * window, for r < count. Exact and O(d) per row whatever the block length,
 * from the closed form of a sum of sines (sinusoidal; rope in every view),
 * so a figure of 10^6 positions costs what one of a thousand costs.
 *
 * @return PE_OK, PE_EINVAL for a window with rows 0 or rows > n or blocks
 * outside it, PE_EUNSUPPORTED for schemes without a closed form (learned,
 * binary, file: average their rows), the errors of pe_encode_check().
 */
PE_API enum pe_status pe_encode_window(const struct pe_scheme *s, size_t d,
                                       const struct pe_window *w, size_t r0, size_t count,
                                       enum pe_view view, double *dst);

/* A block of n >= 1 consecutive positions from first. */
struct pe_block {
	uint64_t first;
	size_t n;
};

/*
 * pe_encode_blocks_cols() - block means of an encoding at chosen columns
 *
 * Row r of @dst holds @ncols values: column cols[c] of the mean encoding
 * over blocks[r], as pe_encode_window() forms it (exact, the closed form of
 * a sum of sines; a block of one position is its row). The columns cost
 * O(ncols) per block after O(d) once per call, so a figure of d = 2^20
 * samples its pixel columns without forming whole rows.
 *
 * @return as pe_encode_window(), plus PE_EINVAL for a column >= d or an
 * empty block.
 */
PE_API enum pe_status pe_encode_blocks_cols(const struct pe_scheme *s, size_t d, enum pe_view view,
                                            const struct pe_block *blocks, size_t count,
                                            const size_t *cols, size_t ncols, double *dst);

/*
 * pe_scheme_frequencies() - the angular frequency of each (sin, cos) pair
 *
 * For sinusoidal: w_k, k < d/2 (k < ceil(d/2) for the paper layout with odd
 * d, whose last column is a lone sine). For rope: the (scaled) inverse
 * frequencies theta_i, i < d_rot/2. For mrope: theta_i = base^(-2i/d), i < d/2,
 * whichever axis pair i follows (pe_mrope_pair_axis() in posenc/rope.h).
 *
 * @theta: room for d doubles.
 * @count: set to the number of pairs written.
 *
 * @return PE_OK, or the errors of pe_encode_check().
 */
PE_API enum pe_status pe_scheme_frequencies(const struct pe_scheme *s, size_t d, double *theta,
                                            size_t *count);

/*
 * pe_rope_rotary_width() - int(d * rotary), the number of rotated features
 */
PE_API size_t pe_rope_rotary_width(const struct pe_scheme *s, size_t d);

#ifdef __cplusplus
}
#endif

#endif
