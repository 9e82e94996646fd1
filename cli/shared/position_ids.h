/*
 * cli/shared/position_ids.h - --position-ids FILE: explicit M-RoPE (t, h, w) ids
 *
 * A CSV with three columns t,h,w (an optional header line), or an NPY
 * array of shape (n, 3) or (3, n) (transformers' position_ids[:, 0, :]),
 * one triple per token; only mrope specs take them.
 */
#ifndef POSENC_CLI_POSITION_IDS_H
#define POSENC_CLI_POSITION_IDS_H

#include <posenc/scheme.h>

#include "shared/options.h"

/*
 * cli_position_ids_apply() - give scheme @s the ids of --position-ids
 *
 * @count: set to the number of tokens in the file.
 * @return 0 or an exit code after reporting (not mrope, a bad file).
 */
int cli_position_ids_apply(const struct cli_common *o, struct pe_scheme *s, size_t *count);

/*
 * cli_position_ids_note() - say on stderr (unless -q) which position ids
 * tokens first..first+n-1 of mrope scheme @s get; nothing for other schemes.
 *
 * @return 0, or an exit code after reporting ids past 2^53.
 */
int cli_position_ids_note(const struct cli_common *o, const struct pe_scheme *s, uint64_t first,
                          size_t n);

/*
 * cli_position_ids_forget() - drop the ids kept for this run
 *
 * A run reads the file once; the next run in the same process (cli/library.c)
 * must read it again, as it may have changed.
 */
void cli_position_ids_forget(void);

#endif
