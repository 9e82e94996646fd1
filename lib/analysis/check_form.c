/*
 * posenc check: the forms a dump can take, the rows each expects, and the
 * comparison of a dump with a model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/encode.h>

#include "analysis/check_internal.h"
#include "analysis/precision_internal.h"
#include "scheme/encode_internal.h"

static const char *const kind_names[] = {"auto", "inv-freq", "angle",   "cos",
                                         "sin",  "cos-sin",  "rotated", "table"};
static const char *const packing_names[] = {"auto", "full", "pairs", "alternate"};

const char *pe_check_kind_name(enum pe_check_kind kind)
{
	return (unsigned)kind < 8 ? kind_names[kind] : "unknown";
}

enum pe_status pe_check_kind_parse(const char *text, enum pe_check_kind *kind,
                                   enum pe_check_packing *packing)
{
	const char *colon = strchr(text, ':');
	size_t len = colon ? (size_t)(colon - text) : strlen(text);
	int k = -1, p = 0;
	for (int i = 1; i < 8; i++)
		if (strlen(kind_names[i]) == len && strncmp(text, kind_names[i], len) == 0)
			k = i;
	if (k < 0)
		return PE_EINVAL;
	if (colon) {
		p = -1;
		for (int i = 1; i < 4; i++)
			if (strcmp(colon + 1, packing_names[i]) == 0)
				p = i;
		if (p < 0)
			return PE_EINVAL;
	}
	*kind = (enum pe_check_kind)k;
	*packing = (enum pe_check_packing)p;
	return PE_OK;
}

int check_is_mrope(const struct pe_scheme *s)
{
	return strcmp(pe_scheme_name(s), "mrope") == 0;
}

int pe_check_has_model(const struct pe_scheme *s)
{
	return s && (pe_scheme_has(s, PE_CAP_SCALING) || check_is_mrope(s));
}

void check_hyp_reference(const struct pe_scheme *s, const struct pe_check_options *opt,
                         struct check_hyp *h)
{
	memset(h, 0, sizeof(*h));
	h->scaling = s->scaling;
	h->layout = s->layout;
	h->prec = opt->prec;
	h->att = NAN;
	memcpy(h->mrope_pairs, s->mrope_pairs, sizeof(h->mrope_pairs));
	h->mrope_interleaved = s->mrope_interleaved;
	/* a semantic difference, not a rounding one: only when the engine is named */
	h->ggml_axes = opt->engine == PE_ENGINE_LLAMACPP;
}

/*
 * ggml's axis of pair @i (ggml-cpu ops.cpp, rope multi): interleaved (IMROPE)
 * takes t, h, w only where i % 3 names them within 3 x its section, and the
 * fourth position elsewhere; sections (MROPE) count sectors i modulo their
 * sum. The fourth is 3 here: llama.cpp gives text and image tokens 0 there
 * (llama-graph.cpp), so Qwen3-VL's pairs 61 and 62 never turn in llama.cpp.
 */
static int ggml_mrope_axis(const unsigned pairs[3], int interleaved, size_t i)
{
	const size_t p0 = pairs[0], p1 = pairs[1], p2 = pairs[2];
	if (interleaved)
		return i % 3 == 0 && i < 3 * p0   ? 0
		       : i % 3 == 1 && i < 3 * p1 ? 1
		       : i % 3 == 2 && i < 3 * p2 ? 2
		                                  : 3;
	size_t sum = p0 + p1 + p2, k = sum ? i % sum : 0;
	return k < p0 ? 0 : k < p0 + p1 ? 1 : 2;
}

