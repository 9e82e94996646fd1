/*
 * Numerical robustness at the edges: positions up to 2^53 (2^40 in every
 * analysis), bases from 1.0001 to 1e12, widths up to 65536. Every value
 * must be finite and obey a closed form that holds whatever the angle:
 *   sinusoidal  sin^2 + cos^2 = 1 per pair, so a row's norm is sqrt(d/2);
 *               column 0 is sin(p) exactly (frequency base^0 = 1)
 *   rope        rotating the all-ones vector keeps its norm sqrt(d);
 *               cos^2 + sin^2 = 1 in the cos and sin views
 *   distance    0 from a position to itself, symmetric, and
 *               |x_p - x_q|^2 = d - 2 sum_k cos((q - p) w_k)
 *   corr        1 with itself, inside [-1, 1]
 *   decay       d/2 at offset 0 (sinusoidal), d for rope's all-ones,
 *               (d/2 + 1)/2 for the RoFormer bound
 *   freqs       theta_0 = 1, theta_k = base^(-2k/d) decreasing, finite
 * Positions 2^52 and 2^53 - 2 caught the third-order series of
 * pe_exact_sincos() (lib/scheme/angle.c) off by 5e-3 where ulp(angle) nears 1.
 * or fail with a status, never a NaN or an infinity.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/decay.h>
#include <posenc/encode.h>
#include <posenc/freqs.h>
#include <posenc/pairwise.h>
#include <posenc/scheme.h>

#include "near.h"

static const char *const bases[] = {"1.0001", "1.5", "10", "10000", "500000", "1e12"};
#define NBASES (sizeof(bases) / sizeof(bases[0]))
static const size_t widths[] = {2, 8, 64, 1024, 65536};
#define NWIDTHS (sizeof(widths) / sizeof(widths[0]))
static const uint64_t positions[] = {
        0,
        1,
        1000,
        (uint64_t)1 << 20,
        ((uint64_t)1 << 40) - 1,
        (uint64_t)1 << 40,
        (uint64_t)1 << 52,
        ((uint64_t)1 << 53) - 2,
};
#define NPOS (sizeof(positions) / sizeof(positions[0]))

__attribute__((format(printf, 1, 2))) static struct pe_scheme *parse(const char *fmt, ...)
{
	char spec[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(spec, sizeof(spec), fmt, ap);
	va_end(ap);
	struct pe_scheme *s = NULL;
	char *err = NULL;
	if (pe_scheme_parse(spec, &s, &err) != PE_OK) {
		print_error("%s: %s\n", spec, err ? err : "?");
		free(err);
		fail();
	}
	return s;
}

static void all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i])) {
			print_error("element %zu is %g\n", i, x[i]);
			fail();
		}
}

/* Two rows at each position: p and p + 1. */
static void sinusoidal_rows(void **state)
{
	(void)state;
	for (size_t b = 0; b < NBASES; b++) {
		for (size_t w = 0; w < NWIDTHS; w++) {
			size_t d = widths[w];
			for (int layout = 0; layout < 2; layout++) {
				struct pe_scheme *s =
				        parse("sinusoidal:base=%s,layout=%s", bases[b],
				              layout ? "blocks" : "interleaved");
				double *row = malloc(2 * d * sizeof(double));
				assert_non_null(row);
				for (size_t p = 0; p < NPOS; p++) {
					assert_int_equal(pe_encode_rows(s, d, positions[p], 2,
					                                PE_VIEW_DEFAULT, row),
					                 PE_OK);
					all_finite(row, 2 * d);
					for (size_t r = 0; r < 2; r++) {
						const double *x = row + r * d;
						double norm2 = 0.0;
						for (size_t k = 0; k < d / 2; k++) {
							double sn = layout ? x[k] : x[2 * k];
							double cs = layout ? x[d / 2 + k]
							                   : x[2 * k + 1];
							assert_near(sn * sn + cs * cs, 1.0, 1e-15);
							norm2 += sn * sn + cs * cs;
						}
						assert_rel(sqrt(norm2), sqrt((double)d / 2.0),
						           1e-14);
						/* frequency 1: sin(p) of an exact double p */
						double pos = (double)(positions[p] + r);
						assert_near(x[0], sin(pos), 2e-16);
					}
				}
				free(row);
				pe_scheme_destroy(s);
			}
		}
	}
}

