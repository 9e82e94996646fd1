/*
 * figure_demo - draws every kind of figure the engine makes, at default and
 * extreme sizes, into a directory, for looking at (not a test: it checks
 * nothing). Usage: figure_demo OUTDIR
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/figure.h>

static const char *outdir = ".";

static void write_all(struct pe_figure *fig, const char *name, double w, double h)
{
	static const char *ext[3] = {"png", "svg", "pdf"};
	for (int f = 0; f < 3; f++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s.%s", outdir, name, ext[f]);
		FILE *out = fopen(path, "wb");
		if (!out) {
			perror(path);
			exit(1);
		}
		enum pe_status s = pe_figure_write(fig, (enum pe_figure_format)f, w, h, out);
		if (fclose(out) != 0 || s != PE_OK) {
			fprintf(stderr, "figure_demo: %s: %s\n", path, pe_status_str(s));
			exit(1);
		}
	}
}

/* Sinusoidal encoding PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(...). */
static double pe(double p, size_t j, size_t d)
{
	double w = pow(10000.0, -(double)(j / 2 * 2) / (double)d);
	return j % 2 ? cos(p * w) : sin(p * w);
}

static double *sinusoidal(size_t n, size_t d, double first)
{
	double *m = malloc(n * d * sizeof(double));
	for (size_t p = 0; p < n; p++)
		for (size_t j = 0; j < d; j++)
			m[p * d + j] = pe(first + (double)p, j, d);
	return m;
}

struct rows_ctx {
	size_t d;
};

static enum pe_status sin_rows(void *ctx, size_t row, double *out)
{
	struct rows_ctx *c = ctx;
	for (size_t j = 0; j < c->d; j++)
		out[j] = pe((double)row, j, c->d);
	return PE_OK;
}

static void heatmap_aspect(const char *name, size_t n, size_t d, double first, double w, double h,
                           bool equal)
{
	double *m = sinusoidal(n, d, first);
	struct pe_figure *fig = pe_figure_create(1, 1);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	struct pe_heatmap_spec spec;
	pe_heatmap_spec_init(&spec, n, d, m);
	pe_heatmap_spec_set_positions(&spec, first, n, 0, d);
	spec.is_signed = true;
	spec.equal_aspect = equal;
	spec.colorbar_label = "encoding value";
	pe_panel_set_heatmap(p, &spec);
	pe_panel_set_xlabel(p, "dimension");
	pe_panel_set_ylabel(p, "position");
	char title[128];
	snprintf(title, sizeof(title), "sinusoidal, base 10000, d = %zu, n = %zu", d, n);
	pe_figure_set_title(fig, title);
	write_all(fig, name, w, h);
	pe_figure_destroy(fig);
	free(m);
}

static void heatmap(const char *name, size_t n, size_t d, double first, double w, double h)
{
	heatmap_aspect(name, n, d, first, w, h, false);
}

static void big_heatmap(void)
{
	struct rows_ctx ctx = {4096};
	struct pe_figure *fig = pe_figure_create(1, 1);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	struct pe_heatmap_spec spec;
	pe_heatmap_spec_init(&spec, 100000, 4096, NULL);
	spec.row_fn = sin_rows;
	spec.row_ctx = &ctx;
	spec.is_signed = true;
	spec.vmin = -1;
	spec.vmax = 1;
	spec.colorbar_label = "encoding value";
	pe_panel_set_heatmap(p, &spec);
	pe_panel_set_xlabel(p, "dimension");
	pe_panel_set_ylabel(p, "position");
	pe_figure_set_title(fig, "sinusoidal, d = 4096, n = 100000 (area-averaged)");
	write_all(fig, "heatmap_100000x4096", 0, 0);
	pe_figure_destroy(fig);
}

/* Dot product of encodings at offset k, normalised: (2/d) sum cos(k w_i). */
static double decay(double k, size_t d, double base)
{
	double s = 0;
	for (size_t i = 0; i < d / 2; i++)
		s += cos(k * pow(base, -2.0 * (double)i / (double)d));
	return s / (double)(d / 2);
}

