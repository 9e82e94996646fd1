/*
 * posenc/pairwise.h - distances and correlations between position vectors
 *
 * Every function takes a struct pe_vectors (posenc/encode.h): positions
 * first..first+n-1 of a scheme or a table. Metrics between two vectors x, y
 * of width d:
 *   l2      sqrt(sum (x_j - y_j)^2)
 *   cosine  the cosine *distance* 1 - <x,y> / (|x| |y|)  (0 for parallel
 *           vectors, 2 for opposite ones; NaN if a vector is zero)
 *   l1      sum |x_j - y_j|
 *   linf    max |x_j - y_j|
 *   corr    the Pearson correlation across the d features of each vector,
 *           as numpy.corrcoef(E) on the n x d table E: a similarity in
 *           [-1, 1], NaN where a vector is constant (RoPE position 0, whose
 *           rotated all-ones vector is all ones).
 * All five are symmetric: m(i, j) = m(j, i). Rounding never takes corr
 * outside [-1, 1] or the cosine distance outside [0, 2] (values are
 * clipped, as numpy.corrcoef clips), and a vector compared with itself gives
 * exactly 0 (distances) or 1 (corr).
 *
 * Two computations, chosen automatically:
 * - Structure-aware: sinusoidal (default view) and RoPE (default/rotated
 *   view) have inner products that depend only on the offset m - n, up to a
 *   lone sine column (sinusoidal, paper frequencies, odd d). l2, cosine and
 *   corr then need O(n d) work for an offset kernel and per-position terms,
 *   and O(1) per cell. The kernel is formed from the offsets themselves
 *   (sum of 4 w sin^2(delta theta_i / 2), no cancellation), with the
 *   encoders' exact angles; it equals brute force over the encoders' rows
 *   to 1e-12 (checked up to position 10^8; beyond about 2^28 radians the
 *   rows themselves lose digits, the kernel does not).
 * - General (learned, binary, file tables, other views, l1 and linf): rows
 *   are compared directly (differences, not Gram identities), in cache-sized
 *   blocks of rows, upper triangle only and mirrored, on every online core.
 *   Rows are produced on demand with pe_vectors_rows() unless the whole set
 *   is small (a few MiB, or a quarter of the output) or already a table.
 * Pearson from the kernel cancels for nearly constant vectors (|x - mean|
 * under a tenth of |x|: RoPE near position 0, d = 2 or 3); the values of
 * such positions are recomputed from their rows (full matrix, profile,
 * scatter; grid cells keep the kernel value).
 */
#ifndef POSENC_PAIRWISE_H
#define POSENC_PAIRWISE_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/encode.h>
#include <posenc/matrix.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pe_metric {
	PE_METRIC_L2,
	PE_METRIC_COSINE, /* cosine distance, 1 - cosine similarity */
	PE_METRIC_L1,
	PE_METRIC_LINF,
	PE_METRIC_CORR, /* Pearson correlation (a similarity, not a distance) */
	                /* Keep PE_METRIC_CORR last: name tables assert their length against it. */
};

/* Samples per axis and cell in pe_pairwise_grid()'s sampled mode. */
#define PE_GRID_SAMPLES 4

/*
 * pe_metric_name() - "l2", "cosine", "l1", "linf" or "corr"
 *
 * @return a static string; "unknown" for values outside the enum.
 */
PE_API const char *pe_metric_name(enum pe_metric m);

/*
 * pe_metric_parse() - the metric named @name (as pe_metric_name() spells it)
 *
 * @return PE_OK, or PE_EINVAL for an unknown name (*out unchanged).
 */
PE_API enum pe_status pe_metric_parse(const char *name, enum pe_metric *out);

/*
 * pe_pairwise_check() - whether a vector set can be compared at all
 *
 * @return PE_OK; PE_EUNSUPPORTED if the scheme gives no position vectors
 * (alibi, t5: see pe_scheme_is_vector()); PE_EINVAL if the metric is not
 * in the enum or neither scheme nor table is set; PE_ERANGE if n or d is
 * 0, the positions pass PE_POSITION_MAX or the rows lie outside the table;
 * the errors of pe_encode_check().
 */
PE_API enum pe_status pe_pairwise_check(const struct pe_vectors *v, enum pe_metric m);

