/*
 * write_csv.c - a matrix as CSV text
 *
 * Formatting the numbers is nearly all the cost, so blocks of rows are
 * formatted in parallel into per-block buffers and written in row order by
 * the calling thread: a block's buffer is reused once it has been written,
 * which bounds memory to a few blocks per thread. Small tables (and any
 * table when threads cannot be created) are formatted on the calling
 * thread alone; the bytes are the same either way.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <posenc/write.h>

/* pe_csv_format()'s longest text plus its comma. */
#define CELL_MAX 25
/* Rows are handed out in blocks of about this many bytes of text. */
#define BLOCK_BYTES (512u * 1024u)
/* Below this many cells threads cost more than they save. */
#define PARALLEL_MIN_CELLS 65536u
#define MAX_THREADS 16

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
static size_t row_cell(const struct pe_axis *a, size_t i, char *out)
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

static size_t row_cell_max(const struct pe_axis *a, size_t i)
{
	return a->labels ? 2 * strlen(a->labels[i]) + 2 : 32;
}

/* A block's text, grown as needed and reused for later blocks. */
struct text {
	char *buf;
	size_t len;
	size_t cap;
};

/* Rows [r0, r1) as CSV lines into t. */
static enum pe_status format_rows(struct text *t, const struct pe_matrix *m,
				  const struct pe_axis *rows, size_t r0, size_t r1)
{
	t->len = 0;
	for (size_t i = r0; i < r1; i++) {
		/* +1: pe_csv_format also writes its terminating NUL. */
		size_t need = t->len + row_cell_max(rows, i) + m->cols * CELL_MAX + 2;
		if (need > t->cap) {
			size_t cap = t->cap * 2 > need ? t->cap * 2 : need;
			char *buf = realloc(t->buf, cap);
			if (!buf)
				return PE_ENOMEM;
			t->buf = buf;
			t->cap = cap;
		}
		char *p = t->buf + t->len;
		p += row_cell(rows, i, p);
		const double *r = m->data + i * m->cols;
		for (size_t j = 0; j < m->cols; j++) {
			*p++ = ',';
			p += pe_csv_format(r[j], p);
		}
		*p++ = '\n';
		t->len = (size_t)(p - t->buf);
	}
	return PE_OK;
}

struct slot {
	struct text text;
	size_t block;          /* the block whose text is ready, if ready */
	int ready;
	enum pe_status status; /* of formatting that block */
};

struct job {
	const struct pe_matrix *m;
	const struct pe_axis *rows;
	size_t block_rows;
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

		size_t r0 = b * job->block_rows;
		size_t r1 = r0 + job->block_rows < job->m->rows ? r0 + job->block_rows : job->m->rows;
		enum pe_status st = format_rows(&s->text, job->m, job->rows, r0, r1);

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
	struct text t = {NULL, 0, 0};
	enum pe_status st = PE_OK;
	for (size_t b = 0; b < job->blocks && st == PE_OK; b++) {
		size_t r0 = b * job->block_rows;
		size_t r1 = r0 + job->block_rows < job->m->rows ? r0 + job->block_rows : job->m->rows;
		st = format_rows(&t, job->m, job->rows, r0, r1);
		if (st == PE_OK && fwrite(t.buf, 1, t.len, f) != t.len)
			st = PE_EIO;
	}
	int saved = errno;
	free(t.buf);
	errno = saved;
	return st;
}

enum pe_status pe_csv_write(FILE *f, const struct pe_matrix *m, const struct pe_axis *rows,
			    const struct pe_axis *cols)
{
	char cell[512];
	if (put_cell(f, rows->name ? rows->name : "") != 0)
		return PE_EIO;
	for (size_t j = 0; j < m->cols; j++) {
		format_coord(cols, j, cell, sizeof(cell));
		if (fputc(',', f) == EOF || put_cell(f, cell) != 0)
			return PE_EIO;
	}
	if (fputc('\n', f) == EOF)
		return PE_EIO;
	if (m->rows == 0)
		return ferror(f) ? PE_EIO : PE_OK;

	size_t row_bytes = m->cols * CELL_MAX + 32;
	struct job job = {.m = m, .rows = rows};
	job.block_rows = row_bytes >= BLOCK_BYTES ? 1 : BLOCK_BYTES / row_bytes;
	job.blocks = (m->rows + job.block_rows - 1) / job.block_rows;

	size_t nthreads = core_count();
	if (nthreads > job.blocks)
		nthreads = job.blocks;
	enum pe_status st;
	if (nthreads < 2 || m->rows * m->cols < PARALLEL_MIN_CELLS) {
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
		for (size_t i = 0; i < job.nslots; i++)
			free(job.slots[i].text.buf);
		free(job.slots);
		errno = saved;
	}
	if (st == PE_OK && ferror(f))
		st = PE_EIO;
	return st;
}
