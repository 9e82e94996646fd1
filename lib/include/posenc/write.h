/*
 * posenc/write.h - matrices to CSV and NPY streams
 *
 * CSV: a header row, then one row per matrix row. The first column names
 * and holds the row coordinate ("position", "offset", "pair", ...); the
 * other header cells are the column coordinates. Floats are written as
 * the shortest text that reads back bit for bit (strtod, numpy.loadtxt,
 * pandas.read_csv with float_precision="round_trip"); nan, inf, -inf and
 * -0 as such. It loads with pandas.read_csv(f, index_col=0). Rows are
 * formatted on all online cores and written in order.
 *
 * NPY: format 1.0 (2.0 when the header needs more than 65535 bytes),
 * little-endian float64 ("<f8") or float32 ("<f4"), C order, the header
 * padded to 64 bytes exactly as numpy's np.save pads it, so the files are
 * byte-identical to np.save's.
 *
 * Writers take a FILE* the caller opened; they never close it. On Linux,
 * NPY data of 1 MiB and more, and the offset rows below, first reserve
 * their disk blocks in one call (fallocate, keeping the file's size), which
 * spares ext4 its per-page allocation work; elsewhere, or where the file
 * system cannot, they are written as they are.
 */
#ifndef POSENC_WRITE_H
#define POSENC_WRITE_H

#include <stddef.h>
#include <stdio.h>

#include <posenc/matrix.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The coordinates of one axis of a table: explicit labels when @labels is
 * set, else the numbers first + i * step.
 */
struct pe_axis {
	const char *name; /* rows: header of the index column */
	double first;
	double step;
	const char *const *labels; /* NULL: numbers; else one per row/column */
};

enum pe_dtype {
	PE_DTYPE_F64,
	PE_DTYPE_F32,
};

/*
 * pe_csv_write() - write a matrix as CSV
 *
 * @return PE_OK, PE_EIO if a write failed (errno tells why), PE_ENOMEM.
 */
PE_API enum pe_status pe_csv_write(FILE *f, const struct pe_matrix *m, const struct pe_axis *rows,
                                   const struct pe_axis *cols);

/*
 * pe_csv_write_header() and pe_csv_write_rows() - the same text in pieces,
 * for a matrix written a block of rows at a time: the header line of
 * @ncols columns once, then each block with @rows starting at the block's
 * first row. pe_csv_write() is exactly the two. Same returns.
 */
PE_API enum pe_status pe_csv_write_header(FILE *f, size_t ncols, const struct pe_axis *rows,
                                          const struct pe_axis *cols);
PE_API enum pe_status pe_csv_write_rows(FILE *f, const struct pe_matrix *m,
                                        const struct pe_axis *rows);

/*
 * pe_csv_format() - the shortest text of v that strtod reads back to v
 *
 * Of the shortest digit strings that round-trip, the one nearest v (Ryu;
 * what Python's repr() gives): 0.1 is "0.1", 1/3 "0.3333333333333333".
 * Laid out as printf's %g would lay out those digits: plain for decimal
 * exponents -4..16 ("64", "0.00012", "10000000000000000"), else with an
 * exponent of at least two digits ("1e-05", "1.5e+20", "5e-324"). Also
 * "nan", "inf", "-inf", "0", "-0". @buf needs at least 32 bytes (at most
 * 24 characters and a NUL are written).
 *
 * @return the length written, the NUL not counted.
 */
PE_API size_t pe_csv_format(double v, char *buf);

/*
 * pe_npy_write() - write @data with the given shape as an NPY array
 *
 * @shape: @ndim extents (0 <= ndim <= 8); data holds their product.
 *
 * @return PE_OK, PE_EINVAL for ndim > 8, PE_EIO, PE_ENOMEM.
 */
PE_API enum pe_status pe_npy_write(FILE *f, const double *data, const size_t *shape, size_t ndim,
                                   enum pe_dtype dtype);

/*
 * pe_npy_write_matrix() - pe_npy_write() of a rows x cols matrix
 */
PE_API enum pe_status pe_npy_write_matrix(FILE *f, const struct pe_matrix *m, enum pe_dtype dtype);

/*
 * pe_npy_write_header() and pe_npy_write_data() - pe_npy_write() in pieces,
 * for data written a block at a time: the header of the whole @shape once,
 * then @count values per call, in order. Same returns.
 */
PE_API enum pe_status pe_npy_write_header(FILE *f, const size_t *shape, size_t ndim,
                                          enum pe_dtype dtype);
PE_API enum pe_status pe_npy_write_data(FILE *f, const double *data, size_t count,
                                        enum pe_dtype dtype);

/* A writer of the rows of an offset-only matrix (below). */
struct pe_offset_rows;

/*
 * Rows of an n x n matrix that depends on the offset alone, M[a][b] =
 * F[|a - b|] (pe_pairwise_rows_offsets()), written without forming them:
 * each row is a slice of F mirrored, so NPY rows go to the file straight
 * from one array of 2n - 1 values, and CSV rows are a slice of the text of
 * those values, each formatted once. The bytes are those of
 * pe_npy_write_data() and pe_csv_write_rows() of the same rows.
 *
 * pe_offset_rows_create() copies @F (n values, n >= 1) into a new writer
 * (O(n) memory; the CSV text, about 50 bytes a value, is made on first
 * use); free it with pe_offset_rows_destroy() (NULL is allowed). Returns
 * PE_OK, PE_EINVAL for n = 0, PE_ETOOBIG, PE_ENOMEM.
 *
 * pe_offset_rows_npy() writes rows r0..r0+count-1 as NPY data (after
 * pe_npy_write_header() of the n x n shape); pe_offset_rows_csv() as CSV
 * rows, @rows numbering the block's first row as pe_csv_write_rows() does.
 * They flush @f and write to its descriptor (fileno), so @f must be a
 * stream with one. Return PE_OK, PE_ERANGE if the rows pass n or count is
 * 0, PE_EIO (errno tells why), PE_ENOMEM.
 */
PE_API enum pe_status pe_offset_rows_create(const double *F, size_t n, struct pe_offset_rows **out);
PE_API enum pe_status pe_offset_rows_npy(struct pe_offset_rows *w, FILE *f, size_t r0, size_t count,
                                         enum pe_dtype dtype);
PE_API enum pe_status pe_offset_rows_csv(struct pe_offset_rows *w, FILE *f, size_t r0, size_t count,
                                         const struct pe_axis *rows);
PE_API void pe_offset_rows_destroy(struct pe_offset_rows *w);

#ifdef __cplusplus
}
#endif

#endif
