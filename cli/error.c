#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

const char *cli_command_name;
int cli_progress_line;

/* A message starts on a clean line, not after a progress line. */
static void clear_progress(void)
{
	if (cli_progress_line) {
		fputs("\r\033[K", stderr);
		cli_progress_line = 0;
	}
}

__attribute__((format(printf, 1, 0))) static void vreport(const char *fmt, va_list ap)
{
	clear_progress();
	fputs("posenc: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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
	fputs("posenc: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
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
