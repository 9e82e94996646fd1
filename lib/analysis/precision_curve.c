/*
 * Error of reduced-precision RoPE tables against exact ones, position by
 * position, gathered into blocks (posenc/precision.h). Every position is
 * evaluated; threads take contiguous ranges of blocks.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/precision.h>
#include <posenc/rope.h>

#include "analysis/precision_internal.h"

#define MAX_THREADS 16

/* lanes of the kernels' per-lane maxima (precision_fast.c) */
#define VLANES 8

/*
 * A float32 precision whose pairs are pruned (errors_at()): r > 0, the
 * bound of pe_prec_f32_prune(), and its pairs in the order of kap, the
 * bound of their angle's error per position, largest first.
 */
struct prune {
	double r;
	uint32_t *ord;             /* pair of each place */
	double *th32, *thex, *kap; /* per place */
};

struct curve_job {
	const struct pe_rope_model *exact;
	const struct pe_rope_model *models; /* nprec */
	size_t nprec;
	const size_t *src; /* per precision: an earlier one computing alike and storing unrounded */
	const struct prune *prune; /* per precision */
	struct pe_precision_curve *c;
	double threshold;
	size_t b0, b1; /* blocks of this job */
	/* per precision: first crossing and largest error within the job */
	uint64_t *exceed;
	double *max_err;
	uint64_t *max_at;
	enum pe_status st;
};

/*
 * The exact row is computed (pe_rope_model_exact_fast()) at the first
 * position of a job and every RESYNC positions after it, and in between
 * turned by each pair's frequency: one rotation per pair and position
 * instead of a sine-cosine and an exact product. A turn by (rc, rs), libm's
 * cos and sin (within an ulp, 1.1e-16), of a vector v adds at most
 * 2.3e-16 |v| through (rc, rs) and 4.4e-16 |v| through its two roundings
 * per component, |v| <= att: after RESYNC - 1 = 255 turns the row is within
 * 1.7e-13 att of the exact one (itself within 2e-15 att of the real values),
 * and every error against it within that plus a rounding of the error
 * (2.2e-16 of 2 att). REF_SLACK leaves more than a factor of 20.
 */
#define RESYNC    256
#define REF_SLACK 4e-12

/*
 * The candidates of BATCH positions are computed together (one call, one
 * position per lane): alone, the few pairs of one position leave the
 * kernel waiting on its own latency. A position with more than CAP
 * candidates is done on its own, with whole rows.
 */
#define BATCH 16
#define CAP   64

/* One candidate pair of one precision at one position of the batch. */
struct item {
	uint32_t lane; /* its lane: position and pair */
	uint32_t t, k; /* the position's place in the batch, the precision */
	int fused;     /* its values are the lane's float32 ones (see curve_buf.fused) */
	double pc, ps; /* else its values */
};

struct curve_buf {
	double *ec, *es; /* the exact row, or its rotation */
	double *rc, *rs; /* cos and sin of each frequency */
	double *rows;    /* per precision: c, s */
	double *last;    /* per precision: the rounded position its row belongs to */
	double *nanrow;  /* per precision: 1 when its row holds a NaN */
	double *e;       /* per precision: each pair's error (or bound) */
	double *lm;      /* per precision: the largest e of each lane */
	double *th;      /* room for the frequencies of some pairs */
	double *pc, *ps; /* a pruned precision's values at its candidates */
	uint32_t *cand;  /* a precision's pairs that may hold its largest error */
	uint32_t *slot;  /* per pair: its lane at the current position, or UINT32_MAX */
	uint32_t *lpair; /* per lane: its pair */
	size_t fused;    /* the first pruned precision: its values come with the exact ones */
	/* the batch: lanes (position, exact frequency, float32 frequency, results) */
	size_t nl, ni, nt;
	double *lpos, *lthex, *lth32, *lxc, *lxs, *lfc, *lfs;
	struct item *items;
	uint64_t *tpos; /* per place: the position */
	double *terr;   /* per place and precision: the error, or NAN until computed */
};

