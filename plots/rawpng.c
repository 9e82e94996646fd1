/*
 * rawpng.c - streaming palette PNG of a matrix, one pixel per cell
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <posenc/rawpng.h>

#include "png_util.h"

/*
 * Defaults by measurement (tools/bench-png.c, 16384 x 16384 = 268 M cells,
 * viridis, written to a file in /tmp; time includes producing the rows:
 * 0.13 s distance, 2.26 s encode, 0.40 s noise):
 *
 *   level filter  | distance (d=128)  | encode table      | uniform noise
 *   0     none    |  3.45 s  268.9 MB | 10.96 s  268.9 MB | 4.52 s 268.9 MB
 *   1     none    |  1.88 s   49.9 MB |  7.17 s  184.9 MB | 5.93 s 268.9 MB
 *   3     none    |  1.83 s   38.9 MB |  7.30 s  182.2 MB | 5.67 s 268.9 MB
 *   6     none    |  1.38 s    2.0 MB |  8.62 s  171.5 MB | 6.06 s 268.9 MB
 *   9     none    |  1.38 s    2.0 MB |  8.72 s  171.4 MB | 5.81 s 268.9 MB
 *   1     sub     |  1.97 s   49.1 MB |  6.96 s  193.2 MB | 5.74 s 268.9 MB
 *   1     up      |  1.90 s   49.2 MB |  5.50 s  116.7 MB | 6.19 s 268.9 MB
 *   6     sub     |  2.09 s    2.2 MB |  8.05 s  183.9 MB | 5.83 s 268.9 MB
 *   6     up      |  1.63 s    2.1 MB | 11.92 s  108.3 MB | 7.36 s 268.9 MB
 *   6     paeth   |  2.05 s    2.8 MB | 11.59 s  110.4 MB | 7.07 s 268.9 MB
 *   6     all     |  4.32 s    8.7 MB | 14.71 s  108.3 MB | 8.31 s 268.9 MB
 *   9     all     |  3.76 s    2.0 MB | 80.47 s  106.8 MB | 20.2 s 268.9 MB
 *
 * Distance (and correlation) matrices of sinusoidal and RoPE schemes are
 * Toeplitz: each row is the previous one shifted by a cell, cols + 2 bytes
 * back in the zlib stream, which levels 1-3 (short hash chains) mostly miss
 * and level 6 finds; it is the fastest and smallest there. Uniform noise over
 * 256 indices is incompressible at any setting (the time is mostly writing
 * 269 MB). The encode table (positions x dims, d = 16384) is the one case
 * where a filter pays: "up" saves 37% at +40% time; callers can ask for it.
 *
 * Deflate cannot look back 32506 bytes or further (32 KiB window minus 262
 * bytes lookahead: zlib's longest_match() takes matches strictly closer
 * than MAX_DIST), and a row copies its predecessor from cols + 2 bytes
 * back (filter byte, one cell of shift), so from 32504 columns on no row
 * can (32504 took 50 s for 257 MB where 32503 took 7.6 s for 12 MB) and
 * level 6 only burns time. Measured on 1000 rows of the
 * distance matrix: 32504 columns 0.82 s / 4.5 MB, 32505 columns 2.08 s /
 * 16.4 MB. On 2000 x 40000 cells:
 *
 *   level filter  | distance
 *   6     none    |  6.40 s  40.7 MB
 *   1     none    |  2.25 s  44.2 MB
 *   3     none    |  4.91 s  41.1 MB
 *   1     sub     |  2.76 s  34.9 MB
 *   1     up      |  2.47 s  34.9 MB
 *   3     up      |  3.90 s  31.8 MB
 *   6     up      | 20.41 s  30.1 MB
 *   1     paeth   |  2.23 s  32.2 MB
 *   6     paeth   | 15.19 s  26.0 MB
 *
 * and the whole 40000 x 40000 at level 6 without filter took 130 s for
 * 815 MB. So wide images switch to level 1 with the Paeth filter (the
 * adjacent rows of a smooth matrix predict each cell well): 40000 x 40000
 * then takes 39 s for 644 MB, 32768 x 32768 30 s for 433 MB, both in 3.3 MB
 * of memory (max RSS of the whole program).
 */
#define RAW_WINDOW_COLS 32503

/*
 * Rows are fetched and mapped to indices on a second thread, RAW_AHEAD rows
 * ahead of the writer, while deflate (the larger half of the work: 0.66 of
 * 1.05 s CPU for a 16384 x 16384 distance image) runs on the caller's.
 */
