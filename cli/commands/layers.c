/*
 * posenc layers: a model's layers one by one, so that a layer with the
 * wrong encoding shows at a glance (an inverted NoPE flag, a local base on
 * a global layer): per layer its group, RoPE or not, head and rotary width,
 * layout, base, scaling and factor, proportional fraction, M-RoPE sections
 * and attention factor. A CSV (one row per layer, numeric columns numeric)
 * or a figure of one strip per layer for each quantity.
 *
 * Besides the groups' specs, the model's facts (struct pe_model_fact): the
 * sliding window of the layers that have one, and the softmax scale or its
 * factor (the attention temperature) where the config sets them.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/freqs.h>
#include <posenc/model.h>

#include "cli.h"
#include "commands.h"
#include "figures/figure.h"
#include "shared/csv_cells.h"
#include "shared/model_spec.h"
#include "shared/output.h"

static const char help[] =
        "Usage: posenc layers -s SPEC [-o FILE.csv|FILE.png]\n"
        "\n"
        "A model's layers one by one (hf:, gguf: or model:): per layer its group, its\n"
        "encoding (rope, or nope for layers without one), head and rotary width, pair\n"
        "layout, base, scaling, factor, original context, proportional fraction, M-RoPE\n"
        "sections and attention factor (cos and sin are multiplied by it; evaluated at\n"
        "the model's context), sliding window, and the softmax scale or its factor where\n"
        "the config sets them. -o FILE.csv (or -o -): one row per layer, numeric\n"
        "columns numeric, empty where a quantity does not apply. A figure (.png .svg\n"
        ".pdf, default layers.png): one strip per layer for each quantity, so that a\n"
        "layer unlike its neighbours shows at a glance; as tall as the layers need\n"
        "whatever the width, in two rows of four strips below 8 in, four rows of two\n"
        "below 5 in.\n"
        "\n"
        "Options:\n"
        "  -s, --scheme SPEC      the model: hf:config.json, gguf:FILE or model:NAME (see\n"
        "                         'posenc help models')\n"
        "%s"
        "\n"
        "Example: posenc layers -s model:gemma-3-27b -o gemma3-layers.png\n";

static const struct cli_refusal refusals[] = {
        {CLI_TAKES_LAYER | CLI_TAKES_BASE | CLI_TAKES_DIM | CLI_TAKES_POSITIONS |
                 CLI_TAKES_POSITION_IDS,
         "layers shows every layer, each at its own width and base"},
        {CLI_TAKES_MAX_TIME, "layers reads a config: there is no long work to bound"},
        {CLI_TAKES_COLOUR, "each strip of the layer map keeps its own colours and scale"},
        {0, NULL},
};

static const struct cli_command_options command = {
        help,
        CLI_TAKES_SCHEME | CLI_TAKES_FIGURES | CLI_TAKES_MAX_MEMORY,
        ".csv table, - for CSV on stdout, .png .svg .pdf figure",
        "layers writes a CSV table or a figure of labelled strips",
        refusals,
};

/* What one layer group is, as numbers (NaN: does not apply). */
struct group_facts {
	const char *group;
	const char *encoding; /* "rope", "nope", or the scheme's name */
	const char *layout;   /* "half", "interleaved", "" */
	const char *scaling;  /* "none", "yarn", ... or "" */
	double rope, head, rotary, base, factor, original, proportion, attention;
};

#define N_QUANTITIES 8

