/* The steps distance, corr, scatter and profile share. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "figures/figure.h"
#include "shared/memio.h"
#include "shared/npy_panels.h"
#include "shared/costs.h"
#include "shared/pairwise_cli.h"
#include "shared/progress.h"

int pw_parse_metric(const char *arg, enum pe_metric *m)
{
	if (pe_metric_parse(arg, m) != PE_OK || *m == PE_METRIC_CORR)
		return cli_usage_error("option '--metric': '%s' is not l2, cosine, l1 or linf",
		                       arg);
	return 0;
}

int pw_metric_option(void *ctx, int opt, const char *arg)
{
	(void)opt;
	return pw_parse_metric(arg, ctx);
}

int pw_prepare(struct pw_run *r)
{
	int rc = cli_schemes(&r->o, "sinusoidal", 1, &r->schemes, &r->count);
	if (rc)
		return rc;
	rc = cli_vectors_prepare(&r->o, r->schemes[0], PE_VIEW_DEFAULT, PW_DEFAULT_N, PW_DEFAULT_D,
	                         &r->v);
	if (rc)
		return rc;
	r->path = cli_output_path(&r->o, r->buf, sizeof(r->buf));
	rc = cli_output_format(&r->o, r->path, &r->format);
	if (!rc && cli_format_is_figure(r->format))
		rc = cli_figure_check_options(&r->o);
	return rc;
}

double pw_work_bytes(const struct pe_vectors *v, double rows_held, double positions)
{
	return (rows_held + 48.0) * (double)v->d * 8.0 + positions * 64.0;
}

/*
 * The seconds a pairwise output of @v should take (costs.h): an offset-
 * structured set (sinusoidal, RoPE: l2, cosine, corr) costs per value
 * written, its figure per term of its offset table and, for cosine and
 * corr, per pair of each position's sums; a general one (tables, l1, linf)
 * per term of n^2 d, its figure at most the every-pair work its grid allows
 * (pairwise_grid.c: 2^37 terms through BLAS, 2^31 without) before sampling.
 */
double pw_estimate(const struct pe_vectors *v, enum pe_metric m, enum pw_output out,
                   enum cli_format format)
{
	double n = (double)v->n, d = (double)v->d, nn = n * n;
	int structured = !v->table && v->scheme && pe_scheme_has(v->scheme, PE_CAP_TOEPLITZ) &&
	                 (m == PE_METRIC_L2 || m == PE_METRIC_COSINE || m == PE_METRIC_CORR);
	int csv = format == CLI_FORMAT_CSV, corr = m == PE_METRIC_CORR;
	if (structured) {
		if (out == PW_OUT_FILE)
			return nn * (corr ? (csv ? CLI_COST_CORR_CSV : CLI_COST_CORR_NPY)
			                  : (csv ? CLI_COST_OFFSET_CSV : CLI_COST_OFFSET_NPY));
		if (out == PW_OUT_RAW)
			return nn * (corr ? CLI_COST_CORR_RAW : CLI_COST_OFFSET_RAW);
		/* l2 needs no sums of the positions, only their norms (a quarter) */
		double sums = fmin(n, 8192.0) * (m == PE_METRIC_L2 ? 0.25 : 1.0);
		return fmin(n, 16777216.0) * d / 2 * CLI_COST_OFFSET_TERM +
		       sums * d / 2 * CLI_COST_POSITION_PAIR;
	}
	int gram = m != PE_METRIC_L1 && m != PE_METRIC_LINF && v->d >= 8;
	double build = !v->table && v->scheme ? n * d * CLI_COST_TABLE_VALUE : 0.0;
	double all = nn * d;
	if (out == PW_OUT_FIGURE) {
		/* every pair up to 2^37 terms through BLAS (2^31 without), else at most 2^31
		 * sampled */
		double most = gram ? 137438953472.0 : 2147483648.0;
		if (all > most) /* the sampled rows only, formed where needed */
			return 2147483648.0 * (gram ? CLI_COST_GRAM_TERM : CLI_COST_DIRECT_TERM);
		return build + all * (gram ? CLI_COST_GRAM_TERM : CLI_COST_DIRECT_TERM);
	}
	if (out == PW_OUT_RAW)
		return build + all * (gram ? CLI_COST_RAW_TERM : CLI_COST_DIRECT_TERM) +
		       nn * CLI_COST_OFFSET_RAW;
	return build + all * (gram ? CLI_COST_GRAM_TERM : CLI_COST_DIRECT_TERM) +
	       (csv ? nn * CLI_COST_CSV_VALUE : 0.0);
}

