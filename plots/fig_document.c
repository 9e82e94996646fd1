/* Multi-page PDF documents: figure pages and text pages on one cairo PDF surface. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <cairo-pdf.h>

#include <posenc/document.h>

#include "fig_internal.h"

/* PDF allows pages up to 200 in (14400 pt) a side. */
#define MAX_SIDE 14400

struct pe_document {
	FILE *out;
	bool write_failed;
	int write_errno; /* errno of the write that failed, set again when it is reported */
	bool finished;
	cairo_surface_t *surf;
	double width, height;
	size_t pages;
};

static cairo_status_t write_stream(void *closure, const unsigned char *data, unsigned int length)
{
	struct pe_document *doc = closure;
	if (fwrite(data, 1, length, doc->out) != length) {
		if (!doc->write_failed)
			doc->write_errno = errno;
		doc->write_failed = true;
		return CAIRO_STATUS_WRITE_ERROR;
	}
	return CAIRO_STATUS_SUCCESS;
}

struct pe_document *pe_document_create(FILE *out, double width, double height)
{
	if (!out || !(width >= 16 && width <= MAX_SIDE && height >= 16 && height <= MAX_SIDE))
		return NULL;
	struct pe_document *doc = calloc(1, sizeof(*doc));
	if (!doc)
		return NULL;
	doc->out = out;
	doc->width = width;
	doc->height = height;
	doc->surf = cairo_pdf_surface_create_for_stream(write_stream, doc, width, height);
	if (cairo_surface_status(doc->surf) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(doc->surf);
		free(doc);
		return NULL;
	}
	cairo_pdf_surface_set_metadata(doc->surf, CAIRO_PDF_METADATA_CREATOR, "posenc");
	figure_pdf_dates(doc->surf);
	return doc;
}

void pe_document_destroy(struct pe_document *doc)
{
	if (!doc)
		return;
	cairo_surface_destroy(doc->surf);
	free(doc);
}

enum pe_status pe_document_set_title(struct pe_document *doc, const char *title)
{
	if (doc->finished)
		return PE_EINVAL;
	if (title)
		cairo_pdf_surface_set_metadata(doc->surf, CAIRO_PDF_METADATA_TITLE, title);
	return cairo_surface_status(doc->surf) == CAIRO_STATUS_SUCCESS ? PE_OK : PE_ENOMEM;
}

size_t pe_document_page_count(const struct pe_document *doc)
{
	return doc->pages;
}

/* Ends the page drawn on cr; a cairo error is memory or the stream. */
static enum pe_status end_page(struct pe_document *doc, cairo_t *cr, enum pe_status s)
{
	if (s == PE_OK) {
		cairo_show_page(cr);
		if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
			s = doc->write_failed ? PE_EIO : PE_ENOMEM;
	}
	cairo_destroy(cr);
	if (s == PE_EIO)
		errno = doc->write_errno; /* for the caller's message: ENOSPC, EFBIG, ... */
	if (s == PE_OK)
		doc->pages++;
	return s;
}

enum pe_status pe_document_add_figure(struct pe_document *doc, struct pe_figure *fig,
                                      const char *const *notes, size_t n_notes)
{
	if (doc->finished || (n_notes && !notes))
		return PE_EINVAL;
	/* Notes in 8 pt (at A4) lines under the figure, which keeps the rest of the page. */
	double f = 8 * sqrt(doc->width * doc->height / (842.0 * 595.0));
	double margin = 0.04 * fmin(doc->width, doc->height);
	double notes_h = n_notes ? n_notes * 1.45 * f + 0.5 * f + margin : 0;
	if (notes_h > doc->height / 2)
		return PE_EINVAL;
	double fig_h = doc->height - notes_h;
	struct fig_style st;
	figure_style(fig, PE_FIGURE_PDF, doc->width, fig_h, &st);
	cairo_t *cr = cairo_create(doc->surf);
	text_log_canvas(doc->width, doc->height, 1);
	enum pe_status s = figure_render(fig, cr, &st, doc->width, fig_h);
	if (s == PE_OK && n_notes) {
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_rectangle(cr, 0, fig_h, doc->width, notes_h);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
		text_face(cr, false);
		for (size_t i = 0; i < n_notes; i++) {
			if (!notes[i])
				continue;
			/* A line too long for the page shrinks rather than running off it. */
			cairo_set_font_size(cr, f);
			double w = text_width(cr, notes[i]);
			if (w > doc->width - 2 * margin)
				cairo_set_font_size(cr, f * (doc->width - 2 * margin) / w);
			text_draw(cr, notes[i], margin, fig_h + (i + 1) * 1.45 * f, 0, 1, 0);
		}
	}
	return end_page(doc, cr, s);
}

/* ---- text pages ---- */

static void font(cairo_t *cr, double size, bool bold)
{
	text_face(cr, bold);
	cairo_set_font_size(cr, size);
}

static const char *cell(const struct pe_table *t, size_t r, size_t c)
{
	const char *s = t->cells[r * t->cols + c];
	return s ? s : "";
}

/*
 * Lays out (and with @draw, draws) a text page at body size f from (x0, y0);
 * returns the extent used in *w, *h. Baselines advance by 1.5 f per line.
 */
