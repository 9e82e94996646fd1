/*
 * Frequency tables against doc/conventions.md ([1c], [3b]-[3e], [7a],
 * [7b]) and closed forms, through real spec strings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/freqs.h>
#include <posenc/scheme.h>

#include "near.h"

#define PI 3.14159265358979323846

static struct pe_freq_table *table(const char *spec, size_t d, double length, double train)
{
	struct pe_scheme *s = NULL;
	char *err = NULL;
	if (pe_scheme_parse(spec, &s, &err) != PE_OK) {
		print_error("%s: %s\n", spec, err ? err : "?");
		free(err);
		fail();
	}
	struct pe_freqs_options o = {length, train};
	struct pe_freq_table *t = NULL;
	assert_int_equal(pe_freq_table_create(s, d, &o, &t), PE_OK);
	pe_scheme_destroy(s);
	return t;
}

static double at(const struct pe_freq_table *t, size_t pair, size_t col)
{
	return t->values->data[pair * t->values->cols + col];
}

static void rope_default_set(void **state)
{
	(void)state;
	struct pe_freq_table *t = table("rope", 128, 0, 0);
	const char *cols[] = {"theta",         "wavelength",    "linear_theta", "linear_ratio",
	                      "dynamic_theta", "dynamic_ratio", "yarn_theta",   "yarn_ratio",
	                      "llama3_theta",  "llama3_ratio"};
	assert_int_equal(t->values->rows, 64);
	assert_int_equal(t->values->cols, 10);
	assert_int_equal(t->n_variants, 4);
	for (size_t j = 0; j < 10; j++)
		assert_string_equal(t->columns[j], cols[j]);
	/* [7a] */
	assert_near(at(t, 0, 1), 6.2832, 5e-5);
	assert_near(at(t, 1, 1), 7.2557, 5e-5);
	assert_near(at(t, 32, 1), 628.32, 5e-3);
	assert_near(at(t, 63, 1), 54410.1, 5e-2);
	assert_rel(at(t, 32, 0), 0.01, 1e-15);
	for (size_t i = 0; i < 64; i++) {
		assert_rel(at(t, i, 0), pow(1e4, -(double)i / 64), 1e-15);
		assert_rel(at(t, i, 1) * at(t, i, 0), 2 * PI, 1e-15);
		assert_rel(at(t, i, 3), 0.25, 1e-15);
		assert_rel(at(t, i, 2), at(t, i, 0) / 4, 1e-15);
		/* dynamic, factor 4 at 16384 = 4 x 4096: base' = 1e4 (16 - 3)^(64/63) */
		assert_rel(at(t, i, 4), pow(1e4 * pow(13.0, 64.0 / 63.0), -(double)i / 64), 1e-12);
		/* [3c] closed form of the yarn ramp */
		double r = i <= 20 ? 0.0 : i >= 46 ? 1.0 : (i - 20.0) / 26.0;
		assert_rel(at(t, i, 7), 1.0 - 0.75 * r, 1e-12);
		/* llama3 at base 1e4: wavelength below 2048 kept, above 8192 divided by 8 */
		double wl = at(t, i, 1), ratio = at(t, i, 9), smooth = (8192 / wl - 1) / 3;
		if (wl < 2048)
			assert_true(ratio == 1.0);
		else if (wl > 8192)
			assert_rel(ratio, 0.125, 1e-15);
		else
			assert_rel(ratio, (1 - smooth) / 8 + smooth, 1e-12);
	}
	assert_near(at(t, 33, 7), 0.625, 1e-15);
	assert_near(at(t, 21, 7), 0.971154, 5e-7);
	assert_near(at(t, 45, 7), 0.278846, 5e-7);
	assert_near(t->variants[1].info.base, 1e4 * pow(13.0, 64.0 / 63.0), 1e-6);
	assert_true(t->variants[1].length == 16384);
	assert_true(t->variants[2].info.yarn_low == 20 && t->variants[2].info.yarn_high == 46);
	assert_near(t->variants[2].info.attention_factor, 1.1386294, 5e-8);
	assert_true(t->variants[0].info.attention_factor == 1.0);
	assert_true(t->variants[3].info.attention_factor == 1.0);
	/* a plain rope table states no training length: no critical dimension is invented */
	assert_false(t->has_critical_dim);
	unsigned yarn_high = (unsigned)t->variants[2].info.yarn_high;
	pe_freq_table_destroy(t);
	t = table("rope", 128, 0, 4096);
	assert_true(t->has_critical_dim);
	assert_true(t->train_length == 4096);
	assert_int_equal(t->critical_dim, 92); /* [7b] */
	/* YaRN's high for LLaMA-2 is d_extra / 2 */
	assert_true(yarn_high * 2 == t->critical_dim);
	pe_freq_table_destroy(t);
}

