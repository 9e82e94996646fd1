/* posenc freqs: per-pair frequencies and wavelengths, RoPE scalings side by side. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/encode.h>
#include <posenc/freqs.h>

#include "cli.h"
#include "shared/costs.h"
#include "commands.h"
#include "figures/figure.h"
#include "figures/wavelength_figure.h"
#include "shared/contexts.h"
#include "shared/csv_cells.h"
#include "shared/model_spec.h"
#include "shared/output.h"
#include "shared/vectors.h"

#define MAX_SCHEMES 16

enum { OPT_LENGTH = CLI_OPT_COMMAND, OPT_TRAIN_LENGTH, OPT_TABLE };

static const char help[] =
        "Usage: posenc freqs [-s SPEC]... [-d D] [--length L] [--train-length T] [-o FILE]\n"
        "\n"
        "The frequency of every (sin, cos) pair, as Hugging Face modeling_rope_utils\n"
        "computes it, for up to 16 schemes or models, each at its own width. CSV (--table\n"
        "long, the default for several schemes): one long table, the same columns\n"
        "whatever the scaling: model, group, d, d_rot, pair,\n"
        "theta (unscaled angular frequency), wavelength (2 pi / theta), scaling, factor,\n"
        "scaled_theta, scaled_wavelength, ratio (scaled / unscaled), regime (kept,\n"
        "ramped, interpolated; rescaled for LongRoPE, static for pairs at frequency 0)\n"
        "and, when an mrope spec is among them, axis (t, h or w, the position id that\n"
        "turns the pair; empty for the other schemes).\n"
        "CSV --table wide (the default for one scheme, as NPY): a row per pair, columns\n"
        "pair, theta, wavelength, then each variant's NAME_theta and NAME_ratio; mrope\n"
        "ends with axis (in NPY 0 t, 1 h, 2 w). mrope's theta is base^(-2i/d) on every\n"
        "axis: sections (Qwen2-VL) give the first t pairs to time, then h, then w;\n"
        "interleaved=1 (Qwen3-VL) gives pair i to h if i % 3 = 1 and i < 3h, to w if\n"
        "i % 3 = 2 and i < 3w, else to time.\n"
        "A rope spec with scaling=X gives that scaling with its keys; plain rope gives a\n"
        "row per pair for each of linear, dynamic and yarn (factor 4, original 4096) and\n"
        "llama3 (factor 8, low 1, high 4, original 8192); a model or sinusoidal table its\n"
        "own frequencies (scaling none when it has no scaling). On stderr: each variant's\n"
        "attention factor (and effective base, YaRN's low/high) and, when a training\n"
        "length T is known (a model's, a scaling's original or --train-length), the\n"
        "critical dimension 2 ceil((d/2) log_base(T/2pi)) of Liu et al.\n"
        "Figure (.png .svg .pdf): the wavelength per pair on a log axis, unscaled and per\n"
        "variant, with the training length, the critical pair and YaRN's low and high pairs\n"
        "marked; below, each variant's frequency over the unscaled one; mrope's pairs as\n"
        "markers, one colour per axis. With several schemes, their wavelengths on shared\n"
        "axes, then one panel each with its training and extended context and critical\n"
        "pair marked, its scaled curve named by its scaling (LongRoPE: short or long\n"
        "factors, per --length).\n"
        "\n"
        "Options:\n"
        "      --length L         sequence length for dynamic and longrope [default: the\n"
        "                         spec's length=, else the original context: the state\n"
        "                         the reference builds at load time, as posenc model; 16384\n"
        "                         for the default dynamic variant]\n"
        "      --train-length T   training length of the critical dimension [default: a\n"
        "                         model's training context, the scaling's original; none]\n"
        "      --table long|wide  CSV layout [default: wide for one scheme, long for several]\n"
        "%s"
        "\n"
        "Defaults: -s rope -d 128 -o freqs.png\n"
        "Example: posenc freqs -s model:llama-3.1-8b -s model:phi-3-mini-128k -o x.csv\n";

static const struct cli_refusal refusals[] = {
        {CLI_TAKES_POSITIONS | CLI_TAKES_POSITION_IDS,
         "freqs does not encode positions: its rows are pairs"},
        {0, NULL},
};

static const struct cli_command_options command = {
        help,
        CLI_TAKES_SCHEME | CLI_TAKES_LAYER | CLI_TAKES_BASES | CLI_TAKES_DIM | CLI_TAKES_DTYPE |
                CLI_TAKES_FIGURES | CLI_TAKES_BUDGETS,
        CLI_OUTPUT_ALL,
        "freqs draws curves, not a heatmap",
        refusals,
};

static void report(const struct cli_common *o, const struct pe_scheme *s,
                   const struct pe_freq_table *t, int several)
{
	for (size_t k = 0; k < t->n_variants; k++) {
		const struct pe_freq_variant *v = &t->variants[k];
		double a = v->info.attention_factor;
		char extra[96] = "";
		if (v->type == PE_ROPE_SCALING_DYNAMIC)
			snprintf(extra, sizeof(extra), ", effective base %.10g at length %.10g",
			         v->info.base, v->length);
		if (v->type == PE_ROPE_SCALING_LONGROPE)
			snprintf(extra, sizeof(extra), ", %s factors at length %.10g",
			         v->length > v->original ? "long" : "short", v->length);
		if (v->type == PE_ROPE_SCALING_YARN)
			snprintf(extra, sizeof(extra), ", low %g, high %g", v->info.yarn_low,
			         v->info.yarn_high);
		char original[48] = "";
		if (pe_rope_scaling_has_original(v->type))
			snprintf(original, sizeof(original), ", original %.10g", v->original);
		cli_note(o->quiet, "%s%s%s: factor %g%s: attention factor %.8g (logits x%.8g)%s",
		         several ? s->label : "", several ? ": " : "",
		         pe_rope_scaling_name(v->type), v->factor, original, a, a * a, extra);
	}
	if (t->axes) {
		size_t n[3] = {0, 0, 0};
		for (size_t i = 0; i < t->values->rows; i++)
			n[t->axes[i] % 3]++;
		cli_note(o->quiet,
		         "%s: M-RoPE %s: %zu pairs turn with the temporal id (t), %zu with the "
		         "height id (h), %zu with the width id (w)",
		         s->label, s->mrope_interleaved ? "interleaved" : "in sections", n[0], n[1],
		         n[2]);
	}
	if (t->has_critical_dim)
		cli_note(o->quiet, "%s: critical dimension %zu of %zu for training length %.10g",
		         s->label, t->critical_dim, t->d_pairs, t->train_length);
}

#define MAX_VLINES 3
#define TWO_PI     6.283185307179586476925

static const char *const axis_names[3] = {"t", "h", "w"};

/* An M-RoPE pair's axis as the CSV names it (pe_mrope_pair_axis()); "" for other schemes. */
static const char *axis_name(const struct pe_freq_table *t, size_t i)
{
	return t->axes ? axis_names[t->axes[i] % 3] : "";
}

