/* posenc usage: which RoPE frequencies a checkpoint's query and key weights use. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <posenc/model.h>
#include <posenc/tensors.h>
#include <posenc/usage.h>
#include <posenc/write.h>

#include "cli.h"
#include "commands.h"
#include "figures/figure.h"
#include "shared/costs.h"
#include "shared/model_spec.h"
#include "shared/output.h"

#define TWO_PI 6.283185307179586476925

enum {
	OPT_WEIGHTS = CLI_OPT_COMMAND,
	OPT_QUANTITY,
	OPT_HEAD,
	OPT_VIEW,
	OPT_ACTIVATIONS,
	OPT_FOLD_BIAS,
};

static const char help[] =
        "Usage: posenc usage -s hf:config.json --weights FILE [--quantity q|k|qk]\n"
        "       posenc usage -s gguf:FILE --weights FILE ...\n"
        "                    [--head N|mean] [--view heatmap|wavelength]\n"
        "                    [--activations FILE.npy] [--fold-bias] [-o FILE]\n"
        "\n"
        "Which RoPE frequencies a trained model's weights use: for every layer, query head\n"
        "and RoPE pair, the norm of the two rows of the query projection that make the\n"
        "pair, sqrt(|w_a|^2 + |w_b|^2), the same for the key head that query head uses\n"
        "(grouped-query heads as the model maps them: head h uses key head h/(heads/kv)),\n"
        "and their product, paired as the architecture pairs (half, interleaved, partial\n"
        "rotary, proportional, DeepSeek's decoupled rope part). Only the query and key\n"
        "projections are read (q_proj/k_proj, fused qkv_proj, c_attn, query_key_value,\n"
        "DeepSeek's q_b_proj and kv_a_proj_with_mqa), one tensor at a time in slices\n"
        "within --max-memory. q_norm/k_norm weights are folded in. Weight norms are a\n"
        "proxy: they bound what a pair can carry, not what it carries for real inputs.\n"
        "A GGUF file (llama.cpp's) is read with its own metadata, -s gguf:FILE --weights\n"
        "FILE: blk.N.attn_q, attn_k or attn_qkv, heads from its keys, pairs as its rope\n"
        "type pairs them (NORM: (2i, 2i+1) of the rows llama.cpp's converter permuted for\n"
        "llama-family models; NEOX: (i, i+d_rot/2)); MLA's attn_q_b (or attn_q) and\n"
        "attn_kv_a_mqa (deepseek2, mistral4, plm, minicpm3: the last rope.dimension_count\n"
        "rows of each query head and of kv_a_mqa); qwen3next's gated attn_q (the query\n"
        "half of each head); F32, F16, BF16 and F64 tensors only: a quantised one (Q4_K,\n"
        "Q8_0, ...) is an error.\n"
        "-o FILE.csv (or -): one row per layer, head and pair (layer, head, kv_head, pair,\n"
        "its two coordinates, theta, wavelengths, q, k, qk, activation); FILE.npy: the\n"
        "[layers, heads, pairs] array of --quantity; .png .svg .pdf: the figure.\n"
        "\n"
        "Options:\n"
        "  -s, --scheme SPEC      the model's config: hf:config.json, gguf:FILE or\n"
        "                         model:NAME (see 'posenc help models')\n"
        "      --weights FILE     model.safetensors, or model.safetensors.index.json of a\n"
        "                         sharded checkpoint, or the GGUF file of -s gguf:FILE\n"
        "      --quantity WHAT    q, k or qk (their product) [default: qk]\n"
        "      --head N|mean      the figure's head: a query head, or the mean over heads\n"
        "                         [default: mean]\n"
        "      --view VIEW        heatmap (layers x pairs) or wavelength (each pair's norm\n"
        "                         over its head's mean, against the pair's wavelength, with\n"
        "                         the contexts, critical pair and scaled band marked)\n"
        "                         [default: heatmap]\n"
        "      --activations FILE a [layers, heads, head_dim] (or [.., pairs]) .npy of an\n"
        "                         activation statistic (L2 norm over tokens, mean |q|),\n"
        "                         query or key heads, paired the same way and drawn\n"
        "                         beside the weights\n"
        "      --fold-bias        add q/k biases (Qwen 2) as one more input column\n"
        "      --layer N|GROUP    the wavelength view of one layer or layer group [default:\n"
        "                         every layer]\n"
        "%s"
        "\n"
        "Example: posenc usage -s hf:config.json --weights model.safetensors -o usage.png\n";

static const struct cli_refusal refusals[] = {
        {CLI_TAKES_BASE | CLI_TAKES_DIM | CLI_TAKES_POSITIONS | CLI_TAKES_POSITION_IDS,
         "usage reads weights at the model's own widths and encodes no positions"},
        {0, NULL},
};

static const struct cli_command_options command = {
        help,
        CLI_TAKES_SCHEME | CLI_TAKES_LAYER | CLI_TAKES_DTYPE | CLI_TAKES_FIGURES |
                CLI_TAKES_COLOUR | CLI_TAKES_BUDGETS,
        ".png .svg .pdf figure, .csv table, .npy array, - for CSV on stdout",
        "usage draws labelled figures only",
        refusals,
};

enum quantity { Q_Q, Q_K, Q_QK };
enum view { VIEW_HEATMAP, VIEW_WAVELENGTH };

struct own {
	long layer, group; /* --layer: one layer, or one layer group, of the wavelength view; -1 */
	const char *weights;
	const char *activations;
	enum quantity quantity;
	long head; /* -1: mean */
	enum view view;
	int fold_bias;
};

