/*
 * NPY reader: numpy/lib/_format_impl.py, NEP 1. The header is a Python
 * dict literal; only the literal forms numpy writes (and old numpy wrote)
 * are accepted, everything else is a format error.
 */
#include <stdlib.h>
#include <string.h>

#include <posenc/read.h>

#include "io/read_internal.h"

struct npy_header {
	int major, minor;
	char descr[16];
	int fortran_order;
	size_t ndim;
	uint64_t shape[PE_READ_MAX_DIMS];
	size_t data_offset;
	uint64_t nbytes;   /* of the data; valid when itemsize != 0 */
	size_t itemsize;   /* 0: a dtype whose size posenc does not know */
	int float_type;    /* 1 if descr is one posenc converts */
	enum rd_elem elem; /* when float_type */
	int big_endian;
};

struct cursor {
	const char *p, *end;
};

static void skip_space(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

static int next_is(struct cursor *c, char ch)
{
	return c->p < c->end && *c->p == ch;
}

/* A Python string literal without escapes: 'abc' or "abc". */
static enum pe_status parse_string(struct cursor *c, char *out, size_t cap, const char *what,
                                   char **err)
{
	if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
		return rd_fail(err, PE_EFORMAT, "NPY header: expected a quoted %s", what);
	char quote = *c->p++;
	const char *start = c->p;
	while (c->p < c->end && *c->p != quote) {
		if (*c->p == '\\' || *c->p == '\n')
			return rd_fail(err, PE_EFORMAT, "NPY header: unexpected character in %s",
			               what);
		c->p++;
	}
	if (c->p >= c->end)
		return rd_fail(err, PE_EFORMAT, "NPY header: unterminated %s", what);
	size_t n = (size_t)(c->p - start);
	c->p++;
	if (n >= cap)
		return rd_fail(err, PE_EFORMAT, "NPY header: %s too long (%.*s...)", what,
		               (int)(n < 20 ? n : 20), start); /* never past the closing quote */
	memcpy(out, start, n);
	out[n] = '\0';
	return PE_OK;
}

static enum pe_status parse_shape(struct cursor *c, struct npy_header *h, char **err)
{
	if (!next_is(c, '(')) {
		if (next_is(c, '['))
			return rd_fail(err, PE_EFORMAT, "NPY header: shape is a list, not a tuple");
		return rd_fail(err, PE_EFORMAT, "NPY header: shape is not a tuple");
	}
	c->p++;
	int trailing_comma = 0;
	h->ndim = 0;
	for (;;) {
		skip_space(c);
		if (next_is(c, ')'))
			break;
		if (c->p >= c->end || *c->p < '0' || *c->p > '9')
			return rd_fail(err, PE_EFORMAT,
			               "NPY header: shape holds something other than integers");
		uint64_t v = 0;
		while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
			unsigned digit = (unsigned)(*c->p - '0');
			if (v > (UINT64_MAX - digit) / 10)
				return rd_fail(err, PE_EFORMAT,
				               "NPY header: a shape dimension overflows 64 bits");
			v = v * 10 + digit;
			c->p++;
		}
		if (next_is(c, 'L')) /* Python 2 long literals in old files */
			c->p++;
		if (h->ndim == PE_READ_MAX_DIMS)
			return rd_fail(err, PE_EFORMAT, "NPY header: more than %d dimensions",
			               PE_READ_MAX_DIMS);
		h->shape[h->ndim++] = v;
		skip_space(c);
		trailing_comma = 0;
		if (next_is(c, ',')) {
			c->p++;
			trailing_comma = 1;
			continue;
		}
		if (!next_is(c, ')'))
			return rd_fail(err, PE_EFORMAT, "NPY header: malformed shape tuple");
	}
	c->p++;
	if (h->ndim == 1 && !trailing_comma)
		return rd_fail(err, PE_EFORMAT,
		               "NPY header: shape (%llu) is not a tuple (a 1-D shape is written "
		               "(%llu,))",
		               (unsigned long long)h->shape[0], (unsigned long long)h->shape[0]);
	return PE_OK;
}

static enum pe_status parse_bool(struct cursor *c, int *out, char **err)
{
	size_t left = (size_t)(c->end - c->p);
	if (left >= 4 && memcmp(c->p, "True", 4) == 0) {
		c->p += 4;
		*out = 1;
		return PE_OK;
	}
	if (left >= 5 && memcmp(c->p, "False", 5) == 0) {
		c->p += 5;
		*out = 0;
		return PE_OK;
	}
	return rd_fail(err, PE_EFORMAT, "NPY header: fortran_order is not True or False");
}

