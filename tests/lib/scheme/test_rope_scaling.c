/*
 * RoPE scalings against doc/conventions.md §2, §3 and §7 ([2d], [3b]-[3e],
 * [7a], [7b]) and the closed forms those numbers come from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/rope.h>

#include "near.h"

#define PI 3.14159265358979323846

/* The parser's defaults (posenc/scheme.h) for a given type. */
static struct pe_rope_scaling_params params(enum pe_rope_scaling type, double factor,
                                            double original)
{
	struct pe_rope_scaling_params p;
	memset(&p, 0, sizeof(p));
	p.type = type;
	p.factor = factor;
	p.original = original;
	p.low_freq_factor = 1.0;
	p.high_freq_factor = 4.0;
	p.beta_fast = 32.0;
	p.beta_slow = 1.0;
	p.attention_factor = NAN;
	p.truncate = 1;
	return p;
}

static void scaled(const struct pe_rope_scaling_params *p, double base, size_t d, double *theta,
                   struct pe_rope_scaling_info *info)
{
	assert_int_equal(pe_rope_base_frequencies(base, d, theta), PE_OK);
	assert_int_equal(pe_rope_scale_frequencies(p, base, d, theta, info), PE_OK);
}

static void theta_is_base_power_and_uses_rotary_width(void **state)
{
	(void)state;
	double t[64];
	/* [2d]: head 64, pct 0.25 -> rotary width 16 is the exponent's denominator */
	assert_int_equal(pe_rope_base_frequencies(10000.0, 16, t), PE_OK);
	assert_near(t[0], 1.0, 0);
	assert_near(t[1], 0.316228, 5e-7);
	assert_near(t[2], 0.1, 1e-16);
	/* [2a]: d 4 gives [1, 0.01] */
	assert_int_equal(pe_rope_base_frequencies(10000.0, 4, t), PE_OK);
	assert_near(t[1], 0.01, 1e-17);
	assert_int_equal(pe_rope_base_frequencies(10000.0, 5, t), PE_ERANGE);
	assert_int_equal(pe_rope_base_frequencies(10000.0, 0, t), PE_ERANGE);
	assert_int_equal(pe_rope_base_frequencies(-1.0, 4, t), PE_ERANGE);
}

static void wavelengths_match_7a(void **state)
{
	(void)state;
	double t[64];
	assert_int_equal(pe_rope_base_frequencies(1e4, 128, t), PE_OK);
	assert_near(2 * PI / t[0], 6.2832, 5e-5);
	assert_near(2 * PI / t[1], 7.2557, 5e-5);
	assert_near(2 * PI / t[32], 628.32, 5e-3);
	assert_near(2 * PI / t[63], 54410.1, 5e-2);
	assert_int_equal(pe_rope_base_frequencies(5e5, 128, t), PE_OK);
	assert_near(2 * PI / t[1], 7.7131, 5e-5);
	assert_near(2 * PI / t[32], 4442.88, 5e-3);
	assert_near(2 * PI / t[63], 2559195.5, 5e-2);
	assert_int_equal(pe_rope_base_frequencies(1e6, 128, t), PE_OK);
	assert_near(2 * PI / t[1], 7.7970, 5e-5);
	assert_near(2 * PI / t[32], 6283.19, 5e-3);
	assert_near(2 * PI / t[63], 5063255.8, 5e-2);
	/* closed form: lambda_i = 2 pi base^(2i/d); pair 32 of 128 is 2 pi sqrt(base) */
	assert_rel(2 * PI / t[32], 2 * PI * 1000.0, 1e-12);
}

static void critical_dimension_matches_7b(void **state)
{
	(void)state;
	size_t c = 0;
	assert_int_equal(pe_rope_critical_dim(1e4, 128, 4096, &c), PE_OK);
	assert_int_equal(c, 92); /* LLaMA-2 */
	assert_int_equal(pe_rope_critical_dim(5e5, 128, 8192, &c), PE_OK);
	assert_int_equal(c, 70); /* LLaMA-3 */
	assert_int_equal(pe_rope_critical_dim(1e6, 128, 32768, &c), PE_OK);
	assert_int_equal(c, 80);
	/* 2 pi 1e6^(92/128) ~ 129,027: the extrapolation bound of §7 */
	assert_near(2 * PI * pow(1e6, 92.0 / 128.0), 129027, 0.5);
	/* a training length shorter than one turn of pair 0 sees nothing; a huge one everything */
	assert_int_equal(pe_rope_critical_dim(1e4, 128, 3.0, &c), PE_OK);
	assert_int_equal(c, 0);
	assert_int_equal(pe_rope_critical_dim(1e4, 128, 1e30, &c), PE_OK);
	assert_int_equal(c, 128);
	assert_int_equal(pe_rope_critical_dim(1.0, 128, 4096, &c), PE_ERANGE);
	assert_int_equal(pe_rope_critical_dim(1e4, 127, 4096, &c), PE_ERANGE);
	assert_int_equal(pe_rope_critical_dim(1e4, 128, 0, &c), PE_ERANGE);
}

