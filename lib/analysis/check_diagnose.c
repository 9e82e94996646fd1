/*
 * posenc check: which known mistake explains a disagreeing dump.
 *
 * Each hypothesis is the spec's model with one thing changed (the pairing,
 * the scaling, the base, the attention factor, the positions, the rotary
 * width of the exponent, the precision). Each is scored by its root mean
 * square error on up to 2048 rows spread over the dump (a largest error
 * would count one rounding that went the other way as much as a wrong
 * model); continuous parameters
 * (base, factor) are fitted first on the first rows, where the error is a
 * smooth function of them. The winner must at least halve the reference's
 * error; among hypotheses within 1.5 times the smallest error the first in
 * the list wins (the list goes from discrete, common mistakes to fitted
 * ones, so "rotary width 128" is preferred to the equivalent fitted base).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/rope.h>

#include "analysis/check_internal.h"
#include "scheme/encode_internal.h"

#define MAX_HYP    128
#define SCORE_MAX  2048
#define FIT_FIRST  32
#define FIT_SPREAD 16

struct hyp {
	struct check_hyp h;
	enum pe_check_mistake mistake;
	double value;
	char text[512];
	double err; /* root mean square error on the score rows */
};

struct ctx {
	const struct pe_scheme *s;
	const struct pe_matrix *dump;
	const struct pe_check_options *opt;
	const struct pe_check_form *f;
	const size_t *idx;
	size_t nidx;
	struct check_hyp h;    /* the hypothesis a fit varies */
	int param;             /* 0: base, 1: factor */
	const size_t *fit_idx; /* rows for check_fit_last_bits() */
	size_t nfit;
	unsigned char *zero;     /* pairs that do not turn in the dump (owned) */
	int cuda;                /* vLLM's GPU path differs from its CPU path for this spec */
	const size_t *score_idx; /* the rows hypotheses are scored on */
	size_t nscore;
};

static const char *long_name(enum pe_float f)
{
	switch (f) {
	case PE_FLOAT_F64:
		return "float64";
	case PE_FLOAT_F32:
		return "float32";
	case PE_FLOAT_BF16:
		return "bfloat16";
	case PE_FLOAT_F16:
		return "float16";
	default:
		return "exact";
	}
}

static void precision_text(struct pe_precision p, char *buf, size_t cap)
{
	char name[16];
	pe_precision_name(p, name, sizeof(name));
	if (p.compute == p.store)
		snprintf(buf, cap, "every step in %s (posenc --precision %s)", long_name(p.compute),
		         name);
	else
		snprintf(buf, cap, "%s angles, cos and sin stored as %s (posenc --precision %s)",
		         long_name(p.compute), long_name(p.store), name);
}

/* Largest error (and optionally the sum of squares) of a hypothesis on rows idx. */
static enum pe_status eval(const struct ctx *c, const struct check_hyp *h, const size_t *idx,
                           size_t nidx, struct pe_check_stats *st, double *ss)
{
	struct check_model m;
	enum pe_status rc = check_model_build(c->s, c->f->d, h, &m);
	if (rc != PE_OK)
		return rc;
	rc = check_fit_last_bits(&m, c->f, c->dump, c->opt, c->fit_idx, c->nfit);
	if (rc == PE_OK)
		rc = check_compare(&m, c->f, c->dump, c->opt, idx, nidx, st, NULL, NULL, NULL, ss);
	check_model_free(&m);
	return rc;
}

/*
 * A hypothesis at the dump's own precision: when the dump is known to be
 * stored in float32 (or bfloat16, float16) and the reference is exact, the
 * hypothesis is also computed in float32 along each engine's path, and the
 * closest is kept in @h (so a float32 table with the scaling left out is
 * that, not a base fitted to its rounding).
 */
static enum pe_status eval_own(const struct ctx *c, struct check_hyp *h, const size_t *idx,
                               size_t nidx, struct pe_check_stats *st, double *ss)
{
	enum pe_status rc = eval(c, h, idx, nidx, st, ss);
	enum pe_float S = c->opt->dump_store;
	if (rc != PE_OK || !pe_check_has_model(c->s) ||
	    (h->prec.compute != PE_FLOAT_EXACT && h->prec.compute != PE_FLOAT_F64) ||
	    (S != PE_FLOAT_F32 && S != PE_FLOAT_BF16 && S != PE_FLOAT_F16))
		return rc;
	for (int p = 0; p < CHECK_PATH_COUNT && rc == PE_OK; p++) {
		if (p == CHECK_PATH_GGML && h->theta_bf16)
			continue; /* ggml has no inv_freq buffer */
		if (p == CHECK_PATH_VLLM && h->scaling.type != PE_ROPE_SCALING_LINEAR)
			continue; /* torch's path */
		if (p == CHECK_PATH_VLLM_CUDA && !c->cuda)
			continue; /* vLLM's CPU path */
		struct check_hyp v = *h;
		struct pe_check_stats st2;
		double ss2;
		v.prec = (struct pe_precision){PE_FLOAT_F32, S};
		v.path = (enum check_path)p;
		rc = eval(c, &v, idx, nidx, &st2, &ss2);
		if (rc == PE_OK && ss2 < 0.25 * *ss) {
			*h = v;
			*st = st2;
			*ss = ss2;
		}
	}
	return rc;
}

/*
 * The objective of a fit: mean squared error at log-parameter x on the fit rows, in
 * exact arithmetic, or with @own at the dump's own precision (eval_own: float32 along
 * each path).
 */
static double objective(struct ctx *c, double x, int own)
{
	struct check_hyp h = c->h;
	if (c->param == 0)
		h.base = exp(x);
	else
		h.scaling.factor = exp(x);
	struct pe_check_stats st;
	double ss;
	enum pe_status rc = own ? eval_own(c, &h, c->idx, c->nidx, &st, &ss)
	                        : eval(c, &h, c->idx, c->nidx, &st, &ss);
	return rc == PE_OK ? ss : INFINITY;
}

static double fit_objective(struct ctx *c, double x)
{
	return objective(c, x, 0);
}

/* Grid over [lo, hi] in log space, then golden-section around the best point. */
static double fit(struct ctx *c, double lo, double hi, int steps)
{
	double best = lo, bv = INFINITY, step = (hi - lo) / steps;
	for (int i = 0; i <= steps; i++) {
		double x = lo + step * i, v = fit_objective(c, x);
		if (v < bv) {
			bv = v;
			best = x;
		}
	}
	const double g = 0.6180339887498949;
	double a = best - step, b = best + step;
	double x1 = b - g * (b - a), x2 = a + g * (b - a);
	double f1 = fit_objective(c, x1), f2 = fit_objective(c, x2);
	for (int it = 0; it < 60 && b - a > 1e-13; it++) {
		if (f1 < f2) {
			b = x2;
			x2 = x1;
			f2 = f1;
			x1 = b - g * (b - a);
			f1 = fit_objective(c, x1);
		} else {
			a = x1;
			x1 = x2;
			f1 = f2;
			x2 = a + g * (b - a);
			f2 = fit_objective(c, x2);
		}
	}
	double x = f1 < f2 ? x1 : x2;
	return fit_objective(c, x) <= bv ? x : best;
}

/*
 * A fitted log-parameter moved to the round number next to it (two, then three
 * significant digits, then the integer, within 1%) when that fits about as well at the
 * dump's own precision: a fit stops a hair from 16 or 1e6, whose float32 table it then
 * misses by more than float32's rounding.
 */
static double snap(struct ctx *c, double x)
{
	double v = exp(x), best = objective(c, x, 1);
	if (!isfinite(best))
		return x; /* nothing to fit as well as */
	/* never the spec's own value: that is the reference, not a mistake */
	double spec = c->param == 0                             ? c->s->base
	              : c->s->scaling.type == c->h.scaling.type ? c->s->scaling.factor
	                                                        : NAN;
	for (int k = 0; k < 3; k++) {
		double r;
		if (k == 2) {
			r = round(v);
		} else {
			double p = pow(10.0, floor(log10(v)) - (k == 0 ? 1 : 2));
			r = round(v / p) * p;
		}
		if (!(r > 0) || fabs(r / v - 1) > 1e-2 || r == spec)
			continue;
		/* at the dump's precision (ggml's float32 theta_scale moves the exact
		 * fit's minimum off the round number); a hair's difference, not twice */
		if (objective(c, log(r), 1) <= 2 * best)
			return log(r);
	}
	return x;
}

static struct hyp *add(struct hyp *list, size_t *n, const struct check_hyp *h,
                       enum pe_check_mistake mistake, double value)
{
	if (*n >= MAX_HYP)
		return NULL;
	struct hyp *x = &list[(*n)++];
	memset(x, 0, sizeof(*x));
	x->h = *h;
	x->mistake = mistake;
	x->value = value;
	return x;
}

/* A scaling the spec does not have, its factor fitted from 1 to 64 on @start (its type and
 * other parameters): the hypothesis added as @mistake, or NULL when no factor above 1 fits. */
static struct hyp *add_fitted_scaling(struct ctx *c, const struct check_hyp *start,
                                      struct hyp *list, size_t *n, enum pe_check_mistake mistake)
{
	c->h = *start;
	c->param = 1;
	double lf = snap(c, fit(c, log(1.0), log(64.0), 60));
	struct check_hyp h = c->h;
	h.scaling.factor = exp(lf);
	if (!(h.scaling.factor > 1.0 + 1e-6) || !isfinite(fit_objective(c, lf)))
		return NULL;
	return add(list, n, &h, mistake, h.scaling.factor);
}

