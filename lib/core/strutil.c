#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"

static int strbuf_grow(struct strbuf *b, size_t extra)
{
	if (b->failed)
		return -1;
	if (b->len + extra + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *nb = realloc(b->buf, cap);
	if (!nb) {
		b->failed = 1;
		return -1;
	}
	b->buf = nb;
	b->cap = cap;
	return 0;
}

int strbuf_add(struct strbuf *b, const char *data, size_t len)
{
	if (strbuf_grow(b, len) != 0)
		return -1;
	memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
	return 0;
}

int strbuf_addf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = pe_vasprintf(fmt, ap);
	va_end(ap);
	if (!text) {
		b->failed = 1;
		return -1;
	}
	int rc = strbuf_add(b, text, strlen(text));
	free(text);
	return rc;
}

char *pe_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *c = malloc(n);
	if (c)
		memcpy(c, s, n);
	return c;
}

char *pe_vasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (s)
		vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

char *pe_asprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = pe_vasprintf(fmt, ap);
	va_end(ap);
	return s;
}
