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
#include <string.h>

#include "analysis/precision_internal.h"

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

/* binary16 rounding as the formats define it, with libm's frexp, ldexp and nearbyint (the
 * library's own builds the powers of two from bits). */
static double f16_by_libm(double x)
{
	if (!isfinite(x) || x == 0.0)
		return x;
	double a = fabs(x);
	int e;
	frexp(a, &e);
	int step = e - 11 < -24 ? -24 : e - 11;
	double r = ldexp(nearbyint(ldexp(a, -step)), step);
	if (r > 65504.0)
		r = INFINITY;
	return x < 0 ? -r : r;
}

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

static void f16_rounding_matches_libm(void **state)
{
	(void)state;
	uint64_t z = 0x9e3779b97f4a7c15u;
	for (int i = 0; i < 200000; i++) {
		z ^= z << 13, z ^= z >> 7, z ^= z << 17;
		double x;
		/* every exponent and sign: bit patterns, and integers near f16's steps */
		if (i % 2) {
			memcpy(&x, &z, sizeof(x));
		} else {
			x = (double)(z % 200000) + (double)(z >> 60) * 0.25;
		}
		if (!same_bits(pe_round_f16(x), f16_by_libm(x)))
			fail_msg("pe_round_f16(%a) = %a, by libm %a", x, pe_round_f16(x),
			         f16_by_libm(x));
	}
}

/*
 * The row kernels (precision_kernels.c, vectorised) against the recipe of
 * posenc/precision.h done one pair at a time here: the exact cos and sin from
 * the fast sine-cosine of the double product corrected by fma's rounding
 * error, and float32 with every operation rounded. Bit for bit, over
 * positions from 0 to beyond 2^25 pi/2 (where the kernels hand lanes back to
 * the scalar code), pair counts that are not a multiple of the vector width,
 * and an attention factor (yarn) besides 1.
 */
static void recipe_exact(const struct pe_rope_model *m, double pos, size_t i, double *c, double *s)
{
	double hi = pos * m->theta[i], lo = fma(pos, m->theta[i], -hi), sh, ch;
	pe_sincos_fast(hi, &sh, &ch);
	double sl = fabs(lo) < 1e-4 ? lo - lo * lo * lo / 6.0 : sin(lo);
	double cl = fabs(lo) < 1e-4 ? 1.0 - lo * lo / 2.0 : cos(lo);
	*s = (sh * cl + ch * sl) * m->att;
	*c = (ch * cl - sh * sl) * m->att;
}

static void recipe_f32(const struct pe_rope_model *m, double pos, size_t i, double *c, double *s)
{
	double mr = (double)(float)pos, att = (double)(float)m->att, sv, cv;
	double a = (double)(float)(mr * m->theta[i]);
	pe_sincos_fast(a, &sv, &cv);
	cv = (double)(float)cv;
	sv = (double)(float)sv;
	if (m->att != 1.0) {
		cv = (double)(float)(cv * att);
		sv = (double)(float)(sv * att);
	}
	*c = cv;
	*s = sv;
}

/* bfloat16 or float16 compute (@r rounds to it), stored alike: posenc/precision.h's steps 5-8. */
static void recipe_half(const struct pe_rope_model *m, double (*r)(double), double pos, size_t i,
                        double *c, double *s)
{
	double mr = r(pos), att = (double)(float)m->att, sv, cv;
	double a = r(mr * m->theta[i]);
	pe_sincos_fast(a, &sv, &cv);
	cv = r((double)(float)cv);
	sv = r((double)(float)sv);
	if (m->att != 1.0) {
		cv = r((double)(float)(cv * att));
		sv = r((double)(float)(sv * att));
	}
	*c = cv;
	*s = sv;
}

