/*
 * pairwise_gram.c - l2, cosine and correlation of general rows from the
 * Gram matrix X X^T on a BLAS (CBLAS, e.g. Debian's OpenBLAS)
 *
 * The direct kernels (pairwise_kernel.c) load two rows per pair; a BLAS
 * matrix product reuses every load many times and runs near the core's
 * peak, which is what makes a learned table's matrix fast. Products are
 * exact up to rounding; what the Gram form loses is the l2 distance of
 * close vectors: |a|^2 + |b|^2 - 2 a.b cancels. With the products' error
 * bounded by gamma_d = d u (|a|^2 + |b|^2) (u = 2^-53; Higham, Accuracy and
 * Stability of Numerical Algorithms, 2nd ed., section 3.1: |fl(x.y) - x.y|
 * <= gamma_d |x|.|y|, and |x|.|y| <= (|x|^2 + |y|^2) / 2 by Cauchy-Schwarz),
 * a distance is recomputed from the rows whenever that bound could exceed
 * 1e-12 of it, so every cell stays within 1e-12 relative of the exact value
 * (up to d of about 4500 in one product; wider rows are multiplied in
 * chunks of columns, whose error bound grows with the chunk, see
 * l2_chunk()). Built without a BLAS
 * (-Dblas=disabled or none found) pe_gram_usable() is false and callers keep
 * the direct kernels: the same values, slower.
 *
 * The BLAS is opened (dlopen) when a Gram product is first wanted, not linked:
 * OpenBLAS starts its thread pool as it loads, and the idle threads spin for
 * 50-90 ms of CPU, which would otherwise be paid by every process, including
 * the many (figures of analytic schemes, exports) that never multiply a
 * matrix. If the library the build found cannot be opened at run time, the
 * direct kernels are used, as without a BLAS.
 *
 * Under an address-space or data limit (ulimit -v, -d, a batch node's
 * h_vmem) OpenBLAS is sized to fit before it is opened: it takes a 128 MiB
 * work buffer for every thread it runs (the caller included) and, for each
 * thread it starts, a stack and a malloc arena; when those mappings fail it
 * does not give up but retries forever at full CPU (OpenBLAS 0.3.21,
 * memory.c). So the room left under the limits decides: OPENBLAS_NUM_THREADS
 * is lowered to the threads that fit, and with room for none the BLAS is not
 * opened at all (the direct kernels give the same values). Other BLAS
 * libraries ignore the variable.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pairwise_internal.h"
#include "core/wide_clones.h"

#ifdef PE_CBLAS_LIBRARY
#include <cblas.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

typedef void (*gemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, int, int, int,
                        double, const double *, int, const double *, int, double, double *, int);
/* The pointer's type must be cblas_dgemm's (blasint = int: not an ILP64
 * build); _Generic does not evaluate its operand, so this does not link. */
_Static_assert(_Generic(&cblas_dgemm, gemm_fn : 1, default : 0),
               "cblas_dgemm's prototype differs from gemm_fn (an ILP64 BLAS?)");

static gemm_fn gemm;
static pthread_once_t gemm_once = PTHREAD_ONCE_INIT;
/* OpenBLAS's thread count (NULL for another BLAS: then nothing is changed) */
static void (*set_threads)(int);
static int (*get_threads)(void);
/* OpenBLAS's threading model: 0 sequential, 1 its own threads, 2 OpenMP */
static int (*get_parallel)(void);

#define MIB ((uint64_t)1 << 20)
/* What OpenBLAS maps (measured with 0.3.21 under strace): its code and
 * tables; per thread a 128 MiB buffer (BUFFER_SIZE, with alignment); per
 * started thread also an 8 MiB stack and a 64 MiB glibc arena. */
#define BLAS_LIBRARY (48 * MIB)
#define BLAS_BUFFER  (132 * MIB)
#define BLAS_THREAD  (BLAS_BUFFER + 76 * MIB)
/* Left under the limit for the caller's own allocations after the product. */
#define BLAS_RESERVE (64 * MIB)

