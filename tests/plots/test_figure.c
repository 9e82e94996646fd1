#include <float.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include <posenc/colormap.h>
#include <posenc/figure.h>
#include <posenc/ticks.h>

#include "fig_internal.h"
#include "pngread.h"

#define MINUS "\xe2\x88\x92"

static void assert_ticks(const struct pe_ticks *t, const double *want, size_t n)
{
	assert_int_equal(t->n, n);
	for (size_t i = 0; i < n; i++)
		assert_true(fabs(t->value[i] - want[i]) <= 1e-12 * fmax(1, fabs(want[i])));
}

static void assert_label(const struct pe_ticks *t, size_t i, const char *want)
{
	char buf[64];
	pe_tick_label(t, i, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void ticks_match_matplotlib_examples(void **state)
{
	(void)state;
	struct pe_ticks t;
	/* doc/conventions.md §11: 0,10,...,60 for N=64; 0,100,...,500 for N=512; 0,0.2,...,1. */
	pe_ticks_linear(-0.5, 63.5, 8, true, &t);
	assert_ticks(&t, (double[]){0, 10, 20, 30, 40, 50, 60}, 7);
	pe_ticks_linear(0, 63, 8, true, &t);
	assert_ticks(&t, (double[]){0, 10, 20, 30, 40, 50, 60}, 7);
	pe_ticks_linear(-0.5, 511.5, 8, true, &t);
	assert_ticks(&t, (double[]){0, 100, 200, 300, 400, 500}, 6);
	pe_ticks_linear(0, 1, 8, false, &t);
	assert_ticks(&t, (double[]){0, 0.2, 0.4, 0.6, 0.8, 1}, 6);
	assert_label(&t, 0, "0.0");
	assert_label(&t, 3, "0.6");
	assert_label(&t, 5, "1.0");
	pe_ticks_linear(-1, 1, 8, false, &t);
	assert_ticks(&t, (double[]){-1, -0.5, 0, 0.5, 1}, 5);
	assert_label(&t, 0, MINUS "1.0");
	assert_label(&t, 1, MINUS "0.5");
	assert_label(&t, 2, "0.0");
	/* Positions 1000..1999 as cells. */
	pe_ticks_linear(999.5, 1999.5, 8, true, &t);
	assert_ticks(&t, (double[]){1000, 1200, 1400, 1600, 1800}, 5);
	/* 8 cells: every index. */
	pe_ticks_linear(-0.5, 7.5, 8, true, &t);
	assert_ticks(&t, (double[]){0, 1, 2, 3, 4, 5, 6, 7}, 8);
	/* One cell: integer ticks never invent fractional positions. */
	pe_ticks_linear(-0.5, 0.5, 8, true, &t);
	assert_ticks(&t, (double[]){0}, 1);
	pe_ticks_linear(2.5, 2.5, 8, false, &t);
	assert_ticks(&t, (double[]){2.5}, 1);
	pe_ticks_linear(NAN, 1, 8, false, &t);
	assert_int_equal(t.n, 0);
}

static void ticks_tiny_and_huge_ranges(void **state)
{
	(void)state;
	struct pe_ticks t;
	pe_ticks_linear(0.9999, 1.0001, 8, false, &t);
	assert_ticks(&t, (double[]){0.9999, 0.99995, 1.0, 1.00005, 1.0001}, 5);
	assert_label(&t, 0, "0.99990");
	assert_label(&t, 1, "0.99995");
	assert_label(&t, 2, "1.00000");
	assert_label(&t, 4, "1.00010");
	pe_ticks_linear(0, 1e12, 8, false, &t);
	assert_ticks(&t, (double[]){0, 2e11, 4e11, 6e11, 8e11, 1e12}, 6);
	assert_label(&t, 0, "0");
	assert_label(&t, 1,
	             "0.2\xc3\x97"
	             "10\xc2\xb9\xc2\xb2");
	pe_ticks_linear(-3e-6, 3e-6, 8, false, &t);
	assert_ticks(&t, (double[]){-3e-6, -2e-6, -1e-6, 0, 1e-6, 2e-6, 3e-6}, 7);
	assert_label(&t, 0,
	             MINUS "3\xc3\x97"
	                   "10\xe2\x81\xbb\xe2\x81\xb6");
	/* Positions near 10^7 on a short range: plain numbers, not 1.000006×10⁷. */
	pe_ticks_linear(1e7 - 0.5, 1e7 + 63.5, 8, true, &t);
	assert_label(&t, 0, "10000000");
	assert_label(&t, 6, "10000060");
	pe_ticks_linear(0, 5e9, 8, true, &t);
	assert_label(&t, 1,
	             "1\xc3\x97"
	             "10\xe2\x81\xb9");
	pe_ticks_linear(0, 1e6, 8, true, &t);
	assert_ticks(&t, (double[]){0, 2e5, 4e5, 6e5, 8e5, 1e6}, 6);
	assert_label(&t, 5, "1000000");
}

/* Properties over many ranges: 2..max ticks, inside, evenly spaced, labels distinct. */
static void ticks_properties_on_random_ranges(void **state)
{
	(void)state;
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (int k = 0; k < 20000; k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double a = ((double)(x >> 11) / 9007199254740992.0 - 0.5) *
		           pow(10, (int)(x % 25) - 12);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double b = a + (double)(x >> 11) / 9007199254740992.0 * pow(10, (int)(x % 25) - 12);
		/* Ranges a double can split into distinct labelled ticks. */
		if (!(b - a > 1e-9 * fabs(a)))
			continue;
		size_t max = 2 + x % 12;
		struct pe_ticks t;
		pe_ticks_linear(a, b, max, false, &t);
		assert_true(t.n >= 2 && t.n <= max);
		char prev[64] = "", cur[64];
		for (size_t i = 0; i < t.n; i++) {
			double v = t.value[i];
			assert_true(v >= a - 1e-9 * (b - a) && v <= b + 1e-9 * (b - a));
			if (i > 0)
				assert_true(v > t.value[i - 1]);
			if (i > 0)
				if (!(fabs(v - t.value[i - 1] - t.step) <
				      1e-6 * t.step + 1e-15 * fabs(v)))
					fail_msg("[%.17g, %.17g] max %zu: %.17g after %.17g, step "
					         "%.17g",
					         a, b, max, v, t.value[i - 1], t.step);
			pe_tick_label(&t, i, cur, sizeof(cur));
			assert_string_not_equal(cur, prev);
			strcpy(prev, cur);
		}
	}
}

/* The outermost multiples of each 1-2-5 step, by hand: 0..95 (a 96-dimension heatmap's
 * cells -0.5..95.5) is 0 and 50 at step 50, 0 and 80 at 20, 0 and 90 at 10, 0 and 95 at 5;
 * steps below 1 are not whole, so an integer axis stops there. */
static void ticks_ends_by_hand(void **state)
{
	(void)state;
	struct pe_ticks t;
	static const double want[][2] = {{0, 50}, {0, 80}, {0, 90}, {0, 95}, {0, 94}, {0, 95}};
	int i = 0;
	for (; pe_ticks_ends(-0.5, 95.5, true, i, &t); i++) {
		assert_true(i < 6);
		assert_int_equal(t.n, 2);
		assert_true(t.value[0] == want[i][0] && t.value[1] == want[i][1]);
		assert_true(t.step == want[i][1] - want[i][0]);
	}
	assert_int_equal(i, 6);
	/* a range narrower than the step: no two ticks at 5 x 10^0 in 0.2..4.9, then 2 and 4 */
	assert_true(pe_ticks_ends(0.2, 4.9, false, 0, &t));
	assert_int_equal(t.n, 0);
	assert_true(pe_ticks_ends(0.2, 4.9, false, 1, &t));
	assert_int_equal(t.n, 2);
	assert_true(t.value[0] == 2 && t.value[1] == 4);
	/* tenths: -0.35..0.35 at step 0.2 is -0.2 and 0.2 with one decimal; no -0 */
	assert_true(pe_ticks_ends(-0.35, 0.35, false, 1, &t));
	assert_true(t.n == 2 && t.value[0] == -0.2 && t.value[1] == 0.2 && t.decimals == 1);
	assert_true(pe_ticks_ends(-0.35, 0.35, false, 2, &t));
	assert_true(t.n == 2 && t.value[0] == -0.3 && t.value[1] == 0.3);
	/* limits near +-DBL_MAX: a span of 3.6e308 is the decade 1e308, whose 5 and 2 overflow
	 * (no two ticks), then 1e308 gives -1e308 and 1e308 */
	assert_true(pe_ticks_ends(-DBL_MAX, DBL_MAX, false, 0, &t));
	assert_int_equal(t.n, 0);
	assert_true(pe_ticks_ends(-DBL_MAX, DBL_MAX, false, 2, &t));
	assert_true(t.n == 2 && t.value[0] == -1e308 && t.value[1] == 1e308);
	assert_false(pe_ticks_ends(1, 1, false, 0, &t));
	assert_false(pe_ticks_ends(0, NAN, false, 0, &t));
}

static void ticks_log(void **state)
{
	(void)state;
	struct pe_ticks t;
	pe_ticks_log(1, 1e6, 8, &t);
	assert_ticks(&t, (double[]){1, 10, 100, 1e3, 1e4, 1e5, 1e6}, 7);
	assert_label(&t, 0, "10\xe2\x81\xb0");
	assert_label(&t, 3, "10\xc2\xb3");
	assert_true(t.n_minor > 0);
	pe_ticks_log(1e-3, 1e9, 6, &t);
	assert_ticks(&t, (double[]){1e-3, 1, 1e3, 1e6, 1e9}, 5);
	assert_label(&t, 0, "10\xe2\x81\xbb\xc2\xb3");
	assert_int_equal(t.n_minor, 0);
	pe_ticks_log(0.7, 150, 8, &t);
	assert_ticks(&t, (double[]){1, 10, 100}, 3);
	/* Less than a decade: 1-2-5 steps. */
	pe_ticks_log(2, 30, 8, &t);
	assert_ticks(&t, (double[]){2, 5, 10, 20}, 4);
	assert_label(&t, 0, "2");
	assert_label(&t, 3, "20");
	pe_ticks_log(0.015, 0.3, 8, &t);
	assert_ticks(&t, (double[]){0.02, 0.05, 0.1, 0.2}, 4);
	assert_label(&t, 0, "0.02");
	/* Too narrow for two 1-2-5 ticks: linear ticks. */
	pe_ticks_log(1.1, 1.9, 8, &t);
	assert_ticks(&t, (double[]){1.2, 1.4, 1.6, 1.8}, 4);
	pe_ticks_log(0, 10, 8, &t);
	assert_int_equal(t.n, 0);
}

static void numbers_use_unicode_minus(void **state)
{
	(void)state;
	char buf[32];
	pe_format_number(-1.5, 1, buf, sizeof(buf));
	assert_string_equal(buf, MINUS "1.5");
	pe_format_number(-0.0001, 2, buf, sizeof(buf));
	assert_string_equal(buf, "0.00");
	pe_format_number(-0.0, 0, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	pe_format_number(42, 0, buf, sizeof(buf));
	assert_string_equal(buf, "42");
}

/* Fitted ticks never overlap: the gap between neighbours holds the widest label. */
static void fitted_ticks_never_overlap(void **state)
{
	(void)state;
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 10, 10);
	cairo_t *cr = cairo_create(s);
	struct pe_figure *fig = pe_figure_create(1, 1);
	struct fig_style st;
	figure_style(fig, PE_FIGURE_PNG, 640, 480, &st);
	const double ranges[][2] = {{0, 1e6},  {-0.5, 99999.5}, {0.9999, 1.0001}, {-1, 1},
	                            {0, 1e12}, {-3e-6, 3e-6},   {-123456, 7}};
	for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++)
		for (double len = 30; len < 3000; len *= 1.3) {
			struct axis a = {.lo = ranges[r][0], .hi = ranges[r][1]};
			axis_fit_ticks(cr, &st, &a, len, true);
			assert_true(a.ticks.n >= 1);
			double w = axis_label_width(cr, &a);
			for (size_t i = 1; i < a.ticks.n; i++) {
				double gap = axis_map(&a, a.ticks.value[i], 0, len) -
				             axis_map(&a, a.ticks.value[i - 1], 0, len);
				assert_true(gap >= w);
			}
			axis_fit_ticks(cr, &st, &a, len, false);
			text_font(cr, &st, TEXT_TICK);
			for (size_t i = 1; i < a.ticks.n; i++) {
				double gap = axis_map(&a, a.ticks.value[i], 0, len) -
				             axis_map(&a, a.ticks.value[i - 1], 0, len);
				assert_true(gap >= 1.5 * text_cap(cr));
			}
		}
	pe_figure_destroy(fig);
	cairo_destroy(cr);
	cairo_surface_destroy(s);
}

/* ---- whole figures ---- */

static double *pattern(size_t rows, size_t cols)
{
	double *m = malloc(rows * cols * sizeof(double));
	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < cols; j++)
			m[i * cols + j] = sin((double)i * pow(10000, -(double)(j & ~1u) / cols) +
			                      (j % 2) * 1.5707963267948966);
	return m;
}

