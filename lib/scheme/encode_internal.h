/*
 * Private interface between the encoding dispatcher (encode.c) and the
 * per-scheme fillers. Each filler writes n rows of width d, row r being
 * position first + r, into dst; arguments are already validated.
 */
#ifndef POSENC_ENCODE_INTERNAL_H
#define POSENC_ENCODE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/encode.h>
#include <posenc/rope.h>

enum pe_status pe_sinusoidal_rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                                  double *dst);
enum pe_status pe_rope_rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                            enum pe_view view, double *dst);
void pe_learned_rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n, double *dst);
void pe_binary_rows(size_t d, uint64_t first, size_t n, double *dst);

/* A block's centre position and length, as pe_window_block() gives them. */
void pe_block_centre(const struct pe_block *b, double *centre, double *len);

/* Block r of a window: its centre position and its length. */
void pe_window_block(const struct pe_window *w, size_t r, double *centre, double *len);

/* sin(N w / 2) / (N sin(w / 2)): what a mean over N positions does to frequency w. */
double pe_block_damping(double n, double w);

enum pe_status pe_sinusoidal_window(const struct pe_scheme *s, size_t d, const struct pe_window *w,
                                    size_t r0, size_t count, double *dst);
enum pe_status pe_rope_window(const struct pe_scheme *s, size_t d, const struct pe_window *w,
                              size_t r0, size_t count, enum pe_view view, double *dst);
/* Block means at columns cols[0..ncols) only: rows of ncols values. */
enum pe_status pe_sinusoidal_blocks_cols(const struct pe_scheme *s, size_t d,
                                         const struct pe_block *blocks, size_t count,
                                         const size_t *cols, size_t ncols, double *dst);
enum pe_status pe_rope_blocks_cols(const struct pe_scheme *s, size_t d, enum pe_view view,
                                   const struct pe_block *blocks, size_t count, const size_t *cols,
                                   size_t ncols, double *dst);

/* Unscaled then scaled RoPE inverse frequencies (d_rot / 2 of them). */
enum pe_status pe_rope_theta(const struct pe_scheme *s, size_t d_rot, double *theta,
                             struct pe_rope_scaling_info *info);

/* Pair frequencies of a sinusoidal table (see pe_scheme_frequencies()). */
size_t pe_sinusoidal_frequencies(const struct pe_scheme *s, size_t d, double *w);

/*
 * The exact angle x * w (or x / w when divide is set) as hi + lo, then its
 * sine and cosine. hi is the double product numpy would form; lo carries
 * that rounding error, so sin/cos are those of the exact real product.
 */
void pe_exact_sincos(double x, double w, int divide, double *s, double *c, double *angle);

/*
 * The M-RoPE axis (0 temporal, 1 height, 2 width) pair @i of @pairs[3]
 * follows: in sections (Qwen2-VL's mrope_section) or @interleaved
 * (Qwen3-VL's apply_interleaved_mrope).
 */
int pe_mrope_axis(const unsigned pairs[3], int interleaved, size_t i);

#endif
