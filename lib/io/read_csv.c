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

static int is_space(char c)
{
	return c == ' ' || c == '\t';
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
};

struct rd_csv {
	size_t r0, r1; /* rows kept: r0..r1-1 (r1 = SIZE_MAX: to the end) */
	int r1_set;
	size_t limit; /* bytes of float64; 0: none */
	int fed;      /* some text seen: the BOM and binary checks are done */
	int started;  /* the first data line was seen */
	struct csv_shape sh;
	size_t line; /* lines so far (1-based numbers) */
	double previous;
	int consecutive;
	int keep_first; /* the request's keep_first: no index from consecutive integers */
	double *data;   /* kept rows, sh.cells values each */
	size_t kept, cap;
	int over; /* past the limit: rows are counted, no longer kept */
	char eol; /* '\n', or '\r' for a file of classic Mac line ends (no '\n' at all) */
};

enum pe_status rd_csv_begin(const struct pe_read_request *req, size_t limit, struct rd_csv **out,
                            char **err)
{
	*out = NULL;
	struct rd_csv *c = calloc(1, sizeof(*c));
	if (!c)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	c->r0 = req ? req->row_first : 0;
	c->r1_set = req && req->row_end_set;
	c->r1 = c->r1_set ? req->row_end : SIZE_MAX;
	c->limit = limit;
	c->consecutive = 1;
	c->keep_first = req && req->keep_first;
	*out = c;
	return PE_OK;
}

void rd_csv_abort(struct rd_csv *c)
{
	if (!c)
		return;
	free(c->data);
	free(c);
}

/*
 * The separator other than a comma that splits @cell into two numbers or more (';',
 * a tab, spaces, '|'), or 0: a table written with np.savetxt's default delimiter (a
 * space), or as tab- or semicolon-separated values, reads as one cell a line, which
 * is no number and would be taken for a header. @cut: the cell was cut at CELL_MAX.
 */
static char other_separator(const char *cell, int cut)
{
	static const char seps[] = ";\t |";
	for (const char *sep = seps; *sep; sep++) {
		if (!strchr(cell, *sep))
			continue;
		char tok[CELL_MAX + 1];
		size_t count = 0;
		int all = 1;
		const char *p = cell;
		while (*p && all) {
			while (*p == *sep || is_space(*p))
				p++;
			if (!*p)
				break;
			size_t len = 0;
			while (*p && *p != *sep && !(*sep == ' ' && is_space(*p)))
				tok[len++] = *p++;
			while (len > 0 && is_space(tok[len - 1]))
				len--;
			tok[len] = '\0';
			double v;
			int integer;
			/* a cell cut at CELL_MAX may end inside a number */
			all = parse_number(tok, &v, &integer) || (cut && !*p);
			count++;
		}
		if (all && count >= 2)
			return *sep;
	}
	return 0;
}

static enum pe_status fail_separator(char **err, size_t line, const char *cell, int cut, char sep)
{
	return rd_fail(err, PE_EFORMAT,
	               "line %zu: '%.40s%s' holds numbers separated by %s, not commas: a CSV "
	               "table's values are comma-separated (np.savetxt(..., delimiter=','))",
	               line, cell, cut || strlen(cell) > 40 ? "..." : "",
	               sep == '\t'  ? "tabs"
	               : sep == ' ' ? "spaces"
	               : sep == ';' ? "';'"
	                            : "'|'");
}

/* The first data line: header or not, cells per row, index by header. */
static enum pe_status csv_first(struct rd_csv *c, const struct line *ln, char **err)
{
	struct csv_shape *sh = &c->sh;
	char cell[CELL_MAX + 1];
	size_t n;
	int last = 0, numeric_rest = 1;
	const char *p = ln->p;
	int first_index_name = 0, first_numeric = 1, counting = 1;
	while (!last) {
		enum cell_result r = next_cell(&p, ln->end, cell, &n, &last);
		if (r == CELL_BAD_QUOTE)
			return rd_fail(err, PE_EFORMAT, "line %zu, column %zu: unbalanced quotes",
			               ln->number, sh->cells + 1);
		double v;
		int integer;
		int numeric = r == CELL_OK && parse_number(cell, &v, &integer);
		counting = counting && numeric && integer && v == (double)sh->cells;
		if (sh->cells == 0) {
			first_numeric = numeric;
			first_index_name = r == CELL_OK && is_index_name(cell);
		} else if (!numeric) {
			numeric_rest = 0;
		}
		sh->cells++;
		char sep;
		if (last && sh->cells == 1 && !numeric &&
		    (sep = other_separator(cell, r == CELL_TOO_LONG)))
			return fail_separator(err, ln->number, cell, r == CELL_TOO_LONG, sep);
	}
	/* 0,1,...,k-1: the column names pandas writes for a plain array (to_csv with
	 * index=False), not a row of a table; two cells (0,1) may well be one */
	sh->header = !first_numeric || !numeric_rest || (counting && sh->cells >= 3);
	sh->index_by_header = sh->header && sh->cells >= 2 &&
	                      (first_index_name || (!first_numeric && numeric_rest));
	return PE_OK;
}

