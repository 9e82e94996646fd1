/*
 * posenc/read.h - position tables read from .npy, .safetensors and .csv
 *
 * Every reader works on a memory buffer (so fuzzers and tests need no
 * files) and, through pe_read_file(), on a path: a regular file is read
 * (never mapped: a file truncated meanwhile is an error, not SIGBUS)
 * straight into the result, NPY and safetensors from their headers, CSV
 * parsed as its text arrives, so a table costs its own size once, not the
 * file's beside it. Values are converted to float64 exactly (f16,
 * bf16 and f32 all widen without rounding).
 *
 * Errors: a malformed file gives PE_EFORMAT, a missing tensor
 * PE_ENOTFOUND, and *err (when err is not NULL) a message saying what is
 * wrong without naming the file, e.g. "expected a 2-D array, found 3-D
 * (2, 3, 4)"; the CLI prints it as "posenc: error: 'FILE': <message>".
 * The caller frees *err with free(); it is NULL on success. Nothing is
 * ever read outside the buffer, whatever the file claims.
 *
 * Shapes: a position table is 2-D (positions x width). A 1-D array of n
 * values is accepted as an n x 1 table (one number per position); 0-D
 * and 3-D or higher arrays are refused.
 *
 * NPY: versions 1.0, 2.0 and 3.0; dtypes <f8 <f4 <f2 and their
 * big-endian forms >f8 >f4 >f2; fortran_order True is read and
 * transposed into row-major order. The header dict must hold exactly the
 * keys descr, fortran_order and shape (any order, spaces and a trailing
 * comma allowed); the data must be exactly prod(shape) * itemsize bytes.
 *
 * safetensors: validated as the reference implementation
 * (huggingface/safetensors tensor.rs) does: header length at most
 * 100,000,000, UTF-8 JSON starting with '{', duplicate names refused,
 * data_offsets sorted tile the buffer from 0 with no hole, overlap or
 * trailing byte, end - begin = nelem * dtype size. Tensors of every dtype
 * are listed by pe_file_inspect(); F64, F32, F16 and BF16 can be read.
 *
 * CSV: comma-separated numbers, one row per position. The first row is a
 * header when one of its cells is not a number (or is empty), or when it is
 * 0, 1, ..., k-1 written as integers with k >= 3 (pandas' column names of a
 * plain array, to_csv(index=False)). The first
 * column is an index (skipped) when its header cell is empty or an index
 * name (position, pos, offset, pair, index, row, idx), when the header
 * names it while every other header cell is a number (posenc's own
 * layout), or, without a header, when it holds consecutive integers
 * written as integers (k, k+1, ...) over two rows or more and there are
 * other columns. Blank lines and lines starting with '#' are skipped,
 * CRLF and a UTF-8 BOM are accepted, cells may be double-quoted. nan,
 * inf and -inf are parsed (pe_file_load() then refuses them). Numbers
 * separated by spaces (np.savetxt's default), tabs, ';' or '|' instead of
 * commas are an error that says so, not a header.
 */
#ifndef POSENC_READ_H
#define POSENC_READ_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/matrix.h>
#include <posenc/scheme.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The safetensors header limit of the reference implementation. */
#define PE_SAFETENSORS_HEADER_MAX 100000000u

/* pe_file_inspect() reads at most this much of a stream (pipe, device). */
#define PE_READ_INSPECT_STREAM_MAX ((size_t)1 << 30)

/* Arrays with more dimensions than this are refused as malformed. */
#define PE_READ_MAX_DIMS 64

enum pe_file_format {
	PE_FORMAT_UNKNOWN,
	PE_FORMAT_NPY,
	PE_FORMAT_SAFETENSORS,
	PE_FORMAT_CSV,
};

/*
 * What to read: which tensor and which rows. A NULL request reads the
 * whole table of the only tensor.
 */
struct pe_read_request {
	const char *tensor; /* safetensors: the tensor name; NULL: the file's only tensor */
	size_t row_first;   /* read rows row_first..row_end-1 */
	size_t row_end;     /* ignored unless row_end_set: to the last row */
	int row_end_set;
	int keep_first; /* CSV: a first column of consecutive integers is data, not an
	                   index, unless the header names it one (an angle table's pair 0
	                   is the positions when theta_0 = 1) */
};

