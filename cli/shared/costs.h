/*
 * costs.h - unit costs of posenc's work, for estimating a run before it starts
 *
 * Every command whose work grows with its options (n, d, offsets, heads, a
 * file's size) turns its size into seconds with these and refuses a run
 * over --max-time (cli_check_time()), naming the estimate and the budget
 * that lets it through. The values are CPU seconds (user + system, all
 * threads) per unit, measured with /usr/bin/time on the release build
 * (meson -Dbuildtype=release) on this project's 2-vCPU AMD EPYC VM, 4 KiB
 * pages, other jobs running (2026-11-25). Each comment names the run it
 * was measured on. They aim at the right order (within about 2x for large
 * jobs), not at precision: a faster machine only lets more through.
 */
#ifndef CLI_SHARED_COSTS_H
#define CLI_SHARED_COSTS_H

/* ---- the encoding, n x d values ---- */

/* encode -n 1e6 -d 512 -o x.npy (tmpfs): 13.1 s for 5.1e8 values */
#define CLI_COST_ENCODE_NPY 25e-9
/* encode -n 2e5 -d 512 -o x.csv: 10.4 s for 1.0e8 values (shortest decimal text) */
#define CLI_COST_ENCODE_CSV 100e-9
/* encode -s learned -n 2e5 -d 512 -o x.npy: 1.0 s for 1.0e8 values (a table built value by
 * value, vectorised since ef79b14; 3.7 s before); also what a learned table costs to build
 * before any other work (profile -s learned -n 2e5 -d 512 --at 0: 0.58 s, estimated 1.0;
 * encode -s learned -n 1e5 -d 4096 --dims 0,1: 2.4 s, estimated 4.1) */
#define CLI_COST_TABLE_VALUE 10e-9
/* encode -n 4096 -d 8192 --raw: 1.45 s for 3.4e7 pixels (values and PNG) */
#define CLI_COST_RAW_ENCODE 43e-9
/* --view phase written to a file: encode -s rope --view phase -n 2e5 -d 512 -o x.npy 2.96 s,
 * --view angle 1.61 s: the angle mod 2 pi about 14 ns a value more (x.csv, 5e4 x 512: 2.14 s).
 * Its figure needs no estimate: it draws at most 2^24 cells (the view refuses more), 0.4 s
 * (encode --view phase -n 32768 -d 512 -o x.png 0.39 s, -n 4096 -d 4096 0.29 s). */
#define CLI_COST_PHASE_VALUE 14e-9
/* encode -s rope --precision P: the table made whole in memory, value by value through P's
 * rounding. -n 2e5 -d 512 -o x.png: 1.13 s for 1e8 values (the figure about nothing more);
 * -o x.npy: 1.5-3.2 s (f64 3.2, f32 2.3, bf16 1.5, f16 2.4, f32/bf16 1.65: the table's pages
 * faulted, then written), the writing about 8 ns a value; -n 5e4 -o x.csv 2.3 s for 2.6e7
 * values, the text CLI_COST_CSV_VALUE. check --precision needs no cost of its own: it
 * computes the table of the dump's shape, no more than CLI_COST_CHECK_BYTE reads (a 205 MB
 * dump: 0.67-1.7 s with f32, bf16 and f16, estimated 1.0 s) */
#define CLI_COST_PRECISION_VALUE 12e-9
#define CLI_COST_NPY_WRITE_VALUE 8e-9

/* ---- pairwise matrices, n x n values ---- */

/* An offset-structured set (sinusoidal, RoPE; l2 and cosine): its rows are shifts of one
 * offset table, written as they are. distance -n 8192 -d 512 -o x.npy: 0.19 s, x.csv 0.52 s,
 * --raw (16384): 1.7 s for 2.7e8 pixels */
#define CLI_COST_OFFSET_NPY 3e-9
#define CLI_COST_OFFSET_CSV 8e-9
#define CLI_COST_OFFSET_RAW 6.3e-9
/* Its corr, from each position's sums: corr -n 8192 -d 512 -o x.npy: 0.45 s; corr -n 16384
 * -o x.csv: 23.3 s; corr -n 8192 --raw: 3.7 s */