struct vline {
	double at;
	char label[96];
};

/* Adds a vertical line, or joins its label to one already at the same pair. */
static size_t add_vline(struct vline *v, size_t n, double at, const char *label)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].at == at) {
			size_t len = strlen(v[i].label);
			snprintf(v[i].label + len, sizeof(v[i].label) - len, " = %s", label);
			return n;
		}
	v[n].at = at;
	snprintf(v[n].label, sizeof(v[n].label), "%s", label);
	return n + 1;
}

/*
 * Wavelength per pair on a log axis (it spans decades), unscaled and per
 * scaling variant, with the training length and the critical pair; below,
 * when there are variants, each one's frequency over the unscaled one.
 */
static int draw(const struct cli_common *o, const struct pe_scheme *s, size_t d,
                const struct pe_freq_table *t, const char *path, enum cli_format format)
{
	size_t pairs = t->values->rows, nv = t->n_variants, cols = t->values->cols;
	struct pe_figure *fig = pe_figure_create(nv ? 2 : 1, 1);
	/* x, then per curve (unscaled and each variant) its wavelength and its ratio, then
	 * for M-RoPE the pairs of each of the three axes */
	double *buf = malloc(pairs * (1 + 2 * (nv + 1) + 2) * sizeof(*buf));
	char(*names)[64] = calloc(nv + 1, sizeof(*names));
	char axis_labels[3][48];
	if (!fig || !buf || !names) {
		pe_figure_destroy(fig);
		free(buf);
		free(names);
		return cli_error("the frequency figure: out of memory");
	}
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_CURVES);
	double *x = buf;
	for (size_t i = 0; i < pairs; i++)
		x[i] = (double)i;
	struct pe_panel *top = pe_figure_panel(fig, 0, 0);
	struct pe_panel *low = nv ? pe_figure_panel(fig, 1, 0) : NULL;
	enum pe_status st = PE_OK;
	snprintf(names[0], sizeof(names[0]), "unscaled (base %g)", t->base);
	for (size_t k = 0; k <= nv && st == PE_OK; k++) {
		double *wl = buf + pairs * (1 + 2 * k), *ratio = wl + pairs;
		for (size_t i = 0; i < pairs; i++) {
			const double *row = t->values->data + i * cols;
			double theta = k ? row[2 * k] : row[0];
			wl[i] = TWO_PI / theta;
			ratio[i] = k ? row[2 * k + 1] : 1.0;
		}
		if (k)
			cli_freq_variant_name(&t->variants[k - 1], names[k], sizeof(names[k]));
		if (t->axes && k == 0)
			st = cli_wavelength_axes(top, t, wl, buf + pairs * (1 + 2 * (nv + 1)),
			                         axis_labels);
		else
			st = pe_panel_add_line(top, nv ? names[k] : NULL, x, wl, pairs);
		/* the unscaled ratio 1 keeps each variant's colour the same in both panels */
		if (st == PE_OK && low)
			st = pe_panel_add_line(low, NULL, x, ratio, pairs);
	}
	struct vline vl[MAX_VLINES];
	size_t nvl = 0;
	char text[96];
	if (t->has_critical_dim) {
		snprintf(text, sizeof(text), "critical pair (dim %zu)", t->critical_dim);
		nvl = add_vline(vl, nvl, (double)t->critical_dim / 2.0, text);
	}
	for (size_t k = 0; k < nv; k++) {
		const struct pe_freq_variant *v = &t->variants[k];
		if (v->type != PE_ROPE_SCALING_YARN || nvl + 2 > MAX_VLINES)
			continue;
		nvl = add_vline(vl, nvl, v->info.yarn_low, "YaRN low");
		nvl = add_vline(vl, nvl, v->info.yarn_high, "YaRN high");
	}
	for (size_t i = 0; i < nvl && st == PE_OK; i++) {
		/* a boundary past the last pair marks no pair: it would only stretch the axis */
		if (vl[i].at >= (double)pairs)
			continue;
		st = pe_panel_add_vline(top, vl[i].at, vl[i].label);
		if (st == PE_OK && low)
			st = pe_panel_add_vline(low, vl[i].at, NULL);
	}
	if (st == PE_OK && t->has_critical_dim) {
		snprintf(text, sizeof(text), "training length %.10g", t->train_length);
		st = pe_panel_add_hline(top, t->train_length, text);
	}
	pe_panel_set_log(top, false, true);
	pe_panel_set_integer_ticks(top, true, false);
	if (st == PE_OK)
		st = pe_panel_set_ylabel(top, "wavelength (positions)");
	if (st == PE_OK)
		st = pe_panel_set_xlabel(top, "pair index i");
	if (st == PE_OK && low) {
		pe_panel_set_integer_ticks(low, true, false);
		st = pe_panel_set_ylabel(low, "scaled / unscaled frequency");
		if (st == PE_OK)
			st = pe_panel_set_xlabel(low, "pair index i");
	}
	char title[192];
	snprintf(title, sizeof(title), "%s (d=%zu): wavelength per pair", cli_short_label(s), d);
	if (st == PE_OK)
		st = pe_figure_set_title(fig, title);
	int rc;
	if (st != PE_OK) {
		rc = cli_figure_error(st);
	} else {
		if (t->axes)
			snprintf(text, sizeof(text), "%zu pair%s by axis t, h, w", pairs,
			         pairs == 1 ? "" : "s");
		else
			snprintf(text, sizeof(text), "%zu pair%s, %zu scaling variant%s", pairs,
			         pairs == 1 ? "" : "s", nv, nv == 1 ? "" : "s");
		rc = cli_figure_write(o, path, format, fig, text);
	}
	pe_figure_destroy(fig);
	free(buf);
	free(names);
	return rc;
}

