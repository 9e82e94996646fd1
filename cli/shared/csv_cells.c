/* CSV cells of text and numbers, for tables that mix them. */
#include <math.h>
#include <string.h>

#include <posenc/write.h>

#include "shared/csv_cells.h"

void cli_csv_text(FILE *f, const char *text, int first)
{
	if (!first)
		fputc(',', f);
	int quote = strpbrk(text, ",\"\r\n") != NULL;
	if (quote)
		fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		if (*c == '"')
			fputs("\"\"", f);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(f, "\\x%02x", *c);
		else
			fputc(*c, f);
	}
	if (quote)
		fputc('"', f);
}

void cli_csv_num(FILE *f, double v, int first)
{
	if (!first)
		fputc(',', f);
	if (isnan(v))
		return;
	char buf[32];
	pe_csv_format(v, buf);
	fputs(buf, f);
}
