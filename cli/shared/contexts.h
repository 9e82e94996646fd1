/*
 * cli/shared/contexts.h - the context lengths a scheme or model states
 *
 * Only what a model's config or the spec itself says, never a default: a
 * plain rope or sinusoidal table has no training length unless an option
 * gives one (then no critical dimension is shown).
 */
#ifndef POSENC_CLI_CONTEXTS_H
#define POSENC_CLI_CONTEXTS_H

#include <posenc/scheme.h>

#include "shared/model_spec.h"

struct cli_contexts {
	double train;     /* the pretraining context; 0: not known */
	double context;   /* the model's max_position_embeddings; 0: not a model */
	double effective; /* factor x original of a scaling that has an original (yarn, llama3,
	                     longrope, dynamic); else context; 0: none */
};

/*
 * cli_contexts_of() - the contexts of @s, from its model (@info may be NULL
 * or zeroed for a plain spec) and its scaling; @train_option > 0 overrides
 * the training length
 */
struct cli_contexts cli_contexts_of(const struct pe_scheme *s, const struct cli_model_info *info,
                                    double train_option);

#endif
