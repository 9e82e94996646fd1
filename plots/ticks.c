#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/ticks.h>

#define MINUS "\xe2\x88\x92" /* U+2212, as matplotlib's axes.unicode_minus */
#define TIMES "\xc3\x97"     /* U+00D7 */

/* Ticks are on a tick when they are within this fraction of a step of one. */
#define TICK_EPS 1e-9

static size_t clamp_max(size_t max_ticks)
{
	if (max_ticks < 2)
		return 2;
	return max_ticks > PE_TICKS_MAX ? PE_TICKS_MAX : max_ticks;
}

/* m * 10^k computed so that i * step is the double nearest the decimal value. */
static double tick_value(double i, int m, int k)
{
	if (k < 0)
		return i * m / pow(10.0, -k);
	return i * m * pow(10.0, k);
}

bool pe_ticks_ends(double lo, double hi, bool integer, int index, struct pe_ticks *t)
{
	static const int mult[3] = {5, 2, 1};
	memset(t, 0, sizeof(*t));
	if (!isfinite(lo) || !isfinite(hi) || !(hi > lo) || index < 0 || index >= 9)
		return false;
	/* hi - lo overflows for limits near +-DBL_MAX (infinity to int is undefined): the
	 * span from its halves, as pe_ticks_linear() takes it */
	int k = (int)floor(log10(hi * 0.5 - lo * 0.5) + log10(2.0)) - index / 3;
	int m = mult[index % 3];
	if (integer && k < 0)
		return false;
	double step = tick_value(1, m, k);
	double i0 = ceil(lo / step - TICK_EPS), i1 = floor(hi / step + TICK_EPS);
	if (!(i1 > i0))
		return true;
	t->n = 2;
	t->decimals = k < 0 ? -k : 0;
	t->unit_exp = k;
	for (int e = 0; e < 2; e++) {
		double v = tick_value(e ? i1 : i0, m, k);
		t->value[e] = v == 0 ? 0 : v; /* no -0 */
	}
	t->step = t->value[1] - t->value[0];
	return true;
}

void pe_ticks_linear(double lo, double hi, size_t max_ticks, bool integer, struct pe_ticks *t)
{
	memset(t, 0, sizeof(*t));
	if (!isfinite(lo) || !isfinite(hi))
		return;
	if (lo > hi) {
		double tmp = lo;
		lo = hi;
		hi = tmp;
	}
	max_ticks = clamp_max(max_ticks);
	if (hi == lo) {
		t->n = 1;
		t->value[0] = lo;
		return;
	}
	static const int mult[3] = {1, 2, 5};
	/* hi - lo overflows for limits near +-DBL_MAX: the span from its halves. */
	double span_log = log10(hi * 0.5 - lo * 0.5) + log10(2.0);
	int k = (int)floor(span_log - log10((double)max_ticks)) - 1;
	if (integer && k < 0)
		k = 0;
	int prev_m = 0, prev_k = 0;
	double prev_i0 = 0, prev_count = 0;
	for (;; k++) {
		for (int j = 0; j < 3; j++) {
			double step = tick_value(1, mult[j], k);
			double i0 = ceil(lo / step - TICK_EPS);
			double i1 = floor(hi / step + TICK_EPS);
			double count = i1 - i0 + 1;
			if (count > (double)max_ticks) {
				prev_m = mult[j], prev_k = k, prev_i0 = i0, prev_count = count;
				continue;
			}
			if (count < 2 && prev_m) {
				/*
				 * From more than max ticks straight to fewer than two:
				 * every n-th tick of the finer step instead, evenly
				 * spaced multiples of it, at least two of them.
				 */
				double every = ceil((prev_count - 1) / (double)(max_ticks - 1));
				for (double i = prev_i0; i < prev_i0 + prev_count; i += every) {
					double v = tick_value(i, prev_m, prev_k);
					t->value[t->n++] = v == 0 ? 0 : v;
				}
				t->step = tick_value(every, prev_m, prev_k);
				t->decimals = prev_k < 0 ? -prev_k : 0;
				t->unit_exp = prev_k;
				return;
			}
			for (double i = i0; i <= i1; i++) {
				double v = tick_value(i, mult[j], k);
				t->value[t->n++] = v == 0 ? 0 : v; /* no -0 */
			}
			t->step = step;
			t->decimals = k < 0 ? -k : 0;
			t->unit_exp = k;
			return;
		}
	}
}

static void add_minor(struct pe_ticks *t, double v)
{
	if (t->n_minor < sizeof(t->minor) / sizeof(t->minor[0]))
		t->minor[t->n_minor++] = v;
}

