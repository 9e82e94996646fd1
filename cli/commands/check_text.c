/*
 * check_text.c - what the digits of a CSV dump say about its values
 *
 * The reader keeps only the doubles the text names, so the digits are read
 * back from them: a value "needs" s significant digits when s is the fewest
 * that print it and parse back to the same double. A table written with
 * "%.6f" needs at most 6 decimals everywhere; one written with "%.9g" at
 * most 9 significant digits; one written in full, 16 or 17.
 */
#include "check_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SAMPLE_MAX 16384
/* the fewest digits a table may be written with and still be checked by them */
#define MIN_DECIMALS    3
#define MIN_SIGNIFICANT 4

/* The fewest significant digits (1..17) that print @x and parse back to it; its
 * decimal exponent in @exp10. */
static int digits_needed(double x, int *exp10)
{
	char buf[40];
	for (int s = 1; s <= 17; s++) {
		snprintf(buf, sizeof(buf), "%.*e", s - 1, x);
		if (strtod(buf, NULL) == x) {
			const char *e = buf;
			while (*e && *e != 'e')
				e++;
			*exp10 = *e ? atoi(e + 1) : 0;
			return s;
		}
	}
	*exp10 = 0;
	return 17;
}

/*
 * Whether @x is a float32 number as text holds one: exactly (np.savetxt's
 * "%.18e" of a float32 array), or correctly rounded to 9 significant digits
 * or fewer ("%.9g"; Python's and numpy's repr of a float32, what pandas
 * writes, is the shortest such that names it).
 */
static int names_f32(double x)
{
	float f = (float)x;
	if ((double)f == x)
		return 1;
	if (!isfinite(f))
		return 0;
	char buf[40];
	for (int s = 1; s <= 9; s++) {
		snprintf(buf, sizeof(buf), "%.*e", s - 1, (double)f);
		if (strtod(buf, NULL) == x)
			return 1;
	}
	return 0;
}

static size_t gcd(size_t a, size_t b)
{
	while (b) {
		size_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

void cli_text_digits_read(const struct pe_matrix *m, struct cli_text_digits *out)
{
	size_t n = m->rows * m->cols;
	size_t step = n > SAMPLE_MAX ? n / SAMPLE_MAX : 1;
	/* A stride sharing a factor with the width samples only some columns: one equal to
	 * it, column 0 alone, which in an angle table holds the positions, whole numbers
	 * (a full-precision dump was read as 0 decimals and allowed 0.5). */
	while (step > 1 && gcd(step, m->cols) != 1)
		step++;
	int f32 = 1, full = 0;
	/* Any value of 7 significant digits or fewer is some float32's shortest form
	 * (float32 holds 7.2 digits), so only values that need 8 or more are evidence:
	 * a double rounded to 8 or 9 digits lands on a float32's form about one time in
	 * 6 or 60, never thousands of times in a row. */
	size_t evidence = 0;
	int dec_max = 0, sig_max = 0;
	/* per model, how many values need its largest count: the format's own
	 * count shows in every value whose last digit is not 0 */
	size_t at_dec = 0, at_sig = 0;
	for (size_t i = 0; i < n && (f32 || !full); i += step) {
		double x = m->data[i];
		if (!isfinite(x) || x == 0)
			continue;
		if (f32)
			f32 = names_f32(x);
		int e, s = digits_needed(x, &e);
		evidence += s >= 8;
		if (full)
			continue;
		if (s >= 16) {
			full = 1; /* as precise as a double: nothing to allow for */
			continue;
		}
		int dec = s - 1 - e;
		if (dec > dec_max) {
			dec_max = dec;
			at_dec = 0;
		}
		at_dec += dec == dec_max;
		if (s > sig_max) {
			sig_max = s;
			at_sig = 0;
		}
		at_sig += s == sig_max;
	}
	out->f32 = f32 && evidence > 8;
	out->decimals = full ? -1 : dec_max;
	out->significant = full ? 17 : sig_max;
	out->resolution = 0;
	out->too_few = 0;
	if (full || sig_max == 0)
		return;
	/* Whole numbers, or two decimals or three digits, are too few to check a table by
	 * (an allowance of 0.5 would take a row of 1s for any cos table): such a dump is
	 * judged against the exact values as it is. */
	if (at_dec >= at_sig) {
		/* fixed decimals: half a unit of the last, whatever the value */
		out->significant = 0;
		out->resolution = dec_max >= MIN_DECIMALS ? 0.5 * pow(10, -dec_max) : 0;
		out->too_few = dec_max < MIN_DECIMALS;
		return;
	}
	out->decimals = -1;
	if (sig_max < MIN_SIGNIFICANT) {
		out->too_few = 1;
		return;
	}
	/* significant digits: half a unit of the last, in its value's decade, over
	 * max(1, |value|) as the verdict measures: at most 0.5e(1 - S) for values from
	 * 1 up, else largest for the largest value below 1 */
	double below = 0;
	int above = 0;
	for (size_t i = 0; i < n; i++) {
		double x = fabs(m->data[i]);
		if (!isfinite(x))
			continue;
		if (x >= 1)
			above = 1;
		else if (x > below)
			below = x;
	}
	double worst = above ? 0.5 * pow(10, 1 - sig_max) : 0;
	if (below > 0)
		worst = fmax(worst, 0.5 * pow(10, floor(log10(below)) - sig_max + 1));
	out->resolution = worst;
}

void cli_text_digits_to_f32(struct pe_matrix *m)
{
	size_t n = m->rows * m->cols;
	for (size_t i = 0; i < n; i++)
		if (isfinite(m->data[i]))
			m->data[i] = (double)(float)m->data[i];
}
