/*
 * Pairwise distances and correlations against independent values: closed
 * forms, hand-worked cases, and brute force over rows written here from the
 * formulas of doc/conventions.md §1-§2 (not with the library's
 * encoders), compared with the structure-aware path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <posenc/encode.h>
#include <posenc/pairwise.h>
#include <posenc/scheme.h>

#include "analysis/pairwise_internal.h"

#define TOL   1e-12
#define SQRT2 1.4142135623730950488

static struct pe_scheme *parse(const char *spec)
{
	struct pe_scheme *s = NULL;
	char *err = NULL;
	enum pe_status st = pe_scheme_parse(spec, &s, &err);
	if (st != PE_OK)
		fprintf(stderr, "# %s: %s\n", spec, err ? err : "?");
	free(err);
	assert_int_equal(st, PE_OK);
	return s;
}

static struct pe_vectors vec(const struct pe_scheme *s, size_t d, uint64_t first, size_t n)
{
	struct pe_vectors v = {s, NULL, d, PE_VIEW_DEFAULT, first, n};
	return v;
}

/* ---- reference rows from the formulas ---- */

struct ref {
	int rope;
	int blocks; /* sinusoidal [sin | cos]; rope half split */
	int t2t;
	double base, start, rotary;
};

static void ref_row(const struct ref *r, size_t d, double p, double *x)
{
	memset(x, 0, d * sizeof(double));
	if (r->rope) {
		size_t dr = (size_t)((double)d * r->rotary), h = dr / 2;
		for (size_t i = 0; i < h; i++) {
			double th = 1.0 / pow(r->base, (double)(2 * i) / (double)dr);
			double c = cos(p * th), s = sin(p * th);
			size_t a = r->blocks ? i : 2 * i, b = r->blocks ? i + h : 2 * i + 1;
			x[a] = c - s;
			x[b] = s + c;
		}
		for (size_t j = dr; j < d; j++)
			x[j] = 1.0;
		return;
	}
	p += r->start;
	size_t h = d / 2;
	size_t nsin = r->t2t ? h : (d + 1) / 2;
	for (size_t k = 0; k < nsin; k++) {
		double w = r->t2t ? exp(-(double)k * log(r->base) / (double)(h > 1 ? h - 1 : 1))
		                  : 1.0 / pow(r->base, (double)(2 * k) / (double)d);
		double s = sin(p * w), c = cos(p * w);
		if (r->blocks) {
			x[k] = s;
			if (k < h)
				x[nsin + k] = c;
		} else {
			x[2 * k] = s;
			if (k < h)
				x[2 * k + 1] = c;
		}
	}
}

static double brute(enum pe_metric m, const double *a, const double *b, size_t d)
{
	double acc = 0.0, na = 0.0, nb = 0.0, ma = 0.0, mb = 0.0;
	switch (m) {
	case PE_METRIC_L2:
		for (size_t j = 0; j < d; j++)
			acc += (a[j] - b[j]) * (a[j] - b[j]);
		return sqrt(acc);
	case PE_METRIC_L1:
		for (size_t j = 0; j < d; j++)
			acc += fabs(a[j] - b[j]);
		return acc;
	case PE_METRIC_LINF:
		for (size_t j = 0; j < d; j++)
			acc = fmax(acc, fabs(a[j] - b[j]));
		return acc;
	case PE_METRIC_COSINE:
		for (size_t j = 0; j < d; j++) {
			acc += a[j] * b[j];
			na += a[j] * a[j];
			nb += b[j] * b[j];
		}
		return 1.0 - acc / sqrt(na * nb);
	case PE_METRIC_CORR:
		for (size_t j = 0; j < d; j++) {
			ma += a[j];
			mb += b[j];
		}
		ma /= (double)d;
		mb /= (double)d;
		for (size_t j = 0; j < d; j++) {
			acc += (a[j] - ma) * (b[j] - mb);
			na += (a[j] - ma) * (a[j] - ma);
			nb += (b[j] - mb) * (b[j] - mb);
		}
		if (na == 0.0 || nb == 0.0)
			return NAN;
		return acc / sqrt(na * nb);
	}
	return NAN;
}

static void assert_close(double got, double want, double tol, const char *what)
{
	if (isnan(want) && isnan(got))
		return;
	if (!(fabs(got - want) <= tol)) {
		fprintf(stderr, "# %s: got %.17g want %.17g (diff %.3g)\n", what, got, want,
		        fabs(got - want));
		fail();
	}
}

static double *ref_table(const struct ref *r, size_t d, uint64_t first, size_t n)
{
	double *t = malloc(n * d * sizeof(double));
	assert_non_null(t);
	for (size_t i = 0; i < n; i++)
		ref_row(r, d, (double)(first + i), t + i * d);
	return t;
}

/* ---- closed forms and hand-worked cases ---- */

static void sinusoidal_distance_closed_form(void **state)
{
	(void)state;
	const char *specs[] = {"sinusoidal", "sinusoidal:layout=blocks"};
	size_t d = 16, n = 40;
	for (int k = 0; k < 2; k++) {
		struct pe_scheme *s = parse(specs[k]);
		struct pe_vectors v = vec(s, d, 0, n);
		struct pe_matrix *m = NULL;
		assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_L2, 0, &m), PE_OK);
		for (size_t a = 0; a < n; a++) {
			for (size_t b = 0; b < n; b++) {
				double D = (double)a - (double)b, sum = 0.0;
				for (size_t i = 0; i < d / 2; i++)
					sum += cos(D / pow(10000.0, (double)(2 * i) / (double)d));
				double want = sqrt(fmax(0.0, d - 2.0 * sum));
				assert_close(m->data[a * n + b], want, 1e-10, "closed form");
			}
		}
		/* m = 0, n = 1 with d = 16 by hand: sqrt(16 - 2 * 6.904...) */
		pe_matrix_destroy(m);
		pe_scheme_destroy(s);
	}
	/* d = 2: rows (sin p, cos p), |x_1 - x_0| = 2 sin(1/2) */
	struct pe_scheme *s = parse("sinusoidal");
	struct pe_vectors v = vec(s, 2, 0, 2);
	struct pe_matrix *m = NULL;
	assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_L2, 0, &m), PE_OK);
	assert_close(m->data[1], 2.0 * sin(0.5), 1e-15, "d=2");
	assert_close(m->data[0], 0.0, 0.0, "diagonal");
	pe_matrix_destroy(m);
	assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_COSINE, 0, &m), PE_OK);
	assert_close(m->data[1], 1.0 - cos(1.0), 1e-15, "d=2 cosine");
	pe_matrix_destroy(m);
	pe_scheme_destroy(s);
}

