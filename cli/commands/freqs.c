/* posenc freqs: per-pair frequencies and wavelengths, RoPE scalings side by side. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/encode.h>
#include <posenc/freqs.h>

#include "cli.h"
#include "commands.h"
#include "figures/figure.h"
#include "shared/output.h"
#include "shared/vectors.h"

enum { OPT_LENGTH = CLI_OPT_COMMAND, OPT_TRAIN_LENGTH };

static const char help[] =
        "Usage: posenc freqs [-s SPEC] [-d D] [--length L] [--train-length T] [-o FILE]\n"
        "\n"
        "One row per (sin, cos) pair i (column 'pair'): theta (unscaled angular frequency),\n"
        "wavelength (2 pi / theta), then per RoPE scaling variant NAME_theta (scaled) and\n"
        "NAME_ratio (scaled / unscaled), as Hugging Face modeling_rope_utils computes them.\n"
        "Variants: a rope spec with scaling=X shows that scaling with its keys; plain rope\n"
        "shows linear, dynamic and yarn (factor 4, original 4096) and llama3 (factor 8,\n"
        "low 1, high 4, original 8192); longrope needs its factor lists in the spec.\n"
        "Sinusoidal tables have theta and wavelength only. On stderr: each variant's\n"
        "attention factor (and effective base, YaRN's low/high) and the critical dimension\n"
        "2 ceil((d/2) log_base(T/2pi)) of Liu et al. for the training length T.\n"
        "Figure (.png .svg .pdf): the wavelength per pair on a log axis, unscaled and per\n"
        "variant, with the training length, the critical pair and YaRN's low and high pairs\n"
        "marked; below, each variant's frequency over the unscaled one.\n"
        "\n"
        "Options:\n"
        "      --length L         sequence length for dynamic and longrope [default: the\n"
        "                         spec's length=, else factor x original (the extended\n"
        "                         context, as posenc model); 16384 for the default dynamic\n"
        "                         variant]\n"
        "      --train-length T   training length of the critical dimension [default: a\n"
        "                         model's training context, the scaling's original, 4096]\n"
        "%s"
        "\n"
        "Defaults: -s rope -d 128 -o freqs.png\n"
        "Example: posenc freqs -s rope:base=500000,scaling=llama3 -o llama31.csv\n";

static void report(const struct cli_common *o, const struct pe_scheme *s,
                   const struct pe_freq_table *t)
{
	for (size_t k = 0; k < t->n_variants; k++) {
		const struct pe_freq_variant *v = &t->variants[k];
		double a = v->info.attention_factor;
		char extra[96] = "";
		if (v->type == PE_ROPE_SCALING_DYNAMIC)
			snprintf(extra, sizeof(extra), ", effective base %.10g at length %g",
			         v->info.base, v->length);
		if (v->type == PE_ROPE_SCALING_LONGROPE)
			snprintf(extra, sizeof(extra), ", %s factors at length %g",
			         v->length > v->original ? "long" : "short", v->length);
		if (v->type == PE_ROPE_SCALING_YARN)
			snprintf(extra, sizeof(extra), ", low %g, high %g", v->info.yarn_low,
			         v->info.yarn_high);
		cli_note(o->quiet,
		         "%s: factor %g, original %g: attention factor %.8g (logits x%.8g)%s",
		         pe_rope_scaling_name(v->type), v->factor, v->original, a, a * a, extra);
	}
	if (t->has_critical_dim)
		cli_note(o->quiet, "%s: critical dimension %zu of %zu for training length %g",
		         s->label, t->critical_dim, t->d_pairs, t->train_length);
}

#define MAX_VLINES 3
#define TWO_PI     6.283185307179586476925

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

static void variant_name(const struct pe_freq_variant *v, char *buf, size_t cap)
{
	const char *name = pe_rope_scaling_name(v->type);
	if (v->type == PE_ROPE_SCALING_LONGROPE)
		snprintf(buf, cap, "%s (%s factors)", name,
		         v->length > v->original ? "long" : "short");
	else if (v->type == PE_ROPE_SCALING_DYNAMIC)
		snprintf(buf, cap, "%s \xc3\x97%g at length %g", name, v->factor, v->length);
	else
		snprintf(buf, cap, "%s \xc3\x97%g", name, v->factor);
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
	/* x, then per curve (unscaled and each variant) its wavelength and its ratio */
	double *buf = malloc(pairs * (1 + 2 * (nv + 1)) * sizeof(*buf));
	char(*names)[64] = calloc(nv + 1, sizeof(*names));
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
			variant_name(&t->variants[k - 1], names[k], sizeof(names[k]));
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
		snprintf(text, sizeof(text), "training length %g", t->train_length);
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
	snprintf(title, sizeof(title), "%s (d=%zu): wavelength per pair", s->label, d);
	if (st == PE_OK)
		st = pe_figure_set_title(fig, title);
	int rc;
	if (st != PE_OK) {
		rc = cli_figure_error(st);
	} else {
		snprintf(text, sizeof(text), "%zu pair%s, %zu scaling variant%s", pairs,
		         pairs == 1 ? "" : "s", nv, nv == 1 ? "" : "s");
		rc = cli_figure_write(o, path, format, fig, text);
	}
	pe_figure_destroy(fig);
	free(buf);
	free(names);
	return rc;
}

