/*
 * A GGUF file's metadata as a model description.
 *
 * Keys follow ggml's GGUF specification and llama.cpp's names
 * ({arch}.rope.freq_base, .rope.dimension_count, .rope.scaling.*, ...).
 * GGUF does not say how rotary pairs are laid out; llama.cpp decides by
 * architecture (llama_model_rope_type in llama-model.cpp), and so does the
 * table below (SmolLM3 is NORM there: its converter permutes q/k as for
 * LLaMA): "norm" there is our interleaved (pairs 2i, 2i+1; llama.cpp's
 * converter permutes HF LLaMA weights back to Meta's order), "neox" our
 * half. Which layers rotate, and with what, is decided per layer as each
 * architecture's loader and graph (src/models/<arch>.cpp) decide it:
 * recurrent or attention-free layers, sliding-window layers, NoPE steps.
 * doc/models.md states the rules.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <posenc/model.h>

#include "core/strutil.h"
#include "model/model_internal.h"
#include "io/read_gguf.h"

/* struct gguf_arch's flags: what llama.cpp's graph for an architecture does beyond
 * its rope type. */
/* RoPE only in sliding-window layers (cohere2.cpp: ggml_rope_ext under is_swa;
 * exaone4.cpp: is_swa or no SWA at all; muse-glimmer.cpp, maple.cpp,
 * exaone-moe.cpp, smallthinker.cpp) */
#define GG_ROPE_SWA_ONLY (UINT64_C(1) << 0)
/* sliding layers only with attention.sliding_window present and > 0 (gemma3.cpp and
 * others; otherwise swa_type NONE) */
#define GG_SWA_NEEDS_WINDOW (UINT64_C(1) << 1)
/* reads rope.scaling.yarn_beta_fast/slow (grok.cpp, mistral3.cpp; the others run
 * with llama.cpp's defaults 32 and 1 whatever the file says) */
#define GG_YARN_BETAS (UINT64_C(1) << 2)
/* reads rope.scaling.yarn_log_multiplier (deepseek2.cpp, deepseek32.cpp,
 * glm-dsa.cpp, mistral3.cpp) */
#define GG_YARN_LOG_MUL (UINT64_C(1) << 3)
/* llama.cpp's graph has no positional encoding for it (rope type NONE) */
#define GG_NO_ROPE (UINT64_C(1) << 4)
/* the file's yarn_log_multiplier is 0.1 x mscale_all_dim, which the loader divides
 * by 0.1 again (deepseek2.cpp, deepseek32.cpp: TAG_DEEPSEEK2_YARN_LOG_MUL_FIX) */
#define GG_LOG_MUL_TENTHS (UINT64_C(1) << 5)
/* rope.scaling.finetuned false switches RoPE off (granite.cpp, granite-hybrid.cpp,
 * granite-switch.cpp: it fills rope_pattern) */
#define GG_FINETUNED_SWITCH (UINT64_C(1) << 6)
/* set_swa_pattern(n, dense_first = true): layer il is global when il % n == 0 */
#define GG_SWA_DENSE_FIRST (UINT64_C(1) << 7)
/* the sliding layers come from attention.sliding_window_pattern, which the loader
 * requires as one flag per layer (ml.get_arr without a default period) */
#define GG_SWA_ARRAY (UINT64_C(1) << 8)
/* attention.rope_pattern, one flag per layer, true = RoPE (granite-swa.cpp) */
#define GG_ROPE_PATTERN (UINT64_C(1) << 9)
/* the leading_dense_block_count first layers rotate too (cohere2moe.cpp force_rope) */
#define GG_LEAD_ROPE (UINT64_C(1) << 10)
/* rope.dimension_sections is required (qwen35.cpp, qwen35moe.cpp) */
#define GG_SECTIONS (UINT64_C(1) << 11)
/* the graph rotates the whole head whatever rope.dimension_count says (plamo.cpp
 * passes n_embd_head) */
#define GG_ROT_HEAD (UINT64_C(1) << 12)
/* load_hparams throws "invalid n_rot" unless it equals the head width (llama, deci,
 * falcon, llama-embed) */
#define GG_NROT_IS_HEAD (UINT64_C(1) << 13)
/* ALiBi whose maximum bias is attention.max_alibi_bias, none when it is 0 or absent
 * (mpt.cpp, jais.cpp); the other ALiBi loaders hard-code 8 */
#define GG_ALIBI_KEY (UINT64_C(1) << 14)
/* the graph passes freq_scale 1, no YaRN mix and no factor tensor, whatever the file
 * says (deepseek2.cpp's OCR branch, cogvlm.cpp's plain ggml_rope) */
#define GG_UNSCALED (UINT64_C(1) << 15)
/* ggml_rope's own base 10000, the file's freq_base unused (cogvlm.cpp) */
#define GG_BASE_10K (UINT64_C(1) << 16)
/* XD-RoPE: the loader raises freq_base by rope.scaling.alpha^(d / (d - 2)), in float
 * (hunyuan-vl.cpp) */
#define GG_XD_ALPHA (UINT64_C(1) << 17)
/* deepseek4.cpp: layers whose attention.compress_ratios entry is 0 turn at freq_base
 * unscaled; the others at attention.compress_rope_freq_base with the file's scaling
 * and an attention factor that cancels ggml's YaRN magnitude */
#define GG_COMPRESS (UINT64_C(1) << 18)
/* step35.cpp: the loader halves n_rot for the full layers, after the sliding
 * layers' width was read (rope.dimension_count_swa, default the whole n_rot);
 * rope_freqs.weight is head/2 long and turns only the full layers, which use
 * its first n_rot/4 entries */
#define GG_HALF_FULL (UINT64_C(1) << 19)
/* the graph passes no factor tensor to ggml_rope_ext (spark2-5.cpp, dots3note.cpp) */
#define GG_NO_FACTORS (UINT64_C(1) << 20)
/* load_hparams requires rope.freq_base_swa (dots3note.cpp: get_key without a
 * default) */
#define GG_SWA_BASE_REQ (UINT64_C(1) << 21)
/* dflash.cpp: NORM, freq_scale 1 and no YaRN when the file has
 * hyper_connection.count (DeepSeek-V4's DSpark drafter, its graph_dsv4), otherwise
 * NEOX; degenerate M-RoPE sections [n_rot/2, 0, 0, 0] turn text as NEOX */
#define GG_DFLASH (UINT64_C(1) << 22)
/* the graph turns hparams.n_rot(il), each layer's own width (gemma4.cpp,
 * gemma4-assistant.cpp, step35.cpp, spark2-5.cpp, laguna.cpp, maple.cpp); the
 * others pass hparams.n_rot(), layer 0's, to every layer */
#define GG_NROT_IL (UINT64_C(1) << 23)
/* llama_model_rope_type's IMROPE: the M-RoPE sections interleaved over the
 * pairs (Qwen3-VL, Qwen 3.5, Qwen4-exp, Qwen3-TTS) */
#define GG_IMROPE (UINT64_C(1) << 24)
/* the graph asserts freq_base 10000 (deepseek2.cpp's OCR branch) */
#define GG_ASSERT_10K (UINT64_C(1) << 25)
/* NORM, but M-RoPE (pairs i, i + n/2, as NEOX) when the file has
 * rope.dimension_sections (GLM-4's hparams.use_mrope()) */
#define GG_MROPE_IF_SECTIONS (UINT64_C(1) << 26)
/* grok.cpp: yarn_beta_fast 8 when the file has none ("defaults for old GGUFs"), and
 * rope.scaling.yarn_ext_factor and .yarn_attn_factor read into hparams */
#define GG_GROK_YARN (UINT64_C(1) << 27)
/* the sliding layers' ggml_rope_ext calls pass attn_factor 1, not the context's
 * (olmo2.cpp, mellum.cpp, laguna.cpp; deepseek4.cpp's dsv4_rope_attn_factor is 1
 * without YaRN) */
#define GG_SWA_ATTN_1 (UINT64_C(1) << 28)
/* SW_BASE, but get_rope_freq_scale's rope_freq_scale_train_swa stays 1 (the loader
 * does not copy the main scale: muse-glimmer.cpp): unscaled sliding layers, at the
 * context's attn_factor and no factor tensor */
#define GG_SWA_UNSCALED (UINT64_C(1) << 29)
/* llama-context.cpp takes mscale = yarn_log_multiplier itself when it is not 1
 * (LLM_ARCH_DEEPSEEK2 alone: TAG_DEEPSEEK2_YARN_LOG_MUL_FIX), so the ratio is 1 */
#define GG_LOG_MUL_IS_MSCALE (UINT64_C(1) << 30)
/* sliding layers only in the 64-layer model (exaone4.cpp sets the SWA type, its
 * window and the period for n_layer 64 alone) */
#define GG_SWA_64_LAYERS (UINT64_C(1) << 31)
/* attention.sliding_window present and 0: no chunked layers and the NoPE step set to
 * n_layer, which leaves the last layer unrotated (llama4.cpp, "always use rope") */
#define GG_NOPE_IF_NO_WINDOW (UINT64_C(1) << 32)
/* 32 layers rotate, 40 take ALiBi of maximum bias 8, other sizes neither
 * (baichuan.cpp, by block_count) */
#define GG_ROPE_OR_ALIBI_BY_SIZE (UINT64_C(1) << 33)
/* hparams.swa_type as the loader sets it with sliding layers, which gives the meaning
 * of hparams.n_swa (llama-hparams.h is_masked_swa); an architecture with none of the
 * three records no window (its loader was not checked, or its window is not one) */
/* STANDARD: a sliding layer sees the n_swa positions up to its own */
#define GG_SWA_STANDARD (UINT64_C(1) << 34)
/* SYMMETRIC: a sliding layer sees n_swa / 2 positions on each side (bidirectional
 * encoders: gemma-embedding.cpp, modern-bert.cpp) */
#define GG_SWA_SYMMETRIC (UINT64_C(1) << 35)
/* CHUNKED: a chunked layer sees the positions of its own block of n_swa (llama4.cpp) */
#define GG_SWA_CHUNKED (UINT64_C(1) << 36)
/* the loader sets n_swa to struct gguf_arch's window after reading the file's
 * attention.sliding_window, which then only switches the sliding layers on
 * (smallthinker.cpp: 4096; llama4.cpp: 8192 unless the file says 0) */
#define GG_WINDOW_FIXED (UINT64_C(1) << 37)
/* the graph scales the logits by mscale^2, mscale = the angles' attention factor x
 * (1 + 0.1 yarn_log_multiplier ln(1 / freq_scale)) (deepseek2.cpp, deepseek32.cpp,
 * glm-dsa.cpp: kq_scale = mscale * mscale / sqrt(head)) */
#define GG_KQ_MSCALE (UINT64_C(1) << 38)