/* What freqs's own options set. */
struct freqs_own {
	struct pe_freqs_options fo;
	int table; /* -1 not given, 0 wide, 1 long */
};

static int parse_own(void *ctx, int opt, const char *arg)
{
	struct freqs_own *own = ctx;
	struct pe_freqs_options *fo = &own->fo;
	if (opt == OPT_TABLE) {
		if (strcmp(arg, "long") && strcmp(arg, "wide"))
			return cli_usage_error("option '--table': '%s' is not long or wide", arg);
		own->table = strcmp(arg, "long") == 0;
		return 0;
	}
	const char *name = opt == OPT_LENGTH ? "--length" : "--train-length";
	double *dst = opt == OPT_LENGTH ? &fo->length : &fo->train_length;
	int rc = cli_parse_double(name, arg, dst);
	if (!rc && *dst <= 0)
		rc = cli_usage_error("option '%s': %s must be > 0", name, arg);
	return rc;
}

/* One scheme of the table: its width, contexts and frequency table. */
struct entry {
	struct pe_scheme *s;
	struct cli_model_info info;
	size_t d;
	struct cli_contexts ctx;
	struct pe_freq_table *t;
};

/* The model column: a model's name, else the scheme's label. */
static const char *model_name(const struct entry *e)
{
	return e->info.model[0] ? e->info.model : cli_short_label(e->s);
}

