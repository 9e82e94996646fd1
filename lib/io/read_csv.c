/*
 * CSV reader: numbers separated by commas, as pandas, numpy.savetxt and
 * posenc's own writer produce them (see posenc/read.h for the header and
 * index-column rules).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <posenc/read.h>

#include "io/read_internal.h"

/* Longer cells cannot be numbers posenc wrote; they are reported, not parsed. */
#define CELL_MAX 400

struct line {
	const char *p, *end;
	size_t number; /* 1-based line number in the file */
};

struct lines {
	const char *p, *end;
	size_t number;
};

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* The next line holding data (not blank, not a '#' comment); 0 at the end. */
static int next_line(struct lines *it, struct line *out)
{
	while (it->p < it->end) {
		const char *start = it->p;
		const char *nl = memchr(start, '\n', (size_t)(it->end - start));
		const char *stop = nl ? nl : it->end;
		it->p = nl ? nl + 1 : it->end;
		it->number++;
		const char *e = stop;
		if (e > start && e[-1] == '\r')
			e--;
		const char *q = start;
		while (q < e && is_space(*q))
			q++;
		if (q == e || *q == '#')
			continue;
		out->p = start;
		out->end = e;
		out->number = it->number;
		return 1;
	}
	return 0;
}

enum cell_result {
	CELL_OK,
	CELL_TOO_LONG,
	CELL_BAD_QUOTE,
};

/*
 * Extracts the cell at *p (trimmed, unquoted) into out (NUL-terminated)
 * and moves *p past its comma. *last is set when it was the line's last.
 */
static enum cell_result next_cell(const char **p, const char *end, char *out, size_t *n, int *last)
{
	const char *q = *p;
	size_t len = 0;
	int too_long = 0;
	/* A malformed cell ends the line, so callers counting cells always stop. */
	*n = 0;
	*last = 1;
	out[0] = '\0';
	*p = end;
	while (q < end && is_space(*q))
		q++;
	if (q < end && *q == '"') {
		q++;
		for (;;) {
			if (q >= end)
				return CELL_BAD_QUOTE;
			if (*q == '"') {
				if (q + 1 < end && q[1] == '"') {
					q++;
				} else {
					q++;
					break;
				}
			}
			if (len < CELL_MAX)
				out[len++] = *q;
			else
				too_long = 1;
			q++;
		}
		while (q < end && is_space(*q))
			q++;
		if (q < end && *q != ',')
			return CELL_BAD_QUOTE;
	} else {
		const char *s = q;
		while (q < end && *q != ',')
			q++;
		const char *e = q;
		while (e > s && is_space(e[-1]))
			e--;
		len = (size_t)(e - s);
		if (len > CELL_MAX) {
			len = CELL_MAX;
			too_long = 1;
		}
		memcpy(out, s, len);
	}
	out[len] = '\0';
	*n = len;
	*last = q >= end;
	*p = q < end ? q + 1 : q;
	return too_long ? CELL_TOO_LONG : CELL_OK;
}

/*
 * Parses a decimal number, nan or inf (any case, optional sign); the whole
 * text must be the number. *integer is set for plain integer text.
 */
static int parse_number(const char *s, double *out, int *integer)
{
	const char *q = s;
	if (*q == '+' || *q == '-')
		q++;
	*integer = 0;
	if (strcasecmp(q, "nan") == 0 || strcasecmp(q, "inf") == 0 ||
	    strcasecmp(q, "infinity") == 0) {
		*out = strtod(s, NULL);
		return 1;
	}
	size_t digits = 0, frac = 0;
	while (*q >= '0' && *q <= '9')
		q++, digits++;
	int plain = *q == '\0' && digits > 0;
	if (*q == '.') {
		q++;
		while (*q >= '0' && *q <= '9')
			q++, frac++;
	}
	if (digits + frac == 0)
		return 0;
	if (*q == 'e' || *q == 'E') {
		q++;
		if (*q == '+' || *q == '-')
			q++;
		if (*q < '0' || *q > '9')
			return 0;
		while (*q >= '0' && *q <= '9')
			q++;
	}
	if (*q != '\0')
		return 0;
	/* The grammar above is a subset of strtod's, without hex or locale forms. */
	*out = strtod(s, NULL);
	*integer = plain;
	return 1;
}

