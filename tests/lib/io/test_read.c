/*
 * File readers: fixtures are built here byte by byte from the format
 * descriptions (numpy _format_impl.py, safetensors README), values are
 * chosen to convert exactly (known f16/bf16 bit patterns).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <posenc/read.h>
#include <posenc/scheme.h>

#include "io/read_internal.h"

/* ---- byte buffers ---- */

struct bytes {
	unsigned char *p;
	size_t n;
};

static void put(struct bytes *b, const void *src, size_t n)
{
	b->p = realloc(b->p, b->n + n + 1);
	assert_non_null(b->p);
	if (n)
		memcpy(b->p + b->n, src, n);
	b->n += n;
}

static void put_str(struct bytes *b, const char *s)
{
	put(b, s, strlen(s));
}

static void put_uint(struct bytes *b, uint64_t v, size_t size, int big_endian)
{
	unsigned char tmp[8];
	for (size_t i = 0; i < size; i++) {
		size_t shift = 8 * (big_endian ? size - 1 - i : i);
		tmp[i] = (unsigned char)(v >> shift);
	}
	put(b, tmp, size);
}

static void put_f64(struct bytes *b, double v, int big_endian)
{
	uint64_t bits;
	memcpy(&bits, &v, 8);
	put_uint(b, bits, 8, big_endian);
}

static void put_f32(struct bytes *b, float v, int big_endian)
{
	uint32_t bits;
	memcpy(&bits, &v, 4);
	put_uint(b, bits, 4, big_endian);
}

/* An NPY file: magic, version, header length, dict padded to 64 bytes, data. */
static struct bytes npy(int major, const char *dict, const struct bytes *data)
{
	struct bytes b = {0};
	unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)major, 0};
	put(&b, magic, 8);
	size_t lenfield = major == 1 ? 2 : 4;
	size_t hlen = strlen(dict) + 1;
	size_t total = 8 + lenfield + hlen;
	hlen += (64 - total % 64) % 64;
	put_uint(&b, hlen, lenfield, 0);
	put_str(&b, dict);
	for (size_t i = strlen(dict) + 1; i < hlen; i++)
		put_str(&b, " ");
	put_str(&b, "\n");
	if (data)
		put(&b, data->p, data->n);
	return b;
}

/* A safetensors file: u64 header length, JSON padded with spaces to 8, data. */
static struct bytes safetensors(const char *json, const struct bytes *data)
{
	struct bytes b = {0};
	size_t n = strlen(json);
	size_t padded = n + (8 - n % 8) % 8;
	put_uint(&b, padded, 8, 0);
	put_str(&b, json);
	for (size_t i = n; i < padded; i++)
		put_str(&b, " ");
	if (data)
		put(&b, data->p, data->n);
	return b;
}

static const double values6[6] = {0.5, -1.25, 3.0, 1e-300, -0.0, 65504.0};

static struct bytes f64_data(const double *v, size_t n, int big_endian)
{
	struct bytes b = {0};
	for (size_t i = 0; i < n; i++)
		put_f64(&b, v[i], big_endian);
	return b;
}

static void assert_matrix(const struct pe_matrix *m, size_t rows, size_t cols, const double *want)
{
	assert_non_null(m);
	assert_int_equal(m->rows, rows);
	assert_int_equal(m->cols, cols);
	for (size_t i = 0; i < rows * cols; i++) {
		if (isnan(want[i]))
			assert_true(isnan(m->data[i]));
		else
			assert_memory_equal(&m->data[i], &want[i], sizeof(double));
	}
}

/* Expects failure with @status and a message containing @needle. */
static void expect_fail(enum pe_status got, enum pe_status status, char *err, const char *needle)
{
	if (got != status || !err || !strstr(err, needle))
		print_error("status %d (want %d), message: %s (want '%s')\n", got, status,
		            err ? err : "(null)", needle);
	assert_int_equal(got, status);
	assert_non_null(err);
	assert_non_null(strstr(err, needle));
	free(err);
}

/* Calls first, then reads the err the call set (argument order is unspecified). */
#define EXPECT_FAIL(call, status, needle)                                                          \
	do {                                                                                       \
		enum pe_status st_ = (call);                                                       \
		expect_fail(st_, status, err, needle);                                             \
	} while (0)

/* ---- NPY ---- */

static void npy_f8_versions(void **state)
{
	(void)state;
	struct bytes data = f64_data(values6, 6, 0);
	for (int major = 1; major <= 3; major++) {
		struct bytes f =
		        npy(major, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
		            &data);
		assert_int_equal(f.n % 64, 48 % 64); /* 64-byte aligned header + 48 data bytes */
		struct pe_matrix *m;
		char *err = (char *)1;
		assert_int_equal(pe_npy_read(f.p, f.n, NULL, &m, &err), PE_OK);
		assert_null(err);
		assert_matrix(m, 2, 3, values6);
		pe_matrix_destroy(m);
		assert_int_equal(pe_file_format_detect(f.p, f.n, NULL), PE_FORMAT_NPY);
		free(f.p);
	}
	free(data.p);
}

