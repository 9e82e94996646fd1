/*
 * Rows on demand (pe_pairwise_rows_*) against the full matrix, which
 * test_pairwise.c checks against closed forms and brute force from the
 * formulas; here the promise is that the rows are that matrix. Plus a hand
 * worked table and the exact range.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/encode.h>
#include <posenc/pairwise.h>
#include <posenc/scheme.h>
#include <posenc/write.h>

#define TOL 1e-12

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

/* A small deterministic generator (xorshift64*), so failures repeat. */
static uint64_t rng = 0x9e3779b97f4a7c15u;
static size_t rnd(size_t lo, size_t hi)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return lo + (size_t)((rng * 2685821657736338717u) >> 11) % (hi - lo + 1);
}

static void assert_cell(double got, double want, const char *what, size_t i, size_t j)
{
	if (isnan(want) && isnan(got))
		return;
	double err = fabs(got - want);
	if (!(err <= TOL * (1.0 + fabs(want)))) {
		fprintf(stderr, "# %s (%zu, %zu): got %.17g want %.17g\n", what, i, j, got, want);
		fail();
	}
}

/* Every row range asked of a source equals the matrix; so does the range. */
static void check_source(const struct pe_vectors *v, enum pe_metric m, size_t budget,
                         const struct pe_matrix *full, const char *what)
{
	struct pe_pairwise_rows *src = NULL;
	assert_int_equal(pe_pairwise_rows_create(v, m, budget, &src), PE_OK);
	size_t n = v->n;
	double *buf = malloc(n * n * sizeof(double));
	assert_non_null(buf);
	/* in random pieces, out of order, overlapping */
	for (int rep = 0; rep < 6; rep++) {
		size_t r0 = rnd(0, n - 1), count = rnd(1, n - r0);
		assert_int_equal(pe_pairwise_rows_fill(src, r0, count, buf), PE_OK);
		for (size_t a = 0; a < count; a++)
			for (size_t b = 0; b < n; b++)
				assert_cell(buf[a * n + b], full->data[(r0 + a) * n + b], what,
				            r0 + a, b);
	}
	assert_int_equal(pe_pairwise_rows_fill(src, 0, n, buf), PE_OK);
	for (size_t k = 0; k < n * n; k++)
		assert_cell(buf[k], full->data[k], what, k / n, k % n);

	double lo = INFINITY, hi = -INFINITY, glo = NAN, ghi = NAN;
	for (size_t k = 0; k < n * n; k++) {
		if (!isfinite(full->data[k]))
			continue;
		lo = full->data[k] < lo ? full->data[k] : lo;
		hi = full->data[k] > hi ? full->data[k] : hi;
	}
	enum pe_status st = pe_pairwise_rows_range(src, &glo, &ghi);
	if (lo <= hi) {
		assert_int_equal(st, PE_OK);
		assert_cell(glo, lo, "range lo", 0, 0);
		assert_cell(ghi, hi, "range hi", 0, 0);
	} else {
		assert_int_equal(st, PE_ERANGE);
	}
	free(buf);
	pe_pairwise_rows_destroy(src);
}

/* A set over 4 MiB is held only within the budget: both ways give the matrix. */
static void check_rows(const struct pe_vectors *v, enum pe_metric m, const char *what)
{
	struct pe_matrix *full = NULL;
	assert_int_equal(pe_pairwise_matrix(v, m, 0, &full), PE_OK);
	check_source(v, m, 0, full, what);
	if (v->n * v->d * sizeof(double) > (4u << 20))
		check_source(v, m, SIZE_MAX, full, what);
	pe_matrix_destroy(full);
}

static const enum pe_metric metrics[] = {PE_METRIC_L2, PE_METRIC_COSINE, PE_METRIC_L1,
                                         PE_METRIC_LINF, PE_METRIC_CORR};

static void check_spec(const char *spec, size_t d, uint64_t first, size_t n, enum pe_view view)
{
	struct pe_scheme *s = parse(spec);
	struct pe_vectors v = {s, NULL, d, view, first, n};
	for (size_t k = 0; k < sizeof(metrics) / sizeof(metrics[0]); k++) {
		char what[160];
		snprintf(what, sizeof(what), "%s d=%zu first=%llu n=%zu %s", spec, d,
		         (unsigned long long)first, n, pe_metric_name(metrics[k]));
		check_rows(&v, metrics[k], what);
	}
	pe_scheme_destroy(s);
}

