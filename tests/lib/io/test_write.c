/* CSV and NPY writers: exact bytes, worked out by hand from the formats. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/write.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Writes through a memory stream and returns the bytes (free them). */
static char *capture(size_t *len, enum pe_status (*fn)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	assert_non_null(f);
	assert_int_equal(fn(f, arg), PE_OK);
	fclose(f);
	return buf;
}

struct csv_args {
	const struct pe_matrix *m;
	const struct pe_axis *rows, *cols;
};

static enum pe_status csv_fn(FILE *f, const void *arg)
{
	const struct csv_args *a = arg;
	return pe_csv_write(f, a->m, a->rows, a->cols);
}

static void csv_layout(void **state)
{
	(void)state;
	struct pe_matrix *m = pe_matrix_create(2, 3);
	const double v[] = {0.0, 0.1, -2.5, 1e-300, NAN, -INFINITY};
	memcpy(m->data, v, sizeof(v));
	struct pe_axis rows = {"position", 1000.0, 1.0, NULL};
	struct pe_axis cols = {NULL, 0.0, 1.0, NULL};
	struct csv_args a = {m, &rows, &cols};
	size_t len;
	char *text = capture(&len, csv_fn, &a);
	assert_string_equal(text, "position,0,1,2\n"
	                          "1000,0,0.1,-2.5\n"
	                          "1001,1e-300,nan,-inf\n");
	free(text);

	/* Labels, quoting of a label holding a comma. */
	const char *names[] = {"theta", "wavelength", "a,b"};
	struct pe_axis named = {NULL, 0, 0, names};
	struct pe_axis pairs = {"pair", 0.0, 1.0, NULL};
	a.cols = &named;
	a.rows = &pairs;
	text = capture(&len, csv_fn, &a);
	assert_string_equal(text, "pair,theta,wavelength,\"a,b\"\n"
	                          "0,0,0.1,-2.5\n"
	                          "1,1e-300,nan,-inf\n");
	free(text);
	pe_matrix_destroy(m);
}

/* Hand-worked texts: Python's repr() digits in printf %g's layout. */
static void csv_format_texts(void **state)
{
	(void)state;
	static const struct {
		double v;
		const char *text;
	} cases[] = {
	        {0.1, "0.1"},
	        {0.3, "0.3"},
	        {2.0 / 3.0, "0.6666666666666666"},
	        {64.0, "64"},
	        {-2.5, "-2.5"},
	        {12345.678, "12345.678"},
	        {1.0, "1"},
	        {0.0, "0"},
	        {-0.0, "-0"},
	        {1e15, "1000000000000000"},
	        /* %.17g's choice of layout: plain below 1e17, exponent from there. */
	        {1e16, "10000000000000000"},
	        {99999999999999984.0, "99999999999999980"},
	        {1e17, "1e+17"},
	        {123456789012345678.0, "1.2345678901234568e+17"},
	        {1.5e20, "1.5e+20"},
	        {1e22, "1e+22"},
	        {1e23, "1e+23"}, /* %.17g: 9.9999999999999992e+22 */
	        {9007199254740992.0, "9007199254740992"},
	        {0x1p53 + 2, "9007199254740994"},
	        {0.0001, "0.0001"},
	        {0.00012345, "0.00012345"},
	        {1e-5, "1e-05"},
	        {-5e-5, "-5e-05"},
	        {1e-300, "1e-300"},
	        {1e100, "1e+100"},
	        {DBL_MAX, "1.7976931348623157e+308"},
	        {DBL_MIN, "2.2250738585072014e-308"},
	        {4.9406564584124654e-324, "5e-324"},
	        {-4.9406564584124654e-324, "-5e-324"},
	        {NAN, "nan"},
	        {INFINITY, "inf"},
	        {-INFINITY, "-inf"},
	};
	char buf[32];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = pe_csv_format(cases[i].v, buf);
		assert_string_equal(buf, cases[i].text);
		assert_int_equal(n, strlen(cases[i].text));
	}
}

