/* posenc model: what a real model's positional encoding is, with every derived number. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <posenc/bias.h>
#include <posenc/model.h>
#include <posenc/rope.h>
#include <posenc/scheme.h>

#include "cli.h"
#include "commands.h"
#include "figures/figure.h"
#include "figures/wavelength_figure.h"
#include "commands/model_diff.h"
#include "shared/model_spec.h"
#include "shared/output.h"
#include "shared/vectors.h"
#include "shared/wide_table.h"

#define TWO_PI 6.283185307179586476925

enum { OPT_LENGTH = CLI_OPT_COMMAND, OPT_CONFIG, OPT_WIDE };

static const char help[] =
        "Usage: posenc model SPEC [--layer L] [--length L] [-o FILE.csv|FILE.png]\n"
        "       posenc model SPEC_A SPEC_B\n"
        "\n"
        "What a model's positional encoding is, per layer group: head and rotary width,\n"
        "pairing layout, base, scaling and every derived number: the attention factor\n"
        "(cos and sin are multiplied by it, logits by its square), YaRN's ramp bounds,\n"
        "llama3's wavelength thresholds, LongRoPE's switch length, the dynamic NTK base\n"
        "at a length; the training and extended context; the wavelength range unscaled\n"
        "and scaled; Liu et al.'s critical dimension for the training context; and how\n"
        "many pairs never complete a rotation within the training (unscaled) or the\n"
        "extended (scaled) context. SPEC (or -s SPEC): hf:config.json, gguf:FILE,\n"
        "model:NAME ('posenc help models'; a bare FILE.json or FILE.gguf is read as\n"
        "hf: or gguf:) or any rope spec. Text on stdout; -o FILE.csv\n"
        "(or -o -) writes the same as CSV rows group,quantity,value; -o FILE.png (.svg,\n"
        ".pdf) draws the wavelength per pair of each layer group, unscaled and scaled,\n"
        "with the training and the extended context marked. --wide (with -o FILE.csv)\n"
        "writes one row per model and layer group and one column per quantity instead,\n"
        "numeric columns numeric; several -s then give one table. With two specs (a\n"
        "config.json and a GGUF of one model, say) and no -o: every position-related\n"
        "field that differs, per layer group, and the context lengths each derives.\n"
        "\n"
        "Options:\n"
        "      --length L         sequence length for dynamic and longrope [default: the\n"
        "                         spec's length=, else the original context: the state\n"
        "                         the reference builds at load time, as freqs]\n"
        "      --config FILE      write the config.json of a model:NAME preset to FILE\n"
        "      --wide             CSV: a row per model and group, a column per quantity\n"
        "%s"
        "\n"
        "Example: posenc model model:llama-3.1-8b\n";

static const struct cli_refusal refusals[] = {
        {CLI_TAKES_BASE | CLI_TAKES_POSITIONS | CLI_TAKES_POSITION_IDS,
         "model describes the model's own base and contexts"},
        {CLI_TAKES_MAX_TIME, "model reads a config: there is no long work to bound"},
        {CLI_TAKES_COLOUR, "model's figure draws wavelengths as curves, not a heatmap"},
        {0, NULL},
};

static const struct cli_command_options command = {
        help,
        CLI_TAKES_SCHEME | CLI_TAKES_LAYER | CLI_TAKES_DIM | CLI_TAKES_FIGURES |
                CLI_TAKES_MAX_MEMORY,
        "text on stdout [default]; .csv rows (- for CSV on stdout);\n"
        ".png .svg .pdf figure of the wavelengths per pair",
        "model writes text, CSV or a figure",
        refusals,
};

struct wide_table;

struct out {
	FILE *f;
	int csv;
	const char *group;
	struct wide_table *wide; /* --wide: cells collected here instead of printed */
	const char *model;       /* the model spec, for --wide's model column */
};

/* --wide: the cell of this model and group; out of memory is said once, at the end. */
static int wide_failed;
static void wide_add(struct out *o, const char *key, const char *text, double v)
{
	/* the model's layer count and a group's layer list are two columns */
	if (strcmp(o->group, "model") == 0 && strcmp(key, "layers") == 0)
		key = "n_layers";
	if (wide_table_set(o->wide, o->model, o->group, key, text, v) != 0)
		wide_failed = 1;
}