/* Offset-kernel schemes: even d (offset table), odd d (lone column), t2t,
 * RoPE with its ill-conditioned position 0 for corr, scaled RoPE. */
static void structured_rows_equal_matrix(void **state)
{
	(void)state;
	for (int rep = 0; rep < 3; rep++) {
		size_t n = rnd(1, 150), d = 2 * rnd(1, 40);
		uint64_t first = rnd(0, 3) == 0 ? 0 : rnd(0, 100000);
		check_spec("sinusoidal", d, first, n, PE_VIEW_DEFAULT);
		check_spec("sinusoidal", d + 1, first, n, PE_VIEW_DEFAULT);
		check_spec("sinusoidal:freq=t2t,layout=blocks", d + 1, first, n, PE_VIEW_DEFAULT);
		check_spec("sinusoidal:base=10", d, first, n, PE_VIEW_DEFAULT);
		check_spec("rope", d, first, n, PE_VIEW_DEFAULT);
		check_spec("rope:rotary=0.5,layout=half", 4 * (d / 2 + 1), first, n,
		           PE_VIEW_ROTATED);
		check_spec("rope:scaling=yarn,factor=4", d, first, n, PE_VIEW_DEFAULT);
	}
	/* d = 2 and 3: RoPE vectors near position 0 are nearly constant */
	check_spec("rope", 2, 0, 40, PE_VIEW_DEFAULT);
	check_spec("sinusoidal", 3, 0, 40, PE_VIEW_DEFAULT);
}

/* Rows compared directly: learned, binary, other views, and sizes across
 * the block size of the general path. */
static void general_rows_equal_matrix(void **state)
{
	(void)state;
	for (int rep = 0; rep < 3; rep++) {
		size_t n = rnd(1, 150), d = rnd(1, 200);
		uint64_t first = rnd(0, 1000);
		check_spec("learned:seed=5", d, first, n, PE_VIEW_DEFAULT);
		check_spec("binary", d < 40 ? d : 40, first, n, PE_VIEW_DEFAULT);
		check_spec("rope", 2 * (d / 2 + 1), first, n, PE_VIEW_COS);
	}
	/* a set over 4 MiB: rows produced again for each request, or held
	 * (l2 and corr: without and with per-position terms) */
	struct pe_scheme *s = parse("learned:seed=9");
	struct pe_vectors v = {s, NULL, 4100, PE_VIEW_DEFAULT, 0, 129};
	check_rows(&v, PE_METRIC_L2, "learned d=4100 l2");
	check_rows(&v, PE_METRIC_CORR, "learned d=4100 corr");
	pe_scheme_destroy(s);
}

/* A table (rows 1..3 of 4): hand-worked values, a constant row's NaN. */
static void table_hand_worked(void **state)
{
	(void)state;
	double data[] = {9, 9, 9, 1, 2, 3, 3, 2, 1, 2, 2, 2};
	struct pe_matrix t = {4, 3, data};
	struct pe_vectors v = {NULL, &t, 3, PE_VIEW_DEFAULT, 1, 3};
	struct pe_pairwise_rows *src = NULL;
	double row[3], lo, hi;
	assert_int_equal(pe_pairwise_rows_create(&v, PE_METRIC_L1, 0, &src), PE_OK);
	assert_int_equal(pe_pairwise_rows_fill(src, 1, 1, row), PE_OK);
	assert_true(row[0] == 4.0 && row[1] == 0.0 && row[2] == 2.0);
	assert_int_equal(pe_pairwise_rows_range(src, &lo, &hi), PE_OK);
	assert_true(lo == 0.0 && hi == 4.0);
	assert_int_equal(pe_pairwise_rows_fill(src, 2, 2, row), PE_ERANGE);
	assert_int_equal(pe_pairwise_rows_fill(src, 0, 0, row), PE_ERANGE);
	pe_pairwise_rows_destroy(src);
	assert_int_equal(pe_pairwise_rows_create(&v, PE_METRIC_CORR, 0, &src), PE_OK);
	assert_int_equal(pe_pairwise_rows_fill(src, 0, 1, row), PE_OK);
	assert_true(row[0] == 1.0 && fabs(row[1] + 1.0) < 1e-15 && isnan(row[2]));
	assert_int_equal(pe_pairwise_rows_range(src, &lo, &hi), PE_OK);
	assert_true(fabs(lo + 1.0) < 1e-15 && hi == 1.0);
	pe_pairwise_rows_destroy(src);
	/* only the constant row: no finite cell */
	v.first = 3;
	v.n = 1;
	assert_int_equal(pe_pairwise_rows_create(&v, PE_METRIC_CORR, 0, &src), PE_OK);
	lo = hi = 7.0;
	assert_int_equal(pe_pairwise_rows_range(src, &lo, &hi), PE_ERANGE);
	assert_true(lo == 7.0 && hi == 7.0);
	pe_pairwise_rows_destroy(src);
	/* rows past the table, and no vectors at all */
	v.first = 1;
	v.n = 4;
	assert_int_equal(pe_pairwise_rows_create(&v, PE_METRIC_L2, 0, &src), PE_ERANGE);
	assert_null(src);
	pe_pairwise_rows_destroy(NULL);
}

