/*
 * posenc report as one self-contained HTML file: inline CSS, figures as
 * inline SVG, tables as HTML tables, no scripts and no external files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "figures/figure.h"
#include "report/report.h"

static const char style[] =
        "body{font-family:\"DejaVu Sans\",\"Helvetica Neue\",Arial,sans-serif;color:#222;"
        "max-width:1100px;margin:0 auto;padding:1.5rem 2rem 3rem;line-height:1.45}\n"
        "h1{font-size:1.8rem;margin:0 0 .6rem}\n"
        "h2{font-size:1.3rem;margin:2.4rem 0 .6rem;padding-bottom:.2rem;"
        "border-bottom:1px solid #ccc}\n"
        "p{margin:.3rem 0}\n"
        "p.note{color:#444;font-size:.95rem}\n"
        "code{font-family:\"DejaVu Sans Mono\",monospace;font-size:.9em;background:#f3f3f3;"
        "padding:0 .2em}\n"
        "nav ol{columns:2;margin:.4rem 0}\n"
        "figure{margin:.8rem 0}\n"
        "figure svg{display:block;width:100%;height:auto}\n"
        ".table{overflow-x:auto}\n"
        "table{border-collapse:collapse;font-size:.9rem;margin:.8rem 0;"
        "font-variant-numeric:tabular-nums}\n"
        "caption{text-align:left;font-weight:bold;padding-bottom:.3rem}\n"
        "th,td{padding:.2rem .6rem;text-align:right;border-bottom:1px solid #e3e3e3}\n"
        "td{white-space:nowrap}\n"
        "thead th{vertical-align:bottom}\n"
        "th:first-child,td:first-child{text-align:left}\n"
        "thead th{border-bottom:2px solid #444}\n"
        "footer{margin-top:3rem;color:#666;font-size:.85rem}\n"
        /* a narrow window keeps the tables of several models on the page */
        "@media (max-width:1000px){body{padding:1rem}table{font-size:.72rem}"
        "th,td{padding:.15rem .3rem}}\n"
        "@media print{body{max-width:none;padding:0}figure,tr{break-inside:avoid}"
        ".table{overflow:visible}table{font-size:.7rem}th,td{padding:.1rem .3rem}}\n";