int pw_check_time(const struct cli_common *o, const struct pe_vectors *v, enum pe_metric m,
                  enum pw_output out, enum cli_format format)
{
	char what[128];
	const char *noun = m == PE_METRIC_CORR ? "correlation" : "distance";
	if (out == PW_OUT_FIGURE)
		snprintf(what, sizeof(what), "the %s figure of %zu positions at d=%zu", noun, v->n,
		         v->d);
	else
		snprintf(what, sizeof(what), "the %zu x %zu %s %s", v->n, v->n, noun,
		         out == PW_OUT_RAW ? "heatmap" : "matrix");
	return cli_check_time(o, pw_estimate(v, m, out, format), what,
	                      out == PW_OUT_FIGURE ? "lower -n or -d"
	                      : out == PW_OUT_RAW  ? "lower -n or -d, or draw a figure (no --raw)"
	                                           : "lower -n or -d, or draw a figure (-o x.png)");
}

const char *pw_metric_label(enum pe_metric m)
{
	switch (m) {
	case PE_METRIC_L2:
		return "L2 distance";
	case PE_METRIC_COSINE:
		return "cosine distance (1 \xe2\x88\x92 cos)";
	case PE_METRIC_L1:
		return "L1 distance";
	case PE_METRIC_LINF:
		return "L\xe2\x88\x9e distance";
	default:
		return "Pearson correlation";
	}
}

int pw_status_error(enum pe_status st, const char *what)
{
	if (cli_exit_for(st) == CLI_USAGE)
		return cli_usage_error("%s: %s", what, pe_status_str(st));
	return cli_error("%s failed: %s", what, pe_status_str(st));
}

void pw_finish(struct pw_run *r)
{
	cli_vectors_finish(&r->v);
	if (r->schemes)
		cli_schemes_free(r->schemes, r->count);
	r->schemes = NULL;
	r->count = 0;
}

/*
 * The figure needs the matrix only at its own resolution: the grid holds
 * the mean of every cell, so 10^6 positions cost what 1000 do.
 */