/* Room for one more kept row: doubling (large blocks move by remapping, not copying). */
static enum pe_status csv_room(struct rd_csv *c, char **err)
{
	if (c->kept < c->cap)
		return PE_OK;
	size_t cells = c->sh.cells;
	size_t want = c->cap ? c->cap * 2 : 64;
	if (c->r1_set && want > c->r1 - c->r0)
		want = c->r1 - c->r0;
	if (want <= c->kept)
		want = c->kept + 1;
	if (want > SIZE_MAX / sizeof(double) / cells)
		return rd_fail(err, PE_ETOOBIG, "the table is too large");
	double *grown = realloc(c->data, want * cells * sizeof(double));
	if (!grown)
		return rd_fail(err, PE_ENOMEM, "out of memory for a %zu x %zu table", want, cells);
	c->data = grown;
	c->cap = want;
	return PE_OK;
}

/*
 * One data row: every cell validated, kept when its row is wanted. The
 * first column's integer text is followed for the index rule.
 */
static enum pe_status csv_row(struct rd_csv *c, const struct line *ln, char **err)
{
	const struct csv_shape *sh = &c->sh;
	size_t row = sh->rows;
	double *dst = NULL;
	if (row >= c->r0 && row < c->r1 && !c->over) {
		/* Never more than the limit: cells without an index column are a lower bound. */
		size_t cols = sh->cells >= 2 && (sh->index_by_header ||
		                                 (c->consecutive && !c->keep_first))
		                      ? sh->cells - 1
		                      : sh->cells;
		if (c->limit && ((double)c->kept + 1.0) * (double)cols * 8.0 > (double)c->limit) {
			c->over = 1;
			free(c->data);
			c->data = NULL;
			c->cap = 0;
		} else {
			enum pe_status st = csv_room(c, err);
			if (st != PE_OK)
				return st;
			dst = c->data + c->kept * sh->cells;
		}
	}
	char cell[CELL_MAX + 1];
	const char *p = ln->p;
	size_t n, col = 0;
	int last = 0, extra = 0;
	while (!last) {
		enum cell_result r = next_cell(&p, ln->end, cell, &n, &last);
		if (col == sh->cells) {
			extra = 1;
			break;
		}
		if (r == CELL_BAD_QUOTE)
			return rd_fail(err, PE_EFORMAT, "line %zu, column %zu: unbalanced quotes",
			               ln->number, col + 1);
		double v;
		int integer;
		if (r == CELL_TOO_LONG || !parse_number(cell, &v, &integer)) {
			if (n == 0)
				return rd_fail(err, PE_EFORMAT, "line %zu, column %zu: empty cell",
				               ln->number, col + 1);
			char sep = other_separator(cell, r == CELL_TOO_LONG);
			if (sep)
				return fail_separator(err, ln->number, cell, r == CELL_TOO_LONG,
				                      sep);
			return rd_fail(err, PE_EFORMAT,
			               "line %zu, column %zu: '%.40s%s' is not a number",
			               ln->number, col + 1, cell, r == CELL_TOO_LONG ? "..." : "");
		}
		if (col == 0) {
			if (!integer || (row > 0 && v != c->previous + 1))
				c->consecutive = 0;
			c->previous = v;
		}
		if (dst)
			dst[col] = v;
		col++;
	}
	if (col != sh->cells || extra) {
		size_t found = col + extra;
		while (!last) {
			next_cell(&p, ln->end, cell, &n, &last);
			found++;
		}
		return rd_fail(err, PE_EFORMAT, "line %zu has %zu cells, expected %zu", ln->number,
		               found, sh->cells);
	}
	if (dst)
		c->kept++;
	c->sh.rows++;
	return PE_OK;
}

/* One line of text, without its newline. */
static enum pe_status csv_line(struct rd_csv *c, const char *start, const char *stop, char **err)
{
	c->line++;
	const char *e = stop;
	if (e > start && e[-1] == '\r')
		e--;
	const char *q = start;
	while (q < e && is_space(*q))
		q++;
	if (q == e || *q == '#')
		return PE_OK; /* blank, or a comment */
	struct line ln = {start, e, c->line};
	if (!c->started) {
		c->started = 1;
		enum pe_status st = csv_first(c, &ln, err);
		if (st != PE_OK || c->sh.header)
			return st;
	}
	return csv_row(c, &ln, err);
}