/* The regime of a pair from its ratio: kept, ramped, interpolated (YaRN x4, LLaMA-2). */
static void regimes(void **state)
{
	(void)state;
	struct pe_freq_table *t = table("rope:scaling=yarn", 128, 0, 0);
	const struct pe_freq_variant *v = &t->variants[0];
	/* YaRN x4 over 4096 at base 1e4: pairs 0..20 keep theta, 46.. are divided by 4 [3c] */
	for (size_t i = 0; i < 64; i++) {
		enum pe_pair_regime g = pe_pair_regime(v, at(t, i, 3));
		assert_int_equal(g, i <= 20   ? PE_REGIME_KEPT
		                    : i >= 46 ? PE_REGIME_INTERPOLATED
		                              : PE_REGIME_RAMPED);
	}
	assert_string_equal(pe_pair_regime_name(PE_REGIME_INTERPOLATED), "interpolated");
	struct pe_freq_variant lr = *v;
	lr.type = PE_ROPE_SCALING_LONGROPE;
	assert_int_equal(pe_pair_regime(&lr, 0.5), PE_REGIME_RESCALED);
	assert_int_equal(pe_pair_regime(&lr, 1.0), PE_REGIME_KEPT);
	assert_int_equal(pe_pair_regime(v, 0.0), PE_REGIME_STATIC);
	pe_freq_table_destroy(t);
}

static void llama3_for_llama_3_1(void **state)
{
	(void)state;
	struct pe_freq_table *t = table("rope:base=500000,scaling=llama3", 128, 0, 0);
	assert_int_equal(t->n_variants, 1);
	assert_int_equal(t->values->cols, 4);
	assert_string_equal(t->columns[2], "llama3_theta");
	assert_string_equal(t->columns[3], "llama3_ratio");
	const double smooth[] = {0.828168, 0.643743, 0.493507, 0.371122, 0.271425, 0.190211};
	for (size_t i = 0; i < 64; i++) {
		double ratio = at(t, i, 3);
		if (i <= 28)
			assert_true(ratio == 1.0);
		else if (i <= 34)
			assert_near(ratio, smooth[i - 29], 5e-7);
		else
			assert_rel(ratio, 0.125, 1e-15);
	}
	assert_near(at(t, 0, 2), 1.0, 0);
	assert_near(at(t, 20, 2), 0.01656044, 5e-9);
	assert_near(at(t, 63, 2), 3.068926e-07, 5e-14);
	assert_near(at(t, 1, 1), 7.7131, 5e-5); /* [7a] base 5e5 */
	assert_near(at(t, 63, 1), 2559195.5, 5e-2);
	/* the training length defaults to the original context: LLaMA-3, 8192 -> 70 */
	assert_true(t->train_length == 8192);
	assert_int_equal(t->critical_dim, 70);
	pe_freq_table_destroy(t);
}

static void dynamic_at_a_length(void **state)
{
	(void)state;
	struct pe_freq_table *t = table("rope:scaling=dynamic,factor=2", 128, 8192, 0);
	assert_near(t->variants[0].info.base, 30527.7367, 5e-5); /* [3b] */
	assert_true(t->variants[0].length == 8192);
	pe_freq_table_destroy(t);
	t = table("rope:scaling=dynamic,factor=2,length=16384", 128, 0, 0);
	assert_near(t->variants[0].info.base, 72195.8601, 5e-5);
	pe_freq_table_destroy(t);
	t = table("rope:scaling=dynamic,factor=2", 128, 4000, 0);
	assert_true(t->variants[0].info.base == 1e4);
	for (size_t i = 0; i < 64; i++)
		assert_true(at(t, i, 3) == 1.0);
	pe_freq_table_destroy(t);
}

static void yarn_qwen_and_training_length(void **state)
{
	(void)state;
	struct pe_freq_table *t = table("rope:base=1000000,scaling=yarn,original=32768", 128, 0, 0);
	assert_true(t->variants[0].info.yarn_low == 23 && t->variants[0].info.yarn_high == 40);
	assert_int_equal(t->critical_dim, 80); /* base 1e6, T 32768 */
	assert_near(at(t, 1, 1), 7.7970, 5e-5);
	assert_near(at(t, 32, 1), 6283.19, 5e-3);
	assert_near(at(t, 63, 1), 5063255.8, 5e-2);
	pe_freq_table_destroy(t);
	t = table("rope:base=1000000", 128, 0, 32768);
	assert_int_equal(t->critical_dim, 80);
	pe_freq_table_destroy(t);
}

