/*
 * cli/options.h - the options every command shares, parsed strictly
 *
 * A command lists CLI_COMMON_SHORT and CLI_COMMON_LONG in its getopt_long
 * tables next to its own options and hands every option it does not know
 * to cli_common_option(). Numbers are checked whole: "-n 12x" and "-d -4"
 * are usage errors, never 12 or garbage.
 */
#ifndef POSENC_CLI_OPTIONS_H
#define POSENC_CLI_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include <posenc/encode.h>
#include <posenc/scheme.h>
#include <posenc/write.h>

/* Codes of long-only options; commands number their own from CLI_OPT_COMMAND. */
enum {
	CLI_OPT_BASE = 1000,
	CLI_OPT_START,
	CLI_OPT_DTYPE,
	CLI_OPT_CMAP,
	CLI_OPT_VMIN,
	CLI_OPT_VMAX,
	CLI_OPT_TITLE,
	CLI_OPT_WIDTH,
	CLI_OPT_HEIGHT,
	CLI_OPT_RAW,
	CLI_OPT_MAX_MEMORY,
	CLI_OPT_COMMAND = 2000,
};

/* The leading ':' makes getopt report a missing argument as ':'. */
#define CLI_COMMON_SHORT ":hqs:n:d:o:"

#define CLI_COMMON_LONG                                                                            \
	{"help", no_argument, NULL, 'h'}, {"quiet", no_argument, NULL, 'q'},                       \
	        {"scheme", required_argument, NULL, 's'},                                          \
	        {"positions", required_argument, NULL, 'n'},                                       \
	        {"dim", required_argument, NULL, 'd'}, {"output", required_argument, NULL, 'o'},   \
	        {"base", required_argument, NULL, CLI_OPT_BASE},                                   \
	        {"start", required_argument, NULL, CLI_OPT_START},                                 \
	        {"dtype", required_argument, NULL, CLI_OPT_DTYPE},                                 \
	        {"cmap", required_argument, NULL, CLI_OPT_CMAP},                                   \
	        {"vmin", required_argument, NULL, CLI_OPT_VMIN},                                   \
	        {"vmax", required_argument, NULL, CLI_OPT_VMAX},                                   \
	        {"title", required_argument, NULL, CLI_OPT_TITLE},                                 \
	        {"width", required_argument, NULL, CLI_OPT_WIDTH},                                 \
	        {"height", required_argument, NULL, CLI_OPT_HEIGHT},                               \
	        {"raw", no_argument, NULL, CLI_OPT_RAW},                                           \
	{                                                                                          \
		"max-memory", required_argument, NULL, CLI_OPT_MAX_MEMORY                          \
	}

/* The help lines of the common options, for each command's --help. */
extern const char cli_common_help[];

struct cli_common {
	const char *specs[64]; /* -s, in order */
	size_t nspecs;
	double bases[64]; /* --base */
	const char *base_texts[64];
	size_t nbases;
	size_t n; /* -n; 0 = the command's default */
	size_t d; /* -d; 0 = the command's default */
	uint64_t start;
	const char *output; /* -o; NULL = <command>.png */
	enum pe_dtype dtype;
	const char *cmap;
	double vmin, vmax; /* NaN = automatic */
	const char *title;
	unsigned width, height; /* 0 = default */
	int raw;
	int quiet;
	int help;
	uint64_t max_memory; /* bytes */
};

/* Fills the defaults (max_memory from the machine's memory). */
void cli_common_init(struct cli_common *o);

/*
 * cli_common_option() - handle one option getopt_long returned
 *
 * @return 0 if handled, 1 if the option is not a common one (the command
 * handles it), or the exit code of a usage error already reported (missing
 * argument, unknown option, bad value).
 */
int cli_common_option(struct cli_common *o, int opt, const char *arg, char **argv);

/*
 * cli_parse_count() - a whole number in [min, max], strictly
 *
 * Accepts 123 and an exact 1e6; reports "option '<name>': ..." itself.
 * @return 0, or CLI_USAGE after reporting.
 */
int cli_parse_count(const char *name, const char *arg, uint64_t min, uint64_t max, uint64_t *out);

/* A finite double; @return 0 or CLI_USAGE after reporting. */
int cli_parse_double(const char *name, const char *arg, double *out);

/*
 * cli_parse_positions() - a comma-separated list of whole numbers
 *
 * @out: newly allocated (free()); @count set. @return 0 or an exit code.
 */
int cli_parse_positions(const char *name, const char *arg, uint64_t **out, size_t *count);

/* Reports a stray operand after the options; @return 0 if there is none. */
int cli_no_operands(int argc, char **argv);

/*
 * cli_schemes() - the schemes named by -s and --base
 *
 * No -s means @default_spec. Each sinusoidal or rope spec is crossed with
 * each --base value (spec + ",base=B"); other schemes appear once. @max is
 * how many schemes the command accepts.
 *
 * @out: newly allocated array of schemes; free with cli_schemes_free().
 * @return 0 or an exit code after reporting.
 */
int cli_schemes(const struct cli_common *o, const char *default_spec, size_t max,
                struct pe_scheme ***out, size_t *count);
void cli_schemes_free(struct pe_scheme **schemes, size_t count);

/*
 * cli_check_memory() - refuse an allocation over the --max-memory budget
 *
 * @what: "the 1000000 x 1000000 distance matrix"; @hint: what to do instead.
 * @return 0, or CLI_FAILURE after "needs X, more than the budget of Y".
 */
int cli_check_memory(const struct cli_common *o, double bytes, const char *what, const char *hint);

/* The memory budget in force (--max-memory or its default), for messages. */
extern uint64_t cli_budget;

/* Bytes the heap holds now (glibc's mallinfo2; 0 where unknown). */
uint64_t cli_memory_in_use(void);

/*
 * cli_budget_advice() - ", or raise the budget (--max-memory 40M)" for a
 * need of @bytes, or a note that the machine lacks the memory, into @buf
 */
void cli_budget_advice(double bytes, char *buf, size_t cap);

/* Human-readable bytes ("7.3 GiB") into buf (at least 32 bytes). */
const char *cli_format_bytes(double bytes, char *buf);

#endif
