/*
 * test_rawpng.c - the streaming palette PNG, decoded back with libpng
 *
 * Expected palette indices are worked out by hand from trunc(v * 256); the
 * palette entries from matplotlib's viridis floats rounded to 8 bits.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include <posenc/rawpng.h>

#include "pngread.h"

struct grid {
	size_t cols;
	const double *data; /* NULL: value = (row + col) % 256 / 256 */
	size_t fail_at;     /* row whose callback fails; SIZE_MAX: none */
	size_t calls;
};

static enum pe_status grid_row(void *ctx, size_t row, double *buf)
{
	struct grid *g = ctx;
	if (row != g->calls++)
		return PE_EINVAL; /* rows must come in order, once each */
	if (row == g->fail_at)
		return PE_EFORMAT;
	for (size_t c = 0; c < g->cols; c++)
		buf[c] = g->data ? g->data[row * g->cols + c] : (double)((row + c) % 256) / 256.0;
	return PE_OK;
}

static void small_matrix_decodes_to_its_colormap_indices(void **state)
{
	(void)state;
	/* 3 x 4, norm [0, 1]. */
	const double data[12] = {
	        0.0,       0.5,
	        1.0,       0.25, /* 0, 128, 255, 64 */
	        0.999,     -1.0,
	        2.0,       0.003, /* 255 (255.7), 0 (under), 255 (over), 0 (0.77) */
	        0.004,     INFINITY,
	        -INFINITY, 0.75, /* 1 (1.02), 255, 0, 192 */
	};
	const unsigned expect[12] = {0, 128, 255, 64, 255, 0, 255, 0, 1, 255, 0, 192};
	struct grid g = {4, data, SIZE_MAX, 0};
	struct pe_norm norm = {0.0, 1.0};
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(
	        pe_rawpng_write(f, 3, 4, grid_row, &g, pe_colormap_find("viridis"), &norm, NULL),
	        PE_OK);
	assert_int_equal(g.calls, 3);
	struct decoded d;
	assert_int_equal(decode_png(f, &d), 0);
	assert_int_equal(d.width, 4);
	assert_int_equal(d.height, 3);
	assert_int_equal(d.color_type, PNG_COLOR_TYPE_PALETTE);
	assert_int_equal(d.bit_depth, 8);
	assert_int_equal(d.npalette, 256);
	for (unsigned i = 0; i < 12; i++)
		assert_int_equal(decoded_px(&d, i % 4, i / 4)[0], expect[i]);
	/* viridis[0] = (0.267004, 0.004874, 0.329415) -> (68, 1, 84);
	 * viridis[255] = (0.993248, 0.906157, 0.143936) -> (253, 231, 37). */
	assert_int_equal(d.palette[0].red, 68);
	assert_int_equal(d.palette[0].green, 1);
	assert_int_equal(d.palette[0].blue, 84);
	assert_int_equal(d.palette[255].red, 253);
	assert_int_equal(d.palette[255].green, 231);
	assert_int_equal(d.palette[255].blue, 37);
	/* 100 dpi = 3937 pixels per metre, as matplotlib writes. */
	assert_int_equal(d.res_unit, PNG_RESOLUTION_METER);
	assert_int_equal(d.res_x, 3937);
	assert_int_equal(d.res_y, 3937);
	decoded_free(&d);
	fclose(f);
}

/*
 * With an index for NaN the writer maps rows in a vectorised loop: the same
 * hand-worked indices as above, entry boundaries k / 256 exactly and one
 * ulp below, and a norm whose scale is not a power of two.
 */
