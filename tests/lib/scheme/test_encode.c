/* Encodings against doc/conventions.md reference numbers and closed forms. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/encode.h>

static struct pe_scheme *scheme(const char *spec)
{
	struct pe_scheme *s = NULL;
	char *err = NULL;
	if (pe_scheme_parse(spec, &s, &err) != PE_OK)
		fail_msg("%s: %s", spec, err);
	return s;
}

static struct pe_matrix *encode(const char *spec, size_t d, uint64_t first, size_t n,
                                enum pe_view view)
{
	struct pe_scheme *s = scheme(spec);
	struct pe_matrix *m = NULL;
	assert_int_equal(pe_encode(s, d, first, n, view, &m), PE_OK);
	pe_scheme_destroy(s);
	return m;
}

/* doc/conventions.md rounds to 6 decimals (or shows fewer digits for exact values). */
static void assert_row_near(const double *got, const double *want, size_t n, double tol)
{
	for (size_t j = 0; j < n; j++)
		if (fabs(got[j] - want[j]) > tol)
			fail_msg("column %zu: got %.10f, want %.10f", j, got[j], want[j]);
}

static void sinusoidal_paper_reference(void **state)
{
	(void)state;
	/* [1a] d=8, base 1e4. */
	struct pe_matrix *m = encode("sinusoidal", 8, 0, 3, PE_VIEW_DEFAULT);
	const double p0[] = {0, 1, 0, 1, 0, 1, 0, 1};
	const double p1[] = {0.841471, 0.540302, 0.099833, 0.995004, 0.01, 0.99995, 0.001, 1.0};
	const double p2[] = {0.909297, -0.416147, 0.198669, 0.980067,
	                     0.019999, 0.9998,    0.002,    0.999998};
	assert_row_near(pe_matrix_row(m, 0), p0, 8, 0);
	assert_row_near(pe_matrix_row(m, 1), p1, 8, 5e-7);
	assert_row_near(pe_matrix_row(m, 2), p2, 8, 5e-7);
	/* Closed form to 1e-15: PE(1, 2) = sin(1 / 10000^(2/8)) = sin(0.1). */
	assert_true(fabs(pe_matrix_row(m, 1)[2] - sin(0.1)) < 1e-15);
	assert_true(fabs(pe_matrix_row(m, 2)[7] - cos(2e-3)) < 1e-15);
	pe_matrix_destroy(m);
}

static void sinusoidal_t2t_and_blocks_reference(void **state)
{
	(void)state;
	/* [1c] t2t/fairseq d=8: w = [1, 0.046416, 0.0021544, 0.0001], blocks. */
	struct pe_matrix *m = encode("sinusoidal:freq=t2t,layout=blocks", 8, 0, 2, PE_VIEW_DEFAULT);
	const double p0[] = {0, 0, 0, 0, 1, 1, 1, 1};
	const double p1[] = {0.841471, 0.046399, 0.002154, 0.0001,
	                     0.540302, 0.998923, 0.999998, 1.0};
	assert_row_near(pe_matrix_row(m, 0), p0, 8, 0);
	assert_row_near(pe_matrix_row(m, 1), p1, 8, 5e-7);
	/* The lowest t2t frequency is exactly 1/base: sin(1e-4). */
	assert_true(fabs(pe_matrix_row(m, 1)[3] - sin(1e-4)) < 1e-18);
	pe_matrix_destroy(m);

	/* [1b] HF RoFormer/Marian: paper frequencies in blocks, d=6, row 1. */
	m = encode("sinusoidal:layout=blocks", 6, 0, 6, PE_VIEW_DEFAULT);
	const double hf[] = {0.841471, 0.046399, 0.002154, 0.540302, 0.998923, 0.999998};
	assert_row_near(pe_matrix_row(m, 1), hf, 6, 5e-7);
	pe_matrix_destroy(m);
}