/* The item size numpy gives a descr such as '<f8', '|b1', '<U10'; 0 if unknown. */
static size_t descr_itemsize(const char *d)
{
	if (*d == '<' || *d == '>' || *d == '|' || *d == '=')
		d++;
	char kind = *d++;
	if (*d < '1' || *d > '9')
		return 0;
	size_t n = 0;
	for (; *d >= '0' && *d <= '9'; d++) {
		if (n > 100000000)
			return 0;
		n = n * 10 + (size_t)(*d - '0');
	}
	if (*d != '\0')
		return 0;
	if (strchr("biufcSVa", kind))
		return n;
	if (kind == 'U')
		return 4 * n;
	return 0;
}

static void classify_descr(struct npy_header *h)
{
	static const struct {
		const char *descr;
		enum rd_elem elem;
		int big_endian;
	} known[] = {
	        {"<f8", RD_F64, 0}, {"<f4", RD_F32, 0}, {"<f2", RD_F16, 0},
	        {">f8", RD_F64, 1}, {">f4", RD_F32, 1}, {">f2", RD_F16, 1},
	};
	h->float_type = 0;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (strcmp(h->descr, known[i].descr) == 0) {
			h->float_type = 1;
			h->elem = known[i].elem;
			h->big_endian = known[i].big_endian;
		}
	}
}

static enum pe_status parse_dict(struct cursor *c, struct npy_header *h, char **err)
{
	enum pe_status st;
	int seen_descr = 0, seen_fortran = 0, seen_shape = 0;
	skip_space(c);
	if (!next_is(c, '{'))
		return rd_fail(err, PE_EFORMAT, "NPY header is not a dict");
	c->p++;
	for (;;) {
		skip_space(c);
		if (next_is(c, '}'))
			break;
		char key[32];
		if ((st = parse_string(c, key, sizeof(key), "key", err)) != PE_OK)
			return st;
		skip_space(c);
		if (!next_is(c, ':'))
			return rd_fail(err, PE_EFORMAT, "NPY header: expected ':' after '%s'", key);
		c->p++;
		skip_space(c);
		int *seen;
		if (strcmp(key, "descr") == 0) {
			seen = &seen_descr;
			if (next_is(c, '['))
				return rd_fail(err, PE_EFORMAT,
				               "structured dtypes are not supported (descr is a "
				               "list of fields)");
			st = parse_string(c, h->descr, sizeof(h->descr), "descr", err);
		} else if (strcmp(key, "fortran_order") == 0) {
			seen = &seen_fortran;
			st = parse_bool(c, &h->fortran_order, err);
		} else if (strcmp(key, "shape") == 0) {
			seen = &seen_shape;
			st = parse_shape(c, h, err);
		} else {
			return rd_fail(err, PE_EFORMAT, "NPY header: unexpected key '%s'", key);
		}
		if (st != PE_OK)
			return st;
		if (*seen)
			return rd_fail(err, PE_EFORMAT, "NPY header: key '%s' appears twice", key);
		*seen = 1;
		skip_space(c);
		if (next_is(c, ',')) {
			c->p++;
			continue;
		}
		if (!next_is(c, '}'))
			return rd_fail(err, PE_EFORMAT,
			               "NPY header: expected ',' or '}' after '%s'", key);
	}
	c->p++;
	skip_space(c);
	if (c->p != c->end)
		return rd_fail(err, PE_EFORMAT, "NPY header: text after the dict");
	if (!seen_descr || !seen_fortran || !seen_shape)
		return rd_fail(err, PE_EFORMAT, "NPY header lacks the key '%s'",
		               !seen_descr     ? "descr"
		               : !seen_fortran ? "fortran_order"
		                               : "shape");
	return PE_OK;
}