/* t2t divides by d/2 - 1: d = 2 has one pair, frequency 1, never 0/0. */
static void t2t_narrow(void **state)
{
	(void)state;
	for (size_t d = 1; d <= 4; d++) {
		struct pe_scheme *s = parse("sinusoidal:freq=t2t");
		double row[8];
		enum pe_status st =
		        pe_encode_rows(s, d, (uint64_t)1 << 40, 1, PE_VIEW_DEFAULT, row);
		if (st == PE_OK)
			all_finite(row, d);
		else
			assert_int_equal(st, PE_ERANGE);
		pe_scheme_destroy(s);
	}
	/* Odd widths of the paper table: the lone sine is finite too. */
	struct pe_scheme *s = parse("sinusoidal:base=1e12");
	double row[3];
	assert_int_equal(pe_encode_rows(s, 3, (uint64_t)1 << 40, 1, PE_VIEW_DEFAULT, row), PE_OK);
	all_finite(row, 3);
	assert_near(row[0] * row[0] + row[1] * row[1], 1.0, 4e-16);
	pe_scheme_destroy(s);
}

static void rope_views(void **state)
{
	(void)state;
	for (size_t b = 0; b < NBASES; b++) {
		for (size_t w = 0; w < NWIDTHS; w++) {
			size_t d = widths[w];
			struct pe_scheme *s = parse("rope:base=%s", bases[b]);
			double *rot = malloc(d * sizeof(double));
			double *c = malloc(d * sizeof(double));
			double *sn = malloc(d * sizeof(double));
			assert_true(rot && c && sn);
			for (size_t p = 0; p < NPOS; p++) {
				uint64_t pos = positions[p];
				assert_int_equal(pe_encode_rows(s, d, pos, 1, PE_VIEW_ROTATED, rot),
				                 PE_OK);
				assert_int_equal(pe_encode_rows(s, d, pos, 1, PE_VIEW_COS, c),
				                 PE_OK);
				assert_int_equal(pe_encode_rows(s, d, pos, 1, PE_VIEW_SIN, sn),
				                 PE_OK);
				all_finite(rot, d);
				all_finite(c, d);
				all_finite(sn, d);
				double norm2 = 0.0;
				for (size_t j = 0; j < d; j++) {
					norm2 += rot[j] * rot[j];
					assert_near(c[j] * c[j] + sn[j] * sn[j], 1.0, 1e-15);
				}
				assert_rel(norm2, (double)d, 1e-14);
			}
			free(rot);
			free(c);
			free(sn);
			pe_scheme_destroy(s);
		}
	}
}

/* Positions past 2^53 are refused, not rounded. */
static void position_limit(void **state)
{
	(void)state;
	struct pe_scheme *s = parse("sinusoidal");
	double row[8];
	uint64_t max = (uint64_t)PE_POSITION_MAX;
	assert_int_equal(pe_encode_rows(s, 8, max, 1, PE_VIEW_DEFAULT, row), PE_OK);
	all_finite(row, 8);
	assert_int_equal(pe_encode_rows(s, 8, max, 2, PE_VIEW_DEFAULT, row), PE_ERANGE);
	assert_int_equal(pe_encode_rows(s, 8, UINT64_MAX, 1, PE_VIEW_DEFAULT, row), PE_ERANGE);
	assert_int_equal(pe_encode_rows(s, 0, 0, 1, PE_VIEW_DEFAULT, row), PE_ERANGE);
	pe_scheme_destroy(s);
	struct pe_scheme *bad = NULL;
	char *err = NULL;
	const char *specs[] = {"sinusoidal:base=1", "sinusoidal:base=nan",   "rope:base=inf",
	                       "rope:base=0.5",     "sinusoidal:base=1e400", "rope:base=-10"};
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		assert_int_not_equal(pe_scheme_parse(specs[i], &bad, &err), PE_OK);
		assert_null(bad);
		assert_non_null(err);
		assert_non_null(strstr(err, "base"));
		free(err);
		err = NULL;
	}
}