/* One long table: a row per scheme, scaling variant and pair; the same columns
 * whatever the scaling, and the axis column when an mrope spec is among them. */
static void write_rows(FILE *f, const struct entry *e, int with_axis)
{
	const struct pe_freq_table *t = e->t;
	size_t pairs = t->values->rows, cols = t->values->cols;
	size_t nv = t->n_variants ? t->n_variants : 1;
	for (size_t k = 0; k < nv; k++) {
		const struct pe_freq_variant *v = t->n_variants ? &t->variants[k] : NULL;
		for (size_t i = 0; i < pairs; i++) {
			const double *row = t->values->data + i * cols;
			double theta = row[0];
			double scaled = v ? row[2 + 2 * k] : theta,
			       ratio = v ? row[3 + 2 * k] : 1.0;
			cli_csv_text(f, model_name(e), 1);
			cli_csv_text(f, e->info.model[0] ? e->info.group : "", 0);
			cli_csv_num(f, (double)e->d, 0);
			cli_csv_num(f, (double)t->d_pairs, 0);
			cli_csv_num(f, (double)i, 0);
			cli_csv_num(f, theta, 0);
			cli_csv_num(f, row[1], 0);
			cli_csv_text(f, v ? pe_rope_scaling_name(v->type) : "none", 0);
			cli_csv_num(f, v ? v->factor : 1.0, 0);
			cli_csv_num(f, scaled, 0);
			cli_csv_num(f, scaled > 0.0 ? TWO_PI / scaled : INFINITY, 0);
			cli_csv_num(f, ratio, 0);
			cli_csv_text(f,
			             v ? pe_pair_regime_name(pe_pair_regime(v, ratio))
			               : pe_pair_regime_name(PE_REGIME_KEPT),
			             0);
			if (with_axis)
				cli_csv_text(f, axis_name(t, i), 0);
			fputc('\n', f);
		}
	}
}

/*
 * One scheme's table as the NPY holds it, a row per pair and the variants side
 * by side, named after their scaling (what DESIGN.md specifies and scripts that
 * read one model's frequencies, such as yarn_theta, expect).
 */