static int has_nan(const double *x, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (isnan(x[i]))
			return 1;
	return 0;
}

/* A precision's row at @pos, unless it has it already (the same rounded position). */
static void update_row(const struct curve_job *j, struct curve_buf *b, size_t k, double pos)
{
	size_t h = j->exact->d_rot / 2;
	const struct pe_rope_model *m = &j->models[k];
	double *pc = b->rows + 2 * h * k, *ps = pc + h;
	enum pe_float R = m->prec.compute;
	/* a reduced precision sees only its rounded position */
	double key = R == PE_FLOAT_F32 || R == PE_FLOAT_BF16 || R == PE_FLOAT_F16 ? round_to(R, pos)
	                                                                          : pos;
	if (key == b->last[k])
		return;
	size_t src = j->src[k];
	if (src < k) {
		/* same arithmetic as an earlier precision (updated first): only the storage differs
		 */
		const double *sc = b->rows + 2 * h * src, *ss = sc + h;
		for (size_t i = 0; i < h; i++) {
			pc[i] = round_to(m->prec.store, sc[i]);
			ps[i] = round_to(m->prec.store, ss[i]);
		}
	} else {
		pe_rope_model_pairs(m, pos, NULL, pc, ps);
	}
	b->last[k] = key;
	b->nanrow[k] = has_nan(pc, 2 * h);
}

/*
 * The pairs of a pruned float32 precision that can hold its largest error
 * at @pos, into cand[] (their count). Bounds of each pair's error from its
 * angle alone (pe_prec_f32_prune()): only a pair whose upper bound reaches
 * the largest lower bound can hold the largest error. The pairs are visited
 * by decreasing kap: all those after place n have an error of at most
 * att pos kap[n] + r, and once that is below the largest lower bound found
 * they are left out without their angles being formed. u[] holds the upper
 * bounds by place.
 */
static size_t prune_pairs(const struct prune *pr, size_t h, double att, double pos, double *u,
                          uint32_t *cand)
{
	double low;
	size_t n = pe_prec_f32_prune(h, pr->th32, pr->thex, pr->kap, round_to(PE_FLOAT_F32, pos),
	                             pos, att, pr->r, u, &low);
	size_t nc = 0;
	/* without a branch: which pairs pass is data, not a pattern */
	for (size_t q = 0; q < n; q++) {
		cand[nc] = pr->ord[q];
		nc += u[q] >= low;
	}
	return nc;
}

/*
 * The indices i with e[i] >= floor into idx[], their count (every index
 * when floor <= 0), looking only at the lanes (pairs i = k mod 8) whose
 * largest value lm[k] reaches the floor.
 */
static size_t above(size_t h, const double *e, const double *lm, double floor, uint32_t *idx)
{
	size_t n = 0;
	if (!(floor > 0.0)) {
		for (size_t i = 0; i < h; i++)
			idx[n++] = (uint32_t)i;
		return n;
	}
	/* only the lanes whose largest value reaches the floor */
	for (size_t k = 0; k < VLANES && k < h; k++) {
		if (lm[k] < floor)
			continue;
		for (size_t i = k; i < h; i += VLANES) {
			idx[n] = (uint32_t)i;
			n += e[i] >= floor;
		}
	}
	return n;
}

/* A position's errors into the curve: its block's largest, the first crossing, the largest. */
static void apply(struct curve_job *j, uint64_t p, const double *err)
{
	const struct pe_precision_curve *cv = j->c;
	double *row = cv->err + (size_t)((p - cv->first) / cv->block) * j->nprec;
	for (size_t k = 0; k < j->nprec; k++) {
		double e = err[k];
		if (e > row[k])
			row[k] = e;
		if (e > j->threshold && j->exceed[k] == UINT64_MAX)
			j->exceed[k] = p;
		if (e > j->max_err[k]) {
			j->max_err[k] = e;
			j->max_at[k] = p;
		}
	}
}