/*
 * pe_pairwise_fits() - the size of a rows x cols float64 result
 *
 * @bytes:  if not NULL, set to rows * cols * 8 as a double (also when it
 *          does not fit, so a caller can say how much it would need).
 * @budget: the most bytes the caller allows; 0 means no limit beyond
 *          what size_t can address.
 *
 * @return PE_OK, or PE_ETOOBIG if the size overflows size_t or exceeds
 * @budget.
 */
PE_API enum pe_status pe_pairwise_fits(size_t rows, size_t cols, size_t budget, double *bytes);

/*
 * pe_pairwise_matrix() - the full n x n matrix of a metric
 *
 * Element (i, j) compares positions first+i and first+j. The diagonal is
 * what the formula gives (0 for distances up to rounding, 1 for corr).
 *
 * @budget: as pe_pairwise_fits(); checked before anything is allocated.
 * @out:    on success a new n x n matrix; free it with pe_matrix_destroy().
 *
 * @return PE_OK, PE_ETOOBIG (the matrix would not fit: draw a grid with
 * pe_pairwise_grid() instead), PE_ENOMEM, the errors of
 * pe_pairwise_check() and of pe_vectors_rows().
 */
PE_API enum pe_status pe_pairwise_matrix(const struct pe_vectors *v, enum pe_metric m,
                                         size_t budget, struct pe_matrix **out);

/*
 * pe_pairwise_grid() - the metric averaged onto an R x C grid, for figures
 *
 * Both axes cover positions first..first+n-1. The result has
 * min(R, n) rows and min(C, n) columns; row a covers the positions
 * [a*q + min(a, r), (a+1)*q + min(a+1, r)) with q = n / rows, r = n % rows
 * (ranges as even as possible, the first r one position longer), columns
 * likewise. Cell (a, b) is the mean of the metric over every pair its row
 * range and column range cover, so with n <= R and n <= C nothing is
 * averaged and the grid is the full matrix. Undefined values (corr of a
 * constant vector) are left out of a mean; a cell of only those is NaN.
 * Memory is proportional to the grid (plus O(n) for an offset kernel),
 * never to n^2.
 *
 * How the mean is formed:
 * - exact, from prefix sums of an offset kernel, when the metric depends on
 *   the offset only: l2 and cosine of sinusoidal (even d or t2t frequencies)
 *   and RoPE; O(n d / cores + R C), 10^6 positions into 1000 x 1000 cells
 *   in a fraction of a second;
 * - exact, over all n^2 pairs, when n is small (for the structure-aware
 *   path n <= 4096, or n^2 <= 4 R C PE_GRID_SAMPLES^2: every pair while it
 *   costs no more than the samples would; n^2 d <= 2^31 for the general
 *   one, 2^37 through BLAS);
 * - otherwise sampled: in each cell, the pairs of up to PE_GRID_SAMPLES
 *   positions per axis, the centres of equal sub-ranges of the cell's row
 *   and column ranges (all positions of a range shorter than that), fewer
 *   when each pair is costly: for the general path when the rows are wide
 *   (at R = C = 1000, d = 512: only the centre of each range). Beyond 2^24
 *   positions of a structured scheme the samples lie on the lattice
 *   first + k h of the least step h = ceil(n / 2^24) (the centres of equal
 *   shares of a range's lattice points), so the offset table stays 2^24
 *   long and the cost does not grow with n. Every sampled value is exact.
 *
 * @out: on success a new grid; free it with pe_matrix_destroy().
 *
 * @return PE_OK, PE_ERANGE if R or C is 0, PE_ENOMEM, the errors of
 * pe_pairwise_check() and of pe_vectors_rows().
 */
PE_API enum pe_status pe_pairwise_grid(const struct pe_vectors *v, enum pe_metric m, size_t R,
                                       size_t C, struct pe_matrix **out);

/* How pe_pairwise_grid_info() formed the cells of its grid. */
struct pe_grid_info {
	int exact;      /* 1: each cell is the mean of every pair it covers */
	size_t samples; /* 0 when exact; else the positions per axis in each cell: a cell is
	                   the mean of samples^2 pairs (or fewer, in a shorter range) */
};

/*
 * pe_pairwise_grid_info() - pe_pairwise_grid(), saying how exact it is
 *
 * The same grid; @info (not NULL) says whether every cell is an exact
 * mean or sampled, and how densely, so a figure can say so.
 */
