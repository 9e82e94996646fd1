/*
 * The matrix of a large learned or file table, in the memory of a few
 * panels and with half the products of filling every row (see
 * npy_panels.h). NPY cells have a fixed size, so a cell can be written
 * where it belongs as soon as it is known: a panel of rows [r0, r0 + S)
 * carries the upper triangle's cells of its rows, and its columns c >= r0 +
 * S are rows c's cells [r0, r0 + S) (the matrix is symmetric), written now
 * as one segment each. The bytes are those of the row-order writer below
 * (its products are cut differently, but only where that keeps every
 * cell's bits: pe_pairwise_rows_upper_cols()), and those of pe_npy_write()
 * of the whole matrix up to a last bit where a multi-threaded BLAS rounds
 * a product of another shape differently.
 */
/* fallocate (Linux) and pread beside C11 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/npy_panels.h"
#include "shared/row_pages.h"
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

/* Rows and columns of a piece in the overlapped writer: 18 MiB, two of
 * them, and segments of 12 KiB both ways (3x fewer system calls than the
 * 4 KiB mirrored segments of 512-row panels). The 128-byte header puts
 * every segment 128 bytes past a page boundary; row_pages.h holds those
 * 128 bytes back for the row's next segment, so that most pages are
 * written once, whole (the 8192-row job's system time: 0.30 -> 0.275 s). */
#define PIPE_ROWS PE_PAIRWISE_PIECE
#define PIPE_COLS PE_PAIRWISE_PIECE

struct panel_out {
	struct cli_row_pages *pages;
	size_t es;
	enum pe_dtype dtype;
	double *tile;
	float *f32;
};

/* @count cells of row @row from column @col on, as the file's bytes. */
static enum pe_status put_cells(const struct panel_out *w, size_t row, size_t col, const double *x,
                                size_t count)
{
	if (count == 0)
		return PE_OK;
	const void *b = cells(x, count, w->dtype, w->f32);
	return cli_row_pages_put(w->pages, row, col * w->es, b, count * w->es) == 0 ? PE_OK
	                                                                            : PE_EIO;
}

/*
 * A piece of the upper triangle (pe_pairwise_rows_upper_cols_above()):
 * rows [r0, r0 + count), columns [c0, c0 + nc), leading dimension @ld, to
 * its places in the file: its rows' segments, and its columns right of the
 * rows, mirrored, as segments of the later rows. In the block holding the
 * diagonal, row a's cells left of it are column a's above it: the block is
 * transposed 64 columns at a time, as the columns right of it are, instead
 * of a mirror pass over it in the worker (the cells below the diagonal are
 * not set there: they are copied into the tile, never written out).
 */
static enum pe_status write_piece(const struct panel_out *w, size_t r0, size_t count, size_t c0,
                                  size_t nc, const double *piece, size_t ld)
{
	size_t es = w->es;
	enum pe_status st = PE_OK;
	for (size_t a = 0; c0 != r0 && a < count && st == PE_OK; a++)
		st = put_cells(w, r0 + a, c0, piece + a * ld, nc);
	for (size_t k0 = 0; c0 == r0 && k0 < count && st == PE_OK; k0 += TILE_COLS) {
		size_t nk = count - k0 < TILE_COLS ? count - k0 : TILE_COLS, rows = k0 + nk;
		transpose(piece + k0, ld, rows, nk, w->tile);
		for (size_t k = 0; k < nk && st == PE_OK; k++) {
			size_t a = k0 + k;
			st = put_cells(w, r0 + a, r0, w->tile + k * rows, a);
			if (st == PE_OK)
				st = put_cells(w, r0 + a, r0 + a, piece + a * ld + a, nc - a);
		}
	}
	for (size_t k0 = c0 == r0 ? count : 0; k0 < nc && st == PE_OK; k0 += TILE_COLS) {
		size_t nk = nc - k0 < TILE_COLS ? nc - k0 : TILE_COLS;
		transpose(piece + k0, ld, count, nk, w->tile);
		const void *b = cells(w->tile, nk * count, w->dtype, w->f32);
		for (size_t k = 0; k < nk; k++)
			if (cli_row_pages_put(w->pages, c0 + k0 + k, r0 * es,
			                      (const char *)b + k * count * es, count * es) != 0)
				return PE_EIO;
	}
	return st;
}

/* The overlapped writer's pieces in order: row panels of S rows, each in
 * pieces of up to C >= S columns from its diagonal on. */
struct piece {
	size_t r0, count, c0, nc;
};

static int piece_next(size_t n, size_t S, size_t C, struct piece *p, int first)
{
	if (first) {
		p->r0 = p->c0 = 0;
	} else if ((p->c0 += p->nc) >= n) {
		p->r0 += S;
		p->c0 = p->r0;
	}
	if (p->r0 >= n)
		return 0;
	p->count = n - p->r0 < S ? n - p->r0 : S;
	p->nc = n - p->c0 < C ? n - p->c0 : C;
	return 1;
}

