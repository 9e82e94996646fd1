#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/read.h>

#include "io/read_internal.h"

enum pe_status rd_fail(char **err, enum pe_status status, const char *fmt, ...)
{
	if (!err)
		return status;
	*err = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return status;
	char *msg = malloc((size_t)n + 1);
	if (!msg)
		return status;
	va_start(ap, fmt);
	vsnprintf(msg, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*err = msg;
	return status;
}

double rd_half(uint16_t h)
{
	int exponent = (h >> 10) & 0x1f;
	unsigned mantissa = h & 0x3ffu;
	double v;
	if (exponent == 0)
		v = ldexp((double)mantissa, -24); /* zero and subnormals */
	else if (exponent == 31)
		v = mantissa ? NAN : INFINITY;
	else
		v = ldexp((double)(mantissa | 0x400u), exponent - 25);
	return (h & 0x8000u) ? -v : v;
}

double rd_bf16(uint16_t b)
{
	/* bfloat16 is the top half of a float32. */
	uint32_t bits = (uint32_t)b << 16;
	float f;
	memcpy(&f, &bits, sizeof(f));
	return (double)f;
}

size_t rd_elem_size(enum rd_elem e)
{
	switch (e) {
	case RD_F64:
		return 8;
	case RD_F32:
		return 4;
	case RD_F16:
	case RD_BF16:
		return 2;
	}
	return 0;
}

/* Assembles n bytes as an unsigned integer in the given byte order. */
static uint64_t load_uint(const unsigned char *p, size_t n, int big_endian)
{
	uint64_t v = 0;
	if (big_endian) {
		for (size_t i = 0; i < n; i++)
			v = (v << 8) | p[i];
	} else {
		for (size_t i = n; i-- > 0;)
			v = (v << 8) | p[i];
	}
	return v;
}

void rd_convert(const unsigned char *src, enum rd_elem e, int big_endian, size_t count,
                size_t stride, double *dst)
{
	size_t size = rd_elem_size(e);
	size_t step = stride * size;
	for (size_t i = 0; i < count; i++, src += step) {
		uint64_t bits = load_uint(src, size, big_endian);
		switch (e) {
		case RD_F64: {
			double d;
			memcpy(&d, &bits, sizeof(d));
			dst[i] = d;
			break;
		}
		case RD_F32: {
			uint32_t b32 = (uint32_t)bits;
			float f;
			memcpy(&f, &b32, sizeof(f));
			dst[i] = (double)f;
			break;
		}
		case RD_F16:
			dst[i] = rd_half((uint16_t)bits);
			break;
		case RD_BF16:
			dst[i] = rd_bf16((uint16_t)bits);
			break;
		}
	}
}

void rd_table_convert(const unsigned char *file, const struct rd_table_loc *loc, double *dst)
{
	size_t size = rd_elem_size(loc->elem), cols = loc->cols;
	const unsigned char *data = file + loc->offset;
	if (!loc->fortran) {
		rd_convert(data + loc->r0 * cols * size, loc->elem, loc->big_endian,
		           (loc->r1 - loc->r0) * cols, 1, dst);
		return;
	}
	for (size_t i = loc->r0; i < loc->r1; i++)
		rd_convert(data + i * size, loc->elem, loc->big_endian, cols, loc->rows,
		           dst + (i - loc->r0) * cols);
}

void rd_shape_str(char *buf, size_t cap, const uint64_t *shape, size_t ndim)
{
	size_t used = 0;
	int n = snprintf(buf, cap, "(");
	used = n > 0 ? (size_t)n : 0;
	for (size_t i = 0; i < ndim && used < cap; i++) {
		n = snprintf(buf + used, cap - used, "%s%llu", i ? ", " : "",
		             (unsigned long long)shape[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (used < cap)
		snprintf(buf + used, cap - used, "%s", ndim == 1 ? ",)" : ")");
	if (used >= cap && cap >= 5)
		memcpy(buf + cap - 5, "...)", 5);
}

enum pe_status rd_table_shape(const uint64_t *shape, size_t ndim, int fortran, const char *what,
                              size_t *rows, size_t *cols, char **err)
{
	char text[160];
	rd_shape_str(text, sizeof(text), shape, ndim);
	/*
	 * Past two axes, those of length 1 are dropped, leading ones first
	 * (torch's batch and head axes: HF's cos is (batch, seq, dim), unsqueezed
	 * to (batch, 1, seq, dim)); the memory order is the same without them. A
	 * last axis of 2 left over is a pair (torch.view_as_real(freqs_cis):
	 * (seq, dim/2, 2)), read as (seq, dim) with the two side by side, which
	 * only C order keeps.
	 */
	uint64_t dims[PE_READ_MAX_DIMS];
	size_t n = 0;
	for (size_t i = 0; i < ndim && i < PE_READ_MAX_DIMS; i++)
		dims[n++] = shape[i];
	for (size_t i = 0; n > 2 && i < n;)
		if (dims[i] == 1)
			memmove(dims + i, dims + i + 1, (--n - i) * sizeof(*dims));
		else
			i++;
	if (n == 3 && !fortran && dims[2] == 2 && dims[1] <= UINT64_MAX / 2) {
		dims[1] *= 2;
		n = 2;
	}
	if (ndim == 0 || ndim > PE_READ_MAX_DIMS || n > 2)
		return rd_fail(err, PE_EFORMAT,
		               "expected a 2-D %s (positions x width), found %zu-D %s", what, ndim,
		               text);
	uint64_t r = dims[0], c = n == 2 ? dims[1] : 1;
	if (r == 0 || c == 0)
		return rd_fail(err, PE_EFORMAT, "the %s is empty, shape %s", what, text);
	if (r > SIZE_MAX || c > SIZE_MAX)
		return rd_fail(err, PE_ETOOBIG, "the %s is too large, shape %s", what, text);
	*rows = (size_t)r;
	*cols = (size_t)c;
	return PE_OK;
}

enum pe_status rd_row_range(const struct pe_read_request *req, size_t rows, size_t *r0, size_t *r1,
                            char **err)
{
	size_t first = req ? req->row_first : 0;
	size_t end = req && req->row_end_set ? req->row_end : rows;
	if (end > rows)
		return rd_fail(err, PE_ERANGE, "rows=%zu:%zu is outside the table's %zu rows",
		               first, end, rows);
	if (first >= end)
		return rd_fail(err, PE_ERANGE, "rows=%zu:%zu selects no rows (the table has %zu)",
		               first, end, rows);
	*r0 = first;
	*r1 = end;
	return PE_OK;
}

/* Only the first bytes count: keeps the quadratic cost bounded. */
#define EDIT_PREFIX 256

size_t rd_edit_distance(const char *a, const char *b)
{
	size_t la = strnlen(a, EDIT_PREFIX), lb = strnlen(b, EDIT_PREFIX);
	size_t row[EDIT_PREFIX + 1];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

struct ranked {
	size_t distance;
	size_t index;
};

static int ranked_cmp(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	if (a->distance != b->distance)
		return a->distance < b->distance ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

char *rd_names_closest(const char *want, char *const *names, size_t n, size_t limit)
{
	struct ranked *r = malloc((n ? n : 1) * sizeof(*r));
	if (!r)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		r[i].distance = want ? rd_edit_distance(want, names[i]) : 0;
		r[i].index = i;
	}
	if (want)
		qsort(r, n, sizeof(*r), ranked_cmp);
	size_t shown = n < limit ? n : limit;
	size_t cap = 64;
	for (size_t i = 0; i < shown; i++)
		cap += strlen(names[r[i].index]) + 4;
	char *text = malloc(cap);
	if (!text) {
		free(r);
		return NULL;
	}
	size_t used = 0;
	text[0] = '\0';
	for (size_t i = 0; i < shown; i++)
		used += (size_t)snprintf(text + used, cap - used, "%s'%s'", i ? ", " : "",
		                         names[r[i].index]);
	if (shown < n)
		snprintf(text + used, cap - used, " and %zu more", n - shown);
	free(r);
	return text;
}

int pe_matrix_find_nonfinite(const struct pe_matrix *m, size_t *row, size_t *col)
{
	size_t count = m->rows * m->cols;
	for (size_t i = 0; i < count; i++) {
		if (!isfinite(m->data[i])) {
			if (row)
				*row = i / m->cols;
			if (col)
				*col = i % m->cols;
			return 1;
		}
	}
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	if (lx > ls)
		return 0;
	for (size_t i = 0; i < lx; i++) {
		char c = s[ls - lx + i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != suffix[i])
			return 0;
	}
	return 1;
}

enum pe_file_format pe_file_format_detect(const void *buf, size_t len, const char *name)
{
	const unsigned char *p = buf;
	if (len >= 6 && memcmp(p, "\x93NUMPY", 6) == 0)
		return PE_FORMAT_NPY;
	if (name && ends_with(name, ".npy"))
		return PE_FORMAT_NPY;
	if (len >= 9 && p[8] == '{' && p[6] == 0 && p[7] == 0)
		return PE_FORMAT_SAFETENSORS;
	if (name && ends_with(name, ".safetensors"))
		return PE_FORMAT_SAFETENSORS;
	if (!name && len == 0)
		return PE_FORMAT_UNKNOWN;
	return PE_FORMAT_CSV;
}

const char *pe_file_format_name(enum pe_file_format format)
{
	switch (format) {
	case PE_FORMAT_NPY:
		return "npy";
	case PE_FORMAT_SAFETENSORS:
		return "safetensors";
	case PE_FORMAT_CSV:
		return "csv";
	case PE_FORMAT_UNKNOWN:
		break;
	}
	return "unknown";
}

void pe_file_info_destroy(struct pe_file_info *info)
{
	if (!info)
		return;
	for (size_t i = 0; i < info->count; i++)
		free(info->tensors[i].name);
	free(info->tensors);
	for (size_t i = 0; i < info->n_metadata; i++) {
		free(info->metadata_keys[i]);
		free(info->metadata_values[i]);
	}
	free(info->metadata_keys);
	free(info->metadata_values);
	free(info);
}

char *rd_names_in_order(char *const *names, size_t n, size_t limit)
{
	return rd_names_closest(NULL, names, n, limit);
}

enum pe_status rd_table_read(const void *buf, size_t len, const struct pe_read_request *req,
                             enum pe_status (*locate)(const unsigned char *, size_t,
                                                      const struct pe_read_request *,
                                                      struct rd_table_loc *, char **),
                             struct pe_matrix **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	struct rd_table_loc loc;
	enum pe_status st = locate(buf, len, req, &loc, err);
	if (st != PE_OK)
		return st;
	struct pe_matrix *m = pe_matrix_create(loc.r1 - loc.r0, loc.cols);
	if (!m)
		return rd_fail(err, PE_ENOMEM, "out of memory for a %zu x %zu table",
		               loc.r1 - loc.r0, loc.cols);
	rd_table_convert(buf, &loc, m->data);
	*out = m;
	return PE_OK;
}

const char *rd_size(double bytes, char buf[24])
{
	if (bytes >= 0.1 * 1048576.0)
		snprintf(buf, 24, "%.1f MiB", bytes / 1048576.0);
	else if (bytes >= 1024.0)
		snprintf(buf, 24, "%.1f KiB", bytes / 1024.0);
	else
		snprintf(buf, 24, "%.0f bytes", bytes);
	return buf;
}
