/*
 * test_colormap.c - colormap tables and lookup against reference values
 *
 * Reference colours come from matplotlib 3.6.3 (_cm_listed.py rows 0, 128 and
 * 255, and Colormap.__call__ results) and from the ColorBrewer RdBu hex codes
 * (#67001f ... #053061), not from our own tables.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/colormap.h>

static void assert_rgb(struct pe_rgb c, double r, double g, double b, double tol)
{
	assert_true(fabs(c.r - r) <= tol);
	assert_true(fabs(c.g - g) <= tol);
	assert_true(fabs(c.b - b) <= tol);
}

static void listed_maps_match_matplotlib(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		double rgb[3][3]; /* entries 0, 128, 255 */
	} ref[] = {
	        {"viridis",
	         {{0.267004, 0.004874, 0.329415},
	          {0.127568, 0.566949, 0.550556},
	          {0.993248, 0.906157, 0.143936}}},
	        {"magma",
	         {{0.001462, 0.000466, 0.013866},
	          {0.716387, 0.214982, 0.475290},
	          {0.987053, 0.991438, 0.749504}}},
	        {"inferno",
	         {{0.001462, 0.000466, 0.013866},
	          {0.735683, 0.215906, 0.330245},
	          {0.988362, 0.998364, 0.644924}}},
	        {"plasma",
	         {{0.050383, 0.029803, 0.527975},
	          {0.798216, 0.280197, 0.469538},
	          {0.940015, 0.975158, 0.131326}}},
	        {"cividis",
	         {{0.000000, 0.135112, 0.304751},
	          {0.488697, 0.485318, 0.471008},
	          {0.995737, 0.909344, 0.217772}}},
	};
	static const size_t at[3] = {0, 128, 255};
	for (size_t m = 0; m < sizeof(ref) / sizeof(ref[0]); m++) {
		const struct pe_colormap *cm = pe_colormap_find(ref[m].name);
		assert_non_null(cm);
		assert_string_equal(pe_colormap_name(cm), ref[m].name);
		assert_false(pe_colormap_is_diverging(cm));
		for (size_t k = 0; k < 3; k++) {
			const double *c = ref[m].rgb[k];
			assert_rgb(pe_colormap_entry(cm, at[k]), c[0], c[1], c[2], 0.0);
		}
	}
}

static void rdbu_interpolates_colorbrewer_anchors(void **state)
{
	(void)state;
	const struct pe_colormap *cm = pe_colormap_find("RdBu");
	assert_non_null(cm);
	assert_true(pe_colormap_is_diverging(cm));
	assert_rgb(pe_colormap_entry(cm, 0), 103 / 255.0, 0 / 255.0, 31 / 255.0, 1e-9);
	assert_rgb(pe_colormap_entry(cm, 255), 5 / 255.0, 48 / 255.0, 97 / 255.0, 1e-9);
	/* Entry 127 sits at 127/255*10 = 4.980 anchors: 98% of the way from
	 * #fddbc7 (253,219,199) to #f7f7f7 (247,247,247). */
	double t = 127.0 / 255.0 * 10.0 - 4.0;
	assert_rgb(pe_colormap_entry(cm, 127), (253 + (247 - 253) * t) / 255.0,
	           (219 + (247 - 219) * t) / 255.0, (199 + (247 - 199) * t) / 255.0, 1e-8);
	/* Entry 51 is exactly on anchor 2 (51/255*10 = 2): #d6604d. */
	assert_rgb(pe_colormap_entry(cm, 51), 214 / 255.0, 96 / 255.0, 77 / 255.0, 1e-8);

	/* The default diverging map puts blue at the bottom and red at the top. */
	const struct pe_colormap *div = pe_colormap_find(PE_COLORMAP_DIVERGING);
	assert_non_null(div);
	assert_true(pe_colormap_is_diverging(div));
	struct pe_rgba lo = pe_colormap_lookup(div, 0.0), hi = pe_colormap_lookup(div, 1.0);
	assert_true(lo.b > lo.r);
	assert_true(hi.r > hi.b);
}

static void gray_is_linear(void **state)
{
	(void)state;
	const struct pe_colormap *cm = pe_colormap_find("gray");
	unsigned char pal[PE_COLORMAP_SIZE][3];
	pe_colormap_palette(cm, pal);
	for (int k = 0; k < PE_COLORMAP_SIZE; k++) {
		assert_rgb(pe_colormap_entry(cm, (size_t)k), k / 255.0, k / 255.0, k / 255.0, 1e-9);
		assert_int_equal(pal[k][0], k);
		assert_int_equal(pal[k][2], k);
	}
}

static void reversed_maps_mirror_their_base(void **state)
{
	(void)state;
	for (const char *const *n = pe_colormap_names(); *n; n++) {
		char rname[64];
		snprintf(rname, sizeof(rname), "%s_r", *n);
		const struct pe_colormap *cm = pe_colormap_find(*n);
		const struct pe_colormap *rev = pe_colormap_find(rname);
		assert_non_null(cm);
		assert_non_null(rev);
		assert_string_equal(pe_colormap_name(rev), rname);
		assert_int_equal(pe_colormap_is_diverging(cm), pe_colormap_is_diverging(rev));
		for (size_t i = 0; i < PE_COLORMAP_SIZE; i++) {
			struct pe_rgb a = pe_colormap_entry(cm, i);
			struct pe_rgb b = pe_colormap_entry(rev, PE_COLORMAP_SIZE - 1 - i);
			assert_true(a.r == b.r && a.g == b.g && a.b == b.b);
		}
	}
	/* viridis_r starts where viridis ends. */
	assert_rgb(pe_colormap_entry(pe_colormap_find("viridis_r"), 0), 0.993248, 0.906157,
	           0.143936, 0.0);
}