/*
 * Products and writes overlapped: one or two threads compute pieces, each
 * on one BLAS thread (pe_pairwise_rows_serial(): OpenBLAS's threads would
 * otherwise spin between the calls, CPU time that computes nothing), into
 * whichever of the PIPE_SLOTS buffers is free, while the caller writes the
 * pieces they finish. A finished piece waits for the writer in its buffer,
 * so the pieces in memory stay at PIPE_SLOTS. The CPU time is that of the
 * products on one thread plus the writes; with two workers on two cores the
 * wall time is about half their sum, with one about the longer of the two.
 * Two workers only where the BLAS allows two calls at once
 * (pe_pairwise_rows_concurrent()). Every piece is the same product
 * whichever thread makes it, so the bits do not depend on the order.
 */
#define PIPE_SLOTS 2

enum slot_state { SLOT_FREE, SLOT_BUSY, SLOT_READY };

struct pipe {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct pe_pairwise_rows *src;
	size_t n;
	double *buf[PIPE_SLOTS];
	enum slot_state state[PIPE_SLOTS];
	struct piece piece[PIPE_SLOTS]; /* the piece a slot holds */
	enum pe_status st[PIPE_SLOTS];  /* its status */
	struct piece next;              /* the next piece to compute */
	int more;                       /* next is one */
	int stop;                       /* the writer gave up */
};

/* A free slot, or -1; with the lock held. */
static int free_slot(const struct pipe *p)
{
	for (int k = 0; k < PIPE_SLOTS; k++)
		if (p->state[k] == SLOT_FREE)
			return k;
	return -1;
}

/* One worker: the next piece into a free slot, as long as there is one. */
static void *pipe_compute(void *arg)
{
	struct pipe *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		int b;
		while ((b = free_slot(p)) < 0 && !p->stop && p->more)
			pthread_cond_wait(&p->changed, &p->lock);
		if (p->stop || !p->more) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		struct piece u = p->next;
		p->more = piece_next(p->n, PIPE_ROWS, PIPE_COLS, &p->next, 0);
		p->piece[b] = u;
		p->state[b] = SLOT_BUSY;
		pthread_mutex_unlock(&p->lock);
		enum pe_status st = pe_pairwise_rows_upper_cols_above(p->src, u.r0, u.count, u.c0,
		                                                      u.nc, p->buf[b], u.nc);
		pthread_mutex_lock(&p->lock);
		p->st[b] = st;
		p->state[b] = SLOT_READY;
		pthread_cond_broadcast(&p->changed);
		pthread_mutex_unlock(&p->lock);
		if (st != PE_OK)
			return NULL;
	}
}

/* The pieces one after the other on this thread (no worker could start). */
static enum pe_status pipe_serial(struct pipe *p, const struct panel_out *w,
                                  struct cli_progress *prog, int *compute_failed)
{
	enum pe_status st = PE_OK;
	struct piece u;
	for (int first = 1; st == PE_OK && piece_next(p->n, PIPE_ROWS, PIPE_COLS, &u, first);
	     first = 0) {
		cli_progress_update(prog, u.r0);
		st = pe_pairwise_rows_upper_cols_above(p->src, u.r0, u.count, u.c0, u.nc, p->buf[0],
		                                       u.nc);
		if (st != PE_OK) {
			*compute_failed = 1;
			break;
		}
		st = write_piece(w, u.r0, u.count, u.c0, u.nc, p->buf[0], u.nc);
	}
	return st;
}