/* Amplitude a minimising |dump - a u| for the unit-amplitude model u (least squares). */
static enum pe_status fit_amplitude(const struct ctx *c, const struct check_hyp *ref, double *a)
{
	struct check_hyp h = *ref;
	h.att = 1.0;
	struct check_model m;
	enum pe_status rc = check_model_build(c->s, c->f->d, &h, &m);
	if (rc != PE_OK)
		return rc;
	double *buf = malloc((c->f->cols + check_work_size(c->f)) * sizeof(*buf));
	if (!buf) {
		check_model_free(&m);
		return PE_ENOMEM;
	}
	double num = 0, den = 0;
	for (size_t k = 0; k < c->nidx && rc == PE_OK; k++) {
		size_t r = c->idx[k];
		rc = check_expected_row(&m, c->f, c->opt->start, r, c->opt->vector,
		                        buf + c->f->cols, buf);
		const double *got = c->dump->data + r * c->dump->cols;
		for (size_t j = 0; j < m.rope.d_rot && j < c->f->cols; j++)
			if (isfinite(got[j])) {
				num += got[j] * buf[j];
				den += buf[j] * buf[j];
			}
	}
	free(buf);
	check_model_free(&m);
	*a = den > 0 ? num / den : 1.0;
	return rc;
}

/*
 * The columns a rotated dump rotates: its width less the trailing columns that hold
 * the input vector (all ones without --vector) in every row.
 */
static size_t passed_width(const struct pe_matrix *dump, const double *x, size_t d)
{
	if (dump->cols != d || dump->rows < 2)
		return 0;
	size_t w = d;
	while (w > 0) {
		double want = x ? x[w - 1] : 1.0;
		size_t r = 0;
		while (r < dump->rows &&
		       fabs(dump->data[r * d + w - 1] - want) <= 1e-6 * fmax(1, fabs(want)))
			r++;
		if (r < dump->rows)
			break;
		w--;
	}
	return w;
}

static const char *layout_text(enum pe_layout l)
{
	return l == PE_LAYOUT_HALF ? "half layout, pairs (i, i+d_rot/2), rotate_half"
	                           : "interleaved layout, pairs (2i, 2i+1)";
}

/*
 * The pairs whose columns in the dump do not turn (cos = the amplitude, sin
 * = 0, as a frequency of 0 gives) where the reference's do: a frequency
 * buffer left uninitialised (zeros) or cut short. @return how many.
 */
static enum pe_status still_pairs(struct ctx *c, const struct check_hyp *ref, size_t h,
                                  const size_t *idx, size_t nidx, size_t *count)
{
	*count = 0;
	struct check_hyp z = *ref;
	unsigned char *all = malloc(h);
	double *col = malloc(2 * c->f->cols * sizeof(*col));
	double *pair = calloc(2 * h, sizeof(*pair));
	enum pe_status rc = all && col && pair ? PE_OK : PE_ENOMEM;
	struct check_model m0, m1;
	if (rc == PE_OK) {
		memset(all, 1, h);
		z.zero = all;
		rc = check_model_build(c->s, c->f->d, ref, &m0);
	}
	if (rc == PE_OK) {
		rc = check_model_build(c->s, c->f->d, &z, &m1);
		if (rc == PE_OK) {
			rc = check_column_errors(&m0, c->f, c->dump, c->opt, idx, nidx, col);
			if (rc == PE_OK)
				rc = check_column_errors(&m1, c->f, c->dump, c->opt, idx, nidx,
				                         col + c->f->cols);
			for (size_t j = 0; j < c->f->cols && rc == PE_OK; j++) {
				size_t p = check_column_pair(c->f, &m0, j);
				if (p < h) {
					pair[p] += col[j];
					pair[h + p] += col[c->f->cols + j];
				}
			}
			check_model_free(&m1);
		}
		check_model_free(&m0);
	}
	for (size_t i = 0; i < h && rc == PE_OK; i++) {
		/*
		 * still in the dump (within float32 noise), turning in the reference: by more
		 * than float32 noise (an RMS of 1e-6, some 16 ulps) and a hundred times the
		 * still model's error. Slow pairs turn little over a short dump (Qwen3-VL's
		 * pairs 61-62 by 1e-4 over 256 positions) and are still told apart.
		 */
		int still = pair[h + i] <= 1e-10 * (double)nidx && pair[i] > 1e-12 * (double)nidx &&
		            pair[i] > 100 * pair[h + i];
		c->zero[i] = (unsigned char)still;
		*count += (size_t)still;
	}
	free(all);
	free(col);
	free(pair);
	return rc;
}

/* The largest error of dump row 0 against the reference at position @pos. */
static enum pe_status row0_error(const struct ctx *c, const struct check_model *m, double pos,
                                 double *want, double *err)
{
	const struct pe_check_form *f = c->f;
	enum pe_status rc =
	        check_expected_row(m, f, (uint64_t)pos, 0, c->opt->vector, want + f->cols, want);
	*err = 0;
	for (size_t j = 0; j < f->cols && rc == PE_OK; j++) {
		double e = fabs(c->dump->data[j] - want[j]) / fmax(1.0, fabs(want[j]));
		*err = isnan(e) ? INFINITY : fmax(*err, e);
	}
	return rc;
}

/*
 * Positions that start again at 0: the first row after row 0 that holds
 * position 0 (every pair unturned, the row the reference has there), and the
 * period N that explains the rows before it. Restarting at row r, the dump
 * holds positions (start + k) mod N, so N divides start + r, and row 0 holds
 * N - r: among those divisors the one whose row 0 fits. @period 0: none.
 */
static enum pe_status restart_period(const struct ctx *c, const struct check_hyp *ref,
                                     double *period)
{
	*period = 0;
	const struct pe_check_form *f = c->f;
	struct check_model m;
	enum pe_status rc = check_model_build(c->s, f->d, ref, &m);
	if (rc != PE_OK)
		return rc;
	double *want = malloc((f->cols + check_work_size(f)) * sizeof(*want));
	if (!want) {
		check_model_free(&m);
		return PE_ENOMEM;
	}
	size_t restart = 0;
	rc = check_expected_row(&m, f, 0, 0, c->opt->vector, want + f->cols, want);
	for (size_t r = 1; r < c->dump->rows && rc == PE_OK && !restart; r++) {
		const double *got = c->dump->data + r * c->dump->cols;
		int same = 1;
		for (size_t j = 0; j < f->cols && same; j++)
			same = fabs(got[j] - want[j]) <= 1e-3 * fmax(1.0, fabs(want[j]));
		if (same)
			restart = r;
	}
	/* the divisors of P = start + r from r up, each tried on row 0 (position N - r) */
	double P = (double)c->opt->start + (double)restart, best = INFINITY;
	if (restart && P <= 0x1p40) {
		uint64_t p = (uint64_t)P;
		for (uint64_t k = 1; k * k <= p && rc == PE_OK; k++) {
			if (p % k)
				continue;
			uint64_t pair[2] = {k, p / k};
			for (int t = 0; t < 2 && rc == PE_OK; t++) {
				double N = (double)pair[t], e;
				if (N < (double)restart || N < 2)
					continue;
				rc = row0_error(c, &m, N - (double)restart, want, &e);
				if (rc == PE_OK && (e < best || (e == best && N > *period))) {
					best = e;
					*period = N;
				}
			}
		}
	}
	free(want);
	check_model_free(&m);
	return rc;
}

/* How M-RoPE's pairs take axes: "in sections 16/24/24 (...)", "interleaved 24/20/20 (...)". */
static void mrope_text(const unsigned p[3], int interleaved, char *buf, size_t cap)
{
	if (interleaved)
		snprintf(buf, cap,
		         "interleaved %u/%u/%u (pair i on h when i %% 3 == 1 and i < %u, on w when "
		         "i %% 3 == 2 and i < %u, else on t)",
		         p[0], p[1], p[2], 3 * p[1], 3 * p[2]);
	else
		snprintf(
		        buf, cap,
		        "in sections %u/%u/%u (the first %u pairs on t, the next %u on h, the last "
		        "%u on w)",
		        p[0], p[1], p[2], p[0], p[1], p[2]);
}

/* The reference code of each assignment. */
static const char *mrope_source(int interleaved)
{
	return interleaved ? "Qwen3-VL's apply_interleaved_mrope"
	                   : "Qwen2-VL's mrope_section split (apply_multimodal_rotary_pos_emb)";
}

/* Whether two assignments put every one of @h pairs on the same axis. */
static int same_axes(const unsigned a[3], int ai, const unsigned b[3], int bi, size_t h)
{
	for (size_t i = 0; i < h; i++)
		if (pe_mrope_axis(a, ai, i) != pe_mrope_axis(b, bi, i))
			return 0;
	return 1;
}

/*
 * The squared error of each of the @h pairs with its columns turned by
 * each axis in turn (@e: 3 x h, axis by axis), on the score rows.
 */
static enum pe_status axis_errors(const struct ctx *c, const struct check_hyp *ref, size_t h,
                                  double *e)
{
	const struct pe_check_form *f = c->f;
	double *col = malloc(f->cols * sizeof(*col));
	if (!col)
		return PE_ENOMEM;
	enum pe_status rc = PE_OK;
	for (size_t i = 0; i < 3 * h; i++)
		e[i] = 0;
	for (int a = 0; a < 3 && rc == PE_OK; a++) {
		struct check_hyp x = *ref;
		struct check_model m;
		x.mrope_interleaved = 0;
		x.mrope_pairs[0] = x.mrope_pairs[1] = x.mrope_pairs[2] = 0;
		x.mrope_pairs[a] = (unsigned)h;
		rc = check_model_build(c->s, f->d, &x, &m);
		if (rc != PE_OK)
			break;
		rc = check_column_errors(&m, f, c->dump, c->opt, c->score_idx, c->nscore, col);
		for (size_t j = 0; j < f->cols && rc == PE_OK; j++) {
			size_t p = check_column_pair(f, &m, j);
			if (p < h)
				e[(size_t)a * h + p] += col[j];
		}
		check_model_free(&m);
	}
	free(col);
	return rc;
}

/*
 * The sections whose assignment (@interleaved or not) puts each pair on the
 * axis that fits it best (@e from axis_errors()), the one nearest @spec
 * among those within rounding of the best.
 */