static void none_and_linear(void **state)
{
	(void)state;
	double t[64], u[64];
	struct pe_rope_scaling_info info;
	struct pe_rope_scaling_params p = params(PE_ROPE_SCALING_NONE, 0, 0);
	scaled(&p, 1e4, 128, t, &info);
	assert_int_equal(pe_rope_base_frequencies(1e4, 128, u), PE_OK);
	for (int i = 0; i < 64; i++)
		assert_true(t[i] == u[i]);
	assert_true(info.attention_factor == 1.0 && info.base == 1e4);
	assert_true(isnan(info.yarn_low) && isnan(info.yarn_high));

	p = params(PE_ROPE_SCALING_LINEAR, 4, 4096);
	scaled(&p, 1e4, 128, t, &info);
	for (int i = 0; i < 64; i++)
		assert_rel(t[i] / u[i], 0.25, 1e-15);
	assert_true(info.attention_factor == 1.0);
	/* llama.cpp's attn_factor: the magnitude alone, the frequencies as without it */
	p.attention_factor = 1.5;
	scaled(&p, 1e4, 128, t, &info);
	for (int i = 0; i < 64; i++)
		assert_rel(t[i] / u[i], 0.25, 1e-15);
	assert_true(info.attention_factor == 1.5);
	p = params(PE_ROPE_SCALING_NONE, 0, 0);
	p.attention_factor = 0.75;
	scaled(&p, 1e4, 128, t, &info);
	for (int i = 0; i < 64; i++)
		assert_true(t[i] == u[i]);
	assert_true(info.attention_factor == 0.75);
	/* a zeroed block (no key given) is unscaled in magnitude too */
	p.attention_factor = 0;
	scaled(&p, 1e4, 128, t, &info);
	assert_true(info.attention_factor == 1.0);
	p = params(PE_ROPE_SCALING_LINEAR, 4, 4096);
	p.factor = 0;
	assert_int_equal(pe_rope_scale_frequencies(&p, 1e4, 128, t, NULL), PE_ERANGE);
	p.factor = NAN;
	assert_int_equal(pe_rope_scale_frequencies(&p, 1e4, 128, t, NULL), PE_ERANGE);
}

static void dynamic_matches_3b(void **state)
{
	(void)state;
	double t[64], u[64];
	struct pe_rope_scaling_info info;
	struct pe_rope_scaling_params p = params(PE_ROPE_SCALING_DYNAMIC, 2, 4096);
	assert_int_equal(pe_rope_base_frequencies(1e4, 128, u), PE_OK);
	const double lengths[] = {0, 100, 4096};
	for (int k = 0; k < 3; k++) {
		p.length = lengths[k];
		scaled(&p, 1e4, 128, t, &info);
		assert_true(info.base == 1e4);
		for (int i = 0; i < 64; i++)
			assert_rel(t[i], u[i], 1e-15);
	}
	/* base' = base (factor L/orig - (factor-1))^(d/(d-2)): 1e4 3^(64/63), 1e4 7^(64/63) */
	p.length = 8192;
	scaled(&p, 1e4, 128, t, &info);
	assert_near(info.base, 30527.7367, 5e-5);
	assert_rel(info.base, 1e4 * pow(3.0, 64.0 / 63.0), 1e-12);
	for (int i = 0; i < 64; i++)
		assert_rel(t[i], pow(info.base, -(double)i / 64.0), 1e-12);
	assert_true(info.attention_factor == 1.0);
	p.length = 16384;
	scaled(&p, 1e4, 128, t, &info);
	assert_near(info.base, 72195.8601, 5e-5);
	assert_rel(info.base, 1e4 * pow(7.0, 64.0 / 63.0), 1e-12);
	assert_rel(t[63], pow(1e4 * pow(7.0, 64.0 / 63.0), -63.0 / 64.0), 1e-12);
	assert_int_equal(pe_rope_scale_frequencies(&p, 1e4, 2, t, NULL), PE_ERANGE);
}

