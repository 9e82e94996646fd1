/*
 * Decay curves: closed forms for sinusoidal and rope (derived in
 * posenc/decay.h), the mean over pairs for everything else.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <posenc/decay.h>
#include <posenc/rope.h>

#include "scheme/scheme_type.h"
#include "core/wide_clones.h"

#define DECAY_THREADS 2

/* Which path a vector set takes. */
enum path { PATH_SINUSOIDAL, PATH_ROPE, PATH_GENERAL };

static enum path path_of(const struct pe_vectors *v)
{
	if (v->table || !v->scheme)
		return PATH_GENERAL;
	switch (pe_scheme_kernel(v->scheme, v->view)) {
	case PE_KERNEL_SINCOS:
		return PATH_SINUSOIDAL;
	case PE_KERNEL_ROTARY:
		return PATH_ROPE;
	default:
		return PATH_GENERAL;
	}
}

enum pe_status pe_decay_check(const struct pe_vectors *v, enum pe_decay_kind kind,
                              size_t max_offset, const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	*why = NULL;
	if (!v->table && !v->scheme) {
		*why = "the vector set has neither a scheme nor a table";
		return PE_EINVAL;
	}
	if (!v->table) {
		if (!pe_scheme_is_vector(v->scheme)) {
			*why = "an attention bias has no position vectors to take dot products of "
			       "(use 'posenc bias')";
			return PE_EUNSUPPORTED;
		}
		enum pe_status st = pe_encode_check(v->scheme, v->d, v->view, why);
		if (st != PE_OK)
			return st;
	} else if (v->table->cols != v->d) {
		*why = "the width d differs from the table's column count";
		return PE_ERANGE;
	}
	if (kind == PE_DECAY_BOUND && path_of(v) != PATH_ROPE) {
		*why = "the RoFormer upper bound exists only for rope (rotated vectors)";
		return PE_EUNSUPPORTED;
	}
	if (max_offset >= v->n) {
		*why = "the largest offset must be below the number of positions";
		return PE_ERANGE;
	}
	return PE_OK;
}

/* Mean over the range of the lone sine's sin(x w) sin((x+k) w) (see decay.h). */
static double lone_sine_mean(double w, double k, double n, double x_first)
{
	double count = n - k;
	double x_last = x_first + n - 1.0;
	double s = sin(w);
	double tail;
	if (fabs(s) > 1e-6) {
		tail = sin(count * w) * cos((x_first + x_last) * w) / (count * s);
	} else {
		/* w a multiple of pi: the progression's terms do not cancel; add them. */
		tail = 0.0;
		for (double x = x_first; x + k <= x_last; x += 1.0)
			tail += cos((2.0 * x + k) * w);
		tail /= count;
	}
	return 0.5 * cos(k * w) - 0.5 * tail;
}

/*
 * out[k] = sum_i cos((lo + k step) w_i) for k = 0..K. Offsets k0 + r of a
 * block share an anchor cos/sin((lo + k0 step) w_i) and a table of
 * cos/sin(r step w_i), so each term is two products and a sum in a loop
 * that vectorises. Every COS_GROUP-th anchor is an exact libm cos/sin; the
 * ones between are that anchor turned by a table of cos/sin(q COS_BLOCK
 * step w_i), q < COS_GROUP. The table of r step w_i is itself exact values
 * of (r - r % 8) step w_i turned by those of (r % 8) step w_i. Each value is
 * thus at most three rotations from exactly rounded ones (a few ulps, no
 * drift), for a sixth of the libm calls of an exact anchor per block and an
 * exact table at 10^4 offsets.
 */
#define COS_BLOCK 64
#define COS_GROUP 16

/* acc[r] = sum_i c0[i] c[i B + r] - s0[i] sn[i B + r], in i order: one block of offsets. */
WIDE_CLONES static void add_block(double *restrict acc, const double *restrict c,
                                  const double *restrict sn, const double *restrict c0,
                                  const double *restrict s0, size_t count, size_t B, size_t len)
{
	for (size_t r = 0; r < len; r++)
		acc[r] = 0.0;
	for (size_t i = 0; i < count; i++) {
		const double *ci = c + i * B, *si = sn + i * B;
		for (size_t r = 0; r < len; r++)
			acc[r] += c0[i] * ci[r] - s0[i] * si[r];
	}
}

