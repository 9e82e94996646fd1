/* Multi-page PDF documents (posenc/document.h): page structure, sizes, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/document.h>
#include <posenc/figure.h>

/* The bytes written to f so far, NUL-terminated; *len set. */
static char *slurp(FILE *f, size_t *len)
{
	assert_int_equal(fflush(f), 0);
	long end = ftell(f);
	assert_true(end > 0);
	char *buf = malloc((size_t)end + 1);
	assert_non_null(buf);
	rewind(f);
	assert_int_equal(fread(buf, 1, (size_t)end, f), (size_t)end);
	buf[end] = 0;
	*len = (size_t)end;
	return buf;
}

/* memmem() is not POSIX. */
static const char *find(const char *hay, size_t len, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= len; i++)
		if (memcmp(hay + i, needle, k) == 0)
			return hay + i;
	return NULL;
}

/* Page objects: "/Type /Page" not followed by "s" (the page tree is /Pages). */
static size_t count_pages(const char *pdf, size_t len)
{
	size_t n = 0;
	const char *key = "/Type /Page";
	for (const char *p = pdf; (p = find(p, len - (size_t)(p - pdf), key)); p += strlen(key))
		if (p[strlen(key)] != 's')
			n++;
	return n;
}

static size_t count(const char *pdf, size_t len, const char *key)
{
	size_t n = 0;
	for (const char *p = pdf; (p = find(p, len - (size_t)(p - pdf), key)); p += strlen(key))
		n++;
	return n;
}

static struct pe_figure *line_figure(const double *x, const double *y, size_t n)
{
	struct pe_figure *fig = pe_figure_create(1, 1);
	assert_non_null(fig);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	assert_int_equal(pe_panel_add_line(p, "a line", x, y, n), PE_OK);
	assert_int_equal(pe_figure_set_title(fig, "a figure"), PE_OK);
	return fig;
}

static void three_pages(void **state)
{
	(void)state;
	double x[] = {0, 1, 2, 3}, y[] = {1, 0, 1, 0};
	static const char *const header[] = {"metric", "a", "b"};
	static const char *const cells[] = {"x", "1", "2", "y", "3.25", NULL};
	struct pe_table table = {"numbers", 2, 3, header, cells};
	static const char *const lines[] = {"first line", "second line"};
	struct pe_text_page page = {"A title", lines, 2, &table, 1};

	FILE *f = tmpfile();
	assert_non_null(f);
	struct pe_document *doc = pe_document_create(f, 842, 595);
	assert_non_null(doc);
	assert_int_equal(pe_document_set_title(doc, "the document"), PE_OK);
	assert_int_equal(pe_document_page_count(doc), 0);
	assert_int_equal(pe_document_add_text_page(doc, &page), PE_OK);
	struct pe_figure *fig = line_figure(x, y, 4);
	assert_int_equal(pe_document_add_figure(doc, fig, NULL, 0), PE_OK);
	static const char *const notes[] = {"a note under the figure", NULL};
	assert_int_equal(pe_document_add_figure(doc, fig, notes, 2), PE_OK);
	/* Notes must leave the figure most of the page. */
	const char *many[40] = {0};
	assert_int_equal(pe_document_add_figure(doc, fig, many, 40), PE_EINVAL);
	pe_figure_destroy(fig);
	assert_int_equal(pe_document_page_count(doc), 3);
	assert_int_equal(pe_document_finish(doc), PE_OK);
	/* Finished: nothing more can be added or finished again. */
	assert_int_equal(pe_document_add_text_page(doc, &page), PE_EINVAL);
	assert_int_equal(pe_document_finish(doc), PE_EINVAL);
	pe_document_destroy(doc);

	size_t len;
	char *pdf = slurp(f, &len);
	assert_memory_equal(pdf, "%PDF-", 5);
	assert_true(len > 6 && find(pdf + len - 7, 7, "%%EOF"));
	assert_int_equal(count_pages(pdf, len), 3);
	/* Every page has the document's size: A4 landscape. */
	assert_int_equal(count(pdf, len, "/MediaBox [ 0 0 842 595 ]"), 3);
	/* Vector text: fonts embedded, the title in the metadata. */
	assert_true(count(pdf, len, "/FontFile") >= 1);
	assert_int_equal(count(pdf, len, "(the document)"), 1);
	free(pdf);
	fclose(f);
}

static void errors(void **state)
{
	(void)state;
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_null(pe_document_create(f, 10, 595));
	assert_null(pe_document_create(f, 842, 20000));
	assert_null(pe_document_create(NULL, 842, 595));

	/* No page: not a document. */
	struct pe_document *doc = pe_document_create(f, 842, 595);
	assert_non_null(doc);
	assert_int_equal(pe_document_finish(doc), PE_EINVAL);
	pe_document_destroy(doc);
	pe_document_destroy(NULL);

	/* A table of cells without the cells. */
	doc = pe_document_create(f, 842, 595);
	struct pe_table bad = {NULL, 2, 2, NULL, NULL};
	struct pe_text_page page = {"t", NULL, 0, &bad, 1};
	assert_int_equal(pe_document_add_text_page(doc, &page), PE_EINVAL);

	/* 2000 rows cannot fit on a page even at 4 pt: an error, not unreadable text. */
	const char **cells = calloc(2000, sizeof(*cells));
	assert_non_null(cells);
	for (size_t i = 0; i < 2000; i++)
		cells[i] = "1.0";
	struct pe_table tall = {NULL, 2000, 1, NULL, cells};
	page.tables = &tall;
	assert_int_equal(pe_document_add_text_page(doc, &page), PE_ERANGE);
	/* 40 rows shrink to fit. */
	tall.rows = 40;
	assert_int_equal(pe_document_add_text_page(doc, &page), PE_OK);
	assert_int_equal(pe_document_page_count(doc), 1);
	assert_int_equal(pe_document_finish(doc), PE_OK);
	pe_document_destroy(doc);
	free(cells);
	fclose(f);
}

static void write_failure_is_eio(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "wb");
	if (!f)
		skip();
	struct pe_document *doc = pe_document_create(f, 842, 595);
	assert_non_null(doc);
	static const char *const lines[] = {"text"};
	struct pe_text_page page = {"title", lines, 1, NULL, 0};
	enum pe_status s = pe_document_add_text_page(doc, &page);
	if (s == PE_OK)
		s = pe_document_finish(doc);
	assert_int_equal(s, PE_EIO);
	pe_document_destroy(doc);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(three_pages),
	        cmocka_unit_test(errors),
	        cmocka_unit_test(write_failure_is_eio),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
