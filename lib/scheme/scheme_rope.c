/*
 * RoPE (Su et al., RoFormer 2021): rotations of coordinate pairs by
 * m theta_i, with the long-context scalings of HF modeling_rope_utils
 * (one table, rope_scaling.c) and partial rotation (rotary=).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "scheme/encode_internal.h"
#include "scheme/scheme_type.h"

#define OFF(field) offsetof(struct pe_scheme, field)
#define ROFF(field)                                                                                \
	(offsetof(struct pe_scheme, scaling) + offsetof(struct pe_rope_scaling_params, field))

/* Index = enum pe_layout: rope's "half" is value 2, "blocks" is not for rope. */
static const char *const layouts[] = {"interleaved", "", "half", NULL};
_Static_assert(sizeof(layouts) / sizeof(layouts[0]) == PE_LAYOUT_HALF + 2,
               "one name per enum pe_layout value");
/* Index = enum pe_rope_scaling; the same names as pe_rope_scalings[]. */
static const char *const scalings[] = {"none",     "linear",       "dynamic", "yarn", "llama3",
                                       "longrope", "proportional", "ntk",     NULL};
_Static_assert(sizeof(scalings) / sizeof(scalings[0]) == PE_ROPE_SCALING_NTK + 2,
               "one name per enum pe_rope_scaling value");

/* Keys from "factor" on belong to scalings (pe_rope_scalings[].keys). */
static const struct pe_scheme_key keys[] = {
        {"base", PE_KEY_DOUBLE, OFF(base), 0, NULL, 1.0, 1e300, 1, "10000",
         "theta_i = base^(-2i/d_rot) (> 1)"},
        {"layout", PE_KEY_ENUM, OFF(layout), 0, layouts, 0, 0, 0, "interleaved",
         "pairs (2i, 2i+1) (RoFormer, GPT-J, Meta) or half: (i, i+d_rot/2) (NeoX, HF)"},
        {"rotary", PE_KEY_DOUBLE, OFF(rotary), 0, NULL, 0.0, 1.0, 1, "1",
         "fraction of d rotated: d_rot = int(d * rotary)"},
        {"head", PE_KEY_COUNT, OFF(head), 0, NULL, 2, 1u << 24, 0, NULL,
         "the head width this spec is for: the width when no -d is given (0: none)"},
        {"scaling", PE_KEY_ENUM, ROFF(type), 0, scalings, 0, 0, 0, "none",
         "long-context scaling of the frequencies (HF rope_type)"},
        {"factor", PE_KEY_DOUBLE, ROFF(factor), 0, NULL, 0.0, 1e12, 1, NULL,
         "scaling factor (default 4; llama3 8, longrope 1)"},
        {"original", PE_KEY_DOUBLE, ROFF(original), 0, NULL, 1.0, 1e15, 0, NULL,
         "original_max_position_embeddings (default 4096; llama3 8192)"},
        {"length", PE_KEY_DOUBLE, ROFF(length), 0, NULL, 0.0, 1e15, 0, "0",
         "sequence length dynamic/longrope are evaluated at (0: the largest "
         "position + 1; original where a command has no positions)"},
        {"low", PE_KEY_DOUBLE, ROFF(low_freq_factor), 0, NULL, 0.0, 1e12, 1, "1",
         "llama3 low_freq_factor"},
        {"high", PE_KEY_DOUBLE, ROFF(high_freq_factor), 0, NULL, 0.0, 1e12, 1, "4",
         "llama3 high_freq_factor"},
        {"beta-fast", PE_KEY_DOUBLE, ROFF(beta_fast), 0, NULL, 0.0, 1e12, 1, "32",
         "yarn beta_fast"},
        {"beta-slow", PE_KEY_DOUBLE, ROFF(beta_slow), 0, NULL, 0.0, 1e12, 1, "1", "yarn beta_slow"},
        {"mscale", PE_KEY_DOUBLE, ROFF(mscale), 0, NULL, 0.0, 1e6, 0, "0",
         "yarn mscale (0: unset)"},
        {"mscale-all-dim", PE_KEY_DOUBLE, ROFF(mscale_all_dim), 0, NULL, 0.0, 1e6, 0, "0",
         "yarn mscale_all_dim (0: unset)"},
        {"attention-factor", PE_KEY_DOUBLE, ROFF(attention_factor), 0, NULL, 0.0, 1e6, 1, NULL,
         "cos and sin x this (yarn/longrope: default from factor; none/linear: 1)"},
        {"truncate", PE_KEY_BOOL, ROFF(truncate), 0, NULL, 0, 0, 0, "1",
         "yarn: round the correction range outward"},
        {"long-factor", PE_KEY_LIST, ROFF(long_factor), ROFF(n_long_factor), NULL, 0, 0, 0, NULL,
         "longrope long_factor: d_rot/2 numbers a/b/c or @FILE"},
        {"short-factor", PE_KEY_LIST, ROFF(short_factor), ROFF(n_short_factor), NULL, 0, 0, 0, NULL,
         "longrope short_factor: d_rot/2 numbers a/b/c or @FILE"},
        {"short-mscale", PE_KEY_DOUBLE, ROFF(short_mscale), 0, NULL, 0.0, 1e6, 1, NULL,
         "longrope (PhiMoE): attention factor at lengths <= original"},
        {"long-mscale", PE_KEY_DOUBLE, ROFF(long_mscale), 0, NULL, 0.0, 1e6, 1, NULL,
         "longrope (PhiMoE): attention factor at lengths > original"},
        {"proportion", PE_KEY_DOUBLE, ROFF(proportion), 0, NULL, 0.0, 1.0, 0, "1",
         "proportional: fraction of the pairs that turn (HF partial_rotary_factor)"},
        {"mixed-b", PE_KEY_DOUBLE, ROFF(mixed_b), 0, NULL, 0.0, 1e6, 1, NULL,
         "ntk: mixed NTK's exponent b (vLLM mixed_b; default: fixed NTK)"},
};
#define NKEYS             (sizeof(keys) / sizeof(keys[0]))
#define FIRST_SCALING_KEY 5 /* "factor" */

