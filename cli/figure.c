#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <posenc/colormap.h>

#include "cli.h"
#include "figure.h"

int cli_figure_check_options(const struct cli_common *o)
{
	if (o->cmap && !pe_colormap_find(o->cmap)) {
		char names[512] = "";
		size_t len = 0;
		for (const char *const *n = pe_colormap_names(); *n && len < sizeof(names) - 40;
		     n++)
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
			                        len ? ", " : "", *n);
		return cli_usage_error("option '--cmap': unknown colormap '%s' (known: %s)",
		                       o->cmap, names);
	}
	if (!isnan(o->vmin) && !isnan(o->vmax) && o->vmin >= o->vmax)
		return cli_usage_error(
		        "options '--vmin %g' and '--vmax %g': vmin must be below vmax", o->vmin,
		        o->vmax);
	return 0;
}

void cli_heatmap_apply(const struct cli_common *o, struct pe_heatmap_spec *spec)
{
	if (o->cmap)
		spec->colormap = o->cmap;
	if (!isnan(o->vmin))
		spec->vmin = o->vmin;
	if (!isnan(o->vmax))
		spec->vmax = o->vmax;
}

size_t cli_figure_grid_cells(const struct cli_common *o, size_t n)
{
	/* Twice the larger side: the engine's area-averaging does the rest. */
	size_t w = o->width ? o->width : PE_FIGURE_DEFAULT_WIDTH;
	size_t h = o->height ? o->height : PE_FIGURE_DEFAULT_HEIGHT;
	size_t cells = 2 * (w > h ? w : h);
	return n < cells ? n : cells;
}

int cli_figure_error(enum pe_status st)
{
	if (st == PE_ENOMEM)
		return cli_error("drawing the figure failed: out of memory");
	if (st == PE_ERANGE)
		return cli_error("drawing the figure failed: the canvas is too small for its text "
		                 "and panels (give a larger --width/--height)");
	return cli_error("drawing the figure failed: %s", pe_status_str(st));
}

int cli_figure_write(const struct cli_common *o, const char *path, enum cli_format format,
                     struct pe_figure *fig, const char *what)
{
	enum pe_figure_format ff = format == CLI_FORMAT_SVG   ? PE_FIGURE_SVG
	                           : format == CLI_FORMAT_PDF ? PE_FIGURE_PDF
	                                                      : PE_FIGURE_PNG;
	if (o->title && pe_figure_set_title(fig, o->title) != PE_OK)
		return cli_error("out of memory");
	struct cli_file file;
	int rc = cli_file_open(&file, path);
	if (rc)
		return rc;
	errno = 0;
	enum pe_status st = pe_figure_write(fig, ff, o->width, o->height, file.f);
	if (st != PE_OK) {
		if (st == PE_EIO)
			return cli_file_fail(&file, st, errno);
		cli_file_abort(&file);
		return cli_figure_error(st);
	}
	rc = cli_file_commit(&file);
	if (!rc)
		cli_report_written(o, path, what);
	return rc;
}

const char *cli_scheme_title(const char *label, size_t d, unsigned long long first, size_t n,
                             char *buf, size_t cap)
{
	snprintf(buf, cap, "%s (d=%zu, positions %llu..%llu)", label, d, first,
	         first + (unsigned long long)n - 1);
	return buf;
}