PE_API enum pe_status pe_pairwise_grid_info(const struct pe_vectors *v, enum pe_metric m, size_t R,
                                            size_t C, struct pe_grid_info *info,
                                            struct pe_matrix **out);

/*
 * pe_pairwise_grid_exact() - whether pe_pairwise_grid() forms every cell
 * from all the pairs it covers at any grid size (its offset or every-pair
 * mode), so a figure can ask for its grid at its own pixel size without
 * a note about sampling
 *
 * @return 1 or 0; 0 also when the set cannot be compared
 * (pe_pairwise_check()) or its structure cannot be set up.
 */
PE_API int pe_pairwise_grid_exact(const struct pe_vectors *v, enum pe_metric m);

/*
 * pe_profile() - the metric from chosen positions to every position
 *
 * @at: k absolute positions (they need not lie in first..first+n-1; a
 *      table must have a row there).
 * @out: on success a new n x k matrix: row i is position first+i, column j
 *      is position at[j], so each column is one profile curve. Free it with
 *      pe_matrix_destroy().
 *
 * @return PE_OK, PE_ERANGE if k is 0 or a position exceeds
 * PE_POSITION_MAX, PE_ETOOBIG, PE_ENOMEM, the errors of pe_pairwise_check()
 * and of pe_vectors_rows().
 */
PE_API enum pe_status pe_profile(const struct pe_vectors *v, enum pe_metric m, const uint64_t *at,
                                 size_t k, struct pe_matrix **out);

/*
 * pe_scatter() - (distance, correlation) for pairs of positions
 *
 * The pairs are i < j over the positions first + s*t, t = 0..ceil(n/s)-1,
 * in row-major upper-triangle order (i ascending, then j ascending). The
 * lower triangle (i > j) is left out because every metric here is
 * symmetric, so it would repeat each point exactly. The stride s is the
 * smallest whole number for which the pair count stays within
 * @max_points (s = 1, every pair, when @max_points is 0 or large enough;
 * n = 4096 has 8,386,560 pairs).
 *
 * @m:      the distance in column 0 (any metric; corr gives corr twice).
 * @stride: if not NULL, set to s.
 * @out:    on success a new k x 2 matrix, column 0 the distance, column 1
 *          the Pearson correlation; free it with pe_matrix_destroy().
 *
 * @return PE_OK, PE_ERANGE if n < 2, PE_ETOOBIG, PE_ENOMEM, the errors of
 * pe_pairwise_check() and of pe_vectors_rows().
 */
PE_API enum pe_status pe_scatter(const struct pe_vectors *v, enum pe_metric m, size_t max_points,
                                 size_t *stride, struct pe_matrix **out);

/*
 * Rows of the full matrix on demand: rows r0..r0+count-1 of what
 * pe_pairwise_matrix() gives, for writers that stream a matrix too large to
 * hold (a 32768 x 32768 heatmap is 8 GiB of doubles). The source is built
 * once: the offset kernel and per-position terms of a structured scheme
 * (O(n d) work, O(n) memory; then O(1) per cell, and l2 and cosine without
 * a lone sine column are a table lookup by offset), or the per-position
 * terms and, within a budget, the whole vector set of the general path
 * (otherwise every request produces all n rows again: for learned vectors
 * that costs more than the metric itself). Memory is O(n) beyond that;
 * rows are computed on every online core.
 */
struct pe_pairwise_rows;

/*
 * pe_pairwise_rows_create() - a row source for metric @m of @v
 *
 * @v:      copied; a table it points to must outlive the source.
 * @budget: the most bytes to hold the n x d vector set of the general path
 *          (a table @v points to is used in place); sets of up to 4 MiB
 *          are held whatever the budget.
 * @out:    on success a new source; free it with pe_pairwise_rows_destroy().
 *
 * @return PE_OK, PE_ENOMEM, the errors of pe_pairwise_check() and of
 * pe_vectors_rows().
 */
PE_API enum pe_status pe_pairwise_rows_create(const struct pe_vectors *v, enum pe_metric m,
                                              size_t budget, struct pe_pairwise_rows **out);

/*
 * pe_pairwise_rows_fill() - rows r0..r0+count-1 of the n x n matrix
 *
 * @dst: count * n doubles, row-major; equal to the same rows of
 * pe_pairwise_matrix() (checked to 1e-12; they are computed the same way).
 * Calls on one source must not overlap in time.
 *
 * @return PE_OK, PE_ERANGE if the rows pass n (or count is 0), PE_ENOMEM,
 * the errors of pe_vectors_rows().
 */