static void fit_sections(const double *e, size_t h, int interleaved, const unsigned spec[3],
                         unsigned out[3])
{
	const double *e0 = e, *e1 = e + h, *e2 = e + 2 * h;
	double *A = malloc(2 * (h + 1) * sizeof(*A)), total = 0;
	if (!A) {
		memcpy(out, spec, 3 * sizeof(*out));
		return;
	}
	double *B = A + h + 1;
	/*
	 * Sections: A, B prefix sums of e1 - e0 and e2 - e0, so that t pairs on t,
	 * then hh on h, the rest on w cost sum(e0) + A[t+hh] - A[t] + B[h] - B[t+hh]
	 * (the sums of the errors on the axes chosen).
	 * Interleaved: the pairs i % 3 == 1 below 3 hh move from t to h, those with
	 * i % 3 == 2 below 3 ww to w; A[k], B[k] are the changes for k of each.
	 */
	A[0] = B[0] = 0;
	for (size_t k = 1; k <= h; k++) {
		total += e0[k - 1] + e1[k - 1] + e2[k - 1];
		if (!interleaved) {
			A[k] = A[k - 1] + e1[k - 1] - e0[k - 1];
			B[k] = B[k - 1] + e2[k - 1] - e0[k - 1];
		} else {
			size_t ih = 3 * k - 2, iw = 3 * k - 1;
			A[k] = A[k - 1] + (ih < h ? e1[ih] - e0[ih] : 0);
			B[k] = B[k - 1] + (iw < h ? e2[iw] - e0[iw] : 0);
		}
	}
	double best = INFINITY, best_sum = INFINITY, all_t = 0;
	for (size_t i = 0; i < h; i++)
		all_t += e0[i];
	/*
	 * The prefix sums' differences lose up to h ulps of the total, which holds
	 * the wrong axes' large errors: too coarse to tell apart pairs whose axes
	 * differ by a little (pairs 40-43 of Qwen2-VL's 16/24/24 on h or w differ
	 * by ~1e-6 in cos, ~1e-14 of the total). They only select the candidates;
	 * those are compared by their errors summed pair by pair.
	 */
	double coarse = 2.0 * (double)(h + 1) * DBL_EPSILON * total;
	for (int pass = 0; pass < 3; pass++) {
		long near = -1;
		for (size_t x = 0; x <= h; x++)
			for (size_t y = 0; x + y <= h; y++) {
				/* sections: x pairs on t, y on h; interleaved: x on h, y on w */
				double cost =
				        all_t + (!interleaved ? A[x + y] - A[x] + B[h] - B[x + y]
				                              : A[x] + B[y]);
				unsigned rest = (unsigned)(h - x - y);
				unsigned p[3] = {interleaved ? rest : (unsigned)x,
				                 interleaved ? (unsigned)x : (unsigned)y,
				                 interleaved ? (unsigned)y : rest};
				if (pass == 0) {
					best = fmin(best, cost);
					continue;
				}
				if (!(cost <= best + coarse + 1e-3 * fabs(best)))
					continue;
				double sum = 0;
				for (size_t i = 0; i < h; i++)
					sum += e[(size_t)pe_mrope_axis(p, interleaved, i) * h + i];
				if (pass == 1) {
					best_sum = fmin(best_sum, sum);
					continue;
				}
				long dist = labs((long)p[0] - (long)spec[0]) +
				            labs((long)p[1] - (long)spec[1]) +
				            labs((long)p[2] - (long)spec[2]);
				if (sum <= best_sum + 1e-3 * best_sum &&
				    (near < 0 || dist < near)) {
					near = dist;
					memcpy(out, p, sizeof(p));
				}
			}
	}
	free(A);
}

/*
 * M-RoPE's own mistakes: the other assignment of pairs to axes (Qwen2-VL's
 * sections for Qwen3-VL's interleaving, or back), other sections (fitted
 * from each pair's best axis), and 1-D positions where the tokens have
 * (t, h, w) ids.
 */
static enum pe_status mrope_hypotheses(struct ctx *c, const struct check_hyp *ref, size_t h,
                                       struct hyp *list, size_t *n)
{
	struct hyp *x;
	char was[160], now[160];
	/* whether the ids differ from the token index, and from each other */
	int moved = 0, apart = 0;
	for (size_t k = 0; k < c->nscore && !apart; k++) {
		uint64_t q = c->opt->start + c->score_idx[k];
		double id[3];
		if (pe_mrope_position(c->s, q, id) != PE_OK)
			continue;
		moved |= id[0] != (double)q || id[1] != (double)q || id[2] != (double)q;
		apart |= id[0] != id[1] || id[0] != id[2];
	}
	struct check_hyp seq = *ref;
	seq.sequential = 1;
	if (moved && (x = add(list, n, &seq, PE_MISTAKE_MROPE_SEQUENTIAL, 0)))
		snprintf(x->text, sizeof(x->text),
		         "1-D positions for M-RoPE: every token at t = h = w = its index, where "
		         "the image and video tokens have their own (t, h, w) ids (position_ids "
		         "not from get_rope_index, or the text-only path taken)");
	if (!apart)
		return PE_OK; /* t = h = w on every row: any assignment gives the same table */
	mrope_text(ref->mrope_pairs, ref->mrope_interleaved, was, sizeof(was));
	struct check_hyp other = *ref;
	other.mrope_interleaved = !ref->mrope_interleaved;
	int differs = !same_axes(ref->mrope_pairs, ref->mrope_interleaved, other.mrope_pairs,
	                         other.mrope_interleaved, h);
	if (differs && (x = add(list, n, &other, PE_MISTAKE_MROPE_AXES, other.mrope_interleaved))) {
		mrope_text(other.mrope_pairs, other.mrope_interleaved, now, sizeof(now));
		snprintf(x->text, sizeof(x->text),
		         "M-RoPE pairs %s as %s has them, instead of %s (%s)", now,
		         mrope_source(other.mrope_interleaved), was,
		         mrope_source(ref->mrope_interleaved));
	}
	double *e = malloc(3 * h * sizeof(*e));
	if (!e)
		return PE_ENOMEM;
	enum pe_status rc = axis_errors(c, ref, h, e);
	struct check_hyp first = *ref; /* the fit in the spec's mode */
	for (int mode = 0; mode < 2 && rc == PE_OK; mode++) {
		int inter = mode == 0 ? ref->mrope_interleaved : !ref->mrope_interleaved;
		struct check_hyp fitted = *ref;
		fitted.mrope_interleaved = inter;
		fit_sections(e, h, inter, ref->mrope_pairs, fitted.mrope_pairs);
		/* the assignments listed already */
		if (same_axes(fitted.mrope_pairs, inter, ref->mrope_pairs, ref->mrope_interleaved,
		              h) ||
		    same_axes(fitted.mrope_pairs, inter, other.mrope_pairs, other.mrope_interleaved,
		              h) ||
		    (mode == 1 && same_axes(fitted.mrope_pairs, inter, first.mrope_pairs,
		                            first.mrope_interleaved, h)))
			continue;
		if (mode == 0)
			first = fitted;
		if ((x = add(list, n, &fitted, PE_MISTAKE_MROPE_AXES, inter))) {
			mrope_text(fitted.mrope_pairs, inter, now, sizeof(now));
			if (inter == ref->mrope_interleaved)
				snprintf(x->text, sizeof(x->text),
				         "M-RoPE pairs %s (fitted pair by pair) instead of %s", now,
				         was);
			else
				snprintf(x->text, sizeof(x->text),
				         "M-RoPE pairs %s (fitted pair by pair; %s) instead of %s "
				         "(%s)",
				         now, mrope_source(inter), was,
				         mrope_source(ref->mrope_interleaved));
		}
	}
	free(e);
	return rc;
}

