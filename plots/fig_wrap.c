/*
 * Line breaking of titles, labels, legend entries and notes: as few lines as
 * the room allows, and of those layouts the most even one, so a title never
 * ends in a line of one short word. Some spaces do not break: between a
 * number and its unit ("32640 pairs", "252 pt"), before a factor ("yarn ×8"),
 * and inside a short parenthesised group ("(base 10000)"), unless the group
 * is wider than a line. A word wider than a line breaks after a hyphen (or _
 * / . = : ,), never between the digits of a number ("2.5", "1,5").
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fig_internal.h"

#define LINE_CAP TEXT_LINE_CAP

/* A short parenthesised group: at most this many words. */
#define GROUP_WORDS 3

/* A piece of the text no line break falls inside: a word, a run of words that keep
 * together, or the part of a too-wide word between two of its break points. */
struct unit {
	const char *at;
	size_t len;
	bool space; /* a space before it (else it continues the word before) */
	bool keep;  /* the space after it does not break (a glued pair, while it fits) */
};

/* Words that read as a unit after a number: lengths, sizes, counts. */
static bool unit_word(const char *w, size_t len)
{
	static const char *const units[] = {
	        "pt",    "px",   "in",     "cm",        "mm",    "dpi",        "k",     "K",
	        "M",     "B",    "G",      "%",         "s",     "ms",         "GB",    "MB",
	        "KB",    "kB",   "GiB",    "MiB",       "KiB",   "bytes",      "bits",  "tokens",
	        "pairs", "dims", "layers", "positions", "heads", "dimensions", "times", "steps"};
	/* "pairs," and "pairs." are the word "pairs". */
	while (len > 0 && strchr(",.;:)", w[len - 1]))
		len--;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i]) == len && memcmp(units[i], w, len) == 0)
			return true;
	return false;
}

/* "×8", "x8", "×0.25": a factor, which belongs to the word before it. */
static bool factor_word(const char *w, size_t len)
{
	if (len >= 3 && (unsigned char)w[0] == 0xC3 && (unsigned char)w[1] == 0x97)
		return isdigit((unsigned char)w[2]);
	return len >= 2 && w[0] == 'x' && isdigit((unsigned char)w[1]);
}

static bool ends_in_digit(const char *w, size_t len)
{
	return len > 0 && isdigit((unsigned char)w[len - 1]);
}

/* Whether the space between words a and b (in order) should not break. */
static bool keep_together(const struct unit *a, const struct unit *b)
{
	return (ends_in_digit(a->at, a->len) && unit_word(b->at, b->len)) ||
	       factor_word(b->at, b->len);
}

/* Whether a line may break after w[k - 1], inside a word of len bytes. */
static bool inner_break(const char *w, size_t k, size_t len)
{
	if (k < 1 || k + 1 >= len || !strchr("-_/.=:,", w[k - 1]))
		return false;
	/* Never between the digits of a number: "2.5", "1,5". */
	return !(strchr(".,", w[k - 1]) && k >= 2 && isdigit((unsigned char)w[k - 2]) &&
	         isdigit((unsigned char)w[k]));
}

/* Units i .. j-1 as one line, into buf; false when it does not fit buf. */
static bool join(const struct unit *u, size_t i, size_t j, char *buf, size_t cap)
{
	size_t len = 0;
	for (size_t k = i; k < j; k++) {
		size_t gap = k > i && u[k].space ? 1 : 0;
		if (len + gap + u[k].len >= cap)
			return false;
		if (gap)
			buf[len++] = ' ';
		memcpy(buf + len, u[k].at, u[k].len);
		len += u[k].len;
	}
	buf[len] = '\0';
	return true;
}

static double line_width(cairo_t *cr, const struct unit *u, size_t i, size_t j)
{
	char buf[LINE_CAP];
	return join(u, i, j, buf, sizeof(buf)) ? text_width(cr, buf) : INFINITY;
}

/* The words of s (u has room for one per byte), with the spaces that keep marked. */
static size_t words(const char *s, struct unit *u)
{
	size_t n = 0;
	for (const char *c = s; *c;) {
		while (*c == ' ')
			c++;
		if (!*c)
			break;
		const char *e = c;
		while (*e && *e != ' ')
			e++;
		u[n] = (struct unit){c, (size_t)(e - c), n > 0, false};
		n++;
		c = e;
	}
	for (size_t i = 0; i + 1 < n; i++)
		u[i].keep = keep_together(&u[i], &u[i + 1]);
	/* A short parenthesised group keeps together: "(base 10000)", "(yarn ×8)". */
	for (size_t a = 0; a < n; a++) {
		if (u[a].at[0] != '(' || memchr(u[a].at, ')', u[a].len))
			continue;
		for (size_t b = a + 1; b < n && b < a + GROUP_WORDS; b++) {
			if (memchr(u[b].at, '(', u[b].len))
				break;
			if (memchr(u[b].at, ')', u[b].len)) {
				for (size_t k = a; k < b; k++)
					u[k].keep = true;
				break;
			}
		}
	}
	return n;
}