static void num(struct out *o, const char *key, double v, const char *what)
{
	if (o->wide)
		wide_add(o, key, NULL, v);
	else if (o->csv)
		fprintf(o->f, "%s,%s,%.17g\n", o->group, key, v);
	else {
		fprintf(o->f, "  %-36s ", what);
		fprintf(o->f, "%.10g", v);
		fputc('\n', o->f);
	}
}

static void str(struct out *o, const char *key, const char *v, const char *what)
{
	if (o->wide) {
		wide_add(o, key, v, NAN);
	} else if (o->csv) {
		/* quote when needed: labels and specs may hold spaces, never quotes or commas
		 * except list separators we do not print */
		if (strpbrk(v, ",\"\n"))
			fprintf(o->f, "%s,%s,\"%s\"\n", o->group, key, v);
		else
			fprintf(o->f, "%s,%s,%s\n", o->group, key, v);
	} else {
		fprintf(o->f, "  %-36s %s\n", what, v);
	}
}

/* Pairs whose wavelength exceeds @len: they never complete a turn within it. */
static size_t slow_pairs(const double *theta, size_t h, double len)
{
	size_t n = 0;
	for (size_t i = 0; i < h; i++)
		n += TWO_PI / theta[i] > len;
	return n;
}

static int describe_rope(struct out *o, const struct pe_model *m, struct pe_scheme *s, size_t d,
                         double length)
{
	size_t d_rot = (size_t)((double)d * s->rotary), h = d_rot / 2;
	if (d_rot < 2 || d_rot % 2)
		return cli_usage_error("scheme '%s' with d=%zu: the rotary width %zu is not even",
		                       s->canonical, d, d_rot);
	double *base = malloc(h * sizeof(double)), *scaled = malloc(h * sizeof(double));
	if (!base || !scaled) {
		free(base);
		free(scaled);
		return cli_error("out of memory");
	}
	struct pe_rope_scaling_params p = s->scaling;
	/* a bare spec: the context its scaling extends to */
	double ctx = m && m->context > 0                              ? m->context
	             : p.factor > 1 && p.type != PE_ROPE_SCALING_NONE ? p.factor * p.original
	                                                              : p.original;
	/* A scaling with an original stretches the model to factor x original whatever
	 * max_position_embeddings says (Qwen2.5's YaRN recipe leaves it at 32768): the
	 * extended context of freqs, plan and report (cli/shared/contexts.c). */
	if (m && pe_rope_scaling_has_original(p.type))
		ctx = fmax(ctx, p.factor * p.original);
	double train = m && m->train_context > 0 ? m->train_context : p.original;
	/* A plain rope spec states no context: none is invented (no critical dimension). */
	if (s->scaling.type == PE_ROPE_SCALING_NONE && !m)
		ctx = train = 0;
	if (!m && p.type != PE_ROPE_SCALING_NONE && !pe_rope_scaling_has_original(p.type))
		ctx = train = 0; /* their original= is no part of them */
	/* One rule with freqs: without positions, length-dependent scalings at --length,
	 * else at the original context, the state the reference builds at load time
	 * (transformers' inv_freq before a longer sequence comes); commands with
	 * positions (encode, check) take the sequence length. */
	if (p.length == 0.0)
		p.length = length > 0 ? length : p.original;
	struct pe_rope_scaling_info info;
	enum pe_status st = pe_rope_base_frequencies(s->base, d_rot, base);
	if (st == PE_OK) {
		memcpy(scaled, base, h * sizeof(double));
		st = pe_rope_scale_frequencies(&p, s->base, d_rot, scaled, &info);
	}
	if (st != PE_OK) {
		free(base);
		free(scaled);
		return cli_usage_error("scheme '%s': %s", s->canonical, pe_status_str(st));
	}
	static const char *const layouts[] = {"interleaved (pairs 2i, 2i+1)", "blocks",
	                                      "half (pairs i, i + d_rot/2)"};
	num(o, "head_dim", (double)d, "head width");
	num(o, "rotary_dim", (double)d_rot, "rotary width");
	num(o, "pairs", (double)h, "pairs");
	if (o->csv)
		str(o, "layout", s->layout == PE_LAYOUT_HALF ? "half" : "interleaved", "layout");
	else
		str(o, "layout", layouts[s->layout], "layout");
	num(o, "base", s->base, "base (rope_theta)");
	str(o, "scaling", pe_rope_scaling_name(p.type), "scaling");
	if (p.type != PE_ROPE_SCALING_NONE) {
		num(o, "factor", p.factor, "factor");
		if (pe_rope_scaling_has_original(p.type))
			num(o, "original", p.original,
			    p.type == PE_ROPE_SCALING_DYNAMIC ? "original (max_position_embeddings)"
			                                      : "original context");
	}
	num(o, "attention_factor", info.attention_factor, "attention factor (cos, sin x)");
	num(o, "logit_scale", info.attention_factor * info.attention_factor,
	    "logit scale (factor squared)");
	switch (p.type) {
	case PE_ROPE_SCALING_YARN:
		num(o, "beta_fast", p.beta_fast, "beta_fast");
		num(o, "beta_slow", p.beta_slow, "beta_slow");
		num(o, "truncate", p.truncate, "truncate");
		num(o, "yarn_low", info.yarn_low, "ramp low (pairs <= keep theta)");
		num(o, "yarn_high", info.yarn_high, "ramp high (pairs >= theta/factor)");
		break;
	case PE_ROPE_SCALING_LLAMA3:
		num(o, "low_freq_factor", p.low_freq_factor, "low_freq_factor");
		num(o, "high_freq_factor", p.high_freq_factor, "high_freq_factor");
		num(o, "low_freq_wavelength", p.original / p.low_freq_factor,
		    "wavelengths above: theta/factor");
		num(o, "high_freq_wavelength", p.original / p.high_freq_factor,
		    "wavelengths below: unchanged");
		break;
	case PE_ROPE_SCALING_LONGROPE:
		num(o, "switch_length", p.original, "long factors once length exceeds");
		num(o, "length", p.length, "evaluated at length");
		str(o, "factors", p.length > p.original ? "long" : "short", "factors used");
		break;
	case PE_ROPE_SCALING_PROPORTIONAL:
		num(o, "proportion", p.proportion, "proportion (partial_rotary_factor)");
		num(o, "turning_pairs", (double)pe_rope_turning_pairs(&p, d_rot),
		    "pairs that turn (the first ones)");
		num(o, "static_pairs", (double)(h - pe_rope_turning_pairs(&p, d_rot)),
		    "pairs at frequency 0 (never turn)");
		break;
	case PE_ROPE_SCALING_NTK:
		if (isnan(p.mixed_b)) {
			str(o, "ntk", "fixed", "NTK (vLLM)");
			num(o, "ntk_base", info.base, "base x factor");
		} else {
			str(o, "ntk", "mixed", "NTK (vLLM)");
			num(o, "mixed_b", p.mixed_b, "mixed_b");
		}
		break;
	case PE_ROPE_SCALING_DYNAMIC:
		num(o, "length", p.length, "evaluated at length");
		num(o, "dynamic_base", info.base, "dynamic base at that length");
		break;
	default:
		break;
	}
	if (ctx > 0)
		num(o, "context", ctx, "extended context");
	if (train > 0)
		num(o, "train_context", train, "training context");
	double wl_min = INFINITY, wl_max = 0, sw_min = INFINITY, sw_max = 0;
	for (size_t i = 0; i < h; i++) {
		wl_min = fmin(wl_min, TWO_PI / base[i]);
		wl_max = fmax(wl_max, TWO_PI / base[i]);
		if (scaled[i] > 0.0) { /* proportional's static pairs have no wavelength */
			sw_min = fmin(sw_min, TWO_PI / scaled[i]);
			sw_max = fmax(sw_max, TWO_PI / scaled[i]);
		}
	}
	num(o, "wavelength_min", wl_min, "shortest wavelength (unscaled)");
	num(o, "wavelength_max", wl_max, "longest wavelength (unscaled)");
	if (p.type != PE_ROPE_SCALING_NONE && sw_max > 0.0) {
		num(o, "scaled_wavelength_min", sw_min, "shortest wavelength (scaled)");
		num(o, "scaled_wavelength_max", sw_max, "longest wavelength (scaled)");
	}
	size_t crit;
	if (train > 0 && s->base > 1.0 &&
	    pe_rope_critical_dim(s->base, d_rot, train, &crit) == PE_OK)
		num(o, "critical_dim", (double)crit, "critical dimension (training)");
	if (train > 0)
		num(o, "pairs_unrotated_train", (double)slow_pairs(base, h, train),
		    "pairs never turning in training ctx");
	if (p.type != PE_ROPE_SCALING_NONE && ctx > 0) {
		/* at the extended context, the frequencies of that length: LongRoPE's long
		 * factors, dynamic NTK's base grown to it (the ones above may be another
		 * length's, the load-time state) */
		struct pe_rope_scaling_params at = p;
		if ((p.type == PE_ROPE_SCALING_DYNAMIC || p.type == PE_ROPE_SCALING_LONGROPE) &&
		    p.length != ctx) {
			at.length = ctx;
			memcpy(scaled, base, h * sizeof(double));
			st = pe_rope_scale_frequencies(&at, s->base, d_rot, scaled, NULL);
		}
		if (st == PE_OK)
			num(o, "pairs_unrotated_context", (double)slow_pairs(scaled, h, ctx),
			    at.length != p.length ? "never turning in ctx (freqs at ctx)"
			                          : "scaled pairs never turning in ctx");
	}
	free(base);
	free(scaled);
	return 0;
}