static void names_and_lookup_by_name(void **state)
{
	(void)state;
	size_t n = 0;
	for (const char *const *p = pe_colormap_names(); *p; p++)
		n++;
	assert_int_equal(n, 8);
	assert_string_equal(pe_colormap_names()[0], PE_COLORMAP_DEFAULT);
	/* twilight, cyclic: matplotlib 3.6's colormaps['twilight'](x) at x = 0, 128/255 and 1
	 * (its 510-entry list looked up at int(510 x), clipped). */
	const struct pe_colormap *tw = pe_colormap_find("twilight");
	assert_non_null(tw);
	assert_false(pe_colormap_is_diverging(tw));
	assert_rgb(pe_colormap_entry(tw, 0), 0.8857501584075443, 0.8500092494306783,
	           0.8879736506427196, 1e-9);
	assert_rgb(pe_colormap_entry(tw, 128), 0.18774482037046955, 0.07725158846803931,
	           0.21387448578597812, 1e-9);
	assert_rgb(pe_colormap_entry(tw, 255), 0.8857115512284565, 0.8500218611585632,
	           0.8857253899008712, 1e-9);
	assert_ptr_equal(pe_colormap_find("rdbu_r"), pe_colormap_find("RdBu_r"));
	assert_string_equal(pe_colormap_name(pe_colormap_find("VIRIDIS")), "viridis");
	assert_null(pe_colormap_find("jet"));
	assert_null(pe_colormap_find("viridis_r_r"));
	assert_null(pe_colormap_find(""));
	assert_null(pe_colormap_find(NULL));
}

static void index_follows_matplotlib(void **state)
{
	(void)state;
	/* matplotlib: trunc(v*256), v == 1 -> 255, under/over to the ends. */
	assert_int_equal(pe_colormap_index(0.0), 0);
	assert_int_equal(pe_colormap_index(1.0 / 256.0), 1);
	assert_int_equal(pe_colormap_index(0.0039), 0);
	assert_int_equal(pe_colormap_index(0.5), 128);
	assert_int_equal(pe_colormap_index(0.99999), 255);
	assert_int_equal(pe_colormap_index(1.0), 255);
	assert_int_equal(pe_colormap_index(nextafter(1.0, 0.0)), 255);
	assert_int_equal(pe_colormap_index(1.5), 255);
	assert_int_equal(pe_colormap_index(INFINITY), 255);
	assert_int_equal(pe_colormap_index(-0.1), 0);
	assert_int_equal(pe_colormap_index(-INFINITY), 0);
	assert_int_equal(pe_colormap_index(NAN), -1);
}

static void lookup_bad_under_over(void **state)
{
	(void)state;
	const struct pe_colormap *cm = pe_colormap_find("viridis");
	struct pe_rgba c = pe_colormap_lookup(cm, NAN);
	assert_true(c.r == 0.0 && c.g == 0.0 && c.b == 0.0 && c.a == 0.0);
	c = pe_colormap_lookup(cm, -3.0);
	assert_true(c.r == 0.267004 && c.g == 0.004874 && c.b == 0.329415 && c.a == 1.0);
	c = pe_colormap_lookup(cm, 7.0);
	assert_true(c.r == 0.993248 && c.g == 0.906157 && c.b == 0.143936 && c.a == 1.0);

	/* matplotlib viridis(0.5, bytes=True) = (32, 144, 140) by truncation;
	 * entry 128 = (0.127568, 0.566949, 0.550556) rounds to (33, 145, 140). */
	unsigned char pal[PE_COLORMAP_SIZE][3];
	pe_colormap_palette(cm, pal);
	int i = pe_colormap_index(0.5);
	assert_int_equal(pal[i][0], 33);
	assert_int_equal(pal[i][1], 145);
	assert_int_equal(pal[i][2], 140);
	assert_int_equal(pal[0][0], 68); /* 0.267004 * 255 = 68.09 */
	assert_int_equal(pal[0][1], 1);
	assert_int_equal(pal[0][2], 84);
	assert_int_equal(pal[255][0], 253);
	assert_int_equal(pal[255][1], 231);
	assert_int_equal(pal[255][2], 37); /* 0.143936 * 255 = 36.70 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(listed_maps_match_matplotlib),
	        cmocka_unit_test(rdbu_interpolates_colorbrewer_anchors),
	        cmocka_unit_test(gray_is_linear),
	        cmocka_unit_test(reversed_maps_mirror_their_base),
	        cmocka_unit_test(names_and_lookup_by_name),
	        cmocka_unit_test(index_follows_matplotlib),
	        cmocka_unit_test(lookup_bad_under_over),
	};
	return cmocka_run_group_tests_name("colormap", tests, NULL, NULL);
}