static void npy_dtypes_and_endianness(void **state)
{
	(void)state;
	/* f32 values exact in binary. */
	const float f[4] = {1.5f, -0.25f, 1024.0f, 0.1f};
	const double want32[4] = {1.5, -0.25, 1024.0, (double)0.1f};
	/* f16 bit patterns: 1, -2, 65504, 2^-24 (smallest subnormal), 1/3 rounded, 0x3555. */
	const uint16_t h[6] = {0x3c00, 0xc000, 0x7bff, 0x0001, 0x3555, 0x8000};
	const double want16[6] = {1.0, -2.0, 65504.0, 5.9604644775390625e-08, 0.333251953125, -0.0};
	for (int be = 0; be <= 1; be++) {
		struct bytes d = {0};
		for (int i = 0; i < 4; i++)
			put_f32(&d, f[i], be);
		char dict[128];
		snprintf(dict, sizeof(dict),
		         "{'descr': '%cf4', 'fortran_order': False, 'shape': (2, 2), }",
		         be ? '>' : '<');
		struct bytes file = npy(1, dict, &d);
		struct pe_matrix *m;
		assert_int_equal(pe_npy_read(file.p, file.n, NULL, &m, NULL), PE_OK);
		assert_matrix(m, 2, 2, want32);
		pe_matrix_destroy(m);
		free(file.p);
		free(d.p);

		d = (struct bytes){0};
		for (int i = 0; i < 6; i++)
			put_uint(&d, h[i], 2, be);
		snprintf(dict, sizeof(dict),
		         "{'descr': '%cf2', 'fortran_order': False, 'shape': (3, 2), }",
		         be ? '>' : '<');
		file = npy(1, dict, &d);
		assert_int_equal(pe_npy_read(file.p, file.n, NULL, &m, NULL), PE_OK);
		assert_matrix(m, 3, 2, want16);
		assert_true(signbit(m->data[5]));
		pe_matrix_destroy(m);
		free(file.p);
		free(d.p);

		d = f64_data(values6, 6, be);
		snprintf(dict, sizeof(dict),
		         "{'descr': '%cf8', 'fortran_order': False, 'shape': (6, 1), }",
		         be ? '>' : '<');
		file = npy(2, dict, &d);
		assert_int_equal(pe_npy_read(file.p, file.n, NULL, &m, NULL), PE_OK);
		assert_matrix(m, 6, 1, values6);
		pe_matrix_destroy(m);
		free(file.p);
		free(d.p);
	}
	/* f16 infinity and NaN convert (the loader refuses them later). */
	struct bytes d = {0};
	put_uint(&d, 0x7c00, 2, 0);
	put_uint(&d, 0xfe00, 2, 0);
	struct bytes file = npy(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", &d);
	struct pe_matrix *m;
	assert_int_equal(pe_npy_read(file.p, file.n, NULL, &m, NULL), PE_OK);
	assert_true(isinf(m->data[0]) && m->data[0] > 0);
	assert_true(isnan(m->data[1]));
	pe_matrix_destroy(m);
	free(file.p);
	free(d.p);
}

static void npy_fortran_order_transposes(void **state)
{
	(void)state;
	/* The 2 x 3 matrix [[1, 2, 3], [4, 5, 6]] stored column by column. */
	const double column_major[6] = {1, 4, 2, 5, 3, 6};
	const double want[6] = {1, 2, 3, 4, 5, 6};
	struct bytes d = f64_data(column_major, 6, 0);
	struct bytes f = npy(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", &d);
	struct pe_matrix *m;
	assert_int_equal(pe_npy_read(f.p, f.n, NULL, &m, NULL), PE_OK);
	assert_matrix(m, 2, 3, want);
	pe_matrix_destroy(m);
	/* And a row range of it: row 1 only. */
	struct pe_read_request req = {NULL, 1, 2, 1, 0};
	assert_int_equal(pe_npy_read(f.p, f.n, &req, &m, NULL), PE_OK);
	assert_matrix(m, 1, 3, want + 3);
	pe_matrix_destroy(m);
	free(f.p);
	free(d.p);
}

static void npy_header_forms(void **state)
{
	(void)state;
	struct bytes d = f64_data(values6, 6, 0);
	const char *dicts[] = {
	        "{'shape': (3, 2), 'fortran_order': False, 'descr': '<f8'}",
	        "{\"descr\":\"<f8\",\"fortran_order\":False,\"shape\":(3,2)}",
	        "{ 'fortran_order' : False , 'shape' : ( 3 , 2 , ) , 'descr' : '<f8' , }",
	        "{'descr': '<f8', 'fortran_order': False, 'shape': (3L, 2L)}",
	};
	for (size_t i = 0; i < sizeof(dicts) / sizeof(dicts[0]); i++) {
		struct bytes f = npy(1, dicts[i], &d);
		struct pe_matrix *m;
		char *err = NULL;
		enum pe_status st = pe_npy_read(f.p, f.n, NULL, &m, &err);
		if (st != PE_OK)
			print_error("%s: %s\n", dicts[i], err);
		assert_int_equal(st, PE_OK);
		assert_matrix(m, 3, 2, values6);
		pe_matrix_destroy(m);
		free(f.p);
	}
	/* 1-D arrays are n x 1 tables. */
	struct bytes f = npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }", &d);
	struct pe_matrix *m;
	assert_int_equal(pe_npy_read(f.p, f.n, NULL, &m, NULL), PE_OK);
	assert_matrix(m, 6, 1, values6);
	pe_matrix_destroy(m);
	free(f.p);
	free(d.p);
}

struct bad_npy {
	const char *dict;
	size_t data_bytes;
	const char *needle;
};

static void npy_malformed_headers(void **state)
{
	(void)state;
	static const struct bad_npy cases[] = {
	        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 4), }", 192,
	         "expected a 2-D array (positions x width), found 3-D (2, 3, 4)"},
	        {"{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 8, "found 0-D ()"},
	        {"{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", 48,
	         "unsupported dtype '<i8'"},
	        {"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }", 6,
	         "unsupported dtype '|u1'"},
	        {"{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }", 16,
	         "structured dtypes"},
	        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 40,
	         "truncated: shape (2, 3) of <f8 needs 48 bytes of data, the file has 40"},
	        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 56,
	         "8 bytes after the data"},
	        {"{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 2), }",
	         0, "shape (4294967296, 4294967296, 2) overflows"},
	        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952, 2), }", 0,
	         "overflows"},
	        {"{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999, 2), }",
	         0, "overflows 64 bits"},
	        {"{'descr': '<f8', 'fortran_order': False}", 0, "lacks the key 'shape'"},
	        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}", 8,
	         "unexpected key 'x'"},
	        {"{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}", 8,
	         "appears twice"},
	        {"{'descr': '<f8', 'fortran_order': false, 'shape': (1,)}", 8, "True or False"},
	        {"{'descr': '<f8', 'fortran_order': False, 'shape': (5)}", 40, "is not a tuple"},
	        {"{'descr': '<f8', 'fortran_order': False, 'shape': [5]}", 40, "is a list"},
	        {"{'descr': '<f8', 'fortran_order': False, 'shape': (-5,)}", 40,
	         "other than integers"},
	        {"{'descr': '<f8', 'fortran_order': False, 'shape': (5,)} x", 40,
	         "text after the dict"},
	        {"['descr', '<f8']", 8, "not a dict"},
	        {"{'descr': '<f8, 'fortran_order': False, 'shape': (1,)}", 8, "NPY header"},
	        {"{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3)}", 0,
	         "empty, shape (0, 3)"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bytes d = {calloc(cases[i].data_bytes + 1, 1), cases[i].data_bytes};
		struct bytes f = npy(1, cases[i].dict, &d);
		struct pe_matrix *m = (struct pe_matrix *)1;
		char *err = NULL;
		enum pe_status st = pe_npy_read(f.p, f.n, NULL, &m, &err);
		assert_null(m);
		expect_fail(st, PE_EFORMAT, err, cases[i].needle);
		free(f.p);
		free(d.p);
	}
}