static int write_figure(struct pw_run *r, enum pe_metric m)
{
	const struct pe_vectors *v = &r->v.vec;
	size_t cells = cli_figure_grid_cells(&r->o, v->n);
	/* The grid, and the picture: at most 4 bytes a pixel of --width x --height. */
	double w, h;
	cli_figure_pixels(&r->o, &w, &h);
	double bytes = (double)cells * (double)cells * 8.0 + w * h * 4.0 +
	               pw_work_bytes(v, 128, (double)v->n);
	char grid_what[96];
	snprintf(grid_what, sizeof(grid_what), "the %zu x %zu grid of the figure", cells, cells);
	int rc0 = cli_check_memory(&r->o, bytes, grid_what,
	                           "draw a smaller figure (--width, --height)");
	if (rc0)
		return rc0;
	rc0 = pw_check_time(&r->o, v, m, PW_OUT_FIGURE, r->format);
	if (rc0)
		return rc0;
	/* An exact grid is computed at the heatmap's own pixels, when the layout knows them. */
	struct cli_pairwise_grid lazy = {v, m};
	int exact = pe_pairwise_grid_exact(v, m);
	struct pe_matrix *grid = NULL;
	struct pe_grid_info info = {1, 0};
	enum pe_status st = exact ? PE_OK : pe_pairwise_grid_info(v, m, cells, cells, &info, &grid);
	if (st != PE_OK)
		return pw_status_error(st, "computing the figure's grid");
	struct pe_figure *fig = pe_figure_create(1, 1);
	if (!fig) {
		pe_matrix_destroy(grid);
		return cli_error("out of memory");
	}
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_PAIRWISE);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	struct pe_heatmap_spec spec;
	if (grid) {
		pe_heatmap_spec_init(&spec, grid->rows, grid->cols, grid->data);
	} else {
		pe_heatmap_spec_init(&spec, v->n, v->n, NULL);
		spec.grid_fn = cli_pairwise_grid_fn;
		spec.grid_ctx = &lazy;
	}
	pe_heatmap_spec_set_positions(&spec, (double)v->first, v->n, (double)v->first, v->n);
	spec.is_signed = m == PE_METRIC_CORR;
	spec.equal_aspect = true;
	char cbar[96];
	/* Say when a cell is the mean of a block of pairs, not one pair, and when of a sample. */
	snprintf(cbar, sizeof(cbar), "%s%s", pw_metric_label(m),
	         !info.exact    ? " (sampled)"
	         : cells < v->n ? " (mean per cell)"
	                        : "");
	char note[160];
	if (!info.exact && pe_figure_set_note(fig, cli_sampled_note(&info, note, sizeof(note))))
		st = PE_ENOMEM;
	spec.colorbar_label = cbar;
	/* Too short a bar for the whole label: the note says the cells are sampled. */
	if (!info.exact)
		spec.colorbar_label_short = pw_metric_label(m);
	cli_heatmap_apply(&r->o, &spec);
	char title[512], label[600];
	const struct pe_scheme *s = r->schemes[0];
	cli_scheme_title(cli_short_label(s), v->d, (unsigned long long)v->first, v->n, title,
	                 sizeof(title));
	snprintf(label, sizeof(label), "%s: %s", pw_metric_label(m), title);
	st = pe_panel_set_heatmap(p, &spec);
	if (st == PE_OK)
		st = pe_panel_set_title(p, label);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "position");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, "position");
	int rc;
	if (st != PE_OK) {
		rc = cli_figure_error(st);
	} else {
		char what[96];
		snprintf(what, sizeof(what), "%zu x %zu %s heatmap", v->n, v->n,
		         m == PE_METRIC_CORR ? "correlation" : "distance");
		rc = cli_figure_write(&r->o, r->path, r->format, fig, what);
	}
	pe_figure_destroy(fig);
	pe_matrix_destroy(grid);
	return rc;
}

/* A learned or file table's matrix, a panel at a time (npy_panels.c): into
 * an NPY file in place, or in row order (text, pipes). Takes @src. */
static int write_panels(struct pw_run *r, struct pe_pairwise_rows *src)
{
	size_t n = r->v.vec.n;
	struct stat sb;
	/* a FIFO or device, like a pipe, is written in row order */
	int in_place = r->format == CLI_FORMAT_NPY && strcmp(r->path, "-") != 0 &&
	               !(stat(r->path, &sb) == 0 && !S_ISREG(sb.st_mode));
	struct cli_file file;
	int rc = cli_file_open(&file, r->path);
	if (rc) {
		pe_pairwise_rows_destroy(src);
		return rc;
	}
	int compute_failed;
	enum pe_status st;
	struct pe_axis first = {"position", (double)r->v.vec.first, 1.0, NULL};
	/* in memory (the Python package) there is no file to write at offsets */
	if (in_place && !file.direct && !file.is_stdout && !cli_memio_on)
		st = npy_panels_write(&file, src, n, r->o.dtype, &r->o, &compute_failed);
	else
		st = panels_write_ordered(&file, src, &first, n, r->format == CLI_FORMAT_CSV,
		                          r->o.dtype, &r->o, &compute_failed);
	int e = errno;
	pe_pairwise_rows_destroy(src);
	if (st != PE_OK) {
		if (compute_failed) {
			cli_file_abort(&file);
			return pw_status_error(st, "computing the matrix");
		}
		return cli_file_fail(&file, st, e);
	}
	if ((rc = cli_file_commit(&file)))
		return rc;
	char what[96];
	snprintf(what, sizeof(what), "%zu x %zu %s", n, n,
	         r->format == CLI_FORMAT_NPY
	                 ? (r->o.dtype == PE_DTYPE_F32 ? "float32 array" : "float64 array")
	                 : "table");
	cli_report_written(&r->o, r->path, what);
	return 0;
}