static double line_x[500], line_y[3][500];

/* Every kind of panel, with long texts, so margins are tested at their worst. */
static struct pe_figure *sample_figure(int kind, double *data, size_t rows, size_t cols)
{
	struct pe_figure *fig = pe_figure_create(kind == 2 ? 2 : 1, kind == 2 ? 3 : 1);
	pe_figure_set_title(fig, "A rather long figure title that must never leave the canvas");
	struct pe_heatmap_spec spec;
	pe_heatmap_spec_init(&spec, rows, cols, data);
	pe_heatmap_spec_set_positions(&spec, 100000, rows, 0, cols);
	spec.is_signed = true;
	spec.colorbar_label = "encoding value";
	for (size_t i = 0; i < 500; i++) {
		line_x[i] = (double)i * 1000 + 1;
		for (int s = 0; s < 3; s++)
			line_y[s][i] = exp(-(double)i / (20.0 * (s + 1))) * 1e3 + 1e-3;
	}
	if (kind == 0) {
		struct pe_panel *p = pe_figure_panel(fig, 0, 0);
		assert_int_equal(pe_panel_set_heatmap(p, &spec), PE_OK);
		pe_panel_set_xlabel(p, "dimension");
		pe_panel_set_ylabel(p, "position");
	} else if (kind == 1) {
		struct pe_panel *p = pe_figure_panel(fig, 0, 0);
		for (int s = 0; s < 3; s++)
			assert_int_equal(pe_panel_add_line(p, s ? "another scheme" : "scheme",
			                                   line_x, line_y[s], 500),
			                 PE_OK);
		pe_panel_set_log(p, true, true);
		pe_panel_add_vline(p, 4096, "context 4096");
		pe_panel_add_hline(p, 1, "critical");
		pe_panel_set_xlabel(p, "offset");
		pe_panel_set_ylabel(p, "value");
	} else {
		pe_figure_set_color_share(fig, PE_SHARE_COLUMN);
		for (unsigned r = 0; r < 2; r++) {
			pe_figure_set_row_label(fig, r, r ? "base 10" : "base 10000");
			for (unsigned c = 0; c < 2; c++) {
				struct pe_panel *p = pe_figure_panel(fig, r, c);
				assert_int_equal(pe_panel_set_heatmap(p, &spec), PE_OK);
				pe_panel_set_xlabel(p, "dimension");
				pe_panel_set_ylabel(p, "position");
			}
			struct pe_panel *p = pe_figure_panel(fig, r, 2);
			pe_panel_add_scatter(p, "pairs", line_x, line_y[r], 500);
		}
		pe_figure_set_col_title(fig, 0, "encoding");
		struct pe_panel *b = pe_figure_bottom_panel(fig);
		pe_panel_add_line(b, "a", line_x, line_y[0], 500);
		pe_panel_add_line(b, "b", line_x, line_y[1], 500);
		pe_panel_set_xlabel(b, "offset");
	}
	return fig;
}