static enum pe_status cos_sums(const double *w, size_t count, size_t lo, size_t step, size_t K,
                               double *out)
{
	size_t B = K + 1 < COS_BLOCK ? K + 1 : COS_BLOCK, G = COS_GROUP;
	/* cr/sr: cos/sin(r w_i), r < B; cg/sg: cos/sin(q B w_i), q < G; ca/sa: exact anchors */
	double *cr = malloc((2 * count * (B + G + 2) + 1) * sizeof(double));
	if (!cr)
		return PE_ENOMEM;
	double *sr = cr + count * B, *cg = sr + count * B, *sg = cg + count * G;
	double *ca = sg + count * G, *sa = ca + count, *c0 = sa + count, *s0 = c0 + count;
	for (size_t i = 0; i < count; i++) {
		double *c = cr + i * B, *s = sr + i * B;
		for (size_t r = 0; r < B && r < 8; r++) {
			c[r] = cos((double)(r * step) * w[i]);
			s[r] = sin((double)(r * step) * w[i]);
		}
		for (size_t r8 = 8; r8 < B; r8 += 8) {
			double c8 = cos((double)(r8 * step) * w[i]),
			       s8 = sin((double)(r8 * step) * w[i]);
			for (size_t r = r8; r < B && r < r8 + 8; r++) {
				c[r] = c8 * c[r - r8] - s8 * s[r - r8];
				s[r] = s8 * c[r - r8] + c8 * s[r - r8];
			}
		}
		for (size_t q = 0; q < G; q++) {
			double angle = (double)(q * B * step) * w[i];
			cg[i * G + q] = cos(angle);
			sg[i * G + q] = sin(angle);
		}
	}
	for (size_t k0 = 0, q = 0; k0 <= K; k0 += B, q++) {
		size_t len = K + 1 - k0 < B ? K + 1 - k0 : B, g = q % G;
		for (size_t i = 0; i < count; i++) {
			if (g == 0) {
				double at = (double)(lo + k0 * step);
				ca[i] = cos(at * w[i]);
				sa[i] = sin(at * w[i]);
			}
			double cq = cg[i * G + g], sq = sg[i * G + g];
			c0[i] = ca[i] * cq - sa[i] * sq;
			s0[i] = sa[i] * cq + ca[i] * sq;
		}
		add_block(out + k0, cr, sr, c0, s0, count, B, len);
	}
	free(cr);
	return PE_OK;
}

static enum pe_status sinusoidal_curve(const struct pe_vectors *v, size_t lo, size_t step, size_t K,
                                       double *out)
{
	const struct pe_scheme *s = v->scheme;
	double *w = malloc((v->d + 1) * sizeof(*w));
	if (!w)
		return PE_ENOMEM;
	size_t count;
	enum pe_status st = pe_scheme_frequencies(s, v->d, w, &count);
	if (st == PE_OK) {
		int lone = s->freq == PE_FREQ_PAPER && v->d % 2 == 1;
		size_t full = lone ? count - 1 : count;
		double x_first = (double)v->first + s->start;
		st = cos_sums(w, full, lo, step, K, out);
		for (size_t k = 0; lone && st == PE_OK && k <= K; k++)
			out[k] += lone_sine_mean(w[full], (double)(lo + k * step), (double)v->n,
			                         x_first);
	}
	free(w);
	return st;
}

