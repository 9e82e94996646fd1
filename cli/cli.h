/*
 * cli/cli.h - what every command shares: exit codes and error reporting
 *
 * Errors are one line on stderr, "posenc: error: <what failed>: <why>";
 * usage errors add a hint line naming the command's --help.
 */
#ifndef POSENC_CLI_H
#define POSENC_CLI_H

#include <posenc/status.h>

enum cli_exit {
	CLI_OK = 0,
	CLI_FAILURE = 1, /* runtime: I/O, memory, bad data in a file */
	CLI_USAGE = 2,   /* a bad option or value */
};

/*
 * cli_main() - run the program's arguments (argv[0] the program name)
 *
 * main() and the library build (cli/library.c) call it. @return the exit status.
 */
int cli_main(int argc, char **argv);

/* The running command's name ("encode"), for hints; set by main. */
extern const char *cli_command_name;

/* Set while a progress line (ending without a newline) is on a terminal. */
extern int cli_progress_line;

/* Prints "posenc: error: ..." and returns CLI_FAILURE. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "posenc: error: ..." and a --help hint, returns CLI_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * cli_escape() - text made safe for a terminal
 *
 * Backslash, newline, tab and CR become \\ \n \t \r; other control bytes
 * and bytes that are not UTF-8 \xHH; C1 controls and bidirectional
 * controls \uHHHH. Everything else (printable UTF-8) is kept.
 * @return newly allocated (free()), or NULL when out of memory.
 */
char *cli_escape(const char *text);

/*
 * cli_note() - one line of information on stderr, "posenc: <text>"
 *
 * Every non-error message goes through here: nothing with @quiet (-q), and
 * never glued to a progress line.
 */
void cli_note(int quiet, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* CLI_USAGE for statuses that mean bad input, CLI_FAILURE otherwise. */
int cli_exit_for(enum pe_status st);

#endif