static void binary_hand_worked(void **state)
{
	(void)state;
	/* binary d=2, positions 0..2: rows [0,0], [1,0], [0,1] */
	struct pe_scheme *s = parse("binary");
	struct pe_vectors v = vec(s, 2, 0, 3);
	const double want[][9] = {
	        [PE_METRIC_L2] = {0, 1, 1, 1, 0, SQRT2, 1, SQRT2, 0},
	        [PE_METRIC_L1] = {0, 1, 1, 1, 0, 2, 1, 2, 0},
	        [PE_METRIC_LINF] = {0, 1, 1, 1, 0, 1, 1, 1, 0},
	        [PE_METRIC_COSINE] = {NAN, NAN, NAN, NAN, 0, 1, NAN, 1, 0},
	        [PE_METRIC_CORR] = {NAN, NAN, NAN, NAN, 1, -1, NAN, -1, 1},
	};
	for (int k = PE_METRIC_L2; k <= PE_METRIC_CORR; k++) {
		struct pe_matrix *m = NULL;
		assert_int_equal(pe_pairwise_matrix(&v, (enum pe_metric)k, 0, &m), PE_OK);
		for (int i = 0; i < 9; i++) {
			if (isnan(want[k][i]))
				assert_true(isnan(m->data[i]));
			else
				assert_close(m->data[i], want[k][i], 1e-15, pe_metric_name(k));
		}
		pe_matrix_destroy(m);
	}
	pe_scheme_destroy(s);
}

static void table_hand_worked(void **state)
{
	(void)state;
	/* rows 1..3 of a 4-row table: [1,2,3], [3,2,1], [2,2,2] */
	double data[] = {9, 9, 9, 1, 2, 3, 3, 2, 1, 2, 2, 2};
	struct pe_matrix t = {4, 3, data};
	struct pe_vectors v = {NULL, &t, 3, PE_VIEW_DEFAULT, 1, 3};
	struct pe_matrix *m = NULL;
	assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_CORR, 0, &m), PE_OK);
	assert_close(m->data[0], 1.0, 1e-15, "self");
	assert_close(m->data[1], -1.0, 1e-15, "reversed");
	assert_true(isnan(m->data[2]));
	pe_matrix_destroy(m);
	assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_COSINE, 0, &m), PE_OK);
	assert_close(m->data[1], 1.0 - 10.0 / 14.0, 1e-15, "cosine");
	assert_close(m->data[2], 1.0 - 12.0 / sqrt(14.0 * 12.0), 1e-15, "cosine");
	pe_matrix_destroy(m);
	assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_L1, 0, &m), PE_OK);
	assert_close(m->data[1], 4.0, 0, "l1");
	assert_close(m->data[5], 2.0, 0, "l1");
	pe_matrix_destroy(m);
	/* rows past the table */
	v.n = 4;
	assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_L2, 0, &m), PE_ERANGE);
	assert_null(m);
}

static void corr_self_one_and_symmetric(void **state)
{
	(void)state;
	const char *specs[] = {"sinusoidal", "sinusoidal:freq=t2t,layout=blocks", "rope",
	                       "learned:seed=3", "binary"};
	for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		struct pe_scheme *s = parse(specs[k]);
		struct pe_vectors v = vec(s, 11 + (k == 2), 1, 60);
		for (int metric = PE_METRIC_COSINE; metric <= PE_METRIC_CORR;
		     metric += PE_METRIC_CORR - PE_METRIC_COSINE) {
			struct pe_matrix *m = NULL;
			assert_int_equal(pe_pairwise_matrix(&v, metric, 0, &m), PE_OK);
			for (size_t a = 0; a < v.n; a++) {
				double self = m->data[a * v.n + a];
				if (metric == PE_METRIC_CORR && !isnan(self))
					assert_close(self, 1.0, 1e-14, specs[k]);
				if (metric == PE_METRIC_COSINE)
					assert_close(self, 0.0, 1e-14, specs[k]);
				for (size_t b = 0; b < v.n; b++) {
					double x = m->data[a * v.n + b], y = m->data[b * v.n + a];
					assert_true((isnan(x) && isnan(y)) || x == y);
				}
			}
			pe_matrix_destroy(m);
		}
		pe_scheme_destroy(s);
	}
	/* rope position 0 is the all-ones vector: constant, corr undefined */
	struct pe_scheme *s = parse("rope");
	struct pe_vectors v = vec(s, 8, 0, 3);
	struct pe_matrix *m = NULL;
	assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_CORR, 0, &m), PE_OK);
	assert_true(isnan(m->data[0]) && isnan(m->data[1]) && isnan(m->data[3]));
	assert_close(m->data[4], 1.0, 1e-14, "rope self");
	pe_matrix_destroy(m);
	pe_scheme_destroy(s);
}

/* ---- brute force vs structure-aware, random sizes ---- */

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void check_against_ref(const char *spec, const struct ref *r, size_t d, uint64_t first,
                              size_t n)
{
	struct pe_scheme *s = parse(spec);
	struct pe_vectors v = vec(s, d, first, n);
	double *rows = ref_table(r, d, first, n);
	struct pe_toeplitz tz;
	int found = 0;
	assert_int_equal(pe_toeplitz_init(&v, &tz, &found), PE_OK);
	assert_true(found);
	pe_toeplitz_release(&tz);
	enum pe_metric ms[] = {PE_METRIC_L2, PE_METRIC_COSINE, PE_METRIC_CORR};
	for (int k = 0; k < 3; k++) {
		struct pe_matrix *m = NULL;
		assert_int_equal(pe_pairwise_matrix(&v, ms[k], 0, &m), PE_OK);
		for (size_t a = 0; a < n; a++) {
			for (size_t b = 0; b < n; b++) {
				char what[160];
				const char *name = pe_metric_name(ms[k]);
				snprintf(what, sizeof(what), "%s d=%zu p0=%llu n=%zu %s (%zu,%zu)",
				         spec, d, (unsigned long long)first, n, name, a, b);
				double want = brute(ms[k], rows + a * d, rows + b * d, d);
				assert_close(m->data[a * n + b], want, TOL, what);
			}
		}
		pe_matrix_destroy(m);
	}
	free(rows);
	pe_scheme_destroy(s);
}

/* The same through the general path over the encoder's own rows, which
 * carry exact angles at any position. */
