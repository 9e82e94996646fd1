/*
 * bench-png.c - time and size of pe_rawpng_write() per zlib level and filter
 *
 * Not part of the build; the numbers chose the defaults in plots/rawpng.c:
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L tools/bench-png.c -Iplots/include \
 *      -Ilib/include $(pkg-config --cflags cairo) build/plots/libposenc-plots-internal.a \
 *      build/lib/libposenc-internal.a -lpng -lz -lm -o /tmp/bench-png
 *   /tmp/bench-png N [LEVEL FILTER]...   (FILTER: 1 none 2 sub 3 up 4 avg 5 paeth 6 all)
 * Patterns: the L2 distance matrix of sinusoidal d=128, base 10000 (smooth,
 * Toeplitz: each row is the previous one shifted by a cell), a sinusoidal
 * encoding table with d = N (smooth, not Toeplitz) and uniform noise
 * (incompressible after the palette mapping).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <posenc/rawpng.h>

struct pattern {
	size_t n;
	const double *dist; /* dist[k]: distance at offset k */
	const double *freq; /* freq[j]: frequency of encoding column j */
	uint64_t rng;
};

static enum pe_status distance_row(void *ctx, size_t row, double *buf)
{
	struct pattern *p = ctx;
	for (size_t j = 0; j < p->n; j++)
		buf[j] = p->dist[j > row ? j - row : row - j];
	return PE_OK;
}

static enum pe_status encode_row(void *ctx, size_t row, double *buf)
{
	struct pattern *p = ctx;
	for (size_t j = 0; j < p->n; j++) {
		double a = (double)row * p->freq[j];
		buf[j] = j % 2 ? cos(a) : sin(a);
	}
	return PE_OK;
}

static enum pe_status noise_row(void *ctx, size_t row, double *buf)
{
	struct pattern *p = ctx;
	(void)row;
	for (size_t j = 0; j < p->n; j++) {
		p->rng ^= p->rng << 13;
		p->rng ^= p->rng >> 7;
		p->rng ^= p->rng << 17;
		buf[j] = (double)(p->rng >> 11) / 9007199254740992.0;
	}
	return PE_OK;
}

/* The callback alone, to subtract from the writer's times. */
static void baseline(const char *what, pe_row_fn fn, struct pattern *p)
{
	double *buf = malloc(p->n * sizeof(double)), sum = 0.0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t r = 0; r < p->n; r++) {
		fn(p, r, buf);
		sum += buf[r];
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%-8s rows only: %6.2f s (%g)\n", what,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9, sum);
	free(buf);
}

static void run(const char *what, pe_row_fn fn, struct pattern *p, struct pe_norm norm, int level,
                int filter)
{
	FILE *f = tmpfile();
	struct pe_png_options o = pe_png_options_default();
	o.level = level;
	o.filter = (enum pe_png_filter)filter;
	p->rng = 88172645463325252ull;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	enum pe_status st =
	        pe_rawpng_write(f, p->n, p->n, fn, p, pe_colormap_find("viridis"), &norm, &o);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long size = ftell(f);
	fclose(f);
	printf("%-8s level %d filter %d: %6.2f s %8.2f MB (status %d)\n", what, level, filter,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
	       (double)size / 1e6, (int)st);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 16384;
	double *dist = malloc(n * sizeof(double));
	double dmax = 0.0;
	for (size_t k = 0; k < n; k++) {
		double s = 0.0;
		for (int t = 0; t < 64; t++) {
			double w = pow(10000.0, -2.0 * t / 128.0);
			s += 2.0 - 2.0 * cos((double)k * w);
		}
		dist[k] = sqrt(s);
		dmax = fmax(dmax, dist[k]);
	}
	double *freq = malloc(n * sizeof(double));
	for (size_t j = 0; j < n; j++)
		freq[j] = pow(10000.0, -(double)(j / 2 * 2) / (double)n);
	struct pattern p = {n, dist, freq, 0};
	baseline("distance", distance_row, &p);
	baseline("encode", encode_row, &p);
	baseline("noise", noise_row, &p);
	for (int a = 2; a + 1 < argc; a += 2) {
		int level = atoi(argv[a]), filter = atoi(argv[a + 1]);
		run("distance", distance_row, &p, (struct pe_norm){0.0, dmax}, level, filter);
		run("encode", encode_row, &p, (struct pe_norm){-1.0, 1.0}, level, filter);
		run("noise", noise_row, &p, (struct pe_norm){0.0, 1.0}, level, filter);
	}
	free(dist);
	free(freq);
	return 0;
}