static void vectorised_mapping_same_indices(void **state)
{
	(void)state;
	enum { COLS = 12 + 2 * 255 + 3 };
	static double data[2 * COLS];
	static unsigned expect[2 * COLS];
	const double hand[12] = {0.0, 0.5,   1.0,   0.25,     0.999,     -1.0,
	                         2.0, 0.003, 0.004, INFINITY, -INFINITY, 0.75};
	const unsigned hand_idx[12] = {0, 128, 255, 64, 255, 0, 255, 0, 1, 255, 0, 192};
	size_t c = 0;
	for (; c < 12; c++) {
		data[c] = hand[c];
		expect[c] = hand_idx[c];
	}
	for (unsigned k = 1; k < 256; k++, c += 2) {
		data[c] = k / 256.0; /* exact: entry k */
		expect[c] = k;
		data[c + 1] = nextafter(k / 256.0, 0.0);
		expect[c + 1] = k - 1;
	}
	data[c] = NAN;
	expect[c++] = 7;
	data[c] = -0.0;
	expect[c++] = 0;
	data[c] = 1e300;
	expect[c++] = 255;
	/* row 1 on the norm [-3, 5]: the same values moved by -3 + 8 v, except
	 * that one ulp below a boundary becomes half an entry below it (the
	 * ulp does not survive the move) */
	for (c = 0; c < COLS; c++) {
		int below = c >= 12 && c < 12 + 2 * 255 && (c - 12) % 2 == 1;
		double v = below ? (expect[c] + 0.5) / 256.0 : data[c];
		data[COLS + c] = -3.0 + 8.0 * v;
		expect[COLS + c] = expect[c];
	}
	struct grid g = {COLS, data, SIZE_MAX, 0};
	struct pe_norm norm = {0.0, 1.0};
	struct pe_png_options o = pe_png_options_default();
	o.nan_index = 7;
	for (int row = 0; row < 2; row++) {
		FILE *f = tmpfile();
		assert_non_null(f);
		g.data = data + row * COLS;
		g.calls = 0;
		if (row == 1)
			norm = (struct pe_norm){-3.0, 5.0};
		assert_int_equal(pe_rawpng_write(f, 1, COLS, grid_row, &g,
		                                 pe_colormap_find("viridis"), &norm, &o),
		                 PE_OK);
		struct decoded d;
		assert_int_equal(decode_png(f, &d), 0);
		for (c = 0; c < COLS; c++)
			if (decoded_px(&d, (unsigned)c, 0)[0] != expect[row * COLS + c]) {
				fprintf(stderr, "# row %d col %zu: %.17g -> %u, want %u\n", row, c,
				        data[row * COLS + c], decoded_px(&d, (unsigned)c, 0)[0],
				        expect[row * COLS + c]);
				fail();
			}
		decoded_free(&d);
		fclose(f);
	}
}

static void norm_and_reversed_map(void **state)
{
	(void)state;
	/* Symmetric norm [-2, 2]: -2 -> 0, 0 -> 0.5 -> 128, 1 -> 0.75 -> 192. */
	const double data[3] = {-2.0, 0.0, 1.0};
	struct grid g = {3, data, SIZE_MAX, 0};
	struct pe_norm norm = {-2.0, 2.0};
	FILE *f = tmpfile();
	struct pe_png_options o = pe_png_options_default();
	o.dpi = 0.0;
	assert_int_equal(
	        pe_rawpng_write(f, 1, 3, grid_row, &g, pe_colormap_find("gray_r"), &norm, &o),
	        PE_OK);
	struct decoded d;
	assert_int_equal(decode_png(f, &d), 0);
	assert_int_equal(decoded_px(&d, 0, 0)[0], 0);
	assert_int_equal(decoded_px(&d, 1, 0)[0], 128);
	assert_int_equal(decoded_px(&d, 2, 0)[0], 192);
	/* gray_r: entry i is 255 - i. */
	assert_int_equal(d.palette[0].red, 255);
	assert_int_equal(d.palette[192].green, 63);
	assert_int_equal(d.res_unit, -1);
	decoded_free(&d);
	fclose(f);
}