static void npy_bad_preamble(void **state)
{
	(void)state;
	struct bytes d = f64_data(values6, 6, 0);
	struct bytes f = npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", &d);
	struct pe_matrix *m;
	char *err;
	/* Every truncation is refused, never read past. */
	for (size_t n = 0; n < f.n; n++) {
		unsigned char *copy = malloc(n ? n : 1);
		memcpy(copy, f.p, n);
		assert_int_equal(pe_npy_read(copy, n, NULL, &m, &err), PE_EFORMAT);
		assert_non_null(err);
		free(err);
		free(copy);
	}
	/* A lying header length. */
	f.p[8] = 0xff;
	f.p[9] = 0x7f;
	EXPECT_FAIL(pe_npy_read(f.p, f.n, NULL, &m, &err), PE_EFORMAT,
	            "the header says 32767 bytes");
	f.p[8] = 118;
	f.p[9] = 0;
	f.p[6] = 4;
	EXPECT_FAIL(pe_npy_read(f.p, f.n, NULL, &m, &err), PE_EFORMAT,
	            "unsupported NPY version 4.0");
	f.p[6] = 1;
	f.p[0] = 'x';
	EXPECT_FAIL(pe_npy_read(f.p, f.n, NULL, &m, &err), PE_EFORMAT, "not an NPY file");
	free(f.p);
	free(d.p);
}

/* ---- safetensors ---- */

static const char *gpt2_json =
        "{\"__metadata__\":{\"format\":\"pt\"},"
        "\"wte.weight\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[48,72]},"
        "\"wpe.weight\":{\"dtype\":\"F64\",\"shape\":[2,3],\"data_offsets\":[0,48]},"
        "\"h.0.attn.bias\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[72,80]}}";

static struct bytes gpt2_file(void)
{
	struct bytes d = f64_data(values6, 6, 0);
	for (int i = 0; i < 6; i++)
		put_f32(&d, (float)(i + 1) / 4, 0);
	put_uint(&d, 7, 8, 0);
	struct bytes f = safetensors(gpt2_json, &d);
	free(d.p);
	return f;
}

