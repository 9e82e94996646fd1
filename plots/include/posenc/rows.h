/*
 * posenc/rows.h - a matrix delivered one row at a time
 *
 * Writers and resamplers that must not hold a whole matrix (32768 x 32768
 * doubles are 8 GiB) pull its rows from the caller through this callback.
 */
#ifndef POSENC_ROWS_H
#define POSENC_ROWS_H

#include <stddef.h>

#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * pe_row_fn - fill @buf with row @row of a matrix (its width is known to the
 * caller of the consumer); consumers ask for rows 0, 1, 2, ... in order, each
 * once.
 *
 * @return PE_OK, or any other status to stop the consumer, which then returns
 * that status unchanged.
 */
typedef enum pe_status (*pe_row_fn)(void *ctx, size_t row, double *buf);

#ifdef __cplusplus
}
#endif

#endif