/* The batch's exact values and errors, applied in position order; the batch is then empty. */
static void flush(struct curve_job *j, struct curve_buf *b)
{
	size_t np = j->nprec;
	if (b->nl) {
		const struct pe_rope_model *m = b->fused < np ? &j->models[b->fused] : j->exact;
		pe_rope_model_exact_f32_at(j->exact, m, b->lpos, b->lthex, b->lth32, b->nl, b->lxc,
		                           b->lxs, b->lfc, b->lfs);
	}
	for (size_t q = 0; q < b->ni; q++) {
		const struct item *it = &b->items[q];
		size_t l = it->lane;
		double vc = it->fused ? b->lfc[l] : it->pc, vs = it->fused ? b->lfs[l] : it->ps;
		double dc = fabs(vc - b->lxc[l]), ds = fabs(vs - b->lxs[l]);
		double *e = &b->terr[it->t * np + it->k];
		/* NaN counts as an infinite error */
		if (isnan(dc) || isnan(ds))
			*e = INFINITY;
		if (dc > *e)
			*e = dc;
		if (ds > *e)
			*e = ds;
	}
	for (size_t t = 0; t < b->nt; t++)
		apply(j, b->tpos[t], b->terr + t * np);
	b->nl = b->ni = b->nt = 0;
}

/*
 * A position's errors against whole rows: the exact row (computed here
 * unless @exact says ec, es hold it) and each precision's row.
 */
static void whole_rows(struct curve_job *j, struct curve_buf *b, uint64_t p, int exact)
{
	size_t h = j->exact->d_rot / 2, np = j->nprec;
	double pos = (double)p, *err = b->terr + BATCH * np;
	if (!exact)
		pe_rope_model_exact_fast(j->exact, pos, b->ec, b->es);
	for (size_t k = 0; k < np; k++) {
		const double *pc = b->rows + 2 * h * k, *ps = pc + h;
		update_row(j, b, k, pos);
		/* NaN (an overflowed position) counts as an infinite error */
		err[k] = b->nanrow[k] ? INFINITY : pe_prec_max_err(h, pc, ps, b->ec, b->es);
	}
	apply(j, p, err);
}

/*
 * Each precision's error at a position @p, the exact row turned to it from
 * the previous position's, the same bits as against the exact row:
 * - a precision with its whole row: its errors against the rotated row are
 *   within REF_SLACK' = REF_SLACK max(1, att) of the exact ones, so the
 *   largest exact error is at a pair whose rotated error is within
 *   2 REF_SLACK' of the largest rotated error; only those pairs are
 *   compared with exact values;
 * - a pruned float32 precision (j->prune[k].r > 0): prune_pairs(); only its
 *   candidates are computed, values and exact values.
 * The candidates join the batch; with more than CAP of them (errors alike,
 * as at small positions) the position is done with whole rows, and the
 * rotations start again from its exact row (return 1).
 */