static void safetensors_gpt2_names(void **state)
{
	(void)state;
	struct bytes f = gpt2_file();
	assert_int_equal(pe_file_format_detect(f.p, f.n, NULL), PE_FORMAT_SAFETENSORS);
	struct pe_matrix *m;
	char *err;
	struct pe_read_request req = {"wpe.weight", 0, 0, 0, 0};
	assert_int_equal(pe_safetensors_read(f.p, f.n, &req, &m, &err), PE_OK);
	assert_matrix(m, 2, 3, values6);
	pe_matrix_destroy(m);
	req.tensor = "wte.weight";
	const double quarters[6] = {0.25, 0.5, 0.75, 1.0, 1.25, 1.5};
	assert_int_equal(pe_read_buffer(f.p, f.n, "model.safetensors", &req, &m, &err), PE_OK);
	assert_matrix(m, 2, 3, quarters);
	pe_matrix_destroy(m);
	req.row_first = 1;
	assert_int_equal(pe_safetensors_read(f.p, f.n, &req, &m, &err), PE_OK);
	assert_matrix(m, 1, 3, quarters + 3);
	pe_matrix_destroy(m);

	/* A wrong name lists the names, closest first. */
	req = (struct pe_read_request){"wpe", 0, 0, 0, 0};
	EXPECT_FAIL(pe_safetensors_read(f.p, f.n, &req, &m, &err), PE_ENOTFOUND,
	            "no tensor 'wpe' (the file has 'wpe.weight', 'wte.weight', 'h.0.attn.bias')");
	/* No name in a file of several tensors: the readable ones first. */
	EXPECT_FAIL(pe_safetensors_read(f.p, f.n, NULL, &m, &err), PE_ENOTFOUND,
	            "the file holds 3 tensors, name one with tensor=NAME or PATH#NAME: "
	            "'wpe.weight', 'wte.weight', 'h.0.attn.bias'");
	req.tensor = "h.0.attn.bias";
	EXPECT_FAIL(pe_safetensors_read(f.p, f.n, &req, &m, &err), PE_EFORMAT,
	            "tensor 'h.0.attn.bias' has dtype I64; readable dtypes: F64, F32, F16, BF16");

	struct pe_file_info *info;
	assert_int_equal(pe_file_inspect_buffer(f.p, f.n, NULL, &info, &err), PE_OK);
	assert_int_equal(info->format, PE_FORMAT_SAFETENSORS);
	assert_int_equal(info->count, 3);
	assert_string_equal(info->tensors[0].name, "wpe.weight");
	assert_string_equal(info->tensors[0].dtype, "F64");
	assert_int_equal(info->tensors[0].offset, f.n - 80);
	assert_int_equal(info->tensors[1].shape[1], 3);
	assert_string_equal(info->tensors[2].name, "h.0.attn.bias");
	assert_false(info->tensors[2].readable);
	assert_true(info->tensors[1].readable);
	assert_int_equal(info->n_metadata, 1);
	assert_string_equal(info->metadata_keys[0], "format");
	assert_string_equal(info->metadata_values[0], "pt");
	pe_file_info_destroy(info);
	free(f.p);

	/* Fine-tuned checkpoints prefix the names with transformer. */
	struct bytes d = f64_data(values6, 6, 0);
	struct bytes g = safetensors("{\"transformer.wte.weight\":{\"dtype\":\"F64\",\"shape\":[1,"
	                             "3],\"data_offsets\":[24,48]},"
	                             "\"transformer.wpe.weight\":{\"dtype\":\"F64\",\"shape\":[1,3]"
	                             ",\"data_offsets\":[0,24]}}",
	                             &d);
	req = (struct pe_read_request){"wpe.weight", 0, 0, 0, 0};
	EXPECT_FAIL(pe_safetensors_read(g.p, g.n, &req, &m, &err), PE_ENOTFOUND,
	            "(the file has 'transformer.wpe.weight', 'transformer.wte.weight')");
	req.tensor = "transformer.wpe.weight";
	assert_int_equal(pe_safetensors_read(g.p, g.n, &req, &m, &err), PE_OK);
	assert_matrix(m, 1, 3, values6);
	pe_matrix_destroy(m);
	free(g.p);
	free(d.p);
}

static void safetensors_half_types(void **state)
{
	(void)state;
	/* BF16: 1, 3.140625, -123.5, 2^-133 (f32 subnormal); F16: 0.5, -65504, 2^-14, 2^-24. */
	const uint16_t bf[4] = {0x3f80, 0x4049, 0xc2f7, 0x0001};
	const double want_bf[4] = {1.0, 3.140625, -123.5, 9.1835496157991212e-41};
	const uint16_t hf[4] = {0x3800, 0xfbff, 0x0400, 0x0001};
	const double want_hf[4] = {0.5, -65504.0, 6.103515625e-05, 5.9604644775390625e-08};
	struct bytes d = {0};
	for (int i = 0; i < 4; i++)
		put_uint(&d, bf[i], 2, 0);
	for (int i = 0; i < 4; i++)
		put_uint(&d, hf[i], 2, 0);
	struct bytes f =
	        safetensors("{\"b\":{\"dtype\":\"BF16\",\"shape\":[2,2],\"data_offsets\":[0,8]},"
	                    "\"h\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[8,16]}}",
	                    &d);
	struct pe_matrix *m;
	struct pe_read_request req = {"b", 0, 0, 0, 0};
	assert_int_equal(pe_safetensors_read(f.p, f.n, &req, &m, NULL), PE_OK);
	assert_matrix(m, 2, 2, want_bf);
	assert_true(ldexp(1.0, -133) == m->data[3]);
	pe_matrix_destroy(m);
	req.tensor = "h";
	assert_int_equal(pe_safetensors_read(f.p, f.n, &req, &m, NULL), PE_OK);
	assert_matrix(m, 4, 1, want_hf);
	pe_matrix_destroy(m);
	free(f.p);
	free(d.p);
}

static void safetensors_json_details(void **state)
{
	(void)state;
	struct bytes d = f64_data(values6, 1, 0);
	/* A header must start with '{' (no leading white space). */
	struct bytes f = safetensors(" {}", NULL);
	char *err;
	struct pe_file_info *info;
	EXPECT_FAIL(pe_file_inspect_buffer(f.p, f.n, "x.safetensors", &info, &err), PE_EFORMAT,
	            "does not start with '{'");
	free(f.p);
	/* Escapes in names, unknown fields ignored (as serde does), white space. */
	f = safetensors("{\"caf\\u00e9 \\\"x\\\"\\/\\ud83d\\ude00\" : { \"extra\": [1, 2.5e3, -1, "
	                "null, true, "
	                "{\"a\": \"b\"}], \"data_offsets\" : [ 0 , 8 ], \"shape\":[1,1], "
	                "\"dtype\":\"F64\"}}",
	                &d);
	assert_int_equal(pe_file_inspect_buffer(f.p, f.n, NULL, &info, &err), PE_OK);
	assert_string_equal(info->tensors[0].name, "caf\xc3\xa9 \"x\"/\xf0\x9f\x98\x80");
	pe_file_info_destroy(info);
	free(f.p);
	/* Shape [] (a scalar) and zero-size tensors are valid files. */
	f = safetensors("{\"s\":{\"dtype\":\"F64\",\"shape\":[],\"data_offsets\":[0,8]},"
	                "\"z\":{\"dtype\":\"F32\",\"shape\":[0,5],\"data_offsets\":[8,8]}}",
	                &d);
	assert_int_equal(pe_file_inspect_buffer(f.p, f.n, NULL, &info, &err), PE_OK);
	assert_int_equal(info->count, 2);
	assert_int_equal(info->tensors[0].ndim, 0);
	pe_file_info_destroy(info);
	struct pe_matrix *m;
	struct pe_read_request req = {"s", 0, 0, 0, 0};
	EXPECT_FAIL(pe_safetensors_read(f.p, f.n, &req, &m, &err), PE_EFORMAT,
	            "expected a 2-D tensor 's' (positions x width), found 0-D ()");
	req.tensor = "z";
	EXPECT_FAIL(pe_safetensors_read(f.p, f.n, &req, &m, &err), PE_EFORMAT,
	            "the tensor 'z' is empty, shape (0, 5)");
	free(f.p);
	/* An empty header "{}" holds no tensors. */
	f = safetensors("{}", NULL);
	assert_int_equal(pe_file_inspect_buffer(f.p, f.n, NULL, &info, &err), PE_OK);
	assert_int_equal(info->count, 0);
	pe_file_info_destroy(info);
	EXPECT_FAIL(pe_safetensors_read(f.p, f.n, NULL, &m, &err), PE_ENOTFOUND,
	            "holds no tensors");
	free(f.p);
	free(d.p);
}