static void nothing_leaves_the_canvas(void **state)
{
	(void)state;
	double *m = pattern(300, 64);
	const double sizes[][2] = {{640, 480},  {200, 150},   {320, 240},  {2000, 400},
	                           {400, 2000}, {1600, 1000}, {3000, 3000}};
	for (int kind = 0; kind < 3; kind++)
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			double w = sizes[k][0], h = sizes[k][1];
			if (kind == 2 && w < 300)
				continue; /* a 2 x 3 grid with a bottom panel needs more room */
			struct pe_figure *fig = sample_figure(kind, m, 300, 64);
			cairo_surface_t *rec =
			        cairo_recording_surface_create(CAIRO_CONTENT_COLOR, NULL);
			cairo_t *cr = cairo_create(rec);
			struct fig_style st;
			figure_style(fig, PE_FIGURE_PDF, w, h, &st);
			enum pe_status s = figure_render(fig, cr, &st, w, h);
			if (s != PE_OK)
				fail_msg("kind %d at %gx%g: %s", kind, w, h, pe_status_str(s));
			cairo_destroy(cr);
			double x0, y0, iw, ih;
			cairo_recording_surface_ink_extents(rec, &x0, &y0, &iw, &ih);
			if (x0 < -0.01 || y0 < -0.01 || x0 + iw > w + 0.01 || y0 + ih > h + 0.01)
				fail_msg("kind %d at %gx%g: ink %g,%g %gx%g", kind, w, h, x0, y0,
				         iw, ih);
			cairo_surface_destroy(rec);
			pe_figure_destroy(fig);
		}
	free(m);
}

static FILE *write_figure(struct pe_figure *fig, enum pe_figure_format f, double w, double h)
{
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	assert_int_equal(pe_figure_write(fig, f, w, h, tmp), PE_OK);
	fflush(tmp);
	return tmp;
}

static void png_has_the_asked_size(void **state)
{
	(void)state;
	double *m = pattern(64, 32);
	const double sizes[][3] = {{0, 0}, {640, 480}, {200, 150}, {1000, 300}, {333.4, 777.6}};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct pe_figure *fig =
		        sample_figure(sizes[k][0] >= 300 ? (int)k % 3 : 0, m, 64, 32);
		FILE *f = write_figure(fig, PE_FIGURE_PNG, sizes[k][0], sizes[k][1]);
		struct decoded d;
		assert_int_equal(decode_png(f, &d), 0);
		unsigned want_w = sizes[k][0] ? (unsigned)round(sizes[k][0]) : 640;
		unsigned want_h = sizes[k][1] ? (unsigned)round(sizes[k][1]) : 480;
		assert_int_equal(d.width, want_w);
		assert_int_equal(d.height, want_h);
		decoded_free(&d);
		fclose(f);
		pe_figure_destroy(fig);
	}
	/* Too small for its panels even with the smallest text: an error, not a mess. */
	struct pe_figure *fig = sample_figure(2, m, 64, 32);
	FILE *f = tmpfile();
	assert_int_equal(pe_figure_write(fig, PE_FIGURE_PNG, 120, 90, f), PE_ERANGE);
	pe_figure_destroy(fig);
	fig = sample_figure(0, m, 64, 32);
	assert_int_equal(pe_figure_write(fig, PE_FIGURE_PNG, 40000, 100, f), PE_ERANGE);
	assert_int_equal(pe_figure_write(fig, PE_FIGURE_PNG, 5, 100, f), PE_ERANGE);
	fclose(f);
	pe_figure_destroy(fig);
	free(m);
}

static char *slurp(FILE *f, size_t *len)
{
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	char *buf = malloc(*len + 1);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	buf[*len] = '\0';
	return buf;
}

/* strstr() for binary data (PDF streams hold NUL bytes). */
static bool contains(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(hay + i, needle, n))
			return true;
	return false;
}

static void svg_and_pdf_are_well_formed(void **state)
{
	(void)state;
	double *m = pattern(64, 32);
	for (int kind = 0; kind < 3; kind++) {
		struct pe_figure *fig = sample_figure(kind, m, 64, 32);
		FILE *f = write_figure(fig, PE_FIGURE_PDF, 0, 0);
		size_t len;
		char *pdf = slurp(f, &len);
		fclose(f);
		assert_true(len > 100);
		assert_memory_equal(pdf, "%PDF-", 5);
		/* The trailer ends with %%EOF and at most a line ending. */
		const char *end = pdf + len - 5;
		while (end > pdf && (end[4] == '\n' || end[4] == '\r'))
			end--;
		assert_memory_equal(end, "%%EOF", 5);
		assert_true(contains(pdf, len, "/FontFile2")); /* embedded TrueType: vector text */
		free(pdf);

		f = write_figure(fig, PE_FIGURE_SVG, 500, 300);
		char *svg = slurp(f, &len);
		assert_non_null(strstr(svg, "width=\"500pt\""));
		assert_non_null(strstr(svg, "height=\"300pt\""));
		free(svg);
		/* An independent XML parser must accept it. */
		char path[] = "/tmp/test_figure_XXXXXX";
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		FILE *o = fdopen(fd, "wb");
		rewind(f);
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, o);
		fclose(o);
		fclose(f);
		char cmd[256];
		snprintf(cmd, sizeof(cmd),
		         "python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' %s",
		         path);
		assert_int_equal(system(cmd), 0);
		remove(path);
		pe_figure_destroy(fig);
	}
	free(m);
}

/* Find the palette entry of viridis closest to an RGB pixel. */
static int nearest_entry(const unsigned char pal[256][3], const unsigned char *px)
{
	int best = -1, bd = 1 << 30;
	for (int i = 0; i < 256; i++) {
		int d = 0;
		for (int c = 0; c < 3; c++)
			d += (pal[i][c] - px[c]) * (pal[i][c] - px[c]);
		if (d < bd)
			bd = d, best = i;
	}
	return bd <= 3 ? best : -1;
}

static void heatmap_pixels_row0_on_top_and_area_averaged(void **state)
{
	(void)state;
	unsigned char pal[256][3];
	pe_colormap_palette(pe_colormap_find("viridis"), pal);
	/* Rows 0..1 hold 0, rows 2..3 hold 1; columns alternate 0/1 in rows 4..5 (1000 wide). */
	enum { R = 6, C = 1000 };
	static double m[R * C];
	for (size_t j = 0; j < C; j++) {
		m[0 * C + j] = m[1 * C + j] = 0;
		m[2 * C + j] = m[3 * C + j] = 1;
		m[4 * C + j] = m[5 * C + j] = (double)(j % 2);
	}
	struct pe_figure *fig = pe_figure_create(1, 1);
	struct pe_heatmap_spec spec;
	pe_heatmap_spec_init(&spec, R, C, m);
	assert_int_equal(pe_panel_set_heatmap(pe_figure_panel(fig, 0, 0), &spec), PE_OK);
	FILE *f = write_figure(fig, PE_FIGURE_PNG, 640, 480);
	struct decoded d;
	assert_int_equal(decode_png(f, &d), 0);
	assert_int_equal(d.channels, 3);
	/* Walk down the middle column: the first coloured band must be entry 0. */
	unsigned x = d.width * 2 / 5;
	int bands[8], nb = 0, last = -2;
	for (unsigned y = 0; y < d.height && nb < 8; y++) {
		int e = nearest_entry(pal, decoded_px(&d, x, y));
		if (e >= 0 && e != last)
			bands[nb++] = e;
		last = e;
	}
	assert_true(nb >= 3);
	assert_int_equal(bands[0], 0);
	assert_int_equal(bands[1], 255);
	/* The alternating rows: every pixel a mean near 0.5, never a 0 or 1 stripe (moire). */
	assert_true(bands[2] >= 112 && bands[2] <= 144);
	unsigned y = 0;
	while (y < d.height && nearest_entry(pal, decoded_px(&d, x, y)) != bands[2])
		y++;
	y += 3; /* away from the band's edge */
	/* Along that image row, from x out to the frame on either side. */
	int seen = 0;
	for (int dir = -1; dir <= 1; dir += 2)
		for (int xx = (int)x; xx >= 0 && xx < (int)d.width; xx += dir) {
			int e = nearest_entry(pal, decoded_px(&d, (unsigned)xx, y));
			if (e < 0)
				break;
			seen++;
			assert_true(e >= 100 && e <= 156);
		}
	assert_true(seen > 400);
	decoded_free(&d);
	fclose(f);
	pe_figure_destroy(fig);
}