/* The offset table's range is the closed form: sinusoidal l2 at d = 2 is
 * 2 |sin(D / 2)|, largest at the offset nearest an odd multiple of pi. */
static void offset_range_closed_form(void **state)
{
	(void)state;
	struct pe_scheme *s = parse("sinusoidal");
	struct pe_vectors v = {s, NULL, 2, PE_VIEW_DEFAULT, 0, 100};
	struct pe_pairwise_rows *src = NULL;
	assert_int_equal(pe_pairwise_rows_create(&v, PE_METRIC_L2, 0, &src), PE_OK);
	double lo, hi, want = 0.0;
	for (int D = 0; D < 100; D++)
		want = fmax(want, 2.0 * fabs(sin(D / 2.0)));
	assert_int_equal(pe_pairwise_rows_range(src, &lo, &hi), PE_OK);
	assert_true(lo == 0.0);
	assert_true(fabs(hi - want) < 1e-14);
	pe_pairwise_rows_destroy(src);
	pe_scheme_destroy(s);
}

/* Text or bytes of the whole matrix against the same written a block of
 * rows at a time (what `distance -o x.csv|x.npy` streams): byte for byte. */
static char *write_whole(const struct pe_matrix *m, const struct pe_axis *ra,
                         const struct pe_axis *ca, int npy, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	assert_non_null(f);
	assert_int_equal(npy ? pe_npy_write_matrix(f, m, PE_DTYPE_F64) : pe_csv_write(f, m, ra, ca),
	                 PE_OK);
	fclose(f);
	return buf;
}

static char *write_blocks(struct pe_pairwise_rows *src, size_t n, size_t rows, double first,
                          int npy, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	assert_non_null(f);
	struct pe_axis ra = {"position", first, 1.0, NULL}, ca = {NULL, first, 1.0, NULL};
	size_t shape[2] = {n, n};
	assert_int_equal(npy ? pe_npy_write_header(f, shape, 2, PE_DTYPE_F64)
	                     : pe_csv_write_header(f, n, &ra, &ca),
	                 PE_OK);
	struct pe_matrix *block = pe_matrix_create(rows, n);
	for (size_t r0 = 0; r0 < n; r0 += rows) {
		size_t count = n - r0 < rows ? n - r0 : rows;
		assert_int_equal(pe_pairwise_rows_fill(src, r0, count, block->data), PE_OK);
		block->rows = count;
		struct pe_axis br = {"position", first + (double)r0, 1.0, NULL};
		assert_int_equal(npy ? pe_npy_write_data(f, block->data, count * n, PE_DTYPE_F64)
		                     : pe_csv_write_rows(f, block, &br),
		                 PE_OK);
	}
	block->rows = rows;
	pe_matrix_destroy(block);
	fclose(f);
	return buf;
}

