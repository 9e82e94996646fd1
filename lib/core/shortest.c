/*
 * shortest.c - a double as the shortest decimal text that reads back to it
 *
 * Ryu (Ulf Adams, "Ryu: fast float-to-string conversion", PLDI 2018).
 * The double is m2 * 2^e2; every real in the half-way interval to its two
 * neighbours rounds to it. Ryu scales the interval's bounds (mm, mp) and the
 * value (mv), all four times m2, by 10^-q with one 125-bit multiply each, q
 * chosen so the scaled bounds still hold enough digits; then it drops decimal
 * digits while the bounds stay apart, and rounds the value's last kept digit.
 * The inexact scaling only errs where the exact bounds would end in zeros,
 * which the "trailing zeros" flags track exactly (the slow path below).
 *
 * Compared with "%.17g": 0.1 is "0.1" rather than "0.10000000000000001", the
 * same double comes back from strtod, and no snprintf runs (the CSV writer's
 * cost was almost all in it). The layout follows %g: plain digits for decimal
 * exponents in [-4, 17) (so integers below 1e17 have no exponent, as with
 * %.17g), else d.ddde+XX with at least two exponent digits.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <posenc/write.h>

#include "shortest_tables.h"

#define MANT_BITS 52
#define EXP_BITS  11
#define BIAS      1023

/* ceil(log2(5^e)) for 1 <= e <= 3528 (1 for e = 0). */
static inline int32_t pow5bits(int32_t e)
{
	return (int32_t)(((uint32_t)e * 1217359u) >> 19) + 1;
}

/* floor(log10(2^e)) for 0 <= e <= 1650. */
static inline uint32_t log10pow2(int32_t e)
{
	return ((uint32_t)e * 78913u) >> 18;
}

/* floor(log10(5^e)) for 0 <= e <= 2620. */
static inline uint32_t log10pow5(int32_t e)
{
	return ((uint32_t)e * 732923u) >> 20;
}

static inline uint32_t pow5factor(uint64_t v)
{
	uint32_t count = 0;
	for (;;) {
		uint64_t q = v / 5;
		if (v - 5 * q != 0)
			return count;
		v = q;
		count++;
	}
}

static inline int multiple_of_pow5(uint64_t v, uint32_t p)
{
	return pow5factor(v) >= p;
}

static inline int multiple_of_pow2(uint64_t v, uint32_t p)
{
	return (v & ((1ull << p) - 1)) == 0;
}

/* (m * mul) >> j for the 128-bit mul = {low, high}, j >= 64. */
#if defined(__SIZEOF_INT128__) && !defined(PE_NO_INT128)
__extension__ typedef unsigned __int128 u128;

static inline uint64_t mul_shift(uint64_t m, const uint64_t *mul, int32_t j)
{
	u128 b0 = (u128)m * mul[0];
	u128 b2 = (u128)m * mul[1];
	return (uint64_t)(((b0 >> 64) + b2) >> (j - 64));
}
#else
static inline uint64_t umul128(uint64_t a, uint64_t b, uint64_t *hi)
{
	uint64_t a_lo = (uint32_t)a, a_hi = a >> 32, b_lo = (uint32_t)b, b_hi = b >> 32;
	uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
	uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	return (mid << 32) | (uint32_t)ll;
}

static inline uint64_t mul_shift(uint64_t m, const uint64_t *mul, int32_t j)
{
	uint64_t hi0, hi2;
	umul128(m, mul[0], &hi0);
	uint64_t lo2 = umul128(m, mul[1], &hi2);
	uint64_t sum = hi0 + lo2;
	hi2 += sum < hi0;
	int32_t s = j - 64;
	/* 0 < s < 64 for every index the tables hold. */
	return (hi2 << (64 - s)) | (sum >> s);
}
#endif

/* A decimal m10 * 10^e10. */
struct decimal {
	uint64_t m10;
	int32_t e10;
};

/* Integers in [1, 2^53) are their own shortest form (every integer there is a double). */
static inline int small_int(uint64_t mant, uint32_t biased, struct decimal *d)
{
	uint64_t m2 = (1ull << MANT_BITS) | mant;
	int32_t e2 = (int32_t)biased - BIAS - MANT_BITS;
	if (e2 > 0 || e2 < -MANT_BITS)
		return 0;
	uint64_t fraction = m2 & ((1ull << -e2) - 1);
	if (fraction != 0)
		return 0;
	d->m10 = m2 >> -e2;
	d->e10 = 0;
	return 1;
}

