#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#ifdef PE_FONT_FILE
#include <pthread.h>

#include <cairo-ft.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#endif

#include "fig_internal.h"

/*
 * DejaVu Sans from its files, found by fc-match when posenc was configured
 * (PE_FONT_FILE, PE_FONT_FILE_BOLD): cairo's toy API asks fontconfig,
 * whose set-up (reading and parsing its configuration) cost 2.5 ms of CPU
 * in every process, more than a small figure's drawing. Hinting is
 * fontconfig's Debian default, hintslight, so the text is the same to the
 * pixel; when a file cannot be opened, the toy API serves.
 */
#ifdef PE_FONT_FILE
static cairo_font_face_t *faces[2];
static pthread_once_t faces_once = PTHREAD_ONCE_INIT;
static FT_Library lib;
static FT_Face ft[2];

static void faces_load(void)
{
	const char *const files[2] = {PE_FONT_FILE, PE_FONT_FILE_BOLD};
	if (FT_Init_FreeType(&lib) != 0)
		return;
	for (int i = 0; i < 2; i++)
		if (FT_New_Face(lib, files[i], 0, &ft[i]) != 0)
			return;
	for (int i = 0; i < 2; i++) {
		faces[i] = cairo_ft_font_face_create_for_ft_face(ft[i], 0);
		if (cairo_font_face_status(faces[i]) != CAIRO_STATUS_SUCCESS) {
			faces[0] = faces[1] = NULL;
			return;
		}
	}
}
#endif

void text_faces_release(void)
{
#ifdef PE_FONT_FILE
	for (int i = 0; i < 2; i++) {
		cairo_font_face_destroy(faces[i]);
		faces[i] = NULL;
	}
	/* cairo_debug_reset_static_data() drops the scaled fonts that still use the faces. */
#endif
}

void text_face(cairo_t *cr, bool bold)
{
#ifdef PE_FONT_FILE
	pthread_once(&faces_once, faces_load);
	if (faces[0]) {
		cairo_set_font_face(cr, faces[bold]);
		/* Vector surfaces keep their unhinted outlines, as with fontconfig. */
		if (cairo_surface_get_type(cairo_get_target(cr)) != CAIRO_SURFACE_TYPE_IMAGE)
			return;
		cairo_font_options_t *fo = cairo_font_options_create();
		cairo_get_font_options(cr, fo);
		cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
		cairo_set_font_options(cr, fo);
		cairo_font_options_destroy(fo);
		return;
	}
#endif
	cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
	                       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
}

static void log_box(cairo_t *cr, const char *s, double x0, double y0, double x1, double y1);

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
	text_face(cr, role == TEXT_SUPTITLE);
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
	/* Capitals to descenders: 0.24 em below the baseline in DejaVu Sans. */
	double em = cap / 0.729;
	log_box(cr, s, -ha * w, (1 - va) * cap - cap, (1 - ha) * w, (1 - va) * cap + 0.24 * em);
	cairo_restore(cr);
}

/* Whether s[i] belongs to a number: a digit, or a point or comma between digits. */
static bool number_char(const char *s, size_t i)
{
	if (s[i] >= '0' && s[i] <= '9')
		return true;
	return (s[i] == '.' || s[i] == ',') && i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9' &&
	       s[i + 1] >= '0' && s[i + 1] <= '9';
}

const char *text_fit(cairo_t *cr, const char *s, double max_w, char *buf, size_t cap)
{
	if (text_width(cr, s) <= max_w)
		return s;
	/* "…" (U+2026): one glyph, narrower than three dots. */
	static const char ell[] = "\xe2\x80\xa6";
	size_t len = strlen(s);
	if (len + sizeof(ell) > cap)
		len = cap - sizeof(ell);
	for (;;) {
		/* Back to a UTF-8 character boundary, and off trailing spaces. */
		while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
			len--;
		while (len > 0 && s[len - 1] == ' ')
			len--;
		memcpy(buf, s, len);
		memcpy(buf + len, ell, sizeof(ell));
		if (len == 0 || text_width(cr, buf) <= max_w)
			break;
		len--;
	}
	/*
	 * Never inside a number: "base=10000" cut to "base=100..." reads as
	 * another base. The whole number goes ("base=..."), which cannot be
	 * mistaken for a value.
	 */
	if (len > 0 && s[len] && number_char(s, len) && number_char(s, len - 1)) {
		while (len > 0 && number_char(s, len - 1))
			len--;
		while (len > 0 && s[len - 1] == ' ')
			len--;
		memcpy(buf, s, len);
		memcpy(buf + len, ell, sizeof(ell));
	}
	return buf;
}

static FILE *box_log(void)
{
	static bool opened;
	static FILE *f;
	if (!opened) {
		opened = true;
		const char *path = getenv("POSENC_TEXT_BOXES");
		if (path && *path)
			f = fopen(path, "a");
	}
	return f;
}

static double log_unit = 1;

void text_log_canvas(double w, double h, double unit)
{
	log_unit = unit;
	FILE *f = box_log();
	if (f) {
		fprintf(f, "canvas %.3f %.3f %.6f\n", w, h, unit);
		fflush(f);
	}
}

void text_log_axes(cairo_t *cr, double x, double y, double w, double h)
{
	FILE *f = box_log();
	if (!f)
		return;
	double x0 = x, y0 = y, x1 = x + w, y1 = y + h;
	cairo_user_to_device(cr, &x0, &y0);
	cairo_user_to_device(cr, &x1, &y1);
	fprintf(f, "axes %.3f %.3f %.3f %.3f\n", fmin(x0, x1), fmin(y0, y1), fmax(x0, x1),
	        fmax(y0, y1));
	fflush(f);
}

static void log_box(cairo_t *cr, const char *s, double x0, double y0, double x1, double y1)
{
	FILE *f = box_log();
	if (!f)
		return;
	double xs[4] = {x0, x1, x1, x0}, ys[4] = {y0, y0, y1, y1};
	double lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;
	for (int i = 0; i < 4; i++) {
		double dx = xs[i], dy = ys[i];
		cairo_user_to_device(cr, &dx, &dy);
		lo_x = fmin(lo_x, dx);
		hi_x = fmax(hi_x, dx);
		lo_y = fmin(lo_y, dy);
		hi_y = fmax(hi_y, dy);
	}
	/* The size as the reader sees it: the font matrix's scale in device units. */
	cairo_matrix_t fm;
	cairo_get_font_matrix(cr, &fm);
	double ux = fm.xx, uy = fm.yx;
	cairo_user_to_device_distance(cr, &ux, &uy);
	fprintf(f, "text %.3f %.3f %.3f %.3f %.4f\t%s\n", lo_x, lo_y, hi_x, hi_y,
	        sqrt(ux * ux + uy * uy) / log_unit, s);
	fflush(f);
}