/*
 * Merge the runs of words that keep together into one unit each, where the run fits
 * room; a run wider than a line breaks at its spaces after all. Returns the count.
 */
static size_t glue(cairo_t *cr, struct unit *u, size_t n, double room)
{
	size_t out = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && u[j - 1].keep)
			j++;
		if (j - i > 1 && line_width(cr, u, i, j) <= room) {
			struct unit m = u[i];
			m.len = (size_t)(u[j - 1].at + u[j - 1].len - u[i].at);
			/* Kept whole only when the words stand one space apart, as drawn. */
			char buf[LINE_CAP];
			if (join(u, i, j, buf, sizeof(buf)) && strlen(buf) == m.len) {
				m.keep = false;
				u[out++] = m;
				i = j;
				continue;
			}
		}
		for (; i < j; i++) {
			u[out] = u[i];
			u[out++].keep = false;
		}
	}
	return out;
}

/* Words wider than room become their pieces between break points. Returns the count. */
static size_t split_wide(cairo_t *cr, const struct unit *in, size_t n, double room,
                         struct unit *out, size_t cap)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		struct unit w = in[i];
		bool wide = line_width(cr, in, i, i + 1) > room;
		size_t from = 0;
		for (size_t k = 1; wide && k < w.len && m + 1 < cap; k++)
			if (inner_break(w.at, k, w.len)) {
				out[m++] = (struct unit){w.at + from, k - from,
				                         from ? false : w.space, false};
				from = k;
			}
		if (m == cap)
			break;
		out[m++] = (struct unit){w.at + from, w.len - from, from ? false : w.space, false};
	}
	return m;
}

/* Lines as few as room allows, each filled before the next (a lone unit may overflow);
 * max + 1 as soon as there are more than max. */
static size_t greedy(cairo_t *cr, const struct unit *u, size_t n, double room, size_t *starts,
                     size_t max)
{
	size_t lines = 0;
	for (size_t i = 0; i < n && lines <= max;) {
		size_t j = i + 1;
		while (j < n && line_width(cr, u, i, j + 1) <= room)
			j++;
		if (lines < max)
			starts[lines] = i;
		lines++;
		i = j;
	}
	return lines;
}

/*
 * What a break between units a and b costs beyond the room it leaves: inside a word as
 * much as an empty line; in a paragraph, after a colon, a quarter line's worth ("Scatter:"
 * at the end of a note's line and what it introduces on the next). In a title a break
 * after its colon is where it reads best ("phi-3-mini-128k (d=96):" over "wavelength per
 * pair").
 */
static double break_cost(const struct unit *a, const struct unit *b, double room, bool para)
{
	if (!b->space)
		return room * room;
	if (para && a->len > 0 && a->at[a->len - 1] == ':')
		return room * room / 16;
	return 0;
}

/* A paragraph's last line may end anywhere, but not as a word or two alone: shorter than
 * this share of the room, it costs the squared difference. */
#define PARA_LAST 0.4

/*
 * Of the layouts in exactly @lines lines, the most even: least sum of squared room left
 * on each line, and of break_cost(). A paragraph (@para: a left-aligned note) counts its
 * last line only when it is short, so its lines are filled, not halved. starts[] gets
 * each line's first unit; false when no layout of that many lines fits.
 */
