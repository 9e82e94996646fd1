/*
 * posenc/tensors.h - tensors of a checkpoint read by name, a slice at a time
 *
 * A tensor store is a safetensors file, a sharded checkpoint (the
 * model.safetensors.index.json that maps each tensor name to its shard
 * file, as transformers writes it), a GGUF file (llama.cpp's; its shape is
 * ggml's ne reversed, so a weight stored ne = [in, out] is [out, in] here,
 * row-major as in safetensors; dtype is ggml's type name, and only F32,
 * F16, BF16 and F64 are readable: quantised blocks are listed, not read)
 * or an .npy file (one unnamed array).
 * Opening reads the headers only (a safetensors header into a buffer of
 * its own size: nothing of the file's size is allocated or mapped, so a
 * checkpoint larger than the address-space limit opens); pe_tensor_store_read() then reads any
 * run of elements of one tensor from its file by offset (pread), converted
 * to float64 exactly, so a caller holds as much of a checkpoint as it asks
 * for at a time, never the whole file. Files are read, not mapped: a file
 * that shrinks meanwhile is an error, not SIGBUS.
 *
 * Headers are validated as the readers of posenc/read.h validate them
 * (offsets tiling the data, no duplicate names); an index must be a JSON
 * object with a "weight_map" object of string values naming files in the
 * index's folder (no '/' in them, no "..": a crafted index cannot reach
 * other files), each tensor it names present in that shard, no tensor in
 * two shards.
 */
#ifndef POSENC_TENSORS_H
#define POSENC_TENSORS_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/read.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pe_tensor_store;

/*
 * pe_tensor_store_open() - open a .safetensors, index .json, .gguf or .npy file
 *
 * @path:   the file; a name ending in ".json" is read as a sharded index.
 * @budget: the most bytes the headers may take to parse (0: no limit).
 * @out:    on success a new store; free with pe_tensor_store_destroy().
 * @err:    on failure, if not NULL, a message (free()) naming the shard
 *          when the fault is in one.
 *
 * @return PE_OK, PE_EIO (a file cannot be opened or read), PE_EFORMAT (a
 * malformed header or index), PE_ETOOBIG (headers over @budget), PE_ENOMEM.
 */
PE_API enum pe_status pe_tensor_store_open(const char *path, uint64_t budget,
                                           struct pe_tensor_store **out, char **err);

/* pe_tensor_store_count() - how many tensors the store holds. */
PE_API size_t pe_tensor_store_count(const struct pe_tensor_store *s);

/*
 * pe_tensor_store_info() - tensor @i (0 .. count-1), in file order, shard after shard
 *
 * @return a description owned by the store (its name is NULL for an .npy
 * array), or NULL when @i is out of range.
 */
PE_API const struct pe_tensor_info *pe_tensor_store_info(const struct pe_tensor_store *s, size_t i);

/*
 * pe_tensor_store_find() - the tensor named @name
 *
 * @return a description owned by the store, or NULL when there is none.
 */
PE_API const struct pe_tensor_info *pe_tensor_store_find(const struct pe_tensor_store *s,
                                                         const char *name);

/*
 * pe_tensor_store_readable() - whether pe_tensor_store_read() can convert
 * a tensor's dtype (F64, F32, F16, BF16; .npy <f8 <f4 <f2 and big-endian)
 */
PE_API int pe_tensor_store_readable(const struct pe_tensor_info *t);

/*
 * pe_tensor_store_read() - elements first .. first+count-1 of a tensor
 *
 * Elements are counted in the file's order (row-major for safetensors and
 * C-order .npy), converted exactly to float64 into @dst. Reads in pieces
 * of at most 1 MiB of file bytes.
 *
 * @t: a description from pe_tensor_store_info() or _find() of this store.
 *
 * @return PE_OK, PE_ERANGE (elements past the tensor's end), PE_EFORMAT
 * (a dtype that cannot be read, a Fortran-order .npy), PE_EIO (a read
 * failed or the file shrank), PE_ENOMEM.
 */
PE_API enum pe_status pe_tensor_store_read(struct pe_tensor_store *s,
                                           const struct pe_tensor_info *t, uint64_t first,
                                           size_t count, double *dst, char **err);

/* pe_tensor_store_bytes_read() - data bytes read so far (headers excluded). */
PE_API uint64_t pe_tensor_store_bytes_read(const struct pe_tensor_store *s);

/* pe_tensor_store_files() - how many files the store reads (1, or the shards). */
PE_API size_t pe_tensor_store_files(const struct pe_tensor_store *s);

/* pe_tensor_store_destroy() - close the files and free; NULL is a no-op. */
PE_API void pe_tensor_store_destroy(struct pe_tensor_store *s);

#ifdef __cplusplus
}
#endif

#endif
