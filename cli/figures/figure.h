/*
 * cli/figures/figure.h - figure output shared by every command
 *
 * Commands describe a figure with the plots API (posenc/figure.h); these
 * helpers apply the common options (--cmap, --vmin/--vmax, --title,
 * --width/--height) and write it atomically to the output path.
 */
#ifndef POSENC_CLI_FIGURE_H
#define POSENC_CLI_FIGURE_H

#include <stdbool.h>

#include <posenc/figure.h>
#include <posenc/matrix.h>
#include <posenc/pairwise.h>
#include <posenc/scheme.h>

#include "shared/options.h"
#include "shared/output.h"

/*
 * cli_figure_check_options() - validate --cmap and --vmin/--vmax early,
 * before any work. @return 0 or CLI_USAGE after reporting.
 */
int cli_figure_check_options(const struct cli_common *o);

/* --cmap, --vmin, --vmax onto a heatmap spec (after its defaults). */
void cli_heatmap_apply(const struct cli_common *o, struct pe_heatmap_spec *spec);

/* PNG pixels per inch: --dpi, else the --style's (300 paper, 150 slides, 100). */
double cli_figure_dpi(const struct cli_common *o);
/* Label size in points: --font-size, else the --style's (9 paper, 14 slides; 0 automatic). */
double cli_figure_font_size(const struct cli_common *o);
/* Whether --width, --height or --size was given. */
bool cli_figure_size_given(const struct cli_common *o);
/*
 * cli_figure_size_pt() - the figure size asked for, in points; 0 for a side
 * left to the figure's aspect (both 0: the default size). @grid: a figure
 * of several panels (--style paper makes it two columns wide).
 */
void cli_figure_size_pt(const struct cli_common *o, bool grid, double *width, double *height);
/* About how many pixels a single-panel figure gets (memory and grid estimates). */
void cli_figure_pixels(const struct cli_common *o, double *width, double *height);
/* --dpi and --font-size onto a figure; @return 0 or an exit code. */
int cli_figure_apply(const struct cli_common *o, struct pe_figure *fig);

/* --scale of compare and report: how heatmaps of one quantity share colours. */
enum cli_scale {
	CLI_SCALE_AUTO,   /* shared, unless that would flatten a scheme (see below) */
	CLI_SCALE_SHARED, /* one scale for every scheme */
	CLI_SCALE_PANEL,  /* each panel its own scale and colorbar */
};

/* Parses auto|shared|panel; @return 0 or CLI_USAGE after reporting. */
int cli_parse_scale(const char *arg, enum cli_scale *out);

/*
 * cli_scale_shared() - whether @count matrices (NULL entries skipped) get
 * one colour scale: SHARED yes, PANEL no; AUTO yes unless the smallest
 * value range is under a quarter of the largest, where a shared scale
 * would draw the narrow one as one flat colour (a learned table with
 * std 0.02 beside sinusoidal: distances of 0.4 against 12).
 */
bool cli_scale_shared(enum cli_scale scale, const struct pe_matrix *const *m, size_t count);

/*
 * cli_short_label() - a scheme's name for a figure: its label, but a file
 * table without label= is named by its file name ("file table.npy"), not
 * its whole path. Borrowed from the scheme, or one of four static buffers
 * reused in turn: copy it (the figure API does) before the fifth call.
 */
const char *cli_short_label(const struct pe_scheme *s);

/*
 * cli_scale_note() - the figure note saying how colour scales are shared:
 * @shared[c] for the quantities @names[c] (c < @count); "" when only one
 * scheme is drawn (@several false) or no quantity has a colour scale.
 */
void cli_scale_note(const bool *shared, const char *const *names, size_t count, bool several,
                    char *buf, size_t cap);

/*
 * cli_sampled_note() - "Sampled: each cell is the mean of 16 of its pairs
 * (4 positions a side), not of all." into buf, for a sampled grid's figure.
 */
const char *cli_sampled_note(const struct pe_grid_info *info, char *buf, size_t cap);

/*
 * cli_decay_relative() - whether decay curves are drawn relative to their
 * value at offset 0: with --scale auto, when the smallest |value at 0| is
 * under a quarter of the largest (the rule of cli_scale_shared()), where
 * one curve would be a flat line beside the others.
 */
bool cli_decay_relative(enum cli_scale scale, const double *const *curves, size_t count);

/*
 * Decay curves over this many offsets or more go on a log offset axis
 * (decay, compare's decay panel, report): on a linear one the first few
 * dozen offsets, where RoPE's and ALiBi's curves differ most, are one
 * pixel wide. Offset 0 drops out of a log axis; the figures say so.
 */
#define CLI_LOG_OFFSETS 4096

/*
 * cli_figure_grid_cells() - how many cells a heatmap of n positions needs
 * to look exact at the figure's size: n, or about the pixel count across.
 */
size_t cli_figure_grid_cells(const struct cli_common *o, size_t n);

/*
 * zlib levels of PNG figures, by what they show (doc/conventions.md,
 * "PNG deflate level"): for heatmaps the lowest level whose file stays
 * within about a tenth of level 6's; for line figures, small files mostly
 * white, a fast level (lazy matching spends most of its time on the white).
 */
#define CLI_PNG_LEVEL_ENCODE   2
#define CLI_PNG_LEVEL_PAIRWISE 5
#define CLI_PNG_LEVEL_CURVES   2
#define CLI_PNG_LEVEL_SCATTER  2
#define CLI_PNG_LEVEL_COMPARE  3

/*
 * A heatmap of a pairwise metric computed when the figure knows its pixels
 * (pe_grid_fn: pe_pairwise_grid() at the size asked for), for sets whose
 * grid is exact at any size (pe_pairwise_grid_exact()).
 */
struct cli_pairwise_grid {
	const struct pe_vectors *v;
	enum pe_metric m;
};
enum pe_status cli_pairwise_grid_fn(void *ctx, size_t rows, size_t cols, struct pe_matrix **out);

/*
 * cli_figure_write() - write @fig to @path (PNG, SVG or PDF), with the
 * title from --title when given, and report "wrote PATH (@what)".
 * @return an exit code.
 */
int cli_figure_write(const struct cli_common *o, const char *path, enum cli_format format,
                     struct pe_figure *fig, const char *what);
/* What to offer beside a larger size when a figure does not fit ("--layout 2x2"), or NULL. */
typedef const char *cli_hint_fn(void *ctx);
/* cli_figure_write(), and when the canvas is too small, what @hint (if any) offers. */
int cli_figure_write_hint(const struct cli_common *o, const char *path, enum cli_format format,
                          struct pe_figure *fig, const char *what, cli_hint_fn *hint, void *ctx);
/* Whether @fig draws at the size and in the format the options ask for (nothing written). */
bool cli_figure_fits(const struct cli_common *o, enum cli_format format, struct pe_figure *fig);

/*
 * cli_figure_error() - report a figure-building status ("drawing the
 * figure failed: ..."). @return the exit code.
 */
int cli_figure_error(enum pe_status st);
/* cli_figure_error(), with @hint (or NULL) beside "give a larger --width/--height". */
int cli_figure_error_hint(enum pe_status st, const char *hint);

/*
 * cli_scheme_title() - "sinusoidal base=10 (d=64, positions 0..127)" style
 * text into buf.
 */
const char *cli_scheme_title(const char *label, size_t d, unsigned long long first, size_t n,
                             char *buf, size_t cap);

#endif
