/* CSV and NPY writers: exact bytes, worked out by hand from the formats. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/write.h>

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
				  "1000,0,0.10000000000000001,-2.5\n"
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
				  "0,0,0.10000000000000001,-2.5\n"
				  "1,1e-300,nan,-inf\n");
	free(text);
	pe_matrix_destroy(m);
}

static void csv_round_trips(void **state)
{
	(void)state;
	char buf[32];
	uint64_t seed = 12345;
	for (int i = 0; i < 100000; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		double x;
		uint64_t bits = seed;
		memcpy(&x, &bits, 8);
		if (!isfinite(x))
			continue;
		pe_csv_format(x, buf);
		assert_true(strtod(buf, NULL) == x);
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
	/* ecosystem.md: np.save of a (3, 4) float32 array; HEADER_LEN 118, data at 128. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(csv_layout),
		cmocka_unit_test(csv_round_trips),
		cmocka_unit_test(npy_header_matches_numpy),
	};
	return cmocka_run_group_tests_name("write", tests, NULL, NULL);
}
