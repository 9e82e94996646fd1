/* The context lengths a model or a spec states (never a default). */
#include <math.h>

#include "shared/contexts.h"

/* Scalings whose original_max_position_embeddings is part of their definition. */
static int has_original(const struct pe_scheme *s)
{
	if (!pe_scheme_has(s, PE_CAP_SCALING))
		return 0;
	switch (s->scaling.type) {
	case PE_ROPE_SCALING_YARN:
	case PE_ROPE_SCALING_LLAMA3:
	case PE_ROPE_SCALING_LONGROPE:
	case PE_ROPE_SCALING_DYNAMIC:
		return 1;
	default:
		return 0;
	}
}

struct cli_contexts cli_contexts_of(const struct pe_scheme *s, const struct cli_model_info *info,
                                    double train_option)
{
	struct cli_contexts c = {0, 0, 0};
	int model = info && info->model[0];
	if (model) {
		c.context = info->context;
		c.train = info->has_train ? info->train_context : 0;
	}
	if (has_original(s)) {
		if (!model)
			c.train = s->scaling.original;
		double eff = s->scaling.factor * s->scaling.original;
		c.effective = fmax(eff, c.context);
	} else {
		c.effective = c.context;
	}
	if (train_option > 0)
		c.train = train_option;
	return c;
}