enum pe_status check_model_build(const struct pe_scheme *s, size_t d, const struct check_hyp *h,
                                 struct check_model *m)
{
	memset(m, 0, sizeof(*m));
	m->s = s;
	m->offset = h->offset;
	m->swap_cs = h->swap_cs;
	m->pos_scale = h->pos_scale;
	m->pos_bf16 = h->pos_bf16;
	m->chunk = h->chunk;
	int mrope = check_is_mrope(s);
	if (!pe_scheme_has(s, PE_CAP_SCALING) && !mrope)
		return PE_OK;
	m->is_rope = 1;
	/* Another rotary fraction: a shallow copy, which the model does not keep. */
	struct pe_scheme other = *s;
	if (h->rotary > 0)
		other.rotary = h->rotary;
	struct pe_rope_scaling_params sc = h->scaling;
	int vllm = h->path == CHECK_PATH_VLLM || h->path == CHECK_PATH_VLLM_CUDA;
	int cuda = h->path == CHECK_PATH_VLLM_CUDA && h->prec.compute == PE_FLOAT_F32;
	if (vllm && h->prec.compute == PE_FLOAT_F32 && sc.type == PE_ROPE_SCALING_LINEAR) {
		m->pos_div = sc.factor;
		m->pos_recip = cuda;
		sc.type = PE_ROPE_SCALING_NONE;
	}
	enum pe_status st = pe_rope_model_init_flags(
	        &m->rope, &other, d, h->prec, h->base, h->exponent_width, &sc,
	        (cuda ? PE_ROPE_RECIP_DIV : 0) | (mrope ? PE_ROPE_MROPE : 0));
	if (st != PE_OK)
		return st;
	/* another temporal step: a copy of the scheme that this model owns (the positions
	 * pe_mrope_position() lays out), its pointers shared with @s */
	if (mrope && h->tstep > 0 && h->tstep != s->mrope_tstep) {
		m->own_s = malloc(sizeof(*m->own_s));
		if (!m->own_s) {
			pe_rope_model_free(&m->rope);
			return PE_ENOMEM;
		}
		*m->own_s = *s;
		m->own_s->mrope_tstep = h->tstep;
		m->s = m->own_s;
	}
	if (mrope) {
		size_t half = m->rope.d_rot / 2;
		m->axis = malloc(half ? half : 1);
		if (!m->axis) {
			check_model_free(m);
			return PE_ENOMEM;
		}
		for (size_t i = 0; i < half; i++)
			m->axis[i] =
			        (unsigned char)(h->ggml_axes
			                                ? ggml_mrope_axis(h->mrope_pairs,
			                                                  h->mrope_interleaved, i)
			                                : pe_mrope_axis(h->mrope_pairs,
			                                                h->mrope_interleaved, i));
		m->sequential = h->sequential;
	}
	m->rope.layout = h->layout;
	if (!isnan(h->att))
		m->rope.att = h->att;
	for (size_t i = 0; i < m->rope.d_rot / 2; i++) {
		if (h->theta_bf16)
			m->rope.theta[i] = pe_round(PE_FLOAT_BF16, m->rope.theta[i]);
		if (h->zero && h->zero[i])
			m->rope.theta[i] = 0.0;
	}
	/* ggml has no inv_freq buffer: those mistakes are torch's */
	if (h->path == CHECK_PATH_GGML && h->prec.compute == PE_FLOAT_F32 && !h->theta_bf16) {
		st = check_ggml_init(m, &other, h);
		if (st == PE_EUNSUPPORTED)
			st = PE_OK; /* no ggml form of this scaling: torch's path stands */
		if (st != PE_OK)
			check_model_free(m);
	}
	return st;
}

int check_cuda_differs(const struct pe_scheme *s, size_t d, const struct check_hyp *h)
{
	struct check_hyp a = *h, b = *h;
	a.prec.compute = b.prec.compute = PE_FLOAT_F32;
	a.path = CHECK_PATH_VLLM;
	b.path = CHECK_PATH_VLLM_CUDA;
	struct check_model ma, mb;
	if (check_model_build(s, d, &a, &ma) != PE_OK)
		return 0;
	if (check_model_build(s, d, &b, &mb) != PE_OK) {
		check_model_free(&ma);
		return 0;
	}
	int differs = 0;
	if (ma.is_rope && mb.is_rope) {
		for (size_t i = 0; i < ma.rope.d_rot / 2; i++)
			differs |= ma.rope.theta[i] != mb.rope.theta[i];
		/* positions over a power of two: the reciprocal is exact */
		int e;
		differs |= ma.pos_div > 0 && frexp(ma.pos_div, &e) != 0.5;
	}
	check_model_free(&ma);
	check_model_free(&mb);
	return differs;
}

void check_model_free(struct check_model *m)
{
	if (m->is_rope)
		pe_rope_model_free(&m->rope);
	free(m->g.ff);
	m->g.ff = NULL;
	free(m->axis);
	m->axis = NULL;
	free(m->own_s); /* the copy only: its pointers are the scheme's */
	m->own_s = NULL;
	m->ggml = 0;
	m->is_rope = 0;
}

size_t check_work_size(const struct pe_check_form *f)
{
	return 3 * (f->d + f->cols) + 3;
}

int check_form_has_layout(const struct pe_check_form *f, size_t d_rot)
{
	if (d_rot < 4)
		return 0;
	return f->packing == PE_PACK_FULL || f->kind == PE_CHECK_ROTATED;
}

/* The pair of column j < d_rot in a layout. */
static size_t pair_of(enum pe_layout layout, size_t j, size_t h)
{
	return layout == PE_LAYOUT_HALF ? j % h : j / 2;
}

/* A full row of one kind of values: pair values per layout, then the pass-through value. */
static void full_row(const struct pe_rope_model *m, const double *v, double pass, size_t cols,
                     double *row)
{
	size_t h = m->d_rot / 2;
	for (size_t j = 0; j < cols; j++)
		row[j] = j < m->d_rot ? v[pair_of(m->layout, j, h)] : pass;
}

/* A position (an M-RoPE id) as the model's mistakes and numeric path change it. */
static double model_position(const struct check_model *cm, double pos)
{
	pos += cm->offset;
	if (cm->chunk > 0)
		pos = fmod(pos, cm->chunk);
	if (cm->pos_scale > 0)
		pos *= cm->pos_scale;
	if (cm->pos_bf16)
		pos = pe_round(PE_FLOAT_BF16, pos);
	if (cm->pos_div > 0 && cm->pos_recip) /* a GPU's division: times the reciprocal */
		pos = (double)((float)pos * (float)(1.0 / cm->pos_div));
	else if (cm->pos_div > 0) /* a float32 division, as torch divides a float32 tensor */
		pos = (double)((float)pos / (float)cm->pos_div);
	return pos;
}

