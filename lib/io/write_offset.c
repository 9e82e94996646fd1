/*
 * write_offset.c - rows of a matrix that depends on the offset alone
 *
 * When M[a][b] = F[|a - b|], row a is the slice [n - 1 - a, 2n - 1 - a) of
 * the mirrored array R = F[n-1], ..., F[1], F[0], F[1], ..., F[n-1]. So
 * the rows are never formed: NPY bytes go from R to the file with writev
 * (the kernel's copy into the page cache is the only pass over the
 * output, as for dd), and the CSV text of R is formatted once, each row
 * being its coordinate, a slice of that text and a newline.
 */
/* writev and IOV_MAX (POSIX, XSI), Linux's fallocate, beside C11. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <posenc/write.h>

#include "io/write_internal.h"

#ifndef IOV_MAX
#define IOV_MAX 16 /* POSIX's smallest _XOPEN_IOV_MAX */
#endif
/* iovecs per writev call. */
#define IOV_BATCH (IOV_MAX < 1023 ? IOV_MAX / 3 * 3 : 1023)
/* pe_csv_format()'s longest text plus its comma. */
#define CELL_MAX 25

struct pe_offset_rows {
	size_t n;
	double *r64;  /* R, 2n - 1 values */
	float *r32;   /* R as float32, made on first use */
	char *text;   /* ",v,v,...": the CSV text of R, made on first use */
	size_t *cell; /* cell k's text starts at text + cell[k]; cell[2n - 1] is the end */
};

static int host_is_little_endian(void)
{
	const uint16_t one = 1;
	unsigned char first;
	memcpy(&first, &one, 1);
	return first == 1;
}

enum pe_status pe_offset_rows_create(const double *F, size_t n, struct pe_offset_rows **out)
{
	*out = NULL;
	if (n == 0 || n > (SIZE_MAX / sizeof(double) + 1) / 2)
		return n == 0 ? PE_EINVAL : PE_ETOOBIG;
	struct pe_offset_rows *w = calloc(1, sizeof(*w));
	if (!w)
		return PE_ENOMEM;
	w->n = n;
	w->r64 = malloc((2 * n - 1) * sizeof(double));
	if (!w->r64) {
		free(w);
		return PE_ENOMEM;
	}
	for (size_t k = 0; k < 2 * n - 1; k++)
		w->r64[k] = F[k < n - 1 ? n - 1 - k : k - (n - 1)];
	*out = w;
	return PE_OK;
}

void pe_offset_rows_destroy(struct pe_offset_rows *w)
{
	if (!w)
		return;
	free(w->r64);
	free(w->r32);
	free(w->text);
	free(w->cell);
	free(w);
}

/*
 * Disk blocks for the next @bytes of a regular file, reserved in one call
 * before they are written: on ext4 this saves the per-page work of delayed
 * allocation, about 40% of writing a large file. Beyond the end of the
 * file (its size is unchanged until the bytes are written); a descriptor
 * or file system without it (a pipe, tmpfs) is written as it is, and a
 * full disk is reported by the write.
 */
void wr_reserve(int fd, size_t bytes)
{
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
	off_t at = lseek(fd, 0, SEEK_CUR);
	int saved = errno;
	if (at >= 0 && bytes > 0)
		(void)fallocate(fd, FALLOC_FL_KEEP_SIZE, at, (off_t)bytes);
	errno = saved;
#else
	(void)fd;
	(void)bytes;
#endif
}

/* All of iov[0..cnt) to fd, resuming after short writes; errno is kept on PE_EIO. */
static enum pe_status write_all(FILE *f, int fd, struct iovec *iov, int cnt)
{
	/* A stream without a descriptor (open_memstream: the Python package) takes the rows
	 * through stdio. */
	for (; fd < 0 && cnt > 0; iov++, cnt--)
		if (fwrite(iov->iov_base, 1, iov->iov_len, f) != iov->iov_len)
			return PE_EIO;
	while (cnt > 0) {
		ssize_t got = writev(fd, iov, cnt);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return PE_EIO;
		if (got == 0) {
			errno = EIO;
			return PE_EIO;
		}
		size_t left = (size_t)got;
		while (cnt > 0 && left >= iov->iov_len) {
			left -= iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + left;
			iov->iov_len -= left;
		}
	}
	return PE_OK;
}

static enum pe_status check_rows(const struct pe_offset_rows *w, FILE *f, size_t r0, size_t count)
{
	if (count == 0 || r0 >= w->n || count > w->n - r0)
		return PE_ERANGE;
	/* What the stream holds goes first: the rows follow it on the descriptor. */
	return fflush(f) == 0 ? PE_OK : PE_EIO;
}