static void lines(void)
{
	enum { N = 2000 };
	static double x[N], y1[N], y2[N], y3[N], y4[N];
	for (size_t i = 0; i < N; i++) {
		x[i] = i;
		y1[i] = decay(x[i], 128, 10000);
		y2[i] = decay(x[i], 128, 10);
		y3[i] = decay(x[i], 128, 500000);
		y4[i] = decay(x[i], 16, 10000);
	}
	struct pe_figure *fig = pe_figure_create(1, 1);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	pe_panel_add_line(p, "base 10000", x, y1, N);
	pe_panel_add_line(p, "base 10", x, y2, N);
	pe_panel_add_line(p, "base 500000", x, y3, N);
	pe_panel_add_line(p, "base 10000, d = 16", x, y4, N);
	pe_panel_add_vline(p, 1024, "context 1024");
	pe_panel_set_xlabel(p, "offset k");
	pe_panel_set_ylabel(p, "mean cos(k ω)");
	pe_panel_set_title(p, "decay of the encoding dot product");
	write_all(fig, "lines", 0, 0);
	write_all(fig, "lines_small", 320, 240);
	pe_figure_destroy(fig);

	/* Wavelengths: log y over decades, log x. */
	enum { D = 64 };
	static double i2[D / 2], wl[D / 2], wl2[D / 2];
	for (size_t i = 0; i < D / 2; i++) {
		i2[i] = (double)i;
		wl[i] = 2 * 3.141592653589793 * pow(10000, 2.0 * (double)i / D);
		wl2[i] = 2 * 3.141592653589793 * pow(500000, 2.0 * (double)i / D);
	}
	fig = pe_figure_create(1, 1);
	p = pe_figure_panel(fig, 0, 0);
	pe_panel_add_line(p, "base 10000", i2, wl, D / 2);
	pe_panel_add_line(p, "base 500000", i2, wl2, D / 2);
	pe_panel_set_log(p, false, true);
	pe_panel_add_hline(p, 4096, "context 4096");
	pe_panel_set_xlabel(p, "pair index i");
	pe_panel_set_ylabel(p, "wavelength (positions)");
	write_all(fig, "freqs_log", 0, 0);
	pe_figure_destroy(fig);

	fig = pe_figure_create(1, 1);
	p = pe_figure_panel(fig, 0, 0);
	static double k[N], a1[N], a2[N];
	for (size_t i = 0; i < N; i++) {
		k[i] = pow(10, 6.0 * (double)i / (N - 1));
		a1[i] = fabs(decay(k[i], 128, 10000)) + 1e-4;
		a2[i] = fabs(decay(k[i], 128, 10)) + 1e-4;
	}
	pe_panel_add_line(p, "base 10000", k, a1, N);
	pe_panel_add_line(p, "base 10", k, a2, N);
	pe_panel_set_log(p, true, true);
	pe_panel_set_xlabel(p, "offset");
	pe_panel_set_ylabel(p, "|dot product|");
	write_all(fig, "loglog", 0, 0);
	pe_figure_destroy(fig);
}

static void scatter(size_t n, const char *name)
{
	double *x = malloc(2 * n * sizeof(double)), *y = malloc(2 * n * sizeof(double));
	srand(1);
	for (size_t i = 0; i < 2 * n; i++) {
		double u = (double)rand() / RAND_MAX, v = (double)rand() / RAND_MAX;
		double g = sqrt(-2 * log(u + 1e-12)) * cos(6.283185307 * v);
		x[i] = (double)(rand() % 256);
		y[i] = (i < n ? exp(-x[i] / 60) : 0.5 * exp(-x[i] / 20)) + 0.05 * g;
	}
	struct pe_figure *fig = pe_figure_create(1, 1);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	pe_panel_add_scatter(p, "base 10000", x, y, n);
	pe_panel_add_scatter(p, "base 10", x + n, y + n, n);
	pe_panel_set_xlabel(p, "distance");
	pe_panel_set_ylabel(p, "correlation");
	write_all(fig, name, 0, 0);
	pe_figure_destroy(fig);
	free(x);
	free(y);
}