static void longrope_attention_factor(void **state)
{
	(void)state;
	const char *spec = "rope:scaling=longrope,factor=32,original=4096,"
	                   "long-factor=1/2/4/8,short-factor=1/1/2/2";
	struct pe_freq_table *t = table(spec, 8, 0, 0);
	assert_near(t->variants[0].info.attention_factor, 1.1902381, 5e-8); /* [3e] */
	assert_rel(at(t, 3, 3), 0.5, 1e-15);                                /* short */
	pe_freq_table_destroy(t);
	t = table(spec, 8, 131072, 0);
	assert_rel(at(t, 3, 3), 0.125, 1e-15); /* long */
	assert_rel(at(t, 1, 3), 0.5, 1e-15);
	pe_freq_table_destroy(t);
}

static void sinusoidal_tables(void **state)
{
	(void)state;
	struct pe_freq_table *t = table("sinusoidal:freq=t2t", 8, 0, 0);
	assert_int_equal(t->values->rows, 4);
	assert_int_equal(t->values->cols, 2);
	assert_int_equal(t->n_variants, 0);
	const double w[] = {1, 0.046416, 0.0021544, 0.0001}; /* [1c] */
	assert_near(at(t, 0, 0), w[0], 1e-15);
	assert_near(at(t, 1, 0), w[1], 5e-7);
	assert_near(at(t, 2, 0), w[2], 5e-8);
	assert_rel(at(t, 3, 0), w[3], 1e-13);
	assert_rel(at(t, 3, 1), 2 * PI * 1e4, 1e-13);
	assert_false(t->has_critical_dim);
	pe_freq_table_destroy(t);
	t = table("sinusoidal", 128, 0, 0);
	assert_false(t->has_critical_dim); /* no training length given: none invented */
	pe_freq_table_destroy(t);
	t = table("sinusoidal", 128, 0, 4096);
	assert_true(t->has_critical_dim);
	assert_int_equal(t->critical_dim, 92);
	assert_near(at(t, 32, 1), 628.32, 5e-3);
	pe_freq_table_destroy(t);
	/* odd paper width: ceil(d/2) frequencies, the last one a lone sine */
	t = table("sinusoidal", 5, 0, 0);
	assert_int_equal(t->values->rows, 3);
	assert_rel(at(t, 2, 0), pow(1e4, -4.0 / 5.0), 1e-15);
	assert_false(t->has_critical_dim);
	pe_freq_table_destroy(t);
}

/* [2d]: GPT-NeoX head 64, rotary_pct 0.25: 16 rotated features are the exponent's denominator */
static void partial_rotary_uses_rotary_width(void **state)
{
	(void)state;
	struct pe_freq_table *t = table("rope:rotary=0.25", 64, 0, 4096);
	assert_int_equal(t->values->rows, 8);
	assert_int_equal(t->d_pairs, 16);
	assert_near(at(t, 0, 0), 1.0, 0);
	assert_near(at(t, 1, 0), 0.316228, 5e-7);
	assert_near(at(t, 2, 0), 0.1, 1e-16);
	/* critical dimension of the rotated width: 2 ceil(8 log_1e4(4096 / 2 pi)) = 2 * 6 */
	assert_int_equal(t->critical_dim, 12);
	pe_freq_table_destroy(t);
}

static void refused(void **state)
{
	(void)state;
	const char *specs[] = {"learned", "binary", "alibi", "t5"};
	for (int k = 0; k < 4; k++) {
		struct pe_scheme *s = NULL;
		assert_int_equal(pe_scheme_parse(specs[k], &s, NULL), PE_OK);
		struct pe_freq_table *t = (struct pe_freq_table *)1;
		assert_int_equal(pe_freq_table_create(s, 16, NULL, &t), PE_EUNSUPPORTED);
		assert_null(t);
		pe_scheme_destroy(s);
	}
	struct pe_scheme *s = NULL;
	assert_int_equal(pe_scheme_parse("rope", &s, NULL), PE_OK);
	struct pe_freq_table *t = NULL;
	assert_int_equal(pe_freq_table_create(s, 7, NULL, &t), PE_ERANGE);
	assert_null(t);
	pe_scheme_destroy(s);
	pe_freq_table_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(rope_default_set),
	        cmocka_unit_test(regimes),
	        cmocka_unit_test(llama3_for_llama_3_1),
	        cmocka_unit_test(dynamic_at_a_length),
	        cmocka_unit_test(yarn_qwen_and_training_length),
	        cmocka_unit_test(longrope_attention_factor),
	        cmocka_unit_test(sinusoidal_tables),
	        cmocka_unit_test(partial_rotary_uses_rotary_width),
	        cmocka_unit_test(refused),
	};
	return cmocka_run_group_tests_name("freqs", tests, NULL, NULL);
}