#define RAW_AHEAD 64

/* Everything the row loop touches lives here, behind a pointer, so nothing
 * the caller of setjmp reads afterwards is an automatic variable modified
 * between setjmp and longjmp. */
struct raw_job {
	size_t rows, cols;
	pe_row_fn fn;
	void *ctx;
	const struct pe_norm *norm;
	int nan_index;
	double *values;
	png_bytep ring;        /* RAW_AHEAD rows of indices, row r at r % RAW_AHEAD */
	enum pe_status status; /* of the rows themselves (callback, NaN) */
	/* the producer thread; the fields below are under lock */
	pthread_t thread;
	int threaded;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t produced, consumed; /* rows mapped / written */
	int stop;                  /* the writer gave up */
	enum pe_status prod_status;
};

/*
 * pe_colormap_index(pe_norm_apply(norm, x)) for every cell of a row. Through
 * the two calls this was 45% of the time of a 16384 x 16384 distance image.
 * The fast loop does the same operations in the same order (so it gives the
 * same index for every value) in a form compilers vectorise: every
 * operation unconditional, the clamps and NaN as selects. It needs an
 * index for NaN; without one (NaN is an error) and for a degenerate range
 * the calls do it.
 */
static enum pe_status map_row(const struct raw_job *j, png_bytep out)
{
	const double *x = j->values;
	size_t cols = j->cols;
	double lo = j->norm->vmin, hi = j->norm->vmax;
	if (j->nan_index >= 0 && hi > lo) {
		double hlo = 0.5 * lo, den = 0.5 * hi - 0.5 * lo, bad = j->nan_index;
		for (size_t c = 0; c < cols; c++) {
			double t = (0.5 * x[c] - hlo) / den * PE_COLORMAP_SIZE;
			t = t > 0.0 ? t : 0.0;
			t = t < PE_COLORMAP_SIZE - 1 ? t : PE_COLORMAP_SIZE - 1;
			t = x[c] == x[c] ? t : bad;
			out[c] = (png_byte)(int)t;
		}
		return PE_OK;
	}
	for (size_t c = 0; c < cols; c++) {
		int i = pe_colormap_index(pe_norm_apply(j->norm, x[c]));
		if (i < 0) {
			if (j->nan_index < 0)
				return PE_ERANGE;
			i = j->nan_index;
		}
		out[c] = (png_byte)i;
	}
	return PE_OK;
}

static png_bytep ring_row(const struct raw_job *j, size_t r)
{
	return j->ring + (r % RAW_AHEAD) * j->cols;
}

/* The producer: each row into its ring slot once the writer has freed it. */
static void *produce(void *arg)
{
	struct raw_job *j = arg;
	for (size_t r = 0; r < j->rows; r++) {
		pthread_mutex_lock(&j->lock);
		while (!j->stop && r - j->consumed >= RAW_AHEAD)
			pthread_cond_wait(&j->cond, &j->lock);
		int stop = j->stop;
		pthread_mutex_unlock(&j->lock);
		if (stop)
			break;
		enum pe_status st = j->fn(j->ctx, r, j->values);
		if (st == PE_OK)
			st = map_row(j, ring_row(j, r));
		pthread_mutex_lock(&j->lock);
		if (st == PE_OK)
			j->produced = r + 1;
		else
			j->prod_status = st;
		pthread_cond_broadcast(&j->cond);
		pthread_mutex_unlock(&j->lock);
		if (st != PE_OK)
			break;
	}
	return NULL;
}

/* Row r once the producer has it; PE_OK or the producer's error. */
static enum pe_status await_row(struct raw_job *j, size_t r)
{
	pthread_mutex_lock(&j->lock);
	while (j->produced <= r && j->prod_status == PE_OK)
		pthread_cond_wait(&j->cond, &j->lock);
	enum pe_status st = j->produced > r ? PE_OK : j->prod_status;
	pthread_mutex_unlock(&j->lock);
	return st;
}

static void release_row(struct raw_job *j, size_t r)
{
	pthread_mutex_lock(&j->lock);
	j->consumed = r + 1;
	pthread_cond_broadcast(&j->cond);
	pthread_mutex_unlock(&j->lock);
}