static void yarn_matches_3c(void **state)
{
	(void)state;
	double t[64], u[64];
	struct pe_rope_scaling_info info;
	struct pe_rope_scaling_params p = params(PE_ROPE_SCALING_YARN, 4, 4096);
	assert_int_equal(pe_rope_base_frequencies(1e4, 128, u), PE_OK);
	scaled(&p, 1e4, 128, t, &info);
	assert_true(info.yarn_low == 20.0 && info.yarn_high == 46.0);
	const int at[] = {0, 20, 21, 33, 45, 46, 63};
	const double ratio[] = {1, 1, 0.971154, 0.625, 0.278846, 0.25, 0.25};
	for (int k = 0; k < 7; k++)
		assert_near(t[at[k]] / u[at[k]], ratio[k], 5e-7);
	/* closed form of the ramp: ratio_i = 1 - (3/4) clip((i - 20)/26, 0, 1) */
	for (int i = 0; i < 64; i++) {
		double r = i <= 20 ? 0.0 : i >= 46 ? 1.0 : (i - 20) / 26.0;
		assert_rel(t[i] / u[i], 1.0 - 0.75 * r, 1e-12);
	}
	assert_near(info.attention_factor, 1.1386294, 5e-8);
	assert_rel(info.attention_factor, 1.0 + 0.1 * log(4.0), 1e-15);
	assert_near(info.attention_factor * info.attention_factor, 1.2964770, 5e-8);
	assert_true(info.base == 1e4);

	/* without truncation the boundaries are the correction dimensions themselves */
	p.truncate = 0;
	scaled(&p, 1e4, 128, t, &info);
	assert_near(info.yarn_low, 20.944, 5e-4);
	assert_near(info.yarn_high, 45.027, 5e-4);
	assert_rel(info.yarn_low, 64.0 * log(4096 / (64 * PI)) / log(1e4), 1e-12);

	/* Qwen2.5 style */
	p.truncate = 1;
	p.original = 32768;
	scaled(&p, 1e6, 128, t, &info);
	assert_true(info.yarn_low == 23.0 && info.yarn_high == 40.0);
}

static void yarn_attention_factor_sources(void **state)
{
	(void)state;
	double t[64];
	struct pe_rope_scaling_info info;
	struct pe_rope_scaling_params p = params(PE_ROPE_SCALING_YARN, 4, 4096);
	p.attention_factor = 0.5;
	scaled(&p, 1e4, 128, t, &info);
	assert_true(info.attention_factor == 0.5);
	p.attention_factor = NAN;
	p.mscale = 2;
	p.mscale_all_dim = 1;
	scaled(&p, 1e4, 128, t, &info);
	assert_rel(info.attention_factor, (0.2 * log(4.0) + 1) / (0.1 * log(4.0) + 1), 1e-15);
	/* DeepSeek-V2: mscale == mscale_all_dim gives 1 */
	p.factor = 40;
	p.mscale = 0.707;
	p.mscale_all_dim = 0.707;
	scaled(&p, 1e4, 128, t, &info);
	assert_rel(info.attention_factor, 1.0, 1e-15);
	/* only one of them set: the plain 0.1 ln s + 1 */
	p.mscale_all_dim = 0;
	scaled(&p, 1e4, 128, t, &info);
	assert_rel(info.attention_factor, 0.1 * log(40.0) + 1, 1e-15);
	/* factor <= 1: no scaling of the logits */
	p.factor = 1;
	scaled(&p, 1e4, 128, t, &info);
	assert_true(info.attention_factor == 1.0);
}

static void yarn_equal_boundaries_are_widened(void **state)
{
	(void)state;
	double t[4], u[4];
	struct pe_rope_scaling_info info;
	/* d 8: low and high both clamp to 0 when beta_fast rotations exceed the context */
	struct pe_rope_scaling_params p = params(PE_ROPE_SCALING_YARN, 2, 1);
	p.beta_fast = 1;
	p.beta_slow = 1;
	assert_int_equal(pe_rope_base_frequencies(1e4, 8, u), PE_OK);
	scaled(&p, 1e4, 8, t, &info);
	assert_true(info.yarn_low == 0.0);
	assert_rel(info.yarn_high, 0.001, 1e-12);
	assert_rel(t[0], u[0], 1e-15);
	for (int i = 1; i < 4; i++)
		assert_rel(t[i], u[i] / 2, 1e-15);
}

