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

/*
 * Reserves the disk blocks of the next @bytes to be written at @fd's
 * offset, beyond the end of the file (Linux fallocate, KEEP_SIZE): saves
 * ext4 the per-page work of delayed allocation. Quietly nothing where the
 * descriptor or file system cannot (pipes, tmpfs, other systems); a full
 * disk is left for the write to report. errno is kept.
 */
void wr_reserve(int fd, size_t bytes);

#endif