static void sinusoidal_odd_width(void **state)
{
	(void)state;
	/* [1d] d=5, p=1 in each convention. */
	struct pe_matrix *m = encode("sinusoidal", 5, 1, 1, PE_VIEW_DEFAULT);
	const double paper[] = {0.841471, 0.540302, 0.025116, 0.999685, 0.000631};
	assert_row_near(m->data, paper, 5, 5e-7);
	pe_matrix_destroy(m);
	m = encode("sinusoidal:layout=blocks", 5, 1, 1, PE_VIEW_DEFAULT);
	const double marian[] = {0.841471, 0.025116, 0.000631, 0.540302, 0.999685};
	assert_row_near(m->data, marian, 5, 5e-7);
	pe_matrix_destroy(m);
	m = encode("sinusoidal:freq=t2t,layout=blocks", 5, 1, 1, PE_VIEW_DEFAULT);
	const double t2t[] = {0.841471, 0.0001, 0.540302, 1.0, 0.0};
	assert_row_near(m->data, t2t, 5, 5e-7);
	assert_true(m->data[4] == 0.0);
	pe_matrix_destroy(m);
	/* d=2 and d=3 take t2t's max(h-1, 1) guard instead of dividing by zero. */
	m = encode("sinusoidal:freq=t2t", 3, 1, 1, PE_VIEW_DEFAULT);
	assert_true(fabs(m->data[0] - sin(1.0)) < 1e-16 && m->data[2] == 0.0);
	pe_matrix_destroy(m);
}

static void sinusoidal_rows_have_norm_sqrt_half_d(void **state)
{
	(void)state;
	/* sin^2 + cos^2 = 1 per pair: |row|^2 = d/2 for even d, any layout or start. */
	const char *specs[] = {"sinusoidal", "sinusoidal:layout=blocks", "sinusoidal:freq=t2t",
	                       "sinusoidal:base=10,start=2"};
	for (size_t k = 0; k < 4; k++) {
		struct pe_matrix *m = encode(specs[k], 64, 1000, 50, PE_VIEW_DEFAULT);
		for (size_t i = 0; i < m->rows; i++) {
			double sum = 0;
			for (size_t j = 0; j < m->cols; j++)
				sum += pe_matrix_row(m, i)[j] * pe_matrix_row(m, i)[j];
			assert_true(fabs(sum - 32.0) < 1e-12);
		}
		pe_matrix_destroy(m);
	}
}

static void sinusoidal_start_shifts_the_argument(void **state)
{
	(void)state;
	/* fairseq numbers the first token 2: row 0 with start=2 is row 2 of the plain table. */
	struct pe_matrix *a =
	        encode("sinusoidal:freq=t2t,layout=blocks,start=2", 16, 0, 3, PE_VIEW_DEFAULT);
	struct pe_matrix *b =
	        encode("sinusoidal:freq=t2t,layout=blocks", 16, 2, 3, PE_VIEW_DEFAULT);
	assert_memory_equal(a->data, b->data, 3 * 16 * sizeof(double));
	pe_matrix_destroy(a);
	pe_matrix_destroy(b);
}

static void large_positions_stay_exact(void **state)
{
	(void)state;
	/*
	 * valgrind computes long double as double; then the reference is only
	 * as good as a double angle (half an ulp of 1e7 is 9.3e-10).
	 */
	volatile long double one = 1.0L, tiny = LDBL_EPSILON;
	int extended = LDBL_MANT_DIG >= 64 && one + tiny != one;
	double tol = extended ? 1e-12 : 2e-9, far_tol = extended ? 5e-8 : 2e-5;
	/* Reference: sin of the exact p/D in 64-bit long double, independently. */
	const uint64_t first = 10000000ull;
	struct pe_matrix *m = encode("sinusoidal", 16, first, 3, PE_VIEW_DEFAULT);
	for (size_t r = 0; r < 3; r++)
		for (size_t k = 0; k < 8; k++) {
			long double den = (long double)pow(10000.0, (double)(2 * k) / 16.0);
			long double angle = (long double)(first + r) / den;
			double want = (double)sinl(angle);
			double got = pe_matrix_row(m, r)[2 * k];
			if (fabs(got - want) > tol)
				fail_msg("p=%llu k=%zu: got %.17g want %.17g",
				         (unsigned long long)(first + r), k, got, want);
		}
	pe_matrix_destroy(m);
	/*
	 * Around 2^40 the angle is ~1e11: the naive double product is off by up
	 * to 8e-6, long double (64 bits) by ~1e-8, which bounds this check.
	 */
	const uint64_t far = 1ull << 40;
	m = encode("rope", 8, far, 2, PE_VIEW_SIN);
	struct pe_scheme *s = scheme("rope");
	double theta[4];
	size_t count;
	assert_int_equal(pe_scheme_frequencies(s, 8, theta, &count), PE_OK);
	for (size_t r = 0; r < 2; r++)
		for (size_t i = 0; i < count; i++) {
			long double angle = (long double)(far + r) * (long double)theta[i];
			double want = (double)sinl(angle);
			double got = pe_matrix_row(m, r)[2 * i];
			if (fabs(got - want) > far_tol)
				fail_msg("rope p=2^40+%zu i=%zu: got %.17g want %.17g", r, i, got,
				         want);
		}
	pe_scheme_destroy(s);
	pe_matrix_destroy(m);
	/*
	 * Position 10^12, base 10, d=3: column 2 is sin(10^12 / 10^(2/3)); the
	 * reference is mpmath's (50 digits): -0.985608174819267...
	 */
	m = encode("sinusoidal:base=10", 3, 1000000000000ull, 1, PE_VIEW_DEFAULT);
	assert_true(fabs(m->data[2] - -0.985608174819267) < 2e-15);
	pe_matrix_destroy(m);
}