static int parse_own(void *ctx, int opt, const char *arg)
{
	struct own *w = ctx;
	switch (opt) {
	case OPT_WEIGHTS:
	case OPT_ACTIVATIONS:
		if (!*arg)
			return cli_usage_error("option '%s': the file name is empty",
			                       opt == OPT_WEIGHTS ? "--weights" : "--activations");
		*(opt == OPT_WEIGHTS ? &w->weights : &w->activations) = arg;
		return 0;
	case OPT_QUANTITY:
		if (strcmp(arg, "q") == 0)
			w->quantity = Q_Q;
		else if (strcmp(arg, "k") == 0)
			w->quantity = Q_K;
		else if (strcmp(arg, "qk") == 0)
			w->quantity = Q_QK;
		else
			return cli_usage_error("option '--quantity': '%s' is not q, k or qk", arg);
		return 0;
	case OPT_HEAD: {
		if (strcmp(arg, "mean") == 0) {
			w->head = -1;
			return 0;
		}
		uint64_t v;
		int rc = cli_parse_count("--head", arg, 0, 1u << 20, &v);
		if (!rc)
			w->head = (long)v;
		return rc;
	}
	case OPT_VIEW:
		if (strcmp(arg, "heatmap") == 0)
			w->view = VIEW_HEATMAP;
		else if (strcmp(arg, "wavelength") == 0)
			w->view = VIEW_WAVELENGTH;
		else
			return cli_usage_error("option '--view': '%s' is not heatmap or wavelength",
			                       arg);
		return 0;
	default:
		w->fold_bias = 1;
		return 0;
	}
}

static const char *quantity_name(enum quantity q)
{
	return q == Q_Q ? "q" : q == Q_K ? "k" : "qk";
}

static const char *quantity_label(enum quantity q)
{
	return q == Q_Q ? "query pair norm \xe2\x80\x96W_q\xe2\x80\x96"
	       : q == Q_K
	               ? "key pair norm \xe2\x80\x96W_k\xe2\x80\x96"
	               : "\xe2\x80\x96W_q\xe2\x80\x96\xc2\xb7\xe2\x80\x96W_k\xe2\x80\x96 per pair";
}

static const double *quantity_data(const struct pe_usage *u, enum quantity q)
{
	return q == Q_Q ? u->q : q == Q_K ? u->k : u->qk;
}

/* ---- reports ---- */

