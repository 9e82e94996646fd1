/* -o x.png --raw: a matrix streamed from the library into a palette PNG (see raw.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <posenc/colormap.h>
#include <posenc/norm.h>
#include <posenc/rawpng.h>

#include "cli.h"
#include "figures/figure.h"
#include "shared/costs.h"
#include "shared/npy_panels.h"
#include "shared/output.h"
#include "shared/pairwise_cli.h"
#include "figures/raw.h"

/* A matrix that can produce any run of its rows. */
struct raw_source {
	size_t rows, cols;
	enum pe_status (*fill)(void *ctx, size_t r0, size_t count, double *dst);
	void *ctx;
};

/* Rows per request: large enough to keep both cores busy per call, small
 * enough that the buffer (8 * 64 * cols bytes: 16 MiB at 32768) stays modest. */
#define RAW_CHUNK_ROWS 64

struct chunks {
	const struct raw_source *s;
	double *buf; /* RAW_CHUNK_ROWS rows */
	size_t r0, count;
};

static enum pe_status next_row(void *ctx, size_t row, double *out)
{
	struct chunks *c = ctx;
	const struct raw_source *s = c->s;
	if (row < c->r0 || row >= c->r0 + c->count) {
		size_t count = s->rows - row < RAW_CHUNK_ROWS ? s->rows - row : RAW_CHUNK_ROWS;
		enum pe_status st = s->fill(s->ctx, row, count, c->buf);
		if (st != PE_OK)
			return st;
		c->r0 = row;
		c->count = count;
	}
	memcpy(out, c->buf + (row - c->r0) * s->cols, s->cols * sizeof(double));
	return PE_OK;
}

/* The finite range of a source, one pass over its rows. */
static enum pe_status source_range(const struct raw_source *s, double *buf, struct pe_norm *n)
{
	*n = pe_norm_empty();
	for (size_t r0 = 0; r0 < s->rows; r0 += RAW_CHUNK_ROWS) {
		size_t count = s->rows - r0 < RAW_CHUNK_ROWS ? s->rows - r0 : RAW_CHUNK_ROWS;
		enum pe_status st = s->fill(s->ctx, r0, count, buf);
		if (st != PE_OK)
			return st;
		pe_norm_add(n, buf, count * s->cols);
	}
	return PE_OK;
}

/* --cmap was checked with the figure options (cli_figure_check_options()). */
static const struct pe_colormap *pick_colormap(const struct cli_common *o, bool is_signed)
{
	const struct pe_colormap *cm = o->cmap ? pe_colormap_find(o->cmap) : NULL;
	return cm ? cm : pe_colormap_find(is_signed ? PE_COLORMAP_DIVERGING : PE_COLORMAP_DEFAULT);
}

/* @data: the data's range (may be empty); the user's limits override it. */
static int pick_norm(const struct cli_common *o, bool is_signed, struct pe_norm data,
                     struct pe_norm *out)
{
	if (pe_norm_is_empty(&data)) /* no finite cell: any scale draws it */
		data = is_signed ? (struct pe_norm){-1.0, 1.0} : (struct pe_norm){0.0, 1.0};
	if (is_signed)
		data = pe_norm_symmetric(data);
	const double *vmin = isnan(o->vmin) ? NULL : &o->vmin;
	const double *vmax = isnan(o->vmax) ? NULL : &o->vmax;
	/* Two given limits in the wrong order were refused with the options. */
	if (pe_norm_override(&data, vmin, vmax, is_signed) != PE_OK)
		return cli_usage_error("option '%s': %g lies beyond the data's other end %g; give "
		                       "both limits",
		                       vmin ? "--vmin" : "--vmax", vmin ? *vmin : *vmax,
		                       vmin ? data.vmax : data.vmin);
	*out = data;
	return 0;
}

static int stream(const struct cli_common *o, const char *path, const struct raw_source *s,
                  double *buf, const struct pe_colormap *cm, const struct pe_norm *norm)
{
	struct pe_png_options opt = pe_png_options_default();
	opt.nan_index = pe_colormap_is_diverging(cm) ? RAW_NAN_DIVERGING : RAW_NAN_SEQUENTIAL;
	struct chunks ch = {s, buf, 0, 0};
	struct cli_file file;
	int rc = cli_file_open(&file, path);
	if (rc)
		return rc;
	enum pe_status st =
	        pe_rawpng_write(file.f, s->rows, s->cols, next_row, &ch, cm, norm, &opt);
	if (st != PE_OK)
		return cli_file_fail(&file, st, errno);
	if ((rc = cli_file_commit(&file)))
		return rc;
	char what[160];
	snprintf(what, sizeof(what), "%zu x %zu raw heatmap, %s %.6g..%.6g", s->rows, s->cols,
	         pe_colormap_name(cm), norm->vmin, norm->vmax);
	cli_report_written(o, path, what);
	return 0;
}

