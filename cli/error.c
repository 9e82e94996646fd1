#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "shared/options.h"

const char *cli_command_name;
int cli_progress_line;

/* Code points that reorder or hide text on a terminal (bidirectional controls). */
static int is_bidi_control(unsigned long cp)
{
	return cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x061c;
}

/* The length of a valid UTF-8 sequence at s (its code point in *cp), or 0. */
static size_t utf8_seq(const unsigned char *s, unsigned long *cp)
{
	size_t len;
	unsigned long v, min;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		v = s[0] & 0x1f;
		min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		v = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		v = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

int cli_utf8_valid(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	for (size_t i = 0; s[i];) {
		unsigned long cp;
		size_t n = s[i] < 0x80 ? 1 : utf8_seq(s + i, &cp);
		if (n == 0)
			return 0;
		i += n;
	}
	return 1;
}

/* @backslash: also write '\\' as "\\\\" (a raw name shown unambiguously); messages
 * leave it, as the text in them may be escaped already (a name, a file's bytes). */
static char *escape(const char *text, int backslash)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t len = strlen(text);
	/* At most 4 bytes out per byte in (\xHH for 1, \u0085 for 2, \u202e for 3). */
	char *out = malloc(4 * len + 1);
	if (!out)
		return NULL;
	char *o = out;
	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		if (c == '\\' && backslash) {
			*o++ = '\\';
			*o++ = '\\';
			i++;
		} else if (c == '\n' || c == '\r' || c == '\t') {
			*o++ = '\\';
			*o++ = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			o += sprintf(o, "\\x%02x", c);
			i++;
		} else if (c < 0x80) {
			*o++ = (char)c;
			i++;
		} else {
			unsigned long cp;
			size_t n = utf8_seq(s + i, &cp);
			if (n == 0) {
				o += sprintf(o, "\\x%02x", c);
				i++;
			} else if (cp < 0xa0 || is_bidi_control(cp)) {
				/* C1 controls (CSI 0x9b starts escape sequences) and bidi. */
				o += sprintf(o, "\\u%04lx", cp);
				i += n;
			} else {
				memcpy(o, s + i, n);
				o += n;
				i += n;
			}
		}
	}
	*o = '\0';
	return out;
}

char *cli_escape(const char *text)
{
	return escape(text, 1);
}

/* A message starts on a clean line, not after a progress line. */
static void clear_progress(void)
{
	if (cli_progress_line) {
		fputs("\r\033[K", stderr);
		cli_progress_line = 0;
	}
}

/* How much of a long message's start and end is kept. */
#define KEEP 600

/* @i moved back to the start of the UTF-8 character it falls in. */
static size_t start_of_char(const char *s, size_t i)
{
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

/*
 * Messages carry text from files and from the command line (tensor names,
 * JSON keys, paths): control characters, escape sequences and newlines in
 * them are written escaped, so that a file can neither drive the terminal
 * nor forge a second "posenc: error:" line. @return newly allocated, or NULL.
 */
__attribute__((format(printf, 1, 0))) static char *format_escaped(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	char small[512];
	int need = vsnprintf(small, sizeof(small), fmt, ap);
	char *msg = small;
	if (need >= (int)sizeof(small)) {
		msg = malloc((size_t)need + 1);
		if (msg)
			vsnprintf(msg, (size_t)need + 1, fmt, ap2);
		else
			msg = small; /* truncated, still escaped */
	}
	va_end(ap2);
	char *safe = need >= 0 ? escape(msg, 0) : NULL;
	if (msg != small)
		free(msg);
	/* a 100 kB spec echoed whole would bury the reason: the middle goes */
	size_t len = safe ? strlen(safe) : 0;
	if (len > 2 * KEEP + 64) {
		size_t cut = start_of_char(safe, KEEP), resume = start_of_char(safe, len - KEEP);
		char mid[64];
		int m = snprintf(mid, sizeof(mid), " [... %zu bytes ...] ", resume - cut);
		memcpy(safe + cut, mid, (size_t)m);
		memmove(safe + cut + m, safe + resume, len - resume + 1);
	}
	return safe;
}

__attribute__((format(printf, 1, 0))) static void vreport(const char *fmt, va_list ap)
{
	clear_progress();
	char *safe = format_escaped(fmt, ap);
	fputs("posenc: error: ", stderr);
	fputs(safe ? safe : "(the message could not be formatted)", stderr);
	/* Memory ran out within the budget (its backstop, or ulimit): say what to raise. */
	if (safe && cli_budget && strstr(safe, "out of memory") && !strstr(safe, "budget")) {
		char have[32];
		fprintf(stderr, " (memory budget %s: --max-memory raises it, within the RAM)",
		        cli_format_bytes((double)cli_budget, have));
	}
	fputc('\n', stderr);
	free(safe);
}

int cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	return CLI_FAILURE;
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	if (cli_command_name)
		fprintf(stderr, "Try 'posenc %s --help'.\n", cli_command_name);
	else
		fputs("Try 'posenc --help'.\n", stderr);
	return CLI_USAGE;
}

void cli_note(int quiet, const char *fmt, ...)
{
	if (quiet)
		return;
	clear_progress();
	va_list ap;
	va_start(ap, fmt);
	char *safe = format_escaped(fmt, ap);
	va_end(ap);
	fputs("posenc: ", stderr);
	fputs(safe ? safe : "(the message could not be formatted)", stderr);
	fputc('\n', stderr);
	free(safe);
}

void cli_eprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *safe = format_escaped(fmt, ap);
	va_end(ap);
	fputs(safe ? safe : "(the message could not be formatted)", stderr);
	free(safe);
}

int cli_exit_for(enum pe_status st)
{
	switch (st) {
	case PE_OK:
		return CLI_OK;
	case PE_EINVAL:
	case PE_ERANGE:
	case PE_EUNSUPPORTED:
		return CLI_USAGE;
	default:
		return CLI_FAILURE;
	}
}
