/*
 * check_text.h - what the digits of a CSV dump say about its values
 *
 * A dump read from text has no dtype: its numbers carry their precision in
 * their digits. np.savetxt writes float32 numbers exactly ("%.18e"), pandas
 * and Python's str() write them shortest ("0.84147096"), and a fixed format
 * ("%.6f") rounds every value to its last printed digit. Judging such a dump
 * against exact values at 1e-9 would call a correct float32 port, or a
 * correct table written with six decimals, wrong.
 */
#ifndef POSENC_CLI_CHECK_TEXT_H
#define POSENC_CLI_CHECK_TEXT_H

#include <posenc/matrix.h>

struct cli_text_digits {
	int f32;           /* every value is a float32 number, written exactly or shortest */
	int decimals;      /* the decimals the values need at most (fixed notation) */
	int significant;   /* the significant digits they need at most */
	double resolution; /* what writing them this way may have cost: half a unit of the last
	                      digit, in |error| / max(1, |value|); 0 when as precise as doubles,
	                      and when too few to check by (under 3 decimals or 4 digits) */
	int too_few;       /* 1: written with under 3 decimals or 4 significant digits */
};

/*
 * cli_text_digits_read() - the precision of a CSV dump's numbers, from a sample
 * of up to 16384 of its values spread over the table
 *
 * @m:   the values as read (finite ones are looked at; NaN and inf skipped).
 * @out: filled in. f32 is set only when more than 8 sampled values need 8
 *       significant digits or more (any shorter number is some float32's
 *       shortest form, and says nothing about its type).
 */
void cli_text_digits_read(const struct pe_matrix *m, struct cli_text_digits *out);

/*
 * cli_text_digits_to_f32() - replace every finite value by the float32 number
 * it names (what a float32 dump written as text holds), in place.
 */
void cli_text_digits_to_f32(struct pe_matrix *m);

#endif
