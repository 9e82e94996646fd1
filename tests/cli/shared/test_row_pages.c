/*
 * Rows written in whole pages (cli/shared/row_pages.c). The file must end
 * up holding exactly the bytes put, whatever the order of the segments
 * (checked against an image built with memcpy); a segment's short end past
 * a page boundary must wait for the row's next segment, and reach the file
 * with it or at the flush; errors of the descriptor come back as -1 with
 * errno.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "shared/row_pages.h"

/* An unnamed file in $TMPDIR or /tmp, open for reading and writing. */
static int scratch(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	snprintf(path, sizeof(path), "%s/row-pages-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	return fd;
}

/* The file's bytes [0, len), zero where nothing was written. */
static unsigned char *contents(int fd, size_t len)
{
	unsigned char *b = calloc(len ? len : 1, 1);
	assert_non_null(b);
	ssize_t got = pread(fd, b, len, 0);
	assert_true(got >= 0);
	return b;
}

static uint64_t rng = 88172645463325252u;
static size_t below(size_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (size_t)(rng % n);
}

struct seg {
	size_t row, at, len;
};

/*
 * Rows of @row_bytes from @base, cut into segments of 1 to @max bytes, put
 * in an order where each row's segments come left to right (@ordered) or
 * shuffled; the file must equal the image after the flush.
 */
static void layout(off_t base, size_t row_bytes, size_t rows, size_t max, int ordered)
{
	int fd = scratch();
	size_t total = (size_t)base + row_bytes * rows;
	unsigned char *image = calloc(total, 1), *data = malloc(total);
	struct seg *s = malloc(total * sizeof(*s));
	assert_true(image && data && s);
	for (size_t i = 0; i < total; i++)
		data[i] = (unsigned char)(1 + below(255));
	size_t ns = 0;
	for (size_t r = 0; r < rows; r++)
		for (size_t at = 0; at < row_bytes;) {
			size_t len = 1 + below(max);
			len = len < row_bytes - at ? len : row_bytes - at;
			s[ns++] = (struct seg){r, at, len};
			at += len;
		}
	/* shuffled; then, if ordered, each row's segments put back in order
	 * within the places its segments took */
	for (size_t i = ns; i > 1; i--) {
		size_t j = below(i);
		struct seg t = s[i - 1];
		s[i - 1] = s[j];
		s[j] = t;
	}
	if (ordered) {
		size_t *next = calloc(rows, sizeof(size_t));
		struct seg *byrow = malloc(ns * sizeof(*byrow));
		size_t *first = calloc(rows + 1, sizeof(size_t));
		assert_true(next && byrow && first);
		for (size_t i = 0; i < ns; i++)
			first[s[i].row + 1]++;
		for (size_t r = 0; r < rows; r++)
			first[r + 1] += first[r];
		for (size_t r = 0, k = 0; r < rows; r++)
			for (size_t at = 0; at < row_bytes; k++) {
				/* the row's segments in order: find the one at @at */
				size_t i = 0;
				while (!(s[i].row == r && s[i].at == at))
					i++;
				byrow[k] = s[i];
				at += s[i].len;
			}
		for (size_t i = 0; i < ns; i++) {
			size_t r = s[i].row;
			s[i] = byrow[first[r] + next[r]++];
		}
		free(next);
		free(byrow);
		free(first);
	}
	struct cli_row_pages *w = cli_row_pages_create(fd, base, row_bytes, rows);
	assert_non_null(w);
	for (size_t i = 0; i < ns; i++) {
		size_t off = (size_t)base + s[i].row * row_bytes + s[i].at;
		memcpy(image + off, data + off, s[i].len);
		assert_int_equal(cli_row_pages_put(w, s[i].row, s[i].at, data + off, s[i].len), 0);
	}
	assert_int_equal(cli_row_pages_flush(w), 0);
	cli_row_pages_destroy(w);
	unsigned char *got = contents(fd, total);
	assert_memory_equal(got, image, total);
	free(got);
	free(image);
	free(data);
	free(s);
	close(fd);
}

/* NPY-like rows: a 128-byte header, rows of 512 doubles and more. */
static void rows_in_order(void **state)
{
	(void)state;
	layout(128, 4096, 40, 12288, 1);
	layout(128, 3 * 4096 + 200, 25, 5000, 1);
	layout(0, 1000, 60, 700, 1);
	layout(4095, 8192 + 7, 9, 30000, 1);
}

static void rows_in_any_order(void **state)
{
	(void)state;
	layout(128, 4096, 40, 12288, 0);
	layout(128, 3 * 4096 + 200, 25, 5000, 0);
	layout(7, 513, 80, 300, 0);
	layout(128, 2 * 4096, 8, 64, 0);
}

/*
 * What waits and when it arrives: rows of 3 pages after a 128-byte header
 * (so every page of a row starts 128 bytes before a multiple of the page
 * size, in the previous page), filled by segments of 1536 cells of 8 bytes.
 */
static void short_ends_wait_for_the_next_segment(void **state)
{
	(void)state;
	long ps = sysconf(_SC_PAGESIZE);
	size_t P = ps > 0 ? (size_t)ps : 4096, L = 6 * P;
	off_t base = 128;
	int fd = scratch();
	unsigned char *a = malloc(L);
	assert_non_null(a);
	for (size_t i = 0; i < L; i++)
		a[i] = (unsigned char)(1 + i % 251);
	struct cli_row_pages *w = cli_row_pages_create(fd, base, L, 2);
	assert_non_null(w);
	/* row 1's first segment: [base + L, base + L + 3P); its last 128
	 * bytes lie past the page boundary at L + 3P and wait */
	assert_int_equal(cli_row_pages_put(w, 1, 0, a, 3 * P), 0);
	unsigned char *f = contents(fd, base + 2 * L);
	assert_memory_equal(f + base + L, a, 3 * P - 128);
	for (size_t i = 3 * P - 128; i < 3 * P; i++)
		assert_int_equal(f[base + L + i], 0);
	free(f);
	/* the next segment starts where the kept bytes end: they go with it;
	 * it ends the row, so nothing of it waits */
	assert_int_equal(cli_row_pages_put(w, 1, 3 * P, a + 3 * P, 3 * P), 0);
	f = contents(fd, base + 2 * L);
	assert_memory_equal(f + base + L, a, L);
	free(f);
	/* a segment that does not start where the kept bytes end: those are
	 * written alone first */
	assert_int_equal(cli_row_pages_put(w, 0, 0, a, P), 0);
	f = contents(fd, base + 2 * L);
	assert_int_equal(f[base + P - 1], 0); /* the last 128 bytes wait */
	free(f);
	assert_int_equal(cli_row_pages_put(w, 0, 2 * P, a + 2 * P, P), 0);
	f = contents(fd, base + 2 * L);
	assert_memory_equal(f + base, a, P); /* written alone */
	for (size_t i = 3 * P - 128; i < 3 * P; i++)
		assert_int_equal(f[base + i], 0); /* the new segment's end waits */
	free(f);
	/* the flush writes what waits */
	assert_int_equal(cli_row_pages_flush(w), 0);
	f = contents(fd, base + 2 * L);
	assert_memory_equal(f + base, a, P);
	assert_memory_equal(f + base + 2 * P, a + 2 * P, P);
	free(f);
	cli_row_pages_destroy(w);
	free(a);
	close(fd);
}

/* A descriptor that cannot be written: -1 and its errno, from the put
 * that writes and from the flush of what waits. */
static void write_errors(void **state)
{
	(void)state;
	int fd = scratch();
	int ro = open("/dev/null", O_RDONLY);
	assert_true(ro >= 0);
	unsigned char b[8192] = {1};
	struct cli_row_pages *w = cli_row_pages_create(ro, 128, 3 * 8192, 2);
	assert_non_null(w);
	errno = 0;
	assert_int_equal(cli_row_pages_put(w, 0, 0, b, sizeof(b)), -1);
	assert_int_equal(errno, EBADF);
	cli_row_pages_destroy(w);
	/* only kept bytes left: the put succeeds (nothing reaches the file
	 * yet), the flush fails */
	w = cli_row_pages_create(ro, 0, 3 * 8192, 1);
	assert_non_null(w);
	long ps = sysconf(_SC_PAGESIZE);
	size_t P = ps > 0 ? (size_t)ps : 4096;
	assert_int_equal(cli_row_pages_put(w, 0, P - 100, b, 200), -1); /* crosses: writes */
	cli_row_pages_destroy(w);
	w = cli_row_pages_create(fd, 0, 3 * 8192, 1);
	assert_non_null(w);
	assert_int_equal(cli_row_pages_put(w, 0, 0, b, P + 100), 0);
	cli_row_pages_destroy(w); /* dropped, not written */
	unsigned char *f = contents(fd, P + 100);
	for (size_t i = P; i < P + 100; i++)
		assert_int_equal(f[i], 0);
	free(f);
	/* the pending bytes, then the descriptor closed under it */
	int fd2 = scratch();
	w = cli_row_pages_create(fd2, 0, 3 * 8192, 1);
	assert_non_null(w);
	assert_int_equal(cli_row_pages_put(w, 0, 0, b, P + 100), 0);
	close(fd2);
	errno = 0;
	assert_int_equal(cli_row_pages_flush(w), -1);
	assert_int_equal(errno, EBADF);
	cli_row_pages_destroy(w);
	close(ro);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(rows_in_order),
	        cmocka_unit_test(rows_in_any_order),
	        cmocka_unit_test(short_ends_wait_for_the_next_segment),
	        cmocka_unit_test(write_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