enum pe_status pe_offset_rows_npy(struct pe_offset_rows *w, FILE *f, size_t r0, size_t count,
                                  enum pe_dtype dtype)
{
	enum pe_status st = check_rows(w, f, r0, count);
	if (st != PE_OK)
		return st;
	size_t n = w->n;
	if (!host_is_little_endian()) {
		/* The writer's own byte order conversion, a row at a time. */
		for (size_t a = r0; a < r0 + count && st == PE_OK; a++)
			st = pe_npy_write_data(f, w->r64 + (n - 1 - a), n, dtype);
		return st;
	}
	const char *base = (const char *)w->r64;
	size_t size = sizeof(double);
	if (dtype == PE_DTYPE_F32) {
		if (!w->r32) {
			if (!(w->r32 = malloc((2 * n - 1) * sizeof(float))))
				return PE_ENOMEM;
			for (size_t k = 0; k < 2 * n - 1; k++)
				w->r32[k] = (float)w->r64[k];
		}
		base = (const char *)w->r32;
		size = sizeof(float);
	}
	struct iovec iov[IOV_BATCH];
	int fd = fileno(f);
	wr_reserve(fd, count * n * size);
	for (size_t a = r0; a < r0 + count && st == PE_OK;) {
		int cnt = 0;
		for (; cnt < IOV_BATCH && a < r0 + count; cnt++, a++) {
			iov[cnt].iov_base = (void *)(base + (n - 1 - a) * size);
			iov[cnt].iov_len = n * size;
		}
		st = write_all(f, fd, iov, cnt);
	}
	return st;
}

static enum pe_status make_text(struct pe_offset_rows *w)
{
	size_t cells = 2 * w->n - 1;
	if (cells > SIZE_MAX / CELL_MAX - 1)
		return PE_ETOOBIG;
	w->text = malloc(cells * CELL_MAX + 8);
	w->cell = malloc((cells + 1) * sizeof(size_t));
	if (!w->text || !w->cell)
		return PE_ENOMEM;
	/* Each half mirrors the other: F's texts are formatted once. */
	char *p = w->text;
	size_t mid = w->n - 1;
	for (size_t k = 0; k < cells; k++) {
		w->cell[k] = (size_t)(p - w->text);
		*p++ = ',';
		if (k > mid) {
			size_t twin = 2 * mid - k, len = w->cell[twin + 1] - w->cell[twin];
			memcpy(p - 1, w->text + w->cell[twin], len);
			p += len - 1;
		} else {
			p += pe_csv_format(w->r64[k], p);
		}
	}
	w->cell[cells] = (size_t)(p - w->text);
	return PE_OK;
}

enum pe_status pe_offset_rows_csv(struct pe_offset_rows *w, FILE *f, size_t r0, size_t count,
                                  const struct pe_axis *rows)
{
	enum pe_status st = check_rows(w, f, r0, count);
	if (st != PE_OK)
		return st;
	if (!w->text && (st = make_text(w)) != PE_OK)
		return st;
	size_t n = w->n, batch = IOV_BATCH / 3;
	size_t label_cap = 0;
	static char newline[] = "\n";
	struct iovec iov[IOV_BATCH];
	int fd = fileno(f);
	char *labels = NULL;
	for (size_t i0 = 0; i0 < count && st == PE_OK; i0 += batch) {
		size_t end = count - i0 < batch ? count : i0 + batch, cap = 0;
		for (size_t i = i0; i < end; i++)
			cap += wr_row_cell_max(rows, i) + 1;
		if (cap > label_cap || !labels) {
			free(labels);
			label_cap = cap > label_cap ? cap : label_cap;
			if (!(labels = malloc(label_cap))) {
				st = PE_ENOMEM;
				break;
			}
		}
		char *p = labels;
		int cnt = 0;
		size_t bytes = 0;
		for (size_t i = i0; i < end; i++) {
			size_t a = r0 + i, len = wr_row_cell(rows, i, p);
			iov[cnt].iov_base = p;
			iov[cnt++].iov_len = len;
			p += len;
			iov[cnt].iov_base = w->text + w->cell[n - 1 - a];
			iov[cnt++].iov_len = w->cell[2 * n - 1 - a] - w->cell[n - 1 - a];
			iov[cnt].iov_base = newline;
			iov[cnt++].iov_len = 1;
			bytes += len + iov[cnt - 2].iov_len + 1;
		}
		wr_reserve(fd, bytes);
		st = write_all(f, fd, iov, cnt);
	}
	int saved = errno;
	free(labels);
	errno = saved;
	return st;
}