/* Builds the hypotheses; fits happen here. */
static enum pe_status build(struct ctx *c, const size_t *fit_idx, size_t nfit, struct hyp *list,
                            size_t *n)
{
	const struct pe_scheme *s = c->s;
	const struct pe_check_form *f = c->f;
	struct check_hyp ref;
	check_hyp_reference(s, c->opt, &ref);
	struct check_model m0;
	enum pe_status rc = check_model_build(s, f->d, &ref, &m0);
	if (rc != PE_OK)
		return rc;
	size_t d_rot = m0.rope.d_rot;
	double att = m0.rope.att;
	check_model_free(&m0);
	struct hyp *x;
	int positional = f->kind != PE_CHECK_INV_FREQ;
	int amplitude = f->kind == PE_CHECK_COS || f->kind == PE_CHECK_SIN ||
	                f->kind == PE_CHECK_COS_SIN || f->kind == PE_CHECK_ROTATED;

	/* reduced precision */
	static const char *const precs[] = {"f32", "f32/bf16", "f32/f16", "bf16", "f16"};
	int rope = pe_check_has_model(s), mrope = check_is_mrope(s);
	for (size_t i = 0; rope && i < sizeof(precs) / sizeof(*precs); i++) {
		struct check_hyp h = ref;
		pe_precision_parse(precs[i], &h.prec);
		if (h.prec.compute == ref.prec.compute && h.prec.store == ref.prec.store)
			continue;
		if ((x = add(list, n, &h, PE_MISTAKE_PRECISION, 0))) {
			char t[128];
			precision_text(h.prec, t, sizeof(t));
			/* vLLM's mixed NTK: torch.tensor(factor) of the default dtype, the model's
			 */
			int ntk_a = s->scaling.type == PE_ROPE_SCALING_NTK &&
			            !isnan(s->scaling.mixed_b) &&
			            (h.prec.store == PE_FLOAT_BF16 || h.prec.store == PE_FLOAT_F16);
			snprintf(x->text, sizeof(x->text), "computed in reduced precision: %s%s", t,
			         ntk_a ? ", mixed NTK's a = ln(factor) / (d/2)^b in that storage "
			                 "type "
			                 "as vLLM computes it (torch.tensor(factor) takes the "
			                 "default "
			                 "dtype, the model's), which moves every frequency"
			               : "");
		}
		/* float32 along the engines' other paths: ggml's own rounding (far from torch's
		 * at large m), vLLM's linear scaling (the positions divided, not inv_freq), vLLM
		 * on a GPU (divisions by Python numbers as products by reciprocals) */
		static const struct {
			enum check_path path;
			const char *how;
		} paths[] = {
		        {CHECK_PATH_GGML,
		         "float32 as ggml computes it (llama.cpp: theta_scale = "
		         "powf(base, -2/n_dims) multiplied pair by pair, cosf/sinf)"},
		        {CHECK_PATH_VLLM, "float32 as vLLM computes linear scaling (positions / "
		                          "factor, then x inv_freq)"},
		        {CHECK_PATH_VLLM_CUDA, "float32 as vLLM computes it on a GPU (a tensor "
		                               "divided by a Python number "
		                               "is multiplied by its float32 reciprocal: arange / "
		                               "rotary_dim, positions / "
		                               "factor, the llama3 and YaRN steps)"},
		};
		for (size_t k = 0;
		     h.prec.compute == PE_FLOAT_F32 && k < sizeof(paths) / sizeof(*paths); k++) {
			if ((paths[k].path == CHECK_PATH_VLLM &&
			     ref.scaling.type != PE_ROPE_SCALING_LINEAR) ||
			    (paths[k].path == CHECK_PATH_VLLM_CUDA && !c->cuda))
				continue;
			h.path = paths[k].path;
			if ((x = add(list, n, &h, PE_MISTAKE_PRECISION, 0)))
				snprintf(x->text, sizeof(x->text),
				         "computed in reduced precision: %s%s", paths[k].how,
				         h.prec.store != PE_FLOAT_F32
				                 ? ", stored in lower precision"
				                 : "");
		}
	}
	/* the other pairing */
	if (check_form_has_layout(f, d_rot)) {
		struct check_hyp h = ref;
		h.layout = ref.layout == PE_LAYOUT_HALF ? PE_LAYOUT_INTERLEAVED : PE_LAYOUT_HALF;
		if ((x = add(list, n, &h, PE_MISTAKE_LAYOUT, 0)))
			snprintf(x->text, sizeof(x->text), "the %s instead of the spec's %s",
			         layout_text(h.layout), layout_text(ref.layout));
	}
	/* M-RoPE: the pairs on other axes, 1-D positions for the ids */
	if (mrope && positional) {
		rc = mrope_hypotheses(c, &ref, d_rot / 2, list, n);
		if (rc != PE_OK)
			return rc;
	}
	/*
	 * M-RoPE video: another temporal step per frame (Qwen2.5-VL's t = frame x
	 * tokens_per_second x second_per_grid_t, 2 for a 2 fps video, where Qwen2-VL's is 1),
	 * when the spec's grid has several frames and no --position-ids.
	 */
	if (mrope && positional && s->mrope_grid[0] > 1 && !s->mrope_positions) {
		static const double steps[] = {1.0, 2.0, 0.5, 4.0};
		for (size_t i = 0; i < sizeof(steps) / sizeof(*steps); i++) {
			if (steps[i] == s->mrope_tstep)
				continue;
			struct check_hyp h = ref;
			h.tstep = steps[i];
			if ((x = add(list, n, &h, PE_MISTAKE_MROPE_TSTEP, steps[i])))
				snprintf(x->text, sizeof(x->text),
				         "video frames %g temporal ids apart (t = floor(frame x "
				         "%g)) "
				         "where the spec's tstep is %g: Qwen2.5-VL's "
				         "tokens_per_second x "
				         "second_per_grid_t (the video's seconds per frame pair)",
				         steps[i], steps[i], s->mrope_tstep);
		}
	}
	/* cos and sin swapped */
	if (rope && f->kind == PE_CHECK_COS_SIN) {
		struct check_hyp h = ref;
		h.swap_cs = 1;
		if ((x = add(list, n, &h, PE_MISTAKE_SWAPPED, 0)))
			snprintf(x->text, sizeof(x->text),
			         "cos and sin swapped: [sin | cos] (GPT-J's "
			         "create_sinusoidal_positions "
			         "order) instead of [cos | sin]");
	}
	/* the same swap inside a rotation: GPT-J's [sin | cos] cache split as [cos | sin] */
	if (rope && f->kind == PE_CHECK_ROTATED) {
		struct check_hyp h = ref;
		h.swap_cs = 1;
		if ((x = add(list, n, &h, PE_MISTAKE_SWAPPED, 0)))
			snprintf(
			        x->text, sizeof(x->text),
			        "cos and sin swapped in the rotation (a [sin | cos] cache, GPT-J's "
			        "create_sinusoidal_positions order, split as [cos | sin])");
	}
	/* a sin table given for cos, or back */
	if (rope && (f->kind == PE_CHECK_COS || f->kind == PE_CHECK_SIN)) {
		struct check_hyp h = ref;
		h.swap_cs = 1;
		int cos = f->kind == PE_CHECK_COS;
		if ((x = add(list, n, &h, PE_MISTAKE_SWAPPED, 0)))
			snprintf(x->text, sizeof(x->text),
			         "the file holds %s, not %s: cos and sin swapped (or the other "
			         "table saved)",
			         cos ? "sin" : "cos", cos ? "cos" : "sin");
	}
	/* positions off by k */
	for (int k = -16; positional && k <= 16; k++) {
		if (k == 0)
			continue;
		struct check_hyp h = ref;
		h.offset = k;
		if ((x = add(list, n, &h, PE_MISTAKE_OFFSET, k)) && mrope)
			snprintf(x->text, sizeof(x->text),
			         "position ids off by %+d: every (t, h, w) id of every token %c %d",
			         k, k < 0 ? '-' : '+', abs(k));
		else if (x)
			snprintf(x->text, sizeof(x->text),
			         "positions off by %+d: row r holds position %llu + r %c %d", k,
			         (unsigned long long)c->opt->start, k < 0 ? '-' : '+', abs(k));
	}
	/* the scaling left out */
	if (rope && s->scaling.type != PE_ROPE_SCALING_NONE) {
		struct check_hyp h = ref;
		h.scaling.type = PE_ROPE_SCALING_NONE;
		h.scaling.attention_factor = NAN; /* its magnitude left out too */
		enum pe_engine e = c->opt->engine;
		int dyn = s->scaling.type == PE_ROPE_SCALING_DYNAMIC;
		/* vLLM since PR #41277 (commit 3cfbaf33): ((factor x max_position) /
		 * max_position - (factor - 1)) is 1, so its dynamic cache keeps rope_theta */
		const char *why = !dyn ? ""
		                  : e == PE_ENGINE_ANY
		                          ? ": llama.cpp has no dynamic NTK, and vLLM since PR "
		                            "#41277 (commit 3cfbaf33) builds its dynamic cache at "
		                            "rope_theta (its base formula reduces to 1)"
		                  : e == PE_ENGINE_LLAMACPP ? ": llama.cpp has no dynamic NTK"
		                  : e == PE_ENGINE_VLLM
		                          ? ": vLLM since PR #41277 (commit 3cfbaf33) builds its "
		                            "dynamic cache at rope_theta (its base formula "
		                            "(factor x max_position / max_position) - (factor - 1) "
		                            "is 1); before it, at the base of length factor x "
		                            "max_position, as --engine vllm takes it"
		                          : "";
		if ((x = add(list, n, &h, PE_MISTAKE_NO_SCALING, 0)))
			snprintf(x->text, sizeof(x->text),
			         "the %s scaling left out (unscaled frequencies%s)%s",
			         pe_rope_scaling_name(s->scaling.type),
			         att != 1.0 ? ", attention factor 1" : "", why);
	}
	/* YaRN's correction range rounded to whole pairs, or not */
	if (rope && s->scaling.type == PE_ROPE_SCALING_YARN) {
		struct check_hyp h = ref;
		h.scaling.truncate = !ref.scaling.truncate;
		if ((x = add(list, n, &h, PE_MISTAKE_TRUNCATE, h.scaling.truncate)))
			snprintf(x->text, sizeof(x->text), "%s",
			         h.scaling.truncate
			                 ? "YaRN's correction range truncated to whole pairs "
			                   "(floor/ceil of the ramp ends) where the spec says "
			                   "truncate=false: llama.cpp always truncates "
			                   "(ggml_rope_yarn_corr_dims), and so do YaRN ports "
			                   "without "
			                   "the truncate key"
			                 : "YaRN's correction range not truncated (the ramp ends "
			                   "kept fractional: truncate=false) where the spec "
			                   "truncates");
	}
	/*
	 * YaRN's betas at their defaults (32, 1) where the spec gives others: llama.cpp reads
	 * rope.scaling.yarn_beta_fast/slow only for a few architectures (grok, mistral3, ...)
	 * and takes 32 and 1 for the rest (its deepseek2 for Kimi K2's 1 and 1), as ports that
	 * drop the keys do.
	 */
	if (rope && s->scaling.type == PE_ROPE_SCALING_YARN &&
	    (s->scaling.beta_fast != 32.0 || s->scaling.beta_slow != 1.0)) {
		struct check_hyp h = ref;
		h.scaling.beta_fast = 32.0;
		h.scaling.beta_slow = 1.0;
		if ((x = add(list, n, &h, PE_MISTAKE_YARN_BETAS, 0)))
			snprintf(
			        x->text, sizeof(x->text),
			        "YaRN's beta_fast and beta_slow at their defaults 32 and 1 where "
			        "the "
			        "spec gives %g and %g (another correction range): llama.cpp reads "
			        "them only for some architectures (its deepseek2 loader does not), "
			        "and ports that drop the keys take the defaults",
			        s->scaling.beta_fast, s->scaling.beta_slow);
	}
	/* LongRoPE's other factor list */
	if (rope && s->scaling.type == PE_ROPE_SCALING_LONGROPE && s->scaling.long_factor &&
	    s->scaling.short_factor) {
		struct check_hyp h = ref;
		int is_long = ref.scaling.length > ref.scaling.original;
		double o = ref.scaling.original;
		h.scaling.length = is_long ? o : fmax(o + 1, ref.scaling.factor * o);
		double len = ref.scaling.length > 0 ? ref.scaling.length : o;
		if ((x = add(list, n, &h, PE_MISTAKE_REGIME, h.scaling.length)))
			snprintf(
			        x->text, sizeof(x->text),
			        "LongRoPE's %s factors where the reference at sequence length "
			        "%.10g "
			        "uses the %s ones%s",
			        is_long ? "short" : "long", len, is_long ? "long" : "short",
			        !is_long
			                ? ": llama.cpp chooses them by context size (n_ctx > "
			                  "original) for every position, vLLM when max_model_len > "
			                  "original"
			        : c->opt->engine == PE_ENGINE_VLLM
			                ? ": vLLM's short cache (the first original rows of "
			                  "Phi3LongRoPEScaledRotaryEmbedding's "
			                  "long_short_cos_sin_cache), "
			                  "which it reads when max_model_len <= original"
			                : "");
	}
	/* dynamic NTK at the longest length */
	if (rope && s->scaling.type == PE_ROPE_SCALING_DYNAMIC &&
	    ref.scaling.length < s->scaling.factor * s->scaling.original) {
		struct check_hyp h = ref;
		h.scaling.length = s->scaling.factor * s->scaling.original;
		double d = (double)d_rot;
		double b =
		        s->base * pow(s->scaling.factor * h.scaling.length / s->scaling.original -
		                              (s->scaling.factor - 1.0),
		                      d / (d - 2.0));
		if ((x = add(list, n, &h, PE_MISTAKE_LENGTH, h.scaling.length)))
			snprintf(
			        x->text, sizeof(x->text),
			        "dynamic NTK fixed at length factor x original = %.10g (base %.7g) "
			        "for every position: vLLM's dynamic cache is built once so, where "
			        "the reference grows the base with the sequence",
			        h.scaling.length, b);
	}
	/* --engine vllm fixes it: the dump may grow it as transformers does */
	double seq = (double)c->opt->start + (double)c->dump->rows;
	if (rope && positional && s->scaling.type == PE_ROPE_SCALING_DYNAMIC &&
	    c->opt->engine == PE_ENGINE_VLLM && seq > s->scaling.original &&
	    seq != ref.scaling.length) {
		struct check_hyp h = ref;
		h.scaling.length = seq;
		if ((x = add(list, n, &h, PE_MISTAKE_LENGTH, seq)))
			snprintf(
			        x->text, sizeof(x->text),
			        "dynamic NTK at the sequence length %.10g, grown with the sequence "
			        "as transformers does, where vLLM fixes it at length %.10g",
			        seq, ref.scaling.length);
	}
	/* the attention factor missing or applied twice */
	if (rope && amplitude && att != 1.0) {
		struct check_hyp h = ref;
		h.att = 1.0;
		if ((x = add(list, n, &h, PE_MISTAKE_ATTENTION, 1.0)))
			snprintf(x->text, sizeof(x->text),
			         "the attention factor %.8g missing from cos and sin", att);
		h.att = att * att;
		if ((x = add(list, n, &h, PE_MISTAKE_ATTENTION, att * att)))
			snprintf(x->text, sizeof(x->text),
			         "the attention factor applied twice: cos and sin carry %.8g = "
			         "%.8g^2 "
			         "(or the logit factor put into the tables)",
			         att * att, att);
	}
	/* the exponent of another rotary width */
	double widths[3] = {(double)f->d, (double)d_rot / 2, 2.0 * (double)d_rot};
	for (int i = 0; rope && i < 3; i++) {
		if (widths[i] == (double)d_rot || widths[i] < 2)
			continue;
		struct check_hyp h = ref;
		h.exponent_width = widths[i];
		if ((x = add(list, n, &h, PE_MISTAKE_ROTARY, widths[i])))
			snprintf(x->text, sizeof(x->text),
			         "frequencies of rotary width %g: theta_i = base^(-2i/%g) instead "
			         "of "
			         "base^(-2i/%zu)",
			         widths[i], widths[i], d_rot);
	}
	/* Partial rotation ported as a whole one (GPT-NeoX's rotary_pct, Phi-2's
	 * partial_rotary_factor left out): every column turns, at base^(-2i/d) over
	 * the head's width; or the other way round, a part of a whole-head spec. */
	static const double fractions[] = {1.0, 0.5, 0.25};
	for (size_t i = 0; rope && positional && i < sizeof(fractions) / sizeof(*fractions); i++) {
		double fr = fractions[i];
		size_t w = (size_t)((double)f->d * fr);
		if (fr == s->rotary || (fr < 1.0 && s->rotary < 1.0) || w < 2 || w % 2 ||
		    w == d_rot)
			continue;
		struct check_hyp h = ref;
		h.rotary = fr;
		/* per-pair lists (LongRoPE's factors) hold d_rot/2 numbers: no other width */
		struct check_model m;
		if (check_model_build(s, f->d, &h, &m) != PE_OK)
			continue;
		check_model_free(&m);
		if ((x = add(list, n, &h, PE_MISTAKE_ROTARY, (double)w)))
			snprintf(x->text, sizeof(x->text),
			         fr == 1.0
			                 ? "the whole head rotated (rotary fraction %g left out): "
			                   "%zu "
			                   "columns turn at base^(-2i/%zu) instead of the first %zu"
			                 : "partial rotation (rotary fraction %g): the first %zu "
			                   "columns turn at base^(-2i/%zu) instead of all %zu",
			         s->rotary == 1.0 ? fr : s->rotary, w, w, d_rot);
	}
	/*
	 * The rotary width the dump shows: a rotated vector's trailing columns that every
	 * row passes through unchanged (GPT-J's rotary_dim 64 of 256, Phi-2's 32 of 80),
	 * when it is none of the widths above.
	 */
	size_t shown = positional && rope && f->kind == PE_CHECK_ROTATED
	                       ? passed_width(c->dump, c->opt->vector, f->d)
	                       : 0;
	if (shown >= 2 && shown % 2 == 0 && shown != d_rot && shown != f->d && shown != f->d / 2 &&
	    shown != f->d / 4) {
		struct check_hyp h = ref;
		h.rotary = ((double)shown + 0.5) / (double)f->d;
		struct check_model m;
		if (check_model_build(s, f->d, &h, &m) == PE_OK) {
			int built = m.rope.d_rot == shown;
			check_model_free(&m);
			if (built && (x = add(list, n, &h, PE_MISTAKE_ROTARY, (double)shown)))
				snprintf(x->text, sizeof(x->text),
				         "rotary width %zu of the head's %zu (the dump's last %zu "
				         "columns never turn): the first %zu columns turn at "
				         "base^(-2i/%zu) instead of %zu",
				         shown, f->d, f->d - shown, shown, shown, d_rot);
		}
	}
	/* Proportional RoPE ported as ordinary partial rotation (rotary=proportion): the
	 * first int(d * p) columns turn at base^(-2i/(d p)), paired within them. */
	if (rope && positional && s->scaling.type == PE_ROPE_SCALING_PROPORTIONAL &&
	    s->scaling.proportion > 0 && s->scaling.proportion < 1) {
		struct check_hyp h = ref;
		h.scaling.type = PE_ROPE_SCALING_NONE;
		h.rotary = s->rotary * s->scaling.proportion;
		size_t w = (size_t)((double)f->d * h.rotary);
		if (w >= 2 && w % 2 == 0 && s->scaling.factor == 1.0 &&
		    (x = add(list, n, &h, PE_MISTAKE_ROTARY, (double)w)))
			snprintf(x->text, sizeof(x->text),
			         "proportional RoPE computed as partial rotation (rotary=%g): the "
			         "first %zu columns turn at base^(-2i/%zu) instead of %zu pairs at "
			         "base^(-2i/%zu) spread over the head",
			         h.rotary, w, w, pe_rope_turning_pairs(&s->scaling, d_rot), d_rot);
	}
	/* the same angles twice: RoPE applied two times (or cos/sin of 2 m theta) */
	if (rope && positional) {
		struct check_hyp h = ref;
		h.pos_scale = 2.0;
		if ((x = add(list, n, &h, PE_MISTAKE_DOUBLE, 2.0)))
			snprintf(x->text, sizeof(x->text),
			         "rotated twice: every angle doubled (RoPE applied to q and k two "
			         "times, or the cache built from 2 m theta)");
	}
	uint64_t last = c->opt->start + c->dump->rows - 1;
	/* position_ids cast to bfloat16 before the product (exact only up to 256) */
	if (rope && positional && last > 256) {
		struct check_hyp h = ref;
		h.pos_bf16 = 1;
		if ((x = add(list, n, &h, PE_MISTAKE_BF16_POSITIONS, 0)))
			snprintf(x->text, sizeof(x->text),
			         "positions in bfloat16 (position_ids cast to the model's dtype "
			         "before the product): past 256 they round to every 2nd, 4th, ... "
			         "position");
	}
	/* inv_freq cast to bfloat16 with the model's weights */
	if (rope) {
		struct check_hyp h = ref;
		h.theta_bf16 = 1;
		if ((x = add(list, n, &h, PE_MISTAKE_BF16_INV_FREQ, 0)))
			snprintf(x->text, sizeof(x->text),
			         "inv_freq in bfloat16 (the buffer cast with the model, e.g. "
			         "model.to(bfloat16) on a persistent buffer): each frequency off "
			         "by up "
			         "to 0.4%%");
	}
	/* positions restarting at 0 every chunk (chunked prefill without an offset) */
	for (double chunk = 64; rope && positional && chunk < (double)last + 1 && chunk <= 1048576;
	     chunk *= 2) {
		if (chunk <= (double)c->opt->start)
			continue; /* every row shifted alike: positions off, found above */
		struct check_hyp h = ref;
		h.chunk = chunk;
		if ((x = add(list, n, &h, PE_MISTAKE_CHUNK, chunk)))
			snprintf(
			        x->text, sizeof(x->text),
			        "positions restart at 0 every %.0f tokens (chunks numbered from 0, "
			        "without the chunk's offset)",
			        chunk);
	}
	/* positions restarting at 0 at a period the loop above does not try */
	double period = 0;
	/* M-RoPE: a token's ids are not its index, which the search below takes them for */
	if (rope && positional && !mrope) {
		rc = restart_period(c, &ref, &period);
		if (rc != PE_OK)
			return rc;
	}
	int tried = frexp(period, &(int){0}) == 0.5 && period >= 64 && period <= 1048576 &&
	            period > (double)c->opt->start;
	if (period > 0 && !tried) {
		struct check_hyp h = ref;
		h.chunk = period;
		if ((x = add(list, n, &h, PE_MISTAKE_CHUNK, period)))
			snprintf(
			        x->text, sizeof(x->text),
			        "positions restart at 0 every %.0f tokens (positions modulo %.0f): "
			        "as vLLM's DualChunkRotaryEmbedding key cache holds them "
			        "(chunk_size - local_size), or chunks numbered without their "
			        "offset",
			        period, period);
	}
	/* pairs whose frequency is 0 in the dump: an uninitialised or short buffer */
	size_t nstill = 0;
	if (rope && positional) {
		rc = still_pairs(c, &ref, d_rot / 2, fit_idx, nfit, &nstill);
		if (rc != PE_OK)
			return rc;
	}
	if (nstill) {
		struct check_hyp h = ref;
		h.zero = c->zero;
		size_t first = 0;
		while (!c->zero[first])
			first++;
		if ((x = add(list, n, &h, PE_MISTAKE_ZERO_FREQ, (double)nstill)))
			snprintf(x->text, sizeof(x->text),
			         "%zu pair%s (the first: pair %zu) never turn%s: frequency or "
			         "position 0 there, as from an uninitialised (zeroed) or too short "
			         "inv_freq buffer, or llama.cpp's interleaved M-RoPE, which leaves "
			         "text "
			         "tokens at position 0 on the pairs outside its t/h/w sections "
			         "(Qwen3-VL's 61-62)",
			         nstill, nstill > 1 ? "s" : "", first, nstill > 1 ? "" : "s");
	}
	/* the attention factor derived where the config gives one */
	if (rope && amplitude &&
	    (s->scaling.type == PE_ROPE_SCALING_YARN ||
	     s->scaling.type == PE_ROPE_SCALING_LONGROPE) &&
	    !isnan(s->scaling.attention_factor)) {
		struct check_hyp h = ref;
		h.scaling.attention_factor = NAN;
		struct check_model m;
		rc = check_model_build(s, f->d, &h, &m);
		if (rc != PE_OK)
			return rc;
		double derived = m.rope.att;
		check_model_free(&m);
		/* llama.cpp's YaRN amplitude is its own: llama-context.cpp hands ggml
		 * get_mscale(factor) / (1 + 0.1 ln factor), which rope_yarn multiplies back by
		 * 1 + 0.1 ln(1 / freq_scale); a config's attention_factor reaches it only where
		 * the converter writes rope.scaling.attn_factor (a factor on top) */
		enum pe_engine e = c->opt->engine;
		int ggml_own = s->scaling.type == PE_ROPE_SCALING_YARN && s->scaling.factor > 1 &&
		               (e == PE_ENGINE_ANY || e == PE_ENGINE_LLAMACPP) &&
		               fabs(derived / (0.1 * log(s->scaling.factor) + 1.0) - 1) <= 1e-9;
		if (derived != att && (x = add(list, n, &h, PE_MISTAKE_ATTENTION, derived)))
			snprintf(x->text, sizeof(x->text),
			         "the attention factor derived from the factor (%.8g) where the "
			         "config gives attention_factor=%.8g%s",
			         derived, att,
			         ggml_own ? ": llama.cpp's YaRN amplitude, 0.1 ln(factor) + 1 "
			                    "(llama-context.cpp and ggml's rope_yarn), where its "
			                    "converter leaves the config's attention_factor out"
			                  : "");
	}
	/*
	 * vLLM's own YaRN amplitudes, where they differ from the reference's:
	 * DeepseekScalingRotaryEmbedding (deepseek_yarn) takes yarn_get_mscale(factor,
	 * mscale) / yarn_get_mscale(factor, mscale_all_dim) with mscale 1 and
	 * mscale_all_dim 0 when missing; YaRNScalingRotaryEmbedding, until it read the
	 * config's attention_factor, mscale and mscale_all_dim, took
	 * yarn_get_mscale(factor) (times its own attn_factor key, 1). An amplitude
	 * already listed (the attention factor missing, derived) gets the name added.
	 */
	if (rope && amplitude && s->scaling.type == PE_ROPE_SCALING_YARN &&
	    (c->opt->engine == PE_ENGINE_ANY || c->opt->engine == PE_ENGINE_VLLM) &&
	    s->scaling.factor > 1.0) {
		double lf = log(s->scaling.factor);
		double ms = s->scaling.mscale != 0.0 ? s->scaling.mscale : 1.0;
		double amp[2] = {(0.1 * ms * lf + 1.0) /
		                         (0.1 * s->scaling.mscale_all_dim * lf + 1.0),
		                 0.1 * lf + 1.0};
		static const char *const who[2] = {
		        "vLLM's DeepseekScalingRotaryEmbedding (yarn_get_mscale(factor, mscale) / "
		        "yarn_get_mscale(factor, mscale_all_dim), mscale 1 and mscale_all_dim 0 "
		        "when not given)",
		        "vLLM's YaRNScalingRotaryEmbedding (and MRotaryEmbedding's YaRN) before "
		        "they read attention_factor, mscale and mscale_all_dim (0.1 ln(factor) + "
		        "1)"};
		for (int k = 0; k < 2; k++) {
			if (fabs(amp[k] / att - 1) <= 1e-9 ||
			    (k == 1 && fabs(amp[1] / amp[0] - 1) <= 1e-9))
				continue;
			struct hyp *same = NULL;
			for (size_t i = 0; i < *n && !same; i++)
				if (list[i].mistake == PE_MISTAKE_ATTENTION &&
				    fabs(list[i].value / amp[k] - 1) <= 1e-9)
					same = &list[i];
			if (same) {
				size_t len = strlen(same->text);
				snprintf(same->text + len, sizeof(same->text) - len,
				         ", as %s has it", who[k]);
				continue;
			}
			struct check_hyp h = ref;
			h.att = amp[k];
			if ((x = add(list, n, &h, PE_MISTAKE_ATTENTION, amp[k])))
				snprintf(x->text, sizeof(x->text),
				         "the attention factor %.8g of %s where the reference's is "
				         "%.8g",
				         amp[k], who[k], att);
		}
	}
	/* proportional RoPE with the rotated width as the exponent's denominator */
	if (rope && s->scaling.type == PE_ROPE_SCALING_PROPORTIONAL && s->scaling.proportion > 0 &&
	    s->scaling.proportion < 1) {
		struct check_hyp h = ref;
		h.exponent_width = 2.0 * (double)pe_rope_turning_pairs(&s->scaling, d_rot);
		if (h.exponent_width >= 2 &&
		    (x = add(list, n, &h, PE_MISTAKE_ROTARY, h.exponent_width)))
			snprintf(x->text, sizeof(x->text),
			         "the proportional denominator: the %zu turning pairs at "
			         "base^(-2i/%g) (the rotated width) instead of base^(-2i/%zu) (the "
			         "head width)",
			         pe_rope_turning_pairs(&s->scaling, d_rot), h.exponent_width,
			         d_rot);
	}
	c->idx = fit_idx;
	c->nidx = nfit;
	/* another scaling factor, fitted */
	enum pe_rope_scaling t = s->scaling.type;
	if (rope && (t == PE_ROPE_SCALING_LINEAR || t == PE_ROPE_SCALING_DYNAMIC ||
	             t == PE_ROPE_SCALING_YARN || t == PE_ROPE_SCALING_LLAMA3 ||
	             t == PE_ROPE_SCALING_NTK)) {
		c->h = ref;
		c->param = 1;
		double lf = snap(c, fit(c, log(1.0), log(512.0), 90));
		struct check_hyp h = ref;
		h.scaling.factor = exp(lf);
		/* linear scaling divides the positions: doing it twice is the factor squared */
		double sq = s->scaling.factor * s->scaling.factor;
		int twice = t == PE_ROPE_SCALING_LINEAR && s->scaling.factor > 1 &&
		            fabs(h.scaling.factor / sq - 1) < 1e-4;
		if (fabs(h.scaling.factor / s->scaling.factor - 1) > 1e-6 &&
		    (x = add(list, n, &h, PE_MISTAKE_FACTOR, h.scaling.factor)))
			snprintf(x->text, sizeof(x->text),
			         "the %s scaling with factor %.6g instead of %g (fitted)%s",
			         pe_rope_scaling_name(t), h.scaling.factor, s->scaling.factor,
			         twice ? ": the scaling applied twice" : "");
	}
	/* another base, fitted */
	if (rope && d_rot >= 4) {
		c->h = ref;
		c->param = 0;
		double lb = snap(c, fit(c, log(2.0), log(1e9), 400));
		struct check_hyp h = ref;
		h.base = exp(lb);
		if (fabs(h.base / s->base - 1) > 1e-9 &&
		    (x = add(list, n, &h, PE_MISTAKE_BASE, h.base)))
			snprintf(x->text, sizeof(x->text), "base %.7g instead of %.10g (fitted)",
			         h.base, s->base);
	}
	/*
	 * A linear scaling the spec does not have, its factor fitted: every angle divided by
	 * it (a config's rope_scaling {linear} left out of the spec, or Gemma 3's global
	 * layers, linear 8, checked against its local ones). After the base: a base mistake
	 * that a factor also fits keeps its name.
	 */
	if (rope && positional && !mrope && t == PE_ROPE_SCALING_NONE) {
		struct check_hyp lin = ref;
		lin.scaling.type = PE_ROPE_SCALING_LINEAR;
		lin.scaling.factor = 2.0;
		if ((x = add_fitted_scaling(c, &lin, list, n, PE_MISTAKE_FACTOR)))
			snprintf(x->text, sizeof(x->text),
			         "a linear scaling the spec does not have: every angle divided by "
			         "%.6g (fitted; the config's rope_scaling {linear, factor} left "
			         "out, "
			         "or another layer group's scaling)",
			         x->value);
	}
	/*
	 * Llama 3's scaling the spec does not have (low 1, high 4, original 8192, as every
	 * Llama 3.x config has them), its factor fitted: the low frequencies divided by it,
	 * the high ones kept (a Llama 3.1 checkpoint checked as Llama 3, or rope_scaling
	 * left out of a port).
	 */
	if (rope && !mrope && t == PE_ROPE_SCALING_NONE) {
		struct check_hyp l3 = ref;
		l3.scaling.type = PE_ROPE_SCALING_LLAMA3;
		l3.scaling.factor = 8.0;
		l3.scaling.low_freq_factor = 1.0;
		l3.scaling.high_freq_factor = 4.0;
		l3.scaling.original = 8192.0;
		if ((x = add_fitted_scaling(c, &l3, list, n, PE_MISTAKE_EXTRA_SCALING)))
			snprintf(x->text, sizeof(x->text),
			         "a llama3 scaling the spec does not have (factor %.6g fitted, low "
			         "1, "
			         "high 4, original 8192: Llama 3.1's rope_scaling left out)",
			         x->value);
	}
	/* another amplitude, fitted */
	if (rope && amplitude) {
		double a;
		rc = fit_amplitude(c, &ref, &a);
		if (rc != PE_OK)
			return rc;
		if (fabs(a / att - 1) > 1e-4 && isfinite(a)) {
			struct check_hyp h = ref;
			h.att = a;
			if ((x = add(list, n, &h, PE_MISTAKE_ATTENTION, a)))
				snprintf(x->text, sizeof(x->text),
				         "cos and sin scaled by %.6g (fitted) instead of the "
				         "attention "
				         "factor %.8g",
				         a, att);
		}
	}
	return PE_OK;
}

