/*
 * write_csv.c - a matrix as CSV text
 *
 * Formatting the numbers is nearly all the cost, so blocks of cells (about
 * 512 KiB of text each, a row or less or several rows) are formatted in
 * parallel into per-block buffers and written in order by the calling
 * thread: a block's buffer is reused once it has been written, which bounds
 * memory to two blocks per thread, however long a row is. Small tables (and any
 * table when threads cannot be created) are formatted on the calling
 * thread alone; the bytes are the same either way.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <posenc/write.h>

#include "io/write_internal.h"

/* pe_csv_format()'s longest text plus its comma. */
#define CELL_MAX 25
/* Rows are handed out in blocks of about this many bytes of text. */
#define BLOCK_BYTES (512u * 1024u)
/* Below this many cells threads cost more than they save. */
#define PARALLEL_MIN_CELLS 65536u
#define MAX_THREADS        16

/* Coordinates print as numbers (whole ones without exponent or point) or as their labels. */
static size_t format_coord(const struct pe_axis *a, size_t i, char *buf, size_t cap)
{
	if (a->labels) {
		size_t n = strlen(a->labels[i]);
		return n < cap ? (memcpy(buf, a->labels[i], n + 1), n) : 0;
	}
	return pe_csv_format(a->first + (double)i * a->step, buf);
}

/* Text cells that hold a comma, quote or newline are quoted (RFC 4180). */
static int put_cell(FILE *f, const char *text)
{
	if (!strpbrk(text, ",\"\n\r"))
		return fputs(text, f) < 0 ? -1 : 0;
	if (fputc('"', f) == EOF)
		return -1;
	for (const char *c = text; *c; c++) {
		if (*c == '"' && fputc('"', f) == EOF)
			return -1;
		if (fputc(*c, f) == EOF)
			return -1;
	}
	return fputc('"', f) == EOF ? -1 : 0;
}

/* The row coordinate cell into out (room for row_cell_max() bytes). */
size_t wr_row_cell(const struct pe_axis *a, size_t i, char *out)
{
	if (!a->labels)
		return pe_csv_format(a->first + (double)i * a->step, out);
	const char *text = a->labels[i];
	if (!strpbrk(text, ",\"\n\r")) {
		size_t n = strlen(text);
		memcpy(out, text, n);
		return n;
	}
	char *p = out;
	*p++ = '"';
	for (const char *c = text; *c; c++) {
		if (*c == '"')
			*p++ = '"';
		*p++ = *c;
	}
	*p++ = '"';
	return (size_t)(p - out);
}

size_t wr_row_cell_max(const struct pe_axis *a, size_t i)
{
	return a->labels ? 2 * strlen(a->labels[i]) + 2 : 32;
}

/*
 * Cells already formatted, by the bits of their value (direct-mapped): the
 * distance and cosine matrices of sinusoidal and RoPE sets are Toeplitz, n
 * distinct values in n^2 cells, and formatting is nearly all the cost of
 * writing them. A miss costs one probe and a store; the text is the same
 * either way. 2^15 entries of 40 bytes per block buffer.
 */
#define CACHE_BITS 15
struct cached {
	uint64_t bits;
	unsigned char len; /* 0: empty (no text is empty) */
	char text[31];
};

static inline size_t format_cached(struct cached *cache, double v, char *out)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	struct cached *e = &cache[(bits * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - CACHE_BITS)];
	if (e->len == 0 || e->bits != bits) {
		e->len = (unsigned char)pe_csv_format(v, e->text);
		e->bits = bits;
	}
	memcpy(out, e->text, 24); /* at most 24 characters; the buffer has room */
	return e->len;
}

/* A block's text, grown as needed and reused for later blocks. */
struct text {
	char *buf;
	size_t len;
	size_t cap;
	struct cached *cache; /* NULL: format every cell */
};

/*
 * Cells [k0, k1) in row-major order as CSV text into t: a row's coordinate
 * before its first cell, a newline after its last. Blocks are ranges of
 * cells, not of rows, so a row of millions of columns needs no buffer of
 * its own size.
 */