static uint64_t next_random(uint64_t *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static double from_bits(uint64_t bits)
{
	double x;
	memcpy(&x, &bits, sizeof(x));
	return x;
}

static uint64_t to_bits(double x)
{
	uint64_t bits;
	memcpy(&bits, &x, sizeof(bits));
	return bits;
}

/* The i-th value of a mix: raw 64-bit patterns, [0, 1), subnormals, wide and narrow exponents. */
static double sample(uint64_t *s, size_t i)
{
	uint64_t r = next_random(s);
	switch (i % 5) {
	case 0:
		return from_bits(r);
	case 1:
		return (double)(r >> 11) * 0x1p-53;
	case 2:
		return from_bits(r & 0x800fffffffffffffull);
	case 3:
		/* Integers up to 2^53 and their halves. */
		return (double)(r >> (11 + r % 40)) / (r & 1 ? 2.0 : 1.0);
	default:
		/* Exponents near 1, where most data lives. */
		return from_bits((r & 0x800fffffffffffffull) |
		                 (uint64_t)(1023 - 40 + (r >> 52) % 80) << 52);
	}
}

/* The same double back from strtod, sign of zero included. */
static int reads_back(double x, const char *text)
{
	char *end;
	double y = strtod(text, &end);
	return *end == '\0' && to_bits(y) == to_bits(x);
}

struct round_trip_run {
	uint64_t seed;
	size_t count;
	size_t failures;
	uint64_t first_failure;
};

static void *round_trip_worker(void *arg)
{
	struct round_trip_run *run = arg;
	uint64_t s = run->seed;
	char buf[32];
	for (size_t i = 0; i < run->count; i++) {
		double x = sample(&s, i);
		if (!isfinite(x))
			continue;
		pe_csv_format(x, buf);
		if (!reads_back(x, buf) && run->failures++ == 0)
			run->first_failure = to_bits(x);
	}
	return NULL;
}

/* The significant digits of a text like -0.00123e+05: their count. */
static int significant_digits(const char *text)
{
	int n = 0, leading = 1;
	for (const char *c = text; *c && *c != 'e'; c++) {
		if (*c < '0' || *c > '9')
			continue;
		if (*c == '0' && leading)
			continue;
		leading = 0;
		n++;
	}
	/* Trailing zeros of a whole number are placeholders, not digits. */
	if (!strchr(text, '.') && !strchr(text, 'e'))
		for (const char *c = text + strlen(text) - 1; c > text && *c == '0'; c--)
			n--;
	return n;
}

/* Every finite double must come back bit for bit: a million random ones on two threads (with
 * every exponent below). 20 million took 26 s of the 30 s limit on a busy 2-core machine. */
static void csv_round_trips(void **state)
{
	(void)state;
	/* Fewer under valgrind (its test setup sets POSENC_TEST_QUICK) and the sanitizers. */
	const char *quick = getenv("POSENC_TEST_QUICK");
	size_t count = quick && *quick ? 200000 : SANITIZED ? 250000 : 500000;
	struct round_trip_run runs[2] = {
	        {0x9e3779b97f4a7c15ull, count, 0, 0},
	        {0xd1b54a32d192ed03ull, count, 0, 0},
	};
	pthread_t tid;
	int threaded = pthread_create(&tid, NULL, round_trip_worker, &runs[1]) == 0;
	round_trip_worker(&runs[0]);
	if (threaded)
		pthread_join(tid, NULL);
	else
		round_trip_worker(&runs[1]);
	for (int r = 0; r < 2; r++)
		if (runs[r].failures)
			fail_msg("%zu doubles did not read back, first 0x%016llx", runs[r].failures,
			         (unsigned long long)runs[r].first_failure);

	/* Every binary exponent with its smallest, largest and a random significand. */
	char buf[32];
	uint64_t s = 7;
	for (uint64_t e = 0; e < 2047; e++) {
		const uint64_t mants[] = {0, 1, 2, 0xfffffffffffffull, next_random(&s) >> 12};
		for (size_t k = 0; k < 5; k++) {
			double x = from_bits(e << 52 | mants[k]);
			pe_csv_format(x, buf);
			if (!reads_back(x, buf))
				fail_msg("0x%016llx printed as %s", (unsigned long long)to_bits(x),
				         buf);
		}
	}

	/* Powers of two and ten, the extremes, integers near 2^53. */
	for (int e = -1074; e <= 1023; e++) {
		double x = ldexp(1.0, e);
		pe_csv_format(x, buf);
		assert_true(reads_back(x, buf));
	}
	for (int e = -323; e <= 308; e++) {
		char lit[16];
		snprintf(lit, sizeof(lit), "1e%d", e);
		double x = strtod(lit, NULL);
		pe_csv_format(x, buf);
		assert_true(reads_back(x, buf));
		/* 10^e is the one-digit string itself. */
		assert_int_equal(significant_digits(buf), 1);
	}
	const double edges[] = {DBL_MAX,
	                        -DBL_MAX,
	                        DBL_MIN,
	                        DBL_TRUE_MIN,
	                        0x1p53,
	                        0x1p53 - 1,
	                        0x1p53 + 2,
	                        nextafter(DBL_MIN, 0),
	                        nextafter(1.0, 2.0),
	                        nextafter(1.0, 0.0)};
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		pe_csv_format(edges[i], buf);
		assert_true(reads_back(edges[i], buf));
	}
	for (uint64_t k = 0; k < 100000; k++) {
		double x = (double)((1ull << 53) - k);
		pe_csv_format(x, buf);
		char want[32];
		snprintf(want, sizeof(want), "%.0f", x);
		assert_string_equal(buf, want);
	}
}