static int describe_group(struct out *o, const struct cli_common *co, const struct pe_model *m,
                          const char *spec_text, const char *overrides, size_t d, double length)
{
	char *text = overrides ? pe_spec_override(spec_text, overrides) : NULL;
	if (overrides && !text)
		return cli_error("out of memory");
	struct pe_scheme *s = NULL;
	char *err = NULL;
	enum pe_status st = pe_scheme_parse(text ? text : spec_text, &s, &err);
	free(text);
	if (st != PE_OK) {
		int rc = cli_usage_error("scheme '%s': %s", spec_text,
		                         err ? err : pe_status_str(st));
		free(err);
		return rc;
	}
	str(o, "spec", s->canonical, "spec");
	int rc = 0;
	if (pe_scheme_has(s, PE_CAP_SCALING)) {
		rc = describe_rope(o, m, s, cli_scheme_width(co, s, d), length);
	} else if (pe_scheme_has(s, PE_CAP_BIAS_HEADS)) {
		num(o, "heads", s->heads, "ALiBi heads");
		/* the slopes posenc bias draws (Press et al.'s, or MPT's) */
		double *sl = malloc(s->heads * sizeof(*sl));
		if (!sl) {
			pe_scheme_destroy(s);
			return cli_error("out of memory");
		}
		if (pe_alibi_scheme_slopes(s, sl) == PE_OK) {
			num(o, "slope_first", sl[0], "first slope");
			num(o, "slope_last", sl[s->heads - 1], "last slope");
		}
		free(sl);
	} else if (pe_scheme_has(s, PE_CAP_BUCKETS)) {
		num(o, "buckets", s->buckets, "buckets");
		num(o, "max_distance", s->max_distance, "max distance");
		num(o, "bidirectional", s->bidirectional, "bidirectional");
	}
	pe_scheme_destroy(s);
	return rc;
}