static void kernels_match_recipe(void **state)
{
	(void)state;
	const char *specs[] = {"rope", "rope:scaling=yarn,factor=4", "rope:base=500000"};
	const size_t dims[] = {2, 6, 22, 128, 600};
	const double positions[] = {
	        0,       1,        2,        3,        1000,    65519,   65520,
	        1e6 + 7, 16777217, 52707177, 52707179, 1e8 + 3, 4e9 + 1, 9.007199254740991e15};
	for (size_t q = 0; q < sizeof(specs) / sizeof(specs[0]); q++) {
		struct pe_scheme *sc = NULL;
		assert_int_equal(pe_scheme_parse(specs[q], &sc, NULL), PE_OK);
		for (size_t di = 0; di < sizeof(dims) / sizeof(dims[0]); di++) {
			struct pe_precision ex = {PE_FLOAT_EXACT, PE_FLOAT_EXACT};
			struct pe_precision f32 = {PE_FLOAT_F32, PE_FLOAT_F32};
			struct pe_precision f32b = {PE_FLOAT_F32, PE_FLOAT_BF16};
			struct pe_rope_model me, mf, mb;
			assert_int_equal(pe_rope_model_init(&mb, sc, dims[di], f32b, 0, 0, NULL),
			                 PE_OK);
			assert_int_equal(pe_rope_model_init(&me, sc, dims[di], ex, 0, 0, NULL),
			                 PE_OK);
			assert_int_equal(pe_rope_model_init(&mf, sc, dims[di], f32, 0, 0, NULL),
			                 PE_OK);
			size_t h = me.d_rot / 2;
			double c[300], s[300], rc, rs;
			for (size_t k = 0; k < sizeof(positions) / sizeof(positions[0]); k++) {
				double pos = positions[k];
				pe_rope_model_exact_fast(&me, pos, c, s);
				for (size_t i = 0; i < h; i++) {
					recipe_exact(&me, pos, i, &rc, &rs);
					if (!same_bits(c[i], rc) || !same_bits(s[i], rs))
						fail_msg("%s d=%zu exact pos %.17g pair %zu: %a "
						         "%a, recipe %a %a",
						         specs[q], dims[di], pos, i, c[i], s[i], rc,
						         rs);
				}
				pe_rope_model_pairs(&mf, pos, NULL, c, s);
				for (size_t i = 0; i < h; i++) {
					recipe_f32(&mf, pos, i, &rc, &rs);
					if (!same_bits(c[i], rc) || !same_bits(s[i], rs))
						fail_msg("%s d=%zu f32 pos %.17g pair %zu: %a %a, "
						         "recipe %a %a",
						         specs[q], dims[di], pos, i, c[i], s[i], rc,
						         rs);
				}
				/* bfloat16 and float16 rows: the float32 sine-cosine vectorised */
				for (int half = 0; half < 2; half++) {
					struct pe_rope_model mh;
					struct pe_precision ph = {
					        half ? PE_FLOAT_F16 : PE_FLOAT_BF16,
					        half ? PE_FLOAT_F16 : PE_FLOAT_BF16};
					assert_int_equal(pe_rope_model_init(&mh, sc, dims[di], ph,
					                                    0, 0, NULL),
					                 PE_OK);
					pe_rope_model_pairs(&mh, pos, NULL, c, s);
					for (size_t i = 0; i < h; i++) {
						recipe_half(&mh,
						            half ? pe_round_f16 : pe_round_bf16,
						            pos, i, &rc, &rs);
						if (!same_bits(c[i], rc) || !same_bits(s[i], rs))
							fail_msg("%s d=%zu %s pos %.17g pair %zu: "
							         "%a "
							         "%a, recipe %a %a",
							         specs[q], dims[di],
							         half ? "f16" : "bf16", pos, i,
							         c[i], s[i], rc, rs);
					}
					pe_rope_model_free(&mh);
				}
				/* both rows at once for some pairs (the error curves' way), stored
				 * as bfloat16: every other pair, backwards */
				double ec[300], es[300], th[600];
				uint32_t idx[300];
				size_t n = 0;
				for (size_t i = h; i-- > 0;)
					if (i % 2 == 0)
						idx[n++] = (uint32_t)i;
				pe_rope_model_exact_f32_some(&me, &mb, pos, idx, n, th, ec, es, c,
				                             s);
				for (size_t w = 0; w < n; w++) {
					double xc, xs;
					recipe_exact(&me, pos, idx[w], &xc, &xs);
					recipe_f32(&mb, pos, idx[w], &rc, &rs);
					rc = pe_round_bf16(rc);
					rs = pe_round_bf16(rs);
					if (!same_bits(ec[w], xc) || !same_bits(es[w], xs) ||
					    !same_bits(c[w], rc) || !same_bits(s[w], rs))
						fail_msg("%s d=%zu exact+f32/bf16 pos %.17g pair "
						         "%zu",
						         specs[q], dims[di], pos, (size_t)idx[w]);
				}
				/* float32 values of some pairs alone */
				pe_rope_model_pairs_some(&mf, pos, idx, n, th, c, s);
				for (size_t w = 0; w < n; w++) {
					recipe_f32(&mf, pos, idx[w], &rc, &rs);
					if (!same_bits(c[w], rc) || !same_bits(s[w], rs))
						fail_msg("%s d=%zu f32 some pos %.17g pair %zu",
						         specs[q], dims[di], pos, (size_t)idx[w]);
				}
			}
			/* a position per lane: every position of the list at every pair */
			size_t np = sizeof(positions) / sizeof(positions[0]), n = np * h;
			double *lp = malloc(6 * n * sizeof(double));
			assert_non_null(lp);
			double *lx = lp + n, *l32 = lp + 2 * n, *ec = lp + 3 * n, *es = lp + 4 * n;
			double *fc = lp + 5 * n, *fs = malloc(n * sizeof(double));
			assert_non_null(fs);
			for (size_t w = 0; w < n; w++) {
				lp[w] = positions[w % np];
				lx[w] = me.theta[w / np];
				l32[w] = mb.theta[w / np];
			}
			pe_rope_model_exact_f32_at(&me, &mb, lp, lx, l32, n, ec, es, fc, fs);
			for (size_t w = 0; w < n; w++) {
				double xc, xs;
				recipe_exact(&me, lp[w], w / np, &xc, &xs);
				recipe_f32(&mb, lp[w], w / np, &rc, &rs);
				if (!same_bits(ec[w], xc) || !same_bits(es[w], xs) ||
				    !same_bits(fc[w], pe_round_bf16(rc)) ||
				    !same_bits(fs[w], pe_round_bf16(rs)))
					fail_msg("%s d=%zu a position per lane: pos %.17g pair %zu",
					         specs[q], dims[di], lp[w], w / np);
			}
			free(lp);
			free(fs);
			pe_rope_model_free(&me);
			pe_rope_model_free(&mf);
			pe_rope_model_free(&mb);
		}
		pe_scheme_destroy(sc);
	}
}