static enum pe_status format_cells(struct text *t, const struct pe_matrix *m,
                                   const struct pe_axis *rows, size_t k0, size_t k1)
{
	const size_t cols = m->cols;
	size_t i = k0 / cols, j = k0 % cols;
	t->len = 0;
	for (size_t k = k0; k < k1;) {
		size_t jend = cols - j < k1 - k ? cols : j + (k1 - k);
		/* +2: the newline, and the NUL pe_csv_format writes after its text. */
		size_t need = t->len + (j == 0 ? wr_row_cell_max(rows, i) : 0) +
		              (jend - j) * CELL_MAX + 2;
		if (need > t->cap) {
			size_t cap = t->cap * 2 > need ? t->cap * 2 : need;
			char *buf = realloc(t->buf, cap);
			if (!buf)
				return PE_ENOMEM;
			t->buf = buf;
			t->cap = cap;
		}
		char *p = t->buf + t->len;
		if (j == 0)
			p += wr_row_cell(rows, i, p);
		const double *r = m->data + i * cols;
		k += jend - j;
		if (!t->cache &&
		    !(t->cache = calloc((size_t)1 << CACHE_BITS, sizeof(struct cached))))
			for (; j < jend; j++) {
				*p++ = ',';
				p += pe_csv_format(r[j], p);
			}
		for (; j < jend; j++) {
			*p++ = ',';
			p += format_cached(t->cache, r[j], p);
		}
		if (j == cols) {
			*p++ = '\n';
			i++;
			j = 0;
		}
		t->len = (size_t)(p - t->buf);
	}
	return PE_OK;
}

/* Block b's cells. */
static void block_cells(size_t b, size_t block_cells, size_t total, size_t *k0, size_t *k1)
{
	*k0 = b * block_cells;
	*k1 = total - *k0 > block_cells ? *k0 + block_cells : total;
}

struct slot {
	struct text text;
	size_t block; /* the block whose text is ready, if ready */
	int ready;
	enum pe_status status; /* of formatting that block */
};

struct job {
	const struct pe_matrix *m;
	const struct pe_axis *rows;
	size_t block_cells;
	size_t cells;
	size_t blocks;
	struct slot *slots;
	size_t nslots;

	pthread_mutex_t lock;
	pthread_cond_t ready; /* a slot became ready */
	pthread_cond_t freed; /* a block was written: its slot is free */
	size_t next;          /* next block to format */
	size_t written;       /* blocks written so far */
	int stop;
};

static void *worker(void *arg)
{
	struct job *job = arg;
	pthread_mutex_lock(&job->lock);
	for (;;) {
		if (job->stop || job->next >= job->blocks)
			break;
		size_t b = job->next++;
		/* Block b reuses the slot of block b - nslots once that is written. */
		while (!job->stop && b >= job->written + job->nslots)
			pthread_cond_wait(&job->freed, &job->lock);
		if (job->stop)
			break;
		struct slot *s = &job->slots[b % job->nslots];
		pthread_mutex_unlock(&job->lock);

		size_t k0, k1;
		block_cells(b, job->block_cells, job->cells, &k0, &k1);
		enum pe_status st = format_cells(&s->text, job->m, job->rows, k0, k1);

		pthread_mutex_lock(&job->lock);
		s->block = b;
		s->status = st;
		s->ready = 1;
		pthread_cond_broadcast(&job->ready);
	}
	pthread_mutex_unlock(&job->lock);
	return NULL;
}

static size_t core_count(void)
{
	long c = sysconf(_SC_NPROCESSORS_ONLN);
	if (c < 1)
		return 1;
	return c > MAX_THREADS ? MAX_THREADS : (size_t)c;
}

/* Writes the blocks in order as the workers finish them; errno is kept on PE_EIO. */
static enum pe_status write_blocks(struct job *job, FILE *f)
{
	enum pe_status st = PE_OK;
	for (size_t b = 0; b < job->blocks && st == PE_OK; b++) {
		struct slot *s = &job->slots[b % job->nslots];
		pthread_mutex_lock(&job->lock);
		while (!(s->ready && s->block == b))
			pthread_cond_wait(&job->ready, &job->lock);
		pthread_mutex_unlock(&job->lock);

		st = s->status;
		if (st == PE_OK && fwrite(s->text.buf, 1, s->text.len, f) != s->text.len)
			st = PE_EIO;

		pthread_mutex_lock(&job->lock);
		s->ready = 0;
		job->written++;
		if (st != PE_OK)
			job->stop = 1;
		pthread_cond_broadcast(&job->freed);
		pthread_mutex_unlock(&job->lock);
	}
	return st;
}

