/*
 * posenc check: recognise what a dump is, compare it with the reference,
 * and ask check_diagnose() for a known mistake when they disagree.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/check_internal.h"

static char *msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = malloc(256);
	if (s)
		vsnprintf(s, 256, fmt, ap);
	va_end(ap);
	return s;
}

void pe_check_result_destroy(struct pe_check_result *r)
{
	if (!r)
		return;
	free(r->row_abs);
	free(r->row_rel);
	free(r->row_col);
	free(r->row_diag);
	free(r);
}

/* Rows spread over the dump, the first and last included: at most @max. */
static size_t *sample_rows(size_t rows, size_t max, size_t *n)
{
	size_t k = rows < max ? rows : max;
	size_t *idx = malloc((k ? k : 1) * sizeof(*idx));
	if (!idx)
		return NULL;
	for (size_t i = 0; i < k; i++)
		idx[i] = k > 1 ? (size_t)((double)i * (double)(rows - 1) / (double)(k - 1)) : 0;
	*n = k;
	return idx;
}

/*
 * How well a form fits, robust to the mistakes the diagnosis looks for: the
 * mean squared error over the columns of pair 0 and those that do not
 * rotate (theta_0 = 1 whatever the base or the rotary width), that over
 * the slowest pair's, plus a hundredth of the error over every column, for
 * the better of the spec's layout and the other. Pair 0 alone cannot tell
 * cos from sin when every frequency is off (a scaling factor applied
 * twice): its angles are then as unrelated to the spec's as sin is to cos.
 * The slowest pair's angles stay small under such mistakes, so there cos
 * is near 1 and sin near 0 whatever the frequency.
 */
static enum pe_status score_form(const struct pe_scheme *s, const struct pe_matrix *dump,
                                 const struct pe_check_options *opt, const struct pe_check_form *f,
                                 const size_t *idx, size_t nidx, double *score)
{
	struct check_hyp h;
	check_hyp_reference(s, opt, &h);
	*score = INFINITY;
	double *col_ss = malloc(f->cols * sizeof(*col_ss));
	if (!col_ss)
		return PE_ENOMEM;
	enum pe_status st = PE_OK;
	/*
	 * The spec's layout, the other, and for cos-sin caches also sin before cos; each
	 * with the spec's scaling, without it, and (LongRoPE) with the other factor list,
	 * and M-RoPE with its ids or 1-D positions (pair 0 turns with t), so that a dump
	 * with one of those mistakes is still read as what it is.
	 */
	int variants = s->scaling.type == PE_ROPE_SCALING_NONE       ? 1
	               : s->scaling.type == PE_ROPE_SCALING_LONGROPE ? 3
	                                                             : 2;
	int ids = check_is_mrope(s) ? 2 : 1;
	struct pe_rope_scaling_params spec_scaling = h.scaling;
	for (int k = 0; k < 4 * variants * ids && st == PE_OK; k++) {
		int swap = k % 4, variant = k / 4 % variants;
		struct check_model m;
		h.sequential = k / (4 * variants);
		if (swap >= 2 && f->kind != PE_CHECK_COS_SIN)
			continue;
		h.scaling = spec_scaling;
		if (variant == 1) {
			/* the scaling left out, its magnitude with it */
			h.scaling.type = PE_ROPE_SCALING_NONE;
			h.scaling.attention_factor = NAN;
		} else if (variant == 2)
			h.scaling.length =
			        spec_scaling.length > spec_scaling.original
			                ? spec_scaling.original
			                : fmax(spec_scaling.original + 1,
			                       spec_scaling.factor * spec_scaling.original);
		enum pe_layout other =
		        s->layout == PE_LAYOUT_HALF ? PE_LAYOUT_INTERLEAVED : PE_LAYOUT_HALF;
		h.layout = (swap & 1) ? other : s->layout;
		h.swap_cs = swap >= 2;
		st = check_model_build(s, f->d, &h, &m);
		if (st != PE_OK && variant > 0 && st != PE_ENOMEM) {
			st = PE_OK; /* that variant cannot be built (one factor list only) */
			continue;
		}
		if (st != PE_OK)
			break;
		st = check_column_errors(&m, f, dump, opt, idx, nidx, col_ss);
		double all = 0, first = 0, slow = 0;
		size_t nfirst = 0, nslow = 0;
		size_t last = m.is_rope && m.rope.d_rot >= 4 ? m.rope.d_rot / 2 - 1 : CHECK_NO_PAIR;
		for (size_t j = 0; j < f->cols && st == PE_OK; j++) {
			size_t pair = check_column_pair(f, &m, j);
			all += col_ss[j];
			if (pair == 0 || pair == CHECK_NO_PAIR) {
				first += col_ss[j];
				nfirst++;
			} else if (pair == last) {
				slow += col_ss[j];
				nslow++;
			}
		}
		check_model_free(&m);
		double v = (nfirst ? first / (double)nfirst : 0) +
		           (nslow ? slow / (double)nslow : 0) + 0.01 * all / (double)f->cols;
		v /= (double)nidx;
		if (v < *score)
			*score = v;
		if (!pe_check_has_model(s))
			break;
	}
	free(col_ss);
	return st;
}