static void pairs_at(const struct check_model *cm, double pos, double *ang, double *c, double *s)
{
	if (cm->ggml)
		check_ggml_pairs(cm, pos, ang, c, s);
	else
		pe_rope_model_pairs(&cm->rope, pos, ang, c, s);
}

enum pe_status check_model_pairs(const struct check_model *cm, uint64_t start, size_t r,
                                 double *ang, double *c, double *s, double *tmp)
{
	double q = (double)start + (double)r;
	if (!cm->axis) {
		pairs_at(cm, model_position(cm, q), ang, c, s);
		return PE_OK;
	}
	/*
	 * Each axis's id through the 1-D computation, its pairs kept: what the
	 * reference does (Qwen2-VL's inv_freq @ position_ids per axis, then the
	 * mrope_section split; ggml_mrope_cache_init's theta_t, theta_h, theta_w
	 * each multiplied by theta_scale pair by pair).
	 */
	double id[4] = {q, q, q, 0.0}; /* the fourth: ggml's, 0 for every token */
	if (!cm->sequential) {
		enum pe_status st = pe_mrope_position(cm->s, start + r, id);
		if (st != PE_OK)
			return st;
	}
	size_t h = cm->rope.d_rot / 2;
	for (int a = 0; a < 4; a++) {
		int earlier = 0;
		for (int b = 0; b < a; b++)
			earlier |= id[b] == id[a];
		if (earlier)
			continue; /* computed with an earlier axis */
		pairs_at(cm, model_position(cm, id[a]), tmp, tmp + h, tmp + 2 * h);
		for (size_t i = 0; i < h; i++)
			if (id[cm->axis[i]] == id[a]) {
				ang[i] = tmp[i];
				c[i] = tmp[h + i];
				s[i] = tmp[2 * h + i];
			}
	}
	return PE_OK;
}

enum pe_status check_expected_row(const struct check_model *cm, const struct pe_check_form *f,
                                  uint64_t start, size_t r, const double *x, double *work,
                                  double *row)
{
	if (!cm->is_rope) {
		double pos = model_position(cm, (double)start + (double)r);
		if (pos < 0 || pos > PE_POSITION_MAX) {
			for (size_t j = 0; j < f->cols; j++)
				row[j] = NAN;
			return PE_OK;
		}
		return pe_encode_rows(cm->s, f->d, (uint64_t)pos, 1, PE_VIEW_DEFAULT, row);
	}
	const struct pe_rope_model *m = &cm->rope;
	size_t h = m->d_rot / 2;
	enum pe_float S = m->prec.store;
	/* a model of fewer pairs than the form's (another rotary width against a table of
	 * one column per pair) has nothing for the form's last columns: no value, no fit */
	for (size_t j = 0; j < f->cols; j++)
		row[j] = NAN;
	if (f->kind == PE_CHECK_INV_FREQ) {
		for (size_t i = 0; i < h && i < f->cols; i++)
			row[i] = pe_round(S, m->theta[i]);
		return PE_OK;
	}
	double *ang = work, *c = work + h, *s = work + 2 * h;
	enum pe_status st = check_model_pairs(cm, start, r, ang, c, s, work + 3 * h);
	if (st != PE_OK)
		return st;
	/*
	 * ggml's cache stays float32 whatever the tensor's type: rope_f16 rotates a float16
	 * row with float32 cos and sin and rounds only the result (ops.cpp rotate_pairs), so
	 * a rotated row is rounded once; a cos or sin table stored narrower rounds them.
	 */
	if (cm->ggml && f->kind != PE_CHECK_ROTATED)
		for (size_t i = 0; i < h; i++) {
			c[i] = pe_round(S, c[i]);
			s[i] = pe_round(S, s[i]);
		}
	switch (f->kind) {
	case PE_CHECK_ANGLE:
		if (f->packing == PE_PACK_PAIRS)
			memcpy(row, ang, h * sizeof(*row));
		else
			full_row(m, ang, 0.0, f->cols, row);
		break;
	case PE_CHECK_COS:
	case PE_CHECK_SIN: {
		/* swap_cs: the other of the two (a sin table where cos belongs) */
		int cos = (f->kind == PE_CHECK_COS) != (cm->swap_cs != 0);
		const double *v = cos ? c : s;
		if (f->packing == PE_PACK_PAIRS)
			memcpy(row, v, h * sizeof(*row));
		else
			full_row(m, v, cos ? 1.0 : 0.0, f->cols, row);
		break;
	}
	case PE_CHECK_COS_SIN:
		if (cm->swap_cs) {
			double *t = c;
			c = s;
			s = t;
		}
		if (f->packing == PE_PACK_FULL) {
			full_row(m, c, 1.0, f->cols / 2, row);
			full_row(m, s, 0.0, f->cols / 2, row + f->cols / 2);
		} else if (f->packing == PE_PACK_PAIRS) {
			memcpy(row, c, h * sizeof(*row));
			memcpy(row + h, s, h * sizeof(*row));
		} else {
			for (size_t i = 0; i < h; i++) {
				row[2 * i] = c[i];
				row[2 * i + 1] = s[i];
			}
		}
		break;
	case PE_CHECK_ROTATED:
		if (cm->swap_cs) { /* a [sin | cos] cache read as [cos | sin], then applied */
			double *t = c;
			c = s;
			s = t;
		}
		for (size_t i = 0; i < h; i++) {
			size_t a = m->layout == PE_LAYOUT_HALF ? i : 2 * i;
			size_t b = m->layout == PE_LAYOUT_HALF ? i + h : 2 * i + 1;
			double xa = x ? x[a] : 1.0, xb = x ? x[b] : 1.0;
			if (cm->ggml) {
				/* ggml's rotate_pairs: float32 products and sum, then the
				 * tensor's type (a float32 tie rounds to even in float16) */
				float fa = (float)xa, fb = (float)xb, fc = (float)c[i],
				      fs = (float)s[i];
				float p0 = fa * fc, p1 = fb * fs, p2 = fb * fc, p3 = fa * fs;
				row[a] = pe_round(S, (double)(p0 - p1));
				row[b] = pe_round(S, (double)(p2 + p3));
				continue;
			}
			row[a] = pe_round(S, xa * c[i] - xb * s[i]);
			row[b] = pe_round(S, xb * c[i] + xa * s[i]);
		}
		for (size_t j = m->d_rot; j < f->cols; j++)
			row[j] = x ? x[j] : 1.0;
		break;
	default:
		return PE_EINVAL;
	}
	return PE_OK;
}

