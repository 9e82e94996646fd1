/*
 * The pair norms of posenc/usage.h on hand-worked rows, and the tensor store
 * of posenc/tensors.h on files written here byte by byte (safetensors: an
 * 8-byte little-endian header length, the JSON header, the data), with
 * values whose float64 conversion is known exactly (bfloat16 0x3f80 = 1,
 * 0xc040 = -3; half 0x3c00 = 1, 0xc500 = -5).
 */
#define _DEFAULT_SOURCE
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

#include <posenc/tensors.h>
#include <posenc/usage.h>

static char dir[] = "/tmp/posenc-usage-XXXXXX";

static void write_file(const char *name, const void *data, size_t len)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* A safetensors file of @header (padded with spaces to a multiple of 8) and @data. */
static void write_st(const char *name, const char *header, const void *data, size_t len)
{
	size_t hl = strlen(header), padded = (hl + 7) / 8 * 8;
	unsigned char *buf = calloc(1, 8 + padded + len);
	assert_non_null(buf);
	for (int i = 0; i < 8; i++)
		buf[i] = (unsigned char)((uint64_t)padded >> (8 * i));
	memcpy(buf + 8, header, hl);
	memset(buf + 8 + hl, ' ', padded - hl);
	memcpy(buf + 8 + padded, data, len);
	write_file(name, buf, 8 + padded + len);
	free(buf);
}

static void pair_norms_by_hand(void **state)
{
	(void)state;
	const double sq[4] = {1, 4, 9, 16};
	double out[2];
	/* half: pairs (0, 2) and (1, 3) */
	pe_usage_pair_norms(sq, NULL, 4, 0, out);
	assert_true(out[0] == sqrt(10.0) && out[1] == sqrt(20.0));
	/* interleaved: pairs (0, 1) and (2, 3) */
	pe_usage_pair_norms(sq, NULL, 4, 1, out);
	assert_true(out[0] == sqrt(5.0) && out[1] == 5.0);
	/* a norm weight of 2 on coordinate 0 scales its row by 2: 4 * 1 + 9 */
	const double scale[4] = {2, 1, 1, 1};
	pe_usage_pair_norms(sq, scale, 4, 0, out);
	assert_true(out[0] == sqrt(13.0) && out[1] == sqrt(20.0));
	/* a partial rotary width: only the first 2 of 4 coordinates pair */
	pe_usage_pair_norms(sq, NULL, 2, 0, out);
	assert_true(out[0] == sqrt(5.0));
}

static void store_reads_slices_by_name(void **state)
{
	(void)state;
	/* "b": BF16 (2, 2) = [[1, -3], [0.5, 2]]; "a": F16 (3,) = [1, -5, 0] */
	const unsigned char data[] = {0x80, 0x3f, 0x40, 0xc0, 0x00, 0x3f, 0x00,
	                              0x40, 0x00, 0x3c, 0x00, 0xc5, 0x00, 0x00};
	write_st("m.safetensors",
	         "{\"b\":{\"dtype\":\"BF16\",\"shape\":[2,2],\"data_offsets\":[0,8]},"
	         "\"a\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[8,14]}}",
	         data, sizeof(data));
	char path[256];
	snprintf(path, sizeof(path), "%s/m.safetensors", dir);
	struct pe_tensor_store *s = NULL;
	char *err = NULL;
	assert_int_equal(pe_tensor_store_open(path, 0, &s, &err), PE_OK);
	assert_int_equal(pe_tensor_store_count(s), 2);
	assert_int_equal(pe_tensor_store_files(s), 1);
	const struct pe_tensor_info *b = pe_tensor_store_find(s, "b");
	const struct pe_tensor_info *a = pe_tensor_store_find(s, "a");
	assert_non_null(a);
	assert_non_null(b);
	assert_null(pe_tensor_store_find(s, "c"));
	double v[4];
	assert_int_equal(pe_tensor_store_read(s, b, 1, 3, v, &err), PE_OK);
	assert_true(v[0] == -3.0 && v[1] == 0.5 && v[2] == 2.0);
	assert_int_equal(pe_tensor_store_read(s, a, 0, 3, v, &err), PE_OK);
	assert_true(v[0] == 1.0 && v[1] == -5.0 && v[2] == 0.0);
	assert_int_equal(pe_tensor_store_bytes_read(s), 12);
	/* past the end: refused, nothing read outside the tensor */
	assert_int_equal(pe_tensor_store_read(s, a, 2, 2, v, &err), PE_ERANGE);
	assert_non_null(err);
	free(err);
	pe_tensor_store_destroy(s);
}

static void store_reads_a_sharded_index(void **state)
{
	(void)state;
	const float one[2] = {1.5f, -2.0f}, two[1] = {4.0f};
	write_st("s1.safetensors",
	         "{\"x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", one,
	         sizeof(one));
	write_st("s2.safetensors",
	         "{\"y\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", two,
	         sizeof(two));
	const char *index = "{\"metadata\":{},\"weight_map\":{\"x\":\"s1.safetensors\","
	                    "\"y\":\"s2.safetensors\"}}";
	write_file("i.json", index, strlen(index));
	char path[256];
	snprintf(path, sizeof(path), "%s/i.json", dir);
	struct pe_tensor_store *s = NULL;
	char *err = NULL;
	assert_int_equal(pe_tensor_store_open(path, 0, &s, &err), PE_OK);
	assert_int_equal(pe_tensor_store_files(s), 2);
	double v[2];
	assert_int_equal(pe_tensor_store_read(s, pe_tensor_store_find(s, "y"), 0, 1, v, &err),
	                 PE_OK);
	assert_true(v[0] == 4.0);
	assert_int_equal(pe_tensor_store_read(s, pe_tensor_store_find(s, "x"), 0, 2, v, &err),
	                 PE_OK);
	assert_true(v[0] == 1.5 && v[1] == -2.0);
	pe_tensor_store_destroy(s);

	/* a tensor the index names but its shard lacks */
	const char *bad = "{\"weight_map\":{\"x\":\"s2.safetensors\"}}";
	write_file("bad.json", bad, strlen(bad));
	snprintf(path, sizeof(path), "%s/bad.json", dir);
	assert_int_equal(pe_tensor_store_open(path, 0, &s, &err), PE_EFORMAT);
	assert_null(s);
	assert_non_null(strstr(err, "'x'"));
	free(err);
	/* a missing shard names the shard */
	const char *gone = "{\"weight_map\":{\"x\":\"nothing.safetensors\"}}";
	write_file("gone.json", gone, strlen(gone));
	snprintf(path, sizeof(path), "%s/gone.json", dir);
	assert_int_equal(pe_tensor_store_open(path, 0, &s, &err), PE_EIO);
	assert_non_null(strstr(err, "nothing.safetensors"));
	free(err);
	/* a header larger than the budget allows */
	snprintf(path, sizeof(path), "%s/s1.safetensors", dir);
	assert_int_equal(pe_tensor_store_open(path, 16, &s, &err), PE_ETOOBIG);
	free(err);
}

int main(void)
{
	assert_non_null(mkdtemp(dir));
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(pair_norms_by_hand),
	        cmocka_unit_test(store_reads_slices_by_name),
	        cmocka_unit_test(store_reads_a_sharded_index),
	};
	int rc = cmocka_run_group_tests_name("usage", tests, NULL, NULL);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		rc = rc ? rc : 1;
	return rc;
}
