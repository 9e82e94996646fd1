/*
 * Large buffers (lib/core/buffer.c): 2 MiB alignment, zeroed when asked,
 * the mapping kept for the next request (and zeroed again), malloc's
 * pointers accepted, and the huge-page advice visible to the kernel
 * (/proc/self/smaps says "THPeligible: 1" for the mapping when transparent
 * huge pages are not off).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/matrix.h>

#define MIB ((size_t)1 << 20)

static void aligned_and_zeroed(void **state)
{
	(void)state;
	unsigned char *p = pe_buffer_calloc(3 * MIB, 1);
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % (2 * MIB), 0);
	for (size_t i = 0; i < 3 * MIB; i += 4093)
		assert_int_equal(p[i], 0);
	memset(p, 0xab, 3 * MIB);
	pe_buffer_free(p);
	/* the same size again: the kept mapping, zeroed again */
	unsigned char *q = pe_buffer_calloc(3 * MIB, 1);
	assert_ptr_equal(q, p);
	for (size_t i = 0; i < 3 * MIB; i += 4093)
		assert_int_equal(q[i], 0);
	pe_buffer_free(q);
	pe_buffer_trim();
}

static void small_and_foreign(void **state)
{
	(void)state;
	char *s = pe_buffer_alloc(100);
	assert_non_null(s);
	memset(s, 1, 100);
	pe_buffer_free(s);
	pe_buffer_free(malloc(10 * MIB)); /* not ours: free() */
	pe_buffer_free(NULL);
	assert_null(pe_buffer_calloc(SIZE_MAX / 2, 4)); /* overflows */
	/* more live buffers than the table holds: the rest from malloc, all usable */
	void *many[80];
	for (int i = 0; i < 80; i++) {
		many[i] = pe_buffer_alloc(2 * MIB);
		assert_non_null(many[i]);
		memset(many[i], i, 2 * MIB);
	}
	for (int i = 0; i < 80; i++)
		pe_buffer_free(many[i]);
	pe_buffer_trim();
}

/* The mapping's THPeligible line in /proc/self/smaps, or -1 when not shown. */
static int thp_eligible(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	char line[512];
	int in = 0, got = -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (in && strncmp(line, "THPeligible:", 12) == 0)
			got = atoi(line + 12);
	}
	fclose(f);
	return got;
}

static void advised_huge(void **state)
{
	(void)state;
	char mode[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (f) {
		if (!fgets(mode, sizeof(mode), f))
			mode[0] = 0;
		fclose(f);
	}
	void *p = pe_buffer_alloc(8 * MIB);
	assert_non_null(p);
	memset(p, 1, 8 * MIB);
	int e = thp_eligible(p);
	if (!strstr(mode, "[always]") && !strstr(mode, "[madvise]")) {
		pe_buffer_free(p);
		skip(); /* huge pages off here, or no THP at all */
	}
	if (e >= 0)
		assert_int_equal(e, 1);
	pe_buffer_free(p);
	pe_buffer_trim();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(aligned_and_zeroed),
	        cmocka_unit_test(small_and_foreign),
	        cmocka_unit_test(advised_huge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