/* Half a unit of the last of @digits significant digits of @x: what writing a value
 * as text with them may have cost it (the decade is the written value's: one rounded
 * up into the next decade was written with that decade's unit). */
static double digits_half_unit(double x, int digits)
{
	double a = fabs(x);
	if (digits <= 0 || !(a > 0) || !isfinite(a))
		return 0;
	double e = floor(log10(a));
	/* log10 may land a hair either side of a power of ten */
	if (pow(10, e) > a)
		e -= 1;
	else if (pow(10, e + 1) <= a)
		e += 1;
	return 0.5 * pow(10, e - digits + 1);
}

static void where_update(struct pe_check_where *w, double v, size_t r, size_t j)
{
	if (v > w->value || (isnan(v) && !isnan(w->value))) {
		w->value = v;
		w->row = r;
		w->col = j;
	}
}

enum pe_status check_compare(const struct check_model *m, const struct pe_check_form *f,
                             const struct pe_matrix *dump, const struct pe_check_options *opt,
                             const size_t *idx, size_t nidx, struct pe_check_stats *st,
                             double *row_abs, double *row_rel, size_t *row_col, double *sum_sq)
{
	memset(st, 0, sizeof(*st));
	double *buf = malloc((f->cols + check_work_size(f)) * sizeof(*buf));
	if (!buf)
		return PE_ENOMEM;
	double *want = buf, *work = buf + f->cols, ss = 0;
	enum pe_status rc = PE_OK;
	/* a rotated value's scale is its pair's input length, which rotation keeps: two
	 * products of that size cancel to a small value with their rounding intact (a
	 * bfloat16 q of |x| 2.5 rotated by transformers' cos and sin) */
	double *scale = NULL;
	enum pe_float pc = m->is_rope ? m->rope.prec.compute : PE_FLOAT_EXACT;
	enum pe_float ps = m->is_rope ? m->rope.prec.store : PE_FLOAT_EXACT;
	int half_width = pc == PE_FLOAT_BF16 || pc == PE_FLOAT_F16 || ps == PE_FLOAT_BF16 ||
	                 ps == PE_FLOAT_F16;
	int reduced = half_width || pc == PE_FLOAT_F32 || ps == PE_FLOAT_F32;
	/* only against a reduced-precision model: exact values are judged as ever; the
	 * all-ones vector (no --vector) has pairs of length sqrt(2), whose float16 rounding
	 * ties go either way on a float32 ulp of cos or sin (ggml's float16 rope) */
	if (reduced && f->kind == PE_CHECK_ROTATED && m->is_rope &&
	    (!opt->vector || opt->vector_len >= f->cols)) {
		scale = malloc(f->cols * sizeof(*scale));
		if (!scale) {
			free(buf);
			return PE_ENOMEM;
		}
		size_t dr = m->rope.d_rot, h = dr / 2;
		for (size_t j = 0; j < f->cols; j++) {
			size_t q = j >= dr                            ? j
			           : m->rope.layout == PE_LAYOUT_HALF ? (j < h ? j + h : j - h)
			                                              : j ^ 1;
			/* two products and their sum rounded at the pair's length L: float32's
			 * error stays within a few ulps of L, inside its tolerance over L;
			 * bfloat16 and float16 round cos and sin too (half an ulp each, times
			 * L), about two ulps at L: 4 L ulps of values just below 1 */
			double xj = opt->vector ? opt->vector[j] : 1.0;
			double xq = q == j ? 0.0 : opt->vector ? opt->vector[q] : 1.0;
			/* ggml rounds once, from float32 cos and sin: half an ulp at L, or a
			 * whole one where a float32 ulp moves a tie, two ulps of values below 1 */
			double k = !half_width ? 1.0 : m->ggml ? 2.0 : 4.0;
			scale[j] = fmax(1.0, k * hypot(xj, xq));
		}
	}
	/* cos and sin pass through 0: relative to a value near 0 an error means nothing */
	int unit = f->kind == PE_CHECK_COS || f->kind == PE_CHECK_SIN ||
	           f->kind == PE_CHECK_COS_SIN || f->kind == PE_CHECK_ROTATED;
	double floor_rel = unit ? CHECK_REL_FLOOR : 0.0;
	for (size_t k = 0; k < nidx && rc == PE_OK; k++) {
		size_t r = idx ? idx[k] : k;
		rc = check_expected_row(m, f, opt->start, r, opt->vector, work, want);
		const double *got = dump->data + r * dump->cols;
		double ra = 0, rr = 0;
		size_t rc_col = 0;
		for (size_t j = 0; j < f->cols; j++) {
			double e = fabs(got[j] - want[j]);
			/* a NaN anywhere is as far off as can be, unless the model has it there
			 * too (float16 positions past 65504 are infinite, their angles NaN) */
			if ((isnan(got[j]) && isnan(want[j])) || got[j] == want[j])
				e = 0;
			else if (isnan(e))
				e = INFINITY;
			double rel = 0;
			if (fabs(want[j]) > floor_rel)
				rel = e / fabs(want[j]);
			else if (!unit && e != 0)
				rel = INFINITY; /* an exact 0 expected, something else found */
			double slack = opt->slack + digits_half_unit(got[j], opt->slack_digits);
			double mixed =
			        fmax(0.0, e - slack) / fmax(scale ? scale[j] : 1.0, fabs(want[j]));
			where_update(&st->abs, e, r, j);
			where_update(&st->rel, rel, r, j);
			where_update(&st->mixed, mixed, r, j);
			if (e > ra) {
				ra = e;
				rc_col = j;
			}
			if (rel > rr)
				rr = rel;
			/* the diagnosis weighs what the dump's own rounding does not explain: a
			 * "%.4g" table's digits would drown float32's error in its RMS */
			double beyond = fmax(0.0, e - slack);
			ss += isfinite(e) ? beyond * beyond : 1e300;
		}
		if (row_abs)
			row_abs[r] = ra;
		if (row_rel)
			row_rel[r] = rr;
		if (row_col)
			row_col[r] = rc_col;
	}
	if (sum_sq)
		*sum_sq = ss;
	free(scale);
	free(buf);
	return rc;
}

