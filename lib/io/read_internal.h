/*
 * read_internal.h - helpers shared by the file readers (not installed)
 */
#ifndef POSENC_READ_INTERNAL_H
#define POSENC_READ_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/matrix.h>
#include <posenc/read.h>
#include <posenc/status.h>

/* Element encodings the readers convert to double. */
enum rd_elem {
	RD_F64,
	RD_F32,
	RD_F16,
	RD_BF16,
};

/* @bytes as a message says it: "3.1 MiB", "1.0 KiB" or "512 bytes" (into @buf, returned). */
const char *rd_size(double bytes, char buf[24]);

/* Sets *err (if err is not NULL) to the formatted message; returns status. */
enum pe_status rd_fail(char **err, enum pe_status status, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Exact conversions of IEEE half and bfloat16 bit patterns. */
double rd_half(uint16_t h);
double rd_bf16(uint16_t b);

/* Size in bytes of one element. */
size_t rd_elem_size(enum rd_elem e);

/*
 * Converts count elements from src (stride in elements between consecutive
 * reads: 1 for contiguous) into dst, swapping bytes if big_endian.
 */
void rd_convert(const unsigned char *src, enum rd_elem e, int big_endian, size_t count,
                size_t stride, double *dst);

/* "(2, 3, 4)", "(5,)" or "()" into buf (truncated with "..." if too long). */
void rd_shape_str(char *buf, size_t cap, const uint64_t *shape, size_t ndim);

/*
 * The rows x cols of a 1-D or 2-D shape, or of a longer one with axes of
 * length 1 (dropped) and, in C order (@fortran 0), a last axis of 2 (a
 * pair: (n, k, 2) is read as n x 2k); PE_EFORMAT naming the found shape
 * otherwise ("expected a 2-D array, found 3-D (2, 3, 4)"), with @what
 * "array" or "tensor 'name'".
 */
enum pe_status rd_table_shape(const uint64_t *shape, size_t ndim, int fortran, const char *what,
                              size_t *rows, size_t *cols, char **err);

/*
 * The row range a request selects in a table of @rows rows: PE_ERANGE with
 * a message if it lies outside or is empty.
 */
enum pe_status rd_row_range(const struct pe_read_request *req, size_t rows, size_t *r0, size_t *r1,
                            char **err);

/*
 * A malloc'd "'a', 'b', 'c'" of the names, closest to @want first (edit
 * distance, ties in the given order; @want NULL keeps the order), at most
 * @limit of them followed by " and N more"; NULL if out of memory.
 */
char *rd_names_closest(const char *want, char *const *names, size_t n, size_t limit);

/* The same list in the given order. */
char *rd_names_in_order(char *const *names, size_t n, size_t limit);

/* Levenshtein distance of two strings (bytes). */
size_t rd_edit_distance(const char *a, const char *b);

/*
 * Where a table's values lie in a binary file (NPY, safetensors): what a
 * reader converts, from a buffer or straight from the file into the
 * result, without the file's bytes held whole first.
 */
struct rd_table_loc {
	uint64_t offset; /* of element (0, 0) of the whole array, from the file's start */
	enum rd_elem elem;
	int big_endian;
	int fortran;       /* column-major: element (i, j) at j * rows + i */
	size_t rows, cols; /* the whole array */
	size_t r0, r1;     /* the rows wanted */
};

/*
 * The table a request selects in an NPY or safetensors file of @len bytes
 * whose header @buf holds (the data need not be there: only headers are
 * read). Same errors as pe_npy_read() and pe_safetensors_read().
 */
enum pe_status rd_npy_locate(const unsigned char *buf, size_t len,
                             const struct pe_read_request *req, struct rd_table_loc *loc,
                             char **err);
enum pe_status rd_safetensors_locate(const unsigned char *buf, size_t len,
                                     const struct pe_read_request *req, struct rd_table_loc *loc,
                                     char **err);

/* Rows r0..r1-1 of the located table, from the whole file in memory, into dst. */
void rd_table_convert(const unsigned char *file, const struct rd_table_loc *loc, double *dst);

/*
 * A whole file in memory read as a table: @locate (rd_npy_locate or
 * rd_safetensors_locate) finds it, and its rows are converted into a new
 * matrix (*out, the caller's). The in-memory pe_*_read() of both formats.
 */
enum pe_status rd_table_read(const void *buf, size_t len, const struct pe_read_request *req,
                             enum pe_status (*locate)(const unsigned char *, size_t,
                                                      const struct pe_read_request *,
                                                      struct rd_table_loc *, char **),
                             struct pe_matrix **out, char **err);

/*
 * A CSV table parsed as its text arrives: feed the text in pieces (any
 * cut), then finish. Memory is the rows kept, not the text; past
 * @limit bytes of float64 (0: none) rows are only counted, and finishing
 * says how much the table needs.
 */
struct rd_csv;
enum pe_status rd_csv_begin(const struct pe_read_request *req, size_t limit, struct rd_csv **out,
                            char **err);
/*
 * Parses the complete lines of buf[0, len) (all of it when @eof); *used:
 * bytes consumed, the rest to be fed again with what follows. Nothing is
 * consumed before the text's first 4096 bytes (or all of it) are there:
 * they tell a binary file and hold the BOM.
 */
enum pe_status rd_csv_feed(struct rd_csv *c, const char *buf, size_t len, int eof, size_t *used,
                           char **err);
/* The table (ownership to the caller); frees @c whatever the result. */
enum pe_status rd_csv_finish(struct rd_csv *c, struct pe_matrix **out, char **err);
void rd_csv_abort(struct rd_csv *c);

/* Per-format inspectors, filling a zeroed info (the caller frees on failure). */
enum pe_status rd_npy_inspect(const unsigned char *buf, size_t len, struct pe_file_info *info,
                              char **err);
enum pe_status rd_safetensors_inspect(const unsigned char *buf, size_t len,
                                      struct pe_file_info *info, char **err);
/*
 * A safetensors file's tensors from its first @len bytes (the 8-byte length
 * and the whole header; the data need not be there), validated against
 * the file's length @file_len as rd_safetensors_inspect() validates a whole
 * file: for readers that hold the header only.
 */
enum pe_status rd_safetensors_inspect_header(const unsigned char *buf, size_t len,
                                             uint64_t file_len, struct pe_file_info *info,
                                             char **err);
enum pe_status rd_csv_inspect(const unsigned char *buf, size_t len, struct pe_file_info *info,
                              char **err);

#endif