void report_html_escape(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

static void table(FILE *out, const struct pe_table *t)
{
	fputs("<div class=\"table\"><table>\n", out);
	if (t->caption) {
		fputs("<caption>", out);
		report_html_escape(out, t->caption);
		fputs("</caption>\n", out);
	}
	if (t->header) {
		fputs("<thead><tr>", out);
		for (size_t c = 0; c < t->cols; c++) {
			fputs("<th scope=\"col\">", out);
			report_html_escape(out, t->header[c]);
			fputs("</th>", out);
		}
		fputs("</tr></thead>\n", out);
	}
	fputs("<tbody>\n", out);
	for (size_t r = 0; r < t->rows; r++) {
		fputs("<tr>", out);
		for (size_t c = 0; c < t->cols; c++) {
			fputs(c ? "<td>" : "<th scope=\"row\">", out);
			report_html_escape(out, t->cells[r * t->cols + c]);
			fputs(c ? "</td>" : "</th>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></div>\n", out);
}

/*
 * The SVG cairo wrote, made fit to sit inline next to others: no XML
 * declaration, and every id (glyphs, clips, images) prefixed with the
 * figure's own prefix, or the glyphs of the first figure would be drawn
 * in all the others.
 */
static void inline_svg(FILE *out, const char *svg, size_t len, const char *prefix,
                       const char *label)
{
	const char *p = svg, *end = svg + len;
	if (len > 5 && strncmp(p, "<?xml", 5) == 0) {
		const char *q = strstr(p, "?>");
		p = q ? q + 2 : p;
		while (p < end && (*p == '\n' || *p == '\r'))
			p++;
	}
	static const char *const keys[] = {"id=\"", "href=\"#", "url(#", "<svg "};
	/* The next hit of each key, searched again only once passed: one scan per key. */
	const char *next[4];
	for (size_t k = 0; k < 4; k++)
		next[k] = strstr(p, keys[k]);
	while (p < end) {
		size_t best = 4;
		for (size_t k = 0; k < 4; k++) {
			if (next[k] && next[k] < p)
				next[k] = strstr(p, keys[k]);
			if (next[k] && (best == 4 || next[k] < next[best]))
				best = k;
		}
		if (best == 4) {
			fwrite(p, 1, (size_t)(end - p), out);
			break;
		}
		const char *hit = next[best];
		size_t klen = strlen(keys[best]);
		fwrite(p, 1, (size_t)(hit - p) + klen, out);
		if (best == 3) {
			fputs("role=\"img\" aria-label=\"", out);
			report_html_escape(out, label);
			fputs("\" ", out);
		} else {
			fputs(prefix, out);
		}
		p = hit + klen;
	}
}

static int figure(FILE *out, struct pe_figure *fig, double height, size_t index, const char *label)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		return cli_error("out of memory");
	enum pe_status st = pe_figure_write(fig, PE_FIGURE_SVG, REPORT_PAGE_WIDTH,
	                                    height > 0 ? height : REPORT_PAGE_HEIGHT, mem);
	if (fclose(mem) != 0 && st == PE_OK)
		st = PE_ENOMEM;
	if (st != PE_OK) {
		free(buf);
		return cli_figure_error(st);
	}
	char prefix[32];
	snprintf(prefix, sizeof(prefix), "f%zu-", index);
	fputs("<figure>\n", out);
	inline_svg(out, buf, len, prefix, label);
	free(buf);
	return 0;
}

static void lines(FILE *out, const struct report_section *sec, const char *tag, const char *cls)
{
	for (size_t i = 0; i < sec->n_lines; i++) {
		if (!sec->lines[i])
			continue;
		fprintf(out, "<%s%s%s%s>", tag, cls ? " class=\"" : "", cls ? cls : "",
		        cls ? "\"" : "");
		/* The command line reads best as code. */
		if (strncmp(sec->lines[i], "Command: ", 9) == 0) {
			fputs("Command: <code>", out);
			report_html_escape(out, sec->lines[i] + 9);
			fputs("</code>", out);
		} else {
			report_html_escape(out, sec->lines[i]);
		}
		fprintf(out, "</%s>\n", tag);
	}
}

static void contents(FILE *out, const struct report *r)
{
	fputs("<nav><p><strong>Contents</strong></p><ol>\n", out);
	size_t count = report_section_count(r);
	for (size_t i = 1; i < count; i++) {
		/* Titles and anchors only: building the sections here would draw them twice. */
		char id[32];
		const char *title = report_section_title(r, i);
		fprintf(out, "<li><a href=\"#%s\">", report_section_id(r, i, id, sizeof(id)));
		report_html_escape(out, title);
		fputs("</a></li>\n", out);
	}
	fputs("</ol></nav>\n", out);
}

int report_write_html(const struct report *r, FILE *out, struct report_progress *pr)
{
	const char *title = r->o.title ? r->o.title : "Positional-encoding report";
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"posenc " POSENC_VERSION "\">\n<title>",
	      out);
	report_html_escape(out, title);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
	size_t count = report_section_count(r);
	int rc = 0;
	for (size_t i = 0; i < count && !rc; i++) {
		report_progress_step(pr, i, report_section_title(r, i));
		struct report_section sec;
		memset(&sec, 0, sizeof(sec));
		rc = report_section_build(r, i, 1, &sec);
		if (rc) {
			report_section_free(&sec);
			break;
		}
		if (i == 0) {
			fputs("<header>\n<h1>", out);
			report_html_escape(out, title);
			fputs("</h1>\n", out);
			lines(out, &sec, "p", NULL);
			fputs("</header>\n", out);
			contents(out, r);
		}
		char id[32];
		fprintf(out, "<section id=\"%s\">\n", report_section_id(r, i, id, sizeof(id)));
		if (i > 0) {
			fputs("<h2>", out);
			report_html_escape(out, sec.heading);
			fputs("</h2>\n", out);
		}
		if (sec.fig) {
			rc = figure(out, sec.fig, sec.html_height, i, sec.heading);
			if (!rc) {
				fputs("<figcaption>\n", out);
				lines(out, &sec, "p", "note");
				fputs("</figcaption>\n</figure>\n", out);
			}
		} else if (i > 0) {
			lines(out, &sec, "p", "note");
		}
		for (size_t t = 0; !rc && t < sec.n_tables; t++)
			table(out, &sec.tables[t]);
		fputs("</section>\n", out);
		report_section_free(&sec);
	}
	fprintf(out, "<footer>Made by posenc %s on %s.</footer>\n</body>\n</html>\n",
	        POSENC_VERSION, r->date);
	return rc;
}
