/*
 * cli/shared/pairwise_cli.h - what distance, corr, scatter and profile share
 *
 * Each of them analyses one scheme's position vectors and writes a table;
 * the steps around the computation (scheme, vectors, output path and
 * format, memory budget) are the same and live here.
 */
#ifndef POSENC_CLI_PAIRWISE_H
#define POSENC_CLI_PAIRWISE_H

#include <posenc/pairwise.h>

#include "shared/options.h"
#include "shared/output.h"
#include "shared/vectors.h"

struct pw_run {
	struct cli_common o;
	struct pe_scheme **schemes;
	size_t count;
	struct cli_vectors v;
	char buf[64];
	const char *path;
	enum cli_format format;
};

/* What a pairwise command writes, for its estimate. */
enum pw_output { PW_OUT_FILE, PW_OUT_RAW, PW_OUT_FIGURE };

/* pw_estimate() - the seconds writing @out of @v's metric @m should take (costs.h) */
double pw_estimate(const struct pe_vectors *v, enum pe_metric m, enum pw_output out,
                   enum cli_format format);

/*
 * pw_check_time() - refuse a pairwise output estimated over --max-time,
 * before any of it is computed. @return 0, or CLI_FAILURE after the message.
 */
int pw_check_time(const struct cli_common *o, const struct pe_vectors *v, enum pe_metric m,
                  enum pw_output out, enum cli_format format);

/* Defaults of every pairwise command: -n 128 -d 64, as encode. */
#define PW_DEFAULT_N 128
#define PW_DEFAULT_D 64

/* --metric: l2, cosine, l1 or linf. @return 0 or CLI_USAGE after reporting. */
int pw_parse_metric(const char *arg, enum pe_metric *m);

/* The own-option parser of a command whose one option is --metric (ctx: enum pe_metric *). */
int pw_metric_option(void *ctx, int opt, const char *arg);

/*
 * pw_prepare() - after the options: the scheme (one), its vectors, the
 * output path and format (figure options checked). @return 0 or an exit code after reporting (then
 * call pw_finish).
 */
int pw_prepare(struct pw_run *r);

/*
 * pw_work_bytes() - the working memory of the pairwise library beyond its
 * result, for the budget check: @rows_held rows of d doubles (the rows a
 * path holds at once: blocks per thread, a small set kept whole, sampled
 * rows), the offset kernel's tables (about 32 d doubles) and row blocks
 * (16 d), and 64 bytes per position of @positions (norms, offset sums,
 * the positions). An upper bound, checked against peak RSS in the tests.
 */
double pw_work_bytes(const struct pe_vectors *v, double rows_held, double positions);

/* "L2 distance", "cosine distance (1 − cos)", "Pearson correlation", ...: a label for @m. */
const char *pw_metric_label(enum pe_metric m);

/* Reports a library failure "<what> failed: <status>"; @return the exit code. */
int pw_status_error(enum pe_status st, const char *what);

/* Frees what pw_prepare() made; safe after a failed or skipped prepare. */
void pw_finish(struct pw_run *r);

/*
 * pw_write_full() - write the n x n matrix of @m: as a heatmap of its
 * cell means at the figure's resolution for figure formats, else the full
 * matrix, refused (with the memory it would need) over --max-memory.
 * @noun: "distance" or "correlation". @return an exit code.
 */
int pw_write_full(struct pw_run *r, enum pe_metric m, const char *noun);

#endif