static int run_model(const struct cli_common *co, const char *spec, double length, FILE *f, int csv,
                     struct wide_table *wide)
{
	struct out o = {f, csv, "all", wide, spec};
	int co_wide = wide != NULL;
	if (!cli_is_model_spec(spec)) {
		if (csv && !co_wide)
			fputs("group,quantity,value\n", f);
		return describe_group(&o, co, NULL, spec, NULL, 128, length);
	}
	struct pe_model *m = NULL;
	const char *overrides = NULL;
	int rc = cli_model_load(co, spec, &m, &overrides);
	if (rc)
		return rc;
	o.model = m->name; /* --wide's model column: the name freqs and report use */
	const struct pe_model_group *only = NULL;
	if (co->layer && !(only = pe_model_group_find(m, co->layer))) {
		rc = cli_usage_error("option '--layer': '%s' names no group or layer of '%s'",
		                     co->layer, spec);
		return rc;
	}
	if (csv) {
		if (!co_wide)
			fputs("group,quantity,value\n", f);
		o.group = "model";
		str(&o, "model_type", m->model_type, "");
		if (m->n_layers)
			num(&o, "layers", (double)m->n_layers, "");
		if (m->context > 0)
			num(&o, "context", m->context, "");
		if (m->train_context > 0)
			num(&o, "train_context", m->train_context, "");
		num(&o, "groups", (double)m->n_groups, "");
	} else {
		fprintf(f, "%s: model_type %s", spec, m->model_type);
		if (m->n_layers)
			fprintf(f, ", %zu layers", m->n_layers);
		if (m->context > 0)
			fprintf(f, ", context %.17g", m->context);
		if (m->train_context > 0 && m->train_context != m->context)
			fprintf(f, " (training %.17g)", m->train_context);
		fputc('\n', f);
		if (m->note)
			fprintf(f, "note: %s\n", m->note);
	}
	if (m->table_rows && csv) {
		o.group = "model";
		num(&o, "table_rows", (double)m->table_rows, "");
		num(&o, "table_cols", (double)m->table_cols, "");
	}
	/* What the attention does besides cos/sin, and the reference followed. */
	o.group = "model";
	int heading = 0;
	for (size_t i = 0; i < m->n_facts; i++) {
		const struct pe_model_fact *ft = &m->facts[i];
		if (csv) {
			str(&o, ft->key, ft->value, "");
		} else if (strcmp(ft->key, "reference") == 0) {
			fprintf(f, "reference: %s\n", ft->value);
		} else {
			if (!heading++)
				fputs("\nattention and positions\n", f);
			fprintf(f, "  %-36s %s  %s\n", ft->key, ft->value, ft->what);
		}
	}
	for (size_t i = 0; i < m->n_groups && !rc; i++) {
		const struct pe_model_group *g = &m->groups[i];
		if (only && g != only)
			continue;
		char layers[512];
		cli_layer_ranges(g->layers, g->n_layers, layers, sizeof(layers));
		o.group = g->name;
		if (!csv)
			fprintf(f, "\ngroup %s%s%s%s\n", g->name, g->n_layers ? " (layers " : "",
			        layers, g->n_layers ? ")" : "");
		else if (g->n_layers)
			str(&o, "layers", layers, "");
		if (!g->spec) {
			str(&o, "spec", "none (NoPE: no positional encoding)", "spec");
			continue;
		}
		rc = describe_group(&o, co, m, g->spec, overrides, m->head_dim, length);
	}
	return rc;
}

