/*
 * fuzz_common.h - checks every fuzz target makes on a reader's result
 */
#ifndef POSENC_FUZZ_COMMON_H
#define POSENC_FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>

#include <posenc/read.h>

/* A failure other than out-of-memory must explain itself; success must not. */
static inline void fuzz_check(enum pe_status st, char *err)
{
	if (st == PE_OK && err)
		abort();
	if (st != PE_OK && st != PE_ENOMEM && !err)
		abort();
	free(err);
}

/* Reads the whole table, then a row range, touching every value. */
static inline void fuzz_read(enum pe_status (*read)(const void *, size_t,
                                                    const struct pe_read_request *,
                                                    struct pe_matrix **, char **),
                             const uint8_t *data, size_t size, const char *tensor)
{
	struct pe_matrix *m = NULL;
	char *err = NULL;
	struct pe_read_request req = {tensor, 0, 0, 0, 0};
	enum pe_status st = read(data, size, &req, &m, &err);
	fuzz_check(st, err);
	if (st == PE_OK) {
		volatile double sink = 0;
		for (size_t i = 0; i < m->rows * m->cols; i++)
			sink += m->data[i];
		size_t rows = m->rows;
		pe_matrix_destroy(m);
		req.row_first = rows / 2;
		req.row_end = rows;
		req.row_end_set = 1;
		err = NULL;
		st = read(data, size, &req, &m, &err);
		fuzz_check(st, err);
		if (st == PE_OK && m->rows != rows - rows / 2)
			abort();
		if (st == PE_OK)
			pe_matrix_destroy(m);
	}
}

static inline void fuzz_inspect(const uint8_t *data, size_t size, const char *name)
{
	struct pe_file_info *info = NULL;
	char *err = NULL;
	enum pe_status st = pe_file_inspect_buffer(data, size, name, &info, &err);
	fuzz_check(st, err);
	pe_file_info_destroy(info);
}

#endif
