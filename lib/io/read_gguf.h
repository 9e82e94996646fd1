/*
 * read_gguf.h - the header, key-value section and tensor index of a GGUF file
 *
 * GGUF (ggml's model file; the specification is ggml's docs/gguf.md):
 * little-endian; "GGUF", a version (2 or 3: 64-bit counts), the tensor and
 * key-value counts, the key-value pairs (a string key, a uint32 value type,
 * the value), the tensor infos (name, dimension count, dimensions, ggml
 * type, offset into the data section), then the data section at the next
 * multiple of general.alignment (32 if absent).
 *
 * An untrusted-input parser: every length is checked against the file size
 * before anything is read or allocated, and what it keeps is counted
 * against a memory budget. It keeps scalar values, strings up to 4 KiB and
 * numeric arrays up to 4096 elements; longer values (a tokenizer's
 * vocabulary) are skipped. Tensor infos are kept only for names the caller
 * asks for.
 */
#ifndef POSENC_READ_GGUF_H
#define POSENC_READ_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/status.h>

enum gguf_type {
	GGUF_UINT8 = 0,
	GGUF_INT8 = 1,
	GGUF_UINT16 = 2,
	GGUF_INT16 = 3,
	GGUF_UINT32 = 4,
	GGUF_INT32 = 5,
	GGUF_FLOAT32 = 6,
	GGUF_BOOL = 7,
	GGUF_STRING = 8,
	GGUF_ARRAY = 9,
	GGUF_UINT64 = 10,
	GGUF_INT64 = 11,
	GGUF_FLOAT64 = 12,
};

/* Where the bytes come from: a file, or memory (the fuzz target). */
struct gguf_source {
	/* Copies len bytes at off into buf; 0 on success, -1 on an I/O error. */
	int (*read)(void *ctx, uint64_t off, void *buf, size_t len);
	void *ctx;
	uint64_t size; /* total bytes */
};

struct gguf_kv {
	char *key;
	enum gguf_type type;
	double num; /* numeric and bool scalars */
	char *str;  /* strings up to 4 KiB; NULL otherwise */
	enum gguf_type arr_type;
	uint64_t arr_n; /* arrays: element count */
	double *arr;    /* numeric arrays up to 4096 elements; NULL otherwise */
};

struct gguf_tensor {
	char *name;
	uint32_t n_dims;
	uint64_t dims[4];
	uint32_t type;   /* ggml type: 0 F32, 1 F16 */
	uint64_t offset; /* absolute, in the file */
};

struct gguf {
	uint32_t version;
	size_t n_kv;
	struct gguf_kv *kv;
	size_t n_tensors; /* kept ones */
	struct gguf_tensor *tensors;
};

/* gguf_read()'s @want that keeps every tensor's info. */
extern const char *const gguf_all_tensors[];

/*
 * gguf_read() - parse the metadata
 *
 * @want: NULL-terminated tensor names whose infos to keep, or gguf_all_tensors
 *        for every tensor (a checkpoint's weights read by name).
 * @budget: the most bytes the result may hold.
 * @err: on failure a malloc'd message (with the byte offset).
 *
 * @return PE_OK, PE_EFORMAT (not GGUF, truncated, a length past the end,
 * an unknown type, big-endian), PE_ETOOBIG (over the budget), PE_EIO,
 * PE_ENOMEM.
 */
enum pe_status gguf_read(const struct gguf_source *src, const char *const *want, uint64_t budget,
                         struct gguf **out, char **err);

/* The value of @key, or NULL. */
const struct gguf_kv *gguf_find(const struct gguf *g, const char *key);

/* The kept tensor named @name, or NULL. */
const struct gguf_tensor *gguf_tensor(const struct gguf *g, const char *name);

/*
 * gguf_tensor_f32() - the n values of a one-dimensional F32 tensor
 *
 * @return PE_OK, PE_EUNSUPPORTED (not F32 or not 1-D), PE_EFORMAT (not n
 * elements, data past the end), PE_EIO.
 */
enum pe_status gguf_tensor_f32(const struct gguf_source *src, const struct gguf_tensor *t,
                               double *out, size_t n);

/* The first n values of a one-dimensional F32 tensor of at least n (ggml reads the head of
 * a longer factor tensor when fewer dimensions rotate); errors as gguf_tensor_f32(). */
enum pe_status gguf_tensor_f32_head(const struct gguf_source *src, const struct gguf_tensor *t,
                                    double *out, size_t n);

void gguf_free(struct gguf *g);

#endif
