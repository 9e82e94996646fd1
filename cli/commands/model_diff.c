/*
 * posenc model A B: one model from two sources (a config.json and the GGUF llama.cpp's
 * converter made of it, say), every position-related field that differs, layer by layer
 * group, and the context lengths each derives.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/check.h>
#include <posenc/encode.h>
#include <posenc/model.h>
#include <posenc/rope.h>
#include <posenc/scheme.h>

#include "cli.h"
#include "commands/model_diff.h"
#include "shared/model_spec.h"
#include "shared/output.h"

/* What one source says about one layer: its group and that group's scheme. */
struct side {
	const struct pe_model *m;
	const struct pe_model_group *g;
	struct pe_scheme *s; /* NULL: NoPE or not a rope */
	size_t head;
};

static const struct pe_model_group *group_of(const struct pe_model *m, size_t layer)
{
	for (size_t i = 0; i < m->n_groups; i++)
		for (size_t k = 0; k < m->groups[i].n_layers; k++)
			if (m->groups[i].layers[k] == layer)
				return &m->groups[i];
	return m->n_groups ? &m->groups[0] : NULL;
}

static int differ(double a, double b)
{
	if (isnan(a) && isnan(b))
		return 0;
	return !(fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b)));
}

static int row(FILE *f, const char *what, double a, double b, int *n)
{
	if (!differ(a, b))
		return 0;
	fprintf(f, "  %-28s %.10g | %.10g\n", what, a, b);
	(*n)++;
	return 1;
}

/* A quantity one side may not have (an unscaled model's factor, a linear one's original). */
static void opt_row(FILE *f, const char *what, int has_a, double a, int has_b, double b, int *n)
{
	if (has_a && has_b) {
		row(f, what, a, b, n);
	} else if (has_a || has_b) {
		char ta[32] = "\u2013", tb[32] = "\u2013";
		if (has_a)
			snprintf(ta, sizeof(ta), "%.10g", a);
		if (has_b)
			snprintf(tb, sizeof(tb), "%.10g", b);
		fprintf(f, "  %-28s %s | %s\n", what, ta, tb);
		(*n)++;
	}
}

/*
 * The context a model's scalings reach: factor x original for those that have an
 * original (a YaRN recipe over a config left at 32768: 131072), else its own.
 */
static double extended_context(const struct pe_model *m)
{
	double ctx = m->context;
	for (size_t g = 0; g < m->n_groups; g++) {
		struct pe_scheme *s = NULL;
		if (!m->groups[g].spec || pe_scheme_parse(m->groups[g].spec, &s, NULL) != PE_OK)
			continue;
		if (pe_scheme_has(s, PE_CAP_SCALING) &&
		    pe_rope_scaling_has_original(s->scaling.type))
			ctx = fmax(ctx, s->scaling.factor * s->scaling.original);
		pe_scheme_destroy(s);
	}
	return ctx;
}

static void text_row(FILE *f, const char *what, const char *a, const char *b, int *n)
{
	if (strcmp(a, b) == 0)
		return;
	fprintf(f, "  %-28s %s | %s\n", what, a, b);
	(*n)++;
}

/* Largest relative difference of two factor lists (NaN when only one has a list). */
static double list_diff(const double *a, size_t na, const double *b, size_t nb)
{
	if (!a && !b)
		return 0;
	if (!a || !b || na != nb)
		return NAN;
	double d = 0;
	for (size_t i = 0; i < na; i++)
		d = fmax(d, fabs(a[i] - b[i]) / fmax(fabs(a[i]), fabs(b[i])));
	return d;
}

/* The frequencies of a side at @length: theta (d_rot/2) and the attention factor. */
static int freqs_at(const struct side *x, double length, double **theta, size_t *h, double *att)
{
	size_t d_rot = pe_rope_rotary_width(x->s, x->head);
	*h = d_rot / 2;
	*theta = malloc((*h ? *h : 1) * sizeof(**theta));
	if (!*theta)
		return -1;
	struct pe_rope_scaling_params p = x->s->scaling;
	if (p.length == 0)
		p.length = length;
	struct pe_rope_scaling_info info = {1.0, x->s->base, NAN, NAN};
	if (pe_rope_base_frequencies(x->s->base, d_rot, *theta) != PE_OK ||
	    pe_rope_scale_frequencies(&p, x->s->base, d_rot, *theta, &info) != PE_OK)
		return -1;
	*att = info.attention_factor;
	return 0;
}

