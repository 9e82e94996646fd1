/*
 * The matrix of a large learned or file table, in the memory of a few
 * panels and with half the products of filling every row (see
 * npy_panels.h). NPY cells have a fixed size, so a cell can be written
 * where it belongs as soon as it is known: a panel of rows [r0, r0 + S)
 * carries the upper triangle's cells of its rows, and its columns c >= r0 +
 * S are rows c's cells [r0, r0 + S) (the matrix is symmetric), written now
 * as one segment each. The bytes are those of pe_npy_write() of the whole
 * matrix: the cells come from the same products.
 */
/* fallocate (Linux) and pwrite beside C11 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/npy_panels.h"
#include "shared/progress.h"

/* Bytes of a panel: S rows of up to n doubles. */
#define PANEL_BYTES ((size_t)32 << 20)
/* Rows of a panel at least: the mirrored columns go out as segments of S
 * cells, and below 4 KiB (512 doubles) the kernel's cost per byte grows
 * (more system calls, each page written in more pieces): at n = 16384 a
 * 32 MiB panel of 256 rows cost 4.8 s of system time where 512 rows cost
 * about 4x n = 8192's, the same per byte. */
#define PANEL_MIN_ROWS 512

/* Rows of a panel for an n x n matrix: a multiple of PE_PAIRWISE_PANEL. */
static size_t panel_rows(size_t n)
{
	size_t S = PANEL_BYTES / sizeof(double) / n / PE_PAIRWISE_PANEL * PE_PAIRWISE_PANEL;
	return S < PANEL_MIN_ROWS ? PANEL_MIN_ROWS : S;
}
/* Columns turned into segments at a time (a tile read row by row). */
#define TILE_COLS 64

int npy_panels_host_ok(void)
{
	const uint16_t one = 1;
	unsigned char first;
	memcpy(&first, &one, 1);
	return first == 1 && sizeof(float) == 4 && sizeof(double) == 8;
}

/* All of buf at @at; errno kept on failure. */
static int put(int fd, const void *buf, size_t len, off_t at)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t got = pwrite(fd, p, len, at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got == 0)
				errno = EIO;
			return -1;
		}
		p += got;
		len -= (size_t)got;
		at += got;
	}
	return 0;
}

/*
 * tile[k * rows + a] = src[a * ld + k] for a < rows, k < cols: in blocks of
 * 8 x 8, so that each cache line of the tile is written whole at once (the
 * tile's columns are rows * 8 bytes apart, often a multiple of 4 KiB, which
 * would map them all to one cache set).
 */
static void transpose(const double *src, size_t ld, size_t rows, size_t cols, double *tile)
{
	for (size_t a0 = 0; a0 < rows; a0 += 8) {
		size_t na = rows - a0 < 8 ? rows - a0 : 8;
		for (size_t k0 = 0; k0 < cols; k0 += 8) {
			size_t nk = cols - k0 < 8 ? cols - k0 : 8;
			for (size_t k = k0; k < k0 + nk; k++)
				for (size_t a = a0; a < a0 + na; a++)
					tile[k * rows + a] = src[a * ld + k];
		}
	}
}

/* @count cells as the file's bytes: doubles as they are, or rounded to float32. */
static const void *cells(const double *x, size_t count, enum pe_dtype dtype, float *f32)
{
	if (dtype != PE_DTYPE_F32)
		return x;
	for (size_t i = 0; i < count; i++)
		f32[i] = (float)x[i];
	return f32;
}

enum pe_status npy_panels_write(struct cli_file *file, struct pe_pairwise_rows *src, size_t n,
                                enum pe_dtype dtype, const struct cli_common *o,
                                int *compute_failed)
{
	*compute_failed = 0;
	size_t es = dtype == PE_DTYPE_F32 ? 4 : 8;
	size_t S = panel_rows(n);
	size_t shape[2] = {n, n};
	enum pe_status st = pe_npy_write_header(file->f, shape, 2, dtype);
	if (st != PE_OK)
		return st;
	if (fflush(file->f) != 0)
		return PE_EIO;
	int fd = fileno(file->f);
	off_t hdr = ftello(file->f);
	if (hdr < 0)
		return PE_EIO;
	double total = (double)n * (double)n * (double)es;
#ifdef FALLOC_FL_KEEP_SIZE
	/* the disk blocks at once (ext4: less work per page); a full disk shows in the writes */
	(void)fallocate(fd, FALLOC_FL_KEEP_SIZE, hdr, (off_t)total);
#endif
	double *panel = pe_buffer_alloc(S * n * sizeof(double));
	double *tile = malloc(TILE_COLS * S * sizeof(double));
	float *f32 = malloc((n > TILE_COLS * S ? n : TILE_COLS * S) * sizeof(float));
	if (!panel || !tile || !f32) {
		pe_buffer_free(panel);
		free(tile);
		free(f32);
		*compute_failed = 1;
		return PE_ENOMEM;
	}
	char doing[300];
	snprintf(doing, sizeof(doing), "writing %s", file->name);
	struct cli_progress prog;
	cli_progress_start(&prog, o, doing, n);
	for (size_t r0 = 0; r0 < n && st == PE_OK; r0 += S) {
		cli_progress_update(&prog, r0);
		size_t count = n - r0 < S ? n - r0 : S, ld = n - r0;
		st = pe_pairwise_rows_upper(src, r0, count, panel, ld);
		if (st != PE_OK) {
			*compute_failed = 1;
			break;
		}
		/* the rows from column r0 on */
		for (size_t a = 0; a < count && st == PE_OK; a++) {
			off_t at = hdr + (off_t)(((r0 + a) * n + r0) * es);
			if (put(fd, cells(panel + a * ld, ld, dtype, f32), ld * es, at) != 0)
				st = PE_EIO;
		}
		/* the columns past the rows, as segments of the later rows */
		for (size_t c0 = count; c0 < ld && st == PE_OK; c0 += TILE_COLS) {
			size_t nc = ld - c0 < TILE_COLS ? ld - c0 : TILE_COLS;
			transpose(panel + c0, ld, count, nc, tile);
			const void *b = cells(tile, nc * count, dtype, f32);
			for (size_t k = 0; k < nc && st == PE_OK; k++) {
				off_t at = hdr + (off_t)(((r0 + c0 + k) * n + r0) * es);
				if (put(fd, (const char *)b + k * count * es, count * es, at) != 0)
					st = PE_EIO;
			}
		}
	}
	cli_progress_end(&prog);
	int e = errno;
	pe_buffer_free(panel);
	free(tile);
	free(f32);
	/* the stream's position past the data, for whatever closes it */
	if (st == PE_OK && fseeko(file->f, hdr + (off_t)total, SEEK_SET) != 0)
		st = PE_EIO;
	errno = e;
	return st;
}

