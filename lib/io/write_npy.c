/*
 * NPY writer. The header is built as numpy's format._write_array_header
 * builds it: the dict with sorted keys, spare spaces so the first axis can
 * grow to 21 digits in place, then padding so the data starts at a multiple
 * of 64 bytes, ending in '\n'.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/write.h>

#include "io/write_internal.h"

#define GROWTH_AXIS_MAX_DIGITS 21

static void put_u16le(unsigned char *p, size_t v)
{
	p[0] = (unsigned char)(v & 0xff);
	p[1] = (unsigned char)((v >> 8) & 0xff);
}

static void put_u32le(unsigned char *p, size_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)((v >> (8 * i)) & 0xff);
}

static int host_is_little_endian(void)
{
	const uint16_t one = 1;
	unsigned char first;
	memcpy(&first, &one, 1);
	return first == 1;
}

/* Below this a reservation costs more than it saves. */
#define RESERVE_MIN ((size_t)1 << 20)

static int write_le64(FILE *f, const double *data, size_t count)
{
	/* The usual case: the doubles already are the file's bytes. */
	if (host_is_little_endian())
		return fwrite(data, sizeof(double), count, f) == count ? 0 : -1;
	unsigned char buf[8192];
	size_t fill = 0;
	for (size_t i = 0; i < count; i++) {
		uint64_t bits;
		memcpy(&bits, &data[i], 8);
		for (int b = 0; b < 8; b++)
			buf[fill++] = (unsigned char)(bits >> (8 * b));
		if (fill == sizeof(buf)) {
			if (fwrite(buf, 1, fill, f) != fill)
				return -1;
			fill = 0;
		}
	}
	return fwrite(buf, 1, fill, f) == fill ? 0 : -1;
}

static int write_le32(FILE *f, const double *data, size_t count)
{
	unsigned char buf[8192];
	size_t fill = 0;
	for (size_t i = 0; i < count; i++) {
		float x = (float)data[i];
		uint32_t bits;
		memcpy(&bits, &x, 4);
		for (int b = 0; b < 4; b++)
			buf[fill++] = (unsigned char)(bits >> (8 * b));
		if (fill == sizeof(buf)) {
			if (fwrite(buf, 1, fill, f) != fill)
				return -1;
			fill = 0;
		}
	}
	return fwrite(buf, 1, fill, f) == fill ? 0 : -1;
}

enum pe_status pe_npy_write_header(FILE *f, const size_t *shape, size_t ndim, enum pe_dtype dtype)
{
	if (ndim > 8)
		return PE_EINVAL;
	char dict[512];
	size_t len = 0;
	len += (size_t)snprintf(dict + len, sizeof(dict) - len,
	                        "{'descr': '%s', 'fortran_order': False, 'shape': (",
	                        dtype == PE_DTYPE_F32 ? "<f4" : "<f8");
	for (size_t i = 0; i < ndim; i++)
		len += (size_t)snprintf(dict + len, sizeof(dict) - len, "%s%zu", i ? ", " : "",
		                        shape[i]);
	len += (size_t)snprintf(dict + len, sizeof(dict) - len, "%s), }", ndim == 1 ? "," : "");
	if (ndim > 0) {
		char digits[32];
		size_t nd = (size_t)snprintf(digits, sizeof(digits), "%zu", shape[0]);
		for (size_t i = nd; i < GROWTH_AXIS_MAX_DIGITS; i++)
			dict[len++] = ' ';
	}
	/* magic(6) + version(2) + length field + header + '\n', 64-aligned. */
	size_t hlen = len + 1;
	int v2 = 0;
	size_t pre = 10;
	size_t pad = 64 - ((pre + hlen) % 64);
	if (hlen + pad > 65535) {
		v2 = 1;
		pre = 12;
		pad = 64 - ((pre + hlen) % 64);
	}
	unsigned char head[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', v2 ? 2 : 1, 0};
	if (v2)
		put_u32le(head + 8, hlen + pad);
	else
		put_u16le(head + 8, hlen + pad);
	if (fwrite(head, 1, pre, f) != pre || fwrite(dict, 1, len, f) != len)
		return PE_EIO;
	for (size_t i = 0; i < pad; i++)
		if (fputc(' ', f) == EOF)
			return PE_EIO;
	return fputc('\n', f) == EOF ? PE_EIO : PE_OK;
}

enum pe_status pe_npy_write_data(FILE *f, const double *data, size_t count, enum pe_dtype dtype)
{
	size_t bytes = count * (dtype == PE_DTYPE_F32 ? 4 : 8);
	/* The reservation starts where the buffered bytes end: flushed first. */
	if (bytes >= RESERVE_MIN && fileno(f) >= 0 && fflush(f) == 0)
		wr_reserve(fileno(f), bytes);
	int rc = dtype == PE_DTYPE_F32 ? write_le32(f, data, count) : write_le64(f, data, count);
	return rc == 0 && !ferror(f) ? PE_OK : PE_EIO;
}

enum pe_status pe_npy_write(FILE *f, const double *data, const size_t *shape, size_t ndim,
                            enum pe_dtype dtype)
{
	enum pe_status st = pe_npy_write_header(f, shape, ndim, dtype);
	if (st != PE_OK)
		return st;
	size_t count = 1;
	for (size_t i = 0; i < ndim; i++)
		count *= shape[i];
	return pe_npy_write_data(f, data, count, dtype);
}

enum pe_status pe_npy_write_matrix(FILE *f, const struct pe_matrix *m, enum pe_dtype dtype)
{
	size_t shape[2] = {m->rows, m->cols};
	return pe_npy_write(f, m->data, shape, 2, dtype);
}
