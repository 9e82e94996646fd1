#include <stdint.h>
#include <stdlib.h>

#include <posenc/matrix.h>

enum pe_status pe_size_mul(size_t a, size_t b, size_t *out)
{
	if (a != 0 && b > SIZE_MAX / a)
		return PE_ETOOBIG;
	*out = a * b;
	return PE_OK;
}

struct pe_matrix *pe_matrix_create(size_t rows, size_t cols)
{
	size_t count;
	if (pe_size_mul(rows, cols, &count) != PE_OK || count > SIZE_MAX / sizeof(double))
		return NULL;
	struct pe_matrix *m = malloc(sizeof(*m));
	if (!m)
		return NULL;
	m->rows = rows;
	m->cols = cols;
	m->data = NULL;
	if (count > 0) {
		m->data = pe_buffer_calloc(count, sizeof(double));
		if (!m->data) {
			free(m);
			return NULL;
		}
	}
	return m;
}

void pe_matrix_destroy(struct pe_matrix *m)
{
	if (!m)
		return;
	pe_buffer_free(m->data);
	free(m);
}