/* "A; and B" in @cap bytes (cut short if need be). */
static void join(char *dst, size_t cap, const char *a, const char *b)
{
	size_t n = 0;
	const char *parts[3] = {a, "; and ", b};
	for (int k = 0; k < 3; k++)
		for (const char *p = parts[k]; *p && n + 1 < cap; p++)
			dst[n++] = *p;
	dst[n] = 0;
}

/* @h with what @other changed from @ref changed too. */
static void compose(struct check_hyp *h, const struct check_hyp *other, const struct check_hyp *ref)
{
	if (other->base != ref->base)
		h->base = other->base;
	if (other->exponent_width != ref->exponent_width)
		h->exponent_width = other->exponent_width;
	if (other->scaling.type != ref->scaling.type ||
	    other->scaling.factor != ref->scaling.factor ||
	    other->scaling.length != ref->scaling.length ||
	    other->scaling.truncate != ref->scaling.truncate ||
	    other->scaling.beta_fast != ref->scaling.beta_fast ||
	    other->scaling.beta_slow != ref->scaling.beta_slow ||
	    !(other->scaling.attention_factor == ref->scaling.attention_factor ||
	      (isnan(other->scaling.attention_factor) && isnan(ref->scaling.attention_factor))))
		h->scaling = other->scaling;
	if (other->pos_scale != ref->pos_scale)
		h->pos_scale = other->pos_scale;
	if (other->pos_bf16 != ref->pos_bf16)
		h->pos_bf16 = other->pos_bf16;
	if (other->chunk != ref->chunk)
		h->chunk = other->chunk;
	if (other->theta_bf16 != ref->theta_bf16)
		h->theta_bf16 = other->theta_bf16;
	if (other->zero != ref->zero)
		h->zero = other->zero;
	if (other->rotary != ref->rotary)
		h->rotary = other->rotary;
	if (other->prec.compute != ref->prec.compute || other->prec.store != ref->prec.store ||
	    other->path != ref->path) {
		h->prec = other->prec;
		h->path = other->path;
	}
	if (other->layout != ref->layout)
		h->layout = other->layout;
	if (!isnan(other->att))
		h->att = other->att;
	if (other->offset != ref->offset)
		h->offset = other->offset;
	if (other->swap_cs != ref->swap_cs)
		h->swap_cs = other->swap_cs;
	if (other->mrope_interleaved != ref->mrope_interleaved ||
	    memcmp(other->mrope_pairs, ref->mrope_pairs, sizeof(ref->mrope_pairs)) != 0) {
		h->mrope_interleaved = other->mrope_interleaved;
		memcpy(h->mrope_pairs, other->mrope_pairs, sizeof(h->mrope_pairs));
	}
	if (other->sequential != ref->sequential)
		h->sequential = other->sequential;
	if (other->tstep != ref->tstep)
		h->tstep = other->tstep;
}