enum pe_status rd_csv_feed(struct rd_csv *c, const char *buf, size_t len, int eof, size_t *used,
                           char **err)
{
	*used = 0;
	const char *p = buf, *end = buf + len;
	if (!c->fed) {
		/* The first 4096 bytes decide (binary or text, a BOM): nothing before them. */
		if (len < 4096 && !eof)
			return PE_OK;
		/* NPY and safetensors are told apart before; other binary files end here. */
		if (len && memchr(buf, '\0', len < 4096 ? len : 4096))
			return rd_fail(err, PE_EFORMAT,
			               "not a text table (binary data; posenc reads .npy, "
			               ".safetensors and .csv)");
		if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
			p += 3;
		/* lines ended by CR alone (as Python's csv module reads them too): no LF in the
		 * start, and a CR followed by something else (a CR last in the window may be
		 * the first half of a CRLF) */
		size_t head = len < 4096 ? len : 4096;
		const char *cr = memchr(buf, '\r', head);
		c->eol = !memchr(buf, '\n', head) && cr && (size_t)(cr - buf) + 1 < head &&
		                         cr[1] != '\n'
		                 ? '\r'
		                 : '\n';
		c->fed = 1;
	}
	while (p < end) {
		const char *nl = memchr(p, c->eol, (size_t)(end - p));
		if (!nl && !eof)
			break;
		const char *stop = nl ? nl : end;
		enum pe_status st = csv_line(c, p, stop, err);
		if (st != PE_OK)
			return st;
		p = nl ? nl + 1 : end;
	}
	*used = (size_t)(p - buf);
	return PE_OK;
}

enum pe_status rd_csv_finish(struct rd_csv *c, struct pe_matrix **out, char **err)
{
	*out = NULL;
	const struct csv_shape *sh = &c->sh;
	enum pe_status st = PE_OK;
	size_t r0, r1;
	if (!c->started)
		st = rd_fail(err, PE_EFORMAT, "no data rows (the file is empty)");
	else if (sh->rows == 0)
		st = rd_fail(err, PE_EFORMAT, "no data rows (only a header)");
	else
		st = rd_row_range(
		        &(struct pe_read_request){NULL, c->r0, c->r1_set ? c->r1 : 0, c->r1_set, 0},
		        sh->rows, &r0, &r1, err);
	if (st != PE_OK) {
		rd_csv_abort(c);
		return st;
	}
	int consecutive = c->consecutive && !c->keep_first && sh->rows >= 2;
	int index = sh->cells >= 2 && (sh->index_by_header || consecutive);
	size_t cols = index ? sh->cells - 1 : sh->cells;
	if (c->over) {
		double bytes = (double)(r1 - r0) * (double)cols * 8.0;
		st = rd_fail(err, PE_ETOOBIG,
		             "the %zu x %zu table needs %s as float64, more than the limit "
		             "of %s",
		             r1 - r0, cols, rd_size(bytes, (char[24]){0}),
		             rd_size((double)c->limit, (char[24]){0}));
		rd_csv_abort(c);
		return st;
	}
	struct pe_matrix *m = malloc(sizeof(*m));
	if (!m) {
		rd_csv_abort(c);
		return rd_fail(err, PE_ENOMEM, "out of memory");
	}
	if (index) {
		/* Drop the index column in place. */
		for (size_t i = 0; i < c->kept; i++)
			memmove(c->data + i * cols, c->data + i * sh->cells + 1,
			        cols * sizeof(double));
	}
	m->rows = c->kept;
	m->cols = cols;
	m->data = c->data;
	/* Give back what doubling reserved beyond the table (shrinking does not move it). */
	if (c->cap > c->kept) {
		double *fit = realloc(c->data, c->kept * cols * sizeof(double));
		if (fit)
			m->data = fit;
	}
	c->data = NULL;
	rd_csv_abort(c);
	*out = m;
	return PE_OK;
}

/* Parses the file whole; the result keeps the requested rows. */
static enum pe_status csv_read(const char *buf, size_t len, const struct pe_read_request *req,
                               struct pe_matrix **out, struct csv_shape *sh, int *index, char **err)
{
	struct rd_csv *c;
	enum pe_status st = rd_csv_begin(req, 0, &c, err);
	if (st != PE_OK)
		return st;
	size_t used;
	if ((st = rd_csv_feed(c, buf, len, 1, &used, err)) != PE_OK) {
		rd_csv_abort(c);
		return st;
	}
	*sh = c->sh;
	size_t cells = c->sh.cells;
	st = rd_csv_finish(c, out, err);
	*index = st == PE_OK && (*out)->cols < cells;
	return st;
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
	struct pe_read_request first = {NULL, 0, 1, 1, 0};
	enum pe_status st = csv_read((const char *)buf, len, &first, &m, &sh, &index, err);
	if (st != PE_OK)
		return st;
	info->format = PE_FORMAT_CSV;
	info->csv_header = sh.header;
	info->csv_index = index;
	info->csv_index_guessed = index && !sh.index_by_header;
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
