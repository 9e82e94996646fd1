/*
 * cli/shared/options.h - the options every command shares, parsed strictly
 *
 * Every command parses its arguments with one call to cli_parse_args():
 * the common options into struct cli_common, its own (long options coded
 * from CLI_OPT_COMMAND) through the function it gives. Numbers are checked
 * whole: "-n 12x" and "-d -4" are usage errors, never 12 or garbage.
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
	CLI_OPT_MAX_TIME,
	CLI_OPT_SIZE,
	CLI_OPT_DPI,
	CLI_OPT_FONT_SIZE,
	CLI_OPT_STYLE,
	CLI_OPT_LAYER,
	CLI_OPT_POSITION_IDS,
	CLI_OPT_COMMAND = 2000,
};

/* A figure side as given: a number and its unit (px: pixels at --dpi; pt: 1/72 in). */
struct cli_length {
	double value; /* 0 = not given */
	int px;       /* 1: value in pixels; 0: in points (in, cm and mm converted) */
};

/* --style presets: sizes, text and dpi for a use. */
enum cli_style {
	CLI_STYLE_DEFAULT,
	CLI_STYLE_PAPER,  /* a 3.5 in column (7 in for grids), 9 pt text, 300 dpi */
	CLI_STYLE_SLIDES, /* 10 in wide, 14 pt text, 150 dpi */
};

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
	struct cli_length width, height; /* --width, --height, --size */
	double dpi;                      /* 0 = the style's (100 by default) */
	double font_size;                /* points; 0 = the style's */
	enum cli_style style;
	int raw;
	int quiet;
	int help;
	uint64_t max_memory;      /* bytes */
	double max_time;          /* seconds: --max-time, the work a run may start */
	const char *layer;        /* --layer: a model's layer group or layer index */
	const char *position_ids; /* --position-ids FILE: mrope (t, h, w) ids per token */
	int d_given;              /* -d was given (a model's head width is the default) */
	size_t model_d;     /* the head width of the first model spec, the -d of plain specs; 0 if
	                       none (each model keeps its own: its specs say head=) */
	double model_train; /* its training context; 0 if none */
};

/*
 * Groups of common options a command takes; -o, -q and -h every command takes.
 * An option of a group the command does not take is a usage error, and its
 * --help leaves it out: the help is the contract.
 */
enum {
	CLI_TAKES_SCHEME = 1u << 0,       /* -s */
	CLI_TAKES_LAYER = 1u << 1,        /* --layer */
	CLI_TAKES_BASE = 1u << 2,         /* --base B: one scheme */
	CLI_TAKES_N = 1u << 3,            /* -n */
	CLI_TAKES_START = 1u << 4,        /* --start */
	CLI_TAKES_POSITION_IDS = 1u << 5, /* --position-ids */
	CLI_TAKES_DIM = 1u << 6,          /* -d */
	CLI_TAKES_DTYPE = 1u << 7,        /* --dtype: NPY output */
	CLI_TAKES_FIGURE = 1u << 8,       /* --title --dpi --font-size --style */
	CLI_TAKES_FIGURE_SIZE = 1u << 9,  /* --width --height --size */
	CLI_TAKES_RAW = 1u << 10,         /* --raw: a bare heatmap */
	CLI_TAKES_MAX_MEMORY = 1u << 11,
	CLI_TAKES_MAX_TIME = 1u << 12,
	CLI_TAKES_COLOUR = 1u << 13, /* --cmap --vmin --vmax: a heatmap's colour scale */
	CLI_TAKES_BASES = 1u << 14,  /* --base LIST: one scheme per base */
};
#define CLI_TAKES_POSITIONS (CLI_TAKES_N | CLI_TAKES_START)
#define CLI_TAKES_FIGURES   (CLI_TAKES_FIGURE | CLI_TAKES_FIGURE_SIZE)
#define CLI_TAKES_BUDGETS   (CLI_TAKES_MAX_MEMORY | CLI_TAKES_MAX_TIME)
/* What a command computing from schemes at positions takes to say which: -s, --layer,
 * -n, --start, --position-ids, -d (with CLI_TAKES_BASE or CLI_TAKES_BASES) */
#define CLI_TAKES_POSITIONED                                                                       \
	(CLI_TAKES_SCHEME | CLI_TAKES_LAYER | CLI_TAKES_POSITIONS | CLI_TAKES_POSITION_IDS |       \
	 CLI_TAKES_DIM)
/* The -o line of a command writing every format: a figure, a table or an array */
#define CLI_OUTPUT_ALL ".png .svg .pdf figure, .csv table, .npy array, - for CSV on stdout"

/* Why a command refuses the options of @groups: "freqs does not encode positions". */
struct cli_refusal {
	unsigned groups;
	const char *why;
};

/* What a command says of itself to cli_parse_args(): its help and the common options it takes. */
struct cli_command_options {
	const char *help;   /* its --help, "%s" where the common options it takes go */
	unsigned takes;     /* CLI_TAKES_* */
	const char *output; /* the -o line's text: the formats it writes ('\n' continues the
	                       line); NULL when the help documents -o itself */
	const char *writes; /* "plan writes text or CSV": why the output options it does not
	                       take are refused (figure, --dtype, --raw), and the others that
	                       @why does not name */
	const struct cli_refusal *why; /* {0, NULL} ended; may be NULL */
};