/*
 * nearest: cells that must not be averaged (angles mod 2 pi) stay pure where
 * the cells outnumber the pixels: 1000 columns alternating 0 and 1 drawn in
 * about 500 pixels show entries 0 and 255 only, never the mean 0.5.
 */
static void heatmap_nearest_never_averages(void **state)
{
	(void)state;
	unsigned char pal[256][3];
	pe_colormap_palette(pe_colormap_find("viridis"), pal);
	enum { R = 2, C = 1000 };
	static double m[R * C];
	for (size_t j = 0; j < R * C; j++)
		m[j] = (double)(j % 2);
	struct pe_figure *fig = pe_figure_create(1, 1);
	struct pe_heatmap_spec spec;
	pe_heatmap_spec_init(&spec, R, C, m);
	spec.nearest = true;
	assert_int_equal(pe_panel_set_heatmap(pe_figure_panel(fig, 0, 0), &spec), PE_OK);
	FILE *f = write_figure(fig, PE_FIGURE_PNG, 640, 480);
	struct decoded d;
	assert_int_equal(decode_png(f, &d), 0);
	unsigned y = d.height / 2, seen = 0, ends = 0;
	for (unsigned x = 0; x < d.width; x++) {
		int e = nearest_entry(pal, decoded_px(&d, x, y));
		if (e < 0)
			continue;
		seen++;
		ends += e == 0 || e == 255;
	}
	/* Every heatmap pixel of the row (the colorbar's ramp lies in another column range,
	 * right of the frame: allow its width). */
	assert_true(seen > 300);
	assert_true(ends + 40 >= seen);
	decoded_free(&d);
	fclose(f);
	pe_figure_destroy(fig);
}

/*
 * An ellipsis never cuts a number: "sinusoidal base=10000" with room for
 * "sinusoidal base=100" must not read "base=100..." (another base).
 */
static void ellipsis_never_cuts_a_number(void **state)
{
	(void)state;
	cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 8, 8);
	cairo_t *cr = cairo_create(surf);
	text_face(cr, false);
	cairo_set_font_size(cr, 10);
	char buf[64];
	const char *s = "sinusoidal base=10000";
	const char *t = text_fit(cr, s, text_width(cr, "sinusoidal base=100\xe2\x80\xa6") + 0.1,
	                         buf, sizeof(buf));
	assert_string_equal(t, "sinusoidal base=\xe2\x80\xa6");
	/* A cut between words or after a whole number stays where it is. */
	t = text_fit(cr, "rope base=500000 scaling=llama3",
	             text_width(cr, "rope base=500000 scal\xe2\x80\xa6") + 0.1, buf, sizeof(buf));
	assert_string_equal(t, "rope base=500000 scal\xe2\x80\xa6");
	t = text_fit(cr, "decay of 0.25 and more", text_width(cr, "decay of 0.2\xe2\x80\xa6") + 0.1,
	             buf, sizeof(buf));
	assert_string_equal(t, "decay of\xe2\x80\xa6");
	/* What fits is left alone. */
	assert_ptr_equal(text_fit(cr, s, 1e9, buf, sizeof(buf)), s);
	cairo_destroy(cr);
	cairo_surface_destroy(surf);
}

/*
 * A word too long for its line breaks after '=' (a spec's "base=10000" beside a short row),
 * never between the digits of a number ("qwen2.5" stays whole); what cannot break is cut and
 * says so.
 */
static void wrap_breaks_after_equals(void **state)
{
	(void)state;
	cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 8, 8);
	cairo_t *cr = cairo_create(surf);
	text_face(cr, true);
	cairo_set_font_size(cr, 10);
	char out[TEXT_MAX_LINES][TEXT_LINE_CAP];
	bool cut = true;
	/* Room for "sinusoidal" and for "base=", not for "base=10000". */
	double room = fmax(text_width(cr, "sinusoidal"), text_width(cr, "base=")) + 0.1;
	assert_true(text_width(cr, "base=10000") > room);
	int n = text_wrap_cut(cr, "sinusoidal base=10000", room, 3, out, &cut);
	assert_int_equal(n, 3);
	assert_string_equal(out[0], "sinusoidal");
	assert_string_equal(out[1], "base=");
	assert_string_equal(out[2], "10000");
	assert_false(cut);
	/* "qwen2.5-7b-yarn" in room for "qwen2.5-" but not "qwen2.5-7b-": after the hyphen,
	 * not after "qwen2." (the dot lies inside 2.5). */
	room = text_width(cr, "qwen2.5-") + 0.1;
	n = text_wrap_cut(cr, "qwen2.5-7b-yarn", room, 3, out, &cut);
	assert_int_equal(n, 2);
	assert_string_equal(out[0], "qwen2.5-");
	assert_string_equal(out[1], "7b-yarn");
	assert_false(cut);
	room = text_width(cr, "qwen2.") + 0.1;
	text_wrap_cut(cr, "qwen2.5-7b-yarn", room, 2, out, &cut);
	assert_true(cut);
	/* A lone word with nowhere to break: cut, and said so. */
	n = text_wrap_cut(cr, "correlation", text_width(cr, "corr") + 0.1, 2, out, &cut);
	assert_int_equal(n, 1);
	assert_true(cut);
	cairo_destroy(cr);
	cairo_surface_destroy(surf);
}

/* Lines of a wrap joined back with spaces: the text, when no word was broken or cut. */
static void joined(char out[][TEXT_LINE_CAP], int n, char *buf, size_t cap)
{
	buf[0] = '\0';
	for (int k = 0; k < n; k++) {
		if (k)
			strncat(buf, " ", cap - strlen(buf) - 1);
		strncat(buf, out[k], cap - strlen(buf) - 1);
	}
}

/* Whether some line of out is exactly want. */
static bool has_line(char out[][TEXT_LINE_CAP], int n, const char *want)
{
	for (int k = 0; k < n; k++)
		if (strcmp(out[k], want) == 0)
			return true;
	return false;
}

/*
 * Two lines are as even as the words allow, not a full line and an orphan: of every break
 * at a space (enumerated here), the one whose longer line is shortest. A number keeps its
 * unit ("32640 pairs", "252 pt"), a factor its word ("yarn ×8"), a short parenthesised
 * group its words, and "128k" is never split; a group wider than the line still breaks.
 */