static enum pe_status pipe_run(struct pipe *p, size_t workers, const struct panel_out *w,
                               struct cli_progress *prog, int *compute_failed)
{
	pthread_t th[PIPE_SLOTS];
	size_t started = 0, total = 0, written = 0;
	struct piece u;
	for (int first = 1; piece_next(p->n, PIPE_ROWS, PIPE_COLS, &u, first); first = 0)
		total++;
	p->more = piece_next(p->n, PIPE_ROWS, PIPE_COLS, &p->next, 1);
	for (size_t k = 0; k < workers && k < PIPE_SLOTS; k++) {
		if (pthread_create(&th[started], NULL, pipe_compute, p) != 0)
			break; /* a memory limit: fewer workers */
		started++;
	}
	if (started == 0)
		return pipe_serial(p, w, prog, compute_failed);
	enum pe_status st = PE_OK;
	while (st == PE_OK && written < total) {
		pthread_mutex_lock(&p->lock);
		int b = -1;
		for (;;) {
			/* the earliest ready piece: the file fills from the top */
			for (size_t k = 0; k < PIPE_SLOTS; k++)
				if (p->state[k] == SLOT_READY &&
				    (b < 0 || p->piece[k].r0 < p->piece[b].r0 ||
				     (p->piece[k].r0 == p->piece[b].r0 &&
				      p->piece[k].c0 < p->piece[b].c0)))
					b = (int)k;
			if (b >= 0)
				break;
			pthread_cond_wait(&p->changed, &p->lock);
		}
		st = p->st[b];
		u = p->piece[b];
		pthread_mutex_unlock(&p->lock);
		if (st != PE_OK) {
			*compute_failed = 1;
			break;
		}
		cli_progress_update(prog, (size_t)((double)p->n * (double)written / (double)total));
		st = write_piece(w, u.r0, u.count, u.c0, u.nc, p->buf[b], u.nc);
		written++;
		pthread_mutex_lock(&p->lock);
		p->state[b] = SLOT_FREE;
		pthread_cond_broadcast(&p->changed);
		pthread_mutex_unlock(&p->lock);
	}
	int e = errno;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	for (size_t k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	errno = e;
	return st;
}

/* Workers of the overlapped writer: two on two cores or more, when the
 * BLAS takes two calls at once. */
static size_t pipe_workers(struct pe_pairwise_rows *src)
{
	long c = sysconf(_SC_NPROCESSORS_ONLN);
	return c >= 2 && pe_pairwise_rows_concurrent(src) ? 2 : 1;
}

enum pe_status npy_panels_write(struct cli_file *file, struct pe_pairwise_rows *src, size_t n,
                                enum pe_dtype dtype, const struct cli_common *o,
                                int *compute_failed)
{
	*compute_failed = 0;
	size_t es = dtype == PE_DTYPE_F32 ? 4 : 8;
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
	/* Overlapped when there is more than one piece and the BLAS can be
	 * made single-threaded; else whole panels on the BLAS's threads. */
	int piped = n > PIPE_ROWS && pe_pairwise_rows_serial(src, 1);
	size_t S = piped ? PIPE_ROWS : panel_rows(n);
	size_t bytes = (piped ? PIPE_ROWS * PIPE_COLS : S * n) * sizeof(double);
	double *panel = pe_buffer_alloc(bytes);
	size_t workers = piped ? pipe_workers(src) : 0;
	double *second = piped ? pe_buffer_alloc(bytes) : NULL;
	double *tile = malloc(TILE_COLS * S * sizeof(double));
	size_t nf = piped ? PIPE_COLS : n;
	float *f32 = malloc((nf > TILE_COLS * S ? nf : TILE_COLS * S) * sizeof(float));
	struct cli_row_pages *pages = cli_row_pages_create(fd, hdr, n * es, n);
	if (!panel || !tile || !f32 || !pages || (piped && !second)) {
		pe_buffer_free(panel);
		pe_buffer_free(second);
		free(tile);
		free(f32);
		cli_row_pages_destroy(pages);
		if (piped)
			pe_pairwise_rows_serial(src, 0);
		*compute_failed = 1;
		return PE_ENOMEM;
	}
	struct panel_out w = {pages, es, dtype, tile, f32};
	char doing[300];
	snprintf(doing, sizeof(doing), "writing %s", file->name);
	struct cli_progress prog;
	cli_progress_start(&prog, o, doing, n);
	if (piped) {
		struct pipe p = {.src = src, .n = n, .buf = {panel, second}};
		pthread_mutex_init(&p.lock, NULL);
		pthread_cond_init(&p.changed, NULL);
		st = pipe_run(&p, workers, &w, &prog, compute_failed);
		pthread_cond_destroy(&p.changed);
		pthread_mutex_destroy(&p.lock);
		pe_pairwise_rows_serial(src, 0);
	}
	for (size_t r0 = 0; !piped && r0 < n && st == PE_OK; r0 += S) {
		cli_progress_update(&prog, r0);
		size_t count = n - r0 < S ? n - r0 : S;
		st = pe_pairwise_rows_upper_cols_above(src, r0, count, r0, n - r0, panel, n - r0);
		if (st != PE_OK) {
			*compute_failed = 1;
			break;
		}
		st = write_piece(&w, r0, count, r0, n - r0, panel, n - r0);
	}
	/* the ends of rows still held back */
	if (st == PE_OK && cli_row_pages_flush(pages) != 0)
		st = PE_EIO;
	cli_progress_end(&prog);
	int e = errno;
	pe_buffer_free(panel);
	pe_buffer_free(second);
	free(tile);
	free(f32);
	cli_row_pages_destroy(pages);
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
	/* the products npy_panels_write() makes, so the same bits (see
	 * pe_pairwise_rows_serial()) */
	int serial = n > PIPE_ROWS && pe_pairwise_rows_serial(src, 1);
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
				if (cli_pwrite_all(sfd, tile + k * count, count * sizeof(double),
				                   at) != 0) {
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
	if (serial)
		pe_pairwise_rows_serial(src, 0);
	fclose(scratch);
	pe_matrix_destroy(block);
	pe_buffer_free(panel);
	free(tile);
	errno = e;
	return st;
}
