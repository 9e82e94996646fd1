/*
 * posenc/matrix.h - the dense float64 matrix every analysis returns
 *
 * A matrix is rows x cols doubles in row-major order: element (i, j) is
 * data[i * cols + j]. The struct is public so callers can read results
 * without accessors; create and destroy it with the functions below.
 */
#ifndef POSENC_MATRIX_H
#define POSENC_MATRIX_H

#include <stddef.h>

#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pe_matrix {
	size_t rows;
	size_t cols;
	double *data; /* rows * cols elements, row-major; owned by the matrix */
};

/*
 * pe_matrix_create() - allocate a zero-filled rows x cols matrix
 *
 * A matrix with rows or cols zero is valid and has data == NULL.
 *
 * @return a new matrix, or NULL if rows * cols overflows or allocation
 * fails. Free it with pe_matrix_destroy().
 */
PE_API struct pe_matrix *pe_matrix_create(size_t rows, size_t cols);

/*
 * pe_matrix_destroy() - free a matrix and its data; NULL is a no-op
 *
 * The data may also be a malloc'ed array a caller put in place of its own
 * (freed with free()): see pe_buffer_free().
 */
PE_API void pe_matrix_destroy(struct pe_matrix *m);

/*
 * pe_matrix_row() - pointer to row i of m (i < m->rows)
 *
 * @return a pointer into m->data, borrowed: valid until m is destroyed.
 */
static inline double *pe_matrix_row(const struct pe_matrix *m, size_t i)
{
	return m->data + i * m->cols;
}

/*
 * pe_size_mul() - overflow-checked a * b
 *
 * @return PE_OK and *out = a * b, or PE_ETOOBIG if the product does not fit
 * in size_t (*out is then left unchanged).
 */
PE_API enum pe_status pe_size_mul(size_t a, size_t b, size_t *out);

/*
 * Large buffers (tables, matrices, image rows, read buffers). From 2 MiB on
 * a buffer is a mapping of its own, aligned to 2 MiB and advised
 * MADV_HUGEPAGE: with transparent huge pages enabled ("madvise" or
 * "always" in /sys/kernel/mm/transparent_hugepage/enabled) it is faulted
 * in 2 MiB at a time instead of 4 KiB. The most recently freed one is kept
 * and handed out again to a request of up to its size and at least half of
 * it, so a buffer freed and asked for again is not faulted in twice.
 * Smaller requests go to malloc().
 */

/*
 * pe_buffer_alloc() - @bytes of uninitialised memory (at least 1 byte)
 *
 * @return the buffer, or NULL when out of memory. Free it with
 * pe_buffer_free().
 */
PE_API void *pe_buffer_alloc(size_t bytes);

/*
 * pe_buffer_calloc() - @count * @size zeroed bytes, as calloc()
 *
 * @return the buffer, or NULL when the size overflows or memory runs out.
 * Free it with pe_buffer_free().
 */
PE_API void *pe_buffer_calloc(size_t count, size_t size);

/*
 * pe_buffer_free() - free a buffer of pe_buffer_alloc() or
 * pe_buffer_calloc(); a pointer from malloc() is passed to free(); NULL is
 * a no-op. Thread-safe.
 */
PE_API void pe_buffer_free(void *p);

/*
 * pe_buffer_trim() - give the kept mapping (see above) back to the system
 */
PE_API void pe_buffer_trim(void);

#ifdef __cplusplus
}
#endif

#endif
