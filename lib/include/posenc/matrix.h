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

#ifdef __cplusplus
}
#endif

#endif