static struct decimal shortest(uint64_t mant, uint32_t biased)
{
	int32_t e2;
	uint64_t m2;
	if (biased == 0) {
		e2 = 1 - BIAS - MANT_BITS - 2;
		m2 = mant;
	} else {
		e2 = (int32_t)biased - BIAS - MANT_BITS - 2;
		m2 = (1ull << MANT_BITS) | mant;
	}
	const int even = (m2 & 1) == 0;
	const int accept_bounds = even;

	/* The interval [mm, mp] around mv = 4 m2; narrower below a power of two. */
	const uint64_t mv = 4 * m2;
	const uint32_t mm_shift = mant != 0 || biased <= 1;

	uint64_t vr, vp, vm;
	int32_t e10;
	int vm_trailing_zeros = 0, vr_trailing_zeros = 0;
	if (e2 >= 0) {
		const uint32_t q = log10pow2(e2) - (e2 > 3);
		e10 = (int32_t)q;
		const int32_t k = POW5_INV_BITCOUNT + pow5bits((int32_t)q) - 1;
		const int32_t i = -e2 + (int32_t)q + k;
		vr = mul_shift(4 * m2, POW5_INV[q], i);
		vp = mul_shift(4 * m2 + 2, POW5_INV[q], i);
		vm = mul_shift(4 * m2 - 1 - mm_shift, POW5_INV[q], i);
		if (q <= 21) {
			/* Only here can the exact quotients be whole numbers. */
			if (mv % 5 == 0)
				vr_trailing_zeros = multiple_of_pow5(mv, q);
			else if (accept_bounds)
				vm_trailing_zeros = multiple_of_pow5(mv - 1 - mm_shift, q);
			else
				vp -= multiple_of_pow5(mv + 2, q);
		}
	} else {
		const uint32_t q = log10pow5(-e2) - (-e2 > 1);
		e10 = (int32_t)q + e2;
		const int32_t i = -e2 - (int32_t)q;
		const int32_t k = pow5bits(i) - POW5_BITCOUNT;
		const int32_t j = (int32_t)q - k;
		vr = mul_shift(4 * m2, POW5[i], j);
		vp = mul_shift(4 * m2 + 2, POW5[i], j);
		vm = mul_shift(4 * m2 - 1 - mm_shift, POW5[i], j);
		if (q <= 1) {
			/* mv = 4 m2 has at least two trailing binary zeros. */
			vr_trailing_zeros = 1;
			if (accept_bounds)
				vm_trailing_zeros = mm_shift == 1;
			else
				vp--;
		} else if (q < 63) {
			vr_trailing_zeros = multiple_of_pow2(mv, q);
		}
	}

	int32_t removed = 0;
	uint8_t last_removed = 0;
	uint64_t out;
	if (vm_trailing_zeros || vr_trailing_zeros) {
		/* Rare: exact ties and bounds that are themselves short decimals. */
		for (;;) {
			uint64_t vp10 = vp / 10, vm10 = vm / 10;
			if (vp10 <= vm10)
				break;
			uint64_t vr10 = vr / 10;
			vm_trailing_zeros &= vm - 10 * vm10 == 0;
			vr_trailing_zeros &= last_removed == 0;
			last_removed = (uint8_t)(vr - 10 * vr10);
			vr = vr10;
			vp = vp10;
			vm = vm10;
			removed++;
		}
		if (vm_trailing_zeros) {
			for (;;) {
				uint64_t vm10 = vm / 10;
				if (vm - 10 * vm10 != 0)
					break;
				uint64_t vr10 = vr / 10;
				vr_trailing_zeros &= last_removed == 0;
				last_removed = (uint8_t)(vr - 10 * vr10);
				vr = vr10;
				vp /= 10;
				vm = vm10;
				removed++;
			}
		}
		/* An exact half rounds to even. */
		if (vr_trailing_zeros && last_removed == 5 && vr % 2 == 0)
			last_removed = 4;
		out = vr +
		      ((vr == vm && (!accept_bounds || !vm_trailing_zeros)) || last_removed >= 5);
	} else {
		int round_up = 0;
		uint64_t vp100 = vp / 100, vm100 = vm / 100;
		if (vp100 > vm100) {
			uint64_t vr100 = vr / 100;
			round_up = vr - 100 * vr100 >= 50;
			vr = vr100;
			vp = vp100;
			vm = vm100;
			removed += 2;
		}
		for (;;) {
			uint64_t vp10 = vp / 10, vm10 = vm / 10;
			if (vp10 <= vm10)
				break;
			uint64_t vr10 = vr / 10;
			round_up = vr - 10 * vr10 >= 5;
			vr = vr10;
			vp = vp10;
			vm = vm10;
			removed++;
		}
		out = vr + (vr == vm || round_up);
	}
	return (struct decimal){out, e10 + removed};
}

