/*
 * posenc/model.h - the positional encoding of a real model
 *
 * A model description is what a checkpoint's configuration says about
 * positions: the attention head width, the training and extended context
 * lengths, and one or more layer groups. Each group holds the spec text
 * of its scheme in the ordinary grammar (posenc/scheme.h), so every
 * analysis works on a model unchanged: pe_scheme_parse(group->spec).
 *
 * Sources: a Hugging Face config.json (pe_model_from_hf_json), or the
 * preset table of well-known models (pe_model_preset), whose entries are
 * the same config.json text, each value's public source cited there.
 * The conventions follow HF transformers' modeling_rope_utils.py and the
 * modeling code of each architecture; doc/models.md states them.
 */
#ifndef POSENC_MODEL_H
#define POSENC_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Layers that share one encoding ("all", "local", "global", "nope", ...). */
struct pe_model_group {
	char *name;     /* owned */
	char *spec;     /* owned: canonical spec text, e.g. "rope:base=500000,..." */
	size_t *layers; /* owned: the layer indices, ascending; NULL if n_layers is 0 */
	size_t n_layers;
};

/*
 * A fact about positions and attention beyond the groups' specs, as the
 * model's code applies it: sliding windows, the softmax temperature, NoPE
 * schedules, the reference revision followed.
 */
struct pe_model_fact {
	char *key;   /* owned: a short name, the CSV quantity ("sliding_window") */
	char *value; /* owned: the value as text ("4096", "0-4,6-10") */
	char *what;  /* owned: one line saying what it is and where it comes from */
};

struct pe_model {
	char *name;       /* owned: model_type, or the preset name */
	char *model_type; /* owned: config.json model_type ("llama") */
	size_t head_dim; /* width of the position-carrying head part (DeepSeek: qk_rope_head_dim) */
	size_t n_layers; /* 0 if the config does not say */
	double context;  /* max_position_embeddings (the extended context) */
	double train_context; /* the pretraining context (original_max_position_embeddings), else
	                         context */
	char *note;           /* owned, may be NULL: what the encoding needs besides the config
	                         (a learned table's weights) */
	char *mrope_spec;     /* owned, may be NULL: M-RoPE models (Qwen2-VL's mrope_section):
	                         the mrope spec of image and video tokens, whose text
	                         positions are the groups' plain RoPE */
	int learned;       /* 1: a learned absolute table (GPT-2, BERT): no spec can compute it */
	size_t table_rows; /* learned (or Whisper's decoder): rows of the table */
	size_t table_cols; /* learned (or Whisper's decoder): columns (the hidden size) */
	size_t n_groups;
	struct pe_model_group *groups; /* owned */
	char **warnings;               /* owned: what the reference would warn about */
	size_t n_warnings;
	struct pe_model_fact *facts; /* owned: see struct pe_model_fact */
	size_t n_facts;
};

/*
 * pe_model_from_hf_json() - a model from the text of a HF config.json
 *
 * @text, @len: the document (not NUL-terminated necessarily).
 * @label:      the label prefix of each group's spec ("llama-3.1-8b"); NULL:
 *              the model_type.
 * @out:        on success a new model; free with pe_model_destroy().
 * @err:        on failure, if not NULL, a malloc'd message naming the key
 *              ("rope_scaling.rope_type: 'foo' is not one of ...").
 *
 * Only the keys that concern positions are read, as transformers reads
 * them: a key the file leaves out takes its configuration class's default,
 * attribute_map aliases (n_layer, n_head, n_embd, ...) are followed, and a
 * multimodal wrapper's text_config is the text model. An unknown
 * model_type with ordinary keys is read as transformers' default rotary
 * code reads it, with a warning; an unknown key in a rope block is a
 * warning (the reference warns and ignores it).
 *
 * @return PE_OK, PE_EFORMAT (malformed JSON, wrong value types, unknown
 * values), PE_EUNSUPPORTED (a model without positional encoding, or with
 * one posenc cannot compute; *err says which), PE_ENOMEM.
 */
PE_API enum pe_status pe_model_from_hf_json(const char *text, size_t len, const char *label,
                                            struct pe_model **out, char **err);

/* Random access to a file's bytes (a GGUF file can be many gigabytes). */
struct pe_model_source {
	/* Copies len bytes at off into buf; 0 on success, -1 on an I/O error. */
	int (*read)(void *ctx, uint64_t off, void *buf, size_t len);
	void *ctx;
	uint64_t size; /* total bytes */
};

/*
 * pe_model_from_gguf() - a model from the metadata of a GGUF file
 *
 * Reads the header, the key-value section and the tensor index, and the
 * data of rope_freqs.weight, rope_factors_long.weight and
 * rope_factors_short.weight when present (never any other tensor).
 * @budget: the most bytes of metadata to hold in memory.
 * @label: the label prefix of each group's spec; NULL: the architecture.
 *
 * @return PE_OK, PE_EFORMAT (not GGUF, truncated, bad values; *err says
 * what and where), PE_EUNSUPPORTED (an architecture or value posenc cannot
 * compute), PE_ETOOBIG (over @budget), PE_EIO, PE_ENOMEM.
 */
PE_API enum pe_status pe_model_from_gguf(const struct pe_model_source *src, uint64_t budget,
                                         const char *label, struct pe_model **out, char **err);

/*
 * pe_model_preset() - a well-known model by name ("llama-3.1-8b")
 *
 * @return PE_OK and a new model in *out, PE_ENOTFOUND (with *err naming
 * the known presets), PE_ENOMEM.
 */
PE_API enum pe_status pe_model_preset(const char *name, struct pe_model **out, char **err);

/*
 * pe_model_preset_config() - the config.json text of a preset
 *
 * @return static text (the position-related part of the public config the
 * preset is read from), or NULL for an unknown name.
 */
PE_API const char *pe_model_preset_config(const char *name);

/* One preset: its name, what it is, and where its values come from. */
struct pe_model_preset_info {
	const char *name;
	const char *title;  /* "Llama 3.1 8B" */
	const char *source; /* the public config the values come from */
};

/* pe_model_presets() - the preset table, ended by an entry whose name is NULL; static. */
PE_API const struct pe_model_preset_info *pe_model_presets(void);

/*
 * pe_model_group_find() - the group that @which names
 *
 * @which: a group name ("local", "global", "all", ...) or a layer index
 *         in decimal; NULL picks the first group.
 * @return the group, or NULL if nothing matches.
 */
PE_API const struct pe_model_group *pe_model_group_find(const struct pe_model *m,
                                                        const char *which);

/*
 * pe_spec_override() - spec text with some keys replaced or added
 *
 * @spec:      "NAME:key=value,..." (or "NAME").
 * @overrides: "key=value,key=value" (may be NULL or empty). A new
 *             scaling= also drops the spec's scaling keys (factor,
 *             original, ...), which belonged to the old scaling.
 * @return a new string (free()), or NULL when out of memory.
 */
PE_API char *pe_spec_override(const char *spec, const char *overrides);

/* pe_model_destroy() - frees a model and everything it owns; NULL is a no-op. */
PE_API void pe_model_destroy(struct pe_model *m);

#ifdef __cplusplus
}
#endif

#endif
