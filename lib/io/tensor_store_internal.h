/*
 * tensor_store_internal.h - what a tensor store knows past posenc/tensors.h (not installed)
 */
#ifndef POSENC_TENSOR_STORE_INTERNAL_H
#define POSENC_TENSOR_STORE_INTERNAL_H

#include <posenc/tensors.h>

#include "io/read_gguf.h"

/* A store opened on a GGUF file: its metadata (keys, tensor infos); NULL otherwise. */
const struct gguf *rd_tensor_store_gguf(const struct pe_tensor_store *s);

#endif
