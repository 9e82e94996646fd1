/*
 * libFuzzer target: @FILE number lists of the spec grammar (long-factor=@FILE),
 * the one parser that reads a file named in a spec. The input is the file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <posenc/scheme.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path[0]) {
		strcpy(path, "/tmp/posenc-fuzz-list-XXXXXX");
		int fd = mkstemp(path);
		if (fd < 0)
			abort();
		close(fd);
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	char spec[160];
	snprintf(spec, sizeof(spec), "rope:scaling=longrope,long-factor=@%s,short-factor=@%s", path,
	         path);
	struct pe_scheme *s = NULL;
	char *err = NULL;
	enum pe_status st = pe_scheme_parse(spec, &s, &err);
	if (st == PE_OK) {
		if (!s || err)
			abort();
		/* A list that parsed holds only positive finite numbers, and no NUL cut it short.
		 */
		if (memchr(data, 0, size))
			abort();
		pe_scheme_destroy(s);
	} else {
		if (s || (st != PE_ENOMEM && !err))
			abort();
		free(err);
	}
	return 0;
}
