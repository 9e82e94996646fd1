/* example.c: positions 0 and 1 of the paper's table, d = 8. */
#include <stdio.h>
#include <stdlib.h>

#include <posenc/encode.h>
#include <posenc/scheme.h>

int main(void)
{
	struct pe_scheme *s = NULL;
	struct pe_matrix *m = NULL;
	char *err = NULL;

	enum pe_status st = pe_scheme_parse("sinusoidal", &s, &err);
	if (st != PE_OK) {
		fprintf(stderr, "scheme: %s\n", err ? err : pe_status_str(st));
		free(err);
		return 1;
	}
	/* 2 positions from 0, 8 dimensions, the table itself (no RoPE view). */
	st = pe_encode(s, 8, 0, 2, PE_VIEW_DEFAULT, &m);
	if (st != PE_OK) {
		fprintf(stderr, "encode: %s\n", pe_status_str(st));
		pe_scheme_destroy(s);
		return 1;
	}
	/* Row 1 is position 1: sin(1), cos(1), sin(1/10000^(2/8)), ... */
	const double *row = pe_matrix_row(m, 1);
	printf("%.17g %.17g %.17g\n", row[0], row[1], row[2]);

	pe_matrix_destroy(m);
	pe_scheme_destroy(s);
	return 0;
}
