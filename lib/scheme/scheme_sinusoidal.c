/*
 * The sinusoidal scheme (Vaswani et al. 2017): additive sin/cos tables in
 * the layouts and frequency conventions of real code (encode_sinusoidal.c).
 */
#include <stddef.h>

#include "scheme/encode_internal.h"
#include "scheme/scheme_type.h"

#define OFF(field) offsetof(struct pe_scheme, field)

static const char *const layouts[] = {"interleaved", "blocks", NULL};
static const char *const freqs[] = {"paper", "t2t", NULL};
/* Index = the enum value; the NULL ends the list. */
_Static_assert(sizeof(layouts) / sizeof(layouts[0]) == PE_LAYOUT_BLOCKS + 2,
               "one name per sinusoidal enum pe_layout value");
_Static_assert(sizeof(freqs) / sizeof(freqs[0]) == PE_FREQ_T2T + 2,
               "one name per enum pe_freq value");

static const struct pe_scheme_key keys[] = {
        {"base", PE_KEY_DOUBLE, OFF(base), 0, NULL, 1.0, 1e300, 1, "10000",
         "the wavelength base (> 1)"},
        {"layout", PE_KEY_ENUM, OFF(layout), 0, layouts, 0, 0, 0, "interleaved",
         "sin/cos pairs (2k, 2k+1), or blocks [sin | cos]"},
        {"freq", PE_KEY_ENUM, OFF(freq), 0, freqs, 0, 0, 0, "paper",
         "base^(-2k/d) (paper) or base^(-k/(d/2-1)) (tensor2tensor, fairseq)"},
        {"start", PE_KEY_WHOLE, OFF(start), 0, NULL, 0.0, 9007199254740992.0, 0, "0",
         "added to every position (fairseq starts at 2)"},
};

static enum pe_status rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                           enum pe_view view, double *dst)
{
	(void)view;
	return pe_sinusoidal_rows(s, d, first, n, dst);
}

static enum pe_status window(const struct pe_scheme *s, size_t d, const struct pe_window *w,
                             size_t r0, size_t count, enum pe_view view, double *dst)
{
	(void)view;
	return pe_sinusoidal_window(s, d, w, r0, count, dst);
}

static enum pe_status blocks_cols(const struct pe_scheme *s, size_t d, enum pe_view view,
                                  const struct pe_block *blocks, size_t count, const size_t *cols,
                                  size_t ncols, double *dst)
{
	(void)view;
	return pe_sinusoidal_blocks_cols(s, d, blocks, count, cols, ncols, dst);
}

static enum pe_status frequencies(const struct pe_scheme *s, size_t d, double *theta, size_t *count)
{
	*count = pe_sinusoidal_frequencies(s, d, theta);
	return PE_OK;
}

static enum pe_kernel_form kernel(const struct pe_scheme *s, enum pe_view view)
{
	(void)s;
	return view == PE_VIEW_DEFAULT ? PE_KERNEL_SINCOS : PE_KERNEL_NONE;
}

static void value_range(const struct pe_scheme *s, enum pe_view view, double *lo, double *hi,
                        int *is_signed)
{
	(void)s;
	(void)view;
	*lo = -1.0;
	*hi = 1.0;
	*is_signed = 1;
}

static uint64_t position_offset(const struct pe_scheme *s)
{
	return (uint64_t)s->start;
}

const struct pe_scheme_type pe_scheme_sinusoidal = {
        .name = "sinusoidal",
        .summary = "additive sin/cos table (Vaswani et al. 2017)",
        .caps = PE_CAP_VECTORS | PE_CAP_ENCODE | PE_CAP_FREQS | PE_CAP_WINDOW | PE_CAP_TOEPLITZ,
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
        .rows = rows,
        .window = window,
        .blocks_cols = blocks_cols,
        .frequencies = frequencies,
        .kernel = kernel,
        .value_range = value_range,
        .position_offset = position_offset,
};