/*
 * In row order (text, pipes): the cells left of a panel's rows are earlier
 * panels' columns, so those columns go to a scratch file as they come (the
 * lower triangle, row-major: the page cache holds it, not this process)
 * and are read back when their row is written.
 */
/* An unnamed file in $TMPDIR (or /tmp): tmpfile() would not look at TMPDIR. */
FILE *npy_panels_scratch_open(void)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	size_t len = strlen(dir) + sizeof("/posenc-scratch-XXXXXX");
	char *path = malloc(len);
	if (!path)
		return NULL;
	snprintf(path, len, "%s/posenc-scratch-XXXXXX", dir);
	int fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	free(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w+b") : NULL;
	if (!f && fd >= 0)
		close(fd);
	return f;
}

enum pe_status panels_write_ordered(struct cli_file *file, struct pe_pairwise_rows *src,
                                    const struct pe_axis *first, size_t n, int csv,
                                    enum pe_dtype dtype, const struct cli_common *o,
                                    int *compute_failed)
{
	*compute_failed = 0;
	size_t S = panel_rows(n);
	FILE *scratch = npy_panels_scratch_open();
	if (!scratch) {
		*compute_failed = 1;
		return PE_EIO;
	}
	int sfd = fileno(scratch);
	struct pe_matrix *block = pe_matrix_create(S, n);
	double *panel = pe_buffer_alloc(S * n * sizeof(double));
	double *tile = malloc(TILE_COLS * S * sizeof(double));
	enum pe_status st = block && panel && tile ? PE_OK : PE_ENOMEM;
	if (st != PE_OK)
		*compute_failed = 1;
	struct pe_axis ca = {NULL, first->first, 1.0, NULL};
	size_t shape[2] = {n, n};
	if (st == PE_OK)
		st = csv ? pe_csv_write_header(file->f, n, first, &ca)
		         : pe_npy_write_header(file->f, shape, 2, dtype);
	char doing[300];
	snprintf(doing, sizeof(doing), "writing %s",
	         file->is_stdout ? "standard output" : file->name);
	struct cli_progress prog;
	cli_progress_start(&prog, o, doing, n);
	for (size_t r0 = 0; r0 < n && st == PE_OK; r0 += S) {
		cli_progress_update(&prog, r0);
		size_t count = n - r0 < S ? n - r0 : S, ld = n - r0;
		st = pe_pairwise_rows_upper(src, r0, count, panel, ld);
		if (st != PE_OK) {
			*compute_failed = 1;
			break;
		}
		/* the columns past the rows, for the later rows */
		for (size_t c0 = count; c0 < ld && st == PE_OK; c0 += TILE_COLS) {
			size_t nc = ld - c0 < TILE_COLS ? ld - c0 : TILE_COLS;
			transpose(panel + c0, ld, count, nc, tile);
			for (size_t k = 0; k < nc && st == PE_OK; k++) {
				off_t at = (off_t)(((r0 + c0 + k) * n + r0) * sizeof(double));
				if (put(sfd, tile + k * count, count * sizeof(double), at) != 0) {
					st = PE_EIO;
					*compute_failed = 1; /* the scratch file, not the output */
				}
			}
		}
		/* the rows: left of r0 from the scratch file, the rest from the panel */
		for (size_t a = 0; a < count && st == PE_OK; a++) {
			double *row = block->data + a * n;
			size_t want = r0 * sizeof(double);
			char *p = (char *)row;
			off_t at = (off_t)((r0 + a) * n * sizeof(double));
			while (want > 0) {
				ssize_t got = pread(sfd, p, want, at);
				if (got < 0 && errno == EINTR)
					continue;
				if (got <= 0) {
					st = PE_EIO;
					*compute_failed = 1;
					break;
				}
				p += got;
				want -= (size_t)got;
				at += got;
			}
			memcpy(row + r0, panel + a * ld, ld * sizeof(double));
		}
		if (st != PE_OK)
			break;
		if (csv) {
			struct pe_axis br = {first->name, first->first + (double)r0, 1.0, NULL};
			block->rows = count;
			st = pe_csv_write_rows(file->f, block, &br);
			block->rows = S;
		} else {
			st = pe_npy_write_data(file->f, block->data, count * n, dtype);
		}
	}
	cli_progress_end(&prog);
	int e = errno;
	fclose(scratch);
	pe_matrix_destroy(block);
	pe_buffer_free(panel);
	free(tile);
	errno = e;
	return st;
}