struct bad_st {
	const char *json;
	size_t data_bytes;
	const char *needle;
};

static void safetensors_malformed(void **state)
{
	(void)state;
	static const struct bad_st cases[] = {
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2,3,4],\"data_offsets\":[0,96]}}", 96,
	         "expected a 2-D tensor 'a' (positions x width), found 3-D (2, 3, 4)"},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}", 24,
	         "8 bytes after the last tensor's data"},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}", 8,
	         "truncated: the tensors need 16 bytes of data, the file has 8"},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[8,24]}}", 24,
	         "leave a hole after byte 0"},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
	         "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
	         12, "overlap the tensor before, which ends at 8"},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", 8,
	         "end before they begin"},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8,
	         "hold 8 bytes, its dtype and shape need 12"},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,18446744073709551615]"
	         "}}",
	         8, "need 8"},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,18446744073709551616]"
	         "}}",
	         8, "not a pair of non-negative integers"},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4],\"data_offsets\":["
	         "0,8]}}",
	         8, "shape (4294967296, 4294967296, 4) overflows"},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
	         "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}",
	         16, "'a' appears twice"},
	        {"{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}"
	         "}",
	         8, "'dtype' appears twice"},
	        {"{\"a\":{\"dtype\":\"Q4\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8,
	         "unknown dtype 'Q4'"},
	        {"{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", 2,
	         "not a whole number of bytes"},
	        {"{\"a\":{\"shape\":[2],\"data_offsets\":[0,8]}}", 8, "tensor 'a': no \"dtype\""},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2.0],\"data_offsets\":[0,8]}}", 8,
	         "shape holds something other than"},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", 8,
	         "shape holds something other than"},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}", 8,
	         "data_offsets is not a pair"},
	        {"{\"a\":[1,2]}", 0, "its description is not an object"},
	        {"{\"__metadata__\":{\"k\":1}}", 0, "__metadata__ value of 'k' is not a string"},
	        {"{\"__metadata__\":[]}", 0, "__metadata__ is not an object"},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},}", 8,
	         "invalid JSON"},
	        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[02],\"data_offsets\":[0,8]}}", 8,
	         "invalid JSON"},
	        {"{\"a\\u0000\":1}", 0, "\\u0000"},
	        {"{\"a\\ud800\":1}", 0, "unpaired surrogate"},
	        {"{\"a\\x\":1}", 0, "invalid escape"},
	        {"{\"a\":1} {}", 0, "text after the JSON value"},
	        {"{\"a\":{\"b\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
	         "[[["
	         "[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
	         "]]}}",
	         0, "nested too deeply"},
	        {"[1,2]", 0, "does not start with '{'"},
	        {"{\"\xff\":1}", 0, "not valid UTF-8"},
	        {"{\"\xc0\x80\":1}", 0, "not valid UTF-8"},
	        {"{\"a\":\"\x01\"}", 0, "control character"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bytes d = {0};
		d.p = calloc(cases[i].data_bytes + 1, 1);
		d.n = cases[i].data_bytes;
		struct bytes f = safetensors(cases[i].json, &d);
		struct pe_matrix *m = (struct pe_matrix *)1;
		char *err = NULL;
		struct pe_read_request req = {"a", 0, 0, 0, 0};
		enum pe_status st = pe_safetensors_read(f.p, f.n, &req, &m, &err);
		assert_null(m);
		expect_fail(st, PE_EFORMAT, err, cases[i].needle);
		free(f.p);
		free(d.p);
	}
}

static void safetensors_bad_lengths(void **state)
{
	(void)state;
	struct bytes f = gpt2_file();
	struct pe_matrix *m;
	char *err;
	struct pe_read_request req = {"wpe.weight", 0, 0, 0, 0};
	for (size_t n = 0; n < f.n; n++) {
		unsigned char *copy = malloc(n ? n : 1);
		memcpy(copy, f.p, n);
		assert_int_equal(pe_safetensors_read(copy, n, &req, &m, &err), PE_EFORMAT);
		assert_non_null(err);
		free(err);
		free(copy);
	}
	struct bytes big = {0};
	put_uint(&big, 100000001, 8, 0);
	put_str(&big, "{}");
	EXPECT_FAIL(pe_safetensors_read(big.p, big.n, &req, &m, &err), PE_EFORMAT,
	            "header length 100000001 exceeds the limit of 100000000 bytes");
	free(big.p);
	big = (struct bytes){0};
	put_uint(&big, 64, 8, 0);
	put_str(&big, "{}");
	EXPECT_FAIL(pe_safetensors_read(big.p, big.n, &req, &m, &err), PE_EFORMAT,
	            "truncated: the header length says 64 bytes, 2 follow");
	free(big.p);
	big = (struct bytes){0};
	put_uint(&big, UINT64_MAX, 8, 0);
	put_str(&big, "{}");
	EXPECT_FAIL(pe_safetensors_read(big.p, big.n, &req, &m, &err), PE_EFORMAT,
	            "exceeds the limit");
	free(big.p);
	free(f.p);
}

