#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/matrix.h>
#include <posenc/status.h>

static void status_strings_are_distinct(void **state)
{
	(void)state;
	for (int a = PE_OK; a <= PE_ENOTFOUND; a++) {
		assert_non_null(pe_status_str(a));
		for (int b = a + 1; b <= PE_ENOTFOUND; b++)
			assert_string_not_equal(pe_status_str(a), pe_status_str(b));
	}
	assert_string_equal(pe_status_str((enum pe_status)999), "unknown status");
}

static void matrix_create_is_zeroed_and_checks_overflow(void **state)
{
	(void)state;
	struct pe_matrix *m = pe_matrix_create(3, 4);
	assert_non_null(m);
	assert_int_equal(m->rows, 3);
	assert_int_equal(m->cols, 4);
	for (size_t i = 0; i < 12; i++)
		assert_true(m->data[i] == 0.0);
	assert_ptr_equal(pe_matrix_row(m, 2), m->data + 8);
	pe_matrix_destroy(m);
	pe_matrix_destroy(NULL);
	assert_null(pe_matrix_create(SIZE_MAX / 2, 3));
	assert_null(pe_matrix_create(SIZE_MAX / 8 + 1, 1));
	size_t out = 7;
	assert_int_equal(pe_size_mul(SIZE_MAX, 2, &out), PE_ETOOBIG);
	assert_int_equal(out, 7);
	assert_int_equal(pe_size_mul(0, SIZE_MAX, &out), PE_OK);
	assert_int_equal(out, 0);
	m = pe_matrix_create(0, 5);
	assert_non_null(m);
	assert_null(m->data);
	pe_matrix_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(status_strings_are_distinct),
	        cmocka_unit_test(matrix_create_is_zeroed_and_checks_overflow),
	};
	return cmocka_run_group_tests_name("status", tests, NULL, NULL);
}