static void report(const struct cli_common *o, const struct own *w, const struct pe_usage *u,
                   const struct pe_tensor_store *s)
{
	if (o->quiet)
		return;
	const struct pe_usage_layer *L0 = NULL;
	size_t nope = 0;
	for (size_t l = 0; l < u->layers; l++) {
		if (u->layer[l].rope && !L0)
			L0 = &u->layer[l];
		nope += !u->layer[l].rope;
	}
	char *pre = cli_escape(u->prefix);
	char *wn = cli_escape(w->weights);
	char bytes[32];
	cli_note(0, "usage: %s: %s under '%s', %zu layers, read %s of %zu file%s", wn ? wn : "",
	         pe_usage_arch_name(u->arch), pre ? pre : "", u->layers,
	         cli_format_bytes((double)pe_tensor_store_bytes_read(s), bytes),
	         pe_tensor_store_files(s), pe_tensor_store_files(s) == 1 ? "" : "s");
	free(pre);
	free(wn);
	if (L0) {
		if (L0->interleaved)
			cli_note(0,
			         "usage: pairs (2i, 2i+1) of the first %zu of %zu coordinates of a "
			         "head (interleaved)",
			         L0->rotary, L0->head_dim);
		else
			cli_note(0,
			         "usage: pairs (i, i+%zu) of the first %zu of %zu coordinates of a "
			         "head (half, rotate_half)",
			         L0->rotary / 2, L0->rotary, L0->head_dim);
		if (L0->kv_heads < L0->heads)
			cli_note(0,
			         "usage: %zu query heads on %zu key heads: query head h uses key "
			         "head h/%zu",
			         L0->heads, L0->kv_heads, L0->heads / L0->kv_heads);
	}
	if (nope)
		cli_note(0, "usage: %zu layers without RoPE (NoPE): no pairs, NaN", nope);
	const char *norm = u->norm == PE_USAGE_NORM_ONE_PLUS ? "q_norm/k_norm weights (as 1 + w: "
	                                                       "the model's RMSNorm scales so)"
	                   : u->norm == PE_USAGE_NORM_WEIGHT ? "q_norm/k_norm weights"
	                                                     : NULL;
	if (u->layernorm_skipped)
		cli_note(0, "usage: q_layernorm/k_layernorm (LayerNorms, which centre q and k) "
		            "present and not folded in");
	cli_note(0, "usage: folded in: %s%s%s", norm ? norm : "nothing (no q_norm/k_norm)",
	         u->bias_folded ? "; q/k biases as a constant column" : "",
	         u->has_bias && !u->bias_folded ? "; biases present, left out (--fold-bias)" : "");
	cli_note(0, "usage: a proxy: weight norms bound what a pair can carry; not folded: the "
	            "input RMSNorm weight, each token's RMS normalisation of q and k, the "
	            "statistics of real inputs (--activations draws those)");
}

/* ---- CSV and NPY ---- */

static int write_csv(const struct own *w, const struct pe_usage *u, const double *act, FILE *f)
{
	fputs("layer,head,kv_head,pair,dim_a,dim_b,theta,wavelength,scaled_wavelength,q,k,qk", f);
	fputs(act ? ",activation\n" : "\n", f);
	char a[40], b[40], c[40], d[40], e[40], g[40], x[40];
	(void)w;
	for (size_t l = 0; l < u->layers; l++) {
		const struct pe_usage_layer *L = &u->layer[l];
		if (!L->rope)
			continue;
		for (size_t h = 0; h < L->heads; h++)
			for (size_t i = 0; i < L->pairs; i++) {
				size_t at = (l * u->heads + h) * u->pairs + i;
				size_t da = L->interleaved ? 2 * i : i;
				size_t db = L->interleaved ? 2 * i + 1 : i + L->pairs;
				pe_csv_format(L->theta[i], a);
				pe_csv_format(TWO_PI / L->theta[i], b);
				if (L->scaled[i] > 0)
					pe_csv_format(TWO_PI / L->scaled[i], c);
				else
					strcpy(c, "inf");
				pe_csv_format(u->q[at], d);
				pe_csv_format(u->k[at], e);
				pe_csv_format(u->qk[at], g);
				fprintf(f, "%zu,%zu,%zu,%zu,%zu,%zu,%s,%s,%s,%s,%s,%s", l, h,
				        h / (L->heads / L->kv_heads), i, da, db, a, b, c, d, e, g);
				if (act) {
					pe_csv_format(act[at], x);
					fprintf(f, ",%s", x);
				}
				fputc('\n', f);
			}
	}
	return ferror(f) ? -1 : 0;
}

/* ---- figures ---- */

/* Layers x pairs: head @head (or the mean over heads when < 0) of @data. */
static double *layer_grid(const struct pe_usage *u, const double *data, long head)
{
	double *g = malloc(u->layers * u->pairs * sizeof(double));
	if (!g)
		return NULL;
	for (size_t l = 0; l < u->layers; l++)
		for (size_t i = 0; i < u->pairs; i++) {
			const struct pe_usage_layer *L = &u->layer[l];
			double v = NAN;
			if (L->rope && i < L->pairs) {
				if (head >= 0) {
					v = (size_t)head < L->heads
					            ? data[(l * u->heads + (size_t)head) *
					                           u->pairs +
					                   i]
					            : NAN;
				} else {
					double s = 0;
					for (size_t h = 0; h < L->heads; h++)
						s += data[(l * u->heads + h) * u->pairs + i];
					v = s / (double)L->heads;
				}
			}
			g[l * u->pairs + i] = v;
		}
	return g;
}