/* The pairwise metrics at 2^40 against closed forms. */
static void pairwise_far(void **state)
{
	(void)state;
	const size_t n = 4;
	for (size_t b = 0; b < NBASES; b++) {
		for (size_t w = 0; w < NWIDTHS; w++) {
			size_t d = widths[w];
			struct pe_scheme *s = parse("sinusoidal:base=%s", bases[b]);
			struct pe_vectors v = {s, NULL, d, PE_VIEW_DEFAULT, (uint64_t)1 << 40, n};
			struct pe_matrix *dist = NULL, *corr = NULL;
			assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_L2, 0, &dist), PE_OK);
			assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_CORR, 0, &corr), PE_OK);
			all_finite(dist->data, n * n);
			double base = strtod(bases[b], NULL);
			for (size_t i = 0; i < n; i++) {
				assert_near(dist->data[i * n + i], 0.0, 1e-12 * sqrt((double)d));
				assert_near(corr->data[i * n + i], 1.0, 1e-12);
				for (size_t j = 0; j < n; j++) {
					double x = dist->data[i * n + j], c = corr->data[i * n + j];
					assert_true(x == dist->data[j * n + i]);
					assert_true(isnan(c) || (c >= -1.0 && c <= 1.0));
					/* |x_p - x_q|^2 = d - 2 sum cos(delta w_k) */
					double delta = (double)j - (double)i, sum = 0.0;
					for (size_t k = 0; k < d / 2; k++)
						sum += cos(delta *
						           pow(base, -2.0 * (double)k / (double)d));
					double want2 = (double)d - 2.0 * sum;
					assert_near(x * x, want2 < 0 ? 0 : want2, 1e-9 * (double)d);
				}
			}
			pe_matrix_destroy(dist);
			pe_matrix_destroy(corr);
			pe_scheme_destroy(s);
		}
	}
}

static void decay_at_zero(void **state)
{
	(void)state;
	const size_t K = 3;
	double out[4];
	for (size_t b = 0; b < NBASES; b++) {
		for (size_t w = 0; w < NWIDTHS; w++) {
			size_t d = widths[w];
			struct pe_scheme *s = parse("sinusoidal:base=%s", bases[b]);
			struct pe_vectors v = {s,    NULL, d, PE_VIEW_DEFAULT, (uint64_t)1 << 40,
			                       K + 1};
			assert_int_equal(pe_decay_curve(&v, PE_DECAY_DOT, K, out), PE_OK);
			all_finite(out, K + 1);
			assert_rel(out[0], (double)d / 2.0, 1e-14);
			for (size_t k = 1; k <= K; k++)
				assert_true(fabs(out[k]) <= (double)d / 2.0 * (1 + 1e-14));
			pe_scheme_destroy(s);

			s = parse("rope:base=%s", bases[b]);
			v.scheme = s;
			assert_int_equal(pe_decay_curve(&v, PE_DECAY_DOT, K, out), PE_OK);
			all_finite(out, K + 1);
			assert_rel(out[0], (double)d, 1e-14);
			assert_int_equal(pe_decay_curve(&v, PE_DECAY_BOUND, K, out), PE_OK);
			all_finite(out, K + 1);
			assert_rel(out[0], ((double)d / 2.0 + 1.0) / 2.0, 1e-12);
			pe_scheme_destroy(s);
		}
	}
}

static void frequencies(void **state)
{
	(void)state;
	for (size_t b = 0; b < NBASES; b++) {
		double base = strtod(bases[b], NULL);
		for (size_t w = 0; w < NWIDTHS; w++) {
			size_t d = widths[w];
			for (int rope = 0; rope < 2; rope++) {
				struct pe_scheme *s =
				        parse("%s:base=%s", rope ? "rope" : "sinusoidal", bases[b]);
				double *theta = malloc((d + 1) * sizeof(double));
				size_t count = 0;
				assert_int_equal(pe_scheme_frequencies(s, d, theta, &count), PE_OK);
				assert_int_equal(count, d / 2);
				all_finite(theta, count);
				assert_near(theta[0], 1.0, 0.0);
				for (size_t k = 1; k < count; k++) {
					assert_true(theta[k] > 0.0 && theta[k] < theta[k - 1]);
					assert_rel(theta[k],
					           pow(base, -2.0 * (double)k / (double)d), 1e-13);
				}
				free(theta);
				struct pe_freq_table *t = NULL;
				assert_int_equal(pe_freq_table_create(s, d, NULL, &t), PE_OK);
				all_finite(t->values->data, t->values->rows * t->values->cols);
				for (size_t k = 0; k < t->values->rows; k++)
					assert_rel(t->values->data[k * t->values->cols + 1],
					           6.283185307179586 /
					                   t->values->data[k * t->values->cols],
					           1e-15);
				pe_freq_table_destroy(t);
				pe_scheme_destroy(s);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(sinusoidal_rows), cmocka_unit_test(t2t_narrow),
	        cmocka_unit_test(rope_views),      cmocka_unit_test(position_limit),
	        cmocka_unit_test(pairwise_far),    cmocka_unit_test(decay_at_zero),
	        cmocka_unit_test(frequencies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