/* The widths d whose rotary width int(d * rotary) is d_rot. */
static size_t widths_for_rot(const struct pe_scheme *s, size_t d_rot, size_t *out)
{
	size_t n = 0;
	if (s->rotary <= 0)
		return 0;
	double guess = floor((double)d_rot / s->rotary);
	for (double d = guess - 2; d <= guess + 2; d++)
		if (d >= (double)d_rot && d > 0 && pe_rope_rotary_width(s, (size_t)d) == d_rot)
			out[n++] = (size_t)d;
	return n ? 1 : 0; /* the smallest width is the natural one */
}

static size_t add_form(const struct pe_scheme *s, const struct pe_check_options *opt,
                       struct pe_check_form *out, size_t n, size_t cap, enum pe_check_kind kind,
                       enum pe_check_packing packing, size_t d, size_t cols)
{
	if (n >= cap || d == 0)
		return n;
	if (opt->d && d != opt->d)
		return n;
	if (opt->packing != PE_PACK_AUTO && packing != opt->packing && kind != PE_CHECK_INV_FREQ &&
	    kind != PE_CHECK_ROTATED)
		return n;
	if (pe_encode_check(s, d, PE_VIEW_COS, NULL) != PE_OK)
		return n;
	size_t d_rot = pe_rope_rotary_width(s, d);
	if (kind == PE_CHECK_ROTATED && opt->vector && opt->vector_len != d)
		return n;
	/* a full table of the rotated part only, when some features do not rotate */
	if (packing == PE_PACK_FULL && kind != PE_CHECK_COS_SIN && cols != d &&
	    !(cols == d_rot && d_rot < d))
		return n;
	if (packing == PE_PACK_FULL && kind == PE_CHECK_COS_SIN && cols != 2 * d &&
	    !(cols == 2 * d_rot && d_rot < d))
		return n;
	for (size_t i = 0; i < n; i++)
		if (out[i].kind == kind && out[i].packing == packing && out[i].d == d &&
		    out[i].cols == cols)
			return n;
	out[n] = (struct pe_check_form){kind, packing, d, cols};
	return n + 1;
}