/* No shorter digit string reads back: %.{p}g for every p below the count fails. */
static void csv_format_is_shortest(void **state)
{
	(void)state;
	const char *quick = getenv("POSENC_TEST_QUICK");
	size_t count = quick && *quick ? 20000 : 25000;
	uint64_t s = 2024;
	char buf[32], shorter[512];
	for (size_t i = 0; i < count; i++) {
		double x = sample(&s, i);
		if (!isfinite(x) || x == 0)
			continue;
		pe_csv_format(x, buf);
		int k = significant_digits(buf);
		assert_in_range(k, 1, 17);
		for (int p = 1; p < k; p++) {
			snprintf(shorter, sizeof(shorter), "%.*g", p, x);
			if (strtod(shorter, NULL) == x)
				fail_msg("%s has %d digits, but %s reads back", buf, k, shorter);
		}
		/* Its digits are printf's correctly rounded ones, laid out as %g lays them out,
		 * except whole numbers below 1e17, which stay plain. */
		snprintf(shorter, sizeof(shorter), "%.*g", k, x);
		const char *e = strchr(shorter, 'e');
		int whole_plain = e && atoi(e + 1) >= -4 && atoi(e + 1) < 17;
		if (!whole_plain && strtod(shorter, NULL) == x)
			assert_string_equal(buf, shorter);
	}
}