/*
 * sin and cos right for small angles only: a fast approximation (an intrinsic, a
 * polynomial) used past its range without reduction. @return the largest angle up to
 * which every value is right (0: not that pattern) and the share of the values past it
 * that are wrong.
 */
static enum pe_status fast_sincos_range(const struct ctx *c, const struct check_hyp *ref,
                                        const size_t *idx, size_t nidx, double *range,
                                        double *share)
{
	*range = 0;
	*share = 0;
	const struct pe_check_form *f = c->f;
	if (f->kind != PE_CHECK_COS && f->kind != PE_CHECK_SIN && f->kind != PE_CHECK_COS_SIN)
		return PE_OK;
	struct check_model m;
	enum pe_status rc = check_model_build(c->s, f->d, ref, &m);
	if (rc != PE_OK)
		return rc;
	size_t h = m.rope.d_rot / 2;
	double *want = malloc((f->cols + check_work_size(f) + 3 * h) * sizeof(*want));
	if (!want) {
		check_model_free(&m);
		return PE_ENOMEM;
	}
	double *work = want + f->cols, *ang = work + check_work_size(f), *cs = ang + h,
	       *sn = cs + h;
	/* the smallest angle of a wrong value, then how the values below and past it fare */
	double bad_min = INFINITY;
	for (int pass = 0; pass < 2 && rc == PE_OK; pass++) {
		size_t past = 0, wrong = 0;
		double good_max = 0;
		for (size_t k = 0; k < nidx && rc == PE_OK; k++) {
			size_t r = idx[k];
			rc = check_expected_row(&m, f, c->opt->start, r, c->opt->vector, work,
			                        want);
			if (rc == PE_OK)
				rc = check_model_pairs(&m, c->opt->start, r, ang, cs, sn, work);
			const double *got = c->dump->data + r * c->dump->cols;
			for (size_t j = 0; j < f->cols; j++) {
				size_t pr = check_column_pair(f, &m, j);
				if (pr >= h)
					continue;
				double a = fabs(ang[pr]), e = fabs(got[j] - want[j]);
				if (!isfinite(e))
					e = INFINITY;
				if (pass == 0) {
					if (e > 1e-3 && a < bad_min)
						bad_min = a;
				} else if (a >= bad_min) {
					past++;
					wrong += e > 1e-3;
				} else if (a < 0.5 * bad_min && e > good_max) {
					/* well inside the range: right to float32 (the edge
					 * degrades) */
					good_max = e;
				}
			}
		}
		if (pass == 1 && past && good_max < 1e-4 && bad_min >= 1.0 && isfinite(bad_min)) {
			*range = bad_min;
			*share = (double)wrong / (double)past;
		}
	}
	free(want);
	check_model_free(&m);
	return rc;
}

