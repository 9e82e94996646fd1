/*
 * cli/shared/npy_panels.h - a symmetric matrix into an NPY file from its
 * upper-triangle panels
 */
#ifndef POSENC_CLI_NPY_PANELS_H
#define POSENC_CLI_NPY_PANELS_H

#include <posenc/pairwise.h>
#include <posenc/write.h>

#include "shared/options.h"
#include "shared/output.h"

/*
 * npy_panels_write() - the n x n matrix of @src into the open regular file
 * @file, from pe_pairwise_rows_upper() panels: each panel's rows go to their
 * place and its columns, mirrored, to the later rows' places (positioned
 * writes, through row_pages.h), so every cell is computed once per pair, as
 * in the whole matrix, in memory of a panel.
 *
 * @return PE_OK, or the status that stopped it; *compute_failed says whether
 * the computation (not the file) failed, errno is kept for a failed write.
 */
enum pe_status npy_panels_write(struct cli_file *file, struct pe_pairwise_rows *src, size_t n,
                                enum pe_dtype dtype, const struct cli_common *o,
                                int *compute_failed);

/*
 * panels_write_ordered() - the same matrix in row order, as CSV (@csv) or
 * NPY of @dtype, to any stream (a pipe, standard output): the panels'
 * columns wait in an unnamed scratch file in $TMPDIR or /tmp (the page
 * cache, not this process's memory) until their rows are written. @first: the axis of
 * the rows (label and first position). Returns as npy_panels_write().
 */
enum pe_status panels_write_ordered(struct cli_file *file, struct pe_pairwise_rows *src,
                                    const struct pe_axis *first, size_t n, int csv,
                                    enum pe_dtype dtype, const struct cli_common *o,
                                    int *compute_failed);

/* npy_panels_scratch_open() - an unnamed read-write file in $TMPDIR (or
 * /tmp), gone when closed; NULL with errno on failure. */
FILE *npy_panels_scratch_open(void);

/* Whether this host's doubles and floats are the NPY file's little-endian bytes. */
int npy_panels_host_ok(void);

#endif