static int errors_at(struct curve_job *j, struct curve_buf *b, uint64_t p)
{
	const struct pe_rope_model *ex = j->exact;
	size_t h = ex->d_rot / 2, np = j->nprec, cap = h / 2 < CAP ? h / 2 : CAP;
	size_t l0 = b->nl, i0 = b->ni, t = b->nt;
	double pos = (double)p, slack = 2 * REF_SLACK * fmax(1.0, ex->att);
	int few = 1, turned = 0;
	for (size_t k = 0; k < np && few; k++) {
		const struct pe_rope_model *m = &j->models[k];
		uint32_t *cand = b->cand;
		double *e = b->e + h * k, *lm = b->lm + VLANES * k;
		const double *pc = b->rows + 2 * h * k, *ps = pc + h;
		size_t n;
		int pruned = j->prune[k].r > 0;
		b->terr[t * np + k] = 0.0;
		if (pruned) {
			n = prune_pairs(&j->prune[k], h, ex->att, pos, e, cand);
			b->last[k] = NAN; /* its row is not kept */
			if (k != b->fused && n <= cap) {
				pe_rope_model_pairs_some(m, pos, cand, n, b->th, b->pc, b->ps);
				pc = b->pc;
				ps = b->ps;
			}
		} else {
			/* an overflowed float16 position stays so: positions only grow */
			if (!(b->nanrow[k] && isinf(b->last[k])))
				update_row(j, b, k, pos);
			if (b->nanrow[k]) {
				b->terr[t * np + k] = INFINITY;
				continue;
			}
			/* the first whole row turns the exact row as it goes */
			double top = turned ? pe_prec_err_row(h, pc, ps, b->ec, b->es, e, lm)
			                    : pe_prec_rotate_err_row(h, b->rc, b->rs, b->ec, b->es,
			                                             pc, ps, e, lm);
			turned = 1;
			n = above(h, e, lm, top - slack, cand);
		}
		if (n > cap) {
			few = 0;
			break;
		}
		for (size_t q = 0; q < n && few; q++) {
			uint32_t i = cand[q];
			if (b->slot[i] == UINT32_MAX) {
				if (b->nl - l0 >= cap) {
					few = 0;
					break;
				}
				b->slot[i] = (uint32_t)b->nl;
				b->lpos[b->nl] = pos;
				b->lthex[b->nl] = ex->theta[i];
				b->lth32[b->nl] =
				        b->fused < np ? j->models[b->fused].theta[i] : 0.0;
				b->lpair[b->nl] = i;
				b->nl++;
			}
			struct item *it = &b->items[b->ni++];
			it->lane = b->slot[i];
			it->t = (uint32_t)t;
			it->k = (uint32_t)k;
			it->fused = pruned && k == b->fused;
			/* a pruned precision's values are by place in cand[], the others' by
			 * pair; the fused one's come with the exact values */
			it->pc = it->fused ? 0.0 : pruned ? pc[q] : pc[i];
			it->ps = it->fused ? 0.0 : pruned ? ps[q] : ps[i];
		}
	}
	if (!turned)
		pe_prec_rotate_row(h, b->rc, b->rs, b->ec, b->es);
	for (size_t l = l0; l < b->nl; l++)
		b->slot[b->lpair[l]] = UINT32_MAX;
	if (!few) {
		b->nl = l0;
		b->ni = i0;
		return 1;
	}
	b->tpos[t] = p;
	b->nt++;
	return 0;
}

static void *curve_run(void *arg)
{
	struct curve_job *j = arg;
	struct pe_precision_curve *cv = j->c;
	size_t h = j->exact->d_rot / 2, np = j->nprec, nlanes = BATCH * CAP;
	size_t nd = h * (3 * np + 10) + np * (2 + VLANES + BATCH + 1) + 7 * nlanes;
	double *buf = malloc(nd * sizeof(*buf));
	uint32_t *ibuf = malloc((2 * h + nlanes) * sizeof(*ibuf));
	struct item *items = malloc(BATCH * CAP * np * sizeof(*items));
	uint64_t tpos[BATCH];
	if (!buf || !ibuf || !items) {
		free(buf);
		free(ibuf);
		free(items);
		j->st = PE_ENOMEM;
		return NULL;
	}
	double *tail = buf + h * (3 * np + 10), *lanes = tail + np * (2 + VLANES + BATCH + 1);
	struct curve_buf b = {
	        .ec = buf,
	        .es = buf + h,
	        .rc = buf + 2 * h,
	        .rs = buf + 3 * h,
	        .th = buf + 4 * h, /* 2 h */
	        .pc = buf + 6 * h,
	        .ps = buf + 7 * h,
	        .e = buf + 8 * h,             /* h np */
	        .rows = buf + 8 * h + h * np, /* 2 h np + 2 h */
	        .last = tail,
	        .nanrow = tail + np,
	        .lm = tail + 2 * np,
	        .terr = tail + np * (2 + VLANES),
	        .cand = ibuf,
	        .slot = ibuf + h,
	        .lpair = ibuf + 2 * h,
	        .fused = np,
	        .lpos = lanes,
	        .lthex = lanes + nlanes,
	        .lth32 = lanes + 2 * nlanes,
	        .lxc = lanes + 3 * nlanes,
	        .lxs = lanes + 4 * nlanes,
	        .lfc = lanes + 5 * nlanes,
	        .lfs = lanes + 6 * nlanes,
	        .items = items,
	        .tpos = tpos,
	};
	for (size_t k = np; k-- > 0;)
		if (j->prune[k].r > 0)
			b.fused = k;
	for (size_t i = 0; i < h; i++) {
		b.rc[i] = cos(j->exact->theta[i]);
		b.rs[i] = sin(j->exact->theta[i]);
		b.slot[i] = UINT32_MAX;
	}
	for (size_t k = 0; k < np; k++) {
		b.last[k] = NAN;
		b.nanrow[k] = 0;
	}
	for (size_t bl = j->b0; bl < j->b1; bl++)
		for (size_t k = 0; k < np; k++)
			cv->err[bl * np + k] = 0;
	/* the last block may be short (below nblocks, b1 * block < n) */
	uint64_t p0 = cv->first + j->b0 * cv->block;
	uint64_t p1 = j->b1 < cv->nblocks ? cv->first + j->b1 * cv->block : cv->first + cv->n;
	unsigned since = RESYNC;
	for (uint64_t p = p0; p < p1; p++) {
		if (since >= RESYNC) {
			flush(j, &b);
			pe_rope_model_exact_fast(j->exact, (double)p, b.ec, b.es);
			whole_rows(j, &b, p, 1);
			since = 1;
			continue;
		}
		since++;
		if (errors_at(j, &b, p)) {
			flush(j, &b);
			whole_rows(j, &b, p, 0);
			since = 1;
		} else if (b.nt == BATCH) {
			flush(j, &b);
		}
	}
	flush(j, &b);
	free(buf);
	free(ibuf);
	free(items);
	j->st = PE_OK;
	return NULL;
}

