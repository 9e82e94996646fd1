/* Wavelength per pair of several schemes on shared axes, then one panel each. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "figures/figure.h"
#include "figures/wavelength_figure.h"
#include "shared/vectors.h"

#define TWO_PI 6.283185307179586476925

void cli_freq_variant_name(const struct pe_freq_variant *v, char *buf, size_t cap)
{
	const char *name = pe_rope_scaling_name(v->type);
	if (v->type == PE_ROPE_SCALING_LONGROPE)
		snprintf(buf, cap, "%s (%s factors)", name,
		         v->length > v->original ? "long" : "short");
	else if (v->type == PE_ROPE_SCALING_DYNAMIC)
		snprintf(buf, cap, "%s \xc3\x97%g at length %.10g", name, v->factor, v->length);
	else
		snprintf(buf, cap, "%s \xc3\x97%g", name, v->factor);
}

/* Whether @t's first variant is the scheme's own scaling (a plain rope's variants
 * only illustrate what it could take: its own wavelengths are the unscaled ones). */
static int has_own_scaling(const struct pe_freq_table *t)
{
	return t->n_variants && !t->illustrative;
}

/* Unscaled (k = 0) or scaled (its own scaling) wavelengths of @t into @wl. */
static void wavelengths(const struct pe_freq_table *t, int scaled, double *wl)
{
	size_t cols = t->values->cols;
	for (size_t i = 0; i < t->values->rows; i++) {
		const double *row = t->values->data + i * cols;
		double theta = scaled && has_own_scaling(t) ? row[2] : row[0];
		/* a pair at frequency 0 never turns: no wavelength to draw */
		wl[i] = theta > 0 ? TWO_PI / theta : NAN;
	}
}

static int scaled_differs(const struct pe_freq_table *t)
{
	for (size_t i = 0; has_own_scaling(t) && i < t->values->rows; i++)
		if (t->values->data[i * t->values->cols + 3] != 1.0)
			return 1;
	return 0;
}

enum pe_status cli_wavelength_axes(struct pe_panel *p, const struct pe_freq_table *t,
                                   const double *wl, double *xy, char (*names)[48])
{
	static const char *const words[3] = {"t: temporal", "h: height", "w: width"};
	size_t pairs = t->values->rows, used = 0;
	enum pe_status st = PE_OK;
	for (int a = 0; a < 3 && st == PE_OK; a++) {
		size_t n = 0;
		for (size_t i = 0; i < pairs; i++)
			n += t->axes[i] == a;
		if (n == 0)
			continue;
		double *x = xy + 2 * used, *y = x + n;
		for (size_t i = 0, k = 0; i < pairs; i++)
			if (t->axes[i] == a) {
				x[k] = (double)i;
				y[k++] = wl[i];
			}
		snprintf(names[a], sizeof(names[a]), "%s id (%zu)", words[a], n);
		st = pe_panel_add_scatter(p, names[a], x, y, n);
		used += n;
	}
	return st;
}

