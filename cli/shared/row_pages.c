/*
 * Rows written in whole pages (row_pages.h). Each row keeps at most
 * KEEP_MAX bytes: the part of its last segment past a page boundary. Longer
 * ends are written at once, since the memory for every row's end would
 * otherwise grow to a page per row.
 */
/* pwritev (POSIX.1-2008 and BSD) beside C11 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "shared/row_pages.h"

/* Bytes kept per row at most: an NPY file of doubles whose rows are a
 * multiple of 512 cells long keeps 128 (the header's length mod 4096). */
#define KEEP_MAX 256

struct cli_row_pages {
	int fd;
	off_t base;
	size_t row_bytes, rows;
	size_t P;             /* the page size */
	size_t *end;          /* per row: where its kept bytes end */
	unsigned short *kept; /* per row: how many bytes it keeps */
	unsigned char *keep;  /* per row: KEEP_MAX bytes */
};

struct cli_row_pages *cli_row_pages_create(int fd, off_t base, size_t row_bytes, size_t rows)
{
	struct cli_row_pages *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	long ps = sysconf(_SC_PAGESIZE);
	*w = (struct cli_row_pages){fd,   base, row_bytes, rows, ps > 0 ? (size_t)ps : 4096,
	                            NULL, NULL, NULL};
	w->end = malloc((rows ? rows : 1) * sizeof(*w->end));
	w->kept = calloc(rows ? rows : 1, sizeof(*w->kept));
	w->keep = malloc((rows ? rows : 1) * KEEP_MAX);
	if (!w->end || !w->kept || !w->keep) {
		cli_row_pages_destroy(w);
		return NULL;
	}
	return w;
}

/* All of @iov (@n entries, changed on the way) at @at; errno kept on failure. */
static int putv(int fd, struct iovec *iov, int n, off_t at)
{
	while (n > 0) {
		ssize_t got = pwritev(fd, iov, n, at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got == 0)
				errno = EIO;
			return -1;
		}
		at += got;
		size_t left = (size_t)got;
		while (n > 0 && left >= iov->iov_len) {
			left -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + left;
			iov->iov_len -= left;
		}
	}
	return 0;
}

int cli_pwrite_all(int fd, const void *buf, size_t len, off_t at)
{
	struct iovec v = {(void *)buf, len};
	return len ? putv(fd, &v, 1, at) : 0;
}

/* Row @row's kept bytes, written as they are. */
static int write_kept(struct cli_row_pages *w, size_t row)
{
	size_t k = w->kept[row];
	if (k == 0)
		return 0;
	w->kept[row] = 0;
	return cli_pwrite_all(w->fd, w->keep + row * KEEP_MAX, k,
	                      w->base + (off_t)(row * w->row_bytes + w->end[row] - k));
}

int cli_row_pages_put(struct cli_row_pages *w, size_t row, size_t at, const void *buf, size_t len)
{
	if (len == 0)
		return 0;
	unsigned char *keep = w->keep + row * KEEP_MAX;
	size_t k = w->kept[row];
	/* kept bytes that do not end where this segment starts go out alone */
	if (k > 0 && w->end[row] != at) {
		if (write_kept(w, row) != 0)
			return -1;
		k = 0;
	}
	off_t first = w->base + (off_t)(row * w->row_bytes + at) - (off_t)k;
	off_t last = w->base + (off_t)(row * w->row_bytes + at + len);
	/* keep what lies past the last page boundary, unless the row ends here
	 * (its next bytes are the next row's) or that is too long to keep */
	size_t tail = (size_t)(last % (off_t)w->P);
	if (at + len == w->row_bytes || tail > KEEP_MAX || tail >= len ||
	    last - (off_t)tail <= first)
		tail = 0;
	struct iovec iov[2];
	int n = 0;
	if (k > 0)
		iov[n++] = (struct iovec){keep, k};
	iov[n++] = (struct iovec){(void *)buf, len - tail};
	if (putv(w->fd, iov, n, first) != 0)
		return -1;
	memcpy(keep, (const unsigned char *)buf + len - tail, tail);
	w->kept[row] = (unsigned short)tail;
	w->end[row] = at + len;
	return 0;
}

int cli_row_pages_flush(struct cli_row_pages *w)
{
	for (size_t r = 0; r < w->rows; r++)
		if (write_kept(w, r) != 0)
			return -1;
	return 0;
}

void cli_row_pages_destroy(struct cli_row_pages *w)
{
	if (!w)
		return;
	free(w->end);
	free(w->kept);
	free(w->keep);
	free(w);
}