static int check_options(const struct cli_common *o)
{
	if (cli_figure_size_given(o) || o->dpi > 0 || o->font_size > 0 || o->style)
		return cli_usage_error("options '--width'/'--height'/'--size'/'--dpi'/"
		                       "'--font-size'/'--style' do not apply to --raw: it draws "
		                       "one pixel per cell");
	return 0;
}

static double *chunk_buffer(size_t cols)
{
	return cols > SIZE_MAX / sizeof(double) / RAW_CHUNK_ROWS
	               ? NULL
	               : pe_buffer_alloc(RAW_CHUNK_ROWS * cols * sizeof(double));
}

/* ---- pairwise matrices ---- */

static enum pe_status fill_pairwise(void *ctx, size_t r0, size_t count, double *dst)
{
	return pe_pairwise_rows_fill(ctx, r0, count, dst);
}

/*
 * A learned or file table's matrix on the BLAS: its upper-triangle panels
 * go once, each cell with its mirror, into an unnamed scratch file
 * (npy_panels_write(): the page cache holds the matrix, not this process),
 * which is then read in row order for the range and the image. That is
 * the products of half the matrix, where filling rows (both triangles'
 * products) after a range pass (the upper triangle's) costs three halves;
 * the cells are the matrix's own bits, those of its NPY file.
 */
struct scratch_rows {
	int fd;
	off_t at; /* the first cell */
	size_t n;
};

