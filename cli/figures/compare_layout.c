/*
 * compare_layout.c - compare's --panels and --layout
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "figures/compare_layout.h"

static const char *const names[COMPARE_NPANELS] = {"encoding", "distance", "correlation", "scatter",
                                                   "decay"};

const char *compare_panel_name(enum compare_panel q)
{
	return q < COMPARE_NPANELS ? names[q] : "?";
}

static void set_order(struct compare_layout *l, const enum compare_panel *grid, unsigned count,
                      bool decay)
{
	for (int q = 0; q <= COMPARE_SCATTER; q++)
		l->index[q] = -1;
	l->count = count;
	for (unsigned k = 0; k < count; k++) {
		l->order[k] = grid[k];
		l->index[grid[k]] = (int)k;
	}
	l->decay = decay;
}

void compare_layout_init(struct compare_layout *l)
{
	memset(l, 0, sizeof(*l));
	const enum compare_panel all[] = {COMPARE_ENCODING, COMPARE_DISTANCE, COMPARE_CORRELATION,
	                                  COMPARE_SCATTER};
	set_order(l, all, 4, true);
}

int compare_layout_parse_panels(const char *arg, struct compare_layout *l)
{
	enum compare_panel grid[COMPARE_SCATTER + 1];
	unsigned count = 0;
	bool seen[COMPARE_NPANELS] = {false};
	const char *p = arg;
	for (;;) {
		size_t len = strcspn(p, ",");
		int q = -1;
		for (int k = 0; k < COMPARE_NPANELS; k++)
			if (strlen(names[k]) == len && strncmp(p, names[k], len) == 0)
				q = k;
		if (q < 0)
			return cli_usage_error(
			        "--panels: '%.*s' is not a panel (encoding, distance, "
			        "correlation, scatter, decay)",
			        (int)(len > 40 ? 40 : len), p);
		if (seen[q])
			return cli_usage_error("--panels: '%s' is given twice", names[q]);
		seen[q] = true;
		if (q != COMPARE_DECAY)
			grid[count++] = (enum compare_panel)q;
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	set_order(l, grid, count, seen[COMPARE_DECAY]);
	l->panels_given = true;
	return 0;
}

int compare_layout_parse_grid(const char *arg, struct compare_layout *l)
{
	char *end;
	unsigned long r = strtoul(arg, &end, 10);
	unsigned long c = 0;
	if (end != arg && (*end == 'x' || *end == 'X')) {
		const char *cs = end + 1;
		c = strtoul(cs, &end, 10);
		if (end == cs)
			c = 0;
	}
	if (*end != '\0' || r < 1 || c < 1 || r > 4 || c > 4 || arg[0] == '-' || arg[0] == '+')
		return cli_usage_error("--layout: '%s' is not ROWSxCOLUMNS of a scheme's panels "
		                       "(1x2, 2x2; 1 to 4 each)",
		                       arg);
	l->rows = (unsigned)r;
	l->cols = (unsigned)c;
	l->given = true;
	return 0;
}

int compare_layout_fit(struct compare_layout *l, bool narrow)
{
	if (l->given) {
		if (l->count == 0)
			return cli_usage_error("--layout arranges the heatmap and scatter panels: "
			                       "--panels chose none");
		if (l->rows * l->cols < l->count)
			return cli_usage_error(
			        "--layout %ux%u has room for %u panels, not the %u of "
			        "--panels",
			        l->rows, l->cols, l->rows * l->cols, l->count);
		if ((l->rows - 1) * l->cols >= l->count)
			return cli_usage_error("--layout %ux%u leaves a row empty for %u panels",
			                       l->rows, l->cols, l->count);
		return 0;
	}
	if (narrow && l->count > 2) {
		l->cols = 2;
		l->rows = (l->count + 1) / 2;
	} else {
		l->rows = l->count ? 1 : 0;
		l->cols = l->count;
	}
	return 0;
}

unsigned compare_layout_fig_rows(const struct compare_layout *l, size_t schemes)
{
	return l->count ? l->rows * (unsigned)schemes : 1;
}

unsigned compare_layout_fig_cols(const struct compare_layout *l)
{
	return l->count ? l->cols : 1;
}

bool compare_layout_slot(const struct compare_layout *l, size_t i, enum compare_panel q,
                         unsigned *row, unsigned *col)
{
	if (q > COMPARE_SCATTER || l->index[q] < 0)
		return false;
	unsigned k = (unsigned)l->index[q];
	*row = (unsigned)i * l->rows + k / l->cols;
	*col = k % l->cols;
	return true;
}