static void check_against_rows(const char *spec, size_t d, uint64_t first, size_t n)
{
	struct pe_scheme *s = parse(spec);
	struct pe_matrix *t = NULL;
	assert_int_equal(pe_encode(s, d, first, n, PE_VIEW_DEFAULT, &t), PE_OK);
	struct pe_vectors vs = vec(s, d, first, n);
	struct pe_vectors vt = {NULL, t, d, PE_VIEW_DEFAULT, 0, n};
	enum pe_metric ms[] = {PE_METRIC_L2, PE_METRIC_COSINE, PE_METRIC_CORR};
	for (int k = 0; k < 3; k++) {
		struct pe_matrix *a = NULL, *b = NULL;
		assert_int_equal(pe_pairwise_matrix(&vs, ms[k], 0, &a), PE_OK);
		assert_int_equal(pe_pairwise_matrix(&vt, ms[k], 0, &b), PE_OK);
		for (size_t i = 0; i < n * n; i++)
			assert_close(a->data[i], b->data[i], TOL, spec);
		pe_matrix_destroy(a);
		pe_matrix_destroy(b);
	}
	pe_matrix_destroy(t);
	pe_scheme_destroy(s);
}

static void structured_equals_brute_force(void **state)
{
	(void)state;
	char spec[128];
	for (int iter = 0; iter < 60; iter++) {
		struct ref r = {0};
		r.base = iter % 3 == 0 ? 10.0 : 10000.0;
		r.blocks = (int)(next_rand() % 2);
		r.t2t = (int)(next_rand() % 2);
		r.start = (double)(next_rand() % 3);
		size_t d = 1 + next_rand() % 40;
		if (r.t2t && d < 2)
			d = 2;
		size_t n = 1 + next_rand() % 120;
		uint64_t first = next_rand() % 300;
		snprintf(spec, sizeof(spec), "sinusoidal:base=%g,layout=%s,freq=%s,start=%g",
		         r.base, r.blocks ? "blocks" : "interleaved", r.t2t ? "t2t" : "paper",
		         r.start);
		check_against_ref(spec, &r, d, first, n);
		check_against_rows(spec, d, first + next_rand() % 100000000u, n);
	}
	const double rotary[] = {1.0, 0.5, 0.25, 0.75};
	for (int iter = 0; iter < 40; iter++) {
		struct ref r = {0};
		r.rope = 1;
		r.base = iter % 4 == 0 ? 500000.0 : 10000.0;
		r.blocks = (int)(next_rand() % 2);
		r.rotary = rotary[next_rand() % 4];
		size_t d = 2 + next_rand() % 40;
		if ((size_t)((double)d * r.rotary) < 2 || (size_t)((double)d * r.rotary) % 2)
			continue;
		size_t n = 1 + next_rand() % 120;
		uint64_t first = next_rand() % 300;
		snprintf(spec, sizeof(spec), "rope:base=%g,layout=%s,rotary=%g", r.base,
		         r.blocks ? "half" : "interleaved", r.rotary);
		check_against_ref(spec, &r, d, first, n);
		check_against_rows(spec, d, first + next_rand() % 100000000u, n);
	}
}

/* Scaled RoPE carries the attention factor: compare with the general path
 * over the encoder's own rows. */
static void scaled_rope_matches_general_path(void **state)
{
	(void)state;
	const char *specs[] = {"rope:scaling=yarn,factor=4", "rope:scaling=linear,factor=2",
	                       "rope:scaling=llama3,base=500000"};
	for (size_t k = 0; k < 3; k++) {
		struct pe_scheme *s = parse(specs[k]);
		size_t d = 32, n = 70;
		struct pe_matrix *t = NULL;
		enum pe_status st = pe_encode(s, d, 0, 5 + n, PE_VIEW_DEFAULT, &t);
		if (st == PE_EUNSUPPORTED) {
			printf("# %s: scaling not available yet, not compared\n", specs[k]);
			pe_scheme_destroy(s);
			continue;
		}
		assert_int_equal(st, PE_OK);
		struct pe_vectors vs = vec(s, d, 5, n);
		struct pe_vectors vt = {NULL, t, d, PE_VIEW_DEFAULT, 5, n};
		for (int metric = PE_METRIC_L2; metric <= PE_METRIC_CORR; metric++) {
			if (metric == PE_METRIC_L1 || metric == PE_METRIC_LINF)
				continue;
			struct pe_matrix *a = NULL, *b = NULL;
			assert_int_equal(pe_pairwise_matrix(&vs, metric, 0, &a), PE_OK);
			assert_int_equal(pe_pairwise_matrix(&vt, metric, 0, &b), PE_OK);
			for (size_t i = 0; i < n * n; i++)
				assert_close(a->data[i], b->data[i], TOL, specs[k]);
			pe_matrix_destroy(a);
			pe_matrix_destroy(b);
		}
		pe_matrix_destroy(t);
		pe_scheme_destroy(s);
	}
}

/* At large positions (10^8) the structure-aware path still agrees with the rows
 * the encoder writes (exact angles), lone sine column included. */
static void structured_matches_rows_far_out(void **state)
{
	(void)state;
	const char *specs[] = {"sinusoidal", "sinusoidal:layout=blocks,start=2",
	                       "sinusoidal:freq=t2t", "rope", "rope:rotary=0.5,layout=half"};
	const size_t dims[] = {1, 3, 7, 16, 12};
	for (size_t k = 0; k < 5; k++) {
		struct pe_scheme *s = parse(specs[k]);
		size_t d = dims[k], n = 40;
		uint64_t first = 100000000ull + 12345;
		struct pe_matrix *t = NULL;
		assert_int_equal(pe_encode(s, d, first, n, PE_VIEW_DEFAULT, &t), PE_OK);
		struct pe_vectors vs = vec(s, d, first, n);
		struct pe_vectors vt = {NULL, t, d, PE_VIEW_DEFAULT, 0, n};
		for (int metric = PE_METRIC_L2; metric <= PE_METRIC_CORR; metric++) {
			if (metric == PE_METRIC_L1 || metric == PE_METRIC_LINF)
				continue;
			struct pe_matrix *a = NULL, *b = NULL;
			assert_int_equal(pe_pairwise_matrix(&vs, metric, 0, &a), PE_OK);
			assert_int_equal(pe_pairwise_matrix(&vt, metric, 0, &b), PE_OK);
			for (size_t i = 0; i < n * n; i++)
				assert_close(a->data[i], b->data[i], TOL, specs[k]);
			pe_matrix_destroy(a);
			pe_matrix_destroy(b);
		}
		pe_matrix_destroy(t);
		pe_scheme_destroy(s);
	}
}