static void nan_is_an_error_unless_given_an_index(void **state)
{
	(void)state;
	const double data[4] = {0.5, NAN, 0.0, 1.0};
	struct pe_norm norm = {0.0, 1.0};
	const struct pe_colormap *cm = pe_colormap_find("magma");
	FILE *f = tmpfile();
	struct grid g = {2, data, SIZE_MAX, 0};
	assert_int_equal(pe_rawpng_write(f, 2, 2, grid_row, &g, cm, &norm, NULL), PE_ERANGE);
	fclose(f);

	f = tmpfile();
	g.calls = 0;
	struct pe_png_options o = pe_png_options_default();
	o.nan_index = 7;
	assert_int_equal(pe_rawpng_write(f, 2, 2, grid_row, &g, cm, &norm, &o), PE_OK);
	struct decoded d;
	assert_int_equal(decode_png(f, &d), 0);
	assert_int_equal(decoded_px(&d, 0, 0)[0], 128);
	assert_int_equal(decoded_px(&d, 1, 0)[0], 7);
	assert_int_equal(decoded_px(&d, 0, 1)[0], 0);
	assert_int_equal(decoded_px(&d, 1, 1)[0], 255);
	decoded_free(&d);
	fclose(f);
}

static void beyond_cairo_limit(void **state)
{
	(void)state;
	/* 40000 columns (cairo stops at 32767), then 40000 rows. */
	struct pe_norm norm = {0.0, 1.0};
	const struct pe_colormap *cm = pe_colormap_find("viridis");
	for (int tall = 0; tall < 2; tall++) {
		size_t rows = tall ? 40000 : 3, cols = tall ? 3 : 40000;
		struct grid g = {cols, NULL, SIZE_MAX, 0};
		FILE *f = tmpfile();
		assert_int_equal(pe_rawpng_write(f, rows, cols, grid_row, &g, cm, &norm, NULL),
		                 PE_OK);
		struct decoded d;
		assert_int_equal(decode_png(f, &d), 0);
		assert_int_equal(d.width, cols);
		assert_int_equal(d.height, rows);
		/* value (r + c) % 256 / 256 has index (r + c) % 256 exactly. */
		size_t bad = 0;
		for (size_t r = 0; r < rows; r++)
			for (size_t c = 0; c < cols; c++)
				bad += decoded_px(&d, (unsigned)c, (unsigned)r)[0] != (r + c) % 256;
		assert_int_equal(bad, 0);
		decoded_free(&d);
		fclose(f);
	}
}

/* A Toeplitz matrix (cell = f(col - row)) of width c: each row
 * is its predecessor shifted by a cell. */
struct shifted {
	size_t cols;
};

static enum pe_status shifted_row(void *ctx, size_t row, double *buf)
{
	const struct shifted *g = ctx;
	for (size_t c = 0; c < g->cols; c++) {
		/* like a distance matrix: smooth, with detail at every scale */
		double D = (double)c - (double)row;
		buf[c] = 0.5 + 0.2 * sin(D / 900.0) + 0.15 * sin(D / 37.3) + 0.1 * sin(D * 1.7);
	}
	return PE_OK;
}

static long shifted_size(size_t cols)
{
	struct shifted g = {cols};
	struct pe_norm norm = {0.0, 1.0};
	FILE *f = tmpfile();
	assert_int_equal(pe_rawpng_write(f, 60, cols, shifted_row, &g, pe_colormap_find("viridis"),
	                                 &norm, NULL),
	                 PE_OK);
	long size = ftell(f);
	fclose(f);
	return size;
}

/*
 * Deflate's window ends where a row can no longer reach its predecessor
 * (cols + 2 bytes back must be under 32506): up to 32503 columns rows are
 * copies, from 32504 on they cannot be, and level 6 then only burns time
 * (32504 columns once took 50 s for 257 MB where 32503 took 7.6 s for
 * 12 MB). Each side of that edge must be smooth: 32504 columns written as
 * wider images are, 32503 as narrower ones.
 */