static void compare_rope(FILE *f, const struct side *a, const struct side *b, double length, int *n)
{
	const struct pe_scheme *s = a->s, *t = b->s;
	const struct pe_rope_scaling_params *p = &s->scaling, *q = &t->scaling;
	text_row(f, "layout", s->layout == PE_LAYOUT_HALF ? "half" : "interleaved",
	         t->layout == PE_LAYOUT_HALF ? "half" : "interleaved", n);
	row(f, "head width", (double)a->head, (double)b->head, n);
	row(f, "rotary width", (double)pe_rope_rotary_width(s, a->head),
	    (double)pe_rope_rotary_width(t, b->head), n);
	row(f, "base", s->base, t->base, n);
	text_row(f, "scaling", pe_rope_scaling_name(p->type), pe_rope_scaling_name(q->type), n);
	/* an unscaled side has no factor, a linear one no original: the spec's defaults
	 * (4, 4096) are no part of them */
	int fa = p->type != PE_ROPE_SCALING_NONE, fb = q->type != PE_ROPE_SCALING_NONE;
	opt_row(f, "factor", fa, p->factor, fb, q->factor, n);
	opt_row(f, "original context", fa && pe_rope_scaling_has_original(p->type), p->original,
	        fb && pe_rope_scaling_has_original(q->type), q->original, n);
	if (p->type == q->type && p->type == PE_ROPE_SCALING_LLAMA3) {
		row(f, "low_freq_factor", p->low_freq_factor, q->low_freq_factor, n);
		row(f, "high_freq_factor", p->high_freq_factor, q->high_freq_factor, n);
	}
	if (p->type == q->type && p->type == PE_ROPE_SCALING_YARN) {
		row(f, "beta_fast", p->beta_fast, q->beta_fast, n);
		row(f, "beta_slow", p->beta_slow, q->beta_slow, n);
		row(f, "mscale", p->mscale, q->mscale, n);
		row(f, "mscale_all_dim", p->mscale_all_dim, q->mscale_all_dim, n);
		row(f, "truncate", p->truncate, q->truncate, n);
	}
	if (p->type == q->type && p->type == PE_ROPE_SCALING_LONGROPE) {
		double dl = list_diff(p->long_factor, p->n_long_factor, q->long_factor,
		                      q->n_long_factor);
		double ds = list_diff(p->short_factor, p->n_short_factor, q->short_factor,
		                      q->n_short_factor);
		if (dl != 0) {
			fprintf(f, "  %-28s %s\n", "long factors",
			        isnan(dl) ? "given by one only" : "differ");
			if (!isnan(dl))
				fprintf(f, "  %-28s %.3g\n", "  largest relative difference", dl);
			(*n)++;
		}
		if (ds != 0) {
			fprintf(f, "  %-28s %s\n", "short factors",
			        isnan(ds) ? "given by one only" : "differ");
			if (!isnan(ds))
				fprintf(f, "  %-28s %.3g\n", "  largest relative difference", ds);
			(*n)++;
		}
	}
	/* the length each engine evaluates a length-dependent scaling at (check.h) */
	int by_len = p->type == PE_ROPE_SCALING_DYNAMIC || p->type == PE_ROPE_SCALING_LONGROPE ||
	             q->type == PE_ROPE_SCALING_DYNAMIC || q->type == PE_ROPE_SCALING_LONGROPE;
	for (int e = PE_ENGINE_VLLM; by_len && e <= PE_ENGINE_LLAMACPP; e++) {
		struct pe_rope_scaling_params pa = *p, pb = *q;
		pe_engine_apply((enum pe_engine)e, &pa, 0, 0, NULL);
		pe_engine_apply((enum pe_engine)e, &pb, 0, 1, NULL);
		char what[64], ta[64], tb[64];
		snprintf(what, sizeof(what), "length in %s", pe_engine_name((enum pe_engine)e));
		snprintf(ta, sizeof(ta), "%s at %.10g", pe_rope_scaling_name(pa.type), pa.length);
		snprintf(tb, sizeof(tb), "%s at %.10g", pe_rope_scaling_name(pb.type), pb.length);
		fprintf(f, "  %-28s %s | %s\n", what,
		        pa.type == PE_ROPE_SCALING_NONE ? "unscaled" : ta,
		        pb.type == PE_ROPE_SCALING_NONE ? "unscaled" : tb);
	}
	/* what the two compute: inverse frequencies and attention factor at one length */
	double *ta = NULL, *tb = NULL, aa = 1, ab = 1;
	size_t ha = 0, hb = 0;
	if (freqs_at(a, length, &ta, &ha, &aa) == 0 && freqs_at(b, length, &tb, &hb, &ab) == 0 &&
	    ha == hb) {
		double worst = 0;
		size_t at = 0;
		for (size_t i = 0; i < ha; i++) {
			double d =
			        fabs(ta[i] - tb[i]) / fmax(fmax(fabs(ta[i]), fabs(tb[i])), 1e-300);
			if (d > worst) {
				worst = d;
				at = i;
			}
		}
		row(f, "attention factor", aa, ab, n);
		if (worst > 1e-12) {
			fprintf(f,
			        "  %-28s largest relative difference %.3g (pair %zu) at length "
			        "%.10g%s\n",
			        "inverse frequencies", worst, at, length,
			        worst < 1.2e-7 ? " (float32 storage)" : "");
			(*n)++;
		}
	}
	free(ta);
	free(tb);
}

