#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/memio.h"

int cli_memio_on;

static const struct cli_memtable *mem_tables;
static size_t mem_ntables;
static struct cli_memfile *kept;
static size_t nkept;

void cli_memio_begin(const struct cli_memtable *tables, size_t ntables)
{
	mem_tables = tables;
	mem_ntables = ntables;
	kept = NULL;
	nkept = 0;
	cli_memio_on = 1;
}

struct cli_memfile *cli_memio_end(size_t *count)
{
	struct cli_memfile *out = kept;
	*count = nkept;
	kept = NULL;
	nkept = 0;
	mem_tables = NULL;
	mem_ntables = 0;
	cli_memio_on = 0;
	return out;
}

int cli_memio_keep(const char *name, char *data, size_t len)
{
	for (size_t i = 0; i < nkept; i++) {
		if (strcmp(kept[i].name, name) == 0) {
			free(kept[i].data);
			kept[i].data = data;
			kept[i].len = len;
			return 0;
		}
	}
	struct cli_memfile *grown = realloc(kept, (nkept + 1) * sizeof(*kept));
	char *copy = strdup(name);
	if (!grown || !copy) {
		if (grown)
			kept = grown;
		free(copy);
		free(data);
		return -1;
	}
	kept = grown;
	kept[nkept].name = copy;
	kept[nkept].data = data;
	kept[nkept].len = len;
	nkept++;
	return 0;
}

const struct cli_memtable *cli_memtable_find(const char *path)
{
	if (!cli_memio_on || !path)
		return NULL;
	for (size_t i = 0; i < mem_ntables; i++)
		if (strcmp(mem_tables[i].name, path) == 0)
			return &mem_tables[i];
	return NULL;
}

__attribute__((format(printf, 3, 4))) static enum pe_status fail(char **err, enum pe_status st,
                                                                 const char *fmt, ...)
{
	if (!err)
		return st;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *msg = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (msg) {
		va_start(ap, fmt);
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	*err = msg;
	return st;
}

/* IEEE half and bfloat16 bit patterns, widened exactly. */
static double from_f16(uint16_t h)
{
	int exponent = (h >> 10) & 0x1f;
	unsigned mantissa = h & 0x3ffu;
	double v;
	if (exponent == 0)
		v = ldexp((double)mantissa, -24);
	else if (exponent == 31)
		v = mantissa ? NAN : INFINITY;
	else
		v = ldexp((double)(mantissa | 0x400u), exponent - 25);
	return (h & 0x8000u) ? -v : v;
}

static double from_bf16(uint16_t b)
{
	uint32_t bits = (uint32_t)b << 16;
	float f;
	memcpy(&f, &bits, sizeof(f));
	return (double)f;
}

static double element(const struct cli_memtable *t, const char *p)
{
	switch (t->dtype) {
	case CLI_MEM_F32: {
		float f;
		memcpy(&f, p, sizeof(f));
		return (double)f;
	}
	case CLI_MEM_F16: {
		uint16_t h;
		memcpy(&h, p, sizeof(h));
		return from_f16(h);
	}
	case CLI_MEM_BF16: {
		uint16_t h;
		memcpy(&h, p, sizeof(h));
		return from_bf16(h);
	}
	default: {
		double d;
		memcpy(&d, p, sizeof(d));
		return d;
	}
	}
}

enum pe_status cli_memtable_read(const struct cli_memtable *t, const struct pe_read_request *req,
                                 size_t max_bytes, int finite, struct pe_matrix **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	if (req && req->tensor)
		return fail(err, PE_ENOTFOUND, "an array has no tensor '%s'", req->tensor);
	size_t first = req ? req->row_first : 0;
	size_t end = req && req->row_end_set ? req->row_end : t->rows;
	if (end > t->rows)
		return fail(err, PE_ERANGE, "rows=%zu:%zu is outside the table's %zu rows", first,
		            end, t->rows);
	if (first >= end)
		return fail(err, PE_ERANGE, "rows=%zu:%zu selects no rows (the table has %zu)",
		            first, end, t->rows);
	size_t rows = end - first;
	double bytes = (double)rows * (double)t->cols * 8.0;
	if (max_bytes && bytes > (double)max_bytes)
		return fail(err, PE_ETOOBIG,
		            "the %zu x %zu table needs %.1f MiB as float64, more than the limit of "
		            "%.1f MiB",
		            rows, t->cols, bytes / 1048576.0, (double)max_bytes / 1048576.0);
	struct pe_matrix *m = pe_matrix_create(rows, t->cols);
	if (!m)
		return fail(err, PE_ENOMEM, "out of memory");
	const char *base = t->data;
	for (size_t i = 0; i < rows; i++) {
		const char *row = base + (ptrdiff_t)(first + i) * t->row_stride;
		double *dst = m->data + i * t->cols;
		if (t->dtype == CLI_MEM_F64 && t->col_stride == (ptrdiff_t)sizeof(double)) {
			memcpy(dst, row, t->cols * sizeof(double));
			continue;
		}
		for (size_t j = 0; j < t->cols; j++)
			dst[j] = element(t, row + (ptrdiff_t)j * t->col_stride);
	}
	size_t r, c;
	if (finite && pe_matrix_find_nonfinite(m, &r, &c)) {
		double v = m->data[r * m->cols + c];
		const char *what = v != v ? "nan" : v > 0 ? "inf" : "-inf";
		pe_matrix_destroy(m);
		return fail(
		        err, PE_EFORMAT,
		        "value %s at row %zu, column %zu (counting from 0); analyses need finite "
		        "numbers",
		        what, r + first, c);
	}
	*out = m;
	return PE_OK;
}

enum pe_status cli_read_file(const char *path, const struct pe_read_request *req,
                             struct pe_matrix **out, char **err)
{
	const struct cli_memtable *t = cli_memtable_find(path);
	if (t)
		return cli_memtable_read(t, req, 0, 0, out, err);
	return pe_read_file(path, req, out, err);
}