size_t check_candidate_forms(const struct pe_scheme *s, const struct pe_matrix *dump,
                             const struct pe_check_options *opt, struct pe_check_form *out,
                             size_t cap)
{
	size_t n = 0, rows = dump->rows, cols = dump->cols, dd[4];
	if (!pe_check_has_model(s)) {
		if (opt->kind != PE_CHECK_AUTO && opt->kind != PE_CHECK_TABLE)
			return 0;
		size_t d = opt->d ? opt->d : cols;
		if (d == cols && cap)
			out[n++] = (struct pe_check_form){PE_CHECK_TABLE, PE_PACK_FULL, d, cols};
		return n;
	}
	/* M-RoPE's table (encode's default view) is the all-ones vector rotated */
	enum pe_check_kind asked =
	        opt->kind == PE_CHECK_TABLE && check_is_mrope(s) ? PE_CHECK_ROTATED : opt->kind;
	enum pe_check_kind k0 = asked == PE_CHECK_AUTO ? PE_CHECK_INV_FREQ : asked;
	enum pe_check_kind k1 = asked == PE_CHECK_AUTO ? PE_CHECK_ROTATED : asked;
	for (int k = (int)k0; k <= (int)k1; k++) {
		enum pe_check_kind kind = (enum pe_check_kind)k;
		switch (kind) {
		case PE_CHECK_INV_FREQ: {
			size_t h = rows == 1 ? cols : cols == 1 ? rows : 0;
			if (h && widths_for_rot(s, 2 * h, dd))
				n = add_form(s, opt, out, n, cap, kind, PE_PACK_PAIRS, dd[0], h);
			break;
		}
		case PE_CHECK_ANGLE:
		case PE_CHECK_COS:
		case PE_CHECK_SIN:
			n = add_form(s, opt, out, n, cap, kind, PE_PACK_FULL, cols, cols);
			if (widths_for_rot(s, cols, dd))
				n = add_form(s, opt, out, n, cap, kind, PE_PACK_FULL, dd[0], cols);
			if (widths_for_rot(s, 2 * cols, dd))
				n = add_form(s, opt, out, n, cap, kind, PE_PACK_PAIRS, dd[0], cols);
			break;
		case PE_CHECK_COS_SIN:
			if (cols % 2 == 0) {
				n = add_form(s, opt, out, n, cap, kind, PE_PACK_FULL, cols / 2,
				             cols);
				if (widths_for_rot(s, cols / 2, dd))
					n = add_form(s, opt, out, n, cap, kind, PE_PACK_FULL, dd[0],
					             cols);
				if (widths_for_rot(s, cols, dd)) {
					n = add_form(s, opt, out, n, cap, kind, PE_PACK_PAIRS,
					             dd[0], cols);
					n = add_form(s, opt, out, n, cap, kind, PE_PACK_ALTERNATE,
					             dd[0], cols);
				}
			}
			break;
		case PE_CHECK_ROTATED:
			n = add_form(s, opt, out, n, cap, kind, PE_PACK_FULL, cols, cols);
			break;
		default:
			break;
		}
	}
	return n;
}

const char *pe_check_form_describe(const struct pe_check_form *f, const struct pe_scheme *s,
                                   char *buf, size_t cap)
{
	size_t d_rot = pe_check_has_model(s) ? pe_rope_rotary_width(s, f->d) : f->d;
	size_t h = d_rot / 2;
	char lay[96];
	if (pe_check_has_model(s) && s->layout == PE_LAYOUT_HALF)
		snprintf(lay, sizeof(lay), "pair i in columns i and i+%zu (half layout)", h);
	else
		snprintf(lay, sizeof(lay), "pair i in columns 2i and 2i+1 (interleaved layout)");
	const char *part = f->cols == d_rot && d_rot < f->d ? " rotated features only," : "";
	switch (f->kind) {
	case PE_CHECK_INV_FREQ:
		snprintf(buf, cap, "inverse frequencies, %zu values (d=%zu)", f->cols, f->d);
		break;
	case PE_CHECK_ANGLE:
	case PE_CHECK_COS:
	case PE_CHECK_SIN: {
		const char *k = f->kind == PE_CHECK_ANGLE ? "angle" : pe_check_kind_name(f->kind);
		if (f->packing == PE_PACK_PAIRS)
			snprintf(buf, cap, "%s table, one column per pair (%zu, d=%zu)", k, f->cols,
			         f->d);
		else
			snprintf(buf, cap, "%s table, %zu columns,%s %s", k, f->cols, part, lay);
		break;
	}
	case PE_CHECK_COS_SIN:
		if (f->packing == PE_PACK_FULL)
			snprintf(buf, cap, "cos/sin cache [cos | sin], 2 x %zu columns,%s %s",
			         f->cols / 2,
			         f->cols / 2 == d_rot && d_rot < f->d ? " rotated only," : "", lay);
		else if (f->packing == PE_PACK_PAIRS)
			snprintf(buf, cap,
			         "cos/sin cache [cos | sin], one column per pair (2 x %zu, d=%zu)",
			         h, f->d);
		else
			snprintf(buf, cap,
			         "cos/sin cache, cos and sin alternating per pair (%zu, d=%zu)",
			         f->cols, f->d);
		break;
	case PE_CHECK_ROTATED:
		snprintf(buf, cap, "rotated vectors, %zu columns, %s", f->cols, lay);
		break;
	default:
		snprintf(buf, cap, "encoding table, %zu columns", f->cols);
		break;
	}
	return buf;
}

