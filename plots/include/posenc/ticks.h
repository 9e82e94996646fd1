/*
 * posenc/ticks.h - choosing and labelling axis ticks
 *
 * Linear axes get "nice" ticks: whole multiples of 1, 2 or 5 x 10^k, the
 * smallest such step that gives at most max_ticks ticks inside the range
 * (when that step leaves fewer than two, every n-th tick of the finer step).
 * Log axes get ticks at whole decades (every 2nd, 3rd, ... decade when there
 * are many), or at 1-2-5 multiples when the range spans less than a decade.
 * The figure engine decides max_ticks from the space the labels need.
 */
#ifndef POSENC_TICKS_H
#define POSENC_TICKS_H

#include <posenc/status.h>

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PE_TICKS_MAX 64

struct pe_ticks {
	size_t n;
	double value[PE_TICKS_MAX];
	double step; /* linear: the tick spacing; log: decades between ticks (0: 1-2-5) */
	bool log;
	int decimals; /* digits after the point that tell every linear tick apart */
	int unit_exp; /* linear: ticks are whole multiples of 10^unit_exp */
	size_t n_minor;
	double minor[4 * PE_TICKS_MAX]; /* unlabelled ticks (log axes: 2..9 x 10^k) */
};

/*
 * pe_ticks_linear() - nice ticks inside [lo, hi]
 *
 * @max_ticks: at most this many ticks (clamped to 2..PE_TICKS_MAX).
 * @integer: only whole-number steps (positions, dimensions).
 *
 * Ticks are exact multiples of the step (k * step), so 0 is a tick whenever
 * the range contains it. A range with lo == hi gives the single tick lo;
 * non-finite bounds give no ticks.
 */
PE_API void pe_ticks_linear(double lo, double hi, size_t max_ticks, bool integer,
                            struct pe_ticks *t);

/*
 * pe_ticks_ends() - the two outermost ticks of one 1-2-5 step inside [lo, hi]
 *
 * For an axis with room for two labels far apart but not for every tick of
 * pe_ticks_linear(). @index 0 is the largest step, 5 x 10^k with 10^k the
 * range's decade, then 2 x 10^k, 1 x 10^k, 5 x 10^(k-1), ... down to steps
 * of a hundredth of the range (whole steps only with @integer).
 *
 * @return false once @index is past the last step; else true, with @t the two
 * ticks (t->n == 2), or t->n == 0 when no two multiples of that step are in
 * the range.
 */
PE_API bool pe_ticks_ends(double lo, double hi, bool integer, int index, struct pe_ticks *t);

/*
 * pe_ticks_log() - ticks for a logarithmic axis over [lo, hi], 0 < lo < hi
 *
 * Falls back to pe_ticks_linear() when fewer than two 1-2-5 ticks fit in the
 * range. No ticks for a range that is not positive.
 */
PE_API void pe_ticks_log(double lo, double hi, size_t max_ticks, struct pe_ticks *t);

/*
 * pe_tick_label() - the text of tick i: "0.25", "−3" (U+2212), "10⁻³" on
 * log axes, and "0.2×10¹²" (one exponent per axis) where that is shorter
 * than the plain decimal
 *
 * @return the length written to @buf (always NUL-terminated; a label needs
 * at most 32 bytes).
 */
PE_API size_t pe_tick_label(const struct pe_ticks *t, size_t i, char *buf, size_t size);

/*
 * pe_format_number() - a number with @decimals digits after the point and a
 * U+2212 minus sign; "-0" is written as "0"
 *
 * @return the length written to @buf (always NUL-terminated).
 */
PE_API size_t pe_format_number(double v, int decimals, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