/* Unscaled and scaled inverse frequencies of a rope group, as describe_rope computes them. */
static int group_thetas(const struct cli_common *co, const struct pe_model *m,
                        const char *spec_text, const char *overrides, double length, double **base,
                        double **scaled, size_t *h, double *extended, char *what, size_t cap)
{
	char *text = overrides ? pe_spec_override(spec_text, overrides) : NULL;
	struct pe_scheme *s = NULL;
	char *err = NULL;
	enum pe_status st = pe_scheme_parse(text ? text : spec_text, &s, &err);
	free(text);
	free(err);
	if (st != PE_OK || !pe_scheme_has(s, PE_CAP_SCALING)) {
		pe_scheme_destroy(s);
		return -1;
	}
	size_t d_rot = (size_t)((double)cli_scheme_width(co, s, m->head_dim) * s->rotary);
	*h = d_rot / 2;
	*base = malloc((*h ? *h : 1) * sizeof(double));
	*scaled = malloc((*h ? *h : 1) * sizeof(double));
	struct pe_rope_scaling_params p = s->scaling;
	*extended = pe_rope_scaling_has_original(p.type) ? p.factor * p.original : 0.0;
	if (p.length == 0.0) /* describe_rope's length: the text and the figure agree */
		p.length = length > 0 ? length : p.original;
	/* the scaled curve by name, as freqs draws it ("yarn ×40", "longrope (long factors)") */
	cli_freq_variant_name(&(struct pe_freq_variant){.type = p.type,
	                                                .factor = p.factor,
	                                                .original = p.original,
	                                                .length = p.length},
	                      what, cap);
	st = *base && *scaled ? pe_rope_base_frequencies(s->base, d_rot, *base) : PE_ENOMEM;
	if (st == PE_OK) {
		memcpy(*scaled, *base, *h * sizeof(double));
		st = pe_rope_scale_frequencies(&p, s->base, d_rot, *scaled, NULL);
	}
	pe_scheme_destroy(s);
	if (st != PE_OK) {
		free(*base);
		free(*scaled);
		*base = *scaled = NULL;
		return -1;
	}
	for (size_t i = 0; i < *h; i++) {
		(*base)[i] = TWO_PI / (*base)[i];
		(*scaled)[i] = TWO_PI / (*scaled)[i];
	}
	return 0;
}

