/*
 * Private string helpers of the library: a growable buffer and the
 * allocating printf variants C11 lacks.
 */
#ifndef POSENC_STRUTIL_H
#define POSENC_STRUTIL_H

#include <stdarg.h>
#include <stddef.h>

/* A growable NUL-terminated buffer; zero-initialise it. After a failed
 * allocation every later add is a no-op and failed stays set. */
struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
	int failed;
};

int strbuf_add(struct strbuf *b, const char *data, size_t len);
int strbuf_addf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Newly allocated copies; NULL when out of memory. Free with free(). */
char *pe_strdup(const char *s);
char *pe_vasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
char *pe_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