/* The general path (learned, several blocks, odd tails, l1/linf on a
 * structured scheme) against brute force over the encoder's rows. */
static void general_path_equals_brute_force(void **state)
{
	(void)state;
	const char *specs[] = {"learned:seed=7", "binary", "sinusoidal", "rope"};
	const size_t dims[] = {7, 12, 9, 10};
	const size_t ns[] = {150, 70, 97, 83};
	for (size_t k = 0; k < 4; k++) {
		struct pe_scheme *s = parse(specs[k]);
		size_t d = dims[k], n = ns[k];
		uint64_t first = 3;
		struct pe_matrix *t = NULL;
		assert_int_equal(pe_encode(s, d, first, n, PE_VIEW_DEFAULT, &t), PE_OK);
		struct pe_vectors v = vec(s, d, first, n);
		for (int metric = PE_METRIC_L2; metric <= PE_METRIC_CORR; metric++) {
			struct pe_matrix *m = NULL;
			assert_int_equal(pe_pairwise_matrix(&v, metric, 0, &m), PE_OK);
			for (size_t a = 0; a < n; a++)
				for (size_t b = 0; b < n; b++)
					assert_close(
					        m->data[a * n + b],
					        brute(metric, t->data + a * d, t->data + b * d, d),
					        TOL, specs[k]);
			pe_matrix_destroy(m);
		}
		pe_matrix_destroy(t);
		pe_scheme_destroy(s);
	}
}

/* ---- grid ---- */

static size_t rstart(size_t a, size_t n, size_t parts)
{
	/* the first n % parts ranges are one longer */
	size_t q = n / parts, r = n % parts;
	return a * q + (a < r ? a : r);
}

static void check_grid_block_means(const struct pe_vectors *v, enum pe_metric metric, size_t R,
                                   size_t C, enum pe_grid_mode mode, const char *what)
{
	size_t n = v->n;
	struct pe_matrix *full = NULL, *g = NULL;
	assert_int_equal(pe_pairwise_matrix(v, metric, 0, &full), PE_OK);
	assert_int_equal(pe_pairwise_grid_mode(v, metric, R, C, mode, &g), PE_OK);
	size_t Rr = R < n ? R : n, Cc = C < n ? C : n;
	assert_int_equal(g->rows, Rr);
	assert_int_equal(g->cols, Cc);
	for (size_t a = 0; a < Rr; a++) {
		for (size_t b = 0; b < Cc; b++) {
			double sum = 0.0;
			size_t cnt = 0;
			for (size_t i = rstart(a, n, Rr); i < rstart(a + 1, n, Rr); i++)
				for (size_t j = rstart(b, n, Cc); j < rstart(b + 1, n, Cc); j++) {
					if (isnan(full->data[i * n + j]))
						continue; /* left out of the mean */
					sum += full->data[i * n + j];
					cnt++;
				}
			assert_close(g->data[a * Cc + b], cnt ? sum / (double)cnt : NAN, 1e-12,
			             what);
		}
	}
	pe_matrix_destroy(full);
	pe_matrix_destroy(g);
}

/*
 * The offset mode beyond one chunk of offsets (65536): each cell's mean
 * summed here offset by offset, sum_D g(D) * (pairs of the cell D apart),
 * in long double, from the kernel values themselves: an independent sum to
 * the grid's prefix sums.
 */
static void offset_grid_long_sets(void **state)
{
	(void)state;
	struct pe_scheme *s = parse("rope");
	size_t n = 150001, R = 3, C = 4;
	struct pe_vectors v = vec(s, 64, 7, n);
	struct pe_matrix *g = NULL;
	assert_int_equal(pe_pairwise_grid_mode(&v, PE_METRIC_L2, R, C, PE_GRID_OFFSET, &g), PE_OK);
	struct pe_toeplitz tz;
	int found = 0;
	assert_int_equal(pe_toeplitz_init(&v, &tz, &found), PE_OK);
	assert_true(found);
	double *k = malloc(n * sizeof(double));
	assert_int_equal(pe_toeplitz_range(&tz, 0, n, k), PE_OK);
	struct pe_posterm t = {0.0, sqrt(tz.total), 0.0, 0.0};
	for (size_t D = 0; D < n; D++)
		k[D] = pe_toeplitz_metric(&tz, v.d, PE_METRIC_L2, k[D], &t, &t);
	for (size_t a = 0; a < R; a++)
		for (size_t b = 0; b < C; b++) {
			long r0 = (long)rstart(a, n, R), r1 = (long)rstart(a + 1, n, R);
			long c0 = (long)rstart(b, n, C), c1 = (long)rstart(b + 1, n, C);
			long double sum = 0;
			/* pairs with r - c = s: r in [max(r0, c0 + s), min(r1, c1 + s)) */
			for (long sft = -(long)n + 1; sft < (long)n; sft++) {
				long lo = r0 > c0 + sft ? r0 : c0 + sft,
				     hi = r1 < c1 + sft ? r1 : c1 + sft;
				if (hi > lo)
					sum += (long double)k[sft < 0 ? -sft : sft] *
					       (long double)(hi - lo);
			}
			double want =
			        (double)(sum / ((long double)(r1 - r0) * (long double)(c1 - c0)));
			assert_close(g->data[a * C + b], want, 1e-12, "offset mode, n = 150001");
		}
	free(k);
	pe_toeplitz_release(&tz);
	pe_matrix_destroy(g);
	pe_scheme_destroy(s);
}