PE_API enum pe_status pe_pairwise_rows_fill(struct pe_pairwise_rows *src, size_t r0, size_t count,
                                            double *dst);

/*
 * pe_pairwise_rows_range() - the smallest and largest finite cell
 *
 * Exact: the extremes of the values pe_pairwise_rows_fill() gives. From the
 * offset table in O(n) when the metric is a function of the offset alone
 * (l2 and cosine of sinusoidal without a lone column, and of RoPE);
 * otherwise one pass over the upper triangle (the matrix is symmetric),
 * half the work of filling every row.
 *
 * @return PE_OK, PE_ERANGE if no cell is finite (every vector constant,
 * for corr; *lo and *hi unchanged), PE_ENOMEM, the errors of
 * pe_vectors_rows().
 */
PE_API enum pe_status pe_pairwise_rows_range(struct pe_pairwise_rows *src, double *lo, double *hi);

/*
 * pe_pairwise_rows_structured() - whether @src takes its rows from the
 * offset structure of sinusoidal or RoPE vectors: O(n) memory, O(1) work a
 * cell, so streaming rows costs no more than the whole matrix. Otherwise
 * (general rows) pe_pairwise_matrix() is faster when the matrix fits.
 */
PE_API int pe_pairwise_rows_structured(const struct pe_pairwise_rows *src);

/*
 * pe_pairwise_rows_offsets() - the metric by offset, when every cell is a
 * function of the offset alone: cell (a, b) of pe_pairwise_rows_fill() is
 * then exactly F[|a - b|] (l2 and cosine of sinusoidal sets without a lone
 * column, and of RoPE sets).
 *
 * @return F, n values borrowed from @src (valid until it is destroyed), or
 * NULL when the cells depend on more than the offset.
 */
PE_API const double *pe_pairwise_rows_offsets(const struct pe_pairwise_rows *src);

/*
 * pe_pairwise_rows_streams() - whether filling every row of @src costs
 * about what pe_pairwise_matrix() costs, so a writer can stream the matrix
 * in O(n) memory beyond the vectors: the offset structure (see
 * pe_pairwise_rows_structured()), or the general rows of a large set
 * (n >= 1024, d >= 16; l2, cosine, corr) on the BLAS, filled a panel of 256
 * rows at a time (O(256 n) memory, about twice the matrix's products, which
 * are one triangle mirrored). Such rows are within 1e-12 of the matrix's
 * and their cells right of the diagonal are its bits; left of it a
 * multi-threaded BLAS may round a product of another shape differently in
 * the last bit. pe_pairwise_rows_upper() gives the matrix's bits.
 */
PE_API int pe_pairwise_rows_streams(const struct pe_pairwise_rows *src);

/* Rows per panel of pe_pairwise_rows_upper(). */
#define PE_PAIRWISE_PANEL 256
/* Rows and columns of a piece (pe_pairwise_rows_upper_cols()) whose
 * products a serial source (pe_pairwise_rows_serial()) never crosses. */
#define PE_PAIRWISE_PIECE 1536

/*
 * pe_pairwise_rows_upper() - the upper triangle of rows r0..r0+count-1,
 * with the same products as pe_pairwise_matrix() (so the same bits: an
 * optimised BLAS may round a cell differently in a product of another
 * shape), for a source that streams on the BLAS (pe_pairwise_rows_streams()
 * and not pe_pairwise_rows_structured()).
 *
 * dst[(a - r0) * ldd + (b - r0)] = cell (a, b) for r0 <= a < r0 + count and
 * b >= r0 (below the diagonal within the rows, the cell mirrored, as in the
 * whole matrix); the cells left of column r0 are those of the earlier rows'
 * columns a (the matrix is symmetric), so a writer that can place cells at
 * any offset writes the whole matrix from these panels with half the
 * products of pe_pairwise_rows_fill().
 *
 * @r0: a multiple of PE_PAIRWISE_PANEL; @count a multiple of it or up to n;
 * @ldd >= n - r0.
 *
 * @return PE_OK, PE_EUNSUPPORTED for another kind of source, PE_ERANGE for
 * rows outside these rules, PE_ENOMEM.
 */
PE_API enum pe_status pe_pairwise_rows_upper(struct pe_pairwise_rows *src, size_t r0, size_t count,
                                             double *dst, size_t ldd);