/* A command's own options: their getopt_long entries and what parses them. */
struct cli_own_options {
	const struct option *opts; /* codes from CLI_OPT_COMMAND, {NULL} ended; NULL: none */
	/* Stores option @opt's value @arg (NULL for a flag) into @ctx;
	 * @return 0 or an exit code after reporting. */
	int (*parse)(void *ctx, int opt, const char *arg);
	void *ctx;
};

/* cli_parse_args() returns it after --help: the command stops with CLI_OK. */
#define CLI_DONE (-1)

/*
 * cli_parse_args() - the option loop of every command
 *
 * Parses @argv (argv[0] the command): the common options @cmd takes into @o
 * (first set to their defaults, cli_common_init()), the command's own
 * through @own (may be NULL); refuses operands and the common options of
 * groups @cmd does not take ("option '--cmap' does not apply (...)"). With
 * -h it prints @cmd's help with the lines of the common options it takes in
 * place of its one "%s" (an option its own lines document keeps their text),
 * once every option was read (a bad option is reported first).
 *
 * @return 0 to run the command, CLI_DONE after the help, or an exit code
 * after reporting a usage error.
 */
int cli_parse_args(int argc, char **argv, const struct cli_command_options *cmd,
                   const struct cli_own_options *own, struct cli_common *o);

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

struct cli_model_info;

/*
 * cli_schemes_models() - cli_schemes(), and what each scheme keeps of its model
 *
 * @info: a newly allocated array parallel to *out (free()); a plain spec's
 *        entry is zeroed. -d given for a model at another width than its own
 *        is refused when its spec holds per-pair factors of its width
 *        (LongRoPE), else warned about, naming what changes.
 */
int cli_schemes_models(const struct cli_common *o, const char *default_spec, size_t max,
                       struct pe_scheme ***out, size_t *count, struct cli_model_info **info);
void cli_schemes_free(struct pe_scheme **schemes, size_t count);

/*
 * cli_check_memory() - refuse an allocation over the --max-memory budget
 *
 * @what: "the 1000000 x 1000000 distance matrix"; @hint: what to do instead.
 * @return 0, or CLI_FAILURE after "needs X, more than the budget of Y".
 */
int cli_check_memory(const struct cli_common *o, double bytes, const char *what, const char *hint);

/*
 * cli_check_time() - refuse work estimated over the --max-time budget
 *
 * @seconds: the estimate (from the work's size and a per-item cost measured
 * on a 2-core machine); @what: "the error curves of 1e10 positions";
 * @hint: what to do instead. The check is made before the work starts.
 * @return 0, or CLI_FAILURE after "would take about X, more than the time
 * budget of Y: HINT, or raise the budget (--max-time Z)".
 */
int cli_check_time(const struct cli_common *o, double seconds, const char *what, const char *hint);

/*
 * cli_time_over() - whether work estimated at @seconds passes --max-time
 *
 * @over:  then "about X, more than the time budget of Y", for work that is left
 *         out rather than refused;
 * @raise: then the option that lets it through ("--max-time 75s"), or "" when
 *         waiting for it is not conceivable (a week or more).
 * @return 1 over the budget, else 0 (@over and @raise untouched).
 * @over_cap of CLI_TIME_OVER_CAP holds every sentence (two durations of up to 31 bytes).
 */
#define CLI_TIME_OVER_CAP 128
int cli_time_over(const struct cli_common *o, double seconds, char *over, size_t over_cap,
                  char *raise, size_t raise_cap);

/*
 * cli_check_csv_read() - refuse reading a CSV file (a table, parsed whole)
 * estimated over --max-time, by its size before it is read
 *
 * 0 for anything else: NPY and safetensors files (read as far as needed, at
 * the speed of memory), pipes, paths that do not open (the reader says why).
 */
int cli_check_csv_read(const struct cli_common *o, const char *path, const char *hint);

/* cli_parse_duration() - seconds > 0 from "90", "90s", "10m", "2h"; 0 or -1 */
int cli_parse_duration(const char *arg, double *out);

/* The default of --max-time, in seconds. */
#define CLI_DEFAULT_MAX_TIME 30.0

/* The default of --max-memory: half of RAM, within ulimit -v and -d. */
uint64_t cli_default_budget(void);

/* The memory budget in force (--max-memory or its default), for messages. */
extern uint64_t cli_budget;

/* Bytes the heap holds now (glibc's mallinfo2; 0 where unknown), less the baseline. */
uint64_t cli_memory_in_use(void);

/* What the heap held before the run, when a library caller owns the rest
 * (cli/library.c: Python's arrays are not the run's); 0 in the program. */
extern uint64_t cli_memory_baseline;

/*
 * cli_budget_advice() - ", or raise the budget (--max-memory 40M)" for a
 * need of @bytes, or a note that the machine lacks the memory, into @buf
 */
void cli_budget_advice(double bytes, char *buf, size_t cap);

/* Human-readable bytes ("7.3 GiB") into buf (at least 32 bytes). */
const char *cli_format_bytes(double bytes, char *buf);

#endif