static void grid_equals_block_means(void **state)
{
	(void)state;
	struct pe_scheme *sin = parse("sinusoidal"), *rope = parse("rope:rotary=0.5");
	struct pe_scheme *odd = parse("sinusoidal:start=2"), *lrn = parse("learned");
	struct pe_vectors v = vec(sin, 16, 4, 37);
	check_grid_block_means(&v, PE_METRIC_L2, 5, 7, PE_GRID_OFFSET, "offset l2");
	check_grid_block_means(&v, PE_METRIC_COSINE, 6, 4, PE_GRID_OFFSET, "offset cosine");
	/* square: the cells above the diagonal formed, mirrored below */
	check_grid_block_means(&v, PE_METRIC_L2, 6, 6, PE_GRID_OFFSET, "offset l2, square");
	check_grid_block_means(&v, PE_METRIC_COSINE, 5, 5, PE_GRID_OFFSET, "offset cosine, square");
	check_grid_block_means(&v, PE_METRIC_L2, 5, 7, PE_GRID_AUTO, "auto l2");
	check_grid_block_means(&v, PE_METRIC_CORR, 5, 7, PE_GRID_AUTO, "auto corr");
	check_grid_block_means(&v, PE_METRIC_CORR, 6, 6, PE_GRID_AUTO, "auto corr, square");
	check_grid_block_means(&v, PE_METRIC_L1, 3, 8, PE_GRID_AUTO, "auto l1");
	check_grid_block_means(&v, PE_METRIC_L2, 100, 100, PE_GRID_AUTO, "n <= R");
	check_grid_block_means(&v, PE_METRIC_L2, 1, 1, PE_GRID_OFFSET, "one cell");
	v = vec(rope, 12, 0, 50);
	check_grid_block_means(&v, PE_METRIC_L2, 7, 9, PE_GRID_OFFSET, "rope offset");
	check_grid_block_means(&v, PE_METRIC_COSINE, 7, 9, PE_GRID_OFFSET, "rope cosine");
	check_grid_block_means(&v, PE_METRIC_CORR, 7, 9, PE_GRID_ALL, "rope corr");
	check_grid_block_means(&v, PE_METRIC_CORR, 50, 50, PE_GRID_ALL, "rope corr, nan");
	/* square grids: the upper triangle of cells formed, the rest mirrored */
	check_grid_block_means(&v, PE_METRIC_CORR, 7, 7, PE_GRID_ALL, "rope corr, square");
	check_grid_block_means(&v, PE_METRIC_CORR, 1, 1, PE_GRID_ALL, "rope corr, one cell");
	v = vec(odd, 9, 0, 41);
	check_grid_block_means(&v, PE_METRIC_L2, 6, 5, PE_GRID_AUTO, "odd d");
	check_grid_block_means(&v, PE_METRIC_COSINE, 6, 5, PE_GRID_ALL, "odd d cosine");
	check_grid_block_means(&v, PE_METRIC_CORR, 6, 6, PE_GRID_ALL, "odd d corr");
	v = vec(lrn, 10, 0, 45);
	check_grid_block_means(&v, PE_METRIC_CORR, 4, 6, PE_GRID_AUTO, "learned corr");
	check_grid_block_means(&v, PE_METRIC_LINF, 45, 45, PE_GRID_AUTO, "learned full");
	/* d >= 8: the Gram path when built with a BLAS (pairs mirrored into
	 * cells, R != C; the matrix itself is checked against fsum in
	 * tests/cli/test_gram_cli.py) */
	v = vec(lrn, 64, 0, 300);
	check_grid_block_means(&v, PE_METRIC_L2, 7, 5, PE_GRID_AUTO, "learned l2, Gram");
	check_grid_block_means(&v, PE_METRIC_COSINE, 6, 6, PE_GRID_AUTO, "learned cosine, Gram");
	check_grid_block_means(&v, PE_METRIC_CORR, 9, 4, PE_GRID_ALL, "learned corr, Gram");
	check_grid_block_means(&v, PE_METRIC_L2, 300, 300, PE_GRID_ALL, "learned l2, Gram, n = R");
	/* odd d has a lone sine column: not an offset-only metric */
	struct pe_matrix *g = NULL;
	v = vec(odd, 9, 0, 41);
	assert_int_equal(pe_pairwise_grid_mode(&v, PE_METRIC_L2, 3, 3, PE_GRID_OFFSET, &g),
	                 PE_EINVAL);
	assert_int_equal(pe_pairwise_grid(&v, PE_METRIC_L2, 0, 3, &g), PE_ERANGE);
	pe_scheme_destroy(sin);
	pe_scheme_destroy(rope);
	pe_scheme_destroy(odd);
	pe_scheme_destroy(lrn);
}

/* Sampled cells are the mean over the centres of PE_GRID_SAMPLES equal
 * sub-ranges per axis: recompute them from the full matrix. */
static void grid_sampled_uses_documented_positions(void **state)
{
	(void)state;
	/* the square grid of a table is formed above the diagonal and mirrored */
	const char *specs[] = {"sinusoidal", "learned:seed=1", "sinusoidal"};
	for (int k = 0; k < 3; k++) {
		struct pe_scheme *s = parse(specs[k]);
		size_t n = 103, R = k == 2 ? 7 : 6, C = k == 2 ? 7 : 9, S = PE_GRID_SAMPLES;
		struct pe_vectors v = vec(s, 8, 10, n);
		struct pe_matrix *full = NULL, *g = NULL;
		assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_CORR, 0, &full), PE_OK);
		assert_int_equal(
		        pe_pairwise_grid_mode(&v, PE_METRIC_CORR, R, C, PE_GRID_SAMPLED, &g),
		        PE_OK);
		for (size_t a = 0; a < R; a++) {
			size_t r0 = rstart(a, n, R), Lr = rstart(a + 1, n, R) - r0;
			for (size_t b = 0; b < C; b++) {
				size_t c0 = rstart(b, n, C), Lc = rstart(b + 1, n, C) - c0;
				double sum = 0.0;
				size_t cnt = 0;
				for (size_t x = 0; x < S && x < Lr; x++)
					for (size_t y = 0; y < S && y < Lc; y++) {
						size_t i = r0 + (2 * x + 1) * Lr / (2 * S);
						size_t j = c0 + (2 * y + 1) * Lc / (2 * S);
						sum += full->data[i * n + j];
						cnt++;
					}
				double want = sum / (double)cnt;
				assert_close(g->data[a * C + b], want, 1e-12, specs[k]);
			}
		}
		pe_matrix_destroy(full);
		pe_matrix_destroy(g);
		pe_scheme_destroy(s);
	}
}

/* Pearson correlation of sinusoidal rows (d <= 8) at positions p and q, from
 * the formula and a two-pass mean. */
static double sin_corr(double p, double q, size_t d)
{
	double u[8], w[8], mu = 0.0, mw = 0.0;
	for (size_t i = 0; i < d / 2; i++) {
		double f = pow(10000.0, -(double)(2 * i) / (double)d);
		u[2 * i] = sin(p * f);
		u[2 * i + 1] = cos(p * f);
		w[2 * i] = sin(q * f);
		w[2 * i + 1] = cos(q * f);
	}
	for (size_t i = 0; i < d; i++) {
		mu += u[i] / (double)d;
		mw += w[i] / (double)d;
	}
	double suw = 0.0, suu = 0.0, sww = 0.0;
	for (size_t i = 0; i < d; i++) {
		suw += (u[i] - mu) * (w[i] - mw);
		suu += (u[i] - mu) * (u[i] - mu);
		sww += (w[i] - mw) * (w[i] - mw);
	}
	return suw / sqrt(suu * sww);
}

