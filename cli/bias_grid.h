/*
 * cli/bias_grid.h - attention biases averaged over blocks of positions
 *
 * A figure of 10^5 positions needs a few hundred cells a side, not the
 * heads x n x n tensor. The n positions are cut into g blocks (block b is
 * floor(b n / g) .. floor((b+1) n / g) - 1), and each cell holds the mean
 * bias over the query block x key block in closed form: ALiBi is linear in
 * i and j, T5 depends on j - i only (prefix sums over the relative
 * positions). Masked (future) keys are left out of a mean; a block with
 * only masked keys is NaN. With g = n every block is one position and the
 * cells are the biases themselves.
 */
#ifndef POSENC_CLI_BIAS_GRID_H
#define POSENC_CLI_BIAS_GRID_H

#include <posenc/matrix.h>
#include <posenc/scheme.h>

/*
 * bias_grid() - the (heads * g) x g block means of an alibi or t5 scheme
 * (heads = 1 for t5), head h in rows h * g .. h * g + g - 1
 *
 * @return PE_OK and *out (free with pe_matrix_destroy()), PE_EINVAL if g is
 * 0 or above n, the errors of pe_bias_check(), PE_ENOMEM.
 */
enum pe_status bias_grid(const struct pe_scheme *s, size_t n, size_t g, struct pe_matrix **out);

#endif
