/*
 * ALiBi (Press et al. 2022): a per-head linear attention bias, not
 * position vectors; lib/analysis/bias.c computes slopes and biases.
 */
#include <stddef.h>

#include "scheme/scheme_type.h"

#define OFF(field) offsetof(struct pe_scheme, field)

static const char *const forms[] = {"paper", "official", NULL};
_Static_assert(sizeof(forms) / sizeof(forms[0]) == PE_ALIBI_OFFICIAL + 2,
               "one name per enum pe_alibi_form value");

static const char *const slopes[] = {"press", "mpt", NULL};
_Static_assert(sizeof(slopes) / sizeof(slopes[0]) == PE_ALIBI_SLOPES_MPT + 2,
               "one name per enum pe_alibi_slopes value");

static const struct pe_scheme_key keys[] = {
        {"heads", PE_KEY_COUNT, OFF(heads), 0, NULL, 1, 65536, 0, "8", "the number of heads"},
        {"form", PE_KEY_ENUM, OFF(form), 0, forms, 0, 0, 0, "paper",
         "-m (i - j) (paper) or m j in every row (the official code)"},
        {"slopes", PE_KEY_ENUM, OFF(alibi_slopes), 0, slopes, 0, 0, 0, "press",
         "Press et al.'s get_slopes (press) or MPT's 1/2^(k bias-max/n2) (mpt)"},
        {"bias-max", PE_KEY_DOUBLE, OFF(alibi_bias_max), 0, NULL, 0.0, 1e6, 1, "8",
         "MPT's alibi_bias_max (slopes=mpt)"},
};

const struct pe_scheme_type pe_scheme_alibi = {
        .name = "alibi",
        .summary = "ALiBi attention bias, one slope per head (Press et al. 2022)",
        .caps = PE_CAP_BIAS | PE_CAP_BIAS_HEADS,
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
};