/* Rotates x to position m from the cos and sin views, as HF and Meta code do. */
static void rotate(const double *cosv, const double *sinv, const double *x, double *out, size_t d,
                   int half)
{
	for (size_t j = 0; j < d; j++) {
		double partner;
		if (half)
			partner = j < d / 2 ? -x[j + d / 2] : x[j - d / 2];
		else
			partner = j % 2 == 0 ? -x[j + 1] : x[j - 1];
		out[j] = x[j] * cosv[j] + partner * sinv[j];
	}
}

static void rope_reference_rotation(void **state)
{
	(void)state;
	/* [2a] d=4, theta = [1, 0.01], x = [1, 2, 3, 4]. */
	const double x[] = {1, 2, 3, 4};
	const double want[2][2][4] = {
	        {{-1.142640, 1.922076, 2.959851, 4.029800},
	         {-1.984111, 1.959901, 2.462378, 4.019800}},
	        {{-2.234742, 0.077004, 2.919405, 4.059196},
	         {-3.144039, 1.919605, -0.339143, 4.039197}},
	};
	for (int half = 0; half < 2; half++) {
		const char *spec = half ? "rope:layout=half" : "rope";
		struct pe_matrix *c = encode(spec, 4, 1, 2, PE_VIEW_COS);
		struct pe_matrix *s = encode(spec, 4, 1, 2, PE_VIEW_SIN);
		for (size_t m = 0; m < 2; m++) {
			double out[4];
			rotate(pe_matrix_row(c, m), pe_matrix_row(s, m), x, out, 4, half);
			assert_row_near(out, want[m][half], 4, 5e-7);
		}
		pe_matrix_destroy(c);
		pe_matrix_destroy(s);
	}
	/* The angle view is m * theta, exactly. */
	struct pe_matrix *a = encode("rope", 4, 3, 1, PE_VIEW_ANGLE);
	assert_true(a->data[0] == 3.0 && a->data[1] == 3.0);
	assert_true(fabs(a->data[2] - 0.03) < 1e-17);
	pe_matrix_destroy(a);
}

static void rope_relative_property(void **state)
{
	(void)state;
	/* <R_m q, R_n k> = <R_{m+t} q, R_{n+t} k>, for both layouts and partial rotary. */
	const char *specs[] = {"rope", "rope:layout=half", "rope:layout=half,rotary=0.5",
	                       "rope:base=500000"};
	double q[32], k[32];
	for (int j = 0; j < 32; j++) {
		q[j] = sin(1.0 + j * 0.7);
		k[j] = cos(0.3 + j * 1.3);
	}
	for (size_t sp = 0; sp < 4; sp++) {
		int half = strstr(specs[sp], "half") != NULL;
		struct pe_scheme *s = scheme(specs[sp]);
		size_t d_rot = pe_rope_rotary_width(s, 32);
		pe_scheme_destroy(s);
		const uint64_t pos[4] = {3, 10, 103, 110};
		double rq[4][32], rk[4][32];
		struct pe_matrix *c = encode(specs[sp], 32, 0, 111, PE_VIEW_COS);
		struct pe_matrix *sn = encode(specs[sp], 32, 0, 111, PE_VIEW_SIN);
		for (int p = 0; p < 4; p++) {
			/* Only the first d_rot features rotate; the rest pass through. */
			rotate(pe_matrix_row(c, pos[p]), pe_matrix_row(sn, pos[p]), q, rq[p], d_rot,
			       half);
			rotate(pe_matrix_row(c, pos[p]), pe_matrix_row(sn, pos[p]), k, rk[p], d_rot,
			       half);
			for (size_t j = d_rot; j < 32; j++) {
				rq[p][j] = q[j];
				rk[p][j] = k[j];
			}
		}
		double a = 0, b = 0;
		for (int j = 0; j < 32; j++) {
			a += rq[0][j] * rk[1][j];
			b += rq[2][j] * rk[3][j];
		}
		assert_true(fabs(a - b) < 1e-12);
		pe_matrix_destroy(c);
		pe_matrix_destroy(sn);
	}
}