/* ---- CSV ---- */

struct csv_case {
	const char *text;
	size_t rows, cols;
	int header, index;
	double want[6];
};

static void csv_layouts(void **state)
{
	(void)state;
	static const struct csv_case cases[] = {
	        {"1,2,3\n4,5,6\n", 2, 3, 0, 0, {1, 2, 3, 4, 5, 6}},
	        {"position,0,1\n0,0.5,1\n1,2,3\n", 2, 2, 1, 1, {0.5, 1, 2, 3}},
	        {",a,b\n0,1,2\n1,3,4\n", 2, 2, 1, 1, {1, 2, 3, 4}},
	        {"a,b\n1,2\n3,4\n", 2, 2, 1, 0, {1, 2, 3, 4}},
	        {"x,y,z\n7,1,2\n8,3,4\n", 2, 2, 1, 1, {1, 2, 3, 4}},
	        {"5,1.5,2\n6,3,4\n", 2, 2, 0, 1, {1.5, 2, 3, 4}},
	        {"5,1.5,2\n7,3,4\n", 2, 3, 0, 0, {5, 1.5, 2, 7, 3, 4}},
	        {"5.0,1.5\n6.0,3\n", 2, 2, 0, 0, {5, 1.5, 6, 3}},
	        {"\xef\xbb\xbf\"pos\",\"a,b\"\r\n# comment\r\n\r\n 0 , -1e-3 \r\n1,+.5\r\n",
	         2,
	         1,
	         1,
	         1,
	         {-1e-3, 0.5}},
	        {"1\n2\n3", 3, 1, 0, 0, {1, 2, 3}},
	        {"nan,inf\n-inf,NaN\n", 2, 2, 0, 0, {NAN, INFINITY, -INFINITY, NAN}},
	        {"0.1,0.33333333333333331\n1e308,4.9406564584124654e-324\n",
	         2,
	         2,
	         0,
	         0,
	         {0.1, 1.0 / 3, 1e308, 4.9406564584124654e-324}},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct csv_case *c = &cases[i];
		struct pe_matrix *m;
		char *err = NULL;
		enum pe_status st = pe_csv_read(c->text, strlen(c->text), NULL, &m, &err);
		if (st != PE_OK)
			print_error("case %zu: %s\n", i, err);
		assert_int_equal(st, PE_OK);
		assert_matrix(m, c->rows, c->cols, c->want);
		pe_matrix_destroy(m);
		struct pe_file_info *info;
		assert_int_equal(
		        pe_file_inspect_buffer(c->text, strlen(c->text), "t.csv", &info, &err),
		        PE_OK);
		assert_int_equal(info->format, PE_FORMAT_CSV);
		assert_int_equal(info->csv_header, c->header);
		assert_int_equal(info->csv_index, c->index);
		assert_int_equal(info->tensors[0].shape[0], c->rows);
		assert_int_equal(info->tensors[0].shape[1], c->cols);
		pe_file_info_destroy(info);
	}
	/* Rows select positions; the index column is still recognised. */
	const char *text = "position,0,1\n0,1,2\n1,3,4\n2,5,6\n";
	struct pe_read_request req = {NULL, 1, 3, 1, 0};
	struct pe_matrix *m;
	assert_int_equal(pe_csv_read(text, strlen(text), &req, &m, NULL), PE_OK);
	const double want[4] = {3, 4, 5, 6};
	assert_matrix(m, 2, 2, want);
	pe_matrix_destroy(m);
}

