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

#include <posenc/encode.h>
#include <posenc/freqs.h>
#include <posenc/rope.h>
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

/*
 * Which axis drives each pair, restated from transformers (modeling_qwen2_vl.py
 * apply_multimodal_rotary_pos_emb; modeling_qwen3_vl.py apply_interleaved_mrope,
 * 00709b86): axis[] gets one entry per column of the d-wide cos table.
 */
static void hf_axes(const unsigned sec[3], int interleaved, size_t d, int *axis)
{
	if (interleaved) {
		/* freqs_t = freqs[0]; freqs_t[..., offset:3*sec[dim]:3] = freqs[dim, ...]
		 * over the d/2 pairs, then cat(freqs, freqs) */
		for (size_t i = 0; i < d / 2; i++)
			axis[i] = 0;
		for (int dim = 1; dim <= 2; dim++)
			for (size_t i = (size_t)dim; i < 3 * (size_t)sec[dim] && i < d / 2; i += 3)
				axis[i] = dim;
		for (size_t i = 0; i < d / 2; i++)
			axis[i + d / 2] = axis[i];
		return;
	}
	/* cos.split(mrope_section * 2): chunk j of the six takes axis j % 3 */
	size_t c = 0;
	for (int j = 0; j < 6; j++)
		for (unsigned k = 0; k < sec[j % 3]; k++)
			axis[c++] = j % 3;
	assert_int_equal(c, d);
}

static void mrope_frequencies_and_axes(void **state)
{
	(void)state;
	static const struct {
		const char *spec;
		double base;
		unsigned sec[3];
		int interleaved;
		size_t d;
		size_t count[3]; /* pairs per axis, counted by hand */
	} cases[] = {
	        {"mrope", 1e4, {16, 24, 24}, 0, 128, {16, 24, 24}},
	        {"mrope:base=1000000", 1e6, {16, 24, 24}, 0, 128, {16, 24, 24}},
	        /* Qwen3-VL: t = 0, 3, ..., 57 and 60..63; h = 1, 4, ..., 58; w = 2, ..., 59 */
	        {"mrope:base=5000000,t=24,h=20,w=20,interleaved=1",
	         5e6,
	         {24, 20, 20},
	         1,
	         128,
	         {24, 20, 20}},
	        /* sections interleaved below 3h = 3w = 72 > 64: h and w get every third pair
	         * from 1 and 2 on, 21 each, t the other 22 */
	        {"mrope:t=16,h=24,w=24,interleaved=1", 1e4, {16, 24, 24}, 1, 128, {22, 21, 21}},
	        /* Qwen 3.5's rotary 64: h = 1, ..., 31 (11), w = 2, ..., 29 (10) */
	        {"mrope:base=10000000,t=11,h=11,w=10,interleaved=1",
	         1e7,
	         {11, 11, 10},
	         1,
	         64,
	         {11, 11, 10}},
	        {"mrope:t=2,h=0,w=1", 1e4, {2, 0, 1}, 0, 6, {2, 0, 1}},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		size_t d = cases[k].d, h = d / 2;
		struct pe_freq_table *t = table(cases[k].spec, d, 0, 0);
		assert_int_equal(t->values->rows, h);
		assert_int_equal(t->values->cols, 2);
		assert_int_equal(t->n_variants, 0);
		assert_int_equal(t->d_pairs, d);
		assert_int_equal(t->has_critical_dim, 0);
		assert_non_null(t->axes);
		int axis[128];
		hf_axes(cases[k].sec, cases[k].interleaved, d, axis);
		size_t count[3] = {0, 0, 0};
		for (size_t i = 0; i < h; i++) {
			/* theta_i = base^(-2i/d), whichever axis turns it */
			assert_rel(at(t, i, 0), pow(cases[k].base, -2.0 * (double)i / (double)d),
			           1e-15);
			assert_rel(at(t, i, 1), 2 * PI / at(t, i, 0), 1e-15);
			assert_int_equal(axis[i + h], axis[i]);
			if (t->axes[i] != axis[i])
				fail_msg("%s: pair %zu follows axis %d, transformers' %d",
				         cases[k].spec, i, t->axes[i], axis[i]);
			count[t->axes[i]]++;
		}
		for (int a = 0; a < 3; a++)
			assert_int_equal(count[a], cases[k].count[a]);
		pe_freq_table_destroy(t);
	}
	/* Qwen2-VL's numbers: base 1e6, d 128: pair 32 at 1e6^(-1/2), wavelength 2 pi 1000 */
	struct pe_freq_table *t = table("mrope:base=1000000", 128, 0, 32768);
	assert_rel(at(t, 32, 0), 1e-3, 1e-15);
	assert_rel(at(t, 32, 1), 2000 * PI, 1e-15);
	/* 2 ceil(64 log_1e6(32768 / 2 pi)) = 2 ceil(39.65) = 80, as rope's at that base */
	assert_int_equal(t->has_critical_dim, 1);
	assert_int_equal(t->critical_dim, 80);
	pe_freq_table_destroy(t);
}

static void mrope_pair_axis(void **state)
{
	(void)state;
	struct pe_scheme *s = NULL;
	assert_int_equal(pe_scheme_parse("mrope:t=24,h=20,w=20,interleaved=1", &s, NULL), PE_OK);
	const int first[] = {0, 1, 2, 0, 1, 2};
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(pe_mrope_pair_axis(s, i), first[i]);
	assert_int_equal(pe_mrope_pair_axis(s, 58), 1);
	assert_int_equal(pe_mrope_pair_axis(s, 59), 2);
	for (size_t i = 60; i < 64; i++)
		assert_int_equal(pe_mrope_pair_axis(s, i), 0);
	assert_int_equal(pe_mrope_pair_axis(s, 64), -1);
	/* the frequencies need the width the sections fill */
	double theta[130];
	size_t count = 1;
	assert_int_equal(pe_scheme_frequencies(s, 130, theta, &count), PE_ERANGE);
	assert_int_equal(count, 0);
	pe_scheme_destroy(s);
	assert_int_equal(pe_scheme_parse("rope", &s, NULL), PE_OK);
	assert_int_equal(pe_mrope_pair_axis(s, 0), -1);
	pe_scheme_destroy(s);
	assert_int_equal(pe_mrope_pair_axis(NULL, 0), -1);
	struct pe_freq_table *t = table("rope", 8, 0, 0);
	assert_null(t->axes);
	pe_freq_table_destroy(t);
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
	        cmocka_unit_test(mrope_frequencies_and_axes),
	        cmocka_unit_test(mrope_pair_axis),
	};
	return cmocka_run_group_tests_name("freqs", tests, NULL, NULL);
}