static void grid(enum pe_color_share share, const char *name)
{
	size_t n = 256, d = 128;
	double *enc[2], *dist[2], *corr[2], *sx[2], *sy[2], *dk[2], *kx;
	double bases[2] = {10000, 10};
	kx = malloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++)
		kx[i] = (double)i;
	for (int s = 0; s < 2; s++) {
		enc[s] = malloc(n * d * sizeof(double));
		for (size_t p = 0; p < n; p++)
			for (size_t j = 0; j < d; j++) {
				double w = pow(bases[s], -(double)(j / 2 * 2) / (double)d);
				enc[s][p * d + j] = j % 2 ? cos(p * w) : sin(p * w);
			}
		dk[s] = malloc(n * sizeof(double));
		for (size_t k = 0; k < n; k++)
			dk[s][k] = decay((double)k, d, bases[s]);
		dist[s] = malloc(n * n * sizeof(double));
		corr[s] = malloc(n * n * sizeof(double));
		sx[s] = malloc(n * n * sizeof(double));
		sy[s] = malloc(n * n * sizeof(double));
		for (size_t a = 0; a < n; a++)
			for (size_t b = 0; b < n; b++) {
				double c = dk[s][a > b ? a - b : b - a];
				dist[s][a * n + b] = sqrt(fmax(0, d * (1 - c)));
				corr[s][a * n + b] = c;
				sx[s][a * n + b] = dist[s][a * n + b];
				sy[s][a * n + b] = c;
			}
	}
	struct pe_figure *fig = pe_figure_create(2, 4);
	pe_figure_set_title(fig, "sinusoidal encodings: base 10000 vs base 10 (d = 128, n = 256)");
	pe_figure_set_color_share(fig, share);
	const char *cols[4] = {"encoding", "distance", "correlation", "distance vs correlation"};
	for (int c = 0; c < 4; c++)
		pe_figure_set_col_title(fig, c, cols[c]);
	for (int s = 0; s < 2; s++) {
		pe_figure_set_row_label(fig, s, s ? "base 10" : "base 10000");
		struct pe_heatmap_spec spec;
		struct pe_panel *p = pe_figure_panel(fig, s, 0);
		pe_heatmap_spec_init(&spec, n, d, enc[s]);
		spec.is_signed = true;
		pe_panel_set_heatmap(p, &spec);
		pe_panel_set_xlabel(p, "dimension");
		pe_panel_set_ylabel(p, "position");
		p = pe_figure_panel(fig, s, 1);
		pe_heatmap_spec_init(&spec, n, n, dist[s]);
		spec.colorbar_label = "L2 distance";
		pe_panel_set_heatmap(p, &spec);
		pe_panel_set_xlabel(p, "position");
		pe_panel_set_ylabel(p, "position");
		p = pe_figure_panel(fig, s, 2);
		pe_heatmap_spec_init(&spec, n, n, corr[s]);
		spec.is_signed = true;
		pe_panel_set_heatmap(p, &spec);
		pe_panel_set_xlabel(p, "position");
		pe_panel_set_ylabel(p, "position");
		p = pe_figure_panel(fig, s, 3);
		pe_panel_add_scatter(p, NULL, sx[s], sy[s], n * n);
		pe_panel_set_xlabel(p, "L2 distance");
		pe_panel_set_ylabel(p, "correlation");
	}
	struct pe_panel *b = pe_figure_bottom_panel(fig);
	pe_panel_add_line(b, "base 10000", kx, dk[0], n);
	pe_panel_add_line(b, "base 10", kx, dk[1], n);
	pe_panel_set_xlabel(b, "offset k");
	pe_panel_set_ylabel(b, "correlation");
	pe_panel_set_title(b, "decay with offset");
	char path[64];
	snprintf(path, sizeof(path), "%s", name);
	write_all(fig, path, 1600, 1000);
	snprintf(path, sizeof(path), "%s_default", name);
	write_all(fig, path, 0, 0);
	pe_figure_destroy(fig);
	for (int s = 0; s < 2; s++) {
		free(enc[s]), free(dist[s]), free(corr[s]), free(sx[s]), free(sy[s]), free(dk[s]);
	}
	free(kx);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		outdir = argv[1];
	heatmap("heatmap", 64, 32, 0, 0, 0);
	heatmap("heatmap_8x8", 8, 8, 0, 0, 0);
	heatmap("heatmap_d2", 1000, 2, 1000, 0, 0);
	heatmap("heatmap_512x128", 512, 128, 0, 0, 0);
	heatmap("heatmap_small", 64, 32, 0, 200, 150);
	heatmap("heatmap_large", 64, 32, 0, 2560, 1920);
	heatmap("heatmap_8x4096", 8, 4096, 0, 0, 0);
	heatmap_aspect("heatmap_equal", 64, 32, 0, 0, 0, true);
	heatmap_aspect("heatmap_equal_wide", 32, 128, 0, 0, 0, true);
	heatmap("heatmap_wide_canvas", 256, 128, 0, 1200, 300);
	lines();
	scatter(3000, "scatter");
	scatter(60000, "scatter_dense");
	grid(PE_SHARE_COLUMN, "grid");
	grid(PE_SHARE_ALL, "grid_share_all");
	grid(PE_SHARE_NONE, "grid_share_none");
	if (argc > 2)
		big_heatmap();
	return 0;
}