/* A table big enough for the parallel writer, read back cell by cell. */
/* @pool: cells drawn from this many distinct values (0: all distinct) */
static void read_back(size_t rows, size_t cols, size_t pool)
{
	struct pe_matrix *m = pe_matrix_create(rows, cols);
	uint64_t s = 99;
	for (size_t i = 0; i < rows * cols; i++)
		m->data[i] = sample(&s, i);
	/* Repeats, as in a Toeplitz matrix, and more distinct values than the
	 * writer's cache of formatted cells has entries: collisions. */
	for (size_t i = pool; pool && i < rows * cols; i++)
		m->data[i] = m->data[(i * 7919) % pool];
	for (size_t i = 0; pool && i + 1 < rows * cols; i += 97) {
		m->data[i] = 0.0;
		m->data[i + 1] = -0.0;
	}
	m->data[5] = -0.0;
	m->data[cols + 1] = NAN;
	m->data[2 * cols + 2] = -INFINITY;
	char **labels = malloc(rows * sizeof(*labels));
	for (size_t i = 0; i < rows; i++) {
		labels[i] = malloc(32);
		snprintf(labels[i], 32, i % 2 ? "row \"%zu\", odd" : "row %zu", i);
	}
	struct pe_axis r = {"label", 0, 0, (const char *const *)labels};
	struct pe_axis c = {NULL, 0.5, 0.25, NULL};
	struct csv_args a = {m, &r, &c};
	size_t len;
	char *text = capture(&len, csv_fn, &a);
	assert_int_equal(strlen(text), len);

	/* Offsets, not pointers: gcc mistakes pointers into the stream's buffer for dangling ones.
	 */
	size_t at = strcspn(text, "\n") + 1;
	assert_memory_equal(text, "label,0.5,0.75,1,1.25,", 22);
	for (size_t i = 0; i < rows; i++) {
		size_t eol = at + strcspn(text + at, "\n");
		assert_true(eol < len);
		text[eol] = '\0';
		char want[48];
		if (i % 2)
			snprintf(want, sizeof(want), "\"row \"\"%zu\"\", odd\",", i);
		else
			snprintf(want, sizeof(want), "row %zu,", i);
		assert_memory_equal(text + at, want, strlen(want));
		at += strlen(want);
		for (size_t j = 0; j < cols; j++) {
			char *next;
			double v = strtod(text + at, &next);
			assert_true(next > text + at);
			double x = m->data[i * cols + j];
			if (isnan(x))
				assert_true(isnan(v));
			else if (to_bits(v) != to_bits(x))
				fail_msg("(%zu, %zu): %.17g read back as %.17g", i, j, x, v);
			assert_true(*next == (j + 1 < cols ? ',' : '\0'));
			at = (size_t)(next - text) + 1;
		}
		assert_int_equal(at, eol + 1);
	}
	assert_int_equal(at, len);
	free(text);
	for (size_t i = 0; i < rows; i++)
		free(labels[i]);
	free(labels);
	pe_matrix_destroy(m);
}

static void csv_parallel_reads_back(void **state)
{
	(void)state;
	/* Blocks of cells that end inside rows; rows longer than a block. */
	read_back(300, 700, 0);
	read_back(3, 70000, 0);
	read_back(200, 1000, 50000); /* repeated values, colliding in the cell cache */
	read_back(100, 1000, 300);
}

/* A full disk: PE_EIO with errno telling why, for the serial and the parallel writer. */
static void csv_write_failure(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	fclose(f);
	const size_t sizes[][2] = {{3, 4}, {400, 500}};
	for (size_t k = 0; k < 2; k++) {
		struct pe_matrix *m = pe_matrix_create(sizes[k][0], sizes[k][1]);
		for (size_t i = 0; i < m->rows * m->cols; i++)
			m->data[i] = (double)i / 7.0;
		struct pe_axis r = {"position", 0, 1, NULL}, c = {NULL, 0, 1, NULL};
		f = fopen("/dev/full", "w");
		assert_non_null(f);
		setvbuf(f, NULL, _IONBF, 0);
		errno = 0;
		assert_int_equal(pe_csv_write(f, m, &r, &c), PE_EIO);
		assert_int_equal(errno, ENOSPC);
		fclose(f);

		/* Past a header that fits in the buffer, the rows still fail. */
		f = fopen("/dev/full", "w");
		assert_non_null(f);
		errno = 0;
		assert_int_equal(pe_csv_write(f, m, &r, &c), k ? PE_EIO : PE_OK);
		if (k)
			assert_int_equal(errno, ENOSPC);
		fclose(f);
		pe_matrix_destroy(m);
	}
}

struct npy_args {
	const double *data;
	const size_t *shape;
	size_t ndim;
	enum pe_dtype dtype;
};

static enum pe_status npy_fn(FILE *f, const void *arg)
{
	const struct npy_args *a = arg;
	return pe_npy_write(f, a->data, a->shape, a->ndim, a->dtype);
}