#define CLI_COST_CORR_NPY 7e-9
#define CLI_COST_CORR_CSV 87e-9
#define CLI_COST_CORR_RAW 55e-9
/* A table's (learned, file): distance -s learned -n 8192 -d 768 -o x.npy: 1.8 s for 5.2e10
 * terms (BLAS Gram: l2, cosine, corr); -n 4096 -o x.csv: 1.65 s, the text about 60 ns a value;
 * --raw (8192): 7.0 s (each pair from its rows) */
#define CLI_COST_GRAM_TERM 0.035e-9
#define CLI_COST_CSV_VALUE 80e-9
#define CLI_COST_RAW_TERM  0.13e-9
/* --metric l1 -n 6000 -d 768 -o x.npy: 6.2 s for 2.8e10 terms (no BLAS: l1, linf) */
#define CLI_COST_DIRECT_TERM 0.23e-9
/* corr -n 4096 -d 2^20 -o x.png: 9.0 s for 4096 positions' sums of 2^19 pairs (exact sine
 * and cosine each); distance (no sums): 2.1 s */
#define CLI_COST_POSITION_PAIR 4e-9
/* distance -n 2^24 -d 512 -o x.png: 0.8 s for the 2^24 x 256 terms of its offset table */
#define CLI_COST_OFFSET_TERM 0.17e-9

/* ---- others ---- */

/* precision's figure draws one point per block and precision: precision -n 1e6 --block 1
 * -o x.png 1.6 s CPU against 0.22 s with the default 1000 blocks, for 3e6 points */
#define CLI_COST_CURVE_POINT 450e-9

/* bias -s alibi -n 8192 -o x.npy: 9.8 s for 8 x 6.7e7 values (4 KiB pages faulted); t5: 0.31 s
 * for 6.7e7; alibi:heads=2 -o x.csv: 18.9 s for 1.3e8 */
#define CLI_COST_BIAS_HEADS_NPY 18e-9
#define CLI_COST_BIAS_NPY       5e-9
#define CLI_COST_BIAS_CSV       140e-9
/* its figure's block means cost per position: bias -s t5 -n 1e8 -o x.png 8.3 s, alibi 1.5 s */
#define CLI_COST_BIAS_FIGURE_T5 83e-9
#define CLI_COST_BIAS_FIGURE    15e-9
/* profile -n 1e6 -d 512 --at 4 positions: 0.5 s to .csv, 0.21 s to .npy for 4e6 values;
 * -s learned -n 2e5 -d 512: 2.95 s, about 29 ns a value of the table */
#define CLI_COST_PROFILE_CSV 125e-9
#define CLI_COST_PROFILE_NPY 50e-9
/* scatter -n 4000 -d 512 --max-points 0 (8e6 pairs): 0.40 s to .png, 2.6 s to .csv (the
 * text); -s learned: 2.5 s, both metrics of each pair from its rows */
#define CLI_COST_SCATTER_PAIR 50e-9
#define CLI_COST_SCATTER_CSV  270e-9
#define CLI_COST_SCATTER_TERM 0.6e-9
/* check -s rope:base=500000 --against a 2e5 x 128 NPY dump (205 MB): 1.8 s read, compared and
 * diagnosed (0.56 s when it agrees); the same dump as CSV (500 MB): 7.1 s */
#define CLI_COST_CHECK_BYTE 5e-9
#define CLI_COST_CHECK_TEXT 16e-9
/* check's diagnosis, per value of the rows its fits use (at most 256; a column of frequencies
 * is one row), measured on the debugoptimized (-O2) build, other jobs running: a 256 x 4096
 * cos dump off by 1.01 12.4 s (12 us a value), 49 x 4000 of a constant 10.2 s (52 us),
 * 1 x 2e6 of a constant 126 s (63 us); a dump that agrees is not diagnosed (1 x 2e6: 3.9 s) */
#define CLI_COST_CHECK_DIAGNOSE_VALUE 25e-6
/* freqs -d 1e7 (5e6 pairs): 4.1 s to .csv, 20.2 s to .png (a point a pair and variant) */
#define CLI_COST_FREQS_PAIR   820e-9
#define CLI_COST_FREQS_FIGURE 4e-6
/* encode -n 1e5 -d 16384 --dims 0,1 -o x.png (whole rows, the columns kept): 18.5 s for
 * 1.6e9 values (-s learned: CLI_COST_TABLE_VALUE); a closed form's chosen columns
 * alone (-n 2^20 -d 2^24, 3 columns: 2.0 s) cost about 100 ns a position each (with the figure) */