static enum pe_status heat_panel(struct pe_panel *p, const struct pe_usage *u, const double *g,
                                 const char *cbar, const struct cli_common *o)
{
	struct pe_heatmap_spec spec;
	pe_heatmap_spec_init(&spec, u->layers, u->pairs, g);
	spec.colorbar_label = cbar;
	for (size_t i = 0; i < u->layers * u->pairs; i++)
		if (isnan(g[i])) {
			spec.nan_label = "no pair";
			break;
		}
	cli_heatmap_apply(o, &spec);
	enum pe_status st = pe_panel_set_heatmap(p, &spec);
	if (st == PE_OK) {
		char xl[128] = "RoPE pair i (high \xe2\x86\x92 low frequency)";
		/* The critical pair, when every RoPE layer has the same one. */
		size_t crit = SIZE_MAX;
		int same = 1;
		for (size_t l = 0; l < u->layers; l++) {
			const struct pe_usage_layer *L = &u->layer[l];
			if (!L->rope)
				continue;
			size_t c = L->has_critical ? L->critical : SIZE_MAX - 1;
			same &= crit == SIZE_MAX || crit == c;
			crit = c;
		}
		if (same && crit < SIZE_MAX - 1)
			snprintf(xl, sizeof(xl),
			         "RoPE pair i (high \xe2\x86\x92 low frequency; critical pair %zu)",
			         crit);
		st = pe_panel_set_xlabel(p, xl);
	}
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, "layer");
	return st;
}

/* Each pair over its head's mean pair, averaged over the heads and layers of a group. */
static double *relative_curve(const struct pe_usage *u, const double *data, size_t group, long head,
                              long layer, size_t *pairs)
{
	size_t np = 0;
	for (size_t l = 0; l < u->layers; l++)
		if (u->layer[l].rope && u->layer[l].group == group &&
		    (layer < 0 || (size_t)layer == l))
			np = u->layer[l].pairs;
	*pairs = np;
	if (!np)
		return NULL;
	double *y = calloc(np, sizeof(double));
	size_t *n = calloc(np, sizeof(size_t));
	if (!y || !n) {
		free(y);
		free(n);
		return NULL;
	}
	for (size_t l = 0; l < u->layers; l++) {
		const struct pe_usage_layer *L = &u->layer[l];
		if (!L->rope || L->group != group || L->pairs != np ||
		    (layer >= 0 && (size_t)layer != l))
			continue;
		for (size_t h = 0; h < L->heads; h++) {
			if (head >= 0 && (size_t)head != h)
				continue;
			const double *row = data + (l * u->heads + h) * u->pairs;
			double mean = 0;
			for (size_t i = 0; i < np; i++)
				mean += row[i];
			mean /= (double)np;
			if (!(mean > 0) || !isfinite(mean))
				continue;
			for (size_t i = 0; i < np; i++) {
				y[i] += row[i] / mean;
				n[i]++;
			}
		}
	}
	for (size_t i = 0; i < np; i++)
		y[i] = n[i] ? y[i] / (double)n[i] : NAN;
	free(n);
	return y;
}

struct fig_bufs {
	double *bufs[64];
	size_t n;
	char names[16][128];
	size_t nn;
};

static double *keep(struct fig_bufs *b, double *p)
{
	if (p && b->n < 64)
		b->bufs[b->n++] = p;
	else
		free(p);
	return b->n && b->bufs[b->n - 1] == p ? p : NULL;
}

static char *name_slot(struct fig_bufs *b)
{
	return b->nn < 16 ? b->names[b->nn++] : b->names[15];
}

