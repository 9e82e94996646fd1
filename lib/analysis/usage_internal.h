/*
 * usage_internal.h - the attention tensors of a checkpoint, by layer (not installed)
 */
#ifndef POSENC_USAGE_INTERNAL_H
#define POSENC_USAGE_INTERNAL_H

#include <stddef.h>

#include <posenc/tensors.h>
#include <posenc/usage.h>

/* What a tensor is to the attention of its layer. */
enum us_role {
	US_Q,  /* q_proj, q_b_proj */
	US_K,  /* k_proj, kv_a_proj_with_mqa */
	US_QB, /* their biases */
	US_KB,
	US_QKV,   /* fused qkv weight */
	US_QKVB,  /* its bias */
	US_QNORM, /* q_norm / q_layernorm weight */
	US_KNORM,
	US_QLN, /* q_layernorm / k_layernorm: LayerNorms (mean-centred), not folded */
	US_KLN,
	US_NROLES,
};

/* The tensors of one layer (NULL: absent). */
struct us_layer {
	const struct pe_tensor_info *t[US_NROLES];
};

/* The attention tensors found under one prefix. */
struct us_found {
	char *prefix; /* owned: "model.layers." */
	char *module; /* owned: "self_attn" (the part between the layer and the role) */
	size_t layers;
	struct us_layer *layer; /* owned */
	int mla;                /* q_b_proj or kv_a_proj_with_mqa named the tensors */
	int fused;
};

/*
 * us_find() - the attention tensors of the model's layers
 *
 * Groups every tensor named PREFIX<N>.MODULE.ROLE.{weight,bias} by PREFIX
 * and MODULE, keeps those whose every layer 0..L-1 has q and k (or a fused
 * tensor), and picks one: the only one, else the one with @n_layers layers
 * (when not 0), else one whose prefix names no vision, audio or image part.
 *
 * @optional: NULL, or @n_layers flags: layers that may lack q and k (a
 * hybrid model's linear-attention, state-space or cross-attention layers,
 * which have no RoPE); a set with them missing is extended to @n_layers.
 *
 * @return PE_OK, PE_ENOTFOUND (none), PE_EFORMAT (several fit equally:
 * *err names them), PE_ENOMEM.
 */
enum pe_status us_find(const struct pe_tensor_store *s, size_t n_layers,
                       const unsigned char *optional, struct us_found *out, char **err);
void us_found_free(struct us_found *f);

#endif
