/*
 * cli/shared/model_spec.h - -s hf:PATH, -s model:NAME: a real model as scheme specs
 *
 * A model spec is hf:PATH (a Hugging Face config.json) or model:NAME (a
 * preset), optionally followed by ",key=value,..." that override the
 * model's own spec keys (model:llama-3.1-8b,scaling=none). --layer picks a
 * layer group; without it, commands that take several schemes get every
 * distinct group and the others the first one (said on stderr).
 */
#ifndef POSENC_CLI_MODEL_SPEC_H
#define POSENC_CLI_MODEL_SPEC_H

#include <stddef.h>

#include <posenc/model.h>

#include "shared/options.h"

/* Whether @spec names a model (hf:, model:). */
int cli_is_model_spec(const char *spec);

/*
 * cli_model_load() - the model a model spec names
 *
 * @overrides: set to the text after the first ',' (NULL if none).
 * @return 0 and *out, or an exit code after reporting.
 *
 * Each file is read once per run: the model is kept (owned by this module,
 * freed at exit) and a second load of the same hf:/gguf: path returns it, so
 * standard input, a FIFO, or a file replaced between the option parsing and
 * the command give one consistent model. Do not free *out.
 */
int cli_model_load(const struct cli_common *o, const char *spec, struct pe_model **out,
                   const char **overrides);

/*
 * cli_spec_scheme_is() - whether spec text names scheme @name ("rope" for
 * "rope" and "rope:base=...", not for "ropex:...")
 */
int cli_spec_scheme_is(const char *spec, const char *name);

/*
 * cli_model_forget() - free the models kept for this run
 *
 * The next run in the same process (cli/library.c) reads the files again:
 * one may have been edited in between. Models handed out before are freed.
 */
void cli_model_forget(void);

/*
 * What a scheme that came from a model keeps of it: commands that show
 * several models say each one's name, widths and contexts, which its spec
 * text does not carry. Zeroed (model[0] == 0) for a plain spec.
 */
struct cli_model_info {
	char model[96];       /* the model's name ("llama-3.1-8b"); "" for a plain spec */
	char group[32];       /* its layer group ("all", "local", ...) */
	char model_type[48];  /* config.json's model_type ("gemma3_text"); "" for a plain spec */
	size_t n_groups;      /* how many groups the model has */
	size_t head_dim;      /* the group's head width (the spec's head=) */
	double context;       /* max_position_embeddings: the extended context */
	double train_context; /* the pretraining context */
	int has_train;        /* 1: the config names a pretraining context of its own */
	double softmax_scale_factor; /* the model's own factor on the softmax scale (DeepSeek's
	                                YaRN mscale^2); 0: none */
	double window; /* the sliding window of the group's layers, when every one of them
	                  slides (the model's sliding_window fact, its sliding_layers holding
	                  them all); 0: none */
};

/*
 * cli_model_specs() - the plain spec texts of a model spec's layer groups
 *
 * Each spec carries head= (the group's head width), so that every model of
 * a comparison keeps its own width when no -d is given.
 *
 * @max: how many the command takes; with one and no --layer, the first
 *       group (with a note on stderr when there are several).
 * @out: newly allocated strings (each free(), then the array); *count set.
 * @info: NULL, or a newly allocated array of *count (free()).
 * @return 0 or an exit code after reporting.
 */
int cli_model_specs(const struct cli_common *o, const char *spec, size_t max, char ***out,
                    size_t *count, struct cli_model_info **info);

/*
 * cli_model_config_text() - the config.json text of hf:PATH or model:NAME
 *
 * @text: newly allocated (free()), @len bytes. @return 0 or an exit code
 * after reporting (gguf: and plain specs have no config.json). After
 * cli_model_load() of the same hf: spec, the bytes that load read: the file
 * is not opened again (standard input, a FIFO, a file being replaced).
 */
int cli_model_config_text(const struct cli_common *o, const char *spec, char **text, size_t *len);

/* 'posenc help models': the preset table on stdout. @return 0. */
int cli_help_models(void);

/* "0-3,5,7" for a list of layer indices, into buf. */
void cli_layer_ranges(const size_t *layers, size_t n, char *buf, size_t cap);

#endif