int cli_wavelength_figure(const struct cli_common *o, const struct cli_wavelength_entry *e,
                          size_t n, const char *path, enum cli_format format)
{
	size_t total = 0, maxpairs = 0;
	for (size_t i = 0; i < n; i++) {
		size_t p = e[i].t->values->rows;
		total += p;
		maxpairs = p > maxpairs ? p : maxpairs;
	}
	struct pe_figure *fig = pe_figure_create((unsigned)(n + 1), 1);
	/* per entry: x, unscaled and scaled wavelengths, then M-RoPE's x and y per axis */
	double *buf = malloc((5 * total + 1) * sizeof(*buf));
	char(*names)[160] = calloc(n, sizeof(*names));
	char(*axis_names)[3][48] = calloc(n, sizeof(*axis_names));
	char(*scaled_names)[96] = calloc(n, sizeof(*scaled_names));
	if (!fig || !buf || !names || !axis_names || !scaled_names) {
		pe_figure_destroy(fig);
		free(buf);
		free(names);
		free(axis_names);
		free(scaled_names);
		return cli_error("the wavelength figure: out of memory");
	}
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_CURVES);
	char widths[96] = "";
	int mixed = 0;
	for (size_t i = 0; i < n; i++) {
		cli_width_list_add(widths, sizeof(widths), e[i].d);
		mixed |= e[i].d != e[0].d;
	}
	double lo = INFINITY, hi = 0;
	enum pe_status st = PE_OK;
	struct pe_panel *top = pe_figure_panel(fig, 0, 0);
	double *at = buf;
	for (size_t i = 0; i < n && st == PE_OK; i++) {
		const struct cli_wavelength_entry *w = &e[i];
		size_t pairs = w->t->values->rows;
		double *x = at, *wu = at + pairs, *ws = at + 2 * pairs, *xy = at + 3 * pairs;
		at += 5 * pairs;
		for (size_t k = 0; k < pairs; k++)
			x[k] = (double)k;
		wavelengths(w->t, 0, wu);
		wavelengths(w->t, 1, ws);
		for (size_t k = 0; k < pairs; k++)
			for (int s = 0; s < 2; s++) {
				double v = s ? ws[k] : wu[k];
				if (isfinite(v))
					lo = fmin(lo, v), hi = fmax(hi, v);
			}
		cli_width_label(w->label, w->d, mixed, names[i], sizeof(names[i]));
		if (!mixed)
			snprintf(names[i], sizeof(names[i]), "%s", w->label);
		st = pe_panel_add_line(top, names[i], x, ws, pairs);
		struct pe_panel *p = pe_figure_panel(fig, (unsigned)(i + 1), 0);
		int differs = scaled_differs(w->t);
		if (st == PE_OK && w->t->axes)
			st = cli_wavelength_axes(p, w->t, wu, xy, axis_names[i]);
		else if (st == PE_OK)
			st = pe_panel_add_line(p, differs ? "unscaled" : "no scaling", x, wu,
			                       pairs);
		/* the scaling by name: "scaled" alone hid which state a panel draws (Phi-3's
		 * short factors under its extended context, where it uses the long ones) */
		if (st == PE_OK && differs) {
			cli_freq_variant_name(&w->t->variants[0], scaled_names[i],
			                      sizeof(scaled_names[i]));
			st = pe_panel_add_line(p, scaled_names[i], x, ws, pairs);
		}
		char text[96];
		if (st == PE_OK && w->ctx.train > 0) {
			snprintf(text, sizeof(text), "%s %.17g",
			         w->ctx.train == w->ctx.effective ? "context" : "training",
			         w->ctx.train);
			st = pe_panel_add_hline(p, w->ctx.train, text);
		}
		if (st == PE_OK && w->ctx.effective > 0 && w->ctx.effective != w->ctx.train) {
			snprintf(text, sizeof(text), "extended %.17g", w->ctx.effective);
			st = pe_panel_add_hline(p, w->ctx.effective, text);
		}
		if (st == PE_OK && w->t->has_critical_dim && w->t->critical_dim / 2 < pairs) {
			snprintf(text, sizeof(text), "critical pair %zu", w->t->critical_dim / 2);
			st = pe_panel_add_vline(p, (double)(w->t->critical_dim / 2), text);
		}
		if (st == PE_OK)
			st = pe_panel_set_title(p, names[i]);
		if (st == PE_OK)
			st = pe_panel_set_ylabel(p, "wavelength");
	}
	/* every panel on the same axes, the contexts inside them */
	for (size_t i = 0; i < n; i++)
		if (e[i].ctx.effective > 0)
			hi = fmax(hi, e[i].ctx.effective);
	for (unsigned r = 0; r <= n && st == PE_OK && lo < hi; r++) {
		struct pe_panel *p = pe_figure_panel(fig, r, 0);
		pe_panel_set_log(p, false, true);
		pe_panel_set_integer_ticks(p, true, false);
		st = pe_panel_set_ylim(p, lo / 1.5, hi * 1.5);
		if (st == PE_OK)
			st = pe_panel_set_xlim(p, -0.5, (double)maxpairs - 0.5);
		if (st == PE_OK && (r == 0 || r == n))
			st = pe_panel_set_xlabel(p, "pair index i");
	}
	if (st == PE_OK)
		st = pe_panel_set_title(
		        top, "wavelength 2\xcf\x80/\xce\xb8 per pair, as each scheme scales it "
		             "(positions)");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(top, "wavelength");
	char title[160];
	snprintf(title, sizeof(title), "wavelength per pair, d=%s", widths);
	if (st == PE_OK)
		st = pe_figure_set_title(fig, title);
	int rc;
	if (st != PE_OK) {
		rc = cli_figure_error(st);
	} else {
		char what[64];
		snprintf(what, sizeof(what), "wavelengths of %zu schemes", n);
		rc = cli_figure_write(o, path, format, fig, what);
	}
	pe_figure_destroy(fig);
	free(buf);
	free(names);
	free(axis_names);
	free(scaled_names);
	return rc;
}