static int write_wide(const struct cli_common *o, const char *path, const struct entry *e)
{
	struct cli_file file;
	int rc = cli_file_open(&file, path);
	if (rc)
		return rc;
	const struct pe_freq_table *t = e->t;
	fputs("pair,theta,wavelength", file.f);
	for (size_t k = 0; k < t->n_variants; k++) {
		const char *name = pe_rope_scaling_name(t->variants[k].type);
		fprintf(file.f, ",%s_theta,%s_ratio", name, name);
	}
	if (t->axes)
		fputs(",axis", file.f);
	fputc('\n', file.f);
	size_t pairs = t->values->rows, cols = t->values->cols;
	for (size_t i = 0; i < pairs; i++) {
		cli_csv_num(file.f, (double)i, 1);
		for (size_t c = 0; c < cols; c++)
			cli_csv_num(file.f, t->values->data[i * cols + c], 0);
		if (t->axes)
			cli_csv_text(file.f, axis_name(t, i), 0);
		fputc('\n', file.f);
	}
	rc = cli_file_commit(&file);
	if (!rc) {
		char what[64];
		snprintf(what, sizeof(what), "%zu x %zu table", pairs, cols + 1 + !!t->axes);
		cli_report_written(o, path, what);
	}
	return rc;
}

static int write_csv(const struct cli_common *o, const char *path, const struct entry *e,
                     size_t count)
{
	struct cli_file file;
	int rc = cli_file_open(&file, path);
	if (rc)
		return rc;
	/* The axis column only where it says something: the long table of
	 * sinusoidal and RoPE schemes keeps the 13 columns it always had. */
	int with_axis = 0;
	for (size_t i = 0; i < count; i++)
		with_axis |= e[i].t->axes != NULL;
	fprintf(file.f,
	        "model,group,d,d_rot,pair,theta,wavelength,scaling,factor,scaled_theta,"
	        "scaled_wavelength,ratio,regime%s\n",
	        with_axis ? ",axis" : "");
	size_t rows = 0;
	for (size_t i = 0; i < count; i++) {
		write_rows(file.f, &e[i], with_axis);
		rows += e[i].t->values->rows * (e[i].t->n_variants ? e[i].t->n_variants : 1);
	}
	rc = cli_file_commit(&file);
	if (!rc) {
		char what[96];
		snprintf(what, sizeof(what), "%zu x %d table, %zu scheme%s", rows,
		         with_axis ? 14 : 13, count, count == 1 ? "" : "s");
		cli_report_written(o, path, what);
	}
	return rc;
}

static int write_npy(const struct cli_common *o, const char *path, enum cli_format format,
                     const struct pe_freq_table *t)
{
	if (!t->axes)
		return cli_write_matrix(o, path, format, t->values, NULL, NULL);
	size_t pairs = t->values->rows, cols = t->values->cols;
	struct pe_matrix *m = pe_matrix_create(pairs, cols + 1);
	if (!m)
		return cli_error("the frequency table: out of memory");
	for (size_t i = 0; i < pairs; i++) {
		memcpy(m->data + i * (cols + 1), t->values->data + i * cols, cols * sizeof(double));
		m->data[i * (cols + 1) + cols] = (double)t->axes[i];
	}
	int rc = cli_write_matrix(o, path, format, m, NULL, NULL);
	pe_matrix_destroy(m);
	return rc;
}

/* The table of one scheme at its width; @train > 0: the training length to use. */
static int build(const struct cli_common *o, const struct pe_freqs_options *fo_in, struct entry *e)
{
	const struct pe_scheme *s = e->s;
	if (!pe_scheme_has(s, PE_CAP_FREQS))
		return cli_usage_error(
		        "scheme '%s' has no frequencies: freqs covers sinusoidal, rope, mrope "
		        "and xl",
		        s->canonical);
	/* At most 5 variants (plain rope: 4) of 2 columns next to theta and
	 * wavelength, one row per pair, and two work columns of d. */
	char what[96];
	snprintf(what, sizeof(what), "the frequency table of d=%zu", e->d);
	double bytes = ((double)e->d / 2.0 + 1.0) * 12.0 * 8.0 + 2.0 * (double)e->d * 8.0;
	int rc = cli_check_memory(o, bytes, what, "choose a smaller width (-d)");
	if (rc)
		return rc;
	struct pe_freqs_options fo = *fo_in;
	e->ctx = cli_contexts_of(s, &e->info, fo_in->train_length);
	fo.train_length = e->ctx.train;
	const char *why = NULL;
	enum pe_status st = pe_encode_check(s, e->d, PE_VIEW_DEFAULT, &why);
	if (st == PE_OK)
		st = pe_freq_table_create(s, e->d, &fo, &e->t);
	if (st == PE_ENOMEM)
		return cli_error("the frequency table: out of memory");
	if (st != PE_OK)
		return cli_usage_error(
		        "scheme '%s' with d=%zu: %s", s->canonical, e->d,
		        why ? why
		        : s->scaling.type == PE_ROPE_SCALING_LONGROPE
		                ? "longrope needs long-factor and short-factor lists of "
		                  "d_rot/2 positive numbers"
		                : pe_status_str(st));
	return 0;
}