/* About this many bytes of rows per block of a streamed matrix. */
#define STREAM_BLOCK_BYTES (16u << 20)

/*
 * The matrix of a sinusoidal or RoPE set, or of a large general set on the
 * BLAS, a block of rows at a time: memory O(n) (plus the vectors) instead of
 * n^2, the same bytes as writing the whole matrix (the writers' pieces are
 * what pe_csv_write() and pe_npy_write() are made of).
 * @return -1 when rows of the set cannot be streamed at about the whole
 * matrix's cost (the caller writes the whole matrix), else an exit code.
 */
static int write_streamed(struct pw_run *r, enum pe_metric m)
{
	const struct pe_vectors *v = &r->v.vec;
	struct pe_pairwise_rows *src = NULL;
	int structured = pe_pairwise_has_structure(v, m);
	/* General rows (learned, file tables) on the BLAS: NPY files only,
	 * written from upper-triangle panels as they come (npy_panels.c). Text
	 * and pipes are written in row order, and rows from other products than
	 * the whole matrix's could differ from it in the last bit. */
	if (!structured && !((r->format == CLI_FORMAT_NPY || r->format == CLI_FORMAT_CSV) &&
	                     npy_panels_host_ok() && pe_pairwise_rows_streamable(v, m)))
		return -1;
	enum pe_status st = pe_pairwise_rows_create(v, m, (size_t)r->o.max_memory, &src);
	if (st != PE_OK || !pe_pairwise_rows_streams(src)) {
		pe_pairwise_rows_destroy(src);
		return -1;
	}
	if (!structured)
		return write_panels(r, src);
	size_t n = v->n, rows = STREAM_BLOCK_BYTES / 8 / n;
	rows = rows < 1 ? 1 : rows > n ? n : rows;
	/* A function of the offset alone: rows are slices of one array, never formed. */
	const double *F = pe_pairwise_rows_offsets(src);
	struct pe_offset_rows *slices = NULL;
	struct pe_matrix *block = NULL;
	if (F)
		st = pe_offset_rows_create(F, n, &slices);
	else
		st = (block = pe_matrix_create(rows, n)) ? PE_OK : PE_ENOMEM;
	if (st != PE_OK) {
		pe_pairwise_rows_destroy(src);
		return cli_error("out of memory");
	}
	struct cli_file file;
	int rc = cli_file_open(&file, r->path);
	if (rc) {
		pe_matrix_destroy(block);
		pe_offset_rows_destroy(slices);
		pe_pairwise_rows_destroy(src);
		return rc;
	}
	struct pe_axis ra = {"position", (double)v->first, 1.0, NULL};
	struct pe_axis ca = {NULL, (double)v->first, 1.0, NULL};
	size_t shape[2] = {n, n};
	if (r->format == CLI_FORMAT_NPY)
		st = pe_npy_write_header(file.f, shape, 2, r->o.dtype);
	else
		st = pe_csv_write_header(file.f, n, &ra, &ca);
	int compute_failed = 0;
	char doing[300];
	snprintf(doing, sizeof(doing), "writing %s", file.is_stdout ? "standard output" : r->path);
	struct cli_progress prog;
	cli_progress_start(&prog, &r->o, doing, n);
	for (size_t r0 = 0; r0 < n && st == PE_OK; r0 += rows) {
		cli_progress_update(&prog, r0);
		size_t count = n - r0 < rows ? n - r0 : rows;
		struct pe_axis br = {"position", (double)v->first + (double)r0, 1.0, NULL};
		if (slices) {
			st = r->format == CLI_FORMAT_NPY
			             ? pe_offset_rows_npy(slices, file.f, r0, count, r->o.dtype)
			             : pe_offset_rows_csv(slices, file.f, r0, count, &br);
			continue;
		}
		st = pe_pairwise_rows_fill(src, r0, count, block->data);
		if (st != PE_OK) {
			compute_failed = 1;
			break;
		}
		if (r->format == CLI_FORMAT_NPY) {
			st = pe_npy_write_data(file.f, block->data, count * n, r->o.dtype);
		} else {
			block->rows = count;
			st = pe_csv_write_rows(file.f, block, &br);
		}
	}
	cli_progress_end(&prog);
	if (block)
		block->rows = rows;
	pe_matrix_destroy(block);
	pe_offset_rows_destroy(slices);
	pe_pairwise_rows_destroy(src);
	if (st != PE_OK) {
		int e = errno;
		if (compute_failed) {
			cli_file_abort(&file);
			return pw_status_error(st, "computing the matrix");
		}
		/* Reports, or ends quietly by SIGPIPE when the reader went away. */
		return cli_file_fail(&file, st, e);
	}
	rc = cli_file_commit(&file);
	if (rc)
		return rc;
	char what[96];
	snprintf(what, sizeof(what), "%zu x %zu %s", n, n,
	         r->format == CLI_FORMAT_NPY
	                 ? (r->o.dtype == PE_DTYPE_F32 ? "float32 array" : "float64 array")
	                 : "table");
	cli_report_written(&r->o, r->path, what);
	return 0;
}