/*
 * The bound r of pe_prec_f32_bounds() for a float32 model @m against the
 * exact one @ex: with A = max(1, att, att32), the recipe's float32 roundings
 * of cos or sin and of its product with att32 (2^-24 A each), its
 * sine-cosine's error (2 ulps) and the exact values' (1e-15 A), the
 * storage's rounding (u A with u = 2^-24, 2^-8 or 2^-11, plus float16's
 * subnormal step 2^-25) and the two factors' difference; 4 2^-24 A covers
 * the first four with room.
 */
static double prune_bound(const struct pe_rope_model *m, const struct pe_rope_model *ex)
{
	double att32 = round_to(PE_FLOAT_F32, m->att);
	double A = fmax(1.0, fmax(ex->att, att32));
	double u = 0x1p-24, tiny = 0;
	if (m->prec.store == PE_FLOAT_BF16)
		u = 0x1p-8;
	if (m->prec.store == PE_FLOAT_F16) {
		u = 0x1p-11;
		tiny = 0x1p-25;
	}
	return A * (4 * 0x1p-24 + 1.01 * u) + 1.01 * fabs(att32 - ex->att) + tiny;
}

struct kap_place {
	double kap;
	uint32_t pair;
};

static int by_kap(const void *a, const void *b)
{
	double x = ((const struct kap_place *)a)->kap, y = ((const struct kap_place *)b)->kap;
	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * The pruning of float32 model @m: kap_i bounds |a_i - b_i| / pos, the
 * float32 angle against the exact one: the angle's rounding (2^-24 of
 * mr th32_i), the position's (|mr - pos| <= 2^-24 pos) and the frequency's
 * (pos |th32_i - thex_i|), widened by 2^-40 for its own roundings.
 */