/*
 * A structured corr grid takes every pair while that costs no more than
 * four times the samples (n^2 <= 4 R C PE_GRID_SAMPLES^2): 4100 positions
 * into 520 x 520 cells are exact (the old bound, 4096, sampled them), 9000
 * into 100 x 100 sampled. Cells checked against the formula.
 */
static void grid_exact_while_affordable(void **state)
{
	(void)state;
	struct pe_scheme *s = parse("sinusoidal");
	size_t n = 4100, d = 8, R = 520;
	struct pe_vectors v = vec(s, d, 0, n);
	struct pe_matrix *g = NULL;
	struct pe_grid_info info;
	assert_int_equal(pe_pairwise_grid_info(&v, PE_METRIC_CORR, R, R, &info, &g), PE_OK);
	assert_int_equal(info.exact, 1);
	size_t cells[][2] = {{0, 0}, {3, 400}, {517, 2}, {260, 261}};
	for (int c = 0; c < 4; c++) {
		size_t a = cells[c][0], b = cells[c][1];
		double sum = 0.0, cnt = 0.0;
		for (size_t i = rstart(a, n, R); i < rstart(a + 1, n, R); i++)
			for (size_t j = rstart(b, n, R); j < rstart(b + 1, n, R); j++) {
				sum += i == j ? 1.0 : sin_corr((double)i, (double)j, d);
				cnt += 1.0;
			}
		assert_close(g->data[a * R + b], sum / cnt, 1e-10, "every pair, n = 4100");
	}
	pe_matrix_destroy(g);
	v = vec(s, d, 0, 9000);
	assert_int_equal(pe_pairwise_grid_info(&v, PE_METRIC_CORR, 100, 100, &info, &g), PE_OK);
	assert_int_equal(info.exact, 0);
	pe_matrix_destroy(g);
	pe_scheme_destroy(s);
}

/*
 * Beyond 2^24 positions the samples lie on the lattice of the least step h
 * that keeps the offset table 2^24 long, at the centres of equal shares of
 * the lattice points of each range (doc in pairwise.h). n = 2^24 + 5: h = 2.
 * Each cell is recomputed here from sinusoidal rows written from the
 * formula and a two-pass Pearson correlation.
 */
static void grid_sampled_beyond_table(void **state)
{
	(void)state;
	struct pe_scheme *s = parse("sinusoidal");
	size_t n = ((size_t)1 << 24) + 5, d = 8, R = 3, C = 2, S = PE_GRID_SAMPLES, h = 2;
	uint64_t first = 7;
	struct pe_vectors v = vec(s, d, first, n);
	struct pe_matrix *g = NULL;
	struct pe_grid_info info;
	assert_int_equal(pe_pairwise_grid_info(&v, PE_METRIC_CORR, R, C, &info, &g), PE_OK);
	assert_int_equal(info.exact, 0);
	assert_int_equal(info.samples, S);
	for (size_t a = 0; a < R; a++)
		for (size_t b = 0; b < C; b++) {
			size_t r0 = rstart(a, n, R), r1 = rstart(a + 1, n, R);
			size_t c0 = rstart(b, n, C), c1 = rstart(b + 1, n, C);
			size_t rk = (r0 + h - 1) / h, Lr = (r1 - 1) / h - rk + 1;
			size_t ck = (c0 + h - 1) / h, Lc = (c1 - 1) / h - ck + 1;
			double sum = 0.0;
			for (size_t x = 0; x < S; x++)
				for (size_t y = 0; y < S; y++) {
					double p = (double)(first +
					                    h * (rk + (2 * x + 1) * Lr / (2 * S)));
					double q = (double)(first +
					                    h * (ck + (2 * y + 1) * Lc / (2 * S)));
					sum += sin_corr(p, q, d);
				}
			/* angles near 1.7e7 rad: libm's rounding of p f, not the code's, limits
			 * this */
			assert_close(g->data[a * C + b], sum / (double)(S * S), 1e-8,
			             "lattice samples");
		}
	pe_matrix_destroy(g);
	pe_scheme_destroy(s);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 10^6 positions into 1000 x 1000 cells; two cells checked against sums
 * over offsets written here from the closed form. */
static void grid_million_positions(void **state)
{
	(void)state;
	struct pe_scheme *s = parse("sinusoidal");
	size_t n = 1000000, d = 512, R = 1000;
	struct pe_vectors v = vec(s, d, 0, n);
	struct pe_matrix *g = NULL;
	double t0 = now();
	assert_int_equal(pe_pairwise_grid(&v, PE_METRIC_L2, R, R, &g), PE_OK);
	printf("# 10^6 positions, d=512, l2 into 1000x1000: %.3f s\n", now() - t0);
	/* cell (a, b) covers positions [1000a, 1000a+1000) x [1000b, ...): the
	 * offset D = 1000(a-b) + t, t in (-1000, 1000), occurs 1000 - |t| times */
	size_t cells[][2] = {{0, 0}, {700, 3}, {5, 6}};
	for (int c = 0; c < 3; c++) {
		double sum = 0.0;
		for (long t = -999; t <= 999; t++) {
			double D = 1000.0 * ((double)cells[c][0] - (double)cells[c][1]) + (double)t;
			double acc = 0.0;
			for (size_t i = 0; i < d / 2; i++) {
				double h = sin(0.5 * D / pow(10000.0, (double)(2 * i) / (double)d));
				acc += 4.0 * h * h;
			}
			sum += (1000.0 - fabs((double)t)) * sqrt(acc);
		}
		assert_close(g->data[cells[c][0] * R + cells[c][1]], sum / 1e6, 1e-9, "cell");
	}
	pe_matrix_destroy(g);
	t0 = now();
	assert_int_equal(pe_pairwise_grid(&v, PE_METRIC_CORR, R, R, &g), PE_OK);
	printf("# 10^6 positions, d=512, corr (sampled) into 1000x1000: %.3f s\n", now() - t0);
	for (size_t i = 0; i < R * R; i++)
		assert_true(fabs(g->data[i]) <= 1.0 + 1e-12);
	pe_matrix_destroy(g);
	pe_scheme_destroy(s);
}

/* ---- profile and scatter ---- */

static void profile_equals_matrix_columns(void **state)
{
	(void)state;
	const char *specs[] = {"sinusoidal:freq=t2t", "rope:layout=half", "learned",
	                       "sinusoidal",          "sinusoidal",       "rope:base=1000000"};
	const size_t dims[] = {10, 8, 6, 7, 2, 4};
	for (size_t k = 0; k < 6; k++) {
		struct pe_scheme *s = parse(specs[k]);
		size_t d = dims[k], n = 50;
		uint64_t first = 20;
		/* inside, the ends, and outside the range on both sides */
		uint64_t at[] = {20, 45, 69, 3, 200};
		struct pe_matrix *t = NULL;
		assert_int_equal(pe_encode(s, d, 0, 201, PE_VIEW_DEFAULT, &t), PE_OK);
		struct pe_vectors v = vec(s, d, first, n);
		for (int metric = PE_METRIC_L2; metric <= PE_METRIC_CORR; metric++) {
			struct pe_matrix *p = NULL;
			assert_int_equal(pe_profile(&v, metric, at, 5, &p), PE_OK);
			assert_int_equal(p->rows, n);
			assert_int_equal(p->cols, 5);
			for (size_t i = 0; i < n; i++)
				for (size_t j = 0; j < 5; j++)
					assert_close(p->data[i * 5 + j],
					             brute(metric, t->data + (first + i) * d,
					                   t->data + at[j] * d, d),
					             TOL, specs[k]);
			pe_matrix_destroy(p);
		}
		struct pe_matrix *p = NULL;
		assert_int_equal(pe_profile(&v, PE_METRIC_L2, at, 0, &p), PE_ERANGE);
		pe_matrix_destroy(t);
		pe_scheme_destroy(s);
	}
}

static void scatter_pairs_and_stride(void **state)
{
	(void)state;
	const char *specs[] = {"sinusoidal", "learned:seed=2"};
	for (int k = 0; k < 2; k++) {
		struct pe_scheme *s = parse(specs[k]);
		size_t n = 10, d = 8;
		struct pe_matrix *t = NULL;
		assert_int_equal(pe_encode(s, d, 0, n, PE_VIEW_DEFAULT, &t), PE_OK);
		struct pe_vectors v = vec(s, d, 0, n);
		struct pe_matrix *m = NULL;
		size_t stride = 0;
		assert_int_equal(pe_scatter(&v, PE_METRIC_L2, 0, &stride, &m), PE_OK);
		assert_int_equal(stride, 1);
		assert_int_equal(m->rows, 45);
		assert_int_equal(m->cols, 2);
		size_t row = 0;
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++, row++) {
				const double *a = t->data + i * d, *b = t->data + j * d;
				double want = brute(PE_METRIC_L2, a, b, d);
				assert_close(m->data[2 * row], want, TOL, "l2");
				assert_close(m->data[2 * row + 1], brute(PE_METRIC_CORR, a, b, d),
				             TOL, "corr");
			}
		pe_matrix_destroy(m);
		/* 45 pairs > 10: stride 2 keeps positions 0,2,4,6,8: 10 pairs */
		assert_int_equal(pe_scatter(&v, PE_METRIC_COSINE, 10, &stride, &m), PE_OK);
		assert_int_equal(stride, 2);
		assert_int_equal(m->rows, 10);
		row = 0;
		for (size_t i = 0; i < n; i += 2)
			for (size_t j = i + 2; j < n; j += 2, row++) {
				const double *a = t->data + i * d, *b = t->data + j * d;
				double want = brute(PE_METRIC_COSINE, a, b, d);
				assert_close(m->data[2 * row], want, TOL, "cosine");
			}
		pe_matrix_destroy(m);
		/* 4096 positions cap: 8,386,560 pairs reduced below 100000 */
		v.n = 4096;
		assert_int_equal(pe_scatter(&v, PE_METRIC_L2, 100000, &stride, &m), PE_OK);
		size_t mm = (4096 + stride - 1) / stride;
		assert_int_equal(m->rows, mm * (mm - 1) / 2);
		assert_true(m->rows <= 100000);
		size_t m1 = (4096 + stride - 2) / (stride - 1);
		assert_true(m1 * (m1 - 1) / 2 > 100000);
		pe_matrix_destroy(m);
		v.n = 1;
		assert_int_equal(pe_scatter(&v, PE_METRIC_L2, 0, NULL, &m), PE_ERANGE);
		pe_matrix_destroy(t);
		pe_scheme_destroy(s);
	}
}

