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

#include "analysis/precision_internal.h"

struct curve_job {
	const struct pe_rope_model *exact;
	const struct pe_rope_model *models; /* nprec */
	size_t nprec;
	const size_t *src; /* per precision: an earlier one computing alike and storing unrounded */
	size_t f32;        /* the first precision computing in float32 on its own, or nprec */
	struct pe_precision_curve *c;
	double threshold;
	size_t b0, b1; /* blocks of this job */
	/* per precision: first crossing and largest error within the job */
	uint64_t *exceed;
	double *max_err;
	uint64_t *max_at;
	enum pe_status st;
};

static int has_nan(const double *x, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (isnan(x[i]))
			return 1;
	return 0;
}

static void *curve_run(void *arg)
{
	struct curve_job *j = arg;
	struct pe_precision_curve *cv = j->c;
	size_t h = j->exact->d_rot / 2, np = j->nprec;
	/* exact c, s; per precision c, s and the rounded position they belong to */
	double *buf = malloc((2 * h * (np + 1) + 2 * np) * sizeof(*buf));
	if (!buf) {
		j->st = PE_ENOMEM;
		return NULL;
	}
	double *ec = buf, *es = buf + h, *last = buf + 2 * h * (np + 1);
	/* per precision: 1 when its row holds a NaN (an overflowed position, float16 past 65519):
	 * every error is then infinite, without a pass over the row */
	double *nanrow = last + np;
	for (size_t k = 0; k < np; k++) {
		last[k] = NAN;
		nanrow[k] = 0;
	}
	for (size_t b = j->b0; b < j->b1; b++) {
		uint64_t p0 = cv->first + b * cv->block;
		uint64_t p1 = p0 + cv->block;
		if (p1 > cv->first + cv->n)
			p1 = cv->first + cv->n;
		double *row = cv->err + b * np;
		for (size_t k = 0; k < np; k++)
			row[k] = 0;
		for (uint64_t p = p0; p < p1; p++) {
			double pos = (double)p;
			/* the first float32 model with a new rounded position: with the exact row
			 */
			size_t fused = np;
			if (j->f32 < np && !(pe_round(PE_FLOAT_F32, pos) == last[j->f32])) {
				fused = j->f32;
				double *fc = buf + 2 * h * (fused + 1);
				pe_rope_model_exact_f32(j->exact, &j->models[fused], pos, ec, es,
				                        fc, fc + h);
				last[fused] = pe_round(PE_FLOAT_F32, pos);
				nanrow[fused] =
				        0; /* every position: the error pass sees a NaN anyway */
			} else {
				pe_rope_model_exact_fast(j->exact, pos, ec, es);
			}
			for (size_t k = 0; k < np; k++) {
				const struct pe_rope_model *m = &j->models[k];
				double *pc = buf + 2 * h * (k + 1), *ps = pc + h;
				enum pe_float R = m->prec.compute;
				/* a reduced precision sees only its rounded position */
				double key =
				        R == PE_FLOAT_F32 || R == PE_FLOAT_BF16 || R == PE_FLOAT_F16
				                ? pe_round(R, pos)
				                : pos;
				if (k != fused && !(key == last[k])) {
					size_t src = j->src[k];
					if (src < k) {
						/* same arithmetic as an earlier precision: only the
						 * storage differs */
						const double *sc = buf + 2 * h * (src + 1),
						             *ss = sc + h;
						for (size_t i = 0; i < h; i++) {
							pc[i] = pe_round(m->prec.store, sc[i]);
							ps[i] = pe_round(m->prec.store, ss[i]);
						}
					} else {
						pe_rope_model_pairs(m, pos, NULL, pc, ps);
					}
					last[k] = key;
					nanrow[k] = has_nan(pc, 2 * h);
				}
				/* NaN (an overflowed position) counts as an infinite error */
				double e =
				        nanrow[k] ? INFINITY : pe_prec_max_err(h, pc, ps, ec, es);
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
	}
	free(buf);
	j->st = PE_OK;
	return NULL;
}

double pe_precision_curve_work(size_t d, uint64_t n, const struct pe_precision *precs, size_t nprec)
{
	double units = 1.0; /* the exact values */
	for (size_t k = 0; k < nprec; k++) {
		int seen = 0;
		for (size_t q = 0; q < k; q++)
			seen |= precs[q].compute == precs[k].compute;
		if (seen)
			continue; /* only the storage differs: a rounding per value */
		enum pe_float R = precs[k].compute;
		units += R == PE_FLOAT_BF16 || R == PE_FLOAT_F16 ? 0.5 : 1.0;
	}
	return (double)n * (double)(d / 2) * units;
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

#define MAX_THREADS 16

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
	uint64_t *scratch = calloc((size_t)MAX_THREADS * nprec * 3, sizeof(*scratch));
	enum pe_status st = PE_ENOMEM;
	memset(&exact, 0, sizeof(exact));
	if (!models || !c || !jobs || !scratch || !src)
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
	c->nprec = nprec;
	c->nblocks = nblocks;
	c->first = first;
	c->n = n;
	c->block = block;
	unsigned t = threads ? threads : 2;
	if (t > MAX_THREADS)
		t = MAX_THREADS;
	if (t > nblocks)
		t = (unsigned)nblocks;
	/* a short job is not worth a thread */
	if ((double)n * (double)(exact.d_rot / 2) * (double)nprec < 2e5)
		t = 1;
	for (unsigned i = 0; i < t; i++) {
		struct curve_job *j = &jobs[i];
		j->exact = &exact;
		j->models = models;
		j->nprec = nprec;
		j->src = src;
		j->f32 = nprec;
		for (size_t k = nprec; k-- > 0;)
			if (models[k].prec.compute == PE_FLOAT_F32 && src[k] == k &&
			    models[k].d_rot == exact.d_rot)
				j->f32 = k;
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
	pe_precision_curve_destroy(c);
	return st;
}