static enum pe_status wavelength_panel(struct pe_panel *p, const struct pe_usage *u,
                                       const struct pe_model *m, const struct own *w,
                                       const double *act, struct fig_bufs *b, size_t *dropped)
{
	enum pe_status st = PE_OK;
	const double *data = quantity_data(u, w->quantity);
	const struct pe_usage_layer *first = NULL;
	for (size_t g = 0; g < m->n_groups && st == PE_OK; g++) {
		size_t np = 0;
		if (w->group >= 0 && (size_t)w->group != g)
			continue;
		double *y = keep(b, relative_curve(u, data, g, w->head, w->layer, &np));
		if (!y)
			continue;
		const struct pe_usage_layer *L = NULL;
		for (size_t l = 0; l < u->layers && !L; l++)
			if (u->layer[l].rope && u->layer[l].group == g)
				L = &u->layer[l];
		if (!first)
			first = L;
		double *x = keep(b, malloc(np * sizeof(double)));
		if (!x)
			return PE_ENOMEM;
		for (size_t i = 0; i < np; i++) {
			/* a pair of frequency 0 (proportional) has no wavelength: left out */
			x[i] = L->scaled[i] > 0 ? TWO_PI / L->theta[i] : NAN;
			*dropped += !(L->scaled[i] > 0);
		}
		int several = m->n_groups > 1;
		char *nm = name_slot(b);
		snprintf(nm, 128, "%s%sweights (%s)", several ? m->groups[g].name : "",
		         several ? " " : "", quantity_name(w->quantity));
		st = pe_panel_add_line(p, nm, x, y, np);
		if (st == PE_OK && act) {
			double *ya = keep(b, relative_curve(u, act, g, w->head, w->layer, &np));
			if (ya) {
				nm = name_slot(b);
				snprintf(nm, 128, "%s%sactivations",
				         several ? m->groups[g].name : "", several ? " " : "");
				st = pe_panel_add_line(p, nm, x, ya, np);
			}
		}
	}
	if (!first)
		return PE_EINVAL;
	/* Reference lines; labels at the same wavelength are joined into one. */
	struct {
		double at;
		char label[128];
	} lines[6];
	size_t nl = 0;
	double at[6];
	const char *text[6];
	size_t nt = 0;
	char crit[64], from[64], train[64], ext[64];
	if (u->train_context > 0) {
		snprintf(train, sizeof(train), "%s %.17g",
		         u->context > u->train_context ? "train" : "context", u->train_context);
		at[nt] = u->train_context;
		text[nt++] = train;
	}
	if (u->context > u->train_context && u->train_context > 0) {
		snprintf(ext, sizeof(ext), "ext. %.17g", u->context);
		at[nt] = u->context;
		text[nt++] = ext;
	}
	if (first->has_critical && first->critical < first->pairs) {
		/* The critical pair turns about once in the training context (Liu et al.):
		 * near that line it is named on it, not drawn as a second line beside it. */
		double wl = TWO_PI / first->theta[first->critical];
		int near = u->train_context > 0 && wl < 2.0 * u->train_context &&
		           wl > 0.5 * u->train_context;
		if (near && nt > 0 && at[0] == u->train_context) {
			size_t len = strlen(train);
			snprintf(train + len, sizeof(train) - len, " (crit. %zu)", first->critical);
		} else {
			snprintf(crit, sizeof(crit), "crit. pair %zu", first->critical);
			at[nt] = wl;
			text[nt++] = crit;
		}
	}
	if (isfinite(first->band_lo) && isfinite(first->band_hi)) {
		/* one label for the band, on its first line */
		/* whole positions: "scaled 199-35330", not "198.7-3.533e+04" */
		snprintf(from, sizeof(from), "scaled %.0f\xe2\x80\x93%.0f", first->band_lo,
		         first->band_hi);
		at[nt] = first->band_lo;
		text[nt++] = from;
		at[nt] = first->band_hi;
		text[nt++] = "";
	}
	for (size_t i = 0; i < nt; i++) {
		size_t j = 0;
		while (j < nl && fabs(lines[j].at - at[i]) > 1e-9 * at[i])
			j++;
		if (j == nl) {
			lines[nl].at = at[i];
			snprintf(lines[nl++].label, sizeof(lines[0].label), "%s", text[i]);
		} else if (*text[i]) {
			size_t len = strlen(lines[j].label);
			snprintf(lines[j].label + len, sizeof(lines[0].label) - len, "%s%s",
			         len ? ", " : "", text[i]);
		}
	}
	for (size_t i = 0; i < nl && st == PE_OK; i++) {
		char *nm = name_slot(b);
		snprintf(nm, 128, "%s", lines[i].label);
		st = pe_panel_add_vline(p, lines[i].at, *nm ? nm : NULL);
	}
	if (st == PE_OK) {
		pe_panel_set_log(p, true, false);
		st = pe_panel_set_xlabel(p,
		                         "wavelength 2\xcf\x80/\xce\xb8 of the pair (positions)");
	}
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, "pair norm / head mean");
	return st;
}