static void streamed_equals_whole(void **state)
{
	(void)state;
	const char *specs[] = {"sinusoidal", "rope", "sinusoidal:start=2"};
	enum pe_metric which[] = {PE_METRIC_L2, PE_METRIC_COSINE, PE_METRIC_CORR};
	for (size_t s = 0; s < 3; s++) {
		struct pe_scheme *sc = parse(specs[s]);
		struct pe_vectors v = {sc, NULL, 24, PE_VIEW_DEFAULT, 5, 301};
		for (size_t k = 0; k < 3; k++) {
			struct pe_pairwise_rows *src = NULL;
			assert_int_equal(pe_pairwise_rows_create(&v, which[k], 0, &src), PE_OK);
			assert_true(pe_pairwise_rows_structured(src));
			assert_true(pe_pairwise_has_structure(&v, which[k]));
			struct pe_matrix *m = NULL;
			assert_int_equal(pe_pairwise_matrix(&v, which[k], 0, &m), PE_OK);
			struct pe_axis ra = {"position", 5.0, 1.0, NULL},
			               ca = {NULL, 5.0, 1.0, NULL};
			for (int npy = 0; npy < 2; npy++) {
				size_t la, lb;
				char *a = write_whole(m, &ra, &ca, npy, &la);
				char *b = write_blocks(src, v.n, 37, 5.0, npy, &lb);
				assert_int_equal(la, lb);
				assert_memory_equal(a, b, la);
				free(a);
				free(b);
			}
			pe_matrix_destroy(m);
			pe_pairwise_rows_destroy(src);
		}
		pe_scheme_destroy(sc);
	}
}

/*
 * The metric by offset: offered exactly when the cells depend on the offset
 * alone, and then every filled cell (a, b) is F[|a - b|] bit for bit (the
 * offset writer's promise); NULL for corr, l1 and tables.
 */
static void offsets_are_the_rows(void **state)
{
	(void)state;
	const struct {
		const char *spec;
		size_t d;
		enum pe_metric m;
		int has;
	} cases[] = {
	        {"sinusoidal", 64, PE_METRIC_L2, 1},       {"rope", 32, PE_METRIC_COSINE, 1},
	        {"rope:base=500000", 16, PE_METRIC_L2, 1}, {"sinusoidal", 64, PE_METRIC_CORR, 0},
	        {"sinusoidal", 64, PE_METRIC_L1, 0},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct pe_scheme *s = parse(cases[k].spec);
		struct pe_vectors v = {s, NULL, cases[k].d, PE_VIEW_DEFAULT, 9, 203};
		struct pe_pairwise_rows *src;
		assert_int_equal(pe_pairwise_rows_create(&v, cases[k].m, 0, &src), PE_OK);
		const double *F = pe_pairwise_rows_offsets(src);
		assert_int_equal(F != NULL, cases[k].has);
		if (F) {
			double *rows = malloc(v.n * v.n * sizeof(double));
			assert_non_null(rows);
			assert_int_equal(pe_pairwise_rows_fill(src, 0, v.n, rows), PE_OK);
			for (size_t a = 0; a < v.n; a++)
				for (size_t b = 0; b < v.n; b++)
					assert_memory_equal(&rows[a * v.n + b],
					                    &F[a > b ? a - b : b - a],
					                    sizeof(double));
			free(rows);
		}
		pe_pairwise_rows_destroy(src);
		pe_scheme_destroy(s);
	}
}

/*
 * A large table on the BLAS (n >= 1024, d >= 16): pe_pairwise_rows_upper()
 * gives the whole matrix's upper triangle bit for bit (the same products;
 * an NPY file written from it is the matrix's bytes), and the rows of
 * pe_pairwise_rows_fill() (other products left of the diagonal) are the
 * matrix within 1e-12, and its cells right of the diagonal bit for bit.
 * Without a BLAS the source does not stream and the upper panels are
 * refused.
 */