/* How sliding-window layers turn, by the graph's arguments for them. */
enum {
	/* as the other layers: the graph passes freq_base and freq_scale to every layer */
	SW_MAIN = 0,
	/* rope.freq_base_swa (default freq_base) with the main scaling: get_rope_freq_base
	 * and a loader that copies rope_freq_scale_train into the sliding scale */
	SW_BASE,
	/* rope.freq_base_swa (default hparams' 10000), unscaled (freq_scale_swa left 1),
	 * with their own head and rotary widths when the file gives them */
	SW_OWN10K,
	/* as SW_OWN10K with freq_base as the default base (laguna.cpp) */
	SW_OWNMAIN,
	/* freq_base whatever rope.freq_base_swa says, unscaled (olmo2.cpp, mellum.cpp) */
	SW_FLAT,
	/* rope.freq_base_swa (default freq_base) with the main scaling, over
	 * rope.dimension_count_swa (default n_rot) of an attention.key_length_swa head
	 * (default the main head): get_rope_freq_base/scale and hparams.n_rot(il) with a
	 * loader that copies the main scale (spark2-5.cpp, dots3note.cpp) */
	SW_BASE_OWN,
};

/* Which layers have attention at all (the others are recurrent, convolutional or
 * attention-free, and carry no positional encoding). */
enum {
	RC_NONE = 0,
	/* attention where head_count and head_count_kv of the layer are both above 0
	 * (lfm2.cpp, granite-hybrid.cpp, plamo2.cpp: is_recr = n_head_kv(il) == 0; deci.cpp:
	 * n_head 0 is attention-free, n_head_kv 0 a linear layer) */
	RC_KV0,
	/* attention.recurrent_layers (one flag per layer) or else every
	 * full_attention_interval-th layer (qwen3next.cpp, qwen35.cpp, minimax-01.cpp) */
	RC_LIST,
};

struct gguf_arch {
	const char *name;
	const char *layout;   /* NULL: ALiBi, or with GG_NO_ROPE: none */
	unsigned swa_pattern; /* every swa_pattern-th layer global; 0: no hard-coded period */
	/* llama.cpp's hparams.n_no_rope_layer_step, hard-coded per architecture in its loader
	 * (no GGUF key): layer il rotates only if (il + 1) % step != 0; 0: every layer rotates */
	unsigned nope_step;
	uint64_t flags;
	/* GG_NO_ROPE: what the model has instead; otherwise, when set, a note on what the
	 * shown rotation leaves out */
	const char *why;
	unsigned char swa;   /* SW_*: what the sliding layers turn with */
	unsigned char recur; /* RC_* */
	unsigned char every; /* RC_LIST: the full_attention_interval when the file has none */
	/* the loader's hard-coded hparams.n_swa: the window when the file has no
	 * attention.sliding_window (with GG_WINDOW_FIXED, whatever it has); 0: none */
	unsigned window;
};

#define NORM "interleaved"
#define NEOX "half"