void pe_ticks_log(double lo, double hi, size_t max_ticks, struct pe_ticks *t)
{
	memset(t, 0, sizeof(*t));
	if (!(lo > 0) || !(hi > lo) || !isfinite(hi))
		return;
	max_ticks = clamp_max(max_ticks);
	int a = (int)ceil(log10(lo) - TICK_EPS);
	int b = (int)floor(log10(hi) + TICK_EPS);
	if (b - a + 1 >= 2) {
		static const int strides[] = {1, 2, 3, 4, 5, 10, 20, 50, 100};
		int s = 100;
		for (size_t j = 0; j < sizeof(strides) / sizeof(strides[0]); j++) {
			int count = (b - a) / strides[j] + 1;
			if (count <= (int)max_ticks && count >= 2) {
				s = strides[j];
				break;
			}
		}
		for (int k = a; k <= b && t->n < PE_TICKS_MAX; k += s)
			t->value[t->n++] = pow(10.0, k);
		t->log = true;
		t->step = s;
		if (s == 1) {
			for (int k = a - 1; k <= b; k++)
				for (int m = 2; m <= 9; m++) {
					double v = m * pow(10.0, k);
					if (v >= lo && v <= hi)
						add_minor(t, v);
				}
		}
		return;
	}
	/* Less than a decade: 1-2-5 multiples of powers of ten, if two fit. */
	static const int mult[3] = {1, 2, 5};
	struct pe_ticks c;
	memset(&c, 0, sizeof(c));
	for (int k = (int)floor(log10(lo)); k <= (int)ceil(log10(hi)); k++)
		for (int j = 0; j < 3; j++) {
			double v = tick_value(1, mult[j], k);
			if (v >= lo * (1 - TICK_EPS) && v <= hi * (1 + TICK_EPS) &&
			    c.n < PE_TICKS_MAX)
				c.value[c.n++] = v;
		}
	if (c.n >= 2 && c.n <= max_ticks) {
		*t = c;
		t->log = true;
		t->step = 0;
		return;
	}
	pe_ticks_linear(lo, hi, max_ticks, false, t);
}

size_t pe_format_number(double v, int decimals, char *buf, size_t size)
{
	if (size == 0)
		return 0;
	if (decimals < 0)
		decimals = 0;
	if (decimals > 17)
		decimals = 17;
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "%.*f", decimals, fabs(v));
	/* A value that rounds to zero prints as "0...", never as "−0". */
	bool zero = strspn(tmp, "0.") == strlen(tmp);
	if (v < 0 && !zero)
		snprintf(buf, size, MINUS "%s", tmp);
	else
		snprintf(buf, size, "%s", tmp);
	return strlen(buf);
}

/* "10" followed by the exponent in superscript digits. */
static size_t format_power(int e, char *buf, size_t size)
{
	static const char *const sup[10] = {
	        "\xe2\x81\xb0", "\xc2\xb9",     "\xc2\xb2",     "\xc2\xb3",     "\xe2\x81\xb4",
	        "\xe2\x81\xb5", "\xe2\x81\xb6", "\xe2\x81\xb7", "\xe2\x81\xb8", "\xe2\x81\xb9",
	};
	char digits[16];
	snprintf(digits, sizeof(digits), "%d", e < 0 ? -e : e);
	size_t len = (size_t)snprintf(buf, size, "10%s", e < 0 ? "\xe2\x81\xbb" : "");
	for (const char *d = digits; *d && len < size; d++)
		len += (size_t)snprintf(buf + len, size - len, "%s", sup[*d - '0']);
	return len < size ? len : size - 1;
}

/* Digits after the point that show v (a 1-2-5 multiple of a power of ten) exactly. */
static int decimals_of(double v)
{
	int e = (int)floor(log10(fabs(v)) + TICK_EPS);
	return e < 0 ? -e : 0;
}

size_t pe_tick_label(const struct pe_ticks *t, size_t i, char *buf, size_t size)
{
	if (size == 0)
		return 0;
	buf[0] = '\0';
	if (i >= t->n)
		return 0;
	double v = t->value[i];
	if (t->log && t->step > 0)
		return format_power((int)lround(log10(v)), buf, size);
	if (t->log)
		return pe_format_number(v, decimals_of(v), buf, size);

	double big = 0;
	for (size_t j = 0; j < t->n; j++)
		big = fmax(big, fabs(t->value[j]));
	/* One exponent for the whole axis, so the labels line up. */
	int e = big > 0 ? (int)floor(log10(big) + TICK_EPS) : 0;
	int dec = e - t->unit_exp;
	if (dec < 0)
		dec = 0;
	/*
	 * Plain decimals unless "m×10ⁿ" is shorter: 0.2×10¹² beats
	 * 200000000000, but positions 10000000..10000060 read better plain
	 * than as 1.000006×10⁷.
	 */
	char plain[64];
	pe_format_number(big, t->decimals, plain, sizeof(plain));
	int plain_len = (int)strlen(plain);
	int sci_len = 1 + (dec > 0 ? dec + 1 : 0) + 4 + (e < 0) + (abs(e) >= 10); /* "m.dd×10ⁿ" */
	if (sci_len >= plain_len || v == 0)
		return pe_format_number(v, t->decimals, buf, size);
	size_t len = pe_format_number(v / pow(10.0, e), dec, buf, size);
	if (len + 1 < size)
		len += (size_t)snprintf(buf + len, size - len, TIMES);
	if (len + 1 < size)
		len += format_power(e, buf + len, size - len);
	return strlen(buf);
}
