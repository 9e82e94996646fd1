/*
 * cli/shared/memio.h - the program's files kept in memory (the Python package)
 *
 * libposenc-python (cli/library.c) runs the commands without files: while
 * memory I/O is on, every output file opened with cli_file_open() is a
 * memory buffer kept under the name it was given, and the tables
 * registered here are read by name (-s file:path=NAME, check --against
 * NAME) instead of from files. The posenc program never turns it on.
 */
#ifndef POSENC_CLI_MEMIO_H
#define POSENC_CLI_MEMIO_H

#include <stddef.h>
#include <stdio.h>

#include <posenc/matrix.h>
#include <posenc/read.h>
#include <posenc/status.h>

/* Element types of a table in memory. */
enum cli_mem_dtype {
	CLI_MEM_F64,
	CLI_MEM_F32,
	CLI_MEM_F16,
	CLI_MEM_BF16, /* bit patterns held as uint16 */
};

/* A table in the caller's memory, borrowed for one run; strides in bytes. */
struct cli_memtable {
	const char *name;
	const void *data;
	int dtype; /* enum cli_mem_dtype */
	size_t rows, cols;
	ptrdiff_t row_stride, col_stride;
};

/* An output kept in memory: the name given to -o and the bytes written. */
struct cli_memfile {
	char *name;
	char *data;
	size_t len;
};

/* Set while memory I/O is on (cli_memio_begin() .. cli_memio_end()). */
extern int cli_memio_on;

/*
 * cli_memio_begin() - turn memory I/O on, with @ntables tables to read by name
 *
 * The tables are borrowed until cli_memio_end().
 */
void cli_memio_begin(const struct cli_memtable *tables, size_t ntables);

/*
 * cli_memio_end() - turn it off
 *
 * @count: the number of outputs kept. @return them (newly allocated: free
 * each name and data and the array), or NULL when there are none.
 */
struct cli_memfile *cli_memio_end(size_t *count);

/*
 * cli_memio_keep() - keep a finished output (takes @data, a malloc'd buffer)
 *
 * A second output under the same name replaces the first. @return 0, or -1
 * when out of memory (@data is freed).
 */
int cli_memio_keep(const char *name, char *data, size_t len);

/* The registered table named @path, or NULL (always NULL when memory I/O is off). */
const struct cli_memtable *cli_memtable_find(const char *path);

/*
 * cli_memtable_read() - a registered table as a float64 matrix (the one copy)
 *
 * @req: rows to select (its tensor must be NULL: an array has one).
 * @max_bytes: 0 for no limit; else a float64 copy larger than this is
 * refused with PE_ETOOBIG before it is made.
 * @finite: refuse NaN and infinities (PE_EFORMAT), as pe_file_load() does.
 *
 * @return as pe_file_load_limited(), *err a message to free().
 */
enum pe_status cli_memtable_read(const struct cli_memtable *t, const struct pe_read_request *req,
                                 size_t max_bytes, int finite, struct pe_matrix **out, char **err);

/*
 * cli_read_file() - pe_read_file(), or the registered table of that name
 */
enum pe_status cli_read_file(const char *path, const struct pe_read_request *req,
                             struct pe_matrix **out, char **err);

#endif