static void wrap_is_balanced_and_keeps_units(void **state)
{
	(void)state;
	cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 8, 8);
	cairo_t *cr = cairo_create(surf);
	text_face(cr, false);
	cairo_set_font_size(cr, 10);
	char out[TEXT_MAX_LINES][TEXT_LINE_CAP], buf[512];
	bool cut = true;

	/* Greedy filling would leave "apart" alone on the second line. */
	const char *s = "decay: mean dot product of positions k apart";
	double room = text_width(cr, "decay: mean dot product of positions k") + 0.1;
	assert_true(text_width(cr, s) > room);
	int n = text_wrap_cut(cr, s, room, 3, out, &cut);
	assert_int_equal(n, 2);
	assert_false(cut);
	joined(out, n, buf, sizeof(buf));
	assert_string_equal(buf, s);
	double best = INFINITY;
	char first[128];
	for (const char *sp = strchr(s, ' '); sp; sp = strchr(sp + 1, ' ')) {
		char a[128];
		snprintf(a, sizeof(a), "%.*s", (int)(sp - s), s);
		double wider = fmax(text_width(cr, a), text_width(cr, sp + 1));
		if (wider < best && text_width(cr, a) <= room && text_width(cr, sp + 1) <= room) {
			best = wider;
			snprintf(first, sizeof(first), "%s", a);
		}
	}
	assert_string_equal(out[0], first);
	assert_string_equal(out[0], "decay: mean dot product");

	/* A number and its unit: room ends just after "32640". */
	s = "Scatter: 8128 of the 32640 pairs, evenly spaced.";
	room = text_width(cr, "Scatter: 8128 of the 32640") + 0.1;
	n = text_wrap_cut(cr, s, room, 3, out, &cut);
	assert_false(cut);
	joined(out, n, buf, sizeof(buf));
	assert_string_equal(buf, s);
	assert_non_null(strstr(buf, "32640 pairs"));
	for (int k = 0; k < n; k++)
		assert_true(strcmp(out[k] + strlen(out[k]) - 5, "32640") != 0);
	room = text_width(cr, "a figure 252") + 0.1;
	n = text_wrap_cut(cr, "a figure 252 pt wide", room, 3, out, &cut);
	assert_true(has_line(out, n, "252 pt wide") || has_line(out, n, "252 pt"));

	/* A factor stays with its scaling; the short group in parentheses stays whole. */
	s = "RoPE scaling: llama-3.1-8b (yarn \xc3\x97"
	    "8)";
	room = text_width(cr, "RoPE scaling: llama-3.1-8b (yarn") + 0.1;
	n = text_wrap_cut(cr, s, room, 3, out, &cut);
	assert_int_equal(n, 2);
	joined(out, n, buf, sizeof(buf));
	assert_string_equal(buf, s);
	assert_non_null(strstr(out[1], "(yarn \xc3\x97"
	                               "8)"));
	room = text_width(cr, "dynamic") + 0.1;
	n = text_wrap_cut(cr, "dynamic x8", room, 3, out, &cut);
	assert_int_equal(n, 2); /* the pair is wider than the line: it breaks after all */
	room = text_width(cr, "scaling dynamic x8") + 0.1;
	n = text_wrap_cut(cr, "scaling dynamic x8 at length 8192", room, 3, out, &cut);
	joined(out, n, buf, sizeof(buf));
	assert_string_equal(buf, "scaling dynamic x8 at length 8192");
	for (int k = 0; k < n; k++)
		assert_true(strncmp(out[k], "x8", 2) != 0);

	/* "128k" whole: a model name wider than its line breaks after a hyphen only. */
	room = text_width(cr, "phi-3-mini-12") + 0.1;
	n = text_wrap_cut(cr, "phi-3-mini-128k", room, 3, out, &cut);
	assert_false(cut);
	joined(out, n, buf, sizeof(buf));
	assert_non_null(strstr(out[n - 1], "128k"));
	for (int k = 0; k < n; k++)
		assert_true(out[k][strlen(out[k]) - 1] == '-' || k == n - 1);

	/* A note (a paragraph) of two sentences in two lines, at widths where they could share
	 * lines either way: never "Scatter:" at the end of the first, away from what it
	 * introduces. A title breaks after its colon where that is the even break. */
	s = "Colour scales shared by all schemes (one per quantity). Scatter: 8128 of the 32640 "
	    "pairs, those between evenly spaced positions.";
	for (double f = 0.6; f < 0.9; f += 0.02) {
		n = text_wrap_para(cr, s, text_width(cr, s) * f, 3, out);
		assert_int_equal(n, 2);
		assert_true(strcmp(out[0] + strlen(out[0]) - 8, "Scatter:") != 0);
	}

	s = "phi-3-mini-128k (d=96): wavelength per pair";
	n = text_wrap_cut(cr, s, text_width(cr, "phi-3-mini-128k (d=96): wavelength") + 0.1, 3, out,
	                  &cut);
	assert_int_equal(n, 2);
	assert_string_equal(out[0], "phi-3-mini-128k (d=96):");

	/* The note again: its first line filled to within a fifth of the room, its last line
	 * never a word alone. */
	s = "Colour scales shared by all schemes (one per quantity). Scatter: 8128 of the 32640 "
	    "pairs, those between evenly spaced positions.";
	for (double f = 0.55; f < 0.97; f += 0.02) {
		room = text_width(cr, s) * f;
		n = text_wrap_para(cr, s, room, 3, out);
		assert_int_equal(n, 2);
		assert_true(text_width(cr, out[0]) <= room && text_width(cr, out[0]) >= 0.8 * room);
		assert_non_null(strchr(out[1], ' '));
		joined(out, n, buf, sizeof(buf));
		assert_string_equal(buf, s);
	}

	/* A word longer than a line's buffer (300 two-byte letters) is cut between characters:
	 * cairo, which refuses invalid UTF-8, measures and draws it. */
	char longword[601];
	for (int k = 0; k < 300; k++)
		memcpy(longword + 2 * k, "\xc3\xa9", 2);
	longword[600] = '\0';
	n = text_wrap_cut(cr, longword, 50, 2, out, &cut);
	assert_int_equal(n, 1);
	assert_true(cut);
	assert_int_equal(cairo_status(cr), CAIRO_STATUS_SUCCESS);

	/* A parenthesised group wider than the line breaks at its spaces, uncut. */
	room = fmax(text_width(cr, "(one per"), text_width(cr, "quantity)")) + 0.1;
	n = text_wrap_cut(cr, "(one per quantity)", room, 3, out, &cut);
	assert_int_equal(n, 2);
	assert_false(cut);
	cairo_destroy(cr);
	cairo_surface_destroy(surf);
}

/* Vertical run of viridis-coloured pixels through column x, as [top, bottom). */
/*
 * A reference line's label longer than 255 bytes that fits its axes is drawn whole: it was
 * copied into 256 bytes, cut inside a two-byte letter, and cairo, which refuses invalid
 * UTF-8, failed the whole figure.
 */
static void long_reference_label_draws(void **state)
{
	(void)state;
	double x[2] = {0, 1}, y[2] = {0, 1};
	char label[2 * 130 + 1];
	for (int k = 0; k < 130; k++)
		memcpy(label + 2 * k, "\xc3\xa9", 2);
	label[sizeof(label) - 1] = '\0';
	struct pe_figure *fig = pe_figure_create(1, 1);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	assert_int_equal(pe_panel_add_line(p, "a", x, y, 2), PE_OK);
	assert_int_equal(pe_panel_add_hline(p, 0.5, label), PE_OK);
	FILE *f = tmpfile();
	assert_int_equal(pe_figure_write(fig, PE_FIGURE_PDF, 3000, 400, f), PE_OK);
	fclose(f);
	pe_figure_destroy(fig);
}

static void palette_run(const struct decoded *d, const unsigned char pal[256][3], unsigned x,
                        unsigned *top, unsigned *bottom)
{
	unsigned y = 0;
	while (y < d->height && nearest_entry(pal, decoded_px(d, x, y)) < 0)
		y++;
	*top = y;
	while (y < d->height && nearest_entry(pal, decoded_px(d, x, y)) >= 0)
		y++;
	*bottom = y;
}

/* A grid callback: rows alternate 0 and 1 (of at most max x max cells); counts its calls. */
struct grid_probe {
	size_t calls, rows, cols, max;
	enum pe_status fail;
};

static enum pe_status stripes(void *ctx, size_t rows, size_t cols, struct pe_matrix **out)
{
	struct grid_probe *g = ctx;
	g->calls++;
	g->rows = rows;
	g->cols = cols;
	if (g->fail != PE_OK)
		return g->fail;
	size_t r = rows < g->max ? rows : g->max, c = cols < g->max ? cols : g->max;
	*out = pe_matrix_create(r, c);
	for (size_t a = 0; a < r; a++)
		for (size_t b = 0; b < c; b++)
			(*out)->data[a * c + b] = (double)(a % 2);
	return PE_OK;
}