static bool balanced(cairo_t *cr, const struct unit *u, size_t n, double room, size_t lines,
                     bool para, size_t *starts)
{
	/* Widths of units i .. j-1 for j up to the first line too wide: w[off[i] + j - i - 1]. */
	size_t *off = malloc((n + 1) * sizeof(*off)), have = 0, used = 0;
	double *w = NULL;
	double *cost = malloc((n + 1) * (lines + 1) * sizeof(*cost));
	size_t *next = malloc((n + 1) * (lines + 1) * sizeof(*next));
	bool found = false;
	if (!off || !cost || !next)
		goto out;
	for (size_t i = 0; i < n; i++) {
		off[i] = used;
		for (size_t j = i + 1; j <= n; j++) {
			if (used == have) {
				have = have ? 2 * have : 64;
				double *more = realloc(w, have * sizeof(*w));
				if (!more)
					goto out;
				w = more;
			}
			w[used++] = line_width(cr, u, i, j);
			if (w[used - 1] > room)
				break;
		}
	}
	off[n] = used;
	/* cost[i * (lines + 1) + k]: units i .. n-1 in k lines. */
	for (size_t i = 0; i <= n; i++)
		for (size_t k = 0; k <= lines; k++)
			cost[i * (lines + 1) + k] = i == n && k == 0 ? 0 : INFINITY;
	for (size_t k = 1; k <= lines; k++)
		for (size_t i = n; i-- > 0;)
			for (size_t j = i + 1; j <= n && off[i] + j - i - 1 < off[i + 1]; j++) {
				double width = w[off[i] + j - i - 1];
				/* A unit wider than the line stands alone (it is cut). */
				if (width > room && j > i + 1)
					break;
				double rest = cost[j * (lines + 1) + k - 1];
				if (!isfinite(rest))
					continue;
				double left = width > room ? room : room - width;
				if (para && j == n)
					left = fmax(0, PARA_LAST * room - width);
				double c = left * left + rest +
				           (j < n ? break_cost(&u[j - 1], &u[j], room, para) : 0);
				if (c < cost[i * (lines + 1) + k]) {
					cost[i * (lines + 1) + k] = c;
					next[i * (lines + 1) + k] = j;
				}
			}
	found = isfinite(cost[lines]);
	for (size_t k = lines, i = 0; found && k > 0; k--) {
		starts[lines - k] = i;
		i = next[i * (lines + 1) + k];
	}
out:
	free(off);
	free(w);
	free(cost);
	free(next);
	return found;
}

static int wrap(cairo_t *cr, const char *s, double room, int max, char out[][LINE_CAP], bool *cut,
                bool para)
{
	if (cut)
		*cut = false;
	if (max < 1)
		return 0;
	size_t cap = strlen(s) + 1; /* units: at most one per byte */
	struct unit *u = malloc(cap * sizeof(*u)), *p = malloc(cap * sizeof(*p));
	size_t *starts = malloc(((size_t)max + 1) * sizeof(*starts));
	int n = 0;
	if (!u || !p || !starts) {
		/* Out of memory: one line, cut to fit. */
		char buf[LINE_CAP + 8];
		snprintf(out[0], LINE_CAP, "%s", text_fit(cr, s, room, buf, sizeof(buf)));
		if (cut)
			*cut = strcmp(out[0], s) != 0;
		n = *s ? 1 : 0;
		goto done;
	}
	/* Words kept together where that costs no line the text does not have; else apart. */
	size_t np = 0, lines = 0;
	bool whole = false;
	for (int keep = 1; keep >= 0 && !whole; keep--) {
		size_t nw = words(s, u);
		nw = keep ? glue(cr, u, nw, room) : glue(cr, u, nw, -INFINITY);
		np = split_wide(cr, u, nw, room, p, cap);
		if (np == 0)
			goto done;
		lines = greedy(cr, p, np, room, starts, (size_t)max);
		whole = lines <= (size_t)max;
	}
	if (whole && lines > 1)
		balanced(cr, p, np, room, lines, para, starts);
	if (!whole)
		lines = (size_t)max;
	for (size_t k = 0; k < lines; k++) {
		size_t i = starts[k], j = k + 1 < lines ? starts[k + 1] : np;
		char line[LINE_CAP];
		/* The last line of a text that needs more takes the rest, cut to fit. */
		if ((!whole && k + 1 == lines) || !join(p, i, j, line, sizeof(line))) {
			/* Longer than a line buffer: cut at a character's start, not inside one. */
			size_t len = strlen(p[i].at);
			if (len >= sizeof(line)) {
				len = sizeof(line) - 1;
				while (len > 0 && ((unsigned char)p[i].at[len] & 0xC0) == 0x80)
					len--;
			}
			memcpy(line, p[i].at, len);
			line[len] = '\0';
		}
		char buf[LINE_CAP + 8];
		const char *t = text_fit(cr, line, room, buf, sizeof(buf));
		if (cut && t != line)
			*cut = true;
		snprintf(out[n++], LINE_CAP, "%s", t);
	}
done:
	free(u);
	free(p);
	free(starts);
	return n;
}

int text_wrap_cut(cairo_t *cr, const char *s, double room, int max, char out[][LINE_CAP], bool *cut)
{
	return wrap(cr, s, room, max, out, cut, false);
}

int text_wrap(cairo_t *cr, const char *s, double room, int max, char out[][LINE_CAP])
{
	return wrap(cr, s, room, max, out, NULL, false);
}

int text_wrap_para(cairo_t *cr, const char *s, double room, int max, char out[][LINE_CAP])
{
	return wrap(cr, s, room, max, out, NULL, true);
}
