/* posenc model A B: the position-related fields two sources of one model disagree on. */
#ifndef POSENC_CLI_MODEL_DIFF_H
#define POSENC_CLI_MODEL_DIFF_H

#include <stdio.h>

#include "shared/options.h"

/*
 * cli_model_diff() - load two model specs (hf:, gguf:, model:) and write to @f every
 * position-related field that differs, per distinct pair of layer groups, with the
 * context lengths each derives. @return 0 or an exit code after reporting.
 */
int cli_model_diff(const struct cli_common *o, const char *spec_a, const char *spec_b, FILE *f);

#endif