static enum pe_status fill_scratch(void *ctx, size_t r0, size_t count, double *dst)
{
	const struct scratch_rows *sr = ctx;
	char *p = (char *)dst;
	size_t want = count * sr->n * sizeof(double);
	off_t at = sr->at + (off_t)(r0 * sr->n * sizeof(double));
	while (want > 0) {
		ssize_t got = pread(sr->fd, p, want, at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return PE_EIO;
		p += got;
		want -= (size_t)got;
		at += got;
	}
	return PE_OK;
}

/* The matrix of @src into a scratch file: *out open on it (the caller
 * closes it), 0; -1 when the scratch file could not be written (the caller
 * fills rows instead); else the CLI_FAILURE of a failed computation. */
static int matrix_to_scratch(const struct cli_common *o, const char *path,
                             struct pe_pairwise_rows *src, size_t n, FILE **out,
                             struct scratch_rows *sr)
{
	*out = NULL;
	struct cli_file file;
	memset(&file, 0, sizeof(file));
	if (!(file.f = npy_panels_scratch_open()))
		return -1;
	/* Only with room to spare: a folder filled to the last block would
	 * trouble everything else that writes there (the rows can be filled
	 * without the file). */
	struct statvfs fs;
	double need = (double)n * (double)n * sizeof(double);
	if (fstatvfs(fileno(file.f), &fs) != 0 ||
	    (double)fs.f_bavail * (double)fs.f_frsize < 2.0 * need) {
		fclose(file.f);
		return -1;
	}
	file.name = (char *)path; /* the progress line's name; not freed */
	int failed = 0;
	enum pe_status st = npy_panels_write(&file, src, n, PE_DTYPE_F64, o, &failed);
	off_t end = st == PE_OK ? ftello(file.f) : -1;
	if (st != PE_OK || end < 0 || fflush(file.f) != 0) {
		fclose(file.f);
		if (failed)
			return cli_error("computing the raw heatmap's cells failed: %s",
			                 pe_status_str(st));
		return -1;
	}
	sr->fd = fileno(file.f);
	sr->n = n;
	sr->at = end - (off_t)(n * n * sizeof(double));
	*out = file.f;
	return 0;
}

int write_raw(const struct cli_common *o, const char *path, const struct pe_vectors *v,
              enum pe_metric m)
{
	int rc = check_options(o);
	if (rc)
		return rc;
	bool is_signed = m == PE_METRIC_CORR;
	const struct pe_colormap *cm = pick_colormap(o, is_signed);
	/* Holding the vectors beats producing them again for every chunk of
	 * rows (learned: 5x), within a quarter of --max-memory. */
	char what[96];
	snprintf(what, sizeof(what), "the raw %zu x %zu heatmap", v->n, v->n);
	rc = cli_check_memory(o, (double)RAW_CHUNK_ROWS * (double)v->n * 8.0 + (double)v->n * 12.0,
	                      what, "ask for fewer positions (-n), or draw a figure (no --raw)");
	if (!rc)
		rc = pw_check_time(o, v, m, PW_OUT_RAW, CLI_FORMAT_PNG);
	if (rc)
		return rc;
	struct pe_pairwise_rows *src = NULL;
	size_t budget = o->max_memory / 4 > SIZE_MAX ? SIZE_MAX : (size_t)(o->max_memory / 4);
	enum pe_status st = pe_pairwise_rows_create(v, m, budget, &src);
	if (st != PE_OK)
		return cli_error("preparing the %s rows failed: %s", pe_metric_name(m),
		                 pe_status_str(st));
	struct raw_source s = {v->n, v->n, fill_pairwise, src};
	double *buf = chunk_buffer(v->n);
	struct pe_norm data = pe_norm_empty(), norm;
	FILE *scratch = NULL;
	struct scratch_rows sr;
	if (!buf) {
		rc = cli_error("writing '%s' failed: %s", path, pe_status_str(PE_ENOMEM));
		goto done;
	}
	if (pe_pairwise_rows_streams(src) && !pe_pairwise_rows_structured(src) &&
	    npy_panels_host_ok()) {
		rc = matrix_to_scratch(o, path, src, v->n, &scratch, &sr);
		if (rc > 0)
			goto done;
		rc = 0;
		if (scratch) {
			s.fill = fill_scratch;
			s.ctx = &sr;
		}
	}
	/* The data's range only where the limits depend on it: corr's
	 * symmetric scale is -1..1 (its diagonal is 1), and two given limits
	 * need nothing. */
	bool given = !isnan(o->vmin) && !isnan(o->vmax);
	bool one = !isnan(o->vmin) || !isnan(o->vmax);
	if (is_signed && !one)
		data = (struct pe_norm){-1.0, 1.0};
	else if (!given && !(is_signed && one)) {
		st = scratch ? source_range(&s, buf, &data)
		             : pe_pairwise_rows_range(src, &data.vmin, &data.vmax);
		if (st == PE_ERANGE)
			data = pe_norm_empty();
		else if (st != PE_OK) {
			rc = cli_error("the range of the %s matrix failed: %s", pe_metric_name(m),
			               pe_status_str(st));
			goto done;
		}
	}
	rc = pick_norm(o, is_signed, data, &norm);
	if (!rc)
		rc = stream(o, path, &s, buf, cm, &norm);
done:
	if (scratch)
		fclose(scratch);
	pe_buffer_free(buf);
	pe_pairwise_rows_destroy(src);
	return rc;
}

/* ---- the encoding ---- */

static enum pe_status fill_encode(void *ctx, size_t r0, size_t count, double *dst)
{
	return pe_vectors_rows(ctx, r0, count, dst);
}

int write_raw_encode(const struct cli_common *o, const char *path, const struct pe_vectors *v)
{
	int rc = check_options(o);
	if (rc)
		return rc;
	struct raw_source s = {v->n, v->d, fill_encode, (void *)v};
	/* A chunk of rows, a PNG row (RGBA at most) and libpng's own row buffers. */
	char what[96];
	snprintf(what, sizeof(what), "the raw heatmap of %zu x %zu", v->n, v->d);
	rc = cli_check_memory(o, (double)RAW_CHUNK_ROWS * (double)v->d * 8.0 + (double)v->d * 12.0,
	                      what, "choose a smaller width (-d), or draw a figure (no --raw)");
	/* every value computed and drawn; a table's rows copied (cheaper: counted alike) */
	if (!rc)
		rc = cli_check_time(
		        o, (double)v->n * (double)v->d * CLI_COST_RAW_ENCODE, what,
		        "choose a smaller width (-d) or fewer positions (-n), or draw a "
		        "figure (no --raw)");
	if (rc)
		return rc;
	double *buf = chunk_buffer(v->d);
	if (!buf)
		return cli_error("writing '%s' failed: %s", path, pe_status_str(PE_ENOMEM));
	/* Signed tables (sinusoidal, RoPE, learned) take the diverging map
	 * about 0; binary's 0/1 the sequential one. Two given limits decide
	 * without a pass over the table. */
	struct pe_norm data = {o->vmin, o->vmax}, norm;
	bool is_signed = o->vmin < 0.0;
	if (isnan(o->vmin) || isnan(o->vmax)) {
		enum pe_status st = source_range(&s, buf, &data);
		if (st != PE_OK) {
			pe_buffer_free(buf);
			return cli_error("computing the encoding failed: %s", pe_status_str(st));
		}
		is_signed = !pe_norm_is_empty(&data) && data.vmin < 0.0;
	}
	const struct pe_colormap *cm = pick_colormap(o, is_signed);
	rc = pick_norm(o, is_signed, data, &norm);
	if (!rc)
		rc = stream(o, path, &s, buf, cm, &norm);
	pe_buffer_free(buf);
	return rc;
}
