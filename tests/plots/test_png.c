/*
 * test_png.c - cairo surfaces written through libpng and decoded back
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include <posenc/png.h>

#include "pngread.h"

static void set_px(cairo_surface_t *s, int x, int y, uint32_t argb)
{
	unsigned char *data = cairo_image_surface_get_data(s);
	int stride = cairo_image_surface_get_stride(s);
	((uint32_t *)(void *)(data + (size_t)y * stride))[x] = argb;
}

static void argb_is_unpremultiplied(void **state)
{
	(void)state;
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 3, 2);
	cairo_surface_flush(s);
	set_px(s, 0, 0, 0xffff0000); /* opaque red */
	set_px(s, 1, 0, 0x80800000); /* red at alpha 128, premultiplied: 128 -> 255 */
	set_px(s, 2, 0, 0x00000000); /* transparent */
	set_px(s, 0, 1, 0x40102030); /* alpha 64: 16,32,48 -> round(x*255/64) = 64,128,191 */
	set_px(s, 1, 1, 0xff0a141e);
	set_px(s, 2, 1, 0xff000000);
	cairo_surface_mark_dirty(s);
	FILE *f = tmpfile();
	assert_int_equal(pe_png_write_surface(f, s, NULL), PE_OK);
	struct decoded d;
	assert_int_equal(decode_png(f, &d), 0);
	assert_int_equal(d.width, 3);
	assert_int_equal(d.height, 2);
	assert_int_equal(d.color_type, PNG_COLOR_TYPE_RGB_ALPHA);
	const unsigned char expect[6][4] = {
	        {255, 0, 0, 255},   {255, 0, 0, 128},  {0, 0, 0, 0},
	        {64, 128, 191, 64}, {10, 20, 30, 255}, {0, 0, 0, 255},
	};
	for (unsigned i = 0; i < 6; i++)
		for (int c = 0; c < 4; c++)
			assert_int_equal(decoded_px(&d, i % 3, i / 3)[c], expect[i][c]);
	assert_int_equal(d.res_x, 3937);
	decoded_free(&d);
	fclose(f);
	cairo_surface_destroy(s);
}

static void opaque_surfaces_are_written_as_rgb(void **state)
{
	(void)state;
	cairo_format_t formats[2] = {CAIRO_FORMAT_ARGB32, CAIRO_FORMAT_RGB24};
	for (int k = 0; k < 2; k++) {
		cairo_surface_t *s = cairo_image_surface_create(formats[k], 4, 5);
		cairo_t *cr = cairo_create(s);
		cairo_set_source_rgb(cr, 1.0, 1.0, 1.0);
		cairo_paint(cr);
		cairo_set_source_rgb(cr, 0.0, 0.0, 1.0);
		cairo_rectangle(cr, 1, 2, 2, 1);
		cairo_fill(cr);
		cairo_destroy(cr);
		FILE *f = tmpfile();
		struct pe_png_options o = pe_png_options_default();
		o.level = 9;
		o.filter = PE_PNG_FILTER_PAETH;
		o.dpi = 300.0;
		assert_int_equal(pe_png_write_surface(f, s, &o), PE_OK);
		struct decoded d;
		assert_int_equal(decode_png(f, &d), 0);
		assert_int_equal(d.color_type, PNG_COLOR_TYPE_RGB);
		assert_int_equal(d.width, 4);
		assert_int_equal(d.height, 5);
		for (unsigned y = 0; y < 5; y++) {
			for (unsigned x = 0; x < 4; x++) {
				int blue = y == 2 && (x == 1 || x == 2);
				const unsigned char *p = decoded_px(&d, x, y);
				assert_int_equal(p[0], blue ? 0 : 255);
				assert_int_equal(p[1], blue ? 0 : 255);
				assert_int_equal(p[2], 255);
			}
		}
		assert_int_equal(d.res_x, 11811); /* 300 / 0.0254 = 11811.02 */
		decoded_free(&d);
		fclose(f);
		cairo_surface_destroy(s);
	}
}

static void errors(void **state)
{
	(void)state;
	FILE *f = tmpfile();
	cairo_surface_t *a8 = cairo_image_surface_create(CAIRO_FORMAT_A8, 4, 4);
	assert_int_equal(pe_png_write_surface(f, a8, NULL), PE_EUNSUPPORTED);
	cairo_surface_destroy(a8);
	cairo_surface_t *bad = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 40000, 4);
	assert_int_equal(pe_png_write_surface(f, bad, NULL), PE_EINVAL);
	cairo_surface_destroy(bad);
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 4, 4);
	assert_int_equal(pe_png_write_surface(f, NULL, NULL), PE_EINVAL);
	struct pe_png_options o = pe_png_options_default();
	o.level = -2;
	assert_int_equal(pe_png_write_surface(f, s, &o), PE_EINVAL);
	fclose(f);
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		cairo_surface_t *big = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 512, 512);
		assert_int_equal(pe_png_write_surface(full, big, NULL), PE_EIO);
		cairo_surface_destroy(big);
		fclose(full);
	}
	cairo_surface_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(argb_is_unpremultiplied),
	        cmocka_unit_test(opaque_surfaces_are_written_as_rgb),
	        cmocka_unit_test(errors),
	};
	return cmocka_run_group_tests_name("png", tests, NULL, NULL);
}