/*
 * The error curves (rotated exact row, pruned float32 pairs, candidates of
 * several positions at once) against the definition: at every position the
 * largest |value - exact| over the rows of pe_rope_model_pairs() and
 * pe_rope_model_exact_fast() (checked against the recipe above), bit for
 * bit. Ranges across a resync (every 256 positions), float16's overflow at
 * 65520, float32's 2^24, 2^25 pi/2 and the last positions below 2^53; an
 * attention factor; two pruned float32 precisions besides a copied one.
 */
static void curve_matches_rows(void **state)
{
	(void)state;
	const char *specs[] = {"rope", "rope:scaling=yarn,factor=4,base=500000"};
	const struct {
		uint64_t first, n;
	} ranges[] = {{0, 700},        {65400, 300},    {999000, 600},
	              {16777000, 400}, {52706900, 400}, {9007199254740000, 300}};
	const struct pe_precision sets[][4] = {
	        {{PE_FLOAT_F32, PE_FLOAT_F32},
	         {PE_FLOAT_BF16, PE_FLOAT_BF16},
	         {PE_FLOAT_F16, PE_FLOAT_F16},
	         {PE_FLOAT_F64, PE_FLOAT_F64}},
	        {{PE_FLOAT_F32, PE_FLOAT_BF16},
	         {PE_FLOAT_F32, PE_FLOAT_F16},
	         {PE_FLOAT_BF16, PE_FLOAT_BF16},
	         {PE_FLOAT_F32, PE_FLOAT_F32}},
	};
	const size_t dims[] = {6, 128};
	for (size_t q = 0; q < 2; q++) {
		struct pe_scheme *sc = NULL;
		assert_int_equal(pe_scheme_parse(specs[q], &sc, NULL), PE_OK);
		for (size_t di = 0; di < 2; di++) {
			size_t h = dims[di] / 2;
			struct pe_precision ex = {PE_FLOAT_EXACT, PE_FLOAT_EXACT};
			struct pe_rope_model me;
			assert_int_equal(pe_rope_model_init(&me, sc, dims[di], ex, 0, 0, NULL),
			                 PE_OK);
			double ec[64], es[64], c[64], s[64];
			for (size_t set = 0; set < 2; set++) {
				/* the second set without its plain f32: two pruned precisions */
				size_t np = set ? 3 : 4;
				struct pe_rope_model m[4];
				for (size_t k = 0; k < np; k++)
					assert_int_equal(pe_rope_model_init(&m[k], sc, dims[di],
					                                    sets[set][k], 0, 0,
					                                    NULL),
					                 PE_OK);
				for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
					struct pe_precision_curve *cv = NULL;
					assert_int_equal(pe_precision_curve_compute(
					                         sc, dims[di], ranges[r].first,
					                         ranges[r].n, sets[set], np, 1,
					                         1e-3, 2, &cv),
					                 PE_OK);
					for (uint64_t t = 0; t < ranges[r].n; t++) {
						double pos = (double)(ranges[r].first + t);
						pe_rope_model_exact_fast(&me, pos, ec, es);
						for (size_t k = 0; k < np; k++) {
							pe_rope_model_pairs(&m[k], pos, NULL, c, s);
							double want = 0;
							for (size_t i = 0; i < h; i++) {
								double dc = fabs(c[i] - ec[i]);
								double ds = fabs(s[i] - es[i]);
								if (isnan(dc) || isnan(ds))
									want = INFINITY;
								want = fmax(want, fmax(dc, ds));
							}
							double got = cv->err[t * np + k];
							if (!same_bits(got, want))
								fail_msg(
								        "%s d=%zu set %zu prec %zu "
								        "pos %.17g: %a, rows %a",
								        specs[q], dims[di], set, k,
								        pos, got, want);
						}
					}
					pe_precision_curve_destroy(cv);
				}
				for (size_t k = 0; k < np; k++)
					pe_rope_model_free(&m[k]);
			}
			pe_rope_model_free(&me);
		}
		pe_scheme_destroy(sc);
	}
}