/* Starts the producer; without a thread the writer fetches rows itself. */
static void start_producer(struct raw_job *j)
{
	if (pthread_mutex_init(&j->lock, NULL) != 0)
		return;
	if (pthread_cond_init(&j->cond, NULL) != 0) {
		pthread_mutex_destroy(&j->lock);
		return;
	}
	if (pthread_create(&j->thread, NULL, produce, j) != 0) {
		pthread_cond_destroy(&j->cond);
		pthread_mutex_destroy(&j->lock);
		return;
	}
	j->threaded = 1;
}

/* After the image or an error (also a longjmp out of libpng). */
static void stop_producer(struct raw_job *j)
{
	if (!j->threaded)
		return;
	pthread_mutex_lock(&j->lock);
	j->stop = 1;
	pthread_cond_broadcast(&j->cond);
	pthread_mutex_unlock(&j->lock);
	pthread_join(j->thread, NULL);
	pthread_cond_destroy(&j->cond);
	pthread_mutex_destroy(&j->lock);
	j->threaded = 0;
}

/* May longjmp out of libpng; returns early with j->status set otherwise. */
static void write_image(png_structp png, png_infop info, struct raw_job *j,
                        const struct pe_colormap *cm, const struct pe_png_options *o)
{
	unsigned char pal8[PE_COLORMAP_SIZE][3];
	png_color plte[PE_COLORMAP_SIZE];
	pe_colormap_palette(cm, pal8);
	for (size_t i = 0; i < PE_COLORMAP_SIZE; i++)
		plte[i] = (png_color){pal8[i][0], pal8[i][1], pal8[i][2]};

	/* libpng refuses images wider or taller than 10^6 unless told. */
	png_set_user_limits(png, 0x7fffffffu, 0x7fffffffu);
	png_set_IHDR(png, info, (png_uint_32)j->cols, (png_uint_32)j->rows, 8,
	             PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE,
	             PNG_FILTER_TYPE_BASE);
	png_set_PLTE(png, info, plte, PE_COLORMAP_SIZE);
	if (j->cols <= RAW_WINDOW_COLS)
		png_util_apply(png, info, o, 6, PE_PNG_FILTER_NONE);
	else
		png_util_apply(png, info, o, 1, PE_PNG_FILTER_PAETH);
	png_write_info(png, info);
	start_producer(j);
	for (size_t r = 0; r < j->rows; r++) {
		if (j->threaded) {
			j->status = await_row(j, r);
		} else {
			j->status = j->fn(j->ctx, r, j->values);
			if (j->status == PE_OK)
				j->status = map_row(j, ring_row(j, r));
		}
		if (j->status != PE_OK)
			return;
		png_write_row(png, ring_row(j, r));
		if (j->threaded)
			release_row(j, r);
	}
	png_write_end(png, info);
}

enum pe_status pe_rawpng_write(FILE *f, size_t rows, size_t cols, pe_row_fn rows_fn, void *ctx,
                               const struct pe_colormap *cm, const struct pe_norm *norm,
                               const struct pe_png_options *opt)
{
	struct pe_png_options o;
	enum pe_status st = png_util_check(opt, &o);
	if (st != PE_OK)
		return st;
	if (rows == 0 || cols == 0 || !f || !rows_fn || !cm || !norm)
		return PE_EINVAL;
	if (rows > 0x7fffffffu || cols > 0x7fffffffu || cols > SIZE_MAX / sizeof(double) ||
	    cols > SIZE_MAX / RAW_AHEAD)
		return PE_ETOOBIG;

	struct raw_job *j = calloc(1, sizeof(*j));
	if (!j)
		return PE_ENOMEM;
	j->rows = rows;
	j->cols = cols;
	j->fn = rows_fn;
	j->ctx = ctx;
	j->norm = norm;
	j->nan_index = o.nan_index;
	j->values = malloc(cols * sizeof(double));
	j->ring = malloc(RAW_AHEAD * cols);
	struct png_guard g;
	png_structp png = NULL;
	png_infop info = NULL;
	st = (j->values && j->ring) ? png_util_create(&g, f, &png, &info) : PE_ENOMEM;
	if (st == PE_OK) {
		if (setjmp(g.jmp) == 0) {
			write_image(png, info, j, cm, &o);
			st = j->status != PE_OK ? j->status : png_util_finish(f);
		} else {
			st = g.status;
		}
		stop_producer(j);
		png_destroy_write_struct(&png, &info);
	}
	free(j->values);
	free(j->ring);
	free(j);
	return st;
}