static void csv_malformed(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *needle;
	} cases[] = {
	        {"", "no data rows"},
	        {"\n\n# only comments\n", "no data rows"},
	        {"a,b\n", "no data rows (only a header)"},
	        {"1,2,3\n4,5\n", "line 2 has 2 cells, expected 3"},
	        {"1,2\n4,5,6\n", "line 2 has 3 cells, expected 2"},
	        {"a,b\n1,x\n", "line 2, column 2: 'x' is not a number"},
	        {"a,b\n1,\n", "line 2, column 2: empty cell"},
	        {"a,b\n1,0x10\n", "'0x10' is not a number"},
	        {"a,b\n1,1e\n", "'1e' is not a number"},
	        {"a,b\n1,\"2\n", "unbalanced quotes"},
	        {"a,b\n1,\"2\"x\n", "unbalanced quotes"},
	        {"\x89PNG\r\n\x1a\n\0\0", "not a text table (binary data"},
	        /* Found by fuzz_csv: a malformed extra cell looped forever. */
	        {"a,b\n1,2,\"\"0\n", "line 2 has 3 cells, expected 2"},
	        /* other separators: np.savetxt's default (a space), tabs, semicolons; the
	         * first line is no header but the table itself */
	        {"1.5 2 -3e-2\n4 5 6\n", "line 1: '1.5 2 -3e-2' holds numbers separated by spaces"},
	        {"1\t2\n", "line 1: '1\t2' holds numbers separated by tabs"},
	        {"0.25;0.5\n1;2\n", "line 1: '0.25;0.5' holds numbers separated by ';'"},
	        {"# cos\nc0 c1\n1 2\n", "line 3: '1 2' holds numbers separated by spaces"},
	        {"a,b\n1;2,3\n", "line 2: '1;2' holds numbers separated by ';'"},
	        /* one word, or words and numbers, stay a header or a cell that is no number */
	        {"a b\n", "no data rows (only a header)"},
	        {"a,b\n1 x,2\n", "line 2, column 1: '1 x' is not a number"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pe_matrix *m = (struct pe_matrix *)1;
		char *err = NULL;
		size_t len = strlen(cases[i].text);
		if (strncmp(cases[i].text, "\x89PNG", 4) == 0)
			len += 2; /* the NULs after the signature */
		enum pe_status st = pe_csv_read(cases[i].text, len, NULL, &m, &err);
		if (m)
			print_error("case %zu read\n", i);
		assert_null(m);
		expect_fail(st, PE_EFORMAT, err, cases[i].needle);
	}
	char long_cell[1000];
	memset(long_cell, '1', sizeof(long_cell));
	memcpy(long_cell, "a\n1,", 4);
	long_cell[sizeof(long_cell) - 1] = '\0';
	struct pe_matrix *m;
	char *err;
	EXPECT_FAIL(pe_csv_read(long_cell, strlen(long_cell), NULL, &m, &err), PE_EFORMAT,
	            "line 2 has 2 cells, expected 1");
	memcpy(long_cell, "a,b\n1,", 6);
	EXPECT_FAIL(pe_csv_read(long_cell, strlen(long_cell), NULL, &m, &err), PE_EFORMAT,
	            "...' is not a number");
	/* a space-separated line longer than a cell holds (400 characters), cut inside a
	 * number ("1e-05 " six times 66 is 396: the cut leaves "1e-0"), still said */
	for (size_t i = 0; i + 6 < sizeof(long_cell); i += 6)
		memcpy(long_cell + i, "1e-05 ", 6);
	long_cell[sizeof(long_cell) - 5] = '\0';
	EXPECT_FAIL(pe_csv_read(long_cell, strlen(long_cell), NULL, &m, &err), PE_EFORMAT,
	            "line 1: '1e-05 1e-05 1e-05 1e-05 1e-05 1e-05 1e-0...' holds numbers "
	            "separated by spaces");
	EXPECT_FAIL(pe_csv_read(NULL, 0, NULL, &m, &err), PE_EFORMAT, "no data rows");
	struct pe_file_info *info;
	EXPECT_FAIL(pe_file_inspect_buffer(NULL, 0, "x.csv", &info, &err), PE_EFORMAT,
	            "no data rows");
	struct pe_read_request req = {NULL, 0, 5, 1, 0};
	EXPECT_FAIL(pe_csv_read("1\n2\n", 4, &req, &m, &err), PE_ERANGE,
	            "rows=0:5 is outside the table's 2 rows");
	/* keep_first: consecutive integers under no header stay a column of the table */
	req = (struct pe_read_request){NULL, 0, 0, 0, 1};
	assert_int_equal(pe_csv_read("5,1.5,2\n6,3,4\n", 14, &req, &m, &err), PE_OK);
	assert_int_equal(m->cols, 3);
	assert_true(m->data[0] == 5 && m->data[3] == 6 && m->data[5] == 4);
	pe_matrix_destroy(m);
	/* ... but a header's index column is still one */
	assert_int_equal(pe_csv_read("position,a\n0,1.5\n1,3\n", 21, &req, &m, &err), PE_OK);
	assert_int_equal(m->cols, 1);
	pe_matrix_destroy(m);
	req = (struct pe_read_request){NULL, 2, 2, 1, 0};
	EXPECT_FAIL(pe_csv_read("1\n2\n", 4, &req, &m, &err), PE_ERANGE,
	            "rows=2:2 selects no rows");
}

/* ---- files and the file scheme ---- */

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/posenc-test-read-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *write_tmp(const char *name, const void *data, size_t n)
{
	static char path[128];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void file_scheme_loads(void **state)
{
	(void)state;
	char wpe_name[] = "wpe.weight";
	char missing_path[] = "/nonexistent/posenc.npy";
	/* An OPT-like table: 2 offset rows then 3 positions. */
	const double table[10] = {9, 9, 9, 9, 0.5, 1, 1.5, 2, 2.5, 3};
	struct bytes d = f64_data(table, 10, 0);
	struct bytes f = npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5, 2), }", &d);
	char *path = write_tmp("opt.npy", f.p, f.n);
	struct pe_scheme s;
	memset(&s, 0, sizeof(s));
	s.type = pe_scheme_type_find("file");
	s.path = path;
	s.row_first = 2;
	struct pe_matrix *m;
	char *err = (char *)1;
	assert_int_equal(pe_file_load(&s, &m, &err), PE_OK);
	assert_null(err);
	assert_matrix(m, 3, 2, table + 4);
	pe_matrix_destroy(m);
	s.row_end = 4;
	s.row_end_set = 1;
	assert_int_equal(pe_file_load(&s, &m, &err), PE_OK);
	assert_matrix(m, 2, 2, table + 4);
	pe_matrix_destroy(m);
	s.row_end = 6;
	EXPECT_FAIL(pe_file_load(&s, &m, &err), PE_ERANGE,
	            "rows=2:6 is outside the table's 5 rows");
	s.row_end_set = 0;
	s.tensor = wpe_name;
	EXPECT_FAIL(pe_file_load(&s, &m, &err), PE_ENOTFOUND, "one unnamed array");
	s.tensor = NULL;
	free(f.p);
	free(d.p);

	/* NaN and Inf are parsed but refused for analyses, with their place. */
	const char *csv = "position,0,1\n0,1,2\n1,3,nan\n2,-inf,4\n";
	s.path = write_tmp("nan.csv", csv, strlen(csv));
	s.row_first = 0;
	EXPECT_FAIL(pe_file_load(&s, &m, &err), PE_EFORMAT,
	            "value nan at row 1, column 1 (counting from 0)");
	s.row_first = 2;
	EXPECT_FAIL(pe_file_load(&s, &m, &err), PE_EFORMAT, "value -inf at row 2, column 0");

	/* A safetensors file on disk, read through the map. */
	struct bytes g = gpt2_file();
	s.path = write_tmp("gpt2.safetensors", g.p, g.n);
	s.row_first = 0;
	s.tensor = wpe_name;
	assert_int_equal(pe_file_load(&s, &m, &err), PE_OK);
	assert_matrix(m, 2, 3, values6);
	pe_matrix_destroy(m);
	struct pe_file_info *info;
	assert_int_equal(pe_file_inspect(s.path, &info, &err), PE_OK);
	assert_int_equal(info->count, 3);
	pe_file_info_destroy(info);
	free(g.p);

	s.path = missing_path;
	EXPECT_FAIL(pe_file_load(&s, &m, &err), PE_EIO, "No such file or directory");
	s.path = tmpdir;
	EXPECT_FAIL(pe_file_load(&s, &m, &err), PE_EIO, "Is a directory");
	s.tensor = NULL;
	s.path = write_tmp("empty.csv", "", 0);
	EXPECT_FAIL(pe_file_load(&s, &m, &err), PE_EFORMAT, "no data rows");
	s.type = pe_scheme_type_find("sinusoidal");
	EXPECT_FAIL(pe_file_load(&s, &m, &err), PE_EINVAL, "not a file scheme");
}