/*
 * The float32 kernels of precision_fast.c (shorter polynomials, FMA) against
 * the recipe, float32(pe_sincos_fast(a)), lane by lane: every lane not
 * flagged has the recipe's bits. Angles: the float32 numbers nearest to
 * k pi/2 and their neighbours (sin or cos near 0: small values whose float32
 * rounding the relative bound must decide), 2^19 pseudo-random float32
 * angles up to 2^26 (some lanes near a half-way point are flagged: few), and
 * 0, -0, the fast path's end 2^25 pi/2, 1e30, infinity and NaN, which must be
 * flagged past the end. Then the row kernel with an attention factor.
 */
static void f32_kernels_match_recipe(void **state)
{
	(void)state;
	size_t n = 3 * 20001 + (1u << 19) + 8, m = 0, flagged = 0;
	double *x = malloc(5 * n * sizeof(double));
	unsigned char *bad = malloc(n);
	assert_non_null(x);
	assert_non_null(bad);
	double *c = x + n, *s = x + 2 * n, *c2 = x + 3 * n, *s2 = x + 4 * n;
	for (int k = 0; k <= 20000; k++) {
		float a = (float)(k * 1.5707963267948966);
		x[m++] = a;
		x[m++] = nextafterf(a, 0.0f);
		x[m++] = nextafterf(a, INFINITY);
	}
	uint64_t r = 12345;
	for (size_t i = 0; i < (1u << 19); i++) {
		r = r * 6364136223846793005u + 1442695040888963407u;
		x[m++] = (float)((double)(r >> 11) * 0x1p-53 * 0x1p25);
	}
	const double special[] = {0.0, -0.0, 52707176.0, 52707180.0, 1e30, INFINITY, -1e6, NAN};
	for (size_t i = 0; i < 8; i++)
		x[m++] = special[i];
	assert_true(m == n);
	for (size_t i0 = 0; i0 < n; i0 += PE_PREC_LANES) {
		size_t w = n - i0 < PE_PREC_LANES ? n - i0 : PE_PREC_LANES;
		int any = pe_prec_f32_sincos_row(x + i0, w, c + i0, s + i0, bad);
		for (size_t i = i0; i < i0 + w; i++) {
			double rs, rc;
			if (any && bad[i - i0]) {
				flagged++;
				continue;
			}
			pe_sincos_fast(x[i], &rs, &rc);
			if (!same_bits(c[i], (double)(float)rc) ||
			    !same_bits(s[i], (double)(float)rs))
				fail_msg("f32 sine-cosine of %a: %a %a, recipe %a %a", x[i], c[i],
				         s[i], (double)(float)rc, (double)(float)rs);
		}
		/* past the fast path: always flagged */
		for (size_t i = i0; i < i0 + w; i++)
			if (!(fabs(x[i]) < 52707178.0) && !(any && bad[i - i0]))
				fail_msg("angle %a not flagged", x[i]);
	}
	/* the 4 specials past 52707178 and a few half-way cases among 6e5 values (5 here) */
	if (!(flagged >= 5 && flagged < 40))
		fail_msg("%zu lanes flagged", flagged);
	/* the row kernel: angle float32(mr theta), values times a float32 factor */
	for (int scaled = 0; scaled < 2; scaled++) {
		double att = (double)(float)1.1732868, mr = 1.0;
		for (size_t i0 = 0; i0 < n; i0 += PE_PREC_LANES) {
			size_t w = n - i0 < PE_PREC_LANES ? n - i0 : PE_PREC_LANES;
			int any =
			        pe_prec_f32_row(x + i0, w, mr, att, scaled, c2 + i0, s2 + i0, bad);
			for (size_t i = i0; i < i0 + w; i++) {
				if (any && bad[i - i0])
					continue;
				double rs, rc;
				pe_sincos_fast((double)(float)(mr * x[i]), &rs, &rc);
				rc = (double)(float)rc;
				rs = (double)(float)rs;
				if (scaled) {
					rc = (double)(float)(rc * att);
					rs = (double)(float)(rs * att);
				}
				if (!same_bits(c2[i], rc) || !same_bits(s2[i], rs))
					fail_msg("f32 row at %a (scaled %d): %a %a, recipe %a %a",
					         x[i], scaled, c2[i], s2[i], rc, rs);
			}
		}
	}
	free(x);
	free(bad);
}