/* Wavelength per pair, unscaled and scaled, per rope group; context lengths marked. */
static int draw_model(const struct cli_common *co, const char *spec, double length,
                      const char *path, enum cli_format format)
{
	struct pe_model *m = NULL;
	const char *overrides = NULL;
	int rc = cli_model_load(co, spec, &m, &overrides);
	if (rc)
		return rc;
	const struct pe_model_group *only = co->layer ? pe_model_group_find(m, co->layer) : NULL;
	if (co->layer && !only) {
		return cli_usage_error("option '--layer': '%s' names no group or layer of '%s'",
		                       co->layer, spec);
	}
	struct pe_figure *fig = pe_figure_create(1, 1);
	size_t ng = m->n_groups;
	double **bufs = calloc(3 * (ng ? ng : 1), sizeof(double *));
	char(*names)[160] = calloc(2 * (ng ? ng : 1), sizeof(*names));
	enum pe_status st = fig && bufs && names ? PE_OK : PE_ENOMEM;
	struct pe_panel *panel = fig ? pe_figure_panel(fig, 0, 0) : NULL;
	if (fig)
		pe_figure_set_png_level(fig, CLI_PNG_LEVEL_CURVES);
	size_t drawn = 0;
	double ctx = m->context; /* the longest a group's scaling reaches, as describe_rope */
	for (size_t g = 0; g < ng && st == PE_OK; g++) {
		const struct pe_model_group *grp = &m->groups[g];
		if ((only && grp != only) || !grp->spec)
			continue;
		size_t h = 0;
		double extended = 0.0;
		char what[96];
		if (group_thetas(co, m, grp->spec, overrides, length, &bufs[3 * g],
		                 &bufs[3 * g + 1], &h, &extended, what, sizeof(what)) != 0 ||
		    h == 0)
			continue;
		ctx = fmax(ctx, extended);
		bufs[3 * g + 2] = malloc(h * sizeof(double));
		if (!bufs[3 * g + 2]) {
			st = PE_ENOMEM;
			break;
		}
		for (size_t i = 0; i < h; i++)
			bufs[3 * g + 2][i] = (double)i;
		const char *gn = ng > 1 ? grp->name : "";
		snprintf(names[2 * g], sizeof(names[0]), "%s%sunscaled", gn, *gn ? " " : "");
		snprintf(names[2 * g + 1], sizeof(names[0]), "%s%sscaled: %s", gn, *gn ? " " : "",
		         what);
		int same = memcmp(bufs[3 * g], bufs[3 * g + 1], h * sizeof(double)) == 0;
		if (same) /* an unscaled group: one line */
			snprintf(names[2 * g], sizeof(names[0]), "%s%s(no scaling)", gn,
			         *gn ? " " : "");
		st = pe_panel_add_line(panel, names[2 * g], bufs[3 * g + 2], bufs[3 * g], h);
		if (st == PE_OK && !same)
			st = pe_panel_add_line(panel, names[2 * g + 1], bufs[3 * g + 2],
			                       bufs[3 * g + 1], h);
		drawn++;
	}
	char text[96];
	if (st == PE_OK && !drawn)
		rc = cli_usage_error("'%s' has no rotary layer group to draw", spec);
	if (!rc && st == PE_OK && m->train_context > 0) {
		snprintf(text, sizeof(text), "%s %.17g",
		         ctx == m->train_context ? "context" : "training context",
		         m->train_context);
		st = pe_panel_add_hline(panel, m->train_context, text);
	}
	if (!rc && st == PE_OK && ctx > 0 && ctx != m->train_context) {
		snprintf(text, sizeof(text), "extended context %.17g", ctx);
		st = pe_panel_add_hline(panel, ctx, text);
	}
	if (!rc && st == PE_OK) {
		pe_panel_set_log(panel, false, true);
		pe_panel_set_integer_ticks(panel, true, false);
		st = pe_panel_set_ylabel(panel, "wavelength 2\xcf\x80/\xce\xb8 (positions)");
	}
	if (!rc && st == PE_OK)
		st = pe_panel_set_xlabel(panel, "pair index i");
	char title[192];
	snprintf(title, sizeof(title), "%s: wavelength per pair", m->name);
	if (!rc && st == PE_OK)
		st = pe_figure_set_title(fig, title);
	if (!rc)
		rc = st != PE_OK ? cli_figure_error(st)
		                 : cli_figure_write(co, path, format, fig, "wavelength per pair");
	pe_figure_destroy(fig);
	for (size_t i = 0; bufs && i < 3 * ng; i++)
		free(bufs[i]);
	free(bufs);
	free(names);
	return rc;
}