/* ---- helpers and robustness ---- */

static void helpers(void **state)
{
	(void)state;
	assert_int_equal(rd_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(rd_edit_distance("", "abc"), 3);
	assert_int_equal(rd_edit_distance("wpe.weight", "wpe.weight"), 0);
	char text[32];
	uint64_t shape[3] = {2, 3, 4};
	rd_shape_str(text, sizeof(text), shape, 3);
	assert_string_equal(text, "(2, 3, 4)");
	rd_shape_str(text, sizeof(text), shape, 1);
	assert_string_equal(text, "(2,)");
	rd_shape_str(text, sizeof(text), shape, 0);
	assert_string_equal(text, "()");
	uint64_t huge[4] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
	rd_shape_str(text, sizeof(text), huge, 4);
	assert_int_equal(strlen(text), sizeof(text) - 1);
	assert_string_equal(text + strlen(text) - 4, "...)");
	struct pe_matrix m = {2, 2, (double[]){1, 2, 3, NAN}};
	size_t r, c;
	assert_true(pe_matrix_find_nonfinite(&m, &r, &c));
	assert_int_equal(r, 1);
	assert_int_equal(c, 1);
	m.data[3] = 4;
	assert_false(pe_matrix_find_nonfinite(&m, &r, &c));
	assert_string_equal(pe_file_format_name(PE_FORMAT_SAFETENSORS), "safetensors");
	assert_int_equal(pe_file_format_detect("a,b", 3, NULL), PE_FORMAT_CSV);
	assert_int_equal(pe_file_format_detect("a,b", 3, "X.NPY"), PE_FORMAT_NPY);
	assert_int_equal(pe_file_format_detect("", 0, NULL), PE_FORMAT_UNKNOWN);
}

/* Deterministic mutations of valid files: every reader must fail cleanly or succeed. */
static void mutations_never_crash(void **state)
{
	(void)state;
	struct bytes d = f64_data(values6, 6, 0);
	struct bytes files[3];
	files[0] = npy(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (3, 2), }", &d);
	files[1] = gpt2_file();
	const char *csv = "position,0,1\n0,1.5,2\n1,3,4\n";
	files[2] = (struct bytes){0};
	put_str(&files[2], csv);
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (int round = 0; round < 20000; round++) {
		struct bytes *f = &files[round % 3];
		unsigned char *copy = malloc(f->n);
		memcpy(copy, f->p, f->n);
		for (int k = 0; k < 1 + round % 4; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			copy[x % f->n] = (unsigned char)(x >> 32);
		}
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t n = (round & 8) ? f->n - x % f->n : f->n;
		struct pe_matrix *m;
		struct pe_file_info *info;
		char *err;
		struct pe_read_request req = {round % 3 == 1 ? "wpe.weight" : NULL, 0, 0, 0, 0};
		if (pe_read_buffer(copy, n, NULL, &req, &m, &err) == PE_OK)
			pe_matrix_destroy(m);
		else
			free(err);
		if (pe_file_inspect_buffer(copy, n, NULL, &info, &err) == PE_OK)
			pe_file_info_destroy(info);
		else
			free(err);
		free(copy);
	}
	for (int i = 0; i < 3; i++)
		free(files[i].p);
	free(d.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(npy_f8_versions),
	        cmocka_unit_test(npy_dtypes_and_endianness),
	        cmocka_unit_test(npy_fortran_order_transposes),
	        cmocka_unit_test(npy_header_forms),
	        cmocka_unit_test(npy_malformed_headers),
	        cmocka_unit_test(npy_bad_preamble),
	        cmocka_unit_test(safetensors_gpt2_names),
	        cmocka_unit_test(safetensors_half_types),
	        cmocka_unit_test(safetensors_json_details),
	        cmocka_unit_test(safetensors_malformed),
	        cmocka_unit_test(safetensors_bad_lengths),
	        cmocka_unit_test(csv_layouts),
	        cmocka_unit_test(csv_malformed),
	        cmocka_unit_test(file_scheme_loads),
	        cmocka_unit_test(helpers),
	        cmocka_unit_test(mutations_never_crash),
	};
	return cmocka_run_group_tests_name("read", tests, make_tmpdir, remove_tmpdir);
}