/* M-RoPE: " on t" (h, w), the axis whose id turns @pair; "" for other schemes. */
static const char *axis_note(const struct pe_scheme *s, size_t pair, size_t h, char *buf)
{
	buf[0] = 0;
	if (check_is_mrope(s) && pair < h)
		snprintf(buf, 8, " on %c",
		         "thw"[pe_mrope_axis(s->mrope_pairs, s->mrope_interleaved, pair)]);
	return buf;
}

const char *pe_check_column_name(const struct pe_check_form *f, const struct pe_scheme *s,
                                 size_t col, char *buf, size_t cap)
{
	if (!pe_check_has_model(s) || f->kind == PE_CHECK_TABLE) {
		snprintf(buf, cap, "column %zu", col);
		return buf;
	}
	size_t d_rot = pe_rope_rotary_width(s, f->d), h = d_rot / 2;
	const char *what = f->kind == PE_CHECK_COS_SIN ? "cos" : "";
	char ax[8];
	size_t j = col;
	if (f->kind == PE_CHECK_COS_SIN) {
		if (f->packing == PE_PACK_ALTERNATE) {
			what = col % 2 ? "sin" : "cos";
			snprintf(buf, cap, "column %zu (pair %zu%s, %s)", col, col / 2,
			         axis_note(s, col / 2, h, ax), what);
			return buf;
		}
		size_t w = f->cols / 2;
		if (col >= w) {
			what = "sin";
			j = col - w;
		}
	}
	if (f->kind == PE_CHECK_INV_FREQ || f->packing == PE_PACK_PAIRS) {
		snprintf(buf, cap, "column %zu (pair %zu%s%s%s)", col, j, axis_note(s, j, h, ax),
		         *what ? ", " : "", what);
		return buf;
	}
	if (j >= d_rot) {
		snprintf(buf, cap, "column %zu (not rotated%s%s)", col, *what ? ", " : "", what);
		return buf;
	}
	size_t p = pair_of(s->layout, j, h);
	snprintf(buf, cap, "column %zu (pair %zu%s%s%s)", col, p, axis_note(s, p, h, ax),
	         *what ? ", " : "", what);
	return buf;
}

size_t check_column_pair(const struct pe_check_form *f, const struct check_model *cm, size_t j)
{
	if (!cm->is_rope)
		return CHECK_NO_PAIR;
	const struct pe_rope_model *m = &cm->rope;
	size_t h = m->d_rot / 2;
	switch (f->kind) {
	case PE_CHECK_INV_FREQ:
		return j < h ? j : CHECK_NO_PAIR;
	case PE_CHECK_ANGLE:
	case PE_CHECK_COS:
	case PE_CHECK_SIN:
		if (f->packing == PE_PACK_PAIRS)
			return j < h ? j : CHECK_NO_PAIR;
		return j < m->d_rot ? pair_of(m->layout, j, h) : CHECK_NO_PAIR;
	case PE_CHECK_COS_SIN:
		if (f->packing == PE_PACK_PAIRS)
			return j % h;
		if (f->packing == PE_PACK_ALTERNATE)
			return j / 2;
		j %= f->cols / 2;
		return j < m->d_rot ? pair_of(m->layout, j, h) : CHECK_NO_PAIR;
	case PE_CHECK_ROTATED:
		return j < m->d_rot ? pair_of(m->layout, j, h) : CHECK_NO_PAIR;
	default:
		return CHECK_NO_PAIR;
	}
}

enum pe_status check_column_errors(const struct check_model *m, const struct pe_check_form *f,
                                   const struct pe_matrix *dump, const struct pe_check_options *opt,
                                   const size_t *idx, size_t nidx, double *col_ss)
{
	double *buf = malloc((f->cols + check_work_size(f)) * sizeof(*buf));
	if (!buf)
		return PE_ENOMEM;
	for (size_t j = 0; j < f->cols; j++)
		col_ss[j] = 0;
	enum pe_status rc = PE_OK;
	for (size_t k = 0; k < nidx && rc == PE_OK; k++) {
		size_t r = idx[k];
		rc = check_expected_row(m, f, opt->start, r, opt->vector, buf + f->cols, buf);
		const double *got = dump->data + r * dump->cols;
		for (size_t j = 0; j < f->cols; j++) {
			/* a NaN or infinity in the dump (float16's overflowed positions) says
			 * nothing about what the dump holds, and would tie every form */
			if (!isfinite(got[j]))
				continue;
			double e = got[j] - buf[j];
			col_ss[j] += isfinite(e) ? e * e : 1e300;
		}
	}
	free(buf);
	return rc;
}