static enum pe_status prune_init(struct prune *pr, const struct pe_rope_model *m,
                                 const struct pe_rope_model *ex)
{
	size_t h = ex->d_rot / 2;
	struct kap_place *kp = malloc(h * sizeof(*kp));
	pr->ord = malloc(h * sizeof(*pr->ord));
	pr->th32 = malloc(3 * h * sizeof(double));
	if (!kp || !pr->ord || !pr->th32) {
		free(kp);
		return PE_ENOMEM;
	}
	pr->thex = pr->th32 + h;
	pr->kap = pr->th32 + 2 * h;
	for (size_t i = 0; i < h; i++) {
		double t = m->theta[i];
		kp[i].kap = ((0x1p-23 + 0x1p-47) * t + fabs(t - ex->theta[i])) * (1 + 0x1p-40);
		kp[i].pair = (uint32_t)i;
	}
	qsort(kp, h, sizeof(*kp), by_kap);
	for (size_t q = 0; q < h; q++) {
		pr->ord[q] = kp[q].pair;
		pr->kap[q] = kp[q].kap;
		pr->th32[q] = m->theta[kp[q].pair];
		pr->thex[q] = ex->theta[kp[q].pair];
	}
	free(kp);
	pr->r = prune_bound(m, ex);
	return PE_OK;
}

/* Threads of pe_precision_curve_compute(): @threads (0: 2), at most one per block, one for
 * a short job. */
static unsigned curve_threads(unsigned threads, uint64_t nblocks, uint64_t n, size_t h,
                              size_t nprec)
{
	unsigned t = threads ? threads : 2;
	if (t > MAX_THREADS)
		t = MAX_THREADS;
	if (t > nblocks)
		t = (unsigned)nblocks;
	/* a short job is not worth a thread */
	if ((double)n * (double)h * (double)nprec < 2e5)
		t = 1;
	return t;
}

/*
 * The cost of a position relative to small ones: angles past 2^25 pi/2
 * (float32) or 2^26 (exact) take the scalar reductions, in more pairs as
 * the position grows (1.8x at 1e8, 5x at 1e9, 10x at 1e12, 11-17x up to
 * 2^53, measured).
 */
static double position_cost(double p)
{
	return p <= 5e7 ? 1.0 : 1.0 + 10.0 * fmin(1.0, log10(p / 5e7) / 4);
}

/*
 * The cost model, in CPU nanoseconds, fitted to this code on a 2-vCPU AMD
 * EPYC (AVX-512) VM: the rotated exact row, 0.6 ns a pair and position;
 * per precision a cost per pair (w) and per position (c):
 *   f32 pruned, stored as float32   w 0.05  c 80  (a few pairs per position)
 *   f32 pruned, stored coarser (weaker bounds)    w 5   c 50
 *   f32 copied by another precision (not pruned)  w 7   c 50
 *   a copy (only the storage differs)             w 1   c 25
 *   bf16 (its row recomputed rarely)              w 0.9 c 25
 *   f16, at the positions below its overflow      w 2   c 25 (inf beyond: free)
 *   f64 (a row every position)                    w 6   c 50
 * and position_cost() times that at large positions.
 * The model is within 1.5x of the CPU time there. Wall time: CPU time over
 * the threads, times 1.5 for a machine shared with other work (measured
 * 1.0x idle to 3x with two other jobs on the 2 vCPUs).
 */
double pe_precision_curve_seconds(const struct pe_scheme *s, size_t d, uint64_t first, uint64_t n,
                                  const struct pe_precision *precs, size_t nprec, uint64_t block,
                                  unsigned threads)
{
	if (!s || n == 0 || nprec == 0 || block == 0)
		return 0.0;
	double h = (double)(pe_rope_rotary_width(s, d) / 2), nn = (double)n, ns = nn * h * 0.6;
	for (size_t k = 0; k < nprec; k++) {
		enum pe_float R = precs[k].compute, S = precs[k].store;
		int copy = 0, copied = 0;
		for (size_t q = 0; q < nprec; q++) {
			int alike = q != k && precs[q].compute == R;
			copy |= alike && q < k && precs[q].store == R;
			copied |= alike && q > k && S == R;
		}
		double w = 6, c = 50, nk = nn;
		if (copy) {
			w = 1;
			c = 25;
		} else if (R == PE_FLOAT_F32) {
			w = copied ? 7 : S == R ? 0.05 : 5;
			c = copied || S != R ? 50 : 80;
		} else if (R == PE_FLOAT_BF16) {
			w = 0.9;
			c = 25;
		} else if (R == PE_FLOAT_F16) {
			w = 2;
			c = 25;
			nk = (double)first >= 65520.0 ? 0.0 : fmin(nn, 65520.0 - (double)first);
		}
		ns += nk * (h * w + c);
	}
	/* the mean over the positions (sampled at 16 evenly spaced) of position_cost() */
	double f = 0.0;
	for (int q = 0; q < 16; q++)
		f += position_cost((double)first + (q + 0.5) / 16 * nn) / 16;
	ns *= f;
	uint64_t nblocks = (n - 1) / block + 1;
	return 1.5 * ns * 1e-9 / curve_threads(threads, nblocks, n, (size_t)h, nprec);
}