int pw_write_full(struct pw_run *r, enum pe_metric m, const char *noun)
{
	if (cli_format_is_figure(r->format))
		return write_figure(r, m);
	const struct pe_vectors *v = &r->v.vec;
	double bytes = 0;
	char what[128], hint[160];
	snprintf(what, sizeof(what), "the %zu x %zu %s matrix", v->n, v->n, noun);
	snprintf(hint, sizeof(hint),
	         "draw it as a figure instead (-o %s.png averages it onto the pixels) or "
	         "lower -n or -d",
	         cli_command_name ? cli_command_name : "distance");
	/* bytes is set also when n * n overflows */
	enum pe_status st = pe_pairwise_fits(v->n, v->n, 0, &bytes);
	/* The general path keeps up to a quarter of the result's size of rows. */
	double n = (double)v->n, all = n * (double)v->d * 8.0;
	double held = all < bytes / 4 ? all : bytes / 4;
	double work = pw_work_bytes(v, n < 128 ? n : 128, n);
	int rc = cli_check_memory(&r->o, bytes + held + work, what, hint);
	if (!rc)
		rc = pw_check_time(&r->o, v, m, PW_OUT_FILE, r->format);
	if (rc)
		return rc;
	/* Still refused above as a whole matrix (the budget's contract, and a
	 * guard against asking for terabytes of output); written in O(n)
	 * memory when the set allows. */
	int streamed = write_streamed(r, m);
	if (streamed >= 0)
		return streamed;
	struct pe_matrix *mat = NULL;
	snprintf(what, sizeof(what), "computing the %s matrix", noun);
	st = pe_pairwise_matrix(v, m, (size_t)r->o.max_memory, &mat);
	if (st != PE_OK)
		return pw_status_error(st, what);
	struct pe_axis rows = {"position", (double)v->first, 1.0, NULL};
	struct pe_axis cols = {NULL, (double)v->first, 1.0, NULL};
	rc = cli_write_matrix(&r->o, r->path, r->format, mat, &rows, &cols);
	pe_matrix_destroy(mat);
	return rc;
}