/* Nearly constant vectors (d = 2, RoPE near 0): Pearson from rows. */
static void scatter_ill_conditioned(void **state)
{
	(void)state;
	const char *specs[] = {"sinusoidal", "rope:base=1000000", "rope"};
	const size_t dims[] = {2, 4, 6};
	for (size_t k = 0; k < 3; k++) {
		struct pe_scheme *s = parse(specs[k]);
		size_t n = 60, d = dims[k];
		struct pe_matrix *t = NULL, *m = NULL;
		assert_int_equal(pe_encode(s, d, 0, n, PE_VIEW_DEFAULT, &t), PE_OK);
		struct pe_vectors v = vec(s, d, 0, n);
		assert_int_equal(pe_scatter(&v, PE_METRIC_CORR, 0, NULL, &m), PE_OK);
		size_t row = 0;
		for (size_t i = 0; i < n; i++) {
			for (size_t j = i + 1; j < n; j++, row++) {
				const double *a = t->data + i * d, *b = t->data + j * d;
				double want = brute(PE_METRIC_CORR, a, b, d);
				assert_close(m->data[2 * row], want, TOL, specs[k]);
				assert_close(m->data[2 * row + 1], want, TOL, specs[k]);
			}
		}
		pe_matrix_destroy(m);
		pe_matrix_destroy(t);
		pe_scheme_destroy(s);
	}
}

/* ---- errors ---- */

static void constant_vector_has_no_correlation(void **state)
{
	(void)state;
	/* RoPE at position 0 with YaRN's attention factor: every feature 1.1386... */
	struct pe_scheme *s = parse("rope:scaling=yarn");
	struct pe_vectors v = {.scheme = s, .d = 128, .first = 0, .n = 6};
	struct pe_matrix *m = NULL, *g = NULL;
	assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_CORR, 0, &m), PE_OK);
	assert_int_equal(pe_pairwise_grid(&v, PE_METRIC_CORR, 6, 6, &g), PE_OK);
	for (size_t j = 0; j < 6; j++) {
		assert_true(isnan(m->data[j]) && isnan(m->data[j * 6]));
		assert_true(isnan(g->data[j]));
	}
	assert_true(m->data[7] == 1.0);
	pe_matrix_destroy(m);
	pe_matrix_destroy(g);
	pe_scheme_destroy(s);
}

/*
 * The terms of many rows at once (pe_rows_terms(), four rows' sums side by
 * side) are each row's pe_row_terms() bit for bit: ordinary rows, constant
 * ones (no spread, cnorm 0), a zero row, one holding a NaN and one of huge
 * values, in groups of four and in the rows left over; and the closed form
 * of a hand-worked row.
 */