#define CLI_COST_ROW_VALUE    11.3e-9
#define CLI_COST_COLUMN_VALUE 100e-9
/* decay -n 1e7 -d 512 -o x.npy: 0.88 s for 1e7 offsets of 256 pairs (closed forms); x.csv:
 * 2.0 s, the text about 110 ns an offset and scheme */
#define CLI_COST_DECAY_TERM  0.17e-9
#define CLI_COST_DECAY_VALUE 110e-9
/* decay -s learned -n 20000 -d 512: 83 s for the 2e8 pairs of every offset, 512 wide */
#define CLI_COST_DECAY_PAIR 0.81e-9
/* RoFormer's relative upper bound (decay --bound, compare and report): d / 2 sines, cosines
 * and a running hypotenuse an offset. decay -s rope --bound -n 1e6 -d 128 -o x.npy: 2.13 s for
 * 6.4e7 (offset, pair) terms; -n 2e5 -d 512: 1.57 s for 5.1e7; -n 1e7 -d 16: 3.1 s for 8e7 */
#define CLI_COST_BOUND_TERM 33e-9
/* report's distance profiles: three rows of the distance matrix over every position, made a
 * piece of positions at a time from the rows. report -s sinusoidal -n 4e6 -d 256 -o r.html:
 * 3.1 s, -d 64: 1.15 s (the other pages 0.4 s): about 0.8 ns a term of d and 20 ns a point */
#define CLI_COST_REPORT_PROFILE_TERM  0.8e-9
#define CLI_COST_REPORT_PROFILE_POINT 20e-9
/* usage: the rotary rows of every layer's query and key weights, read and squared
 * (pe_usage_values() counts them from the shapes before any is read). A llama-shaped
 * checkpoint in the page cache, 32 layers of q 2048 x 2048 and k 512 x 2048: BF16 0.51 s for
 * 1.7e8 values (8 layers of 4096-wide: the same), F32 0.24 s for 8.4e7, F16 0.83 s for 8.4e7
 * (its conversion). A checkpoint on a cold disk waits for its bytes besides (not CPU). */
#define CLI_COST_USAGE_VALUE     3e-9
#define CLI_COST_USAGE_F16_VALUE 10e-9
/* A CSV table read whole (cli_check_csv_read()): inspect, to find its shape, of a 503 MB
 * encode -n 1e5 -d 256 table: 3.1 s; -s file:path= of it, read as the table: 3.1 s (encode
 * -s file:path=e.csv -o y.png). NPY and safetensors files are read as far as needed, their
 * headers at most 10^8 bytes (the readers' limits): a 205 MB NPY table 0.08 s. A pipe's size
 * is not known before it is read: inspect takes at most 1 GiB of one
 * (PE_READ_INSPECT_STREAM_MAX, about 7 s), a table at most --max-memory. */
#define CLI_COST_CSV_READ_BYTE 6.2e-9

/* --position-ids FILE, read and parsed before the work they position: 99 MB of "t,h,w" text
 * (1e7 ids) 2.1 s, 29 MB 0.39 s; a float64 NPY of 1e7 x 3 (240 MB) 0.61 s */
#define CLI_COST_IDS_CSV_BYTE 20e-9
#define CLI_COST_IDS_NPY_BYTE 2.5e-9

/*
 * ---- no estimate: work bounded by a small constant ----
 *
 * model, layers and plan read a model's description, never its weights: an hf: config.json
 * of at most 64 MiB (model_spec.c) and at most 4096 layers (model_hf), a model: preset, or
 * the metadata of a GGUF file (its tensors are skipped) with at most 10^6 layers. Measured:
 * layers -s gguf:F -o x.png with 999999 layers 0.59 s, -o x.csv 0.33 s; model and plan 0.01 s
 * (they work per layer group, of which there are a few); 4096 layers of a config: 0.02 s.
 * A GGUF's metadata is walked key by key, 1.4 ns a byte (a 180 MB token list: 0.25 s); its
 * size is not known before the walk (the header gives counts, and the file's size is mostly
 * tensor data), and real models' metadata (a tokenizer's strings) are a few MB: milliseconds.
 * usage --activations reads a [layers, heads, head_dim] array within --max-memory (its
 * values are few). encode --view phase draws at most 2^24 cells and --pair and --dims at
 * most 2^20 positions (encode_views.c): 0.4 s at most.
 */

#endif