static void no_cliff_at_the_window(void **state)
{
	(void)state;
	long size[8];
	for (size_t k = 0; k < 8; k++)
		size[k] = shifted_size(32500 + k);
	for (size_t k = 1; k < 8; k++) {
		/* 32503 = k 3 is the last width where rows are copies */
		long prev = size[k - 1];
		if (k == 4)
			continue;
		if ((double)size[k] > 1.15 * (double)prev || (double)size[k] < 0.85 * (double)prev)
			fail_msg("%zu columns: %ld bytes, %ld at one fewer", 32500 + k, size[k],
			         prev);
	}
	/* rows as copies compress far better than anything deflate can do beyond */
	assert_true(size[3] * 4 < size[4]);
}

static void errors(void **state)
{
	(void)state;
	struct pe_norm norm = {0.0, 1.0};
	const struct pe_colormap *cm = pe_colormap_find("viridis");
	struct grid g = {8, NULL, 2, 0};
	FILE *f = tmpfile();
	/* The callback's own status comes back unchanged. */
	assert_int_equal(pe_rawpng_write(f, 5, 8, grid_row, &g, cm, &norm, NULL), PE_EFORMAT);
	assert_int_equal(g.calls, 3);
	g.fail_at = SIZE_MAX;
	assert_int_equal(pe_rawpng_write(f, 0, 8, grid_row, &g, cm, &norm, NULL), PE_EINVAL);
	assert_int_equal(pe_rawpng_write(f, 5, 0, grid_row, &g, cm, &norm, NULL), PE_EINVAL);
	assert_int_equal(pe_rawpng_write(f, (size_t)1 << 31, 8, grid_row, &g, cm, &norm, NULL),
	                 PE_ETOOBIG);
	struct pe_png_options o = pe_png_options_default();
	o.level = 10;
	assert_int_equal(pe_rawpng_write(f, 5, 8, grid_row, &g, cm, &norm, &o), PE_EINVAL);
	o = pe_png_options_default();
	o.nan_index = 256;
	assert_int_equal(pe_rawpng_write(f, 5, 8, grid_row, &g, cm, &norm, &o), PE_EINVAL);
	o = pe_png_options_default();
	o.filter = (enum pe_png_filter)42;
	assert_int_equal(pe_rawpng_write(f, 5, 8, grid_row, &g, cm, &norm, &o), PE_EINVAL);
	fclose(f);

	/* A full disk is an I/O error, reported as a status, not printed. */
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		g.calls = 0;
		g.cols = 4096;
		assert_int_equal(pe_rawpng_write(full, 64, 4096, grid_row, &g, cm, &norm, NULL),
		                 PE_EIO);
		fclose(full);
	}
}

static void every_level_and_filter_decodes(void **state)
{
	(void)state;
	struct pe_norm norm = {0.0, 1.0};
	const struct pe_colormap *cm = pe_colormap_find("plasma");
	for (int level = -1; level <= 9; level += 2) {
		for (int fl = PE_PNG_FILTER_AUTO; fl <= PE_PNG_FILTER_ADAPTIVE; fl++) {
			struct grid g = {37, NULL, SIZE_MAX, 0};
			struct pe_png_options o = pe_png_options_default();
			o.level = level;
			o.filter = (enum pe_png_filter)fl;
			FILE *f = tmpfile();
			assert_int_equal(pe_rawpng_write(f, 19, 37, grid_row, &g, cm, &norm, &o),
			                 PE_OK);
			struct decoded d;
			assert_int_equal(decode_png(f, &d), 0);
			for (unsigned r = 0; r < 19; r++)
				for (unsigned c = 0; c < 37; c++)
					assert_int_equal(decoded_px(&d, c, r)[0], (r + c) % 256);
			decoded_free(&d);
			fclose(f);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(small_matrix_decodes_to_its_colormap_indices),
	        cmocka_unit_test(vectorised_mapping_same_indices),
	        cmocka_unit_test(norm_and_reversed_map),
	        cmocka_unit_test(nan_is_an_error_unless_given_an_index),
	        cmocka_unit_test(beyond_cairo_limit),
	        cmocka_unit_test(no_cliff_at_the_window),
	        cmocka_unit_test(errors),
	        cmocka_unit_test(every_level_and_filter_decodes),
	};
	return cmocka_run_group_tests_name("rawpng", tests, NULL, NULL);
}