/* Facts of group @g of @m (overrides applied). @return 0 or an exit code. */
static int facts_of(const struct pe_model *m, const struct pe_model_group *g, const char *overrides,
                    struct group_facts *f)
{
	*f = (struct group_facts){g->name, "nope", "", "", 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
	if (!g->spec)
		return 0;
	char *text = pe_spec_override(g->spec, overrides);
	if (!text)
		return cli_error("out of memory");
	struct pe_scheme *s = NULL;
	char *err = NULL;
	enum pe_status st = pe_scheme_parse(text, &s, &err);
	free(text);
	if (st != PE_OK) {
		int rc = cli_usage_error("layer group '%s': %s", g->name,
		                         err ? err : pe_status_str(st));
		free(err);
		return rc;
	}
	f->encoding = pe_scheme_name(s);
	int rope = pe_scheme_has(s, PE_CAP_SCALING);
	f->rope = rope ? 1 : 0;
	size_t d = s->head ? s->head : m->head_dim;
	if (rope && d) {
		f->head = (double)d;
		f->rotary = (double)pe_rope_rotary_width(s, d);
		f->layout = s->layout == PE_LAYOUT_HALF ? "half" : "interleaved";
		f->base = s->base;
		f->scaling = pe_rope_scaling_name(s->scaling.type);
		f->factor = s->scaling.type == PE_ROPE_SCALING_NONE ? 1.0 : s->scaling.factor;
		if (s->scaling.type == PE_ROPE_SCALING_YARN ||
		    s->scaling.type == PE_ROPE_SCALING_LLAMA3 ||
		    s->scaling.type == PE_ROPE_SCALING_LONGROPE ||
		    s->scaling.type == PE_ROPE_SCALING_DYNAMIC)
			f->original = s->scaling.original;
		f->proportion = s->scaling.type == PE_ROPE_SCALING_PROPORTIONAL
		                        ? s->scaling.proportion
		                        : 1.0;
		struct pe_freqs_options fo = {m->context > 0 ? m->context : 0, 0};
		struct pe_freq_table *t = NULL;
		if (pe_freq_table_create(s, d, &fo, &t) == PE_OK)
			f->attention = t->n_variants && !t->illustrative
			                       ? t->variants[0].info.attention_factor
			                       : 1.0;
		pe_freq_table_destroy(t);
	}
	pe_scheme_destroy(s);
	return 0;
}

/* A fact of the model by key; NULL if it has none. */
static const char *fact(const struct pe_model *m, const char *key)
{
	for (size_t i = 0; i < m->n_facts; i++)
		if (strcmp(m->facts[i].key, key) == 0)
			return m->facts[i].value;
	return NULL;
}

static double fact_number(const struct pe_model *m, const char *key)
{
	const char *v = fact(m, key);
	char *end;
	double x = v ? strtod(v, &end) : NAN;
	return v && *end == '\0' ? x : NAN;
}

/* Whether layer @l is in a list like "0-4,6-10,12". */
static int in_ranges(const char *list, size_t l)
{
	for (const char *p = list; p && *p;) {
		char *end;
		unsigned long long a = strtoull(p, &end, 10), b = a;
		if (end == p)
			return 0;
		if (*end == '-')
			b = strtoull(end + 1, &end, 10);
		if (l >= a && l <= b)
			return 1;
		p = *end == ',' ? end + 1 : NULL;
	}
	return 0;
}

/* The sliding window of layer @l: the model's window where the layer has one, else NaN. */
static double window_of(const struct pe_model *m, size_t l)
{
	double w = fact_number(m, "sliding_window");
	const char *layers = fact(m, "sliding_layers");
	if (isnan(w) || (layers && !in_ranges(layers, l)))
		return NAN;
	return w;
}

/* M-RoPE's pairs per axis (t, h, w), from the model's mrope spec; zero without one. */
static void mrope_sections(const struct pe_model *m, double out[3])
{
	out[0] = out[1] = out[2] = NAN;
	struct pe_scheme *s = NULL;
	if (!m->mrope_spec || pe_scheme_parse(m->mrope_spec, &s, NULL) != PE_OK)
		return;
	for (int k = 0; k < 3; k++)
		out[k] = (double)s->mrope_pairs[k];
	pe_scheme_destroy(s);
}

static int write_csv(const struct cli_common *o, const struct pe_model *m,
                     const struct group_facts *facts, const size_t *layer_group, const char *path)
{
	struct cli_file file;
	int rc = cli_file_open(&file, path);
	if (rc)
		return rc;
	double sec[3];
	mrope_sections(m, sec);
	fputs("layer,group,encoding,head_dim,rotary_dim,layout,base,scaling,factor,original,"
	      "proportion,mrope_t,mrope_h,mrope_w,attention_factor,sliding_window,softmax_scale,"
	      "softmax_scale_factor\n",
	      file.f);
	double scale = fact_number(m, "softmax_scale");
	double scale_factor = fact_number(m, "softmax_scale_factor");
	for (size_t l = 0; l < m->n_layers; l++) {
		const struct group_facts *f = &facts[layer_group[l]];
		cli_csv_num(file.f, (double)l, 1);
		cli_csv_text(file.f, f->group, 0);
		cli_csv_text(file.f, f->encoding, 0);
		cli_csv_num(file.f, f->head, 0);
		cli_csv_num(file.f, f->rotary, 0);
		cli_csv_text(file.f, f->layout, 0);
		cli_csv_num(file.f, f->base, 0);
		cli_csv_text(file.f, f->scaling, 0);
		cli_csv_num(file.f, f->factor, 0);
		cli_csv_num(file.f, f->original, 0);
		cli_csv_num(file.f, f->proportion, 0);
		for (int k = 0; k < 3; k++)
			cli_csv_num(file.f, f->rope ? sec[k] : NAN, 0);
		cli_csv_num(file.f, f->attention, 0);
		cli_csv_num(file.f, window_of(m, l), 0);
		cli_csv_num(file.f, scale, 0);
		cli_csv_num(file.f, scale_factor, 0);
		fputc('\n', file.f);
	}
	rc = cli_file_commit(&file);
	if (!rc) {
		char what[64];
		snprintf(what, sizeof(what), "%zu layers x 18 table", m->n_layers);
		cli_report_written(o, path, what);
	}
	return rc;
}

static int draw(const struct cli_common *o, const struct pe_model *m,
                const struct group_facts *facts, const size_t *layer_group, const char *path,
                enum cli_format format)
{
	static const char *const titles[N_QUANTITIES] = {
	        "group",  "RoPE (1/0)", "log10 base",       "rotary width",
	        "factor", "proportion", "attention factor", "sliding window"};
	size_t n = m->n_layers;
	/* Eight strips and their colorbars need about 8 in: narrower (a paper's 7 in), two
	 * rows of four; in a column (under 5 in, a 252 pt one), four rows of two. */
	double width_pt, height_pt;
	cli_figure_size_pt(o, true, &width_pt, &height_pt);
	if (!(width_pt > 0))
		width_pt = 10.0 * 72;
	unsigned rows = width_pt < 5.0 * 72 ? 4 : width_pt < 8.0 * 72 ? 2 : 1;
	unsigned cols = N_QUANTITIES / rows;
	double *data = malloc(N_QUANTITIES * n * sizeof(double));
	struct pe_figure *fig = pe_figure_create(rows, cols);
	if (!data || !fig) {
		free(data);
		pe_figure_destroy(fig);
		return cli_error("the layer map: out of memory");
	}
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_CURVES);
	for (size_t l = 0; l < n; l++) {
		const struct group_facts *f = &facts[layer_group[l]];
		double v[N_QUANTITIES] = {
		        (double)layer_group[l], f->rope,      log10(f->base), f->rotary, f->factor,
		        f->proportion,          f->attention, window_of(m, l)};
		for (int q = 0; q < N_QUANTITIES; q++)
			data[q * n + l] = v[q];
	}
	enum pe_status st = PE_OK;
	for (int q = 0; q < N_QUANTITIES && st == PE_OK; q++) {
		struct pe_heatmap_spec spec;
		pe_heatmap_spec_init(&spec, n, 1, data + q * n);
		spec.own_scale = true;
		spec.x_no_ticks = true; /* one column: its index 0 says nothing */
		spec.discrete = q <= 1;
		for (size_t l = 0; l < n; l++)
			if (isnan(data[q * n + l]))
				spec.nan_label =
				        q == N_QUANTITIES - 1 ? "full attention" : "does not apply";
		/* a quantity equal on every layer still gets a scale around its value */
		double lo = INFINITY, hi = -INFINITY;
		for (size_t l = 0; l < n; l++)
			if (isfinite(data[q * n + l]))
				lo = fmin(lo, data[q * n + l]), hi = fmax(hi, data[q * n + l]);
		/* A whole number on every layer is one band with its value as the only tick
		 * (a 64..192 bar around a rotary width of 128 suggested a range that is not
		 * there); another constant, a bar around its value. */
		if (!spec.discrete && lo == hi && lo == floor(lo) && fabs(lo) < 1e15) {
			spec.discrete = true;
		} else if (!spec.discrete && lo == hi) {
			spec.vmin = lo - 0.5 * fmax(fabs(lo), 1e-3);
			spec.vmax = hi + 0.5 * fmax(fabs(hi), 1e-3);
		}
		if (!(lo <= hi)) { /* no layer has it: one "none" strip */
			spec.vmin = 0;
			spec.vmax = 1;
			spec.discrete = false;
		}
		struct pe_panel *p = pe_figure_panel(fig, (unsigned)q / cols, (unsigned)q % cols);
		st = pe_panel_set_heatmap(p, &spec);
		pe_panel_heatmap_own_scale(p, true);
		if (st == PE_OK)
			st = pe_panel_set_title(p, titles[q]);
		if (st == PE_OK && (unsigned)q % cols == 0)
			st = pe_panel_set_ylabel(p, "layer");
	}
	char title[256];
	snprintf(title, sizeof(title), "%s: %zu layers (groups:", m->name, n);
	for (size_t g = 0; g < m->n_groups; g++)
		snprintf(title + strlen(title), sizeof(title) - strlen(title), " %zu = %s%s", g,
		         m->groups[g].name, g + 1 < m->n_groups ? "," : ")");
	if (st == PE_OK)
		st = pe_figure_set_title(fig, title);
	/*
	 * Strips side by side, as tall as the layers need whatever the width: a height
	 * left to the width's aspect would squash 62 layers into a 0.8 in band at
	 * --style paper (--width 7in gave 700 x 84 px).
	 */
	struct cli_common sized = *o;
	if (!o->height.value) {
		/* four rows: each strip keeps about the height it has in two */
		double h = fmin(fmax(3.0 + 0.08 * (double)n, 4.8), 14.0) * (rows == 4 ? 1.6 : 1.0);
		sized.width = (struct cli_length){width_pt, 0};
		sized.height = (struct cli_length){h * 72, 0};
	}
	int rc = st == PE_OK ? cli_figure_write(&sized, path, format, fig, "layer map")
	                     : cli_figure_error(st);
	pe_figure_destroy(fig);
	free(data);
	return rc;
}

