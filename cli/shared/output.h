/*
 * cli/shared/output.h - where results go: format by extension, atomic files
 *
 * A file is written to a temporary name in its own folder and renamed over
 * the target only once complete, so a failed or interrupted run leaves the
 * previous file untouched and no stray file behind (every fatal signal
 * that can be caught removes the temporary files). The replacement keeps
 * the mode (and, where allowed, the owner and group) of the file it
 * replaces; a symbolic link is followed and the file it points to is
 * replaced; a file with several hard links is refused. Targets that are
 * not regular files (/dev/null, /dev/stdout, FIFOs) are written directly.
 */
#ifndef POSENC_CLI_OUTPUT_H
#define POSENC_CLI_OUTPUT_H

#include <stdio.h>

#include <posenc/matrix.h>
#include <posenc/write.h>

#include "shared/options.h"

enum cli_format {
	CLI_FORMAT_CSV,
	CLI_FORMAT_NPY,
	CLI_FORMAT_PNG,
	CLI_FORMAT_SVG,
	CLI_FORMAT_PDF,
	CLI_FORMAT_HTML,
};

/* Whether a format is a figure (PNG, SVG, PDF). */
int cli_format_is_figure(enum cli_format f);

/*
 * cli_output_path() - the output path: -o, or "<command>.png"
 */
const char *cli_output_path(const struct cli_common *o, char *buf, size_t cap);

/*
 * cli_output_format() - the format of the output path by its extension
 *
 * "-" is CSV on stdout, and so is a character device or FIFO without a
 * known extension (/dev/stdout). @return 0, or CLI_USAGE after reporting an unknown
 * extension or --dtype/--raw that do not fit the format.
 */
int cli_output_format(const struct cli_common *o, const char *path, enum cli_format *out);

struct cli_file {
	FILE *f;
	char *path; /* the target */
	char *tmp;  /* the temporary file, NULL when writing directly */
	char *name; /* the path as given, for messages */
	int is_stdout;
	int direct; /* a device or FIFO, written in place */
	char *mem;  /* memory I/O (shared/memio.h): the buffer written, else NULL */
	size_t mem_len;
};

/*
 * cli_file_open() - open the target for writing (binary if @binary)
 *
 * @return 0, or CLI_FAILURE after reporting (missing folder, a directory,
 * no permission).
 */
int cli_file_open(struct cli_file *file, const char *path);

/* Finish: flush, close, rename into place. @return 0 or CLI_FAILURE. */
int cli_file_commit(struct cli_file *file);

/* Give up: close and remove the temporary file. Safe to call twice. */
void cli_file_abort(struct cli_file *file);

/*
 * cli_file_fail() - give up after a failed write and report it
 *
 * @st: the writer's status; PE_EIO takes its reason from @e (errno). A
 * reader of standard output or of a FIFO that went away (EPIPE) ends the
 * run quietly by SIGPIPE, as GNU tools do. @return CLI_FAILURE.
 */
int cli_file_fail(struct cli_file *file, enum pe_status st, int e);

/*
 * cli_stdout_failed() - report a failed write to standard output (errno @e)
 *
 * EPIPE ends the run quietly by SIGPIPE. @return CLI_FAILURE.
 */
int cli_stdout_failed(int e);

/* Installs the signal handlers that remove temporary files. */
void cli_output_install_signals(void);

/*
 * cli_write_matrix() - write a matrix as CSV or NPY to the output path
 *
 * Says on stderr what it wrote unless -q or stdout. @return an exit code.
 */
int cli_write_matrix(const struct cli_common *o, const char *path, enum cli_format format,
                     const struct pe_matrix *m, const struct pe_axis *rows,
                     const struct pe_axis *cols);

/* "wrote FILE (what)" on stderr unless -q or stdout. */
void cli_report_written(const struct cli_common *o, const char *path, const char *what);

#endif
