/*
 * cli/figures/wavelength_figure.h - wavelength per pair of several schemes
 *
 * What a long-context review asks of several models at once: their
 * wavelengths on shared axes (top panel), then one panel each, on the same
 * axes, with its unscaled and scaled wavelengths, its training and
 * extended context and its critical pair marked (only those it states).
 */
#ifndef POSENC_CLI_WAVELENGTH_FIGURE_H
#define POSENC_CLI_WAVELENGTH_FIGURE_H

#include <posenc/freqs.h>

#include "shared/contexts.h"
#include "shared/options.h"
#include "shared/output.h"

struct pe_panel;

struct cli_wavelength_entry {
	const char *label;             /* the model or scheme */
	size_t d;                      /* its head width */
	const struct pe_freq_table *t; /* its frequencies (first variant = its scaling) */
	struct cli_contexts ctx;       /* its training and extended context */
};

/*
 * cli_freq_variant_name() - a scaling variant's legend text into @buf: its
 * name and factor, with what its frequencies depend on (LongRoPE's short or
 * long factors, dynamic NTK's length), "longrope (short factors)"
 */
void cli_freq_variant_name(const struct pe_freq_variant *v, char *buf, size_t cap);

/*
 * cli_wavelength_figure() - draw @n entries to @path
 *
 * @return 0 or an exit code after reporting.
 */
int cli_wavelength_figure(const struct cli_common *o, const struct cli_wavelength_entry *e,
                          size_t n, const char *path, enum cli_format format);

/*
 * cli_wavelength_axes() - an M-RoPE table's wavelengths @wl (one per pair) as
 * markers, one series and colour per position axis (t->axes), named in @names
 *
 * Markers, not lines: interleaved axes (Qwen3-VL) alternate pair by pair.
 * @xy: room for 2 * pairs, borrowed by the panel until the figure is written.
 */
enum pe_status cli_wavelength_axes(struct pe_panel *p, const struct pe_freq_table *t,
                                   const double *wl, double *xy, char (*names)[48]);

#endif