static void rope_partial_rotary_frequencies(void **state)
{
	(void)state;
	/* [2d] head 64, pct 0.25: rotary width 16, theta[:3] = [1, 0.316228, 0.1]. */
	struct pe_scheme *s = scheme("rope:rotary=0.25,layout=half");
	double theta[64];
	size_t count;
	assert_int_equal(pe_rope_rotary_width(s, 64), 16);
	assert_int_equal(pe_scheme_frequencies(s, 64, theta, &count), PE_OK);
	assert_int_equal(count, 8);
	assert_true(theta[0] == 1.0);
	assert_true(fabs(theta[1] - pow(10.0, -0.5)) < 1e-15);
	assert_true(fabs(theta[2] - 0.1) < 1e-15);
	pe_scheme_destroy(s);
	/* Unrotated columns: cos 1, sin 0, rotated all-ones stay 1. */
	struct pe_matrix *m = encode("rope:rotary=0.25,layout=half", 64, 5, 1, PE_VIEW_ROTATED);
	for (size_t j = 16; j < 64; j++)
		assert_true(m->data[j] == 1.0);
	/* Rotated all-ones: (cos - sin, sin + cos) per pair; norm^2 stays d. */
	double sum = 0;
	for (size_t j = 0; j < 64; j++)
		sum += m->data[j] * m->data[j];
	assert_true(fabs(sum - 64.0) < 1e-12);
	assert_true(fabs(m->data[0] - (cos(5.0) - sin(5.0))) < 1e-15);
	assert_true(fabs(m->data[8] - (sin(5.0) + cos(5.0))) < 1e-15);
	pe_matrix_destroy(m);
}