/*
 * A grid callback is asked for the heatmap's own pixels, once or twice
 * (the second layout with the grid's limits), and its grid is drawn as it
 * is: alternating rows stay pure 0 and 1, pixel by pixel, as no
 * resampling mixes them. A smaller grid is repeated, nearest cell.
 */
static void grid_callback_gets_the_pixels(void **state)
{
	(void)state;
	unsigned char pal[256][3];
	pe_colormap_palette(pe_colormap_find("viridis"), pal);
	for (int small = 0; small < 2; small++) {
		struct grid_probe g = {0, 0, 0, small ? 5 : SIZE_MAX, PE_OK};
		struct pe_figure *fig = pe_figure_create(1, 1);
		struct pe_heatmap_spec spec;
		pe_heatmap_spec_init(&spec, 100000, 100000, NULL);
		spec.grid_fn = stripes;
		spec.grid_ctx = &g;
		spec.equal_aspect = true;
		assert_int_equal(pe_panel_set_heatmap(pe_figure_panel(fig, 0, 0), &spec), PE_OK);
		FILE *f = write_figure(fig, PE_FIGURE_PNG, 640, 480);
		assert_true(g.calls >= 1 && g.calls <= 2);
		struct decoded d;
		assert_int_equal(decode_png(f, &d), 0);
		unsigned x = d.width * 2 / 5, top, bottom;
		palette_run(&d, pal, x, &top, &bottom);
		assert_int_equal(bottom - top, g.rows);
		size_t band = small ? 0 : 1, start = top;
		for (unsigned y = top; y < bottom; y++) {
			int e = nearest_entry(pal, decoded_px(&d, x, y));
			assert_true(e == 0 || e == 255);
			if (!small)
				assert_int_equal(e, (y - top) % 2 ? 255 : 0);
			else if (y > top && e != nearest_entry(pal, decoded_px(&d, x, y - 1))) {
				/* five cells over the rows: bands as the nearest rule gives them */
				band++;
				assert_true(y - start >= g.rows / 5 - 1 &&
				            y - start <= g.rows / 5 + 1);
				start = y;
			}
		}
		if (small)
			assert_int_equal(band, 4);
		decoded_free(&d);
		fclose(f);
		pe_figure_destroy(fig);
	}
	/* The callback's error is pe_figure_write()'s; the PNG level is checked. */
	struct grid_probe g = {0, 0, 0, 4, PE_ENOMEM};
	struct pe_figure *fig = pe_figure_create(1, 1);
	struct pe_heatmap_spec spec;
	pe_heatmap_spec_init(&spec, 10, 10, NULL);
	spec.grid_fn = stripes;
	spec.grid_ctx = &g;
	assert_int_equal(pe_panel_set_heatmap(pe_figure_panel(fig, 0, 0), &spec), PE_OK);
	assert_int_equal(pe_figure_set_png_level(fig, 10), PE_ERANGE);
	assert_int_equal(pe_figure_set_png_level(fig, -2), PE_ERANGE);
	assert_int_equal(pe_figure_set_png_level(fig, 1), PE_OK);
	FILE *f = tmpfile();
	assert_int_equal(pe_figure_write(fig, PE_FIGURE_PNG, 0, 0, f), PE_ENOMEM);
	fclose(f);
	pe_figure_destroy(fig);
}

static void colorbar_is_as_tall_as_the_heatmap(void **state)
{
	(void)state;
	unsigned char pal[256][3];
	pe_colormap_palette(pe_colormap_find("viridis"), pal);
	static double m[50 * 7];
	for (size_t i = 0; i < 50 * 7; i++)
		m[i] = (double)(i / 7);
	const double sizes[][2] = {{640, 480}, {300, 900}, {1500, 300}};
	for (size_t k = 0; k < 3; k++) {
		struct pe_figure *fig = pe_figure_create(1, 1);
		struct pe_heatmap_spec spec;
		pe_heatmap_spec_init(&spec, 50, 7, m);
		spec.colorbar_label = "row";
		pe_panel_set_heatmap(pe_figure_panel(fig, 0, 0), &spec);
		pe_figure_set_title(fig, "title");
		FILE *f = write_figure(fig, PE_FIGURE_PNG, sizes[k][0], sizes[k][1]);
		struct decoded d;
		assert_int_equal(decode_png(f, &d), 0);
		unsigned ht, hb, ct, cb;
		palette_run(&d, pal, d.width * 2 / 5, &ht, &hb);
		/* The colorbar: the rightmost column with colormap pixels at mid-height. */
		unsigned x = d.width - 1;
		while (x > 0 && nearest_entry(pal, decoded_px(&d, x, d.height / 2)) < 0)
			x--;
		palette_run(&d, pal, x - 1, &ct, &cb);
		assert_true(hb - ht > d.height / 2);
		assert_int_equal(ct, ht);
		assert_int_equal(cb, hb);
		decoded_free(&d);
		fclose(f);
		pe_figure_destroy(fig);
	}
}

static void legend_avoids_data(void **state)
{
	(void)state;
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 10, 10);
	cairo_t *cr = cairo_create(s);
	struct pe_figure *fig = pe_figure_create(1, 1);
	struct fig_style st;
	figure_style(fig, PE_FIGURE_PNG, 640, 480, &st);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	enum { N = 400 };
	static double x[N], down[N], up[N], fill[N];
	for (size_t i = 0; i < N; i++) {
		x[i] = (double)i;
		down[i] = exp(-(double)i / 30); /* from top left to bottom right */
		up[i] = 1 - down[i];            /* bottom left to top right */
		fill[i] = (i % 2) ? 1.0 : 0.0;  /* zig-zag over the whole panel */
	}
	pe_panel_add_line(p, "decaying", x, down, N);
	pe_panel_add_line(p, "rising", x, up, N);
	struct axis ax, ay;
	assert_int_equal(xy_ranges(p, &ax, &ay), PE_OK);
	struct rect r = {60, 40, 520, 380};
	/* The curves leave the middle right free: the legend fits inside. */
	assert_true(xy_legend_inside(cr, &st, p, &ax, &ay, r));
	pe_panel_add_line(p, "everywhere", x, fill, N);
	assert_int_equal(xy_ranges(p, &ax, &ay), PE_OK);
	assert_false(xy_legend_inside(cr, &st, p, &ax, &ay, r));
	pe_figure_destroy(fig);
	cairo_destroy(cr);
	cairo_surface_destroy(s);
}

/*
 * A legend too wide for the right of a 350 px figure, over curves that fill
 * the axes, goes below them on a taller canvas when the height is left to
 * the aspect: the canvas is taller than 640:480 gives, and the first curve's
 * blue (tab10 #1f77b4) shows under the lowest axes frame line (its legend
 * sample), not only inside it.
 */
static void legend_gets_room_below(void **state)
{
	(void)state;
	struct pe_figure *fig = pe_figure_create(1, 1);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	enum { N = 200 };
	static double x[N], fill[N];
	for (size_t i = 0; i < N; i++) {
		x[i] = (double)i;
		fill[i] = (i % 2) ? 1.0 : 0.0;
	}
	static const char *names[] = {"a long curve name one",   "a long curve name two",
	                              "a long curve name three", "a long curve name four",
	                              "a long curve name five",  "a long curve name six"};
	for (size_t k = 0; k < 6; k++)
		pe_panel_add_line(p, names[k], x, fill, N);
	FILE *f = write_figure(fig, PE_FIGURE_PNG, 350, 0);
	struct decoded d;
	assert_int_equal(decode_png(f, &d), 0);
	assert_true(d.height > 350 * 480 / 640 + 1);
	unsigned frame = 0;
	for (unsigned y = 0; y < d.height; y++) {
		unsigned dark = 0;
		for (unsigned xx = 0; xx < d.width; xx++) {
			const unsigned char *px = decoded_px(&d, xx, y);
			dark += px[0] < 60 && px[1] < 60 && px[2] < 60;
		}
		if (dark > d.width / 2)
			frame = y;
	}
	assert_true(frame > 0);
	bool blue_below = false;
	for (unsigned y = frame + 1; y < d.height && !blue_below; y++)
		for (unsigned xx = 0; xx < d.width; xx++) {
			const unsigned char *px = decoded_px(&d, xx, y);
			if (abs(px[0] - 0x1f) < 12 && abs(px[1] - 0x77) < 12 &&
			    abs(px[2] - 0xb4) < 12)
				blue_below = true;
		}
	assert_true(blue_below);
	decoded_free(&d);
	fclose(f);
	pe_figure_destroy(fig);
}