int cmd_layers(int argc, char **argv)
{
	struct cli_common o;
	int rc = cli_parse_args(argc, argv, &command, NULL, &o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;
	if (o.nspecs != 1 || !cli_is_model_spec(o.specs[0]))
		return cli_usage_error("layers maps one model: -s hf:config.json, gguf:FILE or "
		                       "model:NAME");
	char buf[64];
	const char *path = cli_output_path(&o, buf, sizeof(buf));
	enum cli_format format;
	if ((rc = cli_output_format(&o, path, &format)))
		return rc;
	if (format != CLI_FORMAT_CSV && !cli_format_is_figure(format))
		return cli_usage_error(
		        "layers writes a table (.csv) or a figure (.png, .svg, .pdf)");
	if (cli_format_is_figure(format) && (rc = cli_figure_check_options(&o)))
		return rc;
	struct pe_model *m = NULL;
	const char *overrides = NULL;
	if ((rc = cli_model_load(&o, o.specs[0], &m, &overrides)))
		return rc;
	if (m->learned || !m->n_groups || !m->n_layers) {
		rc = cli_usage_error("'%s' has %s: no layers to map", o.specs[0],
		                     m->learned ? "a learned table"
		                                : "no layer count in its config");
		return rc; /* the model belongs to cli_model_load's cache */
	}
	struct group_facts *facts = calloc(m->n_groups, sizeof(*facts));
	size_t *layer_group = malloc(m->n_layers * sizeof(*layer_group));
	if (!facts || !layer_group)
		rc = cli_error("out of memory");
	for (size_t l = 0; !rc && l < m->n_layers; l++)
		layer_group[l] = SIZE_MAX;
	for (size_t g = 0; !rc && g < m->n_groups; g++) {
		rc = facts_of(m, &m->groups[g], overrides, &facts[g]);
		for (size_t k = 0; !rc && k < m->groups[g].n_layers; k++)
			if (m->groups[g].layers[k] < m->n_layers)
				layer_group[m->groups[g].layers[k]] = g;
		/* a single group with no layer list covers them all */
		if (!rc && m->groups[g].n_layers == 0 && m->n_groups == 1)
			for (size_t l = 0; l < m->n_layers; l++)
				layer_group[l] = g;
	}
	/* T5's encoder and decoder: groups that are stacks, not lists of layers */
	int unlisted = m->n_groups > 1;
	for (size_t g = 0; g < m->n_groups; g++)
		unlisted &= m->groups[g].n_layers == 0;
	for (size_t l = 0; !rc && l < m->n_layers; l++)
		if (layer_group[l] == SIZE_MAX)
			rc = unlisted ? cli_usage_error(
			                        "'%s': its %zu groups (%s, ...) are stacks of "
			                        "layers, not a list of them, so there is no "
			                        "table by layer; 'posenc model' describes "
			                        "each",
			                        o.specs[0], m->n_groups, m->groups[0].name)
			              : cli_error("'%s': layer %zu is in no layer group",
			                          o.specs[0], l);
	if (!rc)
		rc = cli_format_is_figure(format) ? draw(&o, m, facts, layer_group, path, format)
		                                  : write_csv(&o, m, facts, layer_group, path);
	free(facts);
	free(layer_group);
	return rc;
}
