/* libFuzzer target: the CSV reader and inspector, and the same text fed in pieces. */
#include <string.h>

#include "fuzz_common.h"
#include "io/read_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The file reader feeds the parser chunk by chunk; cut anywhere (here in
 * pieces of 1..61 bytes), the text must give what the whole buffer gives:
 * the same status, message and values. The parser holds everything until
 * it has the text's first 4096 bytes, so the input follows a 4096-byte
 * comment line for the cuts to fall inside it.
 */
#define LEAD 4096

static void fuzz_pieces(const uint8_t *data, size_t size)
{
	size_t total = LEAD + size;
	char *text = malloc(total), *buf = malloc(total);
	if (!text || !buf)
		abort();
	memset(text, 'x', LEAD);
	text[0] = '#';
	text[LEAD - 1] = '\n';
	memcpy(text + LEAD, data, size);
	struct pe_matrix *whole = NULL, *cut = NULL;
	char *e1 = NULL, *e2 = NULL;
	enum pe_status s1 = pe_csv_read(text, total, NULL, &whole, &e1);
	struct rd_csv *c;
	enum pe_status s2 = rd_csv_begin(NULL, 0, &c, &e2);
	if (s2 != PE_OK)
		abort();
	size_t piece = size ? 1 + data[size - 1] % 61 : 1, have = 0, off = 0, used;
	do {
		size_t n = piece < total - off ? piece : total - off;
		memcpy(buf + have, text + off, n);
		off += n;
		have += n;
		s2 = rd_csv_feed(c, buf, have, off == total, &used, &e2);
		if (s2 == PE_OK) {
			memmove(buf, buf + used, have - used);
			have -= used;
		}
	} while (s2 == PE_OK && off < total);
	if (s2 == PE_OK)
		s2 = rd_csv_finish(c, &cut, &e2);
	else
		rd_csv_abort(c);
	if (s1 != s2 || (s1 != PE_OK && s1 != PE_ENOMEM && (!e1 || !e2 || strcmp(e1, e2) != 0)))
		abort();
	if (s1 == PE_OK &&
	    (whole->rows != cut->rows || whole->cols != cut->cols ||
	     memcmp(whole->data, cut->data, whole->rows * whole->cols * sizeof(double)) != 0))
		abort();
	pe_matrix_destroy(whole);
	pe_matrix_destroy(cut);
	free(e1);
	free(e2);
	free(text);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_read(pe_csv_read, data, size, NULL);
	fuzz_inspect(data, size, "x.csv");
	fuzz_pieces(data, size);
	return 0;
}
