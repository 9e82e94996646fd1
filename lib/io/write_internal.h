/*
 * write_internal.h - pieces the writers share (not installed)
 */
#ifndef POSENC_WRITE_INTERNAL_H
#define POSENC_WRITE_INTERNAL_H

#include <stddef.h>

#include <posenc/write.h>

/* Row @i's coordinate cell as CSV text (quoted if a label needs it) into
 * @out, which has room for wr_row_cell_max() bytes; @return its length. */
size_t wr_row_cell(const struct pe_axis *a, size_t i, char *out);
size_t wr_row_cell_max(const struct pe_axis *a, size_t i);

#endif
