/*
 * cli/figure.h - figure output shared by every command
 *
 * Commands describe a figure with the plots API (posenc/figure.h); these
 * helpers apply the common options (--cmap, --vmin/--vmax, --title,
 * --width/--height) and write it atomically to the output path.
 */
#ifndef POSENC_CLI_FIGURE_H
#define POSENC_CLI_FIGURE_H

#include <posenc/figure.h>

#include "options.h"
#include "output.h"

/*
 * cli_figure_check_options() - validate --cmap and --vmin/--vmax early,
 * before any work. @return 0 or CLI_USAGE after reporting.
 */
int cli_figure_check_options(const struct cli_common *o);

/* --cmap, --vmin, --vmax onto a heatmap spec (after its defaults). */
void cli_heatmap_apply(const struct cli_common *o, struct pe_heatmap_spec *spec);

/*
 * cli_figure_grid_cells() - how many cells a heatmap of n positions needs
 * to look exact at the figure's size: n, or about the pixel count across.
 */
size_t cli_figure_grid_cells(const struct cli_common *o, size_t n);

/*
 * cli_figure_write() - write @fig to @path (PNG, SVG or PDF), with the
 * title from --title when given, and report "wrote PATH (@what)".
 * @return an exit code.
 */
int cli_figure_write(const struct cli_common *o, const char *path, enum cli_format format,
                     struct pe_figure *fig, const char *what);

/*
 * cli_figure_error() - report a figure-building status ("drawing the
 * figure failed: ..."). @return the exit code.
 */
int cli_figure_error(enum pe_status st);

/*
 * cli_scheme_title() - "sinusoidal base=10 (d=64, positions 0..127)" style
 * text into buf.
 */
const char *cli_scheme_title(const char *label, size_t d, unsigned long long first, size_t n,
                             char *buf, size_t cap);

#endif