/*
 * pe_pairwise_rows_upper_cols() - pe_pairwise_rows_upper()'s cells of rows
 * r0..r0+count-1 in the columns c0..c0+nc-1 only: dst[(a - r0) * ldd + (b -
 * c0)], either the block holding the diagonal (@c0 = @r0, @nc >= @count,
 * its lower part mirrored) or one right of it (@c0 >= @r0 + @count), so a
 * writer can take a panel in pieces of bounded size. On a serial source
 * (pe_pairwise_rows_serial()) the products of both functions are cut at
 * the same columns (multiples of PE_PAIRWISE_PIECE from the piece-aligned
 * row above), so pieces of PE_PAIRWISE_PIECE rows and columns give
 * pe_pairwise_rows_upper()'s bits; otherwise the cells are within 1e-12
 * (a product's shape may change a cell's last bit).
 *
 * @return as pe_pairwise_rows_upper(); PE_ERANGE also for columns outside
 * these rules (@ldd >= @nc).
 */
PE_API enum pe_status pe_pairwise_rows_upper_cols(struct pe_pairwise_rows *src, size_t r0,
                                                  size_t count, size_t c0, size_t nc, double *dst,
                                                  size_t ldd);

/*
 * pe_pairwise_rows_upper_cols_above() - pe_pairwise_rows_upper_cols()
 * without the mirror: in the block holding the diagonal, the cells left of
 * it (b < a) are unspecified (those in the 128 or 256-row squares on the
 * diagonal hold what the products left there, the rest what the buffer
 * held before), for a writer that takes them from the columns it
 * transposes anyway (the mirror's pass over the block was about 1% of an
 * 8192 x 768 NPY's CPU time). The other cells, same bits.
 *
 * @return as pe_pairwise_rows_upper_cols().
 */
PE_API enum pe_status pe_pairwise_rows_upper_cols_above(struct pe_pairwise_rows *src, size_t r0,
                                                        size_t count, size_t c0, size_t nc,
                                                        double *dst, size_t ldd);

/*
 * pe_pairwise_rows_serial() - with @on, later pe_pairwise_rows_upper()
 * and pe_pairwise_rows_upper_cols() calls on @src run on the calling thread
 * alone (one BLAS thread), for a caller that overlaps them with work of
 * its own on another thread, their products cut as said there. Then, where
 * pe_pairwise_rows_concurrent() says so, pe_pairwise_rows_upper_cols() may
 * be called from several threads at once (each into its own @dst): it
 * reads @src and writes only @dst. A cell may
 * differ in its last bit from the threaded products' (as it may between
 * two thread counts of OpenBLAS); all writers of a matrix take the same
 * mode, so its NPY file and its CSV hold the same bits. Without @on, the
 * BLAS's threads as before. Not to be called while another thread
 * computes rows of any source.
 *
 * @return 1 when the calls are now single-threaded, 0 when this cannot be
 * done (another BLAS than OpenBLAS, a source not on the BLAS, or @on 0).
 */
PE_API int pe_pairwise_rows_serial(struct pe_pairwise_rows *src, int on);

/*
 * pe_pairwise_rows_concurrent() - whether, in serial mode (see
 * pe_pairwise_rows_serial()), pe_pairwise_rows_upper_cols() calls on @src
 * may run on several threads at once: the BLAS is an OpenBLAS with its own
 * threads, whose buffers are taken under a lock (a sequential build is
 * safe only when built with locking, which it does not report).
 *
 * @return 1 if so, 0 otherwise (then one call at a time).
 */
PE_API int pe_pairwise_rows_concurrent(const struct pe_pairwise_rows *src);

/* pe_pairwise_rows_streamable() - whether a row source of metric @m of @v
 * would stream (pe_pairwise_rows_streams()) when its vectors can be held;
 * cheap: no rows are computed */
PE_API int pe_pairwise_rows_streamable(const struct pe_vectors *v, enum pe_metric m);

/* pe_pairwise_has_structure() - whether a row source of metric @m of @v
 * would be structured (cheap: no rows are computed) */
PE_API int pe_pairwise_has_structure(const struct pe_vectors *v, enum pe_metric m);

/* pe_pairwise_rows_destroy() - free @src; NULL is allowed */
PE_API void pe_pairwise_rows_destroy(struct pe_pairwise_rows *src);

#ifdef __cplusplus
}
#endif

#endif