static void row_terms_many_equal_one_by_one(void **state)
{
	(void)state;
	const size_t n = 23, d = 37;
	double *x = malloc(n * d * sizeof(double));
	struct pe_posterm *many = malloc(n * sizeof(*many)), one;
	assert_true(x && many);
	uint64_t s = 12345;
	for (size_t i = 0; i < n * d; i++) {
		s = s * 6364136223846793005u + 1442695040888963407u;
		x[i] = ((double)(s >> 11) / 9007199254740992.0 - 0.5) * 0.04;
	}
	for (size_t j = 0; j < d; j++) {
		x[1 * d + j] = 0.25;   /* constant */
		x[6 * d + j] = 0.0;    /* zero */
		x[21 * d + j] = -3e-5; /* constant, in the rows left over */
		x[9 * d + j] *= 1e150; /* huge: squares near the top of the range */
	}
	x[13 * d + 5] = NAN;
	pe_rows_terms(x, n, d, many);
	for (size_t a = 0; a < n; a++) {
		memset(&one, 0, sizeof(one));
		pe_row_terms(x + a * d, d, &one);
		assert_memory_equal(&many[a], &one, sizeof(one));
	}
	assert_true(many[1].cnorm == 0.0 && many[1].mean == 0.25);
	assert_true(many[21].cnorm == 0.0 && many[21].mean == -3e-5);
	assert_true(isnan(many[13].norm) && !isnan(many[12].norm) && !isnan(many[14].norm));
	/* hand-worked rows, one group of four: (3, 4) has norm 5, mean 3.5 and
	 * centred norm sqrt(0.5); (6, 8) 10, 7 and sqrt(2); (0, 0) none */
	const double hw[8] = {3.0, 4.0, 3.0, 4.0, 6.0, 8.0, 0.0, 0.0};
	pe_rows_terms(hw, 4, 2, many);
	for (int a = 0; a < 2; a++)
		assert_true(many[a].norm == 5.0 && many[a].mean == 3.5 &&
		            many[a].cnorm == sqrt(0.5));
	assert_true(many[2].norm == 10.0 && many[2].mean == 7.0 && many[2].cnorm == sqrt(2.0));
	assert_true(many[3].norm == 0.0 && many[3].mean == 0.0 && many[3].cnorm == 0.0);
	free(x);
	free(many);
}

static void refusals(void **state)
{
	(void)state;
	struct pe_scheme *a = parse("alibi"), *t5 = parse("t5"), *s = parse("sinusoidal");
	struct pe_matrix *m = NULL;
	struct pe_vectors v = vec(a, 8, 0, 4);
	assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_L2, 0, &m), PE_EUNSUPPORTED);
	assert_int_equal(pe_pairwise_grid(&v, PE_METRIC_CORR, 2, 2, &m), PE_EUNSUPPORTED);
	v.scheme = t5;
	assert_int_equal(pe_pairwise_check(&v, PE_METRIC_L2), PE_EUNSUPPORTED);
	uint64_t at = 0;
	assert_int_equal(pe_profile(&v, PE_METRIC_L2, &at, 1, &m), PE_EUNSUPPORTED);
	assert_int_equal(pe_scatter(&v, PE_METRIC_L2, 0, NULL, &m), PE_EUNSUPPORTED);
	assert_null(m);
	v = vec(s, 8, 0, 0);
	assert_int_equal(pe_pairwise_check(&v, PE_METRIC_L2), PE_ERANGE);
	v = vec(s, 8, 0, 4);
	assert_int_equal(pe_pairwise_check(&v, (enum pe_metric)17), PE_EINVAL);
	v.view = PE_VIEW_COS;
	assert_int_equal(pe_pairwise_check(&v, PE_METRIC_L2), PE_EUNSUPPORTED);

	/* 10^6 positions: 8e12 bytes, refused before allocating anything */
	double bytes = 0;
	assert_int_equal(pe_pairwise_fits(1000000, 1000000, (size_t)1 << 33, &bytes), PE_ETOOBIG);
	assert_true(bytes == 8e12);
	assert_int_equal(pe_pairwise_fits(1000, 1000, 8000000, &bytes), PE_OK);
	assert_int_equal(pe_pairwise_fits(1000, 1001, 8000000, &bytes), PE_ETOOBIG);
	assert_int_equal(pe_pairwise_fits(SIZE_MAX / 2, 4, 0, &bytes), PE_ETOOBIG);
	v = vec(s, 512, 0, 1000000);
	assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_L2, (size_t)1 << 30, &m), PE_ETOOBIG);
	v.n = (size_t)1 << 40;
	assert_int_equal(pe_pairwise_matrix(&v, PE_METRIC_L2, 0, &m), PE_ETOOBIG);
	assert_null(m);

	enum pe_metric mt;
	assert_int_equal(pe_metric_parse("cosine", &mt), PE_OK);
	assert_int_equal(mt, PE_METRIC_COSINE);
	assert_int_equal(pe_metric_parse("L2", &mt), PE_EINVAL);
	assert_string_equal(pe_metric_name(PE_METRIC_LINF), "linf");
	assert_string_equal(pe_metric_name((enum pe_metric)99), "unknown");
	pe_scheme_destroy(a);
	pe_scheme_destroy(t5);
	pe_scheme_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(sinusoidal_distance_closed_form),
	        cmocka_unit_test(row_terms_many_equal_one_by_one),
	        cmocka_unit_test(binary_hand_worked),
	        cmocka_unit_test(table_hand_worked),
	        cmocka_unit_test(corr_self_one_and_symmetric),
	        cmocka_unit_test(structured_equals_brute_force),
	        cmocka_unit_test(scaled_rope_matches_general_path),
	        cmocka_unit_test(structured_matches_rows_far_out),
	        cmocka_unit_test(general_path_equals_brute_force),
	        cmocka_unit_test(grid_equals_block_means),
	        cmocka_unit_test(offset_grid_long_sets),
	        cmocka_unit_test(grid_sampled_uses_documented_positions),
	        cmocka_unit_test(grid_million_positions),
	        cmocka_unit_test(grid_sampled_beyond_table),
	        cmocka_unit_test(grid_exact_while_affordable),
	        cmocka_unit_test(profile_equals_matrix_columns),
	        cmocka_unit_test(scatter_pairs_and_stride),
	        cmocka_unit_test(scatter_ill_conditioned),
	        cmocka_unit_test(constant_vector_has_no_correlation),
	        cmocka_unit_test(refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