/* One array of a file, as pe_file_inspect() lists it. */
struct pe_tensor_info {
	char *name;     /* safetensors: the tensor name; NPY, CSV: NULL. Owned by the info */
	char dtype[16]; /* as the file spells it: "F32", "<f4", ">f8"; CSV: "text" */
	size_t ndim;
	uint64_t shape[PE_READ_MAX_DIMS];
	uint64_t offset; /* first data byte in the file (CSV: 0) */
	uint64_t nbytes; /* data bytes (CSV: the file size) */
	int readable;    /* 1 if it can be read as a table (float dtype, 1-D or 2-D) */
};

/* The contents of a file: its arrays and format details. */
struct pe_file_info {
	enum pe_file_format format;
	int npy_major, npy_minor;       /* NPY version */
	int fortran_order;              /* NPY */
	int csv_header;                 /* CSV: 1 if the first row is a header */
	int csv_index;                  /* CSV: 1 if the first column is an index */
	int csv_index_guessed;          /* CSV: 1 if that index is only inferred from consecutive
	                                   integers (no header cell names it one): keep_first reads
	                                   the column as data */
	size_t count;                   /* number of arrays; NPY and CSV: 1 */
	struct pe_tensor_info *tensors; /* safetensors: in data_offsets order */
	size_t n_metadata;              /* safetensors __metadata__ entries */
	char **metadata_keys;           /* n_metadata strings */
	char **metadata_values;
};

/*
 * pe_file_format_detect() - the format of a file from its first bytes and name
 *
 * The NPY magic and a safetensors header (u64 length then '{') decide;
 * otherwise the extension of @name (may be NULL): .npy, .safetensors,
 * anything else CSV.
 *
 * @return the format; never PE_FORMAT_UNKNOWN for a non-empty name or buffer.
 */
PE_API enum pe_file_format pe_file_format_detect(const void *buf, size_t len, const char *name);

/*
 * pe_file_format_name() - "npy", "safetensors", "csv" or "unknown"
 *
 * @return a static string.
 */
PE_API const char *pe_file_format_name(enum pe_file_format format);

/*
 * pe_npy_read() - read the table of an NPY file held in memory
 * pe_safetensors_read() - read one tensor of a safetensors file in memory
 * pe_csv_read() - read the table of a CSV file in memory
 *
 * @buf, @len: the whole file; @buf may be NULL when @len is 0.
 * @req:  the tensor and rows to read, or NULL for all rows of the only tensor.
 * @out:  on success a new rows x cols matrix; free with pe_matrix_destroy().
 * @err:  on failure, if not NULL, a message to free with free().
 *
 * @return PE_OK; PE_EFORMAT for a malformed file or an array that is not a
 * table (wrong dtype, 3-D, ...); PE_ENOTFOUND for an unknown tensor name
 * (the message lists the names, closest first) or a missing name in a file
 * of several tensors; PE_ERANGE for rows outside the table or an empty
 * selection; PE_ETOOBIG, PE_ENOMEM.
 */
PE_API enum pe_status pe_npy_read(const void *buf, size_t len, const struct pe_read_request *req,
                                  struct pe_matrix **out, char **err);
PE_API enum pe_status pe_safetensors_read(const void *buf, size_t len,
                                          const struct pe_read_request *req, struct pe_matrix **out,
                                          char **err);
PE_API enum pe_status pe_csv_read(const void *buf, size_t len, const struct pe_read_request *req,
                                  struct pe_matrix **out, char **err);

/*
 * pe_read_buffer() - read a table from a file in memory, any format
 *
 * @name: the file name, used only to tell formats apart (may be NULL).
 *
 * @return as pe_npy_read().
 */
PE_API enum pe_status pe_read_buffer(const void *buf, size_t len, const char *name,
                                     const struct pe_read_request *req, struct pe_matrix **out,
                                     char **err);

/*
 * pe_read_file() - read a table from a file, any format
 *
 * A regular file is read straight into the result (memory: the table and
 * a bounded buffer); other files (pipes, devices) are read into memory
 * whole first. A file that shrinks, grows, changes or is removed while it
 * is read gives PE_EIO.
 *
 * @return as pe_npy_read(), plus PE_EIO if the file cannot be opened or
 * read (*err is then strerror's text, e.g. "No such file or directory").
 */