struct own {
	double length;
	const char *config; /* --config FILE */
	int wide;           /* --wide */
};

static int parse_own(void *ctx, int opt, const char *arg)
{
	struct own *w = ctx;
	if (opt == OPT_WIDE) {
		w->wide = 1;
		return 0;
	}
	if (opt == OPT_CONFIG) {
		if (!*arg)
			return cli_usage_error("option '--config': the file name is empty");
		w->config = arg;
		return 0;
	}
	int rc = cli_parse_double("--length", arg, &w->length);
	if (!rc && w->length <= 0)
		rc = cli_usage_error("option '--length': %s must be > 0", arg);
	return rc;
}

/* --config FILE: a preset's config.json, to read with hf: or to edit. */
static int write_config(const struct cli_common *o, const char *spec, const char *path)
{
	if (strncmp(spec, "model:", 6) != 0)
		return cli_usage_error("option '--config': writes the config.json of a model:NAME "
		                       "preset, not of '%s'",
		                       spec);
	char name[128];
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(spec + 6, ","), spec + 6);
	const char *text = pe_model_preset_config(name);
	if (!text)
		return cli_usage_error("scheme '%s': unknown model '%s' ('posenc help models')",
		                       spec, name);
	/* JSON goes into a .json file (or a stream), not under another format's name. */
	struct stat st;
	size_t pl = strlen(path);
	int stream = strcmp(path, "-") == 0 ||
	             (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)));
	if (!stream && !(pl > 5 && strcasecmp(path + pl - 5, ".json") == 0))
		return cli_usage_error("option '--config': writes JSON, into a .json file or - "
		                       "(not '%s')",
		                       path);
	int rc = cli_options_apply_to(o, path, CLI_FORMAT_CSV);
	if (rc)
		return rc;
	struct cli_file file;
	rc = cli_file_open(&file, path);
	if (rc)
		return rc;
	fputs(text, file.f);
	rc = cli_file_commit(&file);
	if (!rc) {
		char what[160];
		snprintf(what, sizeof(what), "config.json of model:%s", name);
		cli_report_written(o, path, what);
	}
	return rc;
}

/* An operand that names a model or a spec ("posenc model model:x"), not an option value. */
static int is_operand(char **argv, int i)
{
	const char *a = argv[i], *prev = argv[i - 1];
	if (a[0] == '-' ||
	    (prev[0] == '-' && prev[1] && !strchr(prev, '=') && strcmp(prev, "-q") != 0 &&
	     strcmp(prev, "--quiet") != 0 && strcmp(prev, "-h") != 0 &&
	     strcmp(prev, "--help") != 0 && strcmp(prev, "--raw") != 0))
		return 0;
	return 1;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls > lx && strcmp(s + ls - lx, suffix) == 0;
}

/*
 * "posenc model config.json" and "posenc model x.gguf" (what "inspect on a
 * config or GGUF file" means): a bare path to a .json or .gguf file is read
 * as hf:PATH or gguf:PATH. The text lives until the process ends.
 */
static char *file_operand(char *a)
{
	static char *converted;
	if (cli_is_model_spec(a) || strchr(a, ':') ||
	    (!ends_with(a, ".json") && !ends_with(a, ".gguf")))
		return a;
	const char *prefix = ends_with(a, ".gguf") ? "gguf:" : "hf:";
	size_t len = strlen(prefix) + strlen(a) + 1;
	char *s = malloc(len);
	if (!s)
		return a;
	snprintf(s, len, "%s%s", prefix, a);
	free(converted);
	converted = s;
	return s;
}

