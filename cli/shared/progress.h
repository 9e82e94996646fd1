/*
 * cli/shared/progress.h - "posenc: writing x.csv: 42%" on a terminal
 *
 * For jobs that may take more than a second (large CSV and NPY matrices):
 * shown on stderr only when it is a terminal and -q was not given, and only
 * once the job has run for a second, so quick runs and scripts see nothing.
 * The line is redrawn in place (at most ten times a second) and erased at
 * the end.
 */
#ifndef POSENC_CLI_PROGRESS_H
#define POSENC_CLI_PROGRESS_H

#include <stddef.h>

#include "shared/options.h"

struct cli_progress {
	int on;       /* a terminal and not -q */
	int shown;    /* something is on the line */
	double start; /* seconds, monotonic */
	double last;  /* last redraw */
	size_t total;
	const char *what;
};

/* Start counting to @total steps of @what (kept by the caller). */
void cli_progress_start(struct cli_progress *p, const struct cli_common *o, const char *what,
                        size_t total);
/* @done of the total steps are done. */
void cli_progress_update(struct cli_progress *p, size_t done);
/* Erase the line, if one was drawn. */
void cli_progress_end(struct cli_progress *p);

#endif