size_t check_fit_rows(size_t rows, size_t *idx)
{
	size_t n = 0;
	for (size_t r = 0; r < rows && r < CHECK_FIT_FIRST; r++)
		idx[n++] = r;
	if (rows > CHECK_FIT_FIRST)
		for (size_t k = 1; k <= CHECK_FIT_SPREAD; k++) {
			size_t r = CHECK_FIT_FIRST +
			           (size_t)((double)k * (double)(rows - 1 - CHECK_FIT_FIRST) /
			                    (double)CHECK_FIT_SPREAD);
			if (r > idx[n - 1])
				idx[n++] = r;
		}
	return n;
}

/* theta moved by k units in the last place of precision f (k = -1, 0, 1). */
static double ulp_step(enum pe_float f, double theta, int k)
{
	if (k == 0 || !(theta > 0))
		return theta;
	if (f == PE_FLOAT_F32) {
		float t = (float)theta;
		for (int i = 0; i < abs(k); i++)
			t = nextafterf(t, k > 0 ? INFINITY : 0.0f);
		return (double)t;
	}
	int e;
	frexp(theta, &e);
	int bits = f == PE_FLOAT_BF16 ? 8 : 11;
	return pe_round(f, theta + k * ldexp(1.0, e - bits));
}

/*
 * ggml: powf(base, -2/n_dims) may be an ulp or two from the correctly rounded
 * value on some libm; every pair depends on it, so it is fitted as a whole,
 * with YaRN's mix fused or not as the engine's build did it.
 */
static enum pe_status fit_theta_scale(struct check_model *cm, const struct pe_check_form *f,
                                      const struct pe_matrix *dump,
                                      const struct pe_check_options *opt, const size_t *idx,
                                      size_t nidx)
{
	double *col_ss = malloc(f->cols * sizeof(*col_ss));
	if (!col_ss)
		return PE_ENOMEM;
	float ts0 = cm->g.theta_scale, best = ts0;
	int best_fma = 0;
	double best_ss = INFINITY;
	enum pe_status rc = PE_OK;
	static const int steps[] = {0, -1, 1, -2, 2};
	for (int fused = 0; fused < (cm->g.ext_factor != 0.0f ? 2 : 1); fused++)
		for (int k = 0; k < 5 && rc == PE_OK; k++) {
			float t = ts0;
			for (int i = 0; i < abs(steps[k]); i++)
				t = nextafterf(t, steps[k] > 0 ? INFINITY : 0.0f);
			cm->g.theta_scale = t;
			cm->g.fma = fused;
			rc = check_column_errors(cm, f, dump, opt, idx, nidx, col_ss);
			double ss = 0;
			for (size_t j = 0; j < f->cols; j++)
				ss += col_ss[j];
			if (rc == PE_OK && ss < best_ss) {
				best_ss = ss;
				best = t;
				best_fma = fused;
			}
		}
	cm->g.theta_scale = best;
	cm->g.fma = best_fma;
	free(col_ss);
	return rc;
}

enum pe_status check_fit_last_bits(struct check_model *cm, const struct pe_check_form *f,
                                   const struct pe_matrix *dump, const struct pe_check_options *opt,
                                   const size_t *idx, size_t nidx)
{
	if (!cm->is_rope)
		return PE_OK;
	struct pe_rope_model *m = &cm->rope;
	enum pe_float R = m->prec.compute;
	if (R != PE_FLOAT_F32 && R != PE_FLOAT_BF16 && R != PE_FLOAT_F16)
		return PE_OK;
	if (cm->ggml)
		return fit_theta_scale(cm, f, dump, opt, idx, nidx);
	size_t h = m->d_rot / 2;
	double *buf = malloc((4 * h + f->cols) * sizeof(*buf));
	if (!buf)
		return PE_ENOMEM;
	double *theta0 = buf, *best = buf + h, *best_ss = buf + 2 * h, *pair_ss = buf + 3 * h,
	       *col_ss = buf + 4 * h;
	memcpy(theta0, m->theta, h * sizeof(*theta0));
	memcpy(best, m->theta, h * sizeof(*best));
	enum pe_status rc = PE_OK;
	/* pow one unit off, then the division rounding again: two units either side */
	static const int steps[] = {0, -1, 1, -2, 2};
	for (int k = 0; k < 5 && rc == PE_OK; k++) {
		for (size_t i = 0; i < h; i++)
			m->theta[i] = ulp_step(R, theta0[i], steps[k]);
		rc = check_column_errors(cm, f, dump, opt, idx, nidx, col_ss);
		if (rc != PE_OK)
			break;
		/* one pass over the columns, not one per pair: a dump of 10^5 pairs
		 * (a long list of frequencies) would take 10^10 steps */
		for (size_t i = 0; i < h; i++)
			pair_ss[i] = 0;
		for (size_t j = 0; j < f->cols; j++) {
			size_t i = check_column_pair(f, cm, j);
			if (i < h)
				pair_ss[i] += col_ss[j];
		}
		for (size_t i = 0; i < h; i++)
			if (k == 0 || pair_ss[i] < best_ss[i]) {
				best_ss[i] = pair_ss[i];
				best[i] = m->theta[i];
			}
	}
	memcpy(m->theta, best, h * sizeof(*best));
	free(buf);
	return rc;
}
