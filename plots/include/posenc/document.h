/*
 * posenc/document.h - several figures as the pages of one PDF
 *
 * pe_figure_write() writes one figure per stream. A document collects pages
 * into one multi-page PDF (vector text): figure pages, laid out exactly as
 * pe_figure_write() lays them out at the page size, and text pages (a
 * title, lines of text and tables) for a report's parameters and numbers.
 * Each page is drawn when it is added, so the figures and strings need
 * only live until the call returns.
 *
 *	struct pe_document *doc = pe_document_create(out, 842, 595);  // A4 landscape
 *	pe_document_add_text_page(doc, &title_page);
 *	pe_document_add_figure(doc, fig, NULL, 0);
 *	status = pe_document_finish(doc);     // the PDF is complete in out
 *	pe_document_destroy(doc);
 */
#ifndef POSENC_DOCUMENT_H
#define POSENC_DOCUMENT_H

#include <stddef.h>
#include <stdio.h>

#include <posenc/figure.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A table of text cells. The first column is left-aligned (row names), the
 * others right-aligned (numbers). NULL cells are left blank.
 */
struct pe_table {
	const char *caption;       /* drawn above the table; NULL: none */
	size_t rows, cols;         /* rows below the header */
	const char *const *header; /* cols strings; NULL: no header row */
	const char *const *cells;  /* rows * cols, row-major */
};

/* A page of text: a title, lines of text below it, then the tables in order. */
struct pe_text_page {
	const char *title;
	const char *const *lines;
	size_t n_lines;
	const struct pe_table *tables;
	size_t n_tables;
};

struct pe_document;

/*
 * pe_document_create() - an empty PDF document writing to @out
 *
 * @width, @height: the page size in points, 16 .. 14400 each (842 x 595 is
 * A4 landscape). @out: written with fwrite() as pages are added; not closed.
 *
 * @return a new document, or NULL for a bad size or when allocation fails.
 * Free it with pe_document_destroy().
 */
PE_API struct pe_document *pe_document_create(FILE *out, double width, double height);

/*
 * pe_document_set_title() - the PDF's title metadata (and its creator, "posenc")
 *
 * @return PE_OK, PE_EINVAL after pe_document_finish().
 */
PE_API enum pe_status pe_document_set_title(struct pe_document *doc, const char *title);

/*
 * pe_document_add_figure() - draw @fig as the next page, at the page size
 *
 * @notes: @n_notes lines of text (captions, remarks) set in small type
 * below the figure, which then gets the rest of the page; NULL for none.
 *
 * @return PE_OK; PE_EINVAL after pe_document_finish() or for notes taller
 * than half the page; otherwise what pe_figure_write() returns for the
 * figure at this size. After an error the page may hold part of the
 * figure: abandon the document.
 */
PE_API enum pe_status pe_document_add_figure(struct pe_document *doc, struct pe_figure *fig,
                                             const char *const *notes, size_t n_notes);

/*
 * pe_document_add_text_page() - draw @page as the next page
 *
 * The text is as large as fits: 11 pt body text, shrunk together with the
 * tables when they are wider or taller than the page.
 *
 * @return PE_OK; PE_EINVAL for a table with cells but no cell array, or
 * after pe_document_finish(); PE_ERANGE when the page cannot hold the text
 * even at 4 pt; PE_ENOMEM.
 */
PE_API enum pe_status pe_document_add_text_page(struct pe_document *doc,
                                                const struct pe_text_page *page);

/* pe_document_page_count() - the number of pages added so far */
PE_API size_t pe_document_page_count(const struct pe_document *doc);

/*
 * pe_document_finish() - complete the PDF (cross-reference table, trailer)
 *
 * @return PE_OK, PE_EINVAL if no page was added or it was finished before,
 * PE_EIO if writing failed (errno from the stream, if any), PE_ENOMEM.
 */
PE_API enum pe_status pe_document_finish(struct pe_document *doc);

/*
 * pe_document_destroy() - free a document; NULL is a no-op
 *
 * An unfinished document's output is left incomplete.
 */
PE_API void pe_document_destroy(struct pe_document *doc);

#ifdef __cplusplus
}
#endif

#endif