static const struct gguf_arch gguf_archs[] = {
        {"llama", NORM, 0, 0, GG_NROT_IS_HEAD, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"llama-embed", NORM, 0, 0, GG_NROT_IS_HEAD, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"llama4", NORM, 0, 4, GG_NOPE_IF_NO_WINDOW | GG_SWA_CHUNKED | GG_WINDOW_FIXED, NULL,
         SW_MAIN, RC_NONE, 0, 8192},
        /* Nemotron 51B/49B/253B: per-layer head counts, 0 for linear or no attention */
        {"deci", NORM, 0, 0, GG_NROT_IS_HEAD, NULL, SW_MAIN, RC_KV0, 0, 0},
        {"baichuan", NORM, 0, 0, GG_ROPE_OR_ALIBI_BY_SIZE, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"internlm2", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"minicpm", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"xverse", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"command-r", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* cohere2.cpp turns its sliding layers at freq_base, the loader's freq_base_swa
         * unused */
        {"cohere2", NORM, 4, 0, GG_ROPE_SWA_ONLY | GG_SWA_STANDARD, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"cohere2moe", NORM, 4, 0,
         GG_ROPE_SWA_ONLY | GG_SWA_DENSE_FIRST | GG_LEAD_ROPE | GG_SWA_STANDARD, NULL, SW_MAIN,
         RC_NONE, 0, 0},
        {"olmo", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"arctic", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"deepseek", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"deepseek2", NORM, 0, 0,
         GG_YARN_LOG_MUL | GG_LOG_MUL_TENTHS | GG_LOG_MUL_IS_MSCALE | GG_KQ_MSCALE, NULL, SW_MAIN,
         RC_NONE, 0, 0},
        /* Mistral Small 4: deepseek2's loader and graph; llama-context.cpp's DeepSeek-V2
         * mscale case names deepseek2 alone */
        {"mistral4", NORM, 0, 0, GG_YARN_LOG_MUL | GG_LOG_MUL_TENTHS, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* PLM: MLA, RoPE on rope.dimension_count of each head at the file's scaling */
        {"plm", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* DeepSeek-V4: sliding-window-only layers (compress ratio 0) at freq_base
         * unscaled, compressed ones at compress_rope_freq_base with YaRN */
        {"deepseek4", NORM, 0, 0, GG_COMPRESS | GG_SWA_ATTN_1, NULL, SW_FLAT, RC_NONE, 0, 0},
        {"deepseek32", NORM, 0, 0, GG_YARN_LOG_MUL | GG_LOG_MUL_TENTHS | GG_KQ_MSCALE, NULL,
         SW_MAIN, RC_NONE, 0, 0},
        {"glm-dsa", NORM, 0, 0, GG_KQ_MSCALE, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"granite", NORM, 0, 0, GG_FINETUNED_SWITCH, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"granitemoe", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* Bamba and Granite 4.0 H: Mamba-2 layers where head_count_kv is 0; the converter
         * writes rope.scaling.finetuned false (no RoPE) for the hybrids but Bamba */
        {"granitehybrid", NORM, 0, 0, GG_FINETUNED_SWITCH, NULL, SW_MAIN, RC_KV0, 0, 0},
        /* its router layer is an extra one past block_count (n_layer_nextn 1) */
        {"graniteswitch", NORM, 0, 0, GG_FINETUNED_SWITCH, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* granite-swa.cpp: every layer at freq_base, RoPE where rope_pattern says */
        {"granite_swa", NORM, 0, 0, GG_SWA_ARRAY | GG_ROPE_PATTERN | GG_SWA_STANDARD, NULL, SW_MAIN,
         RC_NONE, 0, 0},
        {"chatglm", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"chameleon", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* NORM, or M-RoPE (pairs i, i + n/2) when rope.dimension_sections is given */
        {"glm4", NORM, 0, 0, GG_MROPE_IF_SECTIONS, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"arcee", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"bailingmoe", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* bailingmoe3.cpp: KDA layers where head_count_kv is 0, MLA with RoPE elsewhere */
        {"bailingmoe3", NORM, 0, 0, 0, NULL, SW_MAIN, RC_KV0, 0, 0},
        /* hy-v4.cpp: MLA, n_rot at the main spec in every layer and its indexer */
        {"hy_v4", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"ernie4_5", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"ernie4_5-moe", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"mistral3", NORM, 0, 0, GG_YARN_BETAS | GG_YARN_LOG_MUL, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"smollm3", NORM, 0, 4, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"llada", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"maincoder", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"nanbeige", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"neo-bert", NORM, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* muse-glimmer.cpp: RoPE on the sliding layers at freq_base_swa, NoPE on full ones */
        {"muse-glimmer", NORM, 4, 0, GG_ROPE_SWA_ONLY | GG_SWA_UNSCALED | GG_SWA_STANDARD, NULL,
         SW_BASE, RC_NONE, 0, 0},
        /* dots3note.cpp: MLA; sliding layers (the pattern array) at the required
         * rope.freq_base_swa with the main scaling, every layer n_rot wide, no factor
         * tensor */
        {"dots3note", NORM, 0, 0, GG_SWA_ARRAY | GG_NO_FACTORS | GG_SWA_BASE_REQ | GG_SWA_STANDARD,
         NULL, SW_BASE_OWN, RC_NONE, 0, 0},
        /* eagle3.cpp: one decoder layer with its own q, k and KV cache, llama's rope */
        {"eagle3", NORM, 0, 0, 0,
         "an EAGLE-3 draft head: one layer over the target model's hidden states, its own "
         "queries and keys turned at the target sequence's positions",
         SW_MAIN, RC_NONE, 0, 0},
        /* pockettts.cpp asserts n_rot == the head width */
        {"pockettts", NORM, 0, 0, GG_NROT_IS_HEAD,
         "the backbone of Pocket TTS's flow language model: positions of its text and "
         "audio-latent sequence",
         SW_MAIN, RC_NONE, 0, 0},
        {"falcon", NEOX, 0, 0, GG_NROT_IS_HEAD, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* attention and Mamba-2 side by side in every layer */
        {"falcon-h1", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"grok", NEOX, 0, 0, GG_YARN_BETAS | GG_GROK_YARN, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"dbrx", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"stablelm", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"qwen", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"qwen2", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"qwen2moe", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"qwen3", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"qwen3moe", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* Gated DeltaNet layers but every full_attention_interval-th (default 4) */
        {"qwen3next", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_LIST, 4, 0},
        {"qwen2vl", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* interleaved M-RoPE sections; text positions are plain NEOX RoPE */
        {"qwen3vl", NEOX, 0, 0, GG_IMROPE, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"qwen3vlmoe", NEOX, 0, 0, GG_IMROPE, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"qwen35", NEOX, 0, 0, GG_SECTIONS | GG_IMROPE, NULL, SW_MAIN, RC_LIST, 4, 0},
        {"qwen35moe", NEOX, 0, 0, GG_SECTIONS | GG_IMROPE, NULL, SW_MAIN, RC_LIST, 4, 0},
        /* qwen4exp.cpp: qwen35's layer rule and IMROPE; the QSA indexer only picks keys */
        {"qwen4exp", NEOX, 0, 0, GG_SECTIONS | GG_IMROPE,
         "the indexer of layers with a compress ratio chooses blocks of keys (pooled and "
         "turned at each block's position) before attention: it selects keys, the shown "
         "q/k rotation is the attention's",
         SW_MAIN, RC_LIST, 4, 0},
        /* llama_model_qwen3tts is qwen3vl's loader and graph (sections required) */
        {"qwen3tts", NEOX, 0, 0, GG_SECTIONS | GG_IMROPE,
         "the Qwen3-TTS talker: positions of its text and codec-token sequence", SW_MAIN, RC_NONE,
         0, 0},
        /* dflash.cpp: its own RoPE on its queries and keys (see GG_DFLASH) */
        {"dflash", NEOX, 0, 0, GG_DFLASH,
         "a DFlash draft model: its keys include the target model's features injected at "
         "their positions, and its block of draft tokens attends without a causal mask",
         SW_MAIN, RC_NONE, 0, 0},
        /* ernie4_5's loader; M-RoPE sections, plain NEOX for text */
        {"paddleocr", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* NEOX (M-RoPE with sections); base raised by rope.scaling.alpha */
        {"hunyuan_vl", NEOX, 0, 0, GG_XD_ALPHA, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* deepseek2.cpp's OCR branch: NEOX over n_embd / n_head, freq_scale 1, no YaRN,
         * and it asserts freq_base 10000 (llama_model_rope_type lists it as NORM, but
         * the graph passes GGML_ROPE_TYPE_NEOX) */
        {"deepseek2-ocr", NEOX, 0, 0, GG_ROT_HEAD | GG_UNSCALED | GG_ASSERT_10K, NULL, SW_MAIN,
         RC_NONE, 0, 0},
        /* cogvlm.cpp: ggml_rope over the whole head, its defaults (base 10000, unscaled) */
        {"cogvlm", NEOX, 0, 0, GG_ROT_HEAD | GG_UNSCALED | GG_BASE_10K, NULL, SW_MAIN, RC_NONE, 0,
         0},
        {"phi2", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"phi3", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"phimoe", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"plamo", NEOX, 0, 0, GG_ROT_HEAD, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* Mamba layers where head_count_kv is 0 */
        {"plamo2", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_KV0, 0, 0},
        {"plamo3", NEOX, 8, 0, GG_SWA_NEEDS_WINDOW | GG_SWA_STANDARD, NULL, SW_OWN10K, RC_NONE, 0,
         0},
        {"gemma", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"gemma2", NEOX, 2, 0, GG_SWA_STANDARD, NULL, SW_BASE, RC_NONE, 0, 4096},
        {"gemma3", NEOX, 6, 0, GG_SWA_NEEDS_WINDOW | GG_SWA_STANDARD, NULL, SW_OWN10K, RC_NONE, 0,
         0},
        /* gemma3n.cpp: load_swa_pattern(5), sliding layers at freq_base_swa unscaled */
        {"gemma3n", NEOX, 5, 0, GG_SWA_STANDARD, NULL, SW_OWN10K, RC_NONE, 0, 0},
        /* mimo2.cpp: the pattern array required, sliding layers at freq_base_swa unscaled */
        {"mimo2", NEOX, 0, 0, GG_SWA_ARRAY | GG_SWA_STANDARD, NULL, SW_OWN10K, RC_NONE, 0, 0},
        {"gemma4", NEOX, 0, 0, GG_SWA_ARRAY | GG_NROT_IL | GG_SWA_STANDARD, NULL, SW_OWN10K,
         RC_NONE, 0, 0},
        /* gemma4-assistant.cpp: gemma4's per-layer rope on the queries only; all its
         * layers are nextn layers (block_count = nextn_predict_layers) */
        {"gemma4-assistant", NEOX, 0, 0, GG_SWA_ARRAY | GG_NROT_IL | GG_SWA_STANDARD,
         "a Gemma 4 assistant (draft) model: only its queries turn here; it attends to the "
         "target model's cached keys, turned by the target's own parameters",
         SW_OWN10K, RC_NONE, 0, 0},
        /* step35.cpp: full layers turn half of n_rot with rope_freqs, sliding ones the
         * whole rope.dimension_count_swa (default n_rot) at freq_base_swa unscaled */
        {"step35", NEOX, 0, 0, GG_SWA_ARRAY | GG_HALF_FULL | GG_NROT_IL | GG_SWA_STANDARD, NULL,
         SW_OWN10K, RC_NONE, 0, 0},
        /* spark2-5.cpp: sliding layers at freq_base_swa (default freq_base), main scaling,
         * over rope.dimension_count_swa */
        {"spark2_5", NEOX, 0, 0, GG_SWA_ARRAY | GG_NO_FACTORS | GG_NROT_IL | GG_SWA_STANDARD, NULL,
         SW_BASE_OWN, RC_NONE, 0, 0},
        {"gemma-embedding", NEOX, 6, 0, GG_SWA_SYMMETRIC, NULL, SW_OWN10K, RC_NONE, 0, 0},
        {"starcoder2", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"gptneox", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"codeshell", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"orion", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* per-layer head counts, all above 0 */
        {"openelm", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* Olmo 3 (converted as olmo2): sliding layers with a window, unscaled (olmo2.cpp) */
        {"olmo2", NEOX, 4, 0, GG_SWA_NEEDS_WINDOW | GG_SWA_ATTN_1 | GG_SWA_STANDARD, NULL, SW_FLAT,
         RC_NONE, 0, 0},
        {"olmoe", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"nemotron", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"exaone", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* sliding layers (and RoPE only there) in the 64-layer 32B alone: exaone4.cpp */
        {"exaone4", NEOX, 4, 0, GG_ROPE_SWA_ONLY | GG_SWA_64_LAYERS | GG_SWA_STANDARD, NULL,
         SW_MAIN, RC_NONE, 0, 4096},
        {"exaone-moe", NEOX, 4, 0, GG_ROPE_SWA_ONLY | GG_SWA_STANDARD, NULL, SW_MAIN, RC_NONE, 0,
         0},
        {"minicpm3", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"bailingmoe2", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"dots1", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"hunyuan-moe", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"hunyuan-dense", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"hy_v3", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"jais2", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"talkie", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"gpt-oss", NEOX, 2, 0, GG_SWA_STANDARD, NULL, SW_BASE, RC_NONE, 0, 0},
        {"glm4moe", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* short-convolution layers where head_count_kv is 0; with a window the attention
         * layers slide, at freq_base as the others (lfm2.cpp) */
        {"lfm2", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_KV0, 0, 0},
        {"lfm2moe", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_KV0, 0, 0},
        /* with a window: dense layer first in every 4, RoPE in the sliding ones only */
        {"smallthinker", NEOX, 4, 0,
         GG_SWA_NEEDS_WINDOW | GG_SWA_DENSE_FIRST | GG_ROPE_SWA_ONLY | GG_SWA_STANDARD |
                 GG_WINDOW_FIXED,
         NULL, SW_BASE, RC_NONE, 0, 4096},
        {"seed_oss", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"grovemoe", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"apertus", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* lightning-attention layers but every full_attention_interval-th (default 8) */
        {"minimax-01", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_LIST, 8, 0},
        {"minimax-m2", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* minimax-m3.cpp: every layer turns n_rot at the main spec (block-sparse
         * attention chooses keys, not positions) */
        {"minimax-m3", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* hrm-text.cpp: each of its layer slots (stacks times cycles) at the main spec */
        {"hrm_text", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"pangu-embedded", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* afmoe.cpp: n_no_rope_layer_step 4 (the hparams default), sliding layers at
         * freq_base_swa with the main scaling */
        {"afmoe", NEOX, 4, 4, GG_SWA_NEEDS_WINDOW | GG_SWA_STANDARD, NULL, SW_BASE, RC_NONE, 0, 0},
        /* laguna.cpp: full layer first in every 4; sliding ones plain RoPE at
         * freq_base_swa over rope.dimension_count_swa */
        {"laguna", NEOX, 4, 0,
         GG_SWA_NEEDS_WINDOW | GG_SWA_DENSE_FIRST | GG_NROT_IL | GG_SWA_ATTN_1 | GG_SWA_STANDARD,
         NULL, SW_OWNMAIN, RC_NONE, 0, 0},
        /* mellum.cpp: sliding layers at freq_base with freq_scale 1 */
        {"mellum", NEOX, 4, 0, GG_SWA_NEEDS_WINDOW | GG_SWA_ATTN_1 | GG_SWA_STANDARD, NULL, SW_FLAT,
         RC_NONE, 0, 0},
        /* maple.cpp: RoPE in the sliding layers only, at freq_base_swa */
        {"maple", NEOX, 0, 0, GG_SWA_ARRAY | GG_ROPE_SWA_ONLY | GG_NROT_IL | GG_SWA_STANDARD, NULL,
         SW_BASE, RC_NONE, 0, 0},
        {"bitnet", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"dream", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"llada-moe", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"rnd1", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"nomic-bert", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"nomic-bert-moe", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"jina-bert-v3", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"eurobert", NEOX, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* modern-bert.cpp: with a window, a global layer first in every 3 */
        {"modern-bert", NEOX, 3, 0, GG_SWA_NEEDS_WINDOW | GG_SWA_DENSE_FIRST | GG_SWA_SYMMETRIC,
         NULL, SW_OWN10K, RC_NONE, 0, 0},
        {"bloom", NULL, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"refact", NULL, 0, 0, 0, NULL, SW_MAIN, RC_NONE, 0, 0},
        /* bert.cpp runs it without a causal mask and llama.cpp's ALiBi mask is -|i - j| */
        {"jina-bert-v2", NULL, 0, 0, GG_NO_ROPE,
         "symmetric ALiBi, -m |i - j|, in a bidirectional encoder, which posenc's causal ALiBi "
         "does not show",
         SW_MAIN, RC_NONE, 0, 0},
        {"mpt", NULL, 0, 0, GG_ALIBI_KEY, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"jais", NULL, 0, 0, GG_ALIBI_KEY, NULL, SW_MAIN, RC_NONE, 0, 0},
        {"gpt2", NULL, 0, 0, GG_NO_ROPE, "a learned position table (hf:config.json reads it)",
         SW_MAIN, RC_NONE, 0, 0},
        {"starcoder", NULL, 0, 0, GG_NO_ROPE,
         "a learned position table (starcoder.cpp adds pos_embd rows)", SW_MAIN, RC_NONE, 0, 0},
        {"bert", NULL, 0, 0, GG_NO_ROPE,
         "a learned position table (bert.cpp rotates only nomic-bert and jina-bert-v3)", SW_MAIN,
         RC_NONE, 0, 0},
        {"gptj", NULL, 0, 0, GG_NO_ROPE,
         "llama.cpp lists it without RoPE and has no graph to run it", SW_MAIN, RC_NONE, 0, 0},
        {"t5", NULL, 0, 0, GG_NO_ROPE, "T5's relative position buckets (hf:config.json reads them)",
         SW_MAIN, RC_NONE, 0, 0},
        {"t5encoder", NULL, 0, 0, GG_NO_ROPE,
         "T5's relative position buckets (hf:config.json reads them)", SW_MAIN, RC_NONE, 0, 0},
        {"mamba", NULL, 0, 0, GG_NO_ROPE, "no positional encoding: a state-space model", SW_MAIN,
         RC_NONE, 0, 0},
        {"mamba2", NULL, 0, 0, GG_NO_ROPE, "no positional encoding: a state-space model", SW_MAIN,
         RC_NONE, 0, 0},
        {"rwkv6", NULL, 0, 0, GG_NO_ROPE, "no positional encoding: a recurrent model", SW_MAIN,
         RC_NONE, 0, 0},
        {"rwkv6qwen2", NULL, 0, 0, GG_NO_ROPE, "no positional encoding: a recurrent model", SW_MAIN,
         RC_NONE, 0, 0},
        {"rwkv7", NULL, 0, 0, GG_NO_ROPE, "no positional encoding: a recurrent model", SW_MAIN,
         RC_NONE, 0, 0},
        {"arwkv7", NULL, 0, 0, GG_NO_ROPE, "no positional encoding: a recurrent model", SW_MAIN,
         RC_NONE, 0, 0},
        {"jamba", NULL, 0, 0, GG_NO_ROPE,
         "Mamba layers and attention layers without positional encoding", SW_MAIN, RC_NONE, 0, 0},
        {"nemotron_h", NULL, 0, 0, GG_NO_ROPE,
         "Mamba-2 layers and attention layers without positional encoding", SW_MAIN, RC_NONE, 0, 0},
        {"nemotron_h_moe", NULL, 0, 0, GG_NO_ROPE,
         "Mamba-2 layers and attention layers without positional encoding", SW_MAIN, RC_NONE, 0, 0},
        {"kimi-linear", NULL, 0, 0, GG_NO_ROPE,
         "Kimi Delta Attention layers and MLA layers without positional encoding", SW_MAIN, RC_NONE,
         0, 0},
        {"kimi-k3", NULL, 0, 0, GG_NO_ROPE,
         "Kimi Delta Attention layers and MLA layers without positional encoding", SW_MAIN, RC_NONE,
         0, 0},
        {"clip", NULL, 0, 0, GG_NO_ROPE,
         "a vision or audio encoder (mmproj) file, which llama.cpp opens only to quantize it "
         "(clip.cpp aborts on loading; the encoders run in tools/mtmd): not a text model",
         SW_MAIN, RC_NONE, 0, 0},
        {"wavtokenizer-dec", NULL, 0, 0, GG_NO_ROPE,
         "an audio decoder of convolutions and unpositioned attention", SW_MAIN, RC_NONE, 0, 0},
};

struct gg {
	struct gguf *g;
	const struct pe_model_source *src;
	const char *arch;
	struct pe_model *m;
	char **err;
};

static enum pe_status fail(struct gg *h, enum pe_status st, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static enum pe_status fail(struct gg *h, enum pe_status st, const char *fmt, ...)
{
	if (h->err && !*h->err) {
		va_list ap;
		va_start(ap, fmt);
		*h->err = pe_vasprintf(fmt, ap);
		va_end(ap);
	}
	return st;
}

/* {arch}.@suffix as a number: 1 and *out, 0 if absent, -1 (reported) if not a number. */
/* {arch}.@suffix (its full name written into @key), or NULL. */
static const struct gguf_kv *arch_kv(const struct gg *h, const char *suffix, char *key, size_t cap)
{
	snprintf(key, cap, "%s.%s", h->arch, suffix);
	return gguf_find(h->g, key);
}

static int num(struct gg *h, const char *suffix, double *out)
{
	char key[256];
	const struct gguf_kv *kv = arch_kv(h, suffix, key, sizeof(key));
	if (!kv)
		return 0;
	if (kv->type == GGUF_STRING || kv->type == GGUF_ARRAY || !isfinite(kv->num)) {
		fail(h, PE_EFORMAT, "%s: is not a number", key);
		return -1;
	}
	*out = kv->num;
	return 1;
}

static void put_number(struct strbuf *b, const char *key, double v)
{
	char text[40];
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(text, sizeof(text), "%.0f", v);
	} else {
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(text, sizeof(text), "%.*g", prec, v);
			if (strtod(text, NULL) == v)
				break;
		}
	}
	strbuf_addf(b, ",%s=%s", key, text);
}

/* @head: the first @n values of a longer tensor are the ones ggml reads (step35.cpp) */
static enum pe_status put_tensor(struct gg *h, struct strbuf *b, const char *name, const char *key,
                                 size_t n, int head)
{
	const struct gguf_tensor *t = gguf_tensor(h->g, name);
	double *v = malloc(n * sizeof(double));
	if (!v)
		return PE_ENOMEM;
	struct gguf_source s = {h->src->read, h->src->ctx, h->src->size};
	enum pe_status st = head ? gguf_tensor_f32_head(&s, t, v, n) : gguf_tensor_f32(&s, t, v, n);
	if (st != PE_OK) {
		free(v);
		return fail(h, st, "tensor '%s': %s", name,
		            st == PE_EUNSUPPORTED ? "not a one-dimensional F32 tensor"
		            : st == PE_EIO        ? "cannot read it"
		                                  : "not rotary-width/2 values inside the file");
	}
	strbuf_addf(b, ",%s=", key);
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0) || !isfinite(v[i])) {
			double bad = v[i]; /* named after v is freed */
			free(v);
			return fail(h, PE_EFORMAT,
			            "tensor '%s': value [%zu] = %g is not a positive number", name,
			            i, bad);
		}
		/* the float32 value exactly, as the shortest double text */
		char text[40];
		for (int prec = 9; prec <= 17; prec++) {
			snprintf(text, sizeof(text), "%.*g", prec, v[i]);
			if (strtod(text, NULL) == v[i])
				break;
		}
		strbuf_addf(b, "%s%s", i ? "/" : "", text);
	}
	free(v);
	return PE_OK;
}

static enum pe_status add_group(struct pe_model *m, const char *name, char *spec)
{
	struct pe_model_group *g = realloc(m->groups, (m->n_groups + 1) * sizeof(*g));
	if (!g) {
		free(spec);
		return PE_ENOMEM;
	}
	m->groups = g;
	g = &m->groups[m->n_groups++];
	memset(g, 0, sizeof(*g));
	g->name = pe_strdup(name);
	g->spec = spec;
	return g->name ? PE_OK : PE_ENOMEM;
}

/* The layers whose @kind is @want (every one of the @n when @kind is NULL), allocated once:
 * a file may claim up to a million layers. */
static enum pe_status layers_where(struct pe_model_group *g, const unsigned char *kind, size_t n,
                                   int want)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++)
		count += !kind || kind[i] == want;
	if (count == 0)
		return PE_OK;
	g->layers = malloc(count * sizeof(*g->layers));
	if (!g->layers)
		return PE_ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!kind || kind[i] == want)
			g->layers[g->n_layers++] = i;
	return PE_OK;
}

/* The per-layer reading of one file (freed by read_rope). */
struct plan {
	size_t n_all;          /* block_count, multi-token-prediction layers included */
	double *heads, *kv;    /* head_count and head_count_kv per layer */
	unsigned char *flags;  /* per layer: has attention */
	unsigned char *kind;   /* per layer: L_NOPE, L_MAIN or L_LOCAL */
	unsigned char *slides; /* per layer: a sliding-window layer */
	unsigned char *pat;    /* attention.rope_pattern */
	char *local;           /* the sliding layers' spec */
	const char *layout;    /* the pairing the graph uses (GG_DFLASH decides by file) */
	double n_rot_file;     /* n_rot before GG_HALF_FULL halves it */
};

/* Whether the file has {arch}.@suffix. */
static int has_key(struct gg *h, const char *suffix)
{
	char key[256];
	return arch_kv(h, suffix, key, sizeof(key)) != NULL;
}

/*
 * {arch}.@suffix for every layer, as llama.cpp's get_key_or_arr reads it: a number for all
 * layers, or an array of exactly @n_all values (block_count, the multi-token-prediction
 * layers included). 1 and @out filled, 0 if absent, -1 (reported) otherwise.
 */
static int per_layer(struct gg *h, const char *suffix, size_t n_all, double *out)
{
	char key[256];
	const struct gguf_kv *kv = arch_kv(h, suffix, key, sizeof(key));
	if (!kv)
		return 0;
	if (kv->type == GGUF_ARRAY) {
		if (!kv->arr || kv->arr_n != n_all || n_all == 0) {
			fail(h, PE_EFORMAT,
			     "%s: %llu values, not one per layer (block_count %zu), as llama.cpp "
			     "requires",
			     key, (unsigned long long)kv->arr_n, n_all);
			return -1;
		}
		for (size_t i = 0; i < n_all; i++) {
			double x = kv->arr[i];
			if (!(x >= 0 && x <= 1e9 && x == floor(x))) {
				fail(h, PE_EFORMAT, "%s[%zu]: %.17g is not a count", key, i, x);
				return -1;
			}
			out[i] = x;
		}
		return 1;
	}
	if (kv->type == GGUF_STRING || !isfinite(kv->num)) {
		fail(h, PE_EFORMAT, "%s: is not a number", key);
		return -1;
	}
	for (size_t i = 0; i < (n_all ? n_all : 1); i++)
		out[i] = kv->num;
	return 1;
}

/* A one-flag-per-layer key (recurrent_layers, rope_pattern): 1 and @out, 0 if absent,
 * -1 (reported) when it is not an array of block_count values. */
static int layer_flags(struct gg *h, const char *suffix, size_t n_all, unsigned char *out)
{
	char key[256];
	const struct gguf_kv *kv = arch_kv(h, suffix, key, sizeof(key));
	if (!kv)
		return 0;
	if (kv->type != GGUF_ARRAY || !kv->arr || kv->arr_n != n_all || n_all == 0) {
		fail(h, PE_EFORMAT, "%s: not one flag per layer (block_count %zu)", key, n_all);
		return -1;
	}
	for (size_t i = 0; i < n_all; i++)
		out[i] = kv->arr[i] != 0;
	return 1;
}

/* The spec of @bp with its base (the second key, ",base=...,") replaced by @base. */
static char *with_base(const struct strbuf *bp, double base)
{
	const char *b = strstr(bp->buf, ",base=");
	const char *rest = b ? strchr(b + 1, ',') : NULL;
	struct strbuf sb = {0};
	if (b)
		strbuf_addf(&sb, "%.*s", (int)(b - bp->buf), bp->buf);
	else
		strbuf_addf(&sb, "%s", bp->buf);
	put_number(&sb, "base", base);
	if (b && rest)
		strbuf_addf(&sb, "%s", rest);
	if (sb.failed) {
		free(sb.buf);
		return NULL;
	}
	return sb.buf;
}

enum { L_NOPE, L_MAIN, L_LOCAL };

struct slot {
	int kind;
	const char *name;
	const char *spec;
};

/* Groups from one class per layer: one rotated spec is "all" (or "rope" beside "nope"),
 * two are "local" (the sliding layers') and "global". @gspec and @lspec stay the
 * caller's. */
static enum pe_status emit_groups(struct gg *h, const char *label, const unsigned char *kind,
                                  size_t n, const char *gspec, const char *lspec)
{
	struct pe_model *m = h->m;
	int has[3] = {0, 0, 0};
	for (size_t i = 0; i < n; i++)
		has[kind[i]] = 1;
	if (n == 0)
		has[L_MAIN] = 1;
	struct slot out[3];
	size_t k = 0;
	int two = has[L_MAIN] && has[L_LOCAL];
	if (has[L_LOCAL])
		out[k++] = (struct slot){L_LOCAL,
		                         two           ? "local"
		                         : has[L_NOPE] ? "rope"
		                                       : "all",
		                         lspec};
	if (has[L_MAIN])
		out[k++] = (struct slot){L_MAIN,
		                         two           ? "global"
		                         : has[L_NOPE] ? "rope"
		                                       : "all",
		                         gspec};
	if (has[L_NOPE])
		out[k++] = (struct slot){L_NOPE, "nope", NULL};
	enum pe_status st = PE_OK;
	for (size_t j = 0; j < k && st == PE_OK; j++) {
		char *spec = out[j].spec ? strcmp(out[j].name, "all") == 0
		                                   ? pe_asprintf("%s,label=%s", out[j].spec, label)
		                                   : pe_asprintf("%s,label=%s %s", out[j].spec,
		                                                 label, out[j].name)
		                         : pe_asprintf("nope:label=%s nope", label);
		if (!spec) {
			st = PE_ENOMEM;
			break;
		}
		if ((st = add_group(m, out[j].name, spec)) != PE_OK)
			break;
		st = layers_where(&m->groups[m->n_groups - 1], kind, n, out[j].kind);
	}
	return st;
}

/*
 * The facts of the sliding layers' window (struct pe_model_fact, the keys the hf:
 * reader gives): hparams.n_swa as the loader sets it, the file's
 * attention.sliding_window or the loader's own value, and what it means by
 * hparams.swa_type. @slides: the layers llama.cpp's is_swa(il) marks.
 */
static enum pe_status window_facts(struct gg *h, const struct gguf_arch *a,
                                   const unsigned char *slides, size_t n, int has_window,
                                   double file_window)
{
	if (a->flags & GG_SWA_CHUNKED) {
		/* llama4.cpp: a window of 0 in the file turns the chunks off, any other
		 * leaves the loader's own size */
		if (has_window && file_window == 0)
			return PE_OK;
		char v[32];
		snprintf(v, sizeof(v), "%u", a->window);
		return pe_model_add_fact(
		        h->m, "attention_chunk_size",
		        "chunked layers attend within blocks of this many positions "
		        "(llama.cpp's n_swa, which its loader sets)",
		        v);
	}
	if (!(a->flags & (GG_SWA_STANDARD | GG_SWA_SYMMETRIC)))
		return PE_OK;
	int fixed = (a->flags & GG_WINDOW_FIXED) || !has_window;
	double w = fixed ? (double)a->window : file_window;
	size_t any = 0;
	for (size_t i = 0; i < n; i++)
		any += slides[i];
	/* n_swa is a uint32_t: a value the loader cannot hold is no window to state */
	if (!any || !(w >= 1 && w <= 4294967295.0 && w == floor(w)))
		return PE_OK;
	char v[32];
	snprintf(v, sizeof(v), "%.17g", w);
	const char *what =
	        (a->flags & GG_SWA_SYMMETRIC) ? fixed ? "a sliding layer sees window/2 positions "
	                                                "on each side (llama.cpp's "
	                                                "symmetric n_swa, which its loader sets)"
	                                              : "a sliding layer sees window/2 positions "
	                                                "on each side (llama.cpp's "
	                                                "symmetric n_swa: attention.sliding_window)"
	        : fixed ? "a sliding layer sees this many positions back (llama.cpp's n_swa, which "
	                  "its loader sets)"
	                : "a sliding layer sees this many positions back (llama.cpp's n_swa: "
	                  "attention.sliding_window)";
	char *list = pe_model_layer_list(slides, n);
	if (!list)
		return PE_ENOMEM;
	enum pe_status st = pe_model_add_fact(h->m, "sliding_window", what, v);
	if (st == PE_OK)
		st = pe_model_add_fact(h->m, "sliding_layers", "the layers with that window", list);
	free(list);
	return st;
}

static enum pe_status rope_groups(struct gg *h, const struct gguf_arch *a, const char *label,
                                  struct strbuf *bp, struct plan *p)
{
	struct pe_model *m = h->m;
	double v, width = 0, key_len = 0, n_rot = 0, base = 10000.0, ctx = 0, layers = 0;
	int has_ctx = 0, has_layers = 0;
	if (num(h, "embedding_length", &width) < 0 ||
	    num(h, "attention.key_length", &key_len) < 0 ||
	    num(h, "rope.dimension_count", &n_rot) < 0 || num(h, "rope.freq_base", &base) < 0 ||
	    (has_ctx = num(h, "context_length", &ctx)) < 0 ||
	    (has_layers = num(h, "block_count", &layers)) < 0)
		return PE_EFORMAT;
	/* granite.cpp: rope.scaling.finetuned false switches RoPE off in every layer */
	char fkey[256];
	const struct gguf_kv *fine = arch_kv(h, "rope.scaling.finetuned", fkey, sizeof(fkey));
	if ((a->flags & GG_FINETUNED_SWITCH) && fine && fine->type == GGUF_BOOL && fine->num == 0)
		return fail(h, PE_EUNSUPPORTED,
		            "%s false: llama.cpp's %s graph applies no RoPE then, so there is no "
		            "positional encoding to show",
		            fkey, a->name);
	/* the multi-token-prediction layers past the main stack run only for speculative
	 * decoding (llama_hparams::n_layer: block_count - nextn_predict_layers) */
	double nextn = 0, n_block = layers;
	if (num(h, "nextn_predict_layers", &nextn) < 0)
		return PE_EFORMAT;
	if (has_layers && nextn >= 1 && nextn < layers && nextn == floor(nextn))
		layers -= nextn;
	/* missing is tolerated (no context, no layer list); present must be a count */
	if (has_ctx && !(ctx >= 1 && ctx <= 1e15 && ctx == floor(ctx)))
		return fail(h, PE_EFORMAT, "%s.context_length: %.17g is not a whole number > 0",
		            h->arch, ctx);
	if (has_layers && !(layers >= 1 && layers <= 1e6 && layers == floor(layers)))
		return fail(h, PE_EFORMAT, "%s.block_count: %.17g is not a whole number > 0",
		            h->arch, layers);
	m->n_layers = has_layers ? (size_t)layers : 0;
	p->n_all = has_layers ? (size_t)n_block : 0;
	size_t cells = p->n_all ? p->n_all : 1;
	p->heads = calloc(cells, sizeof(double));
	p->kv = calloc(cells, sizeof(double));
	p->flags = calloc(cells, 1);
	p->kind = calloc(cells, 1);
	if (!p->heads || !p->kv || !p->flags || !p->kind)
		return PE_ENOMEM;
	/* load_hparams: head counts per layer (get_key_or_arr), head_count_kv defaulting to
	 * them */
	int has_kv;
	if (per_layer(h, "attention.head_count", p->n_all, p->heads) < 0 ||
	    (has_kv = per_layer(h, "attention.head_count_kv", p->n_all, p->kv)) < 0)
		return PE_EFORMAT;
	if (!has_kv)
		memcpy(p->kv, p->heads, cells * sizeof(double));
	/* llama.cpp reads key_length and rope.dimension_count only when layer 0 has heads
	 * (hparams.n_head() is n_head(0)); otherwise both are 0 and nothing is rotated */
	if (!(p->heads[0] > 0))
		return fail(h, PE_EUNSUPPORTED,
		            "%s.attention.head_count: %s for layer 0, so llama.cpp's load_hparams "
		            "reads no head width and a rotary width of 0: its graph rotates "
		            "nothing",
		            h->arch, has_key(h, "attention.head_count") ? "0" : "missing");
	double hd = key_len > 0 ? key_len : floor(width / p->heads[0]);
	if (!(hd >= 2) || hd > 1e6 || hd != floor(hd))
		return fail(h, PE_EFORMAT,
		            "%s.attention.key_length (or embedding_length / head_count): no head "
		            "width",
		            h->arch);
	if ((a->flags & GG_NROT_IS_HEAD) && n_rot != 0 && n_rot != hd)
		return fail(h, PE_EFORMAT,
		            "%s.rope.dimension_count: %.17g, but llama.cpp requires the head width "
		            "%.17g for %s (load_hparams' \"invalid n_rot\", or its graph's assert)",
		            h->arch, n_rot, hd, a->name);
	if (n_rot == 0 || (a->flags & GG_ROT_HEAD))
		n_rot = hd;
	p->n_rot_file = n_rot;
	int half = (a->flags & GG_HALF_FULL) != 0;
	if (half)
		n_rot = floor(n_rot / 2);
	if (!(n_rot >= 2) || n_rot > hd || fmod(n_rot, 2) != 0)
		return fail(h, PE_EFORMAT,
		            "%s.rope.dimension_count: %.17g is not even and <= %.17g", h->arch,
		            n_rot, hd);
	if (a->flags & GG_BASE_10K)
		base = 10000.0;
	if ((a->flags & GG_ASSERT_10K) && fabs(base - 10000.0) >= 1e-4)
		return fail(h, PE_EUNSUPPORTED,
		            "%s.rope.freq_base: %.17g, but llama.cpp's OCR graph asserts 10000",
		            h->arch, base);
	if (a->flags & GG_XD_ALPHA) {
		double alpha = 0;
		if (num(h, "rope.scaling.alpha", &alpha) < 0)
			return PE_EFORMAT;
		/* hunyuan-vl.cpp: float base times powf(alpha, (float)d / (float)(d - 2)) */
		if (alpha > 0)
			base = (float)((float)base *
			               (float)pow((float)alpha,
			                          (double)((float)hd / (float)(hd - 2))));
	}
	/* deepseek4.cpp: the compressed layers' base; the others keep freq_base */
	double flat = base;
	if (a->flags & GG_COMPRESS) {
		int r = num(h, "attention.compress_rope_freq_base", &base);
		if (r < 0)
			return PE_EFORMAT;
		if (r == 0)
			return fail(
			        h, PE_EFORMAT,
			        "%s.attention.compress_rope_freq_base: missing, and llama.cpp's "
			        "%s loader requires it",
			        h->arch, a->name);
	}
	if (!(base > 1.0))
		return fail(h, PE_EFORMAT, "%s.rope.freq_base: %.17g must exceed 1", h->arch, base);
	m->head_dim = (size_t)hd;
	m->context = ctx;
	size_t pairs = (size_t)n_rot / 2;

	int mrope_now = (a->flags & GG_MROPE_IF_SECTIONS) && has_key(h, "rope.dimension_sections");
	p->layout = mrope_now ? "half" : a->layout;
	int unscaled = (a->flags & GG_UNSCALED) != 0, no_factors = 0;
	if (a->flags & GG_DFLASH) {
		/* graph_dsv4 turns at freq_base with freq_scale 1 and no YaRN; ggml_rope_multi
		 * (with sections) takes no factor tensor */
		double hc = 0;
		if (num(h, "hyper_connection.count", &hc) < 0)
			return PE_EFORMAT;
		if (hc > 0) {
			p->layout = NORM;
			unscaled = 1;
		}
		no_factors = has_key(h, "rope.dimension_sections");
	}
	strbuf_addf(bp, "rope:layout=%s", p->layout);
	put_number(bp, "base", base);
	/* int(hd * rotary) must give n_rot back: n_rot / hd can give one less (30 of 44) */
	if (n_rot != hd)
		put_number(bp, "rotary", pe_model_width_fraction((size_t)n_rot, (size_t)hd));
	char key[256];
	const struct gguf_kv *type = arch_kv(h, "rope.scaling.type", key, sizeof(key));
	if (type && !type->str)
		return fail(h, PE_EFORMAT, "%s: is not a string", key);
	const char *t = type && !unscaled ? type->str : "none";
	double factor = 0, orig = 0, attn = NAN;
	if (num(h, "rope.scaling.factor", &factor) < 0 ||
	    num(h, "rope.scaling.original_context_length", &orig) < 0 ||
	    num(h, "rope.scaling.attn_factor", &attn) < 0)
		return PE_EFORMAT;
	int linear = factor == 0 ? num(h, "rope.scale_linear", &v) : 0;
	if (linear < 0)
		return PE_EFORMAT;
	if (linear > 0)
		factor = v; /* the older key */
	/* llama-model.cpp: a missing scaling type is "linear" (with no factor, a scale of 1) */
	if (!type && factor != 0 && factor != 1 && !unscaled)
		t = "linear";
	/* deepseek4.cpp, spark2-5.cpp, dots3note.cpp pass no factor tensor to ggml_rope_ext */
	int plain = unscaled || no_factors || (a->flags & (GG_COMPRESS | GG_NO_FACTORS)) != 0;
	int long_t = !plain && gguf_tensor(h->g, "rope_factors_long.weight") != NULL;
	int short_t = !plain && gguf_tensor(h->g, "rope_factors_short.weight") != NULL;
	int freqs_t = !plain && gguf_tensor(h->g, "rope_freqs.weight") != NULL;
	enum pe_status st = PE_OK;
	/* "longrope" (the converter's type for MiniCPM and any TextModel whose config says
	 * longrope) names the factor tensors, which llama.cpp then picks by context */
	int longrope = strcmp(t, "longrope") == 0;
	if (longrope && !(long_t && short_t))
		return fail(
		        h, PE_EFORMAT,
		        "%s: 'longrope' without rope_factors_long/short.weight, which llama.cpp "
		        "would run as plain RoPE",
		        key);
	if (strcmp(t, "none") != 0 && strcmp(t, "linear") != 0 && strcmp(t, "yarn") != 0 &&
	    !longrope)
		return fail(h, PE_EFORMAT, "%s: '%s' is not none, linear, yarn or longrope", key,
		            t);
	/* llama.cpp multiplies freq_scale into the angles of the factor tensors too:
	 * one spec cannot say both, so a file that has both is refused, not half read (no
	 * factor is a scale of 1) */
	if ((long_t || short_t || freqs_t) && strcmp(t, "none") != 0 && factor != 0 && factor != 1)
		return fail(h, PE_EFORMAT,
		            "%s '%s' (factor %.17g) with the per-pair factor tensor %s: llama.cpp "
		            "would apply both, which posenc does not model",
		            key, t, factor,
		            freqs_t ? "rope_freqs.weight" : "rope_factors_long/short.weight");
	m->train_context = orig > 0 ? orig : ctx;
	/*
	 * llama-context.cpp's cparams.yarn_attn_factor, the magnitude it hands every
	 * ggml_rope_ext call: hparams.yarn_attn_factor (1; grok.cpp reads
	 * rope.scaling.yarn_attn_factor), which YaRN (ext_factor != 0) replaces by
	 * get_mscale(f, ..) / (1 + 0.1 ln f); always times rope.scaling.attn_factor.
	 * ggml's rope_yarn then multiplies by 1 + 0.1 ln(1 / freq_scale) of the call when
	 * ext_factor != 0: the main layers get get_mscale(f, ..) x attn_factor, a sliding
	 * layer called at freq_scale 1 the context's value itself.
	 */
	int yarn = strcmp(t, "yarn") == 0;
	double yarn_attn = 1, ext = -1, af = isnan(attn) ? 1.0 : attn;
	if ((a->flags & GG_GROK_YARN) && (num(h, "rope.scaling.yarn_attn_factor", &yarn_attn) < 0 ||
	                                  num(h, "rope.scaling.yarn_ext_factor", &ext) < 0))
		return PE_EFORMAT;
	/* a negative ext_factor is llama.cpp's "not set": 1 with YaRN, 0 without */
	if (ext >= 0 && ext != (yarn ? 1.0 : 0.0))
		return fail(h, PE_EUNSUPPORTED,
		            "%s.rope.scaling.yarn_ext_factor: %.9g with scaling '%s': llama.cpp "
		            "mixes YaRN by it, which posenc shows only as 1 with yarn and 0 "
		            "otherwise",
		            h->arch, ext, t);
	/* freq_scale 1 (no factor, or the factor tensors') or none: f = 1 */
	double f = yarn && factor > 0 ? factor : 1.0;
	double ms = f > 1 ? 0.1 * log(f) + 1.0 : 1.0, logmul = 0;
	if ((a->flags & GG_YARN_LOG_MUL) && num(h, "rope.scaling.yarn_log_multiplier", &logmul) < 0)
		return PE_EFORMAT;
	if (a->flags & GG_LOG_MUL_TENTHS)
		logmul = (double)((float)logmul / 0.1f);
	if (yarn && logmul != 0) {
		/* get_mscale(f, 1) / get_mscale(f, log_mul); DeepSeek-V2 with log_mul != 1:
		 * mscale = log_mul, a ratio of 1 */
		double all = f > 1 ? 0.1 * logmul * log(f) + 1.0 : 1.0;
		int ds2 = (a->flags & GG_LOG_MUL_IS_MSCALE) && logmul != 1.0;
		ms = ds2 ? 1.0 : ms / all;
	}
	double ctx_attn = (yarn ? ms / (0.1 * log(f) + 1.0) : yarn_attn) * af;
	double main_attn = yarn ? ms * af : ctx_attn;
	/* graphs that pass their own: deepseek4.cpp 1 / (1 + 0.1 ln f) with YaRN, which
	 * cancels rope_yarn's, and 1 without; cogvlm.cpp's ggml_rope, deepseek2.cpp's OCR
	 * branch and dflash.cpp's DSpark graph 1 */
	if ((a->flags & GG_COMPRESS) || unscaled)
		main_attn = 1.0;
	if ((a->flags & GG_KQ_MSCALE) && !unscaled) {
		/* attn_factor_org: the call's attention factor times 1 + 0.1 ln(1 / freq_scale),
		 * which the angles carry already under YaRN (rope_yarn multiplies it in) */
		double inv = strcmp(t, "none") != 0 && factor > 1 ? factor : 1.0;
		double grow = inv > 1 ? 1.0 + 0.1 * log(inv) : 1.0;
		double org = yarn ? main_attn : main_attn * grow;
		double mscale = org * (inv > 1 ? 1.0 + 0.1 * logmul * log(inv) : 1.0);
		char sv[40];
		snprintf(sv, sizeof(sv), "%.17g", mscale * mscale);
		if (mscale != 1.0 &&
		    (st = pe_model_add_fact(
		             m, "softmax_scale_factor",
		             "the logits' scale times mscale^2 (kq_scale), mscale "
		             "the attention factor x (1 + 0.1 yarn_log_multiplier ln "
		             "factor), as deepseek2.cpp sets it",
		             sv)) != PE_OK)
			return st;
	}
	/* the sliding layers turned at freq_scale 1 (SW_OWN10K, SW_OWNMAIN, SW_FLAT) */
	double swa_attn = (a->flags & GG_SWA_ATTN_1) ? 1.0 : ctx_attn;
	if (long_t || short_t) {
		/* Phi-3: LongRoPE lists as tensors. */
		if (!(long_t && short_t))
			return fail(h, PE_EFORMAT,
			            "rope_factors_long.weight and rope_factors_short.weight come "
			            "together");
		if (!(orig > 0))
			orig = ctx;
		if (!(orig > 0))
			return fail(h, PE_EFORMAT,
			            "%s.rope.scaling.original_context_length: missing", h->arch);
		strbuf_addf(bp, ",scaling=longrope");
		put_number(bp, "factor", ctx > 0 ? ctx / orig : 1.0);
		put_number(bp, "original", orig);
		/* llama-context.cpp: without YaRN the angles are scaled by attn_factor alone,
		 * 1 when the file has none (MiniCPM's converter writes none) */
		put_number(bp, "attention-factor", main_attn);
		if ((st = put_tensor(h, bp, "rope_factors_long.weight", "long-factor", pairs,
		                     half)) ||
		    (st = put_tensor(h, bp, "rope_factors_short.weight", "short-factor", pairs,
		                     half)))
			return st;
	} else if (freqs_t) {
		/* Llama 3.1: the llama3 scaling precomputed as per-pair divisors. */
		strbuf_addf(bp, ",scaling=longrope,factor=1");
		put_number(bp, "original", ctx > 0 ? ctx : 1);
		put_number(bp, "attention-factor", main_attn);
		if ((st = put_tensor(h, bp, "rope_freqs.weight", "long-factor", pairs, half)) ||
		    (st = put_tensor(h, bp, "rope_freqs.weight", "short-factor", pairs, half))) {
			return st;
		}
		m->note = pe_strdup("rope_freqs.weight: per-pair frequency divisors (llama.cpp's "
		                    "freq_factors), shown as longrope with equal long and short "
		                    "lists and llama.cpp's attention factor");
		m->train_context = ctx;
	} else if (strcmp(t, "linear") == 0) {
		if (!(factor > 0))
			return fail(h, PE_EFORMAT, "%s.rope.scaling.factor: missing or not > 0",
			            h->arch);
		strbuf_addf(bp, ",scaling=linear");
		put_number(bp, "factor", factor);
		if (main_attn != 1.0)
			put_number(bp, "attention-factor", main_attn);
	} else if (strcmp(t, "yarn") == 0) {
		/* grok.cpp's default for files without the key */
		double fast = (a->flags & GG_GROK_YARN) ? 8 : 32, slow = 1;
		/* llama.cpp's loader reads the beta keys and the log multiplier only for some
		 * architectures; the others run with its defaults whatever the file says */
		int betas = (a->flags & GG_YARN_BETAS) != 0;
		if (betas && (num(h, "rope.scaling.yarn_beta_fast", &fast) < 0 ||
		              num(h, "rope.scaling.yarn_beta_slow", &slow) < 0))
			return PE_EFORMAT;
		if (!(factor > 0) || !(orig > 0))
			return fail(
			        h, PE_EFORMAT,
			        "%s.rope.scaling.factor and .original_context_length: yarn needs "
			        "both",
			        h->arch);
		strbuf_addf(bp, ",scaling=yarn");
		put_number(bp, "factor", factor);
		put_number(bp, "original", orig);
		put_number(bp, "beta-fast", fast);
		put_number(bp, "beta-slow", slow);
		/* the scheme's own yarn magnitude (0.1 ln f + 1) unless the file changes it */
		if ((a->flags & GG_COMPRESS) || logmul != 0 || !isnan(attn))
			put_number(bp, "attention-factor", main_attn);
	} else if (strcmp(t, "none") == 0) {
		strbuf_addf(bp, ",scaling=none");
		if (main_attn != 1.0)
			put_number(bp, "attention-factor", main_attn);
	} else {
		return fail(h, PE_EFORMAT, "%s: '%s' is not none, linear, yarn or longrope", key,
		            t);
	}
	if (bp->failed) {
		return PE_ENOMEM;
	}
	double swa_base = NAN;
	int has_swa_base = num(h, "rope.freq_base_swa", &swa_base);
	if (has_swa_base < 0)
		return PE_EFORMAT;
	double swa = -1;
	int has_window = num(h, "attention.sliding_window", &swa);
	if (has_window < 0)
		return PE_EFORMAT;
	size_t n = m->n_layers;
	if (n == 0)
		return emit_groups(h, label, p->kind, 0, bp->buf, NULL);

	/* which layers have attention */
	unsigned char *has_attn = p->flags;
	if (a->recur == RC_KV0) {
		for (size_t i = 0; i < n; i++)
			has_attn[i] = p->heads[i] > 0 && p->kv[i] > 0;
	} else if (a->recur == RC_LIST) {
		int r = layer_flags(h, "attention.recurrent_layers", p->n_all, has_attn);
		if (r < 0)
			return PE_EFORMAT;
		if (r > 0) {
			for (size_t i = 0; i < n; i++)
				has_attn[i] = !has_attn[i];
		} else {
			double every = a->every;
			if (num(h, "full_attention_interval", &every) < 0)
				return PE_EFORMAT;
			if (!(every >= 1 && every <= 1e6 && every == floor(every)))
				return fail(
				        h, PE_EFORMAT,
				        "%s.full_attention_interval: %.17g is not a whole number "
				        "> 0",
				        h->arch, every);
			for (size_t i = 0; i < n; i++)
				has_attn[i] = (i + 1) % (size_t)every == 0;
		}
	} else {
		memset(has_attn, 1, n);
	}

	/* which layers slide: {arch}.attention.sliding_window_pattern when the loader reads
	 * it (a period, or one flag per layer, true = sliding, as load_swa_pattern takes it),
	 * else the period llama.cpp hard-codes; gemma3.cpp and others: no window (or 0), no
	 * sliding layers; exaone4.cpp: sliding layers in the 64-layer model only */
	int has_swa = (a->swa_pattern > 0 || (a->flags & (GG_SWA_ARRAY | GG_COMPRESS))) &&
	              !((a->flags & GG_SWA_NEEDS_WINDOW) && !(has_window && swa > 0)) &&
	              !((a->flags & GG_SWA_64_LAYERS) && n != 64);
	unsigned char *slides = calloc(n, 1);
	if (!slides)
		return PE_ENOMEM;
	p->slides = slides;
	if (has_swa) {
		char pkey[256];
		const struct gguf_kv *pk =
		        arch_kv(h, "attention.sliding_window_pattern", pkey, sizeof(pkey));
		unsigned pattern = a->swa_pattern;
		if (pk && pk->arr && (pk->arr_n == n || pk->arr_n == p->n_all)) {
			for (size_t i = 0; i < n; i++)
				slides[i] = pk->arr[i] != 0;
			pattern = 0;
		} else if (pk && pk->type != GGUF_ARRAY && pk->type != GGUF_STRING &&
		           !(a->flags & GG_SWA_ARRAY) && pk->num >= 1 && pk->num <= 1e6 &&
		           pk->num == floor(pk->num)) {
			pattern = (unsigned)pk->num;
		} else if (pk || (a->flags & GG_SWA_ARRAY)) {
			return fail(h, PE_EFORMAT, "%s: %s (%zu layers)", pkey,
			            !pk ? "missing, and llama.cpp's loader requires it"
			            : (a->flags & GG_SWA_ARRAY)
			                    ? "not one flag per layer, which llama.cpp's loader "
			                      "requires"
			                    : "neither a period nor one value per layer",
			            n);
		}
		int first = (a->flags & GG_SWA_DENSE_FIRST) != 0;
		if (a->flags & GG_COMPRESS) {
			/* not sliding, but the layers that turn at freq_base unscaled: those
			 * of compress ratio 0 (sliding-window attention alone) */
			char ckey[256];
			const struct gguf_kv *ck =
			        arch_kv(h, "attention.compress_ratios", ckey, sizeof(ckey));
			if (!ck || !ck->arr || ck->arr_n < p->n_all)
				return fail(h, PE_EFORMAT,
				            "%s: %s, and llama.cpp's loader requires one per layer "
				            "(block_count %zu)",
				            ckey, !ck ? "missing" : "too short or not an array",
				            p->n_all);
			for (size_t i = 0; i < n; i++)
				slides[i] = ck->arr[i] == 0;
			pattern = 0;
			free(m->note);
			m->note = pe_strdup(
			        "DeepSeek-V4: the local layers (compress ratio 0) turn at "
			        "freq_base "
			        "unscaled, the global ones at compress_rope_freq_base; there a key "
			        "is also a block of 4 or 128 tokens turned at the block's first "
			        "position, and each layer turns its attention output back by the "
			        "query's position: posenc shows the q/k rotation alone");
			if (!m->note)
				return PE_ENOMEM;
		}
		for (size_t i = 0; i < n && pattern > 1; i++)
			slides[i] = first ? i % pattern != 0 : i % pattern != pattern - 1;
	}

	enum pe_status fst = window_facts(h, a, slides, n, has_window, swa);
	if (fst != PE_OK)
		return fst;

	/* load_hparams reads rope.dimension_count_swa for every architecture, and n_rot(0)
	 * is that width when layer 0 slides; a graph that passes n_rot(0) to every layer
	 * then turns it in all of them (deepseek4.cpp marks every layer sliding), which
	 * the per-group specs cannot say: refused where they would differ from it */
	double rot_swa = 0;
	if (num(h, "rope.dimension_count_swa", &rot_swa) < 0)
		return PE_EFORMAT;
	if (rot_swa != 0 && rot_swa != p->n_rot_file && !(a->flags & GG_NROT_IL)) {
		int any = 0;
		for (size_t i = 0; i < n; i++)
			any |= slides[i];
		if ((a->flags & GG_COMPRESS) || slides[0] ||
		    (any && a->swa != SW_MAIN && a->swa != SW_BASE))
			return fail(
			        h, PE_EUNSUPPORTED,
			        "%s.rope.dimension_count_swa: %.17g, unlike rope.dimension_count "
			        "%.17g, but llama.cpp's %s graph turns layer 0's width in every "
			        "layer",
			        h->arch, rot_swa, p->n_rot_file, a->name);
	}
	/* a per-layer graph whose sliding layers take the main spec with their own base
	 * (maple.cpp): their own width would need a spec of its own, which posenc does
	 * not build for these rows (no converter writes the key for them) */
	if (rot_swa != 0 && rot_swa != p->n_rot_file && (a->flags & GG_NROT_IL) &&
	    a->swa == SW_BASE)
		return fail(h, PE_EUNSUPPORTED,
		            "%s.rope.dimension_count_swa: %.17g, unlike rope.dimension_count "
		            "%.17g: llama.cpp's %s graph turns it in the sliding layers, a width "
		            "posenc does not read for this architecture",
		            h->arch, rot_swa, p->n_rot_file, a->name);

	/* which layers rotate */
	unsigned nope = a->nope_step;
	/* llama.cpp's Llama 4 loader: a sliding_window of 0 sets n_no_rope_layer_step to
	 * n_layer ("always use rope"), and (il + 1) % n_layer leaves the last layer
	 * unrotated: what it runs, so what this reads */
	if ((a->flags & GG_NOPE_IF_NO_WINDOW) && has_window && swa == 0)
		nope = n < 1e6 ? (unsigned)n : 0;
	double lead = 0;
	if ((a->flags & GG_LEAD_ROPE) && num(h, "leading_dense_block_count", &lead) < 0)
		return PE_EFORMAT;
	unsigned char *pat = NULL;
	if (a->flags & GG_ROPE_PATTERN) {
		pat = calloc(p->n_all, 1);
		if (!pat)
			return PE_ENOMEM;
		p->pat = pat;
		int r = layer_flags(h, "attention.rope_pattern", p->n_all, pat);
		if (r < 0)
			return PE_EFORMAT;
		if (r == 0)
			memset(pat, 1, p->n_all);
	}
	int any_local = 0;
	for (size_t i = 0; i < n; i++) {
		int rot = has_attn[i];
		if ((a->flags & GG_ROPE_SWA_ONLY) && has_swa)
			rot = rot && (slides[i] || (double)i < lead);
		if (nope)
			rot = rot && (i + 1) % nope != 0;
		if (pat)
			rot = rot && pat[i];
		p->kind[i] = !rot ? L_NOPE : slides[i] && a->swa != SW_MAIN ? L_LOCAL : L_MAIN;
		any_local |= p->kind[i] == L_LOCAL;
	}
	if (!any_local)
		return emit_groups(h, label, p->kind, n, bp->buf, NULL);

	/* the sliding layers' spec */
	char *local = NULL;
	if (a->swa == SW_BASE) {
		/* get_rope_freq_base/scale: their base, the main scaling */
		local = with_base(bp, has_swa_base ? swa_base : base);
		char *cut =
		        local && (a->flags & GG_SWA_UNSCALED) ? strstr(local, ",scaling=") : NULL;
		if (cut) {
			struct strbuf ub = {0};
			strbuf_addf(&ub, "%.*s,scaling=none", (int)(cut - local), local);
			if (swa_attn != 1.0)
				put_number(&ub, "attention-factor", swa_attn);
			free(local);
			local = ub.buf;
			if (ub.failed) {
				free(ub.buf);
				local = NULL;
			}
		}
	} else {
		double lbase = a->swa == SW_FLAT     ? flat
		               : has_swa_base        ? swa_base
		               : a->swa == SW_OWN10K ? 10000.0
		                                     : base;
		if ((a->flags & GG_SWA_BASE_REQ) && !has_swa_base)
			return fail(h, PE_EFORMAT,
			            "%s.rope.freq_base_swa: missing, and llama.cpp's %s loader "
			            "requires it",
			            h->arch, a->name);
		/* their own head and rotary widths where the file gives them
		 * (attention.key_length_swa, rope.dimension_count_swa: Gemma 4) */
		double hd_swa = hd, n_rot_swa = 0;
		if (num(h, "attention.key_length_swa", &hd_swa) < 0 ||
		    num(h, "rope.dimension_count_swa", &n_rot_swa) < 0)
			return PE_EFORMAT;
		/* load_hparams defaults n_rot_swa to the main n_rot whatever the sliding
		 * head's width (a wider n_rot than that head fails below, as ggml_rope_ext
		 * would); step35: the width read before its loader halved n_rot */
		if (n_rot_swa == 0)
			n_rot_swa = (a->flags & GG_HALF_FULL) ? p->n_rot_file : n_rot;
		if (!(hd_swa >= 2) || hd_swa > 1e6 || hd_swa != floor(hd_swa) ||
		    !(n_rot_swa >= 2) || n_rot_swa > hd_swa || fmod(n_rot_swa, 2) != 0)
			return fail(
			        h, PE_EFORMAT,
			        "%s.attention.key_length_swa / rope.dimension_count_swa: %.17g of "
			        "%.17g is not an even width within the head",
			        h->arch, n_rot_swa, hd_swa);
		if (!(lbase > 1.0))
			return fail(h, PE_EFORMAT, "%s.rope.freq_base_swa: %.17g must exceed 1",
			            h->arch, lbase);
		struct strbuf lb = {0};
		strbuf_addf(&lb, "rope:layout=%s", p->layout);
		put_number(&lb, "base", lbase);
		if (n_rot_swa != hd_swa)
			put_number(&lb, "rotary",
			           pe_model_width_fraction((size_t)n_rot_swa, (size_t)hd_swa));
		if (hd_swa != hd)
			put_number(&lb, "head", hd_swa);
		/* SW_BASE_OWN: the main scaling (no factor tensor there: GG_NO_FACTORS) */
		const char *scaling = strstr(bp->buf, ",scaling=");
		if (a->swa == SW_BASE_OWN && scaling) {
			strbuf_addf(&lb, "%s", scaling);
		} else {
			strbuf_addf(&lb, ",scaling=none");
			if (swa_attn != 1.0)
				put_number(&lb, "attention-factor", swa_attn);
		}
		if (lb.failed) {
			free(lb.buf);
			return PE_ENOMEM;
		}
		local = lb.buf;
	}
	if (!local)
		return PE_ENOMEM;
	p->local = local;
	/* the same turns as the other layers: one group */
	if (strcmp(local, bp->buf) == 0)
		for (size_t i = 0; i < n; i++)
			if (p->kind[i] == L_LOCAL)
				p->kind[i] = L_MAIN;
	return emit_groups(h, label, p->kind, n, bp->buf, local);
}

/* The spec text and the per-layer tables are freed here whatever happens. */
static enum pe_status read_rope(struct gg *h, const struct gguf_arch *a, const char *label)
{
	struct strbuf b = {0};
	struct plan p = {0};
	enum pe_status st = rope_groups(h, a, label, &b, &p);
	free(b.buf);
	free(p.heads);
	free(p.kv);
	free(p.flags);
	free(p.kind);
	free(p.slides);
	free(p.pat);
	free(p.local);
	return st;
}

static enum pe_status read_alibi(struct gg *h, const struct gguf_arch *a, const char *label)
{
	double heads = 0, bias = 8.0, layers = 0;
	int has_bias = 0;
	if (num(h, "attention.head_count", &heads) < 0 || num(h, "block_count", &layers) < 0 ||
	    ((a->flags & GG_ALIBI_KEY) &&
	     (has_bias = num(h, "attention.max_alibi_bias", &bias)) < 0))
		return PE_EFORMAT;
	if (!(heads >= 1) || heads > 65536 || heads != floor(heads))
		return fail(h, PE_EFORMAT, "%s.attention.head_count: missing or not a count",
		            h->arch);
	/* mpt.cpp, jais.cpp: f_max_alibi_bias stays 0 without the key, and use_alibi with
	 * it (MPT's converter writes 0 for a model without ALiBi) */
	if ((a->flags & GG_ALIBI_KEY) && !(has_bias && bias > 0))
		return fail(h, PE_EUNSUPPORTED,
		            "%s.attention.max_alibi_bias: %s, so llama.cpp's %s graph has no "
		            "ALiBi (and no RoPE): no positional encoding beyond a learned table "
		            "the file may hold",
		            h->arch, has_bias ? "0" : "missing", a->name);
	/* bloom.cpp, refact.cpp and baichuan.cpp hard-code 8 */
	if (bias != 8.0)
		return fail(
		        h, PE_EUNSUPPORTED,
		        "%s.attention.max_alibi_bias: posenc computes ALiBi slopes of max bias 8, "
		        "not %.9g",
		        h->arch, bias);
	h->m->n_layers = layers > 0 && layers < 1e6 ? (size_t)layers : 0;
	/* llama.cpp's mask term is -|i - j| (llama-kv-cache.cpp, llama-graph.cpp), which ggml's
	 * soft_max multiplies by the head's slope: the paper's -m (i - j), not BLOOM's m j */
	char *spec = pe_asprintf("alibi:heads=%.0f,form=paper,label=%s", heads, label);
	if (!spec)
		return PE_ENOMEM;
	enum pe_status st = add_group(h->m, "all", spec);
	if (st == PE_OK)
		st = layers_where(&h->m->groups[0], NULL, h->m->n_layers, 0);
	return st;
}

enum pe_status pe_model_from_gguf(const struct pe_model_source *src, uint64_t budget,
                                  const char *label, struct pe_model **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	static const char *const want[] = {"rope_freqs.weight", "rope_factors_long.weight",
	                                   "rope_factors_short.weight", NULL};
	struct gguf_source gs = {src->read, src->ctx, src->size};
	struct gguf *g = NULL;
	enum pe_status st = gguf_read(&gs, want, budget, &g, err);
	if (st != PE_OK)
		return st;
	struct pe_model *m = calloc(1, sizeof(*m));
	struct gg h = {.g = g, .src = src, .m = m, .err = err};
	const struct gguf_kv *arch = gguf_find(g, "general.architecture");
	const struct gguf_arch *a = NULL;
	if (!m) {
		st = PE_ENOMEM;
		goto done;
	}
	if (!arch || !arch->str) {
		st = fail(&h, PE_EFORMAT, "general.architecture: missing or not a string");
		goto done;
	}
	h.arch = arch->str;
	for (size_t i = 0; i < sizeof(gguf_archs) / sizeof(gguf_archs[0]); i++)
		if (strcmp(gguf_archs[i].name, arch->str) == 0)
			a = &gguf_archs[i];
	if (!a) {
		struct strbuf known = {0};
		for (size_t i = 0; i < sizeof(gguf_archs) / sizeof(gguf_archs[0]); i++)
			strbuf_addf(&known, "%s%s", i ? ", " : "", gguf_archs[i].name);
		st = fail(&h, PE_EUNSUPPORTED,
		          "general.architecture: '%s' is not one posenc knows the pairing layout "
		          "of (known: %s)",
		          arch->str, known.buf ? known.buf : "");
		free(known.buf);
		goto done;
	}
	m->model_type = pe_strdup(arch->str);
	m->name = pe_strdup(label ? label : arch->str);
	if (!m->model_type || !m->name) {
		st = PE_ENOMEM;
		goto done;
	}
	if (a->flags & GG_NO_ROPE) {
		st = fail(&h, PE_EUNSUPPORTED,
		          "general.architecture '%s': llama.cpp's graph applies no RoPE to it (%s)",
		          arch->str, a->why);
		goto done;
	}
	int alibi = !a->layout;
	if (a->flags & GG_ROPE_OR_ALIBI_BY_SIZE) {
		/* baichuan.cpp: 32 layers (7B) rotate, 40 (13B) take ALiBi of max bias 8,
		 * other sizes neither */
		double layers = 0;
		if (num(&h, "block_count", &layers) < 0) {
			st = PE_EFORMAT;
			goto done;
		}
		if (layers != 32 && layers != 40) {
			st = fail(
			        &h, PE_EUNSUPPORTED,
			        "baichuan.block_count %.17g: llama.cpp rotates Baichuan's 32-layer "
			        "7B and gives its 40-layer 13B ALiBi; other sizes get no "
			        "positional "
			        "encoding",
			        layers);
			goto done;
		}
		alibi = layers == 40;
	}
	if (!alibi && (a->flags & GG_SECTIONS) && !has_key(&h, "rope.dimension_sections")) {
		st = fail(&h, PE_EFORMAT,
		          "%s.rope.dimension_sections: missing, and llama.cpp's %s loader requires "
		          "it",
		          arch->str, a->name);
		goto done;
	}
	st = alibi ? read_alibi(&h, a, m->name) : read_rope(&h, a, m->name);
	if (st == PE_OK) {
		char key[256];
		snprintf(key, sizeof(key), "%s.rope.dimension_sections", arch->str);
		const struct gguf_kv *sec = gguf_find(g, key);
		for (uint64_t i = 0; sec && sec->arr && i < sec->arr_n && st == PE_OK; i++) {
			double x = sec->arr[i];
			if (!(x >= 0 && x <= 1e6 && x == floor(x)))
				st = fail(&h, PE_EFORMAT,
				          "%s[%llu]: %.17g is not a whole number of pairs >= 0",
				          key, (unsigned long long)i, x);
		}
		if (st == PE_OK && sec && sec->arr) {
			struct strbuf nb = {0};
			strbuf_addf(&nb, "M-RoPE sections");
			for (uint64_t i = 0; i < sec->arr_n; i++)
				strbuf_addf(&nb, "%s%.0f", i ? "/" : " ", sec->arr[i]);
			strbuf_addf(&nb, " (pairs per axis): text positions are equal on every "
			                 "axis, which is plain RoPE (this spec)");
			double base = 10000.0;
			num(&h, "rope.freq_base", &base);
			/* llama_model_rope_type: IMROPE, the sections interleaved over the pairs */
			const char *il = (a->flags & GG_IMROPE) ? ",interleaved=1" : "";
			/* a fourth axis (HunyuanVL's XD-RoPE) is one posenc's mrope lacks; an
			 * altered base is not the file's freq_base */
			int four = sec->arr_n >= 4 && sec->arr[3] != 0;
			if (four)
				strbuf_addf(&nb, "; image tokens use a fourth axis, which posenc's "
				                 "mrope does not have");
			/* dflash.cpp: a draft's degenerate sections follow the target's
			 * temporal axis alone, no image grid of its own */
			if (sec->arr_n >= 3 && !four &&
			    !(a->flags & (GG_XD_ALPHA | GG_BASE_10K | GG_DFLASH))) {
				strbuf_addf(
				        &nb,
				        "; image and video tokens: -s mrope:base=%.17g,t=%.0f,"
				        "h=%.0f,w=%.0f%s with text=N,frames=F,height=H,width=W or "
				        "with --position-ids FILE; either, given with this model "
				        "spec, selects that mrope spec",
				        base, sec->arr[0], sec->arr[1], sec->arr[2], il);
				free(m->mrope_spec);
				m->mrope_spec = pe_asprintf(
				        "mrope:base=%.17g,t=%.0f,h=%.0f,w=%.0f%s,"
				        "label=%s",
				        base, sec->arr[0], sec->arr[1], sec->arr[2], il, m->name);
				if (!m->mrope_spec)
					st = PE_ENOMEM;
			}
			free(m->note);
			m->note = nb.buf;
			if (nb.failed)
				st = PE_ENOMEM;
		}
	}
	if (st == PE_OK && a->why) {
		/* what the shown rotation leaves out (draft heads, speech models, indexers) */
		char *note = m->note ? pe_asprintf("%s; %s", m->note, a->why) : pe_strdup(a->why);
		if (!note)
			st = PE_ENOMEM;
		free(m->note);
		m->note = note;
	}
	if (st == PE_OK && !(m->train_context > 0))
		m->train_context = m->context;
	if (st == PE_OK)
		st = pe_model_check_specs(m, err);
done:
	gguf_free(g);
	if (st != PE_OK) {
		if (st == PE_ENOMEM && err && !*err)
			*err = pe_strdup("out of memory");
		pe_model_destroy(m);
		return st;
	}
	*out = m;
	return PE_OK;
}
