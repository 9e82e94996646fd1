/*
 * The scheme registry: every type is complete (its capabilities have the
 * functions behind them, its key defaults are valid spec text), names are
 * unique, and each scheme can do what its documentation says it can.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/scheme.h>

#include "scheme/scheme_type.h"

/*
 * What each scheme can do, written from the README and posenc/scheme.h
 * rather than read from the tables: position vectors or an attention
 * bias, which closed forms exist, which views.
 */
static const struct {
	const char *name;
	unsigned caps;
} expected[] = {
        {"sinusoidal",
         PE_CAP_VECTORS | PE_CAP_ENCODE | PE_CAP_FREQS | PE_CAP_WINDOW | PE_CAP_TOEPLITZ},
        {"rope", PE_CAP_VECTORS | PE_CAP_ENCODE | PE_CAP_VIEWS | PE_CAP_FREQS | PE_CAP_WINDOW |
                         PE_CAP_TOEPLITZ | PE_CAP_SCALING | PE_CAP_BOUND},
        {"learned", PE_CAP_VECTORS | PE_CAP_ENCODE | PE_CAP_UNTRAINED},
        {"binary", PE_CAP_VECTORS | PE_CAP_ENCODE},
        {"file", PE_CAP_VECTORS | PE_CAP_TABLE},
        {"alibi", PE_CAP_BIAS | PE_CAP_BIAS_HEADS},
        {"t5", PE_CAP_BIAS | PE_CAP_BUCKETS},
        {"nope", PE_CAP_VECTORS | PE_CAP_ENCODE},
        {"mrope", PE_CAP_VECTORS | PE_CAP_ENCODE | PE_CAP_VIEWS | PE_CAP_FREQS},
};

static void documented_capabilities(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		const struct pe_scheme_type *t = pe_scheme_type_find(expected[i].name);
		if (!t)
			fail_msg("scheme '%s' is not registered", expected[i].name);
		if (pe_scheme_type_caps(t) != expected[i].caps)
			fail_msg("scheme '%s': capabilities %#x, documented %#x", expected[i].name,
			         pe_scheme_type_caps(t), expected[i].caps);
	}
	assert_null(pe_scheme_type_find("sinus"));
	assert_null(pe_scheme_type_find(""));
}

static void types_are_complete(void **state)
{
	(void)state;
	size_t n;
	const struct pe_scheme_type *const *types = pe_scheme_types(&n);
	assert_true(n >= 7);
	for (size_t i = 0; i < n; i++) {
		const struct pe_scheme_type *t = types[i];
		const char *name = pe_scheme_type_name(t);
		assert_non_null(name);
		assert_non_null(pe_scheme_type_summary(t));
		assert_ptr_equal(pe_scheme_type_find(name), t);
		for (size_t j = 0; j < i; j++)
			assert_true(strcmp(pe_scheme_type_name(types[j]), name) != 0);
		unsigned caps = t->caps;
		/* Exactly one of: position vectors, an attention bias. */
		assert_true(!(caps & PE_CAP_VECTORS) != !(caps & PE_CAP_BIAS));
		/* Vectors come from a formula or a file. */
		if (caps & PE_CAP_VECTORS)
			assert_true(!(caps & PE_CAP_ENCODE) != !(caps & PE_CAP_TABLE));
		if ((caps & PE_CAP_ENCODE) && !t->rows)
			fail_msg("%s: PE_CAP_ENCODE without rows()", name);
		if ((caps & PE_CAP_WINDOW) && !t->window)
			fail_msg("%s: PE_CAP_WINDOW without window()", name);
		if ((caps & PE_CAP_FREQS) && !t->frequencies)
			fail_msg("%s: PE_CAP_FREQS without frequencies()", name);
		if (!(caps & PE_CAP_TOEPLITZ) != !t->kernel)
			fail_msg("%s: PE_CAP_TOEPLITZ and kernel() disagree", name);
		if (caps & (PE_CAP_VIEWS | PE_CAP_SCALING | PE_CAP_BOUND))
			assert_true(caps & PE_CAP_ENCODE);
		assert_true(t->n_keys < 64);
		for (size_t k = 0; k < t->n_keys; k++) {
			assert_non_null(t->keys[k].help);
			assert_true(strcmp(t->keys[k].name, "label") != 0);
			for (size_t j = 0; j < k; j++)
				assert_true(strcmp(t->keys[j].name, t->keys[k].name) != 0);
		}
	}
}