PE_API enum pe_status pe_read_file(const char *path, const struct pe_read_request *req,
                                   struct pe_matrix **out, char **err);

/*
 * pe_read_file_described() - a table and what the file says of itself, from
 * one opening of the file
 *
 * As pe_read_file(), within @max_bytes (0: no limit; a stream longer, or a
 * selected table whose float64 copy is larger, gives PE_ETOOBIG), and with
 * the file's arrays (pe_file_inspect()) read from the same open file or the
 * same bytes of a stream: a pipe, a FIFO or a file replaced meanwhile gives
 * one consistent answer.
 *
 * @out: a new matrix (pe_matrix_destroy()); @info: a new info
 * (pe_file_info_destroy()); both NULL on failure.
 */
PE_API enum pe_status pe_read_file_described(const char *path, const struct pe_read_request *req,
                                             size_t max_bytes, struct pe_matrix **out,
                                             struct pe_file_info **info, char **err);

/*
 * pe_file_inspect_buffer() - list the arrays of a file in memory
 * pe_file_inspect() - list the arrays of a file
 *
 * Validates the file as the readers do (a safetensors file whose offsets
 * are wrong is refused), but lists arrays of every dtype and shape.
 *
 * @out: on success a new info; free with pe_file_info_destroy().
 *
 * @return PE_OK, PE_EFORMAT, PE_EIO (pe_file_inspect() only), PE_ENOMEM.
 */
PE_API enum pe_status pe_file_inspect_buffer(const void *buf, size_t len, const char *name,
                                             struct pe_file_info **out, char **err);
PE_API enum pe_status pe_file_inspect(const char *path, struct pe_file_info **out, char **err);

/*
 * pe_file_inspect_limited() - pe_file_inspect() within @max_bytes (0: none)
 *
 * A stream longer than @max_bytes, or a safetensors header whose parse
 * would need more, gives PE_ETOOBIG before the memory is taken.
 * pe_file_inspect() is this with PE_READ_INSPECT_STREAM_MAX.
 */
PE_API enum pe_status pe_file_inspect_limited(const char *path, size_t max_bytes,
                                              struct pe_file_info **out, char **err);

/*
 * pe_file_info_destroy() - free an info and its strings; NULL is a no-op
 */
PE_API void pe_file_info_destroy(struct pe_file_info *info);

/*
 * pe_matrix_find_nonfinite() - the first NaN or infinity of a matrix
 *
 * @row, @col: set to its place when one is found (row-major scan).
 *
 * @return 1 if the matrix holds a NaN or an infinity, else 0.
 */
PE_API int pe_matrix_find_nonfinite(const struct pe_matrix *m, size_t *row, size_t *col);

/*
 * pe_file_load() - the position table of a file scheme
 *
 * Reads s->path (tensor s->tensor, rows s->row_first..s->row_end-1) and
 * refuses NaN and infinities, which no analysis can use ("value nan at
 * row 3, column 5 (counting from 0)", rows counted in the file).
 *
 * @out: on success a new matrix; free with pe_matrix_destroy().
 * @err: on failure, if not NULL, a message to free with free().
 *
 * @return as pe_read_file(), PE_EFORMAT for NaN/Inf, PE_EINVAL if @s is not
 * a file scheme.
 */
PE_API enum pe_status pe_file_load(const struct pe_scheme *s, struct pe_matrix **out, char **err);

/*
 * pe_file_load_limited() - pe_file_load() within a memory budget
 *
 * @max_bytes: 0 for no limit; else a stream (pipe, device) longer than
 * this, or a selected table whose float64 copy is larger, is refused with
 * PE_ETOOBIG (and a message saying how much it needs) before the table is
 * allocated (a CSV file's size is known only once parsed: past the limit
 * its rows are counted, no longer kept).
 */
PE_API enum pe_status pe_file_load_limited(const struct pe_scheme *s, size_t max_bytes,
                                           struct pe_matrix **out, char **err);

#ifdef __cplusplus
}
#endif

#endif