/* The count of data a legend box would hide, as its definition says (every point of a
 * scatter, the samples j / k, j = 1..k, of each line segment, k = ceil(length / step)
 * up to 10^4), written here plainly, against xy_covered()'s windowed and halved count:
 * ascending and unordered x, dense sines whose segments are vertical strokes, NaN gaps,
 * boxes across the panel, a log axis, a reversed axis. */
static size_t plain_count(const double *xs, const double *ys, size_t n, bool points,
                          const struct axis *ax, const struct axis *ay, struct rect r,
                          struct rect b, double step)
{
	size_t hits = 0;
	double px0 = NAN, py0 = NAN;
	for (size_t i = 0; i < n; i++) {
		bool ok = isfinite(xs[i]) && isfinite(ys[i]) && (!ax->log || xs[i] > 0);
		if (!ok) {
			px0 = NAN;
			continue;
		}
		double px = axis_map(ax, xs[i], r.x, r.w),
		       py = axis_map(ay, ys[i], r.y + r.h, -r.h);
		if (points || isnan(px0)) {
			hits += px >= b.x && px <= b.x + b.w && py >= b.y && py <= b.y + b.h;
		} else {
			size_t k = (size_t)fmin(1e4, ceil(hypot(px - px0, py - py0) / step));
			for (size_t j = 1; j <= k; j++) {
				double f = (double)j / (double)k;
				double sx = px0 + f * (px - px0), sy = py0 + f * (py - py0);
				hits += sx >= b.x && sx <= b.x + b.w && sy >= b.y &&
				        sy <= b.y + b.h;
			}
		}
		px0 = px, py0 = py;
	}
	return hits;
}

static void covered_counts_as_defined(void **state)
{
	(void)state;
	enum { N = 20000 };
	static double xs[N], ys[N], shuffled[N];
	unsigned seed = 12345;
	for (size_t i = 0; i < N; i++) {
		xs[i] = 1 + (double)i * 0.5;
		ys[i] = sin(0.9 * (double)i) + (i % 997 == 0 ? NAN : 0);
		seed = seed * 1103515245u + 12345u;
		shuffled[i] = 1 + (double)(seed >> 8) / (double)(1u << 24) * (double)N * 0.5;
	}
	struct rect r = {40.5, 20.25, 500, 300};
	for (int axes = 0; axes < 3; axes++) {
		struct axis ax = {.lo = 0.5, .hi = 1 + N * 0.5}, ay = {.lo = -1.2, .hi = 1.2};
		if (axes == 1)
			ax.log = true;
		if (axes == 2)
			ax.inverted = true;
		axis_cache_logs(&ax);
		for (int kind = 0; kind < 3; kind++) {
			struct pe_figure *fig = pe_figure_create(1, 1);
			struct pe_panel *p = pe_figure_panel(fig, 0, 0);
			const double *x = kind == 1 ? shuffled : xs;
			if (kind == 2)
				assert_int_equal(pe_panel_add_scatter(p, "s", x, ys, N), PE_OK);
			else
				assert_int_equal(pe_panel_add_line(p, "l", x, ys, N), PE_OK);
			for (int t = 0; t < 40; t++) {
				seed = seed * 1103515245u + 12345u;
				double bx = r.x - 20 +
				            (double)(seed >> 16 & 1023) / 1023.0 * (r.w + 20);
				seed = seed * 1103515245u + 12345u;
				double by = r.y - 10 + (double)(seed >> 16 & 1023) / 1023.0 * r.h;
				struct rect b = {bx, by, 3 + (t % 7) * 23.5, 2 + (t % 5) * 17.25};
				double step = t % 2 ? 1.0 : 2.5;
				size_t want =
				        plain_count(x, ys, N, kind == 2, &ax, &ay, r, b, step);
				assert_int_equal(xy_covered(p, &ax, &ay, r, b, step, SIZE_MAX),
				                 want);
				/* stopping at enough: at least enough when there are that many */
				size_t capped = xy_covered(p, &ax, &ay, r, b, step, want / 2 + 1);
				assert_true(capped >= want / 2 + 1 || capped == want);
			}
			pe_figure_destroy(fig);
		}
	}
}

/* Scatter markers splatted into a buffer look like cairo's own paths: the
 * same "over" compositing of the same discs, only the antialiasing ramp at
 * their edges differs (a pixel there by at most a third of full scale, the
 * image on average by under one level), at device scale 1 and 2. */
static void splatted_points_match_paths(void **state)
{
	(void)state;
	enum { N = 1500 };
	static double px[N], py[N];
	for (size_t i = 0; i < N; i++) {
		px[i] = sin(0.37 * (double)i) * (1 + 0.001 * (double)i);
		py[i] = cos(0.11 * (double)i * (double)i);
	}
	struct series se = {NULL, px, py, N, true, NULL, false};
	struct axis ax = {.lo = -3, .hi = 3}, ay = {.lo = -1.2, .hi = 1.2};
	struct fig_style st;
	struct pe_figure *fig = pe_figure_create(1, 1);
	figure_style(fig, PE_FIGURE_PNG, 400, 300, &st);
	for (int scale = 1; scale <= 2; scale++) {
		cairo_surface_t *img[2];
		for (int k = 0; k < 2; k++) {
			img[k] = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 400 * scale,
			                                    300 * scale);
			cairo_t *cr = cairo_create(img[k]);
			cairo_set_source_rgb(cr, 1, 1, 1);
			cairo_paint(cr);
			cairo_scale(cr, scale, scale);
			struct rect r = {30.3, 20.7, 330, 250};
			if (k == 0)
				xy_draw_points(cr, &st, &se, 0, &ax, &ay, r);
			else
				assert_true(xy_splat_points(cr, &st, &se, 0, &ax, &ay, r));
			cairo_destroy(cr);
			cairo_surface_flush(img[k]);
		}
		const unsigned char *a = cairo_image_surface_get_data(img[0]);
		const unsigned char *b = cairo_image_surface_get_data(img[1]);
		size_t bytes = (size_t)cairo_image_surface_get_stride(img[0]) * 300 * (size_t)scale;
		double sum = 0;
		int worst = 0;
		size_t inked = 0;
		for (size_t i = 0; i < bytes; i++) {
			int d = abs((int)a[i] - (int)b[i]);
			sum += d;
			worst = d > worst ? d : worst;
			inked += a[i] != 255;
		}
		assert_true(inked > bytes / 50); /* the markers are there */
		assert_true(sum / (double)bytes < 1.0);
		assert_true(worst <= 85);
		cairo_surface_destroy(img[0]);
		cairo_surface_destroy(img[1]);
	}
	pe_figure_destroy(fig);
}

static void colour_limits(void **state)
{
	(void)state;
	static const double a[4] = {-0.3, 0.99999, 0.2, 0.5}, b[4] = {0, 12.6, 3, 7};
	struct pe_heatmap_spec spec;
	double lo, hi;
	pe_heatmap_spec_init(&spec, 2, 2, a);
	assert_int_equal(heatmap_limits(&spec, &lo, &hi), PE_OK);
	/* 0.99999 is within 1% of the range of 1: the bar ends on round numbers. */
	assert_true(lo == -0.3 && hi == 1.0);
	spec.is_signed = true;
	assert_int_equal(heatmap_limits(&spec, &lo, &hi), PE_OK);
	assert_true(lo == -1.0 && hi == 1.0);
	spec.vmax = 0.5; /* one limit given on signed data mirrors itself */
	assert_int_equal(heatmap_limits(&spec, &lo, &hi), PE_OK);
	assert_true(lo == -0.5 && hi == 0.5);
	pe_heatmap_spec_init(&spec, 2, 2, b);
	assert_int_equal(heatmap_limits(&spec, &lo, &hi), PE_OK);
	assert_true(lo == 0 && hi == 12.6); /* 14 would be 11% away: kept */
	spec.vmin = 2;
	spec.vmax = 5;
	assert_int_equal(heatmap_limits(&spec, &lo, &hi), PE_OK);
	assert_true(lo == 2 && hi == 5);
}