static inline int digit_count(uint64_t v)
{
	int n = 1;
	while (v >= 10000) {
		v /= 10000;
		n += 4;
	}
	if (v >= 10)
		n++;
	if (v >= 100)
		n++;
	if (v >= 1000)
		n++;
	return n;
}

/* The n decimal digits of v into out[0..n). */
static inline void put_digits(uint64_t v, int n, char *out)
{
	char *p = out + n;
	while (v >= 100) {
		uint64_t q = v / 100;
		p -= 2;
		memcpy(p, DIGIT_PAIRS + 2 * (v - 100 * q), 2);
		v = q;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, DIGIT_PAIRS + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
}

/*
 * The n digits of v with a '.' after the first @point (0 < point < n) into
 * out[0..n]. Written from the end, so no digit moves (a shift after the
 * fact cost a memmove call per number).
 */
static inline void put_digits_point(uint64_t v, int n, int point, char *out)
{
	char *p = out + n + 1;
	int frac = n - point;
	for (; frac >= 2; frac -= 2) {
		uint64_t q = v / 100;
		p -= 2;
		memcpy(p, DIGIT_PAIRS + 2 * (v - 100 * q), 2);
		v = q;
	}
	if (frac == 1) {
		uint64_t q = v / 10;
		*--p = (char)('0' + (v - 10 * q));
		v = q;
	}
	*--p = '.';
	put_digits(v, point, out);
}

/* The longest text is "-1.2345678901234567e-308" (24) or "-0.00012345678901234567" (23). */
size_t pe_csv_format(double v, char *buf)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	const int negative = (int)(bits >> 63);
	const uint64_t mant = bits & ((1ull << MANT_BITS) - 1);
	const uint32_t biased = (uint32_t)(bits >> MANT_BITS) & ((1u << EXP_BITS) - 1);
	char *p = buf;

	if (biased == (1u << EXP_BITS) - 1) {
		if (mant) {
			memcpy(buf, "nan", 4);
			return 3;
		}
		memcpy(buf, negative ? "-inf" : "inf", negative ? 5 : 4);
		return negative ? 4 : 3;
	}
	if (negative)
		*p++ = '-';
	if (biased == 0 && mant == 0) {
		memcpy(p, "0", 2);
		return (size_t)(p - buf) + 1;
	}

	struct decimal d;
	if (small_int(mant, biased, &d)) {
		/* The whole number prints as itself; only its place changes. */
		for (;;) {
			uint64_t q = d.m10 / 10;
			if (d.m10 - 10 * q != 0)
				break;
			d.m10 = q;
			d.e10++;
		}
	} else {
		d = shortest(mant, biased);
	}

	const int n = digit_count(d.m10);
	const int sci = d.e10 + n - 1;
	if (sci >= 17 || sci < -4) {
		/* d.ddde+XX */
		put_digits(d.m10, n, p + 1);
		p[0] = p[1];
		if (n > 1) {
			p[1] = '.';
			p += n + 1;
		} else {
			p += 1;
		}
		*p++ = 'e';
		*p++ = sci < 0 ? '-' : '+';
		int e = sci < 0 ? -sci : sci;
		if (e >= 100) {
			*p++ = (char)('0' + e / 100);
			e %= 100;
		}
		memcpy(p, DIGIT_PAIRS + 2 * e, 2);
		p += 2;
	} else if (d.e10 >= 0) {
		/* A whole number: the digits, then zeros. */
		put_digits(d.m10, n, p);
		p += n;
		memset(p, '0', (size_t)d.e10);
		p += d.e10;
	} else if (sci >= 0) {
		/* ddd.ddd */
		put_digits_point(d.m10, n, sci + 1, p);
		p += n + 1;
	} else {
		/* 0.000ddd */
		/* A fixed-size copy (no call); the digits overwrite what is too many. */
		memcpy(p, "0.000", 5);
		p += 1 - sci;
		put_digits(d.m10, n, p);
		p += n;
	}
	*p = '\0';
	return (size_t)(p - buf);
}
