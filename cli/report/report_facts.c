/*
 * The report's first table: each model's facts as 'posenc model' gives them
 * (widths, base, scaling, attention factor, contexts, critical dimension,
 * pairs kept, ramped and interpolated, pairs that never turn), one column
 * per scheme. The frequencies are evaluated at the model's extended context
 * (factor x original where the scaling has an original, else
 * max_position_embeddings), whatever the report's -n: the length the counts
 * of pairs that never turn are taken in, so a dynamic NTK base is the one grown
 * to it and LongRoPE's factors the long ones.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/freqs.h>
#include <posenc/rope.h>

#include "cli.h"
#include "report/report.h"

#define TWO_PI 6.28318530717958647692

enum fact {
	F_HEAD,
	F_ROTARY,
	F_LAYOUT,
	F_BASE,
	F_SCALING,
	F_FACTOR,
	F_ORIGINAL,
	F_ATTENTION,
	F_LOGIT,
	F_SOFTMAX,
	F_CONTEXT,
	F_TRAIN,
	F_EXTENDED,
	F_CRITICAL,
	F_KEPT,
	F_RAMPED,
	F_INTERP,
	F_SLOW_TRAIN,
	F_SLOW_CTX,
	F_COUNT
};

static const char *const fact_names[F_COUNT] = {
        "head width d",
        "rotary width d_rot",
        "pair layout",
        "base (rope_theta)",
        "scaling",
        "factor",
        "original context",
        "attention factor (cos, sin x)",
        "logit scale (factor squared)",
        "softmax scale x (config, mscale^2)",
        "max_position_embeddings",
        "training context",
        "extended context (factor x original)",
        "critical dimension (training)",
        "pairs kept",
        "pairs ramped (or rescaled)",
        "pairs interpolated (theta / factor)",
        "pairs never turning in training ctx",
        "scaled pairs never turning in extended ctx",
};

static const char *fmt(struct report_section *sec, double v)
{
	if (!isfinite(v) || v <= 0)
		return "\u2013";
	return report_strf(sec, "%.10g", v);
}

/* One column: the facts of scheme @i into cells[q * cols + col]. */
static int column(const struct report *r, size_t i, struct report_section *sec, const char **cells,
                  size_t cols, size_t col)
{
	const struct pe_scheme *s = r->schemes[i];
	const struct cli_contexts *c = &r->ctx[i];
	size_t d = r->s[i].data.v.vec.d;
	for (size_t q = 0; q < F_COUNT; q++)
		cells[q * cols + col] = "\u2013";
	cells[F_HEAD * cols + col] = report_strf(sec, "%zu", d);
	/* M-RoPE is RoPE over the whole width whose pairs follow three position axes. */
	if (!pe_scheme_has(s, PE_CAP_SCALING) && pe_mrope_pair_axis(s, 0) < 0)
		return cells[F_HEAD * cols + col] ? 0 : cli_error("out of memory");
	struct pe_freqs_options fo = {c->effective > 0 ? c->effective : 0, c->train};
	struct pe_freq_table *t = NULL;
	enum pe_status st = pe_freq_table_create(s, d, &fo, &t);
	if (st != PE_OK)
		return st == PE_ENOMEM ? cli_error("out of memory") : 0;
	size_t pairs = t->values->rows, tc = t->values->cols;
	/* an unscaled rope's table also holds the scalings it could take, for freqs to
	 * draw: none of them is the scheme's */
	const struct pe_freq_variant *v =
	        t->n_variants && !t->illustrative ? &t->variants[0] : NULL;
	cells[F_ROTARY * cols + col] = report_strf(sec, "%zu", t->d_pairs);
	cells[F_LAYOUT * cols + col] = s->layout == PE_LAYOUT_HALF ? "half" : "interleaved";
	if (t->axes) {
		size_t n[3] = {0, 0, 0};
		for (size_t q = 0; q < pairs; q++)
			n[t->axes[q] % 3]++;
		cells[F_LAYOUT * cols + col] =
		        report_strf(sec, "half; t/h/w %zu/%zu/%zu %s", n[0], n[1], n[2],
		                    s->mrope_interleaved ? "interleaved" : "in sections");
	}
	cells[F_BASE * cols + col] = fmt(sec, s->base);
	cells[F_SCALING * cols + col] = v ? pe_rope_scaling_name(v->type) : "none";
	size_t kept = 0, ramped = 0, interp = 0, slow_train = 0, slow_ctx = 0;
	for (size_t q = 0; q < pairs; q++) {
		const double *row = t->values->data + q * tc;
		double ratio = v ? row[3] : 1.0, scaled = v ? row[2] : row[0];
		enum pe_pair_regime g = v ? pe_pair_regime(v, ratio) : PE_REGIME_KEPT;
		kept += g == PE_REGIME_KEPT;
		ramped += g == PE_REGIME_RAMPED || g == PE_REGIME_RESCALED;
		interp += g == PE_REGIME_INTERPOLATED;
		if (c->train > 0)
			slow_train += TWO_PI / row[0] > c->train;
		if (c->effective > 0)
			slow_ctx += !(scaled > 0) || TWO_PI / scaled > c->effective;
	}
	if (v) {
		cells[F_FACTOR * cols + col] = fmt(sec, v->factor);
		if (pe_rope_scaling_has_original(v->type))
			cells[F_ORIGINAL * cols + col] = fmt(sec, v->original);
		double a = v->info.attention_factor;
		cells[F_ATTENTION * cols + col] = fmt(sec, a);
		cells[F_LOGIT * cols + col] = fmt(sec, a * a);
		cells[F_KEPT * cols + col] = report_strf(sec, "%zu", kept);
		cells[F_RAMPED * cols + col] = report_strf(sec, "%zu", ramped);
		cells[F_INTERP * cols + col] = report_strf(sec, "%zu", interp);
	} else {
		cells[F_ATTENTION * cols + col] = "1";
		cells[F_LOGIT * cols + col] = "1";
		cells[F_KEPT * cols + col] = report_strf(sec, "%zu", pairs);
	}
	/* DeepSeek-V3's YaRN puts mscale^2 on the softmax scale, not on cos and sin (its
	 * attention factor is 1): the logits' own factor, beside the one above */
	cells[F_SOFTMAX * cols + col] = fmt(sec, r->info[i].softmax_scale_factor);
	cells[F_CONTEXT * cols + col] = fmt(sec, c->context);
	cells[F_TRAIN * cols + col] = fmt(sec, c->train);
	cells[F_EXTENDED * cols + col] = fmt(sec, c->effective);
	if (t->has_critical_dim)
		cells[F_CRITICAL * cols + col] =
		        report_strf(sec, "%zu of %zu", t->critical_dim, t->d_pairs);
	if (c->train > 0)
		cells[F_SLOW_TRAIN * cols + col] = report_strf(sec, "%zu", slow_train);
	if (c->effective > 0 && v)
		cells[F_SLOW_CTX * cols + col] = report_strf(sec, "%zu", slow_ctx);
	pe_freq_table_destroy(t);
	for (size_t q = 0; q < F_COUNT; q++)
		if (!cells[q * cols + col])
			return cli_error("out of memory");
	return 0;
}

int report_facts_table(const struct report *r, struct report_section *sec, struct pe_table *out)
{
	size_t cols = r->count + 1;
	const char **header = (const char **)calloc(cols, sizeof(char *));
	const char **cells = (const char **)calloc(F_COUNT * cols, sizeof(char *));
	if (!header || !cells) {
		free(header);
		free(cells);
		return cli_error("out of memory");
	}
	*out = (struct pe_table){
	        "Models: the facts of posenc model (at each model's extended context)", F_COUNT,
	        cols, header, cells};
	header[0] = "";
	for (size_t q = 0; q < F_COUNT; q++)
		cells[q * cols] = fact_names[q];
	int rc = 0;
	for (size_t i = 0; i < r->count && !rc; i++) {
		header[1 + i] = r->schemes[i]->label;
		rc = column(r, i, sec, cells, cols, 1 + i);
	}
	return rc;
}