/* Degenerate data still draws a figure: constant, all-NaN, 1 x 1, empty and one-point series. */
static void degenerate_data_draws(void **state)
{
	(void)state;
	static const double constant[6] = {3, 3, 3, 3, 3, 3}, one[1] = {0.25};
	static const double nan6[6] = {NAN, NAN, NAN, NAN, NAN, NAN}, xs[1] = {5}, ys[1] = {-2};
	struct pe_figure *fig = pe_figure_create(2, 3);
	struct pe_heatmap_spec spec;
	pe_heatmap_spec_init(&spec, 2, 3, constant);
	assert_int_equal(pe_panel_set_heatmap(pe_figure_panel(fig, 0, 0), &spec), PE_OK);
	pe_heatmap_spec_init(&spec, 2, 3, nan6);
	spec.is_signed = true;
	assert_int_equal(pe_panel_set_heatmap(pe_figure_panel(fig, 0, 1), &spec), PE_OK);
	pe_heatmap_spec_init(&spec, 1, 1, one);
	assert_int_equal(pe_panel_set_heatmap(pe_figure_panel(fig, 0, 2), &spec), PE_OK);
	assert_int_equal(pe_panel_add_line(pe_figure_panel(fig, 1, 0), "empty", NULL, NULL, 0),
	                 PE_OK);
	assert_int_equal(pe_panel_add_line(pe_figure_panel(fig, 1, 1), "one", xs, ys, 1), PE_OK);
	assert_int_equal(pe_panel_add_scatter(pe_figure_panel(fig, 1, 2), "nan", nan6, nan6, 6),
	                 PE_OK);
	for (int f = 0; f < 3; f++) {
		FILE *out = write_figure(fig, (enum pe_figure_format)f, 0, 0);
		fclose(out);
	}
	pe_figure_destroy(fig);
}

static enum pe_status failing_rows(void *ctx, size_t row, double *buf)
{
	(void)ctx;
	buf[0] = (double)row;
	return row == 3 ? PE_EIO : PE_OK;
}

static void errors_are_reported(void **state)
{
	(void)state;
	struct pe_figure *fig = pe_figure_create(1, 1);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	struct pe_heatmap_spec spec;
	pe_heatmap_spec_init(&spec, 10, 1, NULL);
	assert_int_equal(pe_panel_set_heatmap(p, &spec), PE_EINVAL); /* no data */
	spec.row_fn = failing_rows;
	spec.colormap = "no-such-map";
	assert_int_equal(pe_panel_set_heatmap(p, &spec), PE_EINVAL);
	spec.colormap = "magma_r";
	spec.vmin = 1, spec.vmax = 0;
	assert_int_equal(pe_panel_set_heatmap(p, &spec), PE_EINVAL);
	spec.vmin = spec.vmax = NAN;
	assert_int_equal(pe_panel_set_heatmap(p, &spec), PE_OK);
	assert_int_equal(pe_panel_add_line(p, "x", line_x, line_y[0], 3), PE_EINVAL);
	FILE *f = tmpfile();
	assert_int_equal(pe_figure_write(fig, PE_FIGURE_PNG, 0, 0, f), PE_EIO);
	pe_figure_destroy(fig);

	static const double xs[3] = {1, 2, 3}, ys[3] = {-1, 0, -2};
	fig = pe_figure_create(1, 1);
	p = pe_figure_panel(fig, 0, 0);
	assert_int_equal(pe_panel_add_line(p, "neg", xs, ys, 3), PE_OK);
	pe_panel_set_log(p, false, true);
	assert_int_equal(pe_figure_write(fig, PE_FIGURE_SVG, 0, 0, f), PE_EINVAL);
	assert_int_equal(pe_panel_set_xlim(p, 2, 1), PE_EINVAL);
	pe_figure_destroy(fig);
	fclose(f);

	assert_null(pe_figure_create(0, 1));
	assert_null(pe_figure_create(1, 65));
	fig = pe_figure_create(2, 2);
	assert_null(pe_figure_panel(fig, 2, 0));
	assert_int_equal(pe_figure_set_row_label(fig, 2, "x"), PE_ERANGE);
	assert_int_equal(pe_figure_set_col_title(fig, 5, "x"), PE_ERANGE);
	pe_figure_destroy(fig);
	pe_figure_destroy(NULL);

	enum pe_figure_format fmt;
	assert_int_equal(pe_figure_format_from_path("out/x.PNG", &fmt), PE_OK);
	assert_int_equal(fmt, PE_FIGURE_PNG);
	assert_int_equal(pe_figure_format_from_path("x.svg", &fmt), PE_OK);
	assert_int_equal(fmt, PE_FIGURE_SVG);
	assert_int_equal(pe_figure_format_from_path("x.pdf", &fmt), PE_OK);
	assert_int_equal(fmt, PE_FIGURE_PDF);
	assert_int_equal(pe_figure_format_from_path("x.csv", &fmt), PE_EUNSUPPORTED);
	assert_int_equal(pe_figure_format_from_path("png", &fmt), PE_EUNSUPPORTED);
}

static void write_errors_are_eio(void **state)
{
	(void)state;
	FILE *full = fopen("/dev/full", "wb");
	if (!full)
		skip();
	double *m = pattern(16, 8);
	struct pe_figure *fig = sample_figure(0, m, 16, 8);
	for (int f = 0; f < 3; f++) {
		setvbuf(full, NULL, _IONBF, 0);
		assert_int_equal(pe_figure_write(fig, (enum pe_figure_format)f, 0, 0, full),
		                 PE_EIO);
	}
	fclose(full);
	pe_figure_destroy(fig);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(ticks_match_matplotlib_examples),
	        cmocka_unit_test(ticks_tiny_and_huge_ranges),
	        cmocka_unit_test(ticks_properties_on_random_ranges),
	        cmocka_unit_test(ticks_ends_by_hand),
	        cmocka_unit_test(ticks_log),
	        cmocka_unit_test(splatted_points_match_paths),
	        cmocka_unit_test(covered_counts_as_defined),
	        cmocka_unit_test(numbers_use_unicode_minus),
	        cmocka_unit_test(fitted_ticks_never_overlap),
	        cmocka_unit_test(nothing_leaves_the_canvas),
	        cmocka_unit_test(png_has_the_asked_size),
	        cmocka_unit_test(svg_and_pdf_are_well_formed),
	        cmocka_unit_test(heatmap_pixels_row0_on_top_and_area_averaged),
	        cmocka_unit_test(heatmap_nearest_never_averages),
	        cmocka_unit_test(ellipsis_never_cuts_a_number),
	        cmocka_unit_test(wrap_breaks_after_equals),
	        cmocka_unit_test(wrap_is_balanced_and_keeps_units),
	        cmocka_unit_test(long_reference_label_draws),
	        cmocka_unit_test(colorbar_is_as_tall_as_the_heatmap),
	        cmocka_unit_test(legend_avoids_data),
	        cmocka_unit_test(legend_gets_room_below),
	        cmocka_unit_test(colour_limits),
	        cmocka_unit_test(degenerate_data_draws),
	        cmocka_unit_test(grid_callback_gets_the_pixels),
	        cmocka_unit_test(errors_are_reported),
	        cmocka_unit_test(write_errors_are_eio),
	};
	int failed = cmocka_run_group_tests_name("figure", tests, NULL, NULL);
	/* Let LeakSanitizer see only our own allocations, not cairo's font caches. */
	text_faces_release();
	cairo_debug_reset_static_data();
	return failed;
}
