#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/write.h>

size_t pe_csv_format(double v, char *buf)
{
	if (isnan(v)) {
		memcpy(buf, "nan", 4);
		return 3;
	}
	if (isinf(v)) {
		strcpy(buf, v > 0 ? "inf" : "-inf");
		return v > 0 ? 3 : 4;
	}
	int n = snprintf(buf, 32, "%.17g", v);
	return n > 0 ? (size_t)n : 0;
}

/* Coordinates print as numbers; whole ones without exponent or point. */
static size_t format_coord(const struct pe_axis *a, size_t i, char *buf, size_t cap)
{
	if (a->labels) {
		size_t n = strlen(a->labels[i]);
		return n < cap ? (memcpy(buf, a->labels[i], n + 1), n) : 0;
	}
	double v = a->first + (double)i * a->step;
	int n;
	if (v == floor(v) && fabs(v) < 1e17)
		n = snprintf(buf, cap, "%.0f", v);
	else
		n = snprintf(buf, cap, "%.17g", v);
	return n > 0 ? (size_t)n : 0;
}

/* Text cells that hold a comma, quote or newline are quoted (RFC 4180). */
static int put_cell(FILE *f, const char *text)
{
	if (!strpbrk(text, ",\"\n\r"))
		return fputs(text, f) < 0 ? -1 : 0;
	if (fputc('"', f) == EOF)
		return -1;
	for (const char *c = text; *c; c++) {
		if (*c == '"' && fputc('"', f) == EOF)
			return -1;
		if (fputc(*c, f) == EOF)
			return -1;
	}
	return fputc('"', f) == EOF ? -1 : 0;
}

enum pe_status pe_csv_write(FILE *f, const struct pe_matrix *m, const struct pe_axis *rows,
			    const struct pe_axis *cols)
{
	char cell[512];
	if (put_cell(f, rows->name ? rows->name : "") != 0)
		return PE_EIO;
	for (size_t j = 0; j < m->cols; j++) {
		format_coord(cols, j, cell, sizeof(cell));
		if (fputc(',', f) == EOF || put_cell(f, cell) != 0)
			return PE_EIO;
	}
	if (fputc('\n', f) == EOF)
		return PE_EIO;

	/*
	 * Rows are formatted into memory and written in pieces of at most
	 * 64 KiB, so a row of 2^24 columns needs no 512 MiB buffer.
	 */
	size_t cap = 65536;
	char *line = malloc(cap);
	if (!line)
		return PE_ENOMEM;
	enum pe_status st = PE_OK;
	for (size_t i = 0; i < m->rows && st == PE_OK; i++) {
		format_coord(rows, i, cell, sizeof(cell));
		if (put_cell(f, cell) != 0) {
			st = PE_EIO;
			break;
		}
		size_t len = 0;
		const double *r = m->data + i * m->cols;
		for (size_t j = 0; j < m->cols && st == PE_OK; j++) {
			if (len > cap - 40) {
				if (fwrite(line, 1, len, f) != len)
					st = PE_EIO;
				len = 0;
			}
			line[len++] = ',';
			len += pe_csv_format(r[j], line + len);
		}
		line[len++] = '\n';
		if (fwrite(line, 1, len, f) != len)
			st = PE_EIO;
	}
	free(line);
	if (st == PE_OK && ferror(f))
		st = PE_EIO;
	return st;
}