static void gram_panels_are_the_matrix(void **state)
{
	(void)state;
	size_t n = 1100, d = 24;
	struct pe_matrix *t = pe_matrix_create(n + 3, d);
	assert_non_null(t);
	for (size_t i = 0; i < (n + 3) * d; i++)
		t->data[i] = sin(0.37 * (double)(i * i % 1009) + 0.1 * (double)i) *
		             (1.0 + (double)(i % 7));
	struct pe_vectors v = {NULL, t, d, PE_VIEW_DEFAULT, 2, n};
	const enum pe_metric ms[] = {PE_METRIC_L2, PE_METRIC_COSINE, PE_METRIC_CORR};
	for (size_t k = 0; k < 3; k++) {
		struct pe_matrix *whole = NULL;
		assert_int_equal(pe_pairwise_matrix(&v, ms[k], 0, &whole), PE_OK);
		struct pe_pairwise_rows *src = NULL;
		assert_int_equal(pe_pairwise_rows_create(&v, ms[k], 0, &src), PE_OK);
		double *panel = malloc(512 * n * sizeof(double));
		assert_non_null(panel);
		if (!pe_pairwise_rows_streams(src)) {
			assert_int_equal(pe_pairwise_rows_upper(src, 0, 256, panel, n),
			                 PE_EUNSUPPORTED);
		} else {
			assert_true(pe_pairwise_rows_streamable(&v, ms[k]));
			assert_int_equal(pe_pairwise_rows_upper(src, 100, 256, panel, n),
			                 PE_ERANGE);
			for (size_t r0 = 0; r0 < n; r0 += 512) {
				size_t count = n - r0 < 512 ? n - r0 : 512, ld = n - r0;
				assert_int_equal(pe_pairwise_rows_upper(src, r0, count, panel, ld),
				                 PE_OK);
				for (size_t a = 0; a < count; a++)
					for (size_t b = r0; b < n; b++) {
						double x = panel[a * ld + b - r0],
						       y = whole->data[(r0 + a) * n + b];
						if (memcmp(&x, &y, sizeof(x)) != 0)
							fail_msg("%s upper (%zu, %zu): %a, matrix "
							         "%a",
							         pe_metric_name(ms[k]), r0 + a, b,
							         x, y);
					}
			}
			/* rows out of order: a panel before the one held */
			size_t r0s[] = {900, 60, 1000, 0};
			for (size_t q = 0; q < 4; q++) {
				size_t r0 = r0s[q], count = n - r0 < 100 ? n - r0 : 100;
				assert_int_equal(pe_pairwise_rows_fill(src, r0, count, panel),
				                 PE_OK);
				for (size_t a = 0; a < count; a++)
					for (size_t b = 0; b < n; b++) {
						double x = panel[a * n + b],
						       y = whole->data[(r0 + a) * n + b];
						if (b >= r0 + a)
							assert_memory_equal(&x, &y, sizeof(x));
						else
							assert_cell(x, y, "gram rows", r0 + a, b);
					}
			}
		}
		free(panel);
		pe_pairwise_rows_destroy(src);
		pe_matrix_destroy(whole);
	}
	pe_matrix_destroy(t);
}

/* Cell (i, j) with exactly the bits of @against's @want, or a failure naming both. */
static void assert_bits(double got, double want, const char *what, const char *against, size_t i,
                        size_t j)
{
	if (memcmp(&got, &want, sizeof(got)) != 0)
		fail_msg("%s (%zu, %zu): %a, %s %a", what, i, j, got, against, want);
}

/*
 * Every piece of @src (serial) against its whole panels, with and without
 * the mirror, and against @whole: see serial_pieces_are_the_matrix().
 */
static void check_serial_pieces(struct pe_pairwise_rows *src, const struct pe_matrix *whole,
                                size_t n, const char *what)
{
	const size_t P = PE_PAIRWISE_PIECE;
	double *piece = malloc(P * P * sizeof(double));
	double *above = malloc(P * P * sizeof(double));
	double *upper = malloc(P * n * sizeof(double));
	assert_non_null(piece);
	assert_non_null(above);
	assert_non_null(upper);
	for (size_t r0 = 0; r0 < n; r0 += P) {
		size_t count = n - r0 < P ? n - r0 : P, ld = n - r0;
		assert_int_equal(pe_pairwise_rows_upper(src, r0, count, upper, ld), PE_OK);
		for (size_t c0 = r0; c0 < n; c0 += P) {
			size_t nc = n - c0 < P ? n - c0 : P;
			assert_int_equal(
			        pe_pairwise_rows_upper_cols(src, r0, count, c0, nc, piece, nc),
			        PE_OK);
			/* without the mirror: the same cells on and right of the diagonal */
			assert_int_equal(pe_pairwise_rows_upper_cols_above(src, r0, count, c0, nc,
			                                                   above, nc),
			                 PE_OK);
			for (size_t a = 0; a < count; a++) {
				size_t from = c0 == r0 ? a : 0;
				assert_memory_equal(piece + a * nc + from, above + a * nc + from,
				                    (nc - from) * sizeof(double));
			}
			for (size_t a = 0; a < count; a++)
				for (size_t b = 0; b < nc; b++) {
					double x = piece[a * nc + b],
					       z = whole->data[(r0 + a) * n + c0 + b];
					assert_bits(x, upper[a * ld + c0 - r0 + b], what, "panel",
					            r0 + a, c0 + b);
					if (n % 128 == 0)
						assert_bits(x, z, what, "matrix", r0 + a, c0 + b);
					assert_cell(x, z, what, r0 + a, c0 + b);
				}
		}
	}
	free(piece);
	free(above);
	free(upper);
}