static void text_page(cairo_t *cr, const struct pe_text_page *pg, double f, double x0, double y0,
                      bool draw, double *w, double *h)
{
	double y = y0, wmax = 0;
	double line = 1.5 * f;
	if (pg->title) {
		font(cr, 1.6 * f, true);
		y += 1.6 * f;
		if (draw)
			text_draw(cr, pg->title, x0, y, 0, 1, 0);
		wmax = fmax(wmax, text_width(cr, pg->title));
		y += f;
	}
	font(cr, f, false);
	for (size_t i = 0; i < pg->n_lines; i++) {
		y += line;
		if (draw && pg->lines[i])
			text_draw(cr, pg->lines[i], x0, y, 0, 1, 0);
		if (pg->lines[i])
			wmax = fmax(wmax, text_width(cr, pg->lines[i]));
	}
	for (size_t k = 0; k < pg->n_tables; k++) {
		const struct pe_table *t = &pg->tables[k];
		y += line;
		if (t->caption) {
			font(cr, 1.1 * f, true);
			y += line;
			if (draw)
				text_draw(cr, t->caption, x0, y, 0, 1, 0);
			wmax = fmax(wmax, text_width(cr, t->caption));
		}
		/* Column widths: the widest cell of each column, header included. */
		double gap = 1.5 * f, tw = 0;
		double colw[64];
		size_t cols = t->cols < 64 ? t->cols : 64;
		for (size_t c = 0; c < cols; c++) {
			colw[c] = 0;
			if (t->header) {
				font(cr, f, true);
				colw[c] = text_width(cr, t->header[c] ? t->header[c] : "");
			}
			font(cr, f, false);
			for (size_t r = 0; r < t->rows; r++)
				colw[c] = fmax(colw[c], text_width(cr, cell(t, r, c)));
			tw += colw[c] + (c ? gap : 0);
		}
		wmax = fmax(wmax, tw);
		double rule = fmax(0.4, f / 16);
		if (draw) {
			cairo_set_line_width(cr, 1.5 * rule);
			cairo_move_to(cr, x0, y + 0.6 * f);
			cairo_line_to(cr, x0 + tw, y + 0.6 * f);
			cairo_stroke(cr);
		}
		y += 0.6 * f;
		for (size_t r = 0; r < t->rows + (t->header ? 1 : 0); r++) {
			bool head = t->header && r == 0;
			size_t row = r - (t->header ? 1 : 0);
			y += line;
			font(cr, f, head);
			double x = x0;
			for (size_t c = 0; draw && c < cols; c++) {
				const char *s = head ? t->header[c] : cell(t, row, c);
				if (s)
					text_draw(cr, s, c ? x + colw[c] : x, y, c ? 1 : 0, 1, 0);
				x += colw[c] + gap;
			}
			if (draw && (head || row + 1 == t->rows)) {
				cairo_set_line_width(cr, head ? rule : 1.5 * rule);
				cairo_move_to(cr, x0, y + 0.5 * f);
				cairo_line_to(cr, x0 + tw, y + 0.5 * f);
				cairo_stroke(cr);
			}
			if (head)
				y += 0.3 * f; /* room under the header's rule */
		}
		y += 0.5 * f;
	}
	*w = wmax;
	*h = y - y0;
}

enum pe_status pe_document_add_text_page(struct pe_document *doc, const struct pe_text_page *page)
{
	if (doc->finished)
		return PE_EINVAL;
	for (size_t k = 0; k < page->n_tables; k++) {
		const struct pe_table *t = &page->tables[k];
		if ((t->rows && t->cols && !t->cells) || t->cols > 64)
			return PE_EINVAL;
	}
	if (page->n_lines && !page->lines)
		return PE_EINVAL;
	cairo_t *cr = cairo_create(doc->surf);
	text_log_canvas(doc->width, doc->height, 1);
	double margin = 0.07 * fmin(doc->width, doc->height);
	double aw = doc->width - 2 * margin, ah = doc->height - 2 * margin;
	/* Text extents scale with the size: a few rounds converge on the largest that fits. */
	double f = 11, w, h;
	for (int round = 0; round < 8; round++) {
		text_page(cr, page, f, margin, margin, false, &w, &h);
		if (w <= aw && h <= ah)
			break;
		f *= 0.98 * fmin(aw / fmax(w, 1e-9), ah / fmax(h, 1e-9));
		f = fmin(f, 11);
	}
	enum pe_status s = PE_OK;
	if (w > aw || h > ah || f < 4)
		s = PE_ERANGE;
	if (s == PE_OK) {
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_rectangle(cr, 0, 0, doc->width, doc->height);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		text_page(cr, page, f, margin, margin, true, &w, &h);
	}
	return end_page(doc, cr, s);
}

enum pe_status pe_document_finish(struct pe_document *doc)
{
	if (doc->finished || doc->pages == 0)
		return PE_EINVAL;
	doc->finished = true;
	cairo_surface_finish(doc->surf);
	if (doc->write_failed) {
		errno = doc->write_errno;
		return PE_EIO;
	}
	return cairo_surface_status(doc->surf) == CAIRO_STATUS_SUCCESS ? PE_OK : PE_ENOMEM;
}
