#include <math.h>

#include "fig_internal.h"

/* matplotlib: 10 pt labels and ticks, 12 pt titles; a little smaller ticks read better. */
double text_size(const struct fig_style *st, enum text_role role)
{
	switch (role) {
	case TEXT_TICK:
	case TEXT_LEGEND:
		return st->font * 0.9;
	case TEXT_TITLE:
		return st->font * 1.1;
	case TEXT_SUPTITLE:
		return st->font * 1.3;
	case TEXT_LABEL:
		break;
	}
	return st->font;
}

void text_font(cairo_t *cr, const struct fig_style *st, enum text_role role)
{
	cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
	                       role == TEXT_SUPTITLE ? CAIRO_FONT_WEIGHT_BOLD
	                                             : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, text_size(st, role));
}

double text_width(cairo_t *cr, const char *s)
{
	cairo_text_extents_t e;
	cairo_text_extents(cr, s, &e);
	return e.x_advance;
}

double text_cap(cairo_t *cr)
{
	/* The cap height of DejaVu Sans is 0.729 em; measuring keeps hinting honest. */
	cairo_text_extents_t e;
	cairo_text_extents(cr, "0", &e);
	return e.height > 0 ? e.height : 0.73;
}

void text_draw(cairo_t *cr, const char *s, double x, double y, double ha, double va, double angle)
{
	double w = text_width(cr, s);
	double cap = text_cap(cr);
	cairo_save(cr);
	cairo_translate(cr, x, y);
	cairo_rotate(cr, -angle);
	cairo_move_to(cr, -ha * w, (1 - va) * cap);
	cairo_show_text(cr, s);
	cairo_restore(cr);
}