static int parse_own(void *ctx, int opt, const char *arg)
{
	struct pe_freqs_options *fo = ctx;
	const char *name = opt == OPT_LENGTH ? "--length" : "--train-length";
	double *dst = opt == OPT_LENGTH ? &fo->length : &fo->train_length;
	int rc = cli_parse_double(name, arg, dst);
	if (!rc && *dst <= 0)
		rc = cli_usage_error("option '%s': %s must be > 0", name, arg);
	return rc;
}

int cmd_freqs(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"length", required_argument, NULL, OPT_LENGTH},
	        {"train-length", required_argument, NULL, OPT_TRAIN_LENGTH},
	        {NULL, 0, NULL, 0},
	};
	struct cli_common o;
	struct pe_freqs_options fo = {0, 0};
	int rc = cli_parse_args(argc, argv, help, &(struct cli_own_options){opts, parse_own, &fo},
	                        &o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;
	if (!fo.train_length && o.model_train > 0)
		fo.train_length = o.model_train; /* a model's own training context */
	if (o.n || o.start)
		return cli_usage_error("options '-n' and '--start' do not apply to a frequency "
		                       "table (its rows are pairs)");

	struct pe_scheme **schemes;
	size_t count;
	if ((rc = cli_schemes(&o, "rope", 1, &schemes, &count)))
		return rc;
	const struct pe_scheme *s = schemes[0];
	size_t d = cli_scheme_width(&o, s, 128);
	char buf[64];
	const char *path = cli_output_path(&o, buf, sizeof(buf));
	enum cli_format format;
	struct pe_freq_table *t = NULL;
	if (!pe_scheme_has(s, PE_CAP_FREQS))
		rc = cli_usage_error("scheme '%s' has no frequencies: freqs covers sinusoidal and "
		                     "rope",
		                     s->canonical);
	if (!rc)
		rc = cli_output_format(&o, path, &format);
	if (!rc && cli_format_is_figure(format)) {
		if (o.raw)
			rc = cli_usage_error("option '--raw': freqs draws curves, not a heatmap");
		else
			rc = cli_figure_check_options(&o);
	}
	if (!rc) {
		/* At most 5 variants (plain rope: 4) of 2 columns next to theta and
		 * wavelength, one row per pair, and two work columns of d. */
		char what[96];
		snprintf(what, sizeof(what), "the frequency table of d=%zu", d);
		double bytes = ((double)d / 2.0 + 1.0) * 12.0 * 8.0 + 2.0 * (double)d * 8.0;
		rc = cli_check_memory(&o, bytes, what, "choose a smaller width (-d)");
	}
	if (!rc) {
		const char *why = NULL;
		enum pe_status st = pe_encode_check(s, d, PE_VIEW_DEFAULT, &why);
		if (st == PE_OK)
			st = pe_freq_table_create(s, d, &fo, &t);
		if (st == PE_ENOMEM)
			rc = cli_error("the frequency table: out of memory");
		else if (st != PE_OK)
			rc = cli_usage_error(
			        "scheme '%s' with d=%zu: %s", s->canonical, d,
			        why ? why
			        : s->scaling.type == PE_ROPE_SCALING_LONGROPE
			                ? "longrope needs long-factor and short-factor lists of "
			                  "d_rot/2 positive numbers"
			                : pe_status_str(st));
	}
	if (!rc && cli_format_is_figure(format)) {
		rc = draw(&o, s, d, t, path, format);
		if (!rc)
			report(&o, s, t);
	} else if (!rc) {
		struct pe_axis rows = {"pair", 0.0, 1.0, NULL};
		struct pe_axis cols = {NULL, 0.0, 1.0, t->columns};
		rc = cli_write_matrix(&o, path, format, t->values, &rows, &cols);
		if (!rc)
			report(&o, s, t);
	}
	pe_freq_table_destroy(t);
	cli_schemes_free(schemes, count);
	return rc;
}