static int draw(const struct cli_common *o, const struct own *w, const struct pe_usage *u,
                const struct pe_model *m, const double *act, const char *path,
                enum cli_format format)
{
	if (w->head >= 0 && (size_t)w->head >= u->heads)
		return cli_usage_error("option '--head': %ld, the model has query heads 0..%zu",
		                       w->head, u->heads - 1);
	int heat = w->view == VIEW_HEATMAP;
	struct pe_figure *fig = pe_figure_create(1, heat && act ? 2 : 1);
	struct fig_bufs *b = calloc(1, sizeof(*b));
	if (!fig || !b) {
		pe_figure_destroy(fig);
		free(b);
		return cli_error("out of memory");
	}
	pe_figure_set_png_level(fig, heat ? CLI_PNG_LEVEL_PAIRWISE : CLI_PNG_LEVEL_CURVES);
	enum pe_status st = PE_OK;
	size_t dropped = 0;
	char head_text[96];
	if (w->head >= 0)
		snprintf(head_text, sizeof(head_text), "head %ld", w->head);
	else
		snprintf(head_text, sizeof(head_text), "mean over heads");
	if (w->layer >= 0 || w->group >= 0) {
		size_t len = strlen(head_text);
		if (w->layer >= 0)
			snprintf(head_text + len, sizeof(head_text) - len, ", layer %ld", w->layer);
		else
			snprintf(head_text + len, sizeof(head_text) - len, ", %.24s layers",
			         m->groups[w->group].name);
	}
	if (heat) {
		double *g = keep(b, layer_grid(u, quantity_data(u, w->quantity), w->head));
		st = g ? heat_panel(pe_figure_panel(fig, 0, 0), u, g, quantity_label(w->quantity),
		                    o)
		       : PE_ENOMEM;
		if (st == PE_OK && act) {
			double *ga = keep(b, layer_grid(u, act, w->head));
			st = ga ? heat_panel(pe_figure_panel(fig, 0, 1), u, ga,
			                     "activation statistic per pair", o)
			        : PE_ENOMEM;
			if (st == PE_OK)
				st = pe_figure_set_col_title(fig, 0, "weights");
			if (st == PE_OK)
				st = pe_figure_set_col_title(fig, 1, "activations");
		}
	} else {
		st = wavelength_panel(pe_figure_panel(fig, 0, 0), u, m, w, act, b, &dropped);
	}
	char title[256];
	snprintf(title, sizeof(title), "%s: frequency usage (%s, %s)", m->name,
	         quantity_name(w->quantity), head_text);
	if (st == PE_OK)
		st = pe_figure_set_title(fig, title);
	char note[256];
	snprintf(note, sizeof(note), "Weight norms: a proxy for usage.%s",
	         u->norm != PE_USAGE_NORM_NONE ? " q_norm/k_norm folded in." : "");
	if (st == PE_OK)
		st = pe_figure_set_note(fig, note);
	int rc = 0;
	if (st == PE_EINVAL && !heat)
		rc = cli_error("no layer group has RoPE pairs to draw");
	else if (st != PE_OK)
		rc = cli_figure_error(st);
	else
		rc = cli_figure_write(o, path, format, fig,
		                      heat ? "frequency usage heatmap" : "frequency usage curves");
	if (!rc && dropped)
		cli_note(o->quiet,
		         "usage: %zu pairs of frequency 0 (proportional) are not on the wavelength "
		         "axis",
		         dropped);
	pe_figure_destroy(fig);
	for (size_t i = 0; i < b->n; i++)
		free(b->bufs[i]);
	free(b);
	return rc;
}

/* ---- inputs ---- */

static int load_activations(const struct cli_common *o, const char *path, const struct pe_usage *u,
                            double **out)
{
	struct pe_tensor_store *s = NULL;
	char *err = NULL;
	*out = NULL;
	char *ep = cli_escape(path);
	enum pe_status st = pe_tensor_store_open(path, o->max_memory, &s, &err);
	int rc = 0;
	const struct pe_tensor_info *t = NULL;
	if (st != PE_OK)
		rc = cli_error("'%s': %s", ep ? ep : "", err ? err : pe_status_str(st));
	else if (pe_tensor_store_count(s) != 1 || !(t = pe_tensor_store_info(s, 0)) || t->ndim != 3)
		rc = cli_error("'%s': expected one 3-D array [layers, heads, head_dim or pairs]",
		               ep ? ep : "");
	double *in = NULL, *folded = NULL;
	size_t n = 0;
	if (!rc) {
		n = (size_t)(t->shape[0] * t->shape[1] * t->shape[2]);
		char what[96];
		snprintf(what, sizeof(what), "the activation array of %zu values", n);
		rc = cli_check_memory(o, (double)n * 8.0, what, "pass a smaller array");
	}
	if (!rc && !(in = malloc((n ? n : 1) * sizeof(double))))
		rc = cli_error("out of memory");
	if (!rc && (st = pe_tensor_store_read(s, t, 0, n, in, &err)) != PE_OK)
		rc = cli_error("'%s': %s", ep ? ep : "", err ? err : pe_status_str(st));
	for (size_t i = 0; !rc && i < n; i++)
		if (!isfinite(in[i]))
			rc = cli_error("'%s': value [%zu] is %g, not finite", ep ? ep : "", i,
			               in[i]);
	if (!rc) {
		free(err);
		err = NULL;
		st = pe_usage_fold_activations(u, in, (size_t)t->shape[0], (size_t)t->shape[1],
		                               (size_t)t->shape[2], &folded, &err);
		if (st != PE_OK)
			rc = cli_error("'%s': %s", ep ? ep : "", err ? err : pe_status_str(st));
	}
	free(in);
	free(err);
	free(ep);
	pe_tensor_store_destroy(s);
	*out = folded;
	return rc;
}