enum pe_status check_diagnose(const struct pe_scheme *s, const struct pe_matrix *dump,
                              const struct pe_check_options *opt, int cuda,
                              struct pe_check_result *r)
{
	struct hyp *list = calloc(MAX_HYP, sizeof(*list));
	size_t nscore = dump->rows < SCORE_MAX ? dump->rows : SCORE_MAX;
	size_t *score_idx = malloc(nscore * sizeof(*score_idx));
	size_t fit_idx[CHECK_FIT_FIRST + CHECK_FIT_SPREAD + 1];
	if (!list || !score_idx) {
		free(list);
		free(score_idx);
		return PE_ENOMEM;
	}
	for (size_t k = 0; k < nscore; k++)
		score_idx[k] = nscore > 1 ? (size_t)((double)k * (double)(dump->rows - 1) /
		                                     (double)(nscore - 1))
		                          : 0;
	size_t nfit = check_fit_rows(dump->rows, fit_idx);
	struct ctx c;
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.dump = dump;
	c.opt = opt;
	c.f = &r->form;
	c.fit_idx = fit_idx;
	c.nfit = nfit;
	size_t n = 0;
	c.cuda = cuda;
	c.score_idx = score_idx;
	c.nscore = nscore;
	c.zero = calloc(dump->cols + 1, 1);
	enum pe_status rc = c.zero ? build(&c, fit_idx, nfit, list, &n) : PE_ENOMEM;
	struct check_hyp ref;
	check_hyp_reference(s, opt, &ref);
	struct pe_check_stats st;
	double e0 = INFINITY, emin = INFINITY;
	double ss, cells = (double)nscore * (double)r->form.cols;
	if (rc == PE_OK)
		rc = eval(&c, &ref, score_idx, nscore, &st, &ss);
	if (rc == PE_OK)
		e0 = sqrt(ss / cells);
	for (size_t i = 0; i < n && rc == PE_OK; i++) {
		rc = eval_own(&c, &list[i].h, score_idx, nscore, &st, &ss);
		list[i].err = sqrt(ss / cells);
		if (rc == PE_OK && list[i].err < emin)
			emin = list[i].err;
	}
	struct hyp *win = NULL;
	/* Among the close ones, a reduced precision that stores as the dump does (its
	 * values all bfloat16 numbers, say) before the others: its rounding is the
	 * dump's, where float32 alone only comes near. */
	enum pe_float S = opt->dump_store;
	for (size_t i = 0; i < n && rc == PE_OK && !win && S != PE_FLOAT_EXACT; i++)
		if (list[i].err <= 1.5 * emin && list[i].err < 0.5 * e0 &&
		    list[i].mistake == PE_MISTAKE_PRECISION && list[i].h.prec.store == S)
			win = &list[i];
	for (size_t i = 0; i < n && rc == PE_OK && !win; i++)
		if (list[i].err <= 1.5 * emin && list[i].err < 0.5 * e0)
			win = &list[i];
	/*
	 * No single mistake halves the error: two at once (the layout and the scaling, a
	 * base and the scaling), among the eight singles that came closest; failing
	 * that, the single one that explains most, reported as a partial explanation.
	 */
	int partial = 0;
	struct hyp pair_hyp;
	if (rc == PE_OK && !win && n > 1) {
		size_t top[16], nt = 0;
		/* the structural mistakes always, then the closest others */
		for (size_t i = 0; i < n && nt < 8; i++) {
			enum pe_check_mistake k = list[i].mistake;
			if ((k == PE_MISTAKE_LAYOUT || k == PE_MISTAKE_SWAPPED ||
			     k == PE_MISTAKE_NO_SCALING || k == PE_MISTAKE_DOUBLE ||
			     k == PE_MISTAKE_TRUNCATE || k == PE_MISTAKE_REGIME ||
			     k == PE_MISTAKE_ZERO_FREQ || k == PE_MISTAKE_MROPE_AXES ||
			     k == PE_MISTAKE_MROPE_SEQUENTIAL || k == PE_MISTAKE_YARN_BETAS ||
			     k == PE_MISTAKE_MROPE_TSTEP || k == PE_MISTAKE_EXTRA_SCALING) &&
			    isfinite(list[i].err))
				top[nt++] = i;
		}
		for (size_t k = nt; k < 16 && k < n; k++) {
			size_t bi = n;
			for (size_t i = 0; i < n; i++) {
				int used = 0;
				for (size_t t = 0; t < nt; t++)
					used |= top[t] == i;
				if (!used && isfinite(list[i].err) &&
				    (bi == n || list[i].err < list[bi].err))
					bi = i;
			}
			if (bi < n)
				top[nt++] = bi;
		}
		double best = 0.5 * e0;
		for (size_t a = 0; a < nt && rc == PE_OK; a++)
			for (size_t b = a + 1; b < nt && rc == PE_OK; b++) {
				struct hyp *A = &list[top[a]], *B = &list[top[b]];
				if (A->mistake == B->mistake)
					continue;
				struct check_hyp h = A->h;
				compose(&h, &B->h, &ref);
				rc = eval_own(&c, &h, score_idx, nscore, &st, &ss);
				double e = sqrt(ss / cells);
				if (rc == PE_OK && e < best) {
					best = e;
					pair_hyp = *A;
					pair_hyp.h = h;
					pair_hyp.err = e;
					join(pair_hyp.text, sizeof(pair_hyp.text), A->text,
					     B->text);
					win = &pair_hyp;
				}
			}
		/* a fitted amplitude shrinks any error: it is no explanation on its own */
		for (size_t t = 0; t < nt && !win; t++) {
			size_t bi = top[t];
			double e = list[bi].err;
			int least = 1;
			for (size_t u = 0; u < nt; u++)
				least &= list[top[u]].mistake == PE_MISTAKE_ATTENTION ||
				         list[top[u]].err >= e;
			if (least && list[bi].mistake != PE_MISTAKE_ATTENTION && e < 0.8 * e0) {
				win = &list[bi];
				partial = 1;
			}
		}
	}
	/* nothing explains it: sin and cos wrong past some angle only? */
	if (rc == PE_OK && (!win || partial) && pe_check_has_model(s)) {
		double range, share;
		rc = fast_sincos_range(&c, &ref, score_idx, nscore, &range, &share);
		if (rc == PE_OK && range > 0 && share >= 0.25) {
			struct pe_check_diagnosis *dg = &r->diag;
			memset(dg, 0, sizeof(*dg));
			dg->mistake = PE_MISTAKE_FAST_SINCOS;
			dg->value = range;
			dg->partial = 1;
			snprintf(dg->text, sizeof(dg->text),
			         "sin and cos right only for angles below %.4g rad (%.0f%% of the "
			         "values past it off by more than 1e-3): a fast sin/cos (an "
			         "intrinsic "
			         "such as __sinf/__cosf, or a polynomial) used past its range "
			         "without "
			         "reduction",
			         range, 100 * share);
			/* no model of the approximation: the dump against the reference */
			dg->stats = r->stats;
			r->row_diag = malloc((r->rows ? r->rows : 1) * sizeof(*r->row_diag));
			if (!r->row_diag)
				rc = PE_ENOMEM;
			else
				memcpy(r->row_diag, r->row_abs, r->rows * sizeof(*r->row_diag));
			r->diagnosed = rc == PE_OK;
			win = NULL;
		}
	}
	if (rc == PE_OK && win) {
		struct pe_check_diagnosis *dg = &r->diag;
		memset(dg, 0, sizeof(*dg));
		dg->mistake = win->mistake;
		dg->value = win->value;
		dg->prec = win->h.prec;
		snprintf(dg->text, sizeof(dg->text), "%s%s", partial ? "partly explained by " : "",
		         win->text);
		dg->partial = partial;
		dg->text[sizeof(dg->text) - 1] = 0;
		struct check_hyp best = win->h;
		double be = win->err;
		/* a second mistake on top of the first (the other layout and no scaling, say) */
		struct hyp *second = NULL;
		for (size_t i = 0; i < n && rc == PE_OK && win != &pair_hyp; i++) {
			if (&list[i] == win || list[i].mistake == win->mistake ||
			    list[i].mistake == PE_MISTAKE_PRECISION)
				continue;
			struct check_hyp h = win->h;
			compose(&h, &list[i].h, &ref);
			rc = eval(&c, &h, score_idx, nscore, &st, &ss);
			if (rc == PE_OK && sqrt(ss / cells) < 0.5 * be) {
				be = sqrt(ss / cells);
				best = h;
				second = &list[i];
			}
		}
		if (second) {
			size_t len = strlen(dg->text);
			snprintf(dg->text + len, sizeof(dg->text) - len, "; and %s", second->text);
			dg->second = second->mistake;
			if (partial && be < 0.5 * e0) {
				/* the two together explain it: not partial any more */
				static const char pre[] = "partly explained by ";
				memmove(dg->text, dg->text + sizeof(pre) - 1,
				        strlen(dg->text) - (sizeof(pre) - 1) + 1);
				dg->partial = 0;
			}
		}
		/* a mistake made in reduced precision: try each precision on top of it */
		if (win->mistake != PE_MISTAKE_PRECISION &&
		    (win->h.prec.compute != ref.prec.compute ||
		     win->h.prec.store != ref.prec.store)) {
			/* found at the dump's own precision already */
			char t[160];
			size_t len = strlen(dg->text);
			precision_text(win->h.prec, t, sizeof(t));
			snprintf(dg->text + len, sizeof(dg->text) - len, "; %s%s", t,
			         win->h.path == CHECK_PATH_GGML        ? ", along ggml's path"
			         : win->h.path == CHECK_PATH_VLLM      ? ", along vLLM's path"
			         : win->h.path == CHECK_PATH_VLLM_CUDA ? ", along vLLM's GPU path"
			                                               : "");
			dg->with_prec = 1;
			dg->prec = win->h.prec;
		} else if (win->mistake != PE_MISTAKE_PRECISION && pe_check_has_model(s)) {
			static const char *const precs[] = {"f32", "f32/bf16", "f32/f16", "bf16",
			                                    "f16"};
			struct check_hyp base_h = best;
			for (size_t i = 0; i < 5 && rc == PE_OK; i++) {
				struct check_hyp h = base_h;
				pe_precision_parse(precs[i], &h.prec);
				rc = eval(&c, &h, score_idx, nscore, &st, &ss);
				if (rc == PE_OK && sqrt(ss / cells) < 0.5 * be) {
					be = sqrt(ss / cells);
					best = h;
				}
			}
			if (best.prec.compute != base_h.prec.compute ||
			    best.prec.store != base_h.prec.store) {
				char t[128];
				size_t len = strlen(dg->text);
				precision_text(best.prec, t, sizeof(t));
				snprintf(dg->text + len, sizeof(dg->text) - len, "; %s", t);
				dg->with_prec = 1;
				dg->prec = best.prec;
			}
		}
		r->row_diag = calloc(r->rows, sizeof(*r->row_diag));
		struct check_model m;
		if (!r->row_diag)
			rc = PE_ENOMEM;
		if (rc == PE_OK)
			rc = check_model_build(s, r->form.d, &best, &m);
		if (rc == PE_OK) {
			rc = check_fit_last_bits(&m, &r->form, dump, opt, fit_idx, nfit);
			if (rc == PE_OK)
				rc = check_compare(&m, &r->form, dump, opt, NULL, dump->rows,
				                   &dg->stats, r->row_diag, NULL, NULL, NULL);
			check_model_free(&m);
		}
		if (rc == PE_OK)
			r->diagnosed = 1;
	}
	free(c.zero);
	free(list);
	free(score_idx);
	return rc;
}
