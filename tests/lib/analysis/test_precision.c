/*
 * The rounding functions of the reduced-precision simulation against values
 * worked out by hand from the formats (IEEE 754 binary16 and binary32,
 * bfloat16 = the top half of binary32), the fast sine-cosine against libm,
 * the precision names, and a hand-worked RoPE row in float16.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <posenc/precision.h>
#include <posenc/scheme.h>

static void f16_rounding(void **state)
{
	(void)state;
	/* 11 significant bits: 1 + 2^-10 is the next number after 1 */
	assert_true(pe_round_f16(1.0 + ldexp(1, -10)) == 1.0 + ldexp(1, -10));
	/* half way between 1 and 1 + 2^-10: ties to even (1) */
	assert_true(pe_round_f16(1.0 + ldexp(1, -11)) == 1.0);
	/* half way between 1 + 2^-10 and 1 + 2^-9: ties to even (1 + 2^-9) */
	assert_true(pe_round_f16(1.0 + 3 * ldexp(1, -11)) == 1.0 + ldexp(1, -9));
	assert_true(pe_round_f16(1.0 + ldexp(1, -11) + ldexp(1, -30)) == 1.0 + ldexp(1, -10));
	/* the largest finite number, and the overflow threshold 65520 */
	assert_true(pe_round_f16(65504.0) == 65504.0);
	assert_true(pe_round_f16(65519.0) == 65504.0);
	assert_true(isinf(pe_round_f16(65520.0)) && pe_round_f16(-65520.0) < 0);
	/* integers: exact to 2048, then every second one (2049 ties to 2048) */
	assert_true(pe_round_f16(2049.0) == 2048.0);
	assert_true(pe_round_f16(2051.0) == 2052.0);
	/* subnormals: steps of 2^-24; 2^-25 ties to 0, 3 * 2^-25 to 2^-23 */
	assert_true(pe_round_f16(ldexp(1, -24)) == ldexp(1, -24));
	assert_true(pe_round_f16(ldexp(1, -25)) == 0.0);
	assert_true(pe_round_f16(3 * ldexp(1, -25)) == ldexp(1, -23));
	assert_true(pe_round_f16(ldexp(1, -14) + ldexp(1, -24)) == ldexp(1, -14) + ldexp(1, -24));
	/* 0.1 = 1638.4 * 2^-14 -> 1638 * 2^-14 = 0.0999755859375 */
	assert_true(pe_round_f16(0.1) == 0.0999755859375);
	assert_true(isnan(pe_round_f16(NAN)));
	assert_true(pe_round_f16(-0.1) == -0.0999755859375);
}

static void bf16_rounding(void **state)
{
	(void)state;
	/* 8 significant bits */
	assert_true(pe_round_bf16(1.0 + ldexp(1, -7)) == 1.0 + ldexp(1, -7));
	assert_true(pe_round_bf16(1.0 + ldexp(1, -8)) == 1.0);
	assert_true(pe_round_bf16(1.0 + 3 * ldexp(1, -8)) == 1.0 + ldexp(1, -6));
	/* 0.1 (float32 0x3dcccccd) -> 0x3dcd = 0.10009765625 */
	assert_true(pe_round_bf16(0.1) == 0.10009765625);
	/* integers exact to 256; 257 ties to 256, 259 to 260 */
	assert_true(pe_round_bf16(257.0) == 256.0);
	assert_true(pe_round_bf16(259.0) == 260.0);
	/* bfloat16 keeps float32's range: 1e38 stays finite, 3.4e38 rounds past the top */
	assert_true(isfinite(pe_round_bf16(1e38)));
	assert_true(isinf(pe_round_bf16(3.4e38)));
	assert_true(isnan(pe_round_bf16(NAN)));
	assert_true(isinf(pe_round_bf16(-INFINITY)) && pe_round_bf16(-INFINITY) < 0);
}

static void f32_rounding(void **state)
{
	(void)state;
	assert_true(pe_round_f32(0.1) == 0.100000001490116119384765625);
	assert_true(pe_round_f32(16777217.0) == 16777216.0); /* 2^24 + 1 ties to even */
	assert_true(pe_round_f32(16777219.0) == 16777220.0);
}

static void sincos_fast_matches_libm(void **state)
{
	(void)state;
	double worst = 0;
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < 200000; i++) {
		/* xorshift: arguments spread over magnitudes 1e-3 .. 1e9 */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double u = (double)(x >> 11) * 0x1.0p-53;
		double a = pow(10, -3 + 12 * u) * ((x & 1) ? -1 : 1);
		double s, c;
		pe_sincos_fast(a, &s, &c);
		worst = fmax(worst, fmax(fabs(s - sin(a)), fabs(c - cos(a))));
	}
	assert_true(worst < 5e-16);
	double s, c;
	pe_sincos_fast(0.0, &s, &c);
	assert_true(s == 0.0 && c == 1.0);
	pe_sincos_fast(1e18, &s, &c);
	assert_true(s == sin(1e18) && c == cos(1e18));
}

static void precision_names(void **state)
{
	(void)state;
	struct pe_precision p;
	char buf[16];
	assert_int_equal(pe_precision_parse("f32/bf16", &p), PE_OK);
	assert_int_equal(p.compute, PE_FLOAT_F32);
	assert_int_equal(p.store, PE_FLOAT_BF16);
	assert_string_equal(pe_precision_name(p, buf, sizeof(buf)), "f32/bf16");
	assert_int_equal(pe_precision_parse("bf16", &p), PE_OK);
	assert_string_equal(pe_precision_name(p, buf, sizeof(buf)), "bf16");
	assert_int_equal(pe_precision_parse("bf16/f32", &p), PE_EINVAL);
	assert_int_equal(pe_precision_parse("bf16/f16", &p), PE_EINVAL);
	assert_int_equal(pe_precision_parse("f8", &p), PE_EINVAL);
	assert_int_equal(pe_precision_parse("f32/", &p), PE_EINVAL);
}

/*
 * rope d=4, base 10000, float16, position 3, by hand: e = (0, 0.5); p = (1,
 * 100); 1/100 in binary16 is 1311 * 2^-17 = 0.01000213623046875 (0.01 / 2^-17
 * = 1310.72). The angle 3 * 1311 * 2^-17 = 1966.5 * 2^-16 is a tie between
 * binary16 neighbours (step 2^-16 there): to even, 1966 * 2^-16 =
 * 0.029998779296875.
 */
static void float16_row_by_hand(void **state)
{
	(void)state;
	struct pe_scheme *s = NULL;
	assert_int_equal(pe_scheme_parse("rope", &s, NULL), PE_OK);
	struct pe_precision p = {PE_FLOAT_F16, PE_FLOAT_F16};
	double row[4];
	assert_int_equal(pe_precision_encode(s, 4, 3, 1, PE_VIEW_ANGLE, p, row), PE_OK);
	assert_true(row[0] == 3.0 && row[1] == 3.0);
	assert_true(row[2] == 0.029998779296875);
	assert_int_equal(pe_precision_encode(s, 4, 3, 1, PE_VIEW_COS, p, row), PE_OK);
	/* cos(3) = -0.98999249660 = -2027.5035 * 2^-11 (the step in [0.5, 1)): -2028 * 2^-11 */
	assert_true(row[0] == -0.990234375);
	pe_scheme_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(f16_rounding),    cmocka_unit_test(bf16_rounding),
	        cmocka_unit_test(f32_rounding),    cmocka_unit_test(sincos_fast_matches_libm),
	        cmocka_unit_test(precision_names), cmocka_unit_test(float16_row_by_hand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