/* Cosine cells of @whole (rows of @t) from the formula, in long double. */
static void cosine_by_formula(const struct pe_matrix *t, const struct pe_matrix *whole)
{
	size_t n = t->rows, d = t->cols;
	const size_t cells[][2] = {{0, 1}, {5, 1663}, {1535, 1536}, {1600, 1601}, {1663, 1000}};
	for (size_t c = 0; c < 5; c++) {
		const double *x = t->data + cells[c][0] * d, *y = t->data + cells[c][1] * d;
		long double xy = 0, xx = 0, yy = 0;
		for (size_t j = 0; j < d; j++) {
			xy += (long double)x[j] * y[j];
			xx += (long double)x[j] * x[j];
			yy += (long double)y[j] * y[j];
		}
		double want = (double)(1.0L - xy / sqrtl(xx * yy));
		assert_cell(whole->data[cells[c][0] * n + cells[c][1]], want, "cosine", cells[c][0],
		            cells[c][1]);
	}
}

/*
 * A serial source (one BLAS thread) in pieces of PE_PAIRWISE_PIECE rows and
 * columns, as the NPY writer takes them: its diagonal blocks are made of
 * 128-row products where d >= 64 and the block's columns end on a multiple
 * of 128, of 256-row ones elsewhere (pairwise_rows.c, DIAG_STEP). Either
 * way the cells are the bits of the serial source's whole panels
 * (pe_pairwise_rows_upper(), the promise of pe_pairwise_rows_upper_cols()),
 * at n x d = 1664 x 64 (every block in halves), 1700 x 72 and 2100 x 72
 * (the last block not: its last columns a partial tile) and 2100 x 40 (no
 * halves anywhere). They are the whole matrix's within 1e-12, and its bits
 * where no product ends in a partial tile (n = 1664); and the matrix is the
 * formula: a cosine cell from the rows in long double within 1e-12.
 * pe_pairwise_rows_upper_cols_above() gives the same cells on and right
 * of the diagonal.
 */
static void serial_pieces_are_the_matrix(void **state)
{
	(void)state;
	const size_t ns[] = {1664, 1700, 2100, 2100}, ds[] = {64, 72, 40, 72};
	const enum pe_metric ms[] = {PE_METRIC_L2, PE_METRIC_COSINE, PE_METRIC_CORR};
	for (size_t q = 0; q < 4; q++) {
		size_t n = ns[q], d = ds[q];
		struct pe_matrix *t = pe_matrix_create(n, d);
		assert_non_null(t);
		for (size_t i = 0; i < n * d; i++)
			t->data[i] = sin(0.61 * (double)(i * i % 2003) + 0.07 * (double)i) *
			             (1.0 + (double)(i % 5));
		struct pe_vectors v = {NULL, t, d, PE_VIEW_DEFAULT, 0, n};
		for (size_t k = 0; k < 3; k++) {
			struct pe_pairwise_rows *src = NULL;
			assert_int_equal(pe_pairwise_rows_create(&v, ms[k], 0, &src), PE_OK);
			if (!pe_pairwise_rows_streams(src) || !pe_pairwise_rows_serial(src, 1)) {
				pe_pairwise_rows_destroy(src);
				continue; /* no BLAS, or one that cannot be made serial */
			}
			struct pe_matrix *whole = NULL;
			assert_int_equal(pe_pairwise_matrix(&v, ms[k], 0, &whole), PE_OK);
			char what[64];
			snprintf(what, sizeof(what), "n %zu d %zu %s", n, d, pe_metric_name(ms[k]));
			check_serial_pieces(src, whole, n, what);
			if (ms[k] == PE_METRIC_COSINE)
				cosine_by_formula(t, whole);
			pe_pairwise_rows_serial(src, 0);
			pe_matrix_destroy(whole);
			pe_pairwise_rows_destroy(src);
		}
		pe_matrix_destroy(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(structured_rows_equal_matrix),
	        cmocka_unit_test(streamed_equals_whole),
	        cmocka_unit_test(general_rows_equal_matrix),
	        cmocka_unit_test(table_hand_worked),
	        cmocka_unit_test(offset_range_closed_form),
	        cmocka_unit_test(offsets_are_the_rows),
	        cmocka_unit_test(gram_panels_are_the_matrix),
	        cmocka_unit_test(serial_pieces_are_the_matrix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