/* Bytes left under RLIMIT_AS and RLIMIT_DATA; UINT64_MAX without limits. */
static uint64_t address_room(void)
{
	struct rlimit as, data;
	int has_as = getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY;
	int has_data = getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY;
	if (!has_as && !has_data)
		return UINT64_MAX;
	/* /proc/self/statm: pages of the whole address space, then (6th) of
	 * data and stack. Unreadable: the limit alone, used from zero. */
	unsigned long long size = 0, data_pages = 0, skip;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%llu %llu %llu %llu %llu %llu", &size, &skip, &skip, &skip, &skip,
		           &data_pages) != 6)
			size = data_pages = 0;
		fclose(f);
	}
	long page = sysconf(_SC_PAGESIZE);
	uint64_t pg = page > 0 ? (uint64_t)page : 4096;
	uint64_t room = UINT64_MAX;
	if (has_as) {
		uint64_t used = (uint64_t)size * pg, lim = (uint64_t)as.rlim_cur;
		room = lim > used ? lim - used : 0;
	}
	if (has_data) {
		uint64_t used = (uint64_t)data_pages * pg, lim = (uint64_t)data.rlim_cur;
		uint64_t r = lim > used ? lim - used : 0;
		if (r < room)
			room = r;
	}
	return room;
}

/* 0 when OpenBLAS cannot have even one buffer; else after lowering its
 * thread count to what fits. */
static int blas_fits(void)
{
	uint64_t room = address_room();
	if (room == UINT64_MAX)
		return 1;
	uint64_t one = BLAS_LIBRARY + BLAS_BUFFER + BLAS_RESERVE;
	if (room < one)
		return 0;
	uint64_t threads = 1 + (room - one) / BLAS_THREAD;
	const char *env = getenv("OPENBLAS_NUM_THREADS");
	long asked = env ? strtol(env, NULL, 10) : 0;
	if (asked <= 0 || (uint64_t)asked > threads) {
		char text[24];
		snprintf(text, sizeof(text), "%llu",
		         (unsigned long long)(threads < 4096 ? threads : 4096));
		setenv("OPENBLAS_NUM_THREADS", text, 1);
	}
	return 1;
}