double pe_precision_curve_bytes(const struct pe_scheme *s, size_t d, uint64_t n, size_t nprec,
                                uint64_t block, unsigned threads)
{
	if (!s || n == 0 || nprec == 0 || block == 0)
		return 0.0;
	double h = (double)(pe_rope_rotary_width(s, d) / 2), np = (double)nprec;
	double nlanes = BATCH * CAP;
	/* each thread's buffers, as curve_run() allocates them */
	double per_thread =
	        (h * (3 * np + 10) + np * (2 + VLANES + BATCH + 1) + 7 * nlanes) * sizeof(double) +
	        (2 * h + nlanes) * sizeof(uint32_t) + nlanes * np * sizeof(struct item);
	/* the exact model and each precision's frequencies, the pruned ones' orders and bounds,
	 * the curve's own arrays */
	uint64_t nblocks = (n - 1) / block + 1;
	double shared = (np + 1) * h * sizeof(double) + np * h * (3 * sizeof(double) + 4) +
	                (double)nblocks * np * sizeof(double) +
	                (double)MAX_THREADS * np * 3 * sizeof(uint64_t);
	return curve_threads(threads, nblocks, n, (size_t)h, nprec) * per_thread + shared;
}

void pe_precision_curve_destroy(struct pe_precision_curve *c)
{
	if (!c)
		return;
	free(c->err);
	free(c->exceed);
	free(c->max_err);
	free(c->max_at);
	free(c);
}

static void prune_free(struct prune *pr, size_t nprec)
{
	for (size_t k = 0; pr && k < nprec; k++) {
		free(pr[k].ord);
		free(pr[k].th32);
	}
	free(pr);
}