static void layers_text(const struct pe_model *m, const struct pe_model_group *ga,
                        const struct pe_model *mb, const struct pe_model_group *gb, char *buf,
                        size_t cap)
{
	size_t n = 0, *l = malloc((m->n_layers ? m->n_layers : 1) * sizeof(*l));
	if (!l) {
		snprintf(buf, cap, "?");
		return;
	}
	for (size_t i = 0; i < m->n_layers; i++)
		if (group_of(m, i) == ga && group_of(mb, i) == gb)
			l[n++] = i;
	cli_layer_ranges(l, n, buf, cap);
	free(l);
}

int cli_model_diff(const struct cli_common *o, const char *spec_a, const char *spec_b, FILE *f)
{
	struct pe_model *ma = NULL, *mb = NULL;
	const char *ova = NULL, *ovb = NULL;
	int rc = cli_model_load(o, spec_a, &ma, &ova);
	if (!rc)
		rc = cli_model_load(o, spec_b, &mb, &ovb);
	if (!rc && (ova || ovb))
		rc = cli_usage_error("model A B compares the sources as they are: no ',key=value' "
		                     "overrides");
	if (rc)
		return rc; /* the models belong to cli_model_load's cache */
	int n = 0;
	fprintf(f, "%s | %s\n", spec_a, spec_b);
	/* the context lengths each derives, always shown */
	double ea = extended_context(ma), eb = extended_context(mb);
	fprintf(f, "  %-28s %.10g | %.10g\n", "context (extended)", ea, eb);
	int own = ea != ma->context || eb != mb->context;
	if (own)
		fprintf(f, "  %-28s %.10g | %.10g\n", "max_position_embeddings", ma->context,
		        mb->context);
	fprintf(f, "  %-28s %.10g | %.10g\n", "training context", ma->train_context,
	        mb->train_context);
	n += differ(ea, eb) + (own && differ(ma->context, mb->context)) +
	     differ(ma->train_context, mb->train_context);
	row(f, "layers", (double)ma->n_layers, (double)mb->n_layers, &n);
	row(f, "head width (model)", (double)ma->head_dim, (double)mb->head_dim, &n);
	double length = fmax(ea, eb);
	size_t layers = ma->n_layers == mb->n_layers && ma->n_layers ? ma->n_layers : 1;
	const struct pe_model_group *done_a[64], *done_b[64];
	size_t ndone = 0;
	for (size_t i = 0; i < layers && rc == 0; i++) {
		const struct pe_model_group *ga = ma->n_layers ? group_of(ma, i) : &ma->groups[0];
		const struct pe_model_group *gb = mb->n_layers ? group_of(mb, i) : &mb->groups[0];
		if (!ga || !gb)
			break;
		int seen = 0;
		for (size_t k = 0; k < ndone; k++)
			seen |= done_a[k] == ga && done_b[k] == gb;
		if (seen || ndone >= 64)
			continue;
		done_a[ndone] = ga;
		done_b[ndone++] = gb;
		char lay[256] = "";
		if (ma->n_layers)
			layers_text(ma, ga, mb, gb, lay, sizeof(lay));
		fprintf(f, "layers %s: group %s | group %s\n", *lay ? lay : "all", ga->name,
		        gb->name);
		struct side a = {ma, ga, NULL, ma->head_dim}, b = {mb, gb, NULL, mb->head_dim};
		if (ga->spec && pe_scheme_parse(ga->spec, &a.s, NULL) != PE_OK)
			a.s = NULL;
		if (gb->spec && pe_scheme_parse(gb->spec, &b.s, NULL) != PE_OK)
			b.s = NULL;
		int ra = a.s && pe_scheme_has(a.s, PE_CAP_SCALING);
		int rb = b.s && pe_scheme_has(b.s, PE_CAP_SCALING);
		if (ra && a.s->head)
			a.head = a.s->head;
		if (rb && b.s->head)
			b.head = b.s->head;
		if (ra && rb)
			compare_rope(f, &a, &b, length, &n);
		else
			text_row(f, "encoding", a.s ? a.s->canonical : "none",
			         b.s ? b.s->canonical : "none", &n);
		pe_scheme_destroy(a.s);
		pe_scheme_destroy(b.s);
	}
	if (n == 0)
		fprintf(f, "no position-related field differs\n");
	else
		fprintf(f,
		        "%d field%s differ (LongRoPE and dynamic NTK compared at length %.10g; "
		        "llama.cpp picks LongRoPE's factors by its context size, transformers by "
		        "the sequence length)\n",
		        n, n > 1 ? "s" : "", length);
	return rc;
}