static enum pe_status rope_curve(const struct pe_vectors *v, enum pe_decay_kind kind, size_t lo,
                                 size_t step, size_t K, double *out)
{
	const struct pe_scheme *s = v->scheme;
	size_t d_rot = pe_rope_rotary_width(s, v->d), h = d_rot / 2;
	double *theta = malloc(h * sizeof(*theta));
	if (!theta)
		return PE_ENOMEM;
	struct pe_rope_scaling_info info;
	enum pe_status st = pe_rope_base_frequencies(s->base, d_rot, theta);
	if (st == PE_OK)
		st = pe_rope_scale_frequencies(&s->scaling, s->base, d_rot, theta, &info);
	if (st == PE_OK) {
		double a2 = info.attention_factor * info.attention_factor;
		if (kind == PE_DECAY_DOT) {
			st = cos_sums(theta, h, lo, step, K, out);
			for (size_t k = 0; st == PE_OK && k <= K; k++)
				out[k] = 2.0 * a2 * out[k] + (double)(v->d - d_rot);
			free(theta);
			return st;
		}
		for (size_t k = 0; k <= K; k++) {
			double re = 0.0, im = 0.0, bound = 0.0;
			for (size_t i = 0; i < h; i++) {
				double angle = (double)(lo + k * step) * theta[i];
				re += cos(angle);
				im += sin(angle);
				bound += hypot(re, im); /* |S_{i+1}| */
			}
			out[k] = kind == PE_DECAY_BOUND ? bound / (double)h
			                                : 2.0 * a2 * re + (double)(v->d - d_rot);
		}
	}
	free(theta);
	return st;
}

struct worker {
	const double *rows;
	size_t n, d, lo, step, K, index; /* offsets lo + t step, t <= K */
	double *out;
};

static void *general_worker(void *arg)
{
	const struct worker *w = arg;
	/* Interleaved offsets balance the work: offset k has n - k pairs. */
	for (size_t t = w->index; t <= w->K; t += DECAY_THREADS) {
		size_t k = w->lo + t * w->step;
		double sum = 0.0;
		for (size_t m = 0; m + k < w->n; m++) {
			const double *a = w->rows + m * w->d, *b = w->rows + (m + k) * w->d;
			double dot = 0.0;
			for (size_t j = 0; j < w->d; j++)
				dot += a[j] * b[j];
			sum += dot;
		}
		w->out[t] = sum / (double)(w->n - k);
	}
	return NULL;
}

static enum pe_status general_curve(const struct pe_vectors *v, size_t lo, size_t step, size_t K,
                                    double *out)
{
	size_t count;
	if (pe_size_mul(v->n, v->d, &count) != PE_OK || count > SIZE_MAX / sizeof(double))
		return PE_ETOOBIG;
	double *rows = malloc((count ? count : 1) * sizeof(*rows));
	if (!rows)
		return PE_ENOMEM;
	enum pe_status st = pe_vectors_rows(v, 0, v->n, rows);
	if (st != PE_OK) {
		free(rows);
		return st;
	}
	struct worker w[DECAY_THREADS];
	pthread_t tid[DECAY_THREADS];
	int started[DECAY_THREADS] = {0};
	for (size_t t = 0; t < DECAY_THREADS; t++) {
		w[t] = (struct worker){rows, v->n, v->d, lo, step, K, t, out};
		/* Thread 0 runs on the caller's thread; the others are helpers. */
		if (t > 0)
			started[t] = pthread_create(&tid[t], NULL, general_worker, &w[t]) == 0;
	}
	general_worker(&w[0]);
	for (size_t t = 1; t < DECAY_THREADS; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			general_worker(&w[t]); /* no thread: do its share here */
	}
	free(rows);
	return PE_OK;
}

enum pe_status pe_decay_curve(const struct pe_vectors *v, enum pe_decay_kind kind,
                              size_t max_offset, double *out)
{
	return pe_decay_curve_range(v, kind, 0, 1, max_offset + 1, out);
}

enum pe_status pe_decay_curve_range(const struct pe_vectors *v, enum pe_decay_kind kind,
                                    size_t first_offset, size_t step, size_t count, double *out)
{
	if (count == 0 || step == 0 || (count - 1) > (SIZE_MAX - first_offset) / step)
		return PE_ERANGE;
	size_t max_offset = first_offset + (count - 1) * step;
	enum pe_status st = pe_decay_check(v, kind, max_offset, NULL);
	if (st != PE_OK)
		return st;
	switch (path_of(v)) {
	case PATH_SINUSOIDAL:
		return sinusoidal_curve(v, first_offset, step, count - 1, out);
	case PATH_ROPE:
		return rope_curve(v, kind, first_offset, step, count - 1, out);
	default:
		return general_curve(v, first_offset, step, count - 1, out);
	}
}

int pe_decay_closed_form(const struct pe_vectors *v)
{
	return path_of(v) != PATH_GENERAL;
}