static void learned_is_reproducible_gaussian(void **state)
{
	(void)state;
	struct pe_matrix *m = encode("learned", 256, 0, 512, PE_VIEW_DEFAULT);
	size_t n = m->rows * m->cols;
	double mean = 0, sq = 0;
	for (size_t i = 0; i < n; i++)
		mean += m->data[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (m->data[i] - mean) * (m->data[i] - mean);
	double sd = sqrt(sq / (double)(n - 1));
	/* 131072 draws: the sample mean's sd is 0.02/362; the sd's about 0.02/512. */
	assert_true(fabs(mean) < 4 * 0.02 / 362.0);
	assert_true(fabs(sd - 0.02) < 4 * 0.02 / 512.0);
	/* Any window of positions gives the same rows as the whole table. */
	struct pe_matrix *w = encode("learned", 256, 100, 3, PE_VIEW_DEFAULT);
	assert_memory_equal(w->data, pe_matrix_row(m, 100), 3 * 256 * sizeof(double));
	pe_matrix_destroy(w);
	/* Another seed, another table; std scales it exactly. */
	w = encode("learned:seed=1", 256, 0, 1, PE_VIEW_DEFAULT);
	assert_memory_not_equal(w->data, m->data, 256 * sizeof(double));
	pe_matrix_destroy(w);
	w = encode("learned:std=0.01", 256, 0, 1, PE_VIEW_DEFAULT);
	for (size_t j = 0; j < 256; j++)
		assert_true(w->data[j] == 0.5 * m->data[j]);
	pe_matrix_destroy(w);
	pe_matrix_destroy(m);
}

static void binary_bits(void **state)
{
	(void)state;
	struct pe_matrix *m = encode("binary", 4, 5, 3, PE_VIEW_DEFAULT);
	const double want[3][4] = {{1, 0, 1, 0}, {0, 1, 1, 0}, {1, 1, 1, 0}};
	for (size_t r = 0; r < 3; r++)
		assert_row_near(pe_matrix_row(m, r), want[r], 4, 0);
	pe_matrix_destroy(m);
	m = encode("binary", 70, (1ull << 52) + 1, 1, PE_VIEW_DEFAULT);
	assert_true(m->data[0] == 1 && m->data[1] == 0 && m->data[52] == 1 && m->data[69] == 0);
	pe_matrix_destroy(m);
}

static void refusals(void **state)
{
	(void)state;
	struct pe_matrix *m = (struct pe_matrix *)1;
	const char *why = NULL;
	struct pe_scheme *s = scheme("rope");
	assert_int_equal(pe_encode_check(s, 5, PE_VIEW_DEFAULT, &why), PE_ERANGE);
	assert_non_null(why);
	assert_int_equal(pe_encode(s, 5, 0, 4, PE_VIEW_DEFAULT, &m), PE_ERANGE);
	assert_null(m);
	assert_int_equal(pe_encode(s, 4, (uint64_t)PE_POSITION_MAX, 2, PE_VIEW_DEFAULT, &m),
	                 PE_ERANGE);
	assert_int_equal(pe_encode(s, SIZE_MAX / 2, 0, 4, PE_VIEW_DEFAULT, &m), PE_ETOOBIG);
	pe_scheme_destroy(s);
	s = scheme("sinusoidal");
	assert_int_equal(pe_encode_check(s, 8, PE_VIEW_COS, &why), PE_EUNSUPPORTED);
	assert_int_equal(pe_encode_check(s, 0, PE_VIEW_DEFAULT, &why), PE_ERANGE);
	pe_scheme_destroy(s);
	s = scheme("alibi");
	assert_int_equal(pe_encode_check(s, 8, PE_VIEW_DEFAULT, &why), PE_EUNSUPPORTED);
	pe_scheme_destroy(s);
	s = scheme("x.npy");
	double row[4];
	assert_int_equal(pe_encode_rows(s, 4, 0, 1, PE_VIEW_DEFAULT, row), PE_EUNSUPPORTED);
	pe_scheme_destroy(s);
}

static void window_rows_are_block_means(void **state)
{
	(void)state;
	/* Against brute force: the mean of every row of each block. */
	const char *specs[] = {"sinusoidal",
	                       "sinusoidal:layout=blocks,freq=t2t,start=2",
	                       "sinusoidal:base=10",
	                       "rope",
	                       "rope:layout=half,rotary=0.5,scaling=yarn",
	                       "sinusoidal:freq=t2t",
	                       "sinusoidal:layout=blocks",
	                       "rope:rotary=0.75"};
	const enum pe_view views[] = {PE_VIEW_DEFAULT, PE_VIEW_ANGLE, PE_VIEW_COS, PE_VIEW_SIN};
	const size_t widths[] = {7, 16};
	for (size_t sp = 0; sp < 8; sp++)
		for (size_t vw = 0; vw < 4; vw++)
			for (size_t wd = 0; wd < 2; wd++) {
				struct pe_scheme *s = scheme(specs[sp]);
				size_t d = widths[wd];
				if (pe_encode_check(s, d, views[vw], NULL) != PE_OK) {
					pe_scheme_destroy(s);
					continue;
				}
				struct pe_window w = {1000, 103, 10};
				struct pe_matrix *full = NULL;
				assert_int_equal(pe_encode(s, d, w.first, w.n, views[vw], &full),
				                 PE_OK);
				double got[10 * 16], cgot[10 * 17];
				assert_int_equal(pe_encode_window(s, d, &w, 0, 10, views[vw], got),
				                 PE_OK);
				/* the same blocks given one by one, the columns last first, and one
				 * twice */
				size_t cols[17];
				for (size_t j = 0; j < d; j++)
					cols[j] = d - 1 - j;
				cols[d] = 1;
				struct pe_block blocks[10];
				for (size_t r = 0; r < 10; r++) {
					blocks[r].first =
					        w.first + (r < 3 ? 11 * r : 33 + 10 * (r - 3));
					blocks[r].n = r < 3 ? 11 : 10;
				}
				assert_int_equal(pe_encode_blocks_cols(s, d, views[vw], blocks, 10,
				                                       cols, d + 1, cgot),
				                 PE_OK);
				for (size_t r = 0; r < 10; r++) {
					/* 103 = 3 blocks of 11, then 7 of 10. */
					size_t lo = r < 3 ? 11 * r : 33 + 10 * (r - 3);
					size_t len = r < 3 ? 11 : 10;
					for (size_t j = 0; j < d; j++) {
						double mean = 0;
						for (size_t p = lo; p < lo + len; p++)
							mean += pe_matrix_row(full, p)[j];
						mean /= (double)len;
						double colv = cgot[r * (d + 1) + (d - 1 - j)];
						if (fabs(colv - mean) > 1e-12 ||
						    (j == 1 && cgot[r * (d + 1) + d] != colv))
							fail_msg(
							        "%s view %zu d=%zu row %zu col %zu "
							        "alone: %.15g vs %.15g",
							        specs[sp], vw, d, r, j, colv, mean);
						if (fabs(got[r * d + j] - mean) > 1e-12)
							fail_msg("%s view %zu d=%zu row %zu col "
							         "%zu: "
							         "%.15g vs %.15g",
							         specs[sp], vw, d, r, j,
							         got[r * d + j], mean);
					}
				}
				pe_matrix_destroy(full);
				pe_scheme_destroy(s);
			}
	struct pe_scheme *s = scheme("learned");
	struct pe_window w = {0, 100, 10};
	double row[8];
	assert_int_equal(pe_encode_window(s, 8, &w, 0, 1, PE_VIEW_DEFAULT, row), PE_EUNSUPPORTED);
	w.rows = 101;
	pe_scheme_destroy(s);
	s = scheme("sinusoidal");
	assert_int_equal(pe_encode_window(s, 8, &w, 0, 1, PE_VIEW_DEFAULT, row), PE_EINVAL);
	size_t col = 8;
	struct pe_block b = {5, 3};
	assert_int_equal(pe_encode_blocks_cols(s, 8, PE_VIEW_DEFAULT, &b, 1, &col, 1, row),
	                 PE_EINVAL);
	col = 7;
	assert_int_equal(pe_encode_blocks_cols(s, 8, PE_VIEW_DEFAULT, &b, 1, &col, 1, row), PE_OK);
	b.n = 0;
	assert_int_equal(pe_encode_blocks_cols(s, 8, PE_VIEW_DEFAULT, &b, 1, &col, 1, row),
	                 PE_EINVAL);
	pe_scheme_destroy(s);
}

static void vectors_from_a_table(void **state)
{
	(void)state;
	struct pe_matrix *t = pe_matrix_create(4, 2);
	for (size_t i = 0; i < 8; i++)
		t->data[i] = (double)i;
	struct pe_vectors v = {.table = t, .d = 2, .first = 1, .n = 3};
	double out[4];
	assert_int_equal(pe_vectors_rows(&v, 1, 2, out), PE_OK);
	const double want[] = {4, 5, 6, 7};
	assert_row_near(out, want, 4, 0);
	assert_int_equal(pe_vectors_rows(&v, 2, 2, out), PE_ERANGE);
	pe_matrix_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(sinusoidal_paper_reference),
	        cmocka_unit_test(sinusoidal_t2t_and_blocks_reference),
	        cmocka_unit_test(sinusoidal_odd_width),
	        cmocka_unit_test(sinusoidal_rows_have_norm_sqrt_half_d),
	        cmocka_unit_test(sinusoidal_start_shifts_the_argument),
	        cmocka_unit_test(large_positions_stay_exact),
	        cmocka_unit_test(rope_reference_rotation),
	        cmocka_unit_test(rope_relative_property),
	        cmocka_unit_test(rope_partial_rotary_frequencies),
	        cmocka_unit_test(learned_is_reproducible_gaussian),
	        cmocka_unit_test(binary_bits),
	        cmocka_unit_test(refusals),
	        cmocka_unit_test(window_rows_are_block_means),
	        cmocka_unit_test(vectors_from_a_table),
	};
	return cmocka_run_group_tests_name("encode", tests, NULL, NULL);
}