/* --layer N (one layer) or --layer NAME (one layer group) of the wavelength view. */
static int select_layer(const char *arg, const struct pe_model *m, const struct pe_usage *u,
                        struct own *w)
{
	if (*arg && strspn(arg, "0123456789") == strlen(arg)) {
		uint64_t v;
		int rc = cli_parse_count("--layer", arg, 0, u->layers ? u->layers - 1 : 0, &v);
		if (rc)
			return rc;
		if (!u->layer[v].rope)
			return cli_usage_error("option '--layer': layer %s has no RoPE", arg);
		w->layer = (long)v;
		return 0;
	}
	for (size_t g = 0; g < m->n_groups; g++)
		if (strcmp(m->groups[g].name, arg) == 0) {
			/* a group without RoPE (NoPE, linear attention) has no pairs to draw: said
			 * as its layer would be, not found only when drawing */
			int rope = 0;
			for (size_t k = 0; k < m->groups[g].n_layers; k++) {
				size_t l = m->groups[g].layers[k];
				rope |= l < u->layers && u->layer[l].rope;
			}
			if (!rope)
				return cli_usage_error(
				        "option '--layer': the '%s' layers have no RoPE", arg);
			w->group = (long)g;
			return 0;
		}
	return cli_usage_error("option '--layer': '%s' is no layer index or layer group of the "
	                       "model",
	                       arg);
}

/* Applies ",key=value" overrides of the spec to every group's spec text. */
static int apply_overrides(struct pe_model *m, const char *overrides)
{
	for (size_t g = 0; overrides && g < m->n_groups; g++) {
		if (!m->groups[g].spec)
			continue;
		char *t = pe_spec_override(m->groups[g].spec, overrides);
		if (!t)
			return cli_error("out of memory");
		free(m->groups[g].spec);
		m->groups[g].spec = t;
	}
	return 0;
}

/* CPU seconds a weight value costs to read and square (costs.h): float16's conversion
 * costs more than bfloat16's or float32's. */
static double value_cost(const struct pe_tensor_store *s)
{
	for (size_t i = 0; i < pe_tensor_store_count(s); i++) {
		const struct pe_tensor_info *t = pe_tensor_store_info(s, i);
		if (t && strcmp(t->dtype, "F16") == 0)
			return CLI_COST_USAGE_F16_VALUE;
	}
	return CLI_COST_USAGE_VALUE;
}