enum pe_status pe_precision_curve_compute(const struct pe_scheme *s, size_t d, uint64_t first,
                                          uint64_t n, const struct pe_precision *precs,
                                          size_t nprec, uint64_t block, double threshold,
                                          unsigned threads, struct pe_precision_curve **out)
{
	*out = NULL;
	if (block == 0 || nprec == 0 || n == 0)
		return PE_EINVAL;
	if ((double)first + (double)(n - 1) > PE_POSITION_MAX)
		return PE_ERANGE;
	uint64_t nblocks = (n - 1) / block + 1;
	if (nblocks > SIZE_MAX / sizeof(double) / nprec)
		return PE_ETOOBIG;
	struct pe_rope_model exact, *models = calloc(nprec, sizeof(*models));
	struct pe_precision_curve *c = calloc(1, sizeof(*c));
	struct curve_job *jobs = calloc(MAX_THREADS, sizeof(*jobs));
	size_t *src = calloc(nprec, sizeof(*src));
	struct prune *prune = calloc(nprec, sizeof(*prune));
	uint64_t *scratch = calloc((size_t)MAX_THREADS * nprec * 3, sizeof(*scratch));
	enum pe_status st = PE_ENOMEM;
	memset(&exact, 0, sizeof(exact));
	if (!models || !c || !jobs || !scratch || !src || !prune)
		goto fail;
	for (size_t k = 0; k < nprec; k++) {
		src[k] = k;
		for (size_t q = 0; q < k && src[k] == k; q++)
			if (precs[q].compute == precs[k].compute &&
			    precs[q].store == precs[q].compute)
				src[k] = q;
	}
	c->err = calloc(nblocks * nprec, sizeof(*c->err));
	c->exceed = malloc(nprec * sizeof(*c->exceed));
	c->max_err = calloc(nprec, sizeof(*c->max_err));
	c->max_at = calloc(nprec, sizeof(*c->max_at));
	if (!c->err || !c->exceed || !c->max_err || !c->max_at)
		goto fail;
	struct pe_precision ex = {PE_FLOAT_EXACT, PE_FLOAT_EXACT};
	st = pe_rope_model_init(&exact, s, d, ex, 0, 0, NULL);
	for (size_t k = 0; k < nprec && st == PE_OK; k++)
		st = pe_rope_model_init(&models[k], s, d, precs[k], 0, 0, NULL);
	if (st != PE_OK)
		goto fail;
	/* float32 models whose row no other precision copies are pruned */
	for (size_t k = 0; k < nprec; k++) {
		int copied = 0;
		for (size_t q = 0; q < nprec; q++)
			copied |= q != k && src[q] == k;
		if (models[k].prec.compute == PE_FLOAT_F32 && src[k] == k && !copied &&
		    models[k].d_rot == exact.d_rot && st == PE_OK)
			st = prune_init(&prune[k], &models[k], &exact);
	}
	if (st != PE_OK)
		goto fail;
	c->nprec = nprec;
	c->nblocks = nblocks;
	c->first = first;
	c->n = n;
	c->block = block;
	unsigned t = curve_threads(threads, nblocks, n, exact.d_rot / 2, nprec);
	for (unsigned i = 0; i < t; i++) {
		struct curve_job *j = &jobs[i];
		j->exact = &exact;
		j->models = models;
		j->nprec = nprec;
		j->src = src;
		j->prune = prune;
		j->c = c;
		j->threshold = threshold;
		j->b0 = (size_t)(nblocks * i / t);
		j->b1 = (size_t)(nblocks * (i + 1) / t);
		j->exceed = scratch + (size_t)i * nprec * 3;
		j->max_at = j->exceed + nprec;
		j->max_err = (double *)(void *)(j->max_at + nprec);
		for (size_t k = 0; k < nprec; k++) {
			j->exceed[k] = UINT64_MAX;
			j->max_err[k] = 0;
			j->max_at[k] = first;
		}
		j->st = PE_ENOMEM;
	}
	pthread_t tid[MAX_THREADS];
	unsigned started = 0;
	for (unsigned i = 1; i < t; i++) {
		if (pthread_create(&tid[i], NULL, curve_run, &jobs[i]) != 0)
			break;
		started = i;
	}
	/* jobs whose thread did not start run here */
	curve_run(&jobs[0]);
	for (unsigned i = started + 1; i < t; i++)
		curve_run(&jobs[i]);
	for (unsigned i = 1; i <= started; i++)
		pthread_join(tid[i], NULL);
	for (unsigned i = 0; i < t; i++)
		if (jobs[i].st != PE_OK)
			st = jobs[i].st;
	if (st != PE_OK)
		goto fail;
	/* jobs are in position order: the first crossing is the first job's that has one */
	for (size_t k = 0; k < nprec; k++) {
		c->exceed[k] = UINT64_MAX;
		c->max_err[k] = 0;
		c->max_at[k] = first;
		for (unsigned i = 0; i < t; i++) {
			if (c->exceed[k] == UINT64_MAX)
				c->exceed[k] = jobs[i].exceed[k];
			if (jobs[i].max_err[k] > c->max_err[k]) {
				c->max_err[k] = jobs[i].max_err[k];
				c->max_at[k] = jobs[i].max_at[k];
			}
		}
	}
	pe_rope_model_free(&exact);
	for (size_t k = 0; k < nprec; k++)
		pe_rope_model_free(&models[k]);
	free(models);
	free(jobs);
	free(scratch);
	free(src);
	prune_free(prune, nprec);
	*out = c;
	return PE_OK;
fail:
	pe_rope_model_free(&exact);
	if (models)
		for (size_t k = 0; k < nprec; k++)
			pe_rope_model_free(&models[k]);
	free(models);
	free(jobs);
	free(scratch);
	free(src);
	prune_free(prune, nprec);
	pe_precision_curve_destroy(c);
	return st;
}