static void npy_header_matches_numpy(void **state)
{
	(void)state;
	/* doc/conventions.md §10: np.save of a (3, 4) float32 array; HEADER_LEN 118, data at 128.
	 */
	double data[12];
	for (int i = 0; i < 12; i++)
		data[i] = i * 0.5;
	size_t shape[] = {3, 4};
	struct npy_args a = {data, shape, 2, PE_DTYPE_F32};
	size_t len;
	char *bytes = capture(&len, npy_fn, &a);
	assert_int_equal(len, 128 + 12 * 4);
	assert_memory_equal(bytes, "\x93NUMPY\x01\x00\x76\x00", 10);
	const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";
	assert_memory_equal(bytes + 10, dict, strlen(dict));
	for (size_t i = 10 + strlen(dict); i < 127; i++)
		assert_int_equal(bytes[i], ' ');
	assert_int_equal(bytes[127], '\n');
	float f;
	memcpy(&f, bytes + 128 + 4 * 3, 4);
	assert_true(f == 1.5f);
	free(bytes);

	/* float64, 1-D shape with its trailing comma. */
	size_t one[] = {5};
	a = (struct npy_args){data, one, 1, PE_DTYPE_F64};
	bytes = capture(&len, npy_fn, &a);
	assert_int_equal(len, 128 + 5 * 8);
	dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }";
	assert_memory_equal(bytes + 10, dict, strlen(dict));
	unsigned char le[8];
	memcpy(le, bytes + 128 + 8, 8);
	/* 0.5 = 0x3fe0000000000000, little-endian. */
	const unsigned char half[8] = {0, 0, 0, 0, 0, 0, 0xe0, 0x3f};
	assert_memory_equal(le, half, 8);
	free(bytes);

	/* A header that would need 64 bytes of padding gets 64, never 0. */
	size_t big[] = {123456789012ull, 1};
	char *hdr = NULL;
	size_t hlen;
	FILE *mem = open_memstream(&hdr, &hlen);
	/* Only the header is checked: a zero extent means no data follows. */
	big[1] = 0;
	assert_int_equal(pe_npy_write(mem, data, big, 2, PE_DTYPE_F64), PE_OK);
	fclose(mem);
	assert_int_equal(hlen % 64, 0);
	assert_int_equal(hdr[hlen - 1], '\n');
	free(hdr);
}

/* The bytes a stream with a descriptor received: rewound and read whole (free them). */
static char *slurp(FILE *f, size_t *len)
{
	assert_int_equal(fflush(f), 0);
	long end = ftell(f);
	assert_true(end >= 0);
	char *buf = malloc((size_t)end + 1);
	assert_non_null(buf);
	rewind(f);
	assert_int_equal(fread(buf, 1, (size_t)end, f), (size_t)end);
	*len = (size_t)end;
	return buf;
}

/*
 * Rows of M[a][b] = F[|a - b|] from the offset writer against the same rows
 * formed cell by cell and written by pe_npy_write_data()/pe_csv_write_rows():
 * the same bytes, in blocks that end inside the matrix, after a header
 * left in the stream's buffer, with values that need every CSV form.
 */