static void llama3_matches_3d(void **state)
{
	(void)state;
	double t[64], u[64];
	struct pe_rope_scaling_info info;
	struct pe_rope_scaling_params p = params(PE_ROPE_SCALING_LLAMA3, 8, 8192);
	assert_int_equal(pe_rope_base_frequencies(5e5, 128, u), PE_OK);
	scaled(&p, 5e5, 128, t, &info);
	for (int i = 0; i <= 28; i++)
		assert_true(t[i] == u[i]);
	const double smooth[] = {0.828168, 0.643743, 0.493507, 0.371122, 0.271425, 0.190211};
	for (int i = 29; i <= 34; i++) {
		assert_near(t[i] / u[i], smooth[i - 29], 5e-7);
		/* s = (8192 / lambda_i - 1) / 3, ratio = (1 - s)/8 + s */
		double s = (8192.0 / (2 * PI * pow(5e5, i / 64.0)) - 1.0) / 3.0;
		assert_rel(t[i] / u[i], (1 - s) / 8 + s, 1e-12);
	}
	for (int i = 35; i < 64; i++)
		assert_rel(t[i] / u[i], 0.125, 1e-15);
	assert_near(t[0], 1.0, 0);
	assert_near(t[20], 0.01656044, 5e-9);
	assert_near(t[63], 3.068926e-07, 5e-14);
	assert_true(info.attention_factor == 1.0);

	/* continuous at both wavelength boundaries (low 8192, high 2048) */
	p.low_freq_factor = 1;
	p.high_freq_factor = 4;
	double th[2] = {2 * PI / 2048.0, 2 * PI / 8192.0};
	assert_int_equal(pe_rope_scale_frequencies(&p, 5e5, 4, th, NULL), PE_OK);
	assert_rel(th[0], 2 * PI / 2048.0, 1e-15);
	assert_rel(th[1], 2 * PI / 8192.0 / 8, 1e-15);

	/* high == low (Llama 4 Scout: 1 and 1) and high < low: the reference warns and
	 * computes; no band is smoothed, wavelengths above original / low are divided */
	const double pairs[][2] = {{1, 1}, {4, 1}};
	for (size_t k = 0; k < 2; k++) {
		p.low_freq_factor = pairs[k][0];
		p.high_freq_factor = pairs[k][1];
		memcpy(t, u, sizeof(t));
		assert_int_equal(pe_rope_scale_frequencies(&p, 5e5, 128, t, NULL), PE_OK);
		for (int i = 0; i < 64; i++) {
			double wl = 2 * PI / u[i];
			assert_true(t[i] == (wl > 8192.0 / p.low_freq_factor ? u[i] / 8 : u[i]));
		}
	}
	/* ... except a wavelength exactly on original / low with high == low: 0 / 0 */
	p.low_freq_factor = p.high_freq_factor = 1;
	p.original = 2 * PI;
	th[0] = 1.0;
	assert_int_equal(pe_rope_scale_frequencies(&p, 5e5, 2, th, NULL), PE_ERANGE);
}

static void longrope_matches_3e(void **state)
{
	(void)state;
	double t[4], u[4];
	double longf[4] = {1, 2, 4, 8}, shortf[4] = {1, 1, 1.5, 2};
	struct pe_rope_scaling_info info;
	struct pe_rope_scaling_params p = params(PE_ROPE_SCALING_LONGROPE, 32, 4096);
	p.long_factor = longf;
	p.n_long_factor = 4;
	p.short_factor = shortf;
	p.n_short_factor = 4;
	assert_int_equal(pe_rope_base_frequencies(1e4, 8, u), PE_OK);

	scaled(&p, 1e4, 8, t, &info);
	for (int i = 0; i < 4; i++)
		assert_rel(t[i] / u[i], 1.0 / shortf[i], 1e-15);
	assert_near(info.attention_factor, 1.1902381, 5e-8);
	assert_rel(info.attention_factor, sqrt(1 + 5.0 / 12.0), 1e-15);

	p.length = 4096; /* not beyond the original: still short */
	scaled(&p, 1e4, 8, t, &info);
	assert_rel(t[3] / u[3], 0.5, 1e-15);
	p.length = 4097;
	scaled(&p, 1e4, 8, t, &info);
	for (int i = 0; i < 4; i++)
		assert_rel(t[i] / u[i], 1.0 / longf[i], 1e-15);

	p.factor = 1;
	scaled(&p, 1e4, 8, t, &info);
	assert_true(info.attention_factor == 1.0);
	p.attention_factor = 1.25;
	scaled(&p, 1e4, 8, t, &info);
	assert_true(info.attention_factor == 1.25);

	p.n_short_factor = 3;
	assert_int_equal(pe_rope_scale_frequencies(&p, 1e4, 8, t, NULL), PE_ERANGE);
	p.n_short_factor = 4;
	assert_int_equal(pe_rope_scale_frequencies(&p, 1e4, 10, t, NULL), PE_ERANGE);
	p.long_factor = NULL;
	assert_int_equal(pe_rope_scale_frequencies(&p, 1e4, 8, t, NULL), PE_EINVAL);
}