/* Every default is spec text the key accepts, and giving it changes nothing. */
static void defaults_are_valid_text(void **state)
{
	(void)state;
	size_t n;
	const struct pe_scheme_type *const *types = pe_scheme_types(&n);
	for (size_t i = 0; i < n; i++) {
		const struct pe_scheme_type *t = types[i];
		if (t->caps & PE_CAP_TABLE)
			continue; /* needs path=, which has no default */
		char *err = NULL;
		for (size_t k = 0; k < t->n_keys; k++) {
			const struct pe_scheme_key *key = &t->keys[k];
			if (!key->def)
				continue;
			/* A scaling's key is given with the first scaling that takes it. */
			char with[64] = "";
			for (size_t r = 1; r < pe_rope_scaling_count && (t->caps & PE_CAP_SCALING);
			     r++) {
				if (!pe_rope_scaling_takes((enum pe_rope_scaling)0, key->name) &&
				    pe_rope_scaling_takes((enum pe_rope_scaling)r, key->name)) {
					snprintf(with, sizeof(with), "scaling=%s,",
					         pe_rope_scalings[r].name);
					break;
				}
			}
			if (strstr(with, "longrope"))
				continue; /* needs both factor lists; test_scheme covers it */
			char spec[256], base[96];
			snprintf(base, sizeof(base), "%s%s%.*s", t->name, *with ? ":" : "",
			         (int)(*with ? strlen(with) - 1 : 0), with);
			snprintf(spec, sizeof(spec), "%s:%s%s=%s", t->name, with, key->name,
			         key->def);
			struct pe_scheme *plain = NULL;
			if (pe_scheme_parse(base, &plain, &err) != PE_OK)
				fail_msg("'%s': %s", base, err ? err : "?");
			struct pe_scheme *s = NULL;
			if (pe_scheme_parse(spec, &s, &err) != PE_OK)
				fail_msg("'%s': %s", spec, err ? err : "?");
			const char *a = (const char *)plain + key->offset;
			const char *b = (const char *)s + key->offset;
			size_t size = key->type == PE_KEY_DOUBLE || key->type == PE_KEY_WHOLE
			                      ? sizeof(double)
			              : key->type == PE_KEY_U64   ? sizeof(uint64_t)
			              : key->type == PE_KEY_COUNT ? sizeof(unsigned)
			                                          : sizeof(int);
			if (memcmp(a, b, size) != 0)
				fail_msg("'%s' differs from the default of '%s'", spec, t->name);
			pe_scheme_destroy(s);
			pe_scheme_destroy(plain);
		}
	}
}

/* The public key listing says what the tables hold, with choices joined. */
static void key_listing(void **state)
{
	(void)state;
	const struct pe_scheme_type *t = pe_scheme_type_find("sinusoidal");
	struct pe_scheme_key_info info;
	char buf[128];
	assert_int_equal(pe_scheme_type_key(t, 1, &info, buf, sizeof(buf)), 1);
	assert_string_equal(info.name, "layout");
	assert_string_equal(info.def, "interleaved");
	assert_string_equal(info.choices, "interleaved|blocks");
	assert_int_equal(pe_scheme_type_key(t, 4, &info, buf, sizeof(buf)), 0);
	/* rope's layout skips the value it does not take ("blocks"). */
	t = pe_scheme_type_find("rope");
	assert_int_equal(pe_scheme_type_key(t, 1, &info, buf, sizeof(buf)), 1);
	assert_string_equal(info.choices, "interleaved|half");
	/* A buffer too small gives no choices rather than a cut list. */
	assert_int_equal(pe_scheme_type_key(t, 1, &info, buf, 5), 1);
	assert_null(info.choices);

	struct pe_scheme *s = NULL;
	assert_int_equal(pe_scheme_parse("rope", &s, NULL), PE_OK);
	assert_true(pe_scheme_takes_key(s, "base"));
	assert_true(pe_scheme_takes_key(s, "label"));
	assert_false(pe_scheme_takes_key(s, "heads"));
	pe_scheme_destroy(s);
}

/* The unknown-scheme message lists the registry. */
static void unknown_scheme_lists_registry(void **state)
{
	(void)state;
	struct pe_scheme *s = NULL;
	char *err = NULL;
	assert_int_equal(pe_scheme_parse("sinus", &s, &err), PE_EINVAL);
	size_t n;
	const struct pe_scheme_type *const *types = pe_scheme_types(&n);
	for (size_t i = 0; i < n; i++)
		if (!strstr(err, pe_scheme_type_name(types[i])))
			fail_msg("'%s' lacks '%s'", err, pe_scheme_type_name(types[i]));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(documented_capabilities),
	        cmocka_unit_test(types_are_complete),
	        cmocka_unit_test(defaults_are_valid_text),
	        cmocka_unit_test(key_listing),
	        cmocka_unit_test(unknown_scheme_lists_registry),
	};
	return cmocka_run_group_tests_name("registry", tests, NULL, NULL);
}