/* An n x 1 column as a 1 x n row (an inverse-frequency vector written as a column). */
static struct pe_matrix *as_row(const struct pe_matrix *m)
{
	struct pe_matrix *t = pe_matrix_create(1, m->rows);
	if (t)
		memcpy(t->data, m->data, m->rows * sizeof(*t->data));
	return t;
}

#define MAX_FORMS 16

enum pe_status pe_check_run(const struct pe_scheme *s, const struct pe_matrix *dump,
                            const struct pe_check_options *opt, struct pe_check_result **out,
                            char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	if (!pe_scheme_is_vector(s) || pe_scheme_has(s, PE_CAP_TABLE)) {
		if (err)
			*err = msg("scheme '%s' has no table to check against (rope and position-"
			           "vector schemes do)",
			           s->canonical);
		return PE_EUNSUPPORTED;
	}
	if (!pe_check_has_model(s) && opt->kind != PE_CHECK_AUTO && opt->kind != PE_CHECK_TABLE) {
		if (err)
			*err = msg(
			        "a %s dump needs a rope or mrope scheme; '%s' has only its table "
			        "(--what table)",
			        pe_check_kind_name(opt->kind), s->canonical);
		return PE_EUNSUPPORTED;
	}
	struct pe_check_form forms[MAX_FORMS];
	size_t nf = check_candidate_forms(s, dump, opt, forms, MAX_FORMS);
	if (nf == 0) {
		if (err)
			*err = msg("a %zu x %zu array is not a %s table of '%s'%s", dump->rows,
			           dump->cols,
			           opt->kind == PE_CHECK_AUTO ? "known"
			                                      : pe_check_kind_name(opt->kind),
			           s->canonical,
			           opt->d ? " of that width (-d)" : " (give -d or --what)");
		return PE_EINVAL;
	}
	struct pe_matrix *column = NULL;
	if (dump->cols == 1 && dump->rows > 1) {
		column = as_row(dump);
		if (!column)
			return PE_ENOMEM;
	}
	size_t nidx = 0, *idx = sample_rows(dump->rows, 256, &nidx);
	enum pe_status st = idx ? PE_OK : PE_ENOMEM;
	size_t best = 0;
	double best_score = INFINITY;
	for (size_t i = 0; i < nf && st == PE_OK && nf > 1; i++) {
		double sc;
		int col = forms[i].kind == PE_CHECK_INV_FREQ && column;
		size_t one = 0;
		st = score_form(s, col ? column : dump, opt, &forms[i], col ? &one : idx,
		                col ? 1 : nidx, &sc);
		/* the first of equal candidates wins: they are listed most common first */
		if (st == PE_OK && sc < best_score) {
			best_score = sc;
			best = i;
		}
	}
	free(idx);
	struct pe_check_result *r = calloc(1, sizeof(*r));
	const struct pe_matrix *dm = dump;
	if (st == PE_OK && !r)
		st = PE_ENOMEM;
	if (st == PE_OK) {
		r->form = forms[best];
		r->form_recognised = opt->kind == PE_CHECK_AUTO || nf > 1;
		if (r->form.kind == PE_CHECK_INV_FREQ && column)
			dm = column;
		r->rows = dm->rows;
		r->row_abs = calloc(r->rows, sizeof(*r->row_abs));
		r->row_rel = calloc(r->rows, sizeof(*r->row_rel));
		r->row_col = calloc(r->rows, sizeof(*r->row_col));
		if (!r->row_abs || !r->row_rel || !r->row_col)
			st = PE_ENOMEM;
	}
	/* vLLM's GPU float32 path, when it differs from torch's: a reference and the
	 * diagnosis's hypotheses may take it */
	int cuda_differs = 0;
	if (st == PE_OK && pe_check_has_model(s)) {
		struct check_hyp h0;
		check_hyp_reference(s, opt, &h0);
		cuda_differs = check_cuda_differs(s, r->form.d, &h0);
	}
	if (st == PE_OK) {
		/* float32: each numeric path the engine may take; the closer one is the reference
		 */
		unsigned paths = opt->prec.compute == PE_FLOAT_F32 ? check_engine_paths(opt->engine)
		                                                   : 1u << CHECK_PATH_TORCH;
		size_t fit_idx[CHECK_FIT_FIRST + CHECK_FIT_SPREAD + 1];
		size_t nfit = check_fit_rows(dm->rows, fit_idx);
		struct pe_check_stats stats;
		double *ra = malloc(3 * (r->rows ? r->rows : 1) * sizeof(*ra));
		size_t *rcol = malloc((r->rows ? r->rows : 1) * sizeof(*rcol));
		if (!ra || !rcol)
			st = PE_ENOMEM;
		int first = 1;
		int cuda = (paths & (1u << CHECK_PATH_VLLM_CUDA)) && cuda_differs;
		for (int p = 0; p < CHECK_PATH_COUNT && st == PE_OK; p++) {
			if (!(paths & (1u << p)))
				continue;
			struct check_hyp h;
			struct check_model m;
			check_hyp_reference(s, opt, &h);
			h.path = (enum check_path)p;
			st = check_model_build(s, r->form.d, &h, &m);
			if (st != PE_OK)
				break;
			/* paths that compute this spec as torch does: already tried */
			if ((p == CHECK_PATH_GGML && !m.ggml) ||
			    (p == CHECK_PATH_VLLM && !(m.pos_div > 0) &&
			     (paths & (1u << CHECK_PATH_TORCH))) ||
			    (p == CHECK_PATH_VLLM_CUDA && !cuda)) {
				check_model_free(&m);
				continue;
			}
			st = check_fit_last_bits(&m, &r->form, dm, opt, fit_idx, nfit);
			if (st == PE_OK)
				st = check_compare(&m, &r->form, dm, opt, NULL, dm->rows, &stats,
				                   ra, ra + r->rows, rcol, NULL);
			check_model_free(&m);
			if (st == PE_OK && (first || stats.mixed.value < r->stats.mixed.value)) {
				first = 0;
				r->stats = stats;
				memcpy(r->row_abs, ra, r->rows * sizeof(*ra));
				memcpy(r->row_rel, ra + r->rows, r->rows * sizeof(*ra));
				memcpy(r->row_col, rcol, r->rows * sizeof(*rcol));
				/* torch's path is what --precision describes; ggml's is said */
				r->path = p == CHECK_PATH_TORCH ||
				                          (p == CHECK_PATH_VLLM && !(m.pos_div > 0))
				                  ? NULL
				                  : check_path_text((enum check_path)p);
			}
		}
		free(ra);
		free(rcol);
	}
	if (st == PE_OK) {
		r->agree = r->stats.mixed.value <= opt->tol;
		if (!r->agree && opt->diagnose)
			st = check_diagnose(s, dm, opt, cuda_differs, r);
	}
	pe_matrix_destroy(column);
	if (st != PE_OK) {
		pe_check_result_destroy(r);
		return st;
	}
	*out = r;
	return PE_OK;
}