static int is_index_name(const char *s)
{
	static const char *const names[] = {"",     "position", "positions", "pos", "offset",
	                                    "pair", "index",    "idx",       "row", "unnamed: 0"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcasecmp(s, names[i]) == 0)
			return 1;
	return 0;
}

struct csv_shape {
	int header;
	int index_by_header; /* the header alone says the first column is an index */
	size_t cells;        /* cells per row, index included */
	size_t rows;         /* data rows */
	size_t first_data_line;
};

/* First pass: header, cells per row, data rows. */
static enum pe_status csv_scan(const char *buf, size_t len, struct csv_shape *sh, char **err)
{
	memset(sh, 0, sizeof(*sh));
	/* NPY and safetensors are told apart before; other binary files end here. */
	if (memchr(buf, '\0', len < 4096 ? len : 4096))
		return rd_fail(err, PE_EFORMAT,
		               "not a text table (binary data; posenc reads .npy, .safetensors and "
		               ".csv)");
	struct lines it = {buf, buf + len, 0};
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		it.p += 3;
	struct line ln;
	if (!next_line(&it, &ln))
		return rd_fail(err, PE_EFORMAT, "no data rows (the file is empty)");
	char cell[CELL_MAX + 1];
	size_t n;
	int last = 0, numeric_rest = 1;
	const char *p = ln.p;
	int first_index_name = 0, first_numeric = 1;
	while (!last) {
		enum cell_result r = next_cell(&p, ln.end, cell, &n, &last);
		if (r == CELL_BAD_QUOTE)
			return rd_fail(err, PE_EFORMAT, "line %zu, column %zu: unbalanced quotes",
			               ln.number, sh->cells + 1);
		double v;
		int integer;
		int numeric = r == CELL_OK && parse_number(cell, &v, &integer);
		if (sh->cells == 0) {
			first_numeric = numeric;
			first_index_name = r == CELL_OK && is_index_name(cell);
		} else if (!numeric) {
			numeric_rest = 0;
		}
		sh->cells++;
	}
	sh->header = !first_numeric || !numeric_rest;
	sh->index_by_header = sh->header && sh->cells >= 2 &&
	                      (first_index_name || (!first_numeric && numeric_rest));
	if (!sh->header) {
		sh->rows = 1;
		sh->first_data_line = ln.number;
	}
	while (next_line(&it, &ln)) {
		if (sh->rows == 0)
			sh->first_data_line = ln.number;
		sh->rows++;
	}
	if (sh->rows == 0)
		return rd_fail(err, PE_EFORMAT, "no data rows (only a header)");
	return PE_OK;
}

/*
 * Second pass: parses every data row (all are validated), keeping rows
 * r0..r1-1 with all their cells in dst. Sets *consecutive when the first
 * column holds integer text k, k+1, ... over every row.
 */
static enum pe_status csv_parse(const char *buf, size_t len, const struct csv_shape *sh, size_t r0,
                                size_t r1, double *dst, int *consecutive, char **err)
{
	struct lines it = {buf, buf + len, 0};
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		it.p += 3;
	struct line ln;
	if (sh->header)
		next_line(&it, &ln);
	char cell[CELL_MAX + 1];
	double previous = 0;
	*consecutive = 1;
	for (size_t row = 0; next_line(&it, &ln); row++) {
		const char *p = ln.p;
		size_t n, col = 0;
		int last = 0, extra = 0;
		while (!last) {
			enum cell_result r = next_cell(&p, ln.end, cell, &n, &last);
			if (col == sh->cells) {
				extra = 1;
				break;
			}
			if (r == CELL_BAD_QUOTE)
				return rd_fail(err, PE_EFORMAT,
				               "line %zu, column %zu: unbalanced quotes", ln.number,
				               col + 1);
			double v;
			int integer;
			if (r == CELL_TOO_LONG || !parse_number(cell, &v, &integer)) {
				if (n == 0)
					return rd_fail(err, PE_EFORMAT,
					               "line %zu, column %zu: empty cell",
					               ln.number, col + 1);
				return rd_fail(err, PE_EFORMAT,
				               "line %zu, column %zu: '%.40s%s' is not a number",
				               ln.number, col + 1, cell,
				               r == CELL_TOO_LONG ? "..." : "");
			}
			if (col == 0) {
				if (!integer || (row > 0 && v != previous + 1))
					*consecutive = 0;
				previous = v;
			}
			if (row >= r0 && row < r1)
				dst[(row - r0) * sh->cells + col] = v;
			col++;
		}
		if (col != sh->cells || extra) {
			size_t found = col + extra;
			while (!last) {
				next_cell(&p, ln.end, cell, &n, &last);
				found++;
			}
			return rd_fail(err, PE_EFORMAT, "line %zu has %zu cells, expected %zu",
			               ln.number, found, sh->cells);
		}
	}
	if (sh->rows < 2)
		*consecutive = 0;
	return PE_OK;
}