static void init(struct pe_scheme *s)
{
	s->scaling.attention_factor = NAN;
	s->scaling.short_mscale = NAN;
	s->scaling.long_mscale = NAN;
	s->scaling.proportion = 1.0;
	s->scaling.mixed_b = NAN;
}

/* A scaling key given with a scaling that does not take it. */
static enum pe_status wrong_scaling(const struct pe_scheme *s, const char *key, char **err)
{
	struct strbuf b = {0};
	for (size_t t = 0; t < pe_rope_scaling_count; t++)
		if (pe_rope_scaling_takes((enum pe_rope_scaling)t, key))
			strbuf_addf(&b, "%s%s", b.len ? "|" : "", pe_rope_scalings[t].name);
	*err = pe_scheme_errf("key '%s' needs scaling=%s (scaling is %s)", key, b.buf ? b.buf : "",
	                      pe_rope_scaling_name(s->scaling.type));
	free(b.buf);
	return PE_EINVAL;
}

static enum pe_status finish(struct pe_scheme *s, const unsigned char *given, char **err)
{
	struct pe_rope_scaling_params *sc = &s->scaling;
	for (size_t i = FIRST_SCALING_KEY; i < NKEYS; i++)
		if (given[i] && !pe_rope_scaling_takes(sc->type, keys[i].name))
			return wrong_scaling(s, keys[i].name, err);
	const struct pe_rope_scaling_type *t = &pe_rope_scalings[sc->type];
	if (!given[FIRST_SCALING_KEY])
		sc->factor = t->factor;
	if (!given[FIRST_SCALING_KEY + 1])
		sc->original = t->original;
	/* yarn with beta-fast <= beta-slow: the reference computes it (equal bounds get
	 * its 0.001 guard) and only warns, so we compute it too. */
	if (sc->type == PE_ROPE_SCALING_LONGROPE && (!sc->long_factor || !sc->short_factor)) {
		*err = pe_scheme_errf("key '%s': scaling=longrope needs long-factor and "
		                      "short-factor (numbers separated by '/', or @FILE)",
		                      sc->long_factor ? "short-factor" : "long-factor");
		return PE_EINVAL;
	}
	return PE_OK;
}

static enum pe_status check(const struct pe_scheme *s, size_t d, enum pe_view view,
                            const char **why)
{
	(void)view;
	size_t d_rot = pe_rope_rotary_width(s, d);
	if (d_rot < 2) {
		*why = "rope rotates no pair: int(d * rotary) is below 2";
		return PE_ERANGE;
	}
	if (d_rot % 2) {
		*why = "rope needs an even rotary width int(d * rotary)";
		return PE_ERANGE;
	}
	if (d_rot < 4 && s->scaling.type == PE_ROPE_SCALING_DYNAMIC) {
		*why = "dynamic scaling needs a rotary width of 4 or more (its base "
		       "exponent is d/(d-2))";
		return PE_ERANGE;
	}
	return PE_OK;
}

static enum pe_status frequencies(const struct pe_scheme *s, size_t d, double *theta, size_t *count)
{
	size_t d_rot = pe_rope_rotary_width(s, d);
	enum pe_status st = pe_rope_theta(s, d_rot, theta, NULL);
	if (st == PE_OK)
		*count = d_rot / 2;
	return st;
}

static enum pe_kernel_form kernel(const struct pe_scheme *s, enum pe_view view)
{
	(void)s;
	return view == PE_VIEW_DEFAULT || view == PE_VIEW_ROTATED ? PE_KERNEL_ROTARY
	                                                          : PE_KERNEL_NONE;
}

static void value_range(const struct pe_scheme *s, enum pe_view view, double *lo, double *hi,
                        int *is_signed)
{
	(void)s;
	(void)lo;
	(void)hi;
	if (view == PE_VIEW_ANGLE)
		*is_signed = 0;
}

const struct pe_scheme_type pe_scheme_rope = {
        .name = "rope",
        .summary = "rotary embedding, with long-context scalings (Su et al. 2021)",
        .caps = PE_CAP_VECTORS | PE_CAP_ENCODE | PE_CAP_VIEWS | PE_CAP_FREQS | PE_CAP_WINDOW |
                PE_CAP_TOEPLITZ | PE_CAP_SCALING | PE_CAP_BOUND,
        .keys = keys,
        .n_keys = NKEYS,
        .init = init,
        .finish = finish,
        .check = check,
        .rows = pe_rope_rows,
        .window = pe_rope_window,
        .blocks_cols = pe_rope_blocks_cols,
        .frequencies = frequencies,
        .kernel = kernel,
        .value_range = value_range,
};