static int run(const struct cli_common *o, const struct own *w, const char *spec)
{
	char *text = NULL;
	size_t len = 0;
	struct pe_model *m = NULL;
	const char *overrides = NULL;
	/* the model first: the config's text is then the bytes it was read from */
	int rc = cli_model_load(o, spec, &m, &overrides);
	/* a GGUF's own keys stand for the config (pe_usage_compute()) */
	if (!rc && strncmp(spec, "gguf:", 5) != 0)
		rc = cli_model_config_text(o, spec, &text, &len);
	if (!rc)
		rc = apply_overrides(m, overrides);
	if (rc) {
		free(text);
		return rc; /* the model belongs to cli_model_load's cache */
	}
	char buf[64];
	const char *path = cli_output_path(o, buf, sizeof(buf));
	enum cli_format format;
	if ((rc = cli_output_format(o, path, &format)) == 0 && cli_format_is_figure(format))
		rc = cli_figure_check_options(o);
	if (!rc && format != CLI_FORMAT_CSV && format != CLI_FORMAT_NPY &&
	    !cli_format_is_figure(format))
		rc = cli_usage_error("option '-o': usage writes .csv, .npy, .png, .svg or .pdf");
	struct pe_tensor_store *s = NULL;
	struct pe_usage *u = NULL;
	char *err = NULL;
	char *ew = cli_escape(w->weights);
	if (!rc) {
		/* A slice of a tensor: an eighth of the budget, at most 16 MiB. */
		uint64_t slice = o->max_memory / 8;
		if (slice > ((uint64_t)16 << 20))
			slice = (uint64_t)16 << 20;
		struct pe_usage_options uo = {slice, w->fold_bias, 0, 0};
		enum pe_status st = pe_tensor_store_open(w->weights, o->max_memory / 4, &s, &err);
		/* The values it will read, from the tensors' shapes, before reading any. */
		uint64_t values = 0;
		if (st == PE_OK)
			st = pe_usage_values(s, text, len, m, &uo, &values, &err);
		if (st == PE_OK) {
			char what[96];
			snprintf(what, sizeof(what), "reading %.3g query and key weights",
			         (double)values);
			rc = cli_check_time(o, (double)values * value_cost(s), what,
			                    "it reads every layer's rotary query and key rows");
		}
		if (st == PE_OK && !rc)
			st = pe_usage_compute(s, text, len, m, &uo, &u, &err);
		if (st == PE_ENOMEM)
			rc = cli_error("'%s': out of memory", ew ? ew : "");
		else if (st != PE_OK) {
			char *ee = err ? cli_escape(err) : NULL;
			rc = cli_error("'%s': %s", ew ? ew : "", ee ? ee : pe_status_str(st));
			free(ee);
		}
	}
	struct own sel = *w;
	if (!rc && o->layer)
		rc = select_layer(o->layer, m, u, &sel);
	w = &sel;
	double *act = NULL;
	if (!rc && w->activations)
		rc = load_activations(o, w->activations, u, &act);
	if (!rc && cli_format_is_figure(format)) {
		rc = draw(o, w, u, m, act, path, format);
	} else if (!rc && format == CLI_FORMAT_CSV) {
		struct cli_file file;
		if ((rc = cli_file_open(&file, path)) == 0) {
			if (write_csv(w, u, act, file.f) != 0)
				rc = cli_file_fail(&file, PE_EIO, errno);
			else if ((rc = cli_file_commit(&file)) == 0)
				cli_report_written(o, path, "usage per layer, head and pair");
		}
	} else if (!rc) {
		struct cli_file file;
		size_t shape[3] = {u->layers, u->heads, u->pairs};
		if ((rc = cli_file_open(&file, path)) == 0) {
			enum pe_status st = pe_npy_write(file.f, quantity_data(u, w->quantity),
			                                 shape, 3, o->dtype);
			if (st != PE_OK)
				rc = cli_file_fail(&file, st, 0);
			else if ((rc = cli_file_commit(&file)) == 0) {
				char what[128];
				snprintf(what, sizeof(what),
				         "%zu x %zu x %zu %s array, layers x heads x "
				         "pairs",
				         u->layers, u->heads, u->pairs, quantity_name(w->quantity));
				cli_report_written(o, path, what);
			}
		}
	}
	if (!rc)
		report(o, w, u, s);
	free(act);
	free(ew);
	free(err);
	free(text);
	pe_usage_destroy(u);
	pe_tensor_store_destroy(s);
	return rc;
}

/* Whether the spec's file (up to its ",key=value" overrides) is @path's file. */
static int same_file(const char *spec_path, const char *path)
{
	size_t n = strcspn(spec_path, ",");
	char *p = malloc(n + 1);
	if (!p)
		return 0;
	memcpy(p, spec_path, n);
	p[n] = '\0';
	struct stat a, b;
	int same = stat(p, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	           a.st_ino == b.st_ino;
	free(p);
	return same;
}

int cmd_usage(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"weights", required_argument, NULL, OPT_WEIGHTS},
	        {"quantity", required_argument, NULL, OPT_QUANTITY},
	        {"head", required_argument, NULL, OPT_HEAD},
	        {"view", required_argument, NULL, OPT_VIEW},
	        {"activations", required_argument, NULL, OPT_ACTIVATIONS},
	        {"fold-bias", no_argument, NULL, OPT_FOLD_BIAS},
	        {NULL, 0, NULL, 0},
	};
	struct cli_common o;
	struct own w = {-1, -1, NULL, NULL, Q_QK, -1, VIEW_HEATMAP, 0};
	int rc = cli_parse_args(argc, argv, &command,
	                        &(struct cli_own_options){opts, parse_own, &w}, &o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;
	if (o.nspecs > 1)
		return cli_usage_error("usage reads one model's weights: give one -s (%zu given)",
		                       o.nspecs);
	if (o.nspecs != 1 || !cli_is_model_spec(o.specs[0]))
		return cli_usage_error("which model? usage needs its config: -s hf:config.json (or "
		                       "model:NAME)");
	if (!w.weights)
		return cli_usage_error("which weights? --weights model.safetensors (or "
		                       "model.safetensors.index.json, or -s gguf:FILE --weights "
		                       "FILE)");
	if (strncmp(o.specs[0], "gguf:", 5) == 0 && !same_file(o.specs[0] + 5, w.weights))
		return cli_usage_error("a GGUF's weights are paired as its own metadata says: -s "
		                       "gguf:FILE --weights FILE, the same file");
	if (o.layer && w.view != VIEW_WAVELENGTH)
		return cli_usage_error(
		        "option '--layer': picks the layers of --view wavelength (the "
		        "heatmap shows every layer)");
	return run(&o, &w, o.specs[0]);
}