/*
 * The turned exact row of the error curves (precision_curve.c) stays within
 * its bound: 255 turns from the exact row at positions up to 2^53, with an
 * attention factor, are within 1.7e-13 att of the exact row there (the
 * curves allow 4e-12 before the exact comparison).
 */
static void turned_row_within_bound(void **state)
{
	(void)state;
	struct pe_scheme *sc = NULL;
	assert_int_equal(pe_scheme_parse("rope:scaling=yarn,factor=4", &sc, NULL), PE_OK);
	struct pe_precision ex = {PE_FLOAT_EXACT, PE_FLOAT_EXACT};
	struct pe_rope_model me;
	assert_int_equal(pe_rope_model_init(&me, sc, 256, ex, 0, 0, NULL), PE_OK);
	size_t h = me.d_rot / 2;
	double c[128], s[128], rc[128], rs[128], xc[128], xs[128], worst = 0;
	for (size_t i = 0; i < h; i++) {
		rc[i] = cos(me.theta[i]);
		rs[i] = sin(me.theta[i]);
	}
	const double starts[] = {0, 1e6, 16777000, 4e9, 9007199254740000};
	for (size_t q = 0; q < sizeof(starts) / sizeof(starts[0]); q++) {
		pe_rope_model_exact_fast(&me, starts[q], c, s);
		for (int t = 1; t <= 255; t++)
			pe_prec_rotate_row(h, rc, rs, c, s);
		pe_rope_model_exact_fast(&me, starts[q] + 255, xc, xs);
		for (size_t i = 0; i < h; i++)
			worst = fmax(worst, fmax(fabs(c[i] - xc[i]), fabs(s[i] - xs[i])) / me.att);
	}
	if (!(worst < 1.7e-13))
		fail_msg("turned row %.3g from the exact one", worst);
	pe_rope_model_free(&me);
	pe_scheme_destroy(sc);
}

/* The largest error of a row: a NaN anywhere is an infinite error, as the scalar loop had it. */
static void max_err_by_hand(void **state)
{
	(void)state;
	double pc[11] = {0}, ps[11] = {0}, ec[11] = {0}, es[11] = {0};
	ec[3] = 0.25;
	es[10] = -0.5; /* the last lane, past the vectors' width */
	assert_true(pe_prec_max_err(11, pc, ps, ec, es) == 0.5);
	ps[10] = -0.5;
	assert_true(pe_prec_max_err(11, pc, ps, ec, es) == 0.25);
	pc[9] = NAN;
	assert_true(isinf(pe_prec_max_err(11, pc, ps, ec, es)));
	pc[9] = INFINITY;
	assert_true(isinf(pe_prec_max_err(11, pc, ps, ec, es)));
	assert_true(pe_prec_max_err(0, pc, ps, ec, es) == 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(f16_rounding),
	        cmocka_unit_test(bf16_rounding),
	        cmocka_unit_test(f32_rounding),
	        cmocka_unit_test(sincos_fast_matches_libm),
	        cmocka_unit_test(precision_names),
	        cmocka_unit_test(float16_row_by_hand),
	        cmocka_unit_test(f16_rounding_matches_libm),
	        cmocka_unit_test(kernels_match_recipe),
	        cmocka_unit_test(curve_matches_rows),
	        cmocka_unit_test(f32_kernels_match_recipe),
	        cmocka_unit_test(turned_row_within_bound),
	        cmocka_unit_test(max_err_by_hand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
