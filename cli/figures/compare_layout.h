/*
 * cli/figures/compare_layout.h - which panels compare draws for each scheme, and where
 *
 * compare --panels encoding,distance draws the chosen panels in the order
 * given; --layout RxC arranges one scheme's grid panels in R rows of C
 * (schemes below each other). The decay curves, when chosen, are the
 * full-width panel under the grid (all schemes in one panel).
 */
#ifndef POSENC_CLI_COMPARE_LAYOUT_H
#define POSENC_CLI_COMPARE_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

/* The quantities compare can draw; the first four are grid panels. */
enum compare_panel {
	COMPARE_ENCODING,
	COMPARE_DISTANCE,
	COMPARE_CORRELATION,
	COMPARE_SCATTER,
	COMPARE_DECAY,
	COMPARE_NPANELS
};

struct compare_layout {
	/* Grid panels in the order drawn, and where each quantity is in that order (-1: not drawn).
	 */
	enum compare_panel order[COMPARE_SCATTER + 1];
	unsigned count;
	int index[COMPARE_SCATTER + 1];
	bool decay;
	/* A scheme's panels: rows x cols (0 x 0 until compare_layout_fit()). */
	unsigned rows, cols;
	bool given;        /* --layout was given */
	bool panels_given; /* --panels was given */
};

/* Every panel, the default; the arrangement left to compare_layout_fit(). */
void compare_layout_init(struct compare_layout *l);

/*
 * compare_layout_parse_panels() - --panels LIST: names from encoding, distance,
 * correlation, scatter, decay (each at most once), comma-separated.
 * @return 0 or CLI_USAGE after reporting.
 */
int compare_layout_parse_panels(const char *arg, struct compare_layout *l);

/* --layout RxC (e.g. 1x2). @return 0 or CLI_USAGE after reporting. */
int compare_layout_parse_grid(const char *arg, struct compare_layout *l);

/*
 * compare_layout_fit() - the arrangement: --layout when given (checked
 * against the panels chosen), else one row, or rows of two for a figure
 * narrower than 6 in (@narrow) with more than two panels.
 * @return 0 or CLI_USAGE after reporting.
 */
int compare_layout_fit(struct compare_layout *l, bool narrow);

/* The figure's rows and columns for @schemes schemes (a decay-only figure: 1 x 1). */
unsigned compare_layout_fig_rows(const struct compare_layout *l, size_t schemes);
unsigned compare_layout_fig_cols(const struct compare_layout *l);

/* Where quantity @q of scheme @i goes (false: not drawn). */
bool compare_layout_slot(const struct compare_layout *l, size_t i, enum compare_panel q,
                         unsigned *row, unsigned *col);

/* The name --panels knows @q by. */
const char *compare_panel_name(enum compare_panel q);

#endif