static enum pe_status npy_parse(const unsigned char *buf, size_t len, struct npy_header *h,
                                char **err)
{
	memset(h, 0, sizeof(*h));
	if (len < 6 || memcmp(buf, "\x93NUMPY", 6) != 0)
		return rd_fail(err, PE_EFORMAT, "not an NPY file (no \\x93NUMPY magic)");
	if (len < 10)
		return rd_fail(err, PE_EFORMAT, "truncated NPY file (%zu bytes)", len);
	h->major = buf[6];
	h->minor = buf[7];
	if (h->minor != 0 || h->major < 1 || h->major > 3)
		return rd_fail(err, PE_EFORMAT,
		               "unsupported NPY version %d.%d (known: 1.0, 2.0, 3.0)", h->major,
		               h->minor);
	size_t header_len, start;
	if (h->major == 1) {
		header_len = (size_t)buf[8] | (size_t)buf[9] << 8;
		start = 10;
	} else {
		if (len < 12)
			return rd_fail(err, PE_EFORMAT, "truncated NPY file (%zu bytes)", len);
		uint32_t n = (uint32_t)buf[8] | (uint32_t)buf[9] << 8 | (uint32_t)buf[10] << 16 |
		             (uint32_t)buf[11] << 24;
		header_len = n;
		start = 12;
	}
	if (header_len > len - start)
		return rd_fail(err, PE_EFORMAT,
		               "truncated NPY file: the header says %zu bytes, %zu follow",
		               header_len, len - start);
	struct cursor c = {(const char *)buf + start, (const char *)buf + start + header_len};
	enum pe_status st = parse_dict(&c, h, err);
	if (st != PE_OK)
		return st;
	h->data_offset = start + header_len;
	classify_descr(h);
	h->itemsize = descr_itemsize(h->descr);

	uint64_t nelem = 1;
	for (size_t i = 0; i < h->ndim; i++) {
		if (h->shape[i] != 0 && nelem > UINT64_MAX / h->shape[i]) {
			char text[160];
			rd_shape_str(text, sizeof(text), h->shape, h->ndim);
			return rd_fail(err, PE_EFORMAT, "shape %s overflows", text);
		}
		nelem *= h->shape[i];
	}
	if (h->itemsize == 0)
		return PE_OK; /* inspect lists it; the reader refuses the dtype */
	if (nelem > UINT64_MAX / h->itemsize) {
		char text[160];
		rd_shape_str(text, sizeof(text), h->shape, h->ndim);
		return rd_fail(err, PE_EFORMAT, "shape %s overflows", text);
	}
	h->nbytes = nelem * h->itemsize;
	uint64_t avail = len - h->data_offset;
	if (avail != h->nbytes) {
		char text[160];
		rd_shape_str(text, sizeof(text), h->shape, h->ndim);
		if (avail < h->nbytes)
			return rd_fail(
			        err, PE_EFORMAT,
			        "truncated: shape %s of %s needs %llu bytes of data, the file "
			        "has %llu",
			        text, h->descr, (unsigned long long)h->nbytes,
			        (unsigned long long)avail);
		return rd_fail(err, PE_EFORMAT,
		               "%llu bytes after the data of shape %s %s (several arrays in one "
		               "file?)",
		               (unsigned long long)(avail - h->nbytes), text, h->descr);
	}
	return PE_OK;
}

enum pe_status rd_npy_locate(const unsigned char *buf, size_t len,
                             const struct pe_read_request *req, struct rd_table_loc *loc,
                             char **err)
{
	struct npy_header h;
	enum pe_status st = npy_parse(buf, len, &h, err);
	if (st != PE_OK)
		return st;
	if (!h.float_type)
		return rd_fail(err, PE_EFORMAT,
		               "unsupported dtype '%s' (readable: <f8, <f4, <f2 and big-endian "
		               ">f8, >f4, >f2)",
		               h.descr);
	memset(loc, 0, sizeof(*loc));
	if ((st = rd_table_shape(h.shape, h.ndim, h.fortran_order, "array", &loc->rows, &loc->cols,
	                         err)) != PE_OK)
		return st;
	if ((st = rd_row_range(req, loc->rows, &loc->r0, &loc->r1, err)) != PE_OK)
		return st;
	loc->offset = h.data_offset;
	loc->elem = h.elem;
	loc->big_endian = h.big_endian;
	loc->fortran = h.fortran_order && loc->cols > 1;
	return PE_OK;
}

enum pe_status pe_npy_read(const void *buf, size_t len, const struct pe_read_request *req,
                           struct pe_matrix **out, char **err)
{
	return rd_table_read(buf, len, req, rd_npy_locate, out, err);
}

enum pe_status rd_npy_inspect(const unsigned char *buf, size_t len, struct pe_file_info *info,
                              char **err)
{
	struct npy_header h;
	enum pe_status st = npy_parse(buf, len, &h, err);
	if (st != PE_OK)
		return st;
	info->format = PE_FORMAT_NPY;
	info->npy_major = h.major;
	info->npy_minor = h.minor;
	info->fortran_order = h.fortran_order;
	info->tensors = calloc(1, sizeof(*info->tensors));
	if (!info->tensors)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	info->count = 1;
	struct pe_tensor_info *t = &info->tensors[0];
	memcpy(t->dtype, h.descr, sizeof(t->dtype));
	t->ndim = h.ndim;
	memcpy(t->shape, h.shape, sizeof(h.shape[0]) * h.ndim);
	t->offset = h.data_offset;
	t->nbytes = h.itemsize ? h.nbytes : len - h.data_offset;
	t->readable = h.float_type && (h.ndim == 1 || h.ndim == 2);
	return PE_OK;
}
