/*
 * The inference engines check knows: one row each, with the conventions in
 * which it departs from transformers and the float32 path it computes by.
 * Sources (read for this): transformers modeling_rope_utils
 * (dynamic_rope_update, _compute_longrope_parameters); vLLM
 * model_executor/layers/rotary_embedding (dynamic_ntk_scaling_rope.py builds
 * one cache at max_position * factor; phi3_long_rope_scaled_rope.py;
 * yarn_scaling_rope.py without a truncate key); llama.cpp llama-model.cpp /
 * llama-context.cpp (n_ctx_orig_yarn, LongRoPE factors chosen by n_ctx, no
 * dynamic scaling type) and ggml.c ggml_rope_yarn_corr_dims (floor/ceil).
 */
#include <math.h>
#include <string.h>

#include "analysis/check_internal.h"

struct engine_row {
	enum pe_engine engine;
	const char *name;
	const char *aliases; /* space separated */
	unsigned paths;      /* 1 << enum check_path */
};

static const struct engine_row engines[] = {
        {PE_ENGINE_ANY, "any", "",
         (1u << CHECK_PATH_TORCH) | (1u << CHECK_PATH_GGML) | (1u << CHECK_PATH_VLLM) |
                 (1u << CHECK_PATH_VLLM_CUDA)},
        {PE_ENGINE_HF, "hf", "transformers huggingface", 1u << CHECK_PATH_TORCH},
        {PE_ENGINE_VLLM, "vllm", "", (1u << CHECK_PATH_VLLM) | (1u << CHECK_PATH_VLLM_CUDA)},
        {PE_ENGINE_LLAMACPP, "llama.cpp", "llamacpp ggml", 1u << CHECK_PATH_GGML},
};

#define N_ENGINES (sizeof(engines) / sizeof(engines[0]))

static int word_in(const char *list, const char *w)
{
	size_t len = strlen(w);
	for (const char *k = list; *k;) {
		size_t n = strcspn(k, " ");
		if (n == len && strncmp(k, w, n) == 0)
			return 1;
		k += n;
		k += strspn(k, " ");
	}
	return 0;
}

enum pe_status pe_engine_parse(const char *text, enum pe_engine *out)
{
	for (size_t i = 0; i < N_ENGINES; i++)
		if (strcmp(text, engines[i].name) == 0 || word_in(engines[i].aliases, text)) {
			*out = engines[i].engine;
			return PE_OK;
		}
	return PE_EINVAL;
}

const char *pe_engine_name(enum pe_engine e)
{
	for (size_t i = 0; i < N_ENGINES; i++)
		if (engines[i].engine == e)
			return engines[i].name;
	return "unknown";
}

unsigned check_engine_paths(enum pe_engine e)
{
	for (size_t i = 0; i < N_ENGINES; i++)
		if (engines[i].engine == e)
			return engines[i].paths;
	return 1u << CHECK_PATH_TORCH;
}

const char *check_path_text(enum check_path p)
{
	switch (p) {
	case CHECK_PATH_GGML:
		return "ggml's float32 path (llama.cpp: theta_scale = powf(base, -2/n_dims) "
		       "multiplied pair by pair)";
	case CHECK_PATH_VLLM:
		return "vLLM's float32 path (linear scaling: the positions divided by the factor, "
		       "then x inv_freq)";
	case CHECK_PATH_VLLM_CUDA:
		return "vLLM's float32 path on a GPU (a tensor divided by a Python number is "
		       "multiplied by its float32 reciprocal: arange / rotary_dim, positions / "
		       "factor, the llama3 and YaRN steps)";
	default:
		return "torch's float32 path (transformers, vLLM: position x inv_freq)";
	}
}

/* The engine's own length for dynamic NTK and LongRoPE: its max_model_len or n_ctx. */
static double trained_length(const struct pe_rope_scaling_params *p)
{
	return p->factor > 1 ? p->factor * p->original : p->original;
}

enum pe_status pe_engine_apply(enum pe_engine e, struct pe_rope_scaling_params *p,
                               double seq_length, int from_gguf, const char **note)
{
	const char *n = NULL;
	int by_length = p->type == PE_ROPE_SCALING_DYNAMIC || p->type == PE_ROPE_SCALING_LONGROPE;
	switch (e) {
	case PE_ENGINE_ANY:
	case PE_ENGINE_HF:
		if (by_length && p->length == 0)
			p->length = seq_length;
		break;
	case PE_ENGINE_VLLM:
		if (by_length && p->length == 0) {
			p->length = trained_length(p);
			n = p->type == PE_ROPE_SCALING_DYNAMIC
			            ? "dynamic NTK fixed at max_position x factor for every "
			              "position"
			            : "LongRoPE's long factors when max_model_len (factor x "
			              "original) exceeds the original context";
		}
		break;
	case PE_ENGINE_LLAMACPP:
		if (p->type == PE_ROPE_SCALING_DYNAMIC) {
			p->type = PE_ROPE_SCALING_NONE;
			n = "no dynamic NTK (unscaled frequencies)";
		} else if (p->type == PE_ROPE_SCALING_LONGROPE && p->length == 0) {
			p->length = trained_length(p);
			n = "LongRoPE factors chosen by the context size n_ctx (taken "
			    "as factor x original; length= sets it)";
		} else if (p->type == PE_ROPE_SCALING_YARN) {
			int att = !from_gguf && !isnan(p->attention_factor);
			if (!p->truncate || att)
				n = att ? "YaRN's correction range always floored/ceiled "
				          "(ggml_rope_yarn_corr_dims), and the config's "
				          "attention_factor "
				          "ignored (ggml's 0.1 ln(factor) + 1)"
				        : "YaRN's correction range always floored/ceiled "
				          "(ggml_rope_yarn_corr_dims)";
			p->truncate = 1;
			if (att)
				p->attention_factor = NAN;
		} else if (by_length && p->length == 0) {
			p->length = seq_length;
		}
		break;
	default:
		return PE_EINVAL;
	}
	if (note)
		*note = n;
	return PE_OK;
}
