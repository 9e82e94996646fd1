#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "shared/progress.h"

#define SHOW_AFTER   1.0 /* seconds before anything is shown */
#define REDRAW_EVERY 0.1

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_progress_start(struct cli_progress *p, const struct cli_common *o, const char *what,
                        size_t total)
{
	p->on = !o->quiet && isatty(STDERR_FILENO);
	p->shown = 0;
	p->start = p->on ? now() : 0;
	p->last = 0;
	p->total = total ? total : 1;
	p->what = what;
}

void cli_progress_update(struct cli_progress *p, size_t done)
{
	if (!p->on)
		return;
	double t = now();
	if (t - p->start < SHOW_AFTER || t - p->last < REDRAW_EVERY)
		return;
	p->last = t;
	p->shown = 1;
	fputc('\r', stderr);
	/* the path or label in it is text from the user or a file */
	cli_eprintf("posenc: %s: %3.0f%%", p->what, 100.0 * (double)done / (double)p->total);
	fflush(stderr);
}

void cli_progress_end(struct cli_progress *p)
{
	if (p->shown) {
		/* Erase the line: what follows (the "wrote" line, an error) starts clean. */
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->shown = 0;
	p->on = 0;
}