int cmd_model(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"length", required_argument, NULL, OPT_LENGTH},
	        {"config", required_argument, NULL, OPT_CONFIG},
	        {"wide", no_argument, NULL, OPT_WIDE},
	        {NULL, 0, NULL, 0},
	};
	/* The model may be given as the operand: hand it on as -s. */
	char **args = malloc(((size_t)argc + 3) * sizeof(*args));
	if (!args)
		return cli_error("out of memory");
	int n = 0, operands = 0;
	for (int i = 0; i < argc; i++) {
		/* two operands: one model from two sources (model_diff.c) */
		if (i > 0 && is_operand(argv, i) && operands++ < 2) {
			args[n++] = (char *)"-s";
			args[n++] = file_operand(argv[i]);
			continue;
		}
		args[n++] = argv[i];
	}
	args[n] = NULL;
	struct cli_common o;
	struct own own = {0, NULL, 0};
	int rc = cli_parse_args(n, args, &command, &(struct cli_own_options){opts, parse_own, &own},
	                        &o);
	double length = own.length;
	free(args);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;
	const char *spec = o.nspecs ? o.specs[0] : NULL;
	if (!spec)
		return cli_usage_error("which model? e.g. posenc model model:llama-3.1-8b");
	if (own.wide && !o.output)
		return cli_usage_error(
		        "option '--wide' is a CSV layout: give -o FILE.csv (or -o -)");
	if (o.nspecs == 2 && !own.config && !o.output)
		return cli_model_diff(&o, o.specs[0], o.specs[1], stdout);
	if (o.nspecs > 1 && (own.config || !own.wide))
		return cli_usage_error("model describes one model, compares two sources of one "
		                       "(without -o or --config), or tabulates several with --wide "
		                       "-o FILE.csv; %zu given",
		                       o.nspecs);
	if (!o.d_given)
		o.d = 0;
	/* a -d that changes a model's rope groups: refused or warned about, as everywhere */
	for (size_t i = 0; o.d_given && i < o.nspecs && !rc; i++) {
		struct pe_model *m = NULL;
		const char *ov = NULL;
		struct cli_common one = o;
		one.quiet = 1;
		if (!cli_is_model_spec(o.specs[i]) || cli_model_load(&one, o.specs[i], &m, &ov))
			continue; /* a plain spec changes nothing; a load error is said below */
		int computable = !m->learned && m->n_groups > 0; /* m: cli_model_load's */
		if (!computable)
			continue;
		struct pe_scheme **ss = NULL;
		struct cli_model_info *inf = NULL;
		size_t ns = 0;
		one = o;
		one.specs[0] = o.specs[i];
		one.nspecs = 1;
		rc = cli_schemes_models(&one, NULL, 4096, &ss, &ns, &inf);
		free(inf);
		cli_schemes_free(ss, ns);
	}
	if (rc)
		return rc;
	if (own.config)
		return write_config(&o, spec, own.config);
	if (!o.output) {
		for (size_t i = 0; i < o.nspecs && !rc; i++) {
			if (i)
				fputc('\n', stdout);
			rc = run_model(&o, o.specs[i], length, stdout, 0, NULL);
		}
		return rc;
	}
	enum cli_format format;
	if ((rc = cli_output_format(&o, o.output, &format)))
		return rc;
	if (own.wide && format != CLI_FORMAT_CSV)
		return cli_usage_error("option '--wide' is a CSV layout, not a figure");
	if (cli_format_is_figure(format)) {
		if (!cli_is_model_spec(spec))
			return cli_usage_error("the figure needs a model (hf:, model:); for '%s' "
			                       "use posenc freqs",
			                       spec);
		if ((rc = cli_figure_check_options(&o)))
			return rc;
		return draw_model(&o, spec, length, o.output, format);
	}
	if (format != CLI_FORMAT_CSV)
		return cli_usage_error("option '-o': model writes .csv, .png, .svg or .pdf");
	/* a second run in one process (cli/library.c) starts clean */
	wide_failed = 0;
	struct wide_table *wide = own.wide ? wide_table_create() : NULL;
	if (own.wide && !wide)
		return cli_error("out of memory");
	struct cli_file file;
	if ((rc = cli_file_open(&file, o.output))) {
		wide_table_destroy(wide);
		return rc;
	}
	for (size_t i = 0; i < o.nspecs && !rc; i++)
		rc = run_model(&o, o.specs[i], length, file.f, 1, wide);
	if (!rc && wide_failed)
		rc = cli_error("out of memory");
	if (!rc && wide)
		wide_table_write(wide, file.f, "model", "group", "model");
	wide_table_destroy(wide);
	if (rc) {
		cli_file_abort(&file);
		return rc;
	}
	rc = cli_file_commit(&file);
	if (!rc)
		cli_report_written(&o, o.output, "model summary");
	return rc;
}