static void offset_rows_match_formed_rows(void **state)
{
	(void)state;
	/* 343 rows take more than one CSV writev batch (341 rows, IOV_BATCH / 3), 1025 more than
	 * one NPY batch (1023 rows); the sizes are small for the sake of a busy machine. */
	const size_t sizes[] = {1, 2, 7, 343, 1025};
	const size_t blocks[] = {1, 3, 64, 5000};
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		size_t n = sizes[si];
		double *F = malloc(n * sizeof(double));
		struct pe_matrix *m = pe_matrix_create(n, n);
		assert_non_null(F);
		assert_non_null(m);
		for (size_t k = 0; k < n; k++)
			F[k] = k % 11 == 5   ? -0.0
			       : k % 13 == 7 ? 1e-300 * (double)k
			                     : sqrt((double)k) / 3.0;
		if (n > 3) {
			F[3] = NAN;
			F[2] = -INFINITY;
		}
		for (size_t a = 0; a < n; a++)
			for (size_t b = 0; b < n; b++)
				m->data[a * n + b] = F[a > b ? a - b : b - a];
		struct pe_offset_rows *w;
		assert_int_equal(pe_offset_rows_create(F, n, &w), PE_OK);
		for (size_t bi = 0; bi < sizeof(blocks) / sizeof(blocks[0]); bi++) {
			/* Blocks of 1 and 3 rows are for the small sizes; past 64 rows a size is
			 * there for the writev batches, which only the largest block crosses. */
			if (n > 64 && blocks[bi] < 64)
				continue;
			size_t rows = blocks[bi] < n ? blocks[bi] : n;
			for (int fmt = 0; fmt < 3; fmt++) {
				FILE *want = tmpfile(), *got = tmpfile();
				assert_non_null(want);
				assert_non_null(got);
				const char *head = "a header the stream still buffers\n";
				fputs(head, want);
				fputs(head, got);
				for (size_t r0 = 0; r0 < n; r0 += rows) {
					size_t count = n - r0 < rows ? n - r0 : rows;
					struct pe_axis br = {"position", 17.0 + (double)r0, 1.0,
					                     NULL};
					struct pe_matrix blk = {count, n, m->data + r0 * n};
					if (fmt == 2) {
						assert_int_equal(pe_csv_write_rows(want, &blk, &br),
						                 PE_OK);
						assert_int_equal(
						        pe_offset_rows_csv(w, got, r0, count, &br),
						        PE_OK);
					} else {
						enum pe_dtype dt =
						        fmt ? PE_DTYPE_F32 : PE_DTYPE_F64;
						assert_int_equal(pe_npy_write_data(want, blk.data,
						                                   count * n, dt),
						                 PE_OK);
						assert_int_equal(
						        pe_offset_rows_npy(w, got, r0, count, dt),
						        PE_OK);
					}
				}
				size_t lw, lg;
				char *bw = slurp(want, &lw), *bg = slurp(got, &lg);
				assert_int_equal(lw, lg);
				assert_memory_equal(bw, bg, lw);
				free(bw);
				free(bg);
				fclose(want);
				fclose(got);
			}
		}
		/* Rows past the matrix, and none. */
		FILE *f = tmpfile();
		assert_int_equal(pe_offset_rows_npy(w, f, n - 1, 2, PE_DTYPE_F64), PE_ERANGE);
		assert_int_equal(pe_offset_rows_npy(w, f, 0, 0, PE_DTYPE_F64), PE_ERANGE);
		fclose(f);
		pe_offset_rows_destroy(w);
		pe_matrix_destroy(m);
		free(F);
	}
	struct pe_offset_rows *w = NULL;
	assert_int_equal(pe_offset_rows_create(NULL, 0, &w), PE_EINVAL);
	assert_null(w);
	pe_offset_rows_destroy(NULL);
}

/* A full disk: PE_EIO and ENOSPC, as the other writers. */
static void offset_rows_write_failure(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	double F[3] = {0, 1, 2};
	struct pe_offset_rows *w;
	assert_int_equal(pe_offset_rows_create(F, 3, &w), PE_OK);
	struct pe_axis r = {"position", 0, 1, NULL};
	errno = 0;
	assert_int_equal(pe_offset_rows_npy(w, f, 0, 3, PE_DTYPE_F64), PE_EIO);
	assert_int_equal(errno, ENOSPC);
	errno = 0;
	assert_int_equal(pe_offset_rows_csv(w, f, 0, 3, &r), PE_EIO);
	assert_int_equal(errno, ENOSPC);
	fclose(f);
	pe_offset_rows_destroy(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(csv_layout),
	        cmocka_unit_test(csv_format_texts),
	        cmocka_unit_test(csv_round_trips),
	        cmocka_unit_test(csv_format_is_shortest),
	        cmocka_unit_test(csv_parallel_reads_back),
	        cmocka_unit_test(csv_write_failure),
	        cmocka_unit_test(npy_header_matches_numpy),
	        cmocka_unit_test(offset_rows_match_formed_rows),
	        cmocka_unit_test(offset_rows_write_failure),
	};
	return cmocka_run_group_tests_name("write", tests, NULL, NULL);
}