/* @return 0 if no thread could be started (nothing was written), else 1 and *st. */
static int write_parallel(struct job *job, FILE *f, size_t nthreads, enum pe_status *st)
{
	if (pthread_mutex_init(&job->lock, NULL) != 0)
		return 0;
	if (pthread_cond_init(&job->ready, NULL) != 0) {
		pthread_mutex_destroy(&job->lock);
		return 0;
	}
	if (pthread_cond_init(&job->freed, NULL) != 0) {
		pthread_cond_destroy(&job->ready);
		pthread_mutex_destroy(&job->lock);
		return 0;
	}
	pthread_t tid[MAX_THREADS];
	size_t started = 0;
	while (started < nthreads && pthread_create(&tid[started], NULL, worker, job) == 0)
		started++;

	int saved = 0;
	if (started > 0) {
		*st = write_blocks(job, f);
		saved = errno;
	}
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	pthread_cond_destroy(&job->freed);
	pthread_cond_destroy(&job->ready);
	pthread_mutex_destroy(&job->lock);
	errno = saved;
	return started > 0;
}

/* Everything on the calling thread, one block at a time. */
static enum pe_status write_serial(const struct job *job, FILE *f)
{
	struct text t = {NULL, 0, 0, NULL};
	enum pe_status st = PE_OK;
	for (size_t b = 0; b < job->blocks && st == PE_OK; b++) {
		size_t k0, k1;
		block_cells(b, job->block_cells, job->cells, &k0, &k1);
		st = format_cells(&t, job->m, job->rows, k0, k1);
		if (st == PE_OK && fwrite(t.buf, 1, t.len, f) != t.len)
			st = PE_EIO;
	}
	int saved = errno;
	free(t.buf);
	free(t.cache);
	errno = saved;
	return st;
}

enum pe_status pe_csv_write_header(FILE *f, size_t ncols, const struct pe_axis *rows,
                                   const struct pe_axis *cols)
{
	char cell[512];
	if (put_cell(f, rows->name ? rows->name : "") != 0)
		return PE_EIO;
	for (size_t j = 0; j < ncols; j++) {
		format_coord(cols, j, cell, sizeof(cell));
		if (fputc(',', f) == EOF || put_cell(f, cell) != 0)
			return PE_EIO;
	}
	return fputc('\n', f) == EOF ? PE_EIO : PE_OK;
}

enum pe_status pe_csv_write(FILE *f, const struct pe_matrix *m, const struct pe_axis *rows,
                            const struct pe_axis *cols)
{
	enum pe_status st = pe_csv_write_header(f, m->cols, rows, cols);
	return st == PE_OK ? pe_csv_write_rows(f, m, rows) : st;
}

enum pe_status pe_csv_write_rows(FILE *f, const struct pe_matrix *m, const struct pe_axis *rows)
{
	char cell[512];
	if (m->cols == 0) {
		/* Only the row coordinates: nothing worth a thread. */
		for (size_t i = 0; i < m->rows; i++) {
			format_coord(rows, i, cell, sizeof(cell));
			if (put_cell(f, cell) != 0 || fputc('\n', f) == EOF)
				return PE_EIO;
		}
		return ferror(f) ? PE_EIO : PE_OK;
	}

	struct job job = {.m = m, .rows = rows};
	job.cells = m->rows * m->cols;
	job.block_cells = BLOCK_BYTES / CELL_MAX;
	job.blocks = (job.cells + job.block_cells - 1) / job.block_cells;

	size_t nthreads = core_count();
	if (nthreads > job.blocks)
		nthreads = job.blocks;
	enum pe_status st;
	if (nthreads < 2 || job.cells < PARALLEL_MIN_CELLS) {
		st = write_serial(&job, f);
	} else {
		job.nslots = 2 * nthreads;
		job.slots = calloc(job.nslots, sizeof(*job.slots));
		if (!job.slots)
			return PE_ENOMEM;
		if (!write_parallel(&job, f, nthreads, &st))
			/* No thread could start: the same text, on this thread. */
			st = write_serial(&job, f);
		int saved = errno;
		for (size_t i = 0; i < job.nslots; i++) {
			free(job.slots[i].text.buf);
			free(job.slots[i].text.cache);
		}
		free(job.slots);
		errno = saved;
	}
	if (st == PE_OK && ferror(f))
		st = PE_EIO;
	return st;
}