static void gemm_open(void)
{
	if (!blas_fits())
		return;
	/* The soname first, as the dynamic linker would resolve a linked
	 * library (Debian's alternatives pick the variant); then the file the
	 * build linked against. */
	const char *path = PE_CBLAS_LIBRARY;
	const char *base = strrchr(path, '/');
	void *h = dlopen(base ? base + 1 : path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	void *sym = h ? dlsym(h, "cblas_dgemm") : NULL;
	/* POSIX guarantees that a function's address round-trips through the
	 * void * that dlsym returns; memcpy avoids the cast ISO C lacks. */
	if (sym)
		memcpy(&gemm, &sym, sizeof(gemm));
	void *set = h ? dlsym(h, "openblas_set_num_threads") : NULL;
	void *get = h ? dlsym(h, "openblas_get_num_threads") : NULL;
	if (set && get) {
		memcpy(&set_threads, &set, sizeof(set_threads));
		memcpy(&get_threads, &get, sizeof(get_threads));
	}
	void *par = h ? dlsym(h, "openblas_get_parallel") : NULL;
	if (par)
		memcpy(&get_parallel, &par, sizeof(get_parallel));
}

static int gemm_ready(void)
{
	return pthread_once(&gemm_once, gemm_open) == 0 && gemm != NULL;
}
#endif

/* A recompute threshold above this means most pairs would be recomputed:
 * the Gram form does not pay, the direct kernel is used. */
#define TAU_MAX 0.5
/* Columns of one product in the chunked l2 form (see l2_chunk()). */
#define L2_CHUNK 4096

static double l2_tau(size_t d)
{
	/* The error of d2 is at most 2 gamma_d (|a|^2 + |b|^2) (the two squared
	 * norms and twice the product); d2 >= tau (|a|^2 + |b|^2) keeps it below
	 * 2e-12 d2, and the distance's below 1e-12 of it. */
	return (double)d * 0x1p-53 / 1e-12;
}

/*
 * Columns per product for l2: all d while gamma_d allows (d up to about
 * 4500, one product: the bits of every release before this), else chunks
 * of at most L2_CHUNK columns, the products of later chunks added to the
 * result by the BLAS itself (beta = 1). A cell is then a sum in which each
 * of the d terms goes through at most kc + k roundings (its chunk's kc + 1
 * terms, then one per later chunk), so the error bound is gamma_(kc + k)
 * (Higham, section 3.1, for any order of summation): the depth, not d,
 * sets the recompute threshold, and the Gram form stays exact to 1e-12 at
 * any width. The squared norms are summed the same way.
 */
static size_t l2_chunk(size_t d, size_t *depth)
{
	if (l2_tau(d) <= TAU_MAX) {
		*depth = d;
		return d;
	}
	size_t k = (d + L2_CHUNK - 1) / L2_CHUNK, kc = (d + k - 1) / k;
	*depth = kc + k;
	return kc;
}

int pe_gram_usable(enum pe_metric m, size_t d)
{
#ifdef PE_CBLAS_LIBRARY
	int fits = 0;
	size_t depth;
	if (m == PE_METRIC_COSINE || m == PE_METRIC_CORR)
		fits = d >= 8;
	else if (m == PE_METRIC_L2)
		fits = d >= 8 && (l2_chunk(d, &depth), l2_tau(depth) <= TAU_MAX);
	return fits && gemm_ready();
#else
	(void)m;
	(void)d;
	return 0;
#endif
}

static enum pe_status gram_init(struct pe_gram *g, enum pe_metric m, const double *rows,
                                double *writable, size_t n, size_t d, const struct pe_posterm *t)
{
	memset(g, 0, sizeof(*g));
	g->m = m;
	g->n = n;
	g->d = d;
	g->raw = rows;
	g->X = rows;
	g->t = t;
	size_t depth = d;
	g->kc = m == PE_METRIC_L2 ? l2_chunk(d, &depth) : d;
	g->tau = l2_tau(depth);
	if (!pe_gram_usable(m, d) || n > INT_MAX || d > INT_MAX)
		return PE_EUNSUPPORTED;
	if (m == PE_METRIC_L2) {
		if (!(g->sq = malloc(n * sizeof(double))))
			return PE_ENOMEM;
		for (size_t a = 0; a < n; a++) {
			const double *x = rows + a * d;
			double s = 0.0;
			/* chunk by chunk, as the products (one chunk: the plain sum) */
			for (size_t j = 0; j < d; j += g->kc) {
				size_t e = d - j < g->kc ? d : j + g->kc;
				double c = 0.0;
				for (size_t k = j; k < e; k++)
					c += x[k] * x[k];
				s = j == 0 ? c : s + c;
			}
			g->sq[a] = s;
		}
	} else {
		/* cosine's norms, corr's centred norms, side by side for the
		 * vectorised transform */
		if (!(g->scale = malloc(n * sizeof(double))))
			return PE_ENOMEM;
		for (size_t a = 0; a < n; a++) {
			g->scale[a] = m == PE_METRIC_COSINE ? t[a].norm : t[a].cnorm;
			g->zero_scale |= g->scale[a] == 0.0;
		}
	}
	if (m == PE_METRIC_CORR) {
		/* Centred rows: the products are then the covariances themselves,
		 * nothing to cancel against d * ma * mb. */
		size_t count;
		if (pe_size_mul(n, d, &count) != PE_OK || count > SIZE_MAX / sizeof(double))
			return PE_ETOOBIG;
		double *c = writable ? writable : pe_buffer_alloc(count * sizeof(double));
		if (!c)
			return PE_ENOMEM;
		for (size_t a = 0; a < n; a++)
			for (size_t k = 0; k < d; k++)
				c[a * d + k] = rows[a * d + k] - t[a].mean;
		g->owned = writable ? NULL : c;
		g->X = c;
		g->raw = NULL; /* the corr transform never reads the rows themselves */
	}
	return PE_OK;
}

enum pe_status pe_gram_init(struct pe_gram *g, enum pe_metric m, const double *rows, size_t n,
                            size_t d, const struct pe_posterm *t)
{
	return gram_init(g, m, rows, NULL, n, d, t);
}

enum pe_status pe_gram_init_in_place(struct pe_gram *g, enum pe_metric m, double *rows, size_t n,
                                     size_t d, const struct pe_posterm *t)
{
	return gram_init(g, m, rows, rows, n, d, t);
}

enum pe_status pe_gram_terms(const double *rows, size_t n, size_t d, struct pe_posterm **out)
{
	struct pe_posterm *t = malloc((n ? n : 1) * sizeof(*t));
	*out = t;
	if (!t)
		return PE_ENOMEM;
	pe_rows_terms(rows, n, d, t);
	return PE_OK;
}

void pe_gram_release(struct pe_gram *g)
{
	pe_buffer_free(g->owned);
	free(g->sq);
	free(g->scale);
	g->owned = NULL;
	g->sq = NULL;
	g->scale = NULL;
}

/*
 * A caller that overlaps the products with other work (writing the
 * previous panel) runs them on one thread: OpenBLAS's threads otherwise
 * spin between calls (sched_yield) for CPU time that computes nothing.
 * The bits do not change with the thread count (each cell is summed in
 * the same order; checked by sha1 on 8192 x 768 l2, cosine and corr).
 * The count is set back to what it was (the user's OPENBLAS_NUM_THREADS,
 * or what the memory limits allowed, see blas_fits()).
 */
int pe_gram_serial(struct pe_gram *g, int on)
{
#ifdef PE_CBLAS_LIBRARY
	static int saved;
	if (!gemm_ready() || !set_threads)
		return 0;
	if (on && !g->serial) {
		saved = get_threads();
		set_threads(1);
	} else if (!on && g->serial && saved > 0) {
		set_threads(saved);
	}
	g->serial = on;
	return on;
#else
	(void)g;
	(void)on;
	return 0;
#endif
}

/*
 * Two calls at once are safe in an OpenBLAS built with its own threads
 * (its buffers are taken under a lock); a sequential build is so only when
 * built with USE_LOCKING, which it does not report, and an OpenMP one is
 * left alone: one call at a time there.
 */
int pe_gram_concurrent(const struct pe_gram *g)
{
#ifdef PE_CBLAS_LIBRARY
	return g->serial && gemm_ready() && get_parallel && get_parallel() == 1;
#else
	(void)g;
	return 0;
#endif
}

struct transform_job {
	const struct pe_gram *g;
	size_t r0, c0, nc, ldo;
	double *out;
};

/* A cell whose Gram form may have lost digits: from the rows. */
static double l2_direct(const struct pe_gram *g, size_t a, size_t b)
{
	double x;
	pe_rows_metric(PE_METRIC_L2, g->d, g->raw + a * g->d, 1, NULL, g->raw + b * g->d, 1, NULL,
	               &x, 1);
	return x;
}

/*
 * One row's cells, in loops without branches that the compiler vectorises:
 * every cell's formula, then the few exceptions (the diagonal, recomputed
 * l2 cells, zero norms) fixed in a second look. The arithmetic of a cell is
 * the one-cell formula's, so are its bits, in every clone (WIDE_CLONES:
 * the widest vectors the machine has).
 */
WIDE_CLONES static void l2_row(const struct pe_gram *g, size_t a, size_t c0, size_t nc, double *o)
{
	const double *sq = g->sq + c0;
	double sa = g->sq[a], tau = g->tau;
	uint64_t signs = 0; /* the cells' bits or'ed: a sign bit marks a -1 */
	for (size_t k = 0; k < nc; k++) {
		double s = sa + sq[k];
		double d2 = s - 2.0 * o[k];
		double r = sqrt(d2);
		/* d2 >= tau s >= 0 (s is a sum of squares, never -0): r is +0 or more */
		double x = d2 >= tau * s ? r : -1.0; /* -1: recomputed below */
		uint64_t bits;
		memcpy(&bits, &x, sizeof(bits));
		signs |= bits;
		o[k] = x;
	}
	if (signs >> 63)
		for (size_t k = 0; k < nc; k++)
			if (o[k] < 0.0)
				o[k] = l2_direct(g, a, c0 + k);
	if (a >= c0 && a - c0 < nc)
		o[a - c0] = 0.0;
}

WIDE_CLONES static void cosine_row(const struct pe_gram *g, size_t a, size_t c0, size_t nc,
                                   double *o)
{
	const double *nb = g->scale + c0;
	double na = g->scale[a];
	for (size_t k = 0; k < nc; k++)
		o[k] = pe_clip(1.0 - o[k] / (na * nb[k]), 0.0, 2.0);
	if (a >= c0 && a - c0 < nc && na > 0.0)
		o[a - c0] = 0.0;
}

WIDE_CLONES static void corr_row(const struct pe_gram *g, size_t a, size_t c0, size_t nc, double *o)
{
	const double *cb = g->scale + c0;
	double ca = g->scale[a];
	for (size_t k = 0; k < nc; k++)
		o[k] = pe_clip(o[k] / (ca * cb[k]), -1.0, 1.0);
	if (ca == 0.0) {
		for (size_t k = 0; k < nc; k++)
			o[k] = NAN;
		return;
	}
	if (g->zero_scale)
		for (size_t k = 0; k < nc; k++)
			if (cb[k] == 0.0)
				o[k] = NAN;
	if (a >= c0 && a - c0 < nc)
		o[a - c0] = 1.0;
}

static enum pe_status transform_rows(void *ctx, size_t begin, size_t end)
{
	const struct transform_job *j = ctx;
	const struct pe_gram *g = j->g;
	for (size_t i = begin; i < end; i++) {
		double *o = j->out + i * j->ldo;
		if (g->m == PE_METRIC_L2)
			l2_row(g, j->r0 + i, j->c0, j->nc, o);
		else if (g->m == PE_METRIC_COSINE)
			cosine_row(g, j->r0 + i, j->c0, j->nc, o);
		else
			corr_row(g, j->r0 + i, j->c0, j->nc, o);
	}
	return PE_OK;
}

enum pe_status pe_gram_block(const struct pe_gram *g, size_t r0, size_t nr, size_t c0, size_t nc,
                             double *out, size_t ldo)
{
	if (nr == 0 || nc == 0)
		return PE_OK;
#ifdef PE_CBLAS_LIBRARY
	size_t d = g->d;
	if (!gemm_ready())
		return PE_EUNSUPPORTED;
	/* One product for the whole rectangle: the BLAS spreads it over the
	 * cores itself. */
	size_t kc = g->kc ? g->kc : d;
	for (size_t j = 0; j < d; j += kc) {
		size_t kk = d - j < kc ? d - j : kc;
		gemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nr, (int)nc, (int)kk, 1.0,
		     g->X + r0 * d + j, (int)d, g->X + c0 * d + j, (int)d, j == 0 ? 0.0 : 1.0, out,
		     (int)ldo);
	}
#else
	return PE_EUNSUPPORTED;
#endif
	struct transform_job job = {g, r0, c0, nc, ldo, out};
	if (g->serial)
		return transform_rows(&job, 0, nr);
	size_t grain = nc >= 65536 ? 1 : 65536 / nc;
	return pe_parallel_for(nr, grain, transform_rows, &job);
}
