/*
 * cli/figures/raw.h - `-o x.png --raw`: the bare matrix, one pixel per cell
 *
 * An 8-bit palette PNG (posenc/rawpng.h) streamed in chunks of rows from
 * the library, so an n x n matrix never exists in memory: 32768 x 32768
 * needs tens of MiB, not 8 GiB. Schemes without offset structure (learned,
 * binary, files, l1/linf) hold their n x d vectors when they take at most
 * a quarter of --max-memory, and produce them again per chunk otherwise.
 *
 * Colours, as the figures choose them:
 * - the map: --cmap, else viridis, or RdBu_r for signed data (corr always;
 *   encode when a value is negative);
 * - the limits: --vmin/--vmax, else the exact range of the data (distance:
 *   its smallest and largest cell, from the offset kernel in O(n) for
 *   sinusoidal and RoPE l2/cosine, else one pass over the upper triangle),
 *   symmetric -m..m about 0 for signed data (corr: -1..1, as its diagonal
 *   is 1); one given limit on signed data mirrors the other;
 * - a pixel is entry trunc((v - vmin) / (vmax - vmin) * 256) of the map,
 *   clamped to 0..255;
 * - NaN cells (the corr of a constant vector, such as RoPE's position 0)
 *   take the middle entry (128) of a diverging map, its neutral near-white
 *   that reads as "no correlation", and entry 0 of a sequential one: a
 *   palette PNG has no spare colour for them.
 */
#ifndef POSENC_CLI_RAW_H
#define POSENC_CLI_RAW_H

#include <posenc/encode.h>
#include <posenc/pairwise.h>

#include "shared/options.h"

/* Palette entries of NaN cells (see above). */
#define RAW_NAN_DIVERGING  128
#define RAW_NAN_SEQUENTIAL 0

/*
 * write_raw() - the n x n matrix of metric @m of @v as a raw PNG at @path
 *
 * @return an exit code, after reporting any error (no partial file).
 */
int write_raw(const struct cli_common *o, const char *path, const struct pe_vectors *v,
              enum pe_metric m);

/* write_raw_encode() - the n x d encoding of @v as a raw PNG at @path */
int write_raw_encode(const struct cli_common *o, const char *path, const struct pe_vectors *v);

#endif
