/*
 * cli/shared/row_pages.h - a file of fixed-length rows filled segment by
 * segment, written in whole pages where a row's segments come in order
 *
 * Rows whose segments start and end off page boundaries (an NPY file's
 * 128-byte header shifts every cell) would make the kernel handle most
 * pages twice, in two partial writes, and each costs about as much as a
 * whole one. Here the short end of a segment past its last page boundary
 * waits, and goes out with the row's next segment when that one starts
 * where it ends: the pages between are then written once, whole. The
 * bytes in the file are the same either way.
 */
#ifndef POSENC_CLI_ROW_PAGES_H
#define POSENC_CLI_ROW_PAGES_H

#include <stddef.h>
#include <sys/types.h>

struct cli_row_pages;

/*
 * cli_row_pages_create() - a writer of @rows rows of @row_bytes each, the
 * first at offset @base of the open descriptor @fd (kept open by the
 * caller until cli_row_pages_destroy()).
 *
 * @return the writer, owned by the caller, or NULL when out of memory.
 */
struct cli_row_pages *cli_row_pages_create(int fd, off_t base, size_t row_bytes, size_t rows);

/*
 * cli_row_pages_put() - @len bytes of @buf as bytes [@at, @at + @len) of
 * row @row (@at + @len <= row_bytes), or as much of them as ends on a page
 * boundary, the rest kept for the row's next segment. Each byte of a row
 * is put at most once. @buf is not kept.
 *
 * @return 0, or -1 with errno set by the failed write.
 */
int cli_row_pages_put(struct cli_row_pages *w, size_t row, size_t at, const void *buf, size_t len);

/*
 * cli_row_pages_flush() - the bytes still kept, written: every byte put
 * is in the file afterwards.
 *
 * @return 0, or -1 with errno set by the failed write.
 */
int cli_row_pages_flush(struct cli_row_pages *w);

/*
 * cli_pwrite_all() - all @len bytes of @buf at offset @at of @fd, resuming
 * after short and interrupted writes.
 *
 * @return 0, or -1 with errno set by the failed write (EIO for one that
 * wrote nothing).
 */
int cli_pwrite_all(int fd, const void *buf, size_t len, off_t at);

/* cli_row_pages_destroy() - frees @w (NULL is allowed); kept bytes are dropped. */
void cli_row_pages_destroy(struct cli_row_pages *w);

#endif