/* Parses the file; the result keeps rows r0..r1-1 (r1 = 0: decided here). */
static enum pe_status csv_read(const char *buf, size_t len, const struct pe_read_request *req,
                               struct pe_matrix **out, struct csv_shape *sh, int *index, char **err)
{
	enum pe_status st = csv_scan(buf, len, sh, err);
	if (st != PE_OK)
		return st;
	size_t r0, r1;
	if ((st = rd_row_range(req, sh->rows, &r0, &r1, err)) != PE_OK)
		return st;
	struct pe_matrix *m = pe_matrix_create(r1 - r0, sh->cells);
	if (!m)
		return rd_fail(err, PE_ENOMEM, "out of memory for a %zu x %zu table", r1 - r0,
		               sh->cells);
	int consecutive;
	st = csv_parse(buf, len, sh, r0, r1, m->data, &consecutive, err);
	if (st != PE_OK) {
		pe_matrix_destroy(m);
		return st;
	}
	*index = sh->cells >= 2 && (sh->index_by_header || consecutive);
	if (*index) {
		/* Drop the index column in place. */
		size_t cols = sh->cells - 1;
		for (size_t i = 0; i < m->rows; i++)
			memmove(m->data + i * cols, m->data + i * sh->cells + 1,
			        cols * sizeof(double));
		m->cols = cols;
	}
	*out = m;
	return PE_OK;
}

enum pe_status pe_csv_read(const void *buf, size_t len, const struct pe_read_request *req,
                           struct pe_matrix **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	if (req && req->tensor)
		return rd_fail(err, PE_ENOTFOUND, "a CSV file has no tensor names (tensor=%s)",
		               req->tensor);
	if (!buf)
		buf = ""; /* no arithmetic on a null pointer, even with len 0 */
	struct csv_shape sh;
	int index;
	return csv_read(buf, len, req, out, &sh, &index, err);
}

enum pe_status rd_csv_inspect(const unsigned char *buf, size_t len, struct pe_file_info *info,
                              char **err)
{
	struct csv_shape sh;
	int index;
	struct pe_matrix *m = NULL;
	if (!buf)
		buf = (const unsigned char *)"";
	/* Parsing one row is enough to learn the width; every row is still validated. */
	struct pe_read_request first = {NULL, 0, 1, 1};
	enum pe_status st = csv_read((const char *)buf, len, &first, &m, &sh, &index, err);
	if (st != PE_OK)
		return st;
	info->format = PE_FORMAT_CSV;
	info->csv_header = sh.header;
	info->csv_index = index;
	info->tensors = calloc(1, sizeof(*info->tensors));
	if (!info->tensors) {
		pe_matrix_destroy(m);
		return rd_fail(err, PE_ENOMEM, "out of memory");
	}
	info->count = 1;
	struct pe_tensor_info *t = &info->tensors[0];
	strcpy(t->dtype, "text");
	t->ndim = 2;
	t->shape[0] = sh.rows;
	t->shape[1] = m->cols;
	t->nbytes = len;
	t->readable = 1;
	pe_matrix_destroy(m);
	return PE_OK;
}