int cmd_freqs(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"length", required_argument, NULL, OPT_LENGTH},
	        {"train-length", required_argument, NULL, OPT_TRAIN_LENGTH},
	        {"table", required_argument, NULL, OPT_TABLE},
	        {NULL, 0, NULL, 0},
	};
	struct cli_common o;
	struct freqs_own own = {{0, 0}, -1};
	int rc = cli_parse_args(argc, argv, &command,
	                        &(struct cli_own_options){opts, parse_own, &own}, &o);
	struct pe_freqs_options fo = own.fo;
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;

	struct pe_scheme **schemes;
	struct cli_model_info *info;
	size_t count;
	if ((rc = cli_schemes_models(&o, "rope", MAX_SCHEMES, &schemes, &count, &info)))
		return rc;
	struct entry e[MAX_SCHEMES];
	memset(e, 0, sizeof(e));
	char buf[64];
	const char *path = cli_output_path(&o, buf, sizeof(buf));
	enum cli_format format = CLI_FORMAT_CSV;
	rc = cli_output_format(&o, path, &format);
	if (!rc && cli_format_is_figure(format))
		rc = cli_figure_check_options(&o);
	if (!rc && own.table >= 0 && format != CLI_FORMAT_CSV)
		rc = cli_usage_error("option '--table' chooses the layout of a .csv table");
	if (!rc && own.table == 0 && count > 1)
		rc = cli_usage_error("--table wide holds the numbers of one scheme, %zu given: "
		                     "--table long puts them in one table",
		                     count);
	if (!rc && format == CLI_FORMAT_NPY && count > 1)
		rc = cli_usage_error(
		        "an .npy array holds the numbers of one scheme, %zu given: write "
		        "the long table of all of them as .csv",
		        count);
	double pairs = 0.0;
	for (size_t i = 0; i < count; i++)
		pairs += (double)cli_scheme_width(&o, schemes[i], 128) / 2.0;
	if (!rc) {
		char what[96];
		snprintf(what, sizeof(what), "the frequencies of %.15g pairs", pairs);
		rc = cli_check_time(&o,
		                    pairs * (cli_format_is_figure(format) ? CLI_COST_FREQS_FIGURE
		                                                          : CLI_COST_FREQS_PAIR),
		                    what, "choose a smaller width (-d)");
	}
	for (size_t i = 0; i < count && !rc; i++) {
		e[i].s = schemes[i];
		e[i].info = info[i];
		e[i].d = cli_scheme_width(&o, schemes[i], 128);
		rc = build(&o, &fo, &e[i]);
	}
	if (!rc && cli_format_is_figure(format)) {
		if (count == 1) {
			rc = draw(&o, e[0].s, e[0].d, e[0].t, path, format);
		} else {
			struct cli_wavelength_entry we[MAX_SCHEMES];
			for (size_t i = 0; i < count; i++)
				we[i] = (struct cli_wavelength_entry){cli_short_label(e[i].s),
				                                      e[i].d, e[i].t, e[i].ctx};
			rc = cli_wavelength_figure(&o, we, count, path, format);
		}
	} else if (!rc && format == CLI_FORMAT_NPY) {
		/* numbers only: theta, wavelength, then each variant's scaled theta and ratio;
		 * M-RoPE's axis as 0, 1, 2 last */
		rc = write_npy(&o, path, format, e[0].t);
	} else if (!rc && (own.table == 0 || (own.table < 0 && count == 1))) {
		rc = write_wide(&o, path, &e[0]);
	} else if (!rc) {
		rc = write_csv(&o, path, e, count);
	}
	for (size_t i = 0; i < count && !rc; i++)
		report(&o, e[i].s, e[i].t, count > 1);
	for (size_t i = 0; i < count; i++)
		pe_freq_table_destroy(e[i].t);
	free(info);
	cli_schemes_free(schemes, count);
	return rc;
}