/*
 * Proportional, by hand: d 8, base 10000, proportion 0.5: int(0.5 * 8 // 2) = 2
 * pairs turn at 1 and 10000^(-2/8) = 0.1, halved by factor 2; pairs 2 and 3 are 0.
 * proportion 0.3 of d 10: 3.0000000000000004 // 2 = 1 pair.
 */
static void proportional_by_hand(void **state)
{
	(void)state;
	struct pe_rope_scaling_params p = params(PE_ROPE_SCALING_PROPORTIONAL, 2.0, 4096);
	p.proportion = 0.5;
	double theta[5];
	struct pe_rope_scaling_info info;
	scaled(&p, 10000.0, 8, theta, &info);
	assert_true(theta[0] == 0.5 && theta[1] == 0.05 && theta[2] == 0.0 && theta[3] == 0.0);
	assert_true(info.attention_factor == 1.0);
	assert_int_equal(pe_rope_turning_pairs(&p, 8), 2);
	p.proportion = 0.3;
	assert_int_equal(pe_rope_turning_pairs(&p, 10), 1);
	p.proportion = 1.5;
	assert_int_equal(pe_rope_scale_frequencies(&p, 10000.0, 8, theta, NULL), PE_ERANGE);
	struct pe_rope_scaling_params none = params(PE_ROPE_SCALING_NONE, 1, 4096);
	assert_int_equal(pe_rope_turning_pairs(&none, 8), 4);
	assert_string_equal(pe_rope_scaling_name(PE_ROPE_SCALING_PROPORTIONAL), "proportional");
}

/*
 * vLLM's NTK, by hand ([3g] of doc/conventions.md): d 128, base 10000, factor 4.
 * Fixed: (4 base)^(-2i/128) / 4^(2/128), so f'/f = 4^(-(i+1)/64): 0.97857206 at
 * i = 0, 1/2 at 31, 1/4 at 63; the base reported is 40000. Mixed, b = 0.625:
 * a = ln 4 / 64^0.625 = 0.10303694, f'/f = exp(-a (i+1)^0.625): 0.90209365,
 * 0.40701686 and 1/4 at i = 0, 31, 63.
 */
static void ntk_by_hand(void **state)
{
	(void)state;
	struct pe_rope_scaling_params p = params(PE_ROPE_SCALING_NTK, 4.0, 4096);
	p.mixed_b = NAN;
	double base[64], theta[64];
	struct pe_rope_scaling_info info;
	assert_int_equal(pe_rope_base_frequencies(10000.0, 128, base), PE_OK);
	scaled(&p, 10000.0, 128, theta, &info);
	assert_near(theta[0] / base[0], 0.97857206, 1e-8);
	assert_near(theta[31] / base[31], 0.5, 1e-12);
	assert_near(theta[63] / base[63], 0.25, 1e-12);
	assert_true(info.base == 40000.0 && info.attention_factor == 1.0);
	p.mixed_b = 0.625;
	scaled(&p, 10000.0, 128, theta, &info);
	assert_near(theta[0] / base[0], 0.90209365, 1e-8);
	assert_near(theta[31] / base[31], 0.40701686, 1e-8);
	assert_near(theta[63] / base[63], 0.25, 1e-12);
	assert_string_equal(pe_rope_scaling_name(PE_ROPE_SCALING_NTK), "ntk");
}

static void names(void **state)
{
	(void)state;
	assert_string_equal(pe_rope_scaling_name(PE_ROPE_SCALING_LLAMA3), "llama3");
	assert_string_equal(pe_rope_scaling_name(PE_ROPE_SCALING_NONE), "none");
	assert_string_equal(pe_rope_scaling_name((enum pe_rope_scaling)99), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(theta_is_base_power_and_uses_rotary_width),
	        cmocka_unit_test(wavelengths_match_7a),
	        cmocka_unit_test(critical_dimension_matches_7b),
	        cmocka_unit_test(none_and_linear),
	        cmocka_unit_test(dynamic_matches_3b),
	        cmocka_unit_test(yarn_matches_3c),
	        cmocka_unit_test(yarn_attention_factor_sources),
	        cmocka_unit_test(yarn_equal_boundaries_are_widened),
	        cmocka_unit_test(llama3_matches_3d),
	        cmocka_unit_test(longrope_matches_3e),
	        cmocka_unit_test(proportional_by_hand),
	        cmocka_unit_test(ntk_by_hand),
	        cmocka_unit_test(names),
	};
	return cmocka_run_group_tests_name("rope_scaling", tests, NULL, NULL);
}
