/*
 * model:NAME presets: the fixture configs of well-known models, read by
 * the same config.json reader as -s hf:PATH (see presets.h for sources).
 */
#include <stdlib.h>
#include <string.h>

#include <posenc/model.h>

#include "core/strutil.h"

struct preset {
	struct pe_model_preset_info info;
	const char *json;
};

#include "model/presets.h"

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

const struct pe_model_preset_info *pe_model_presets(void)
{
	static struct pe_model_preset_info table[NPRESETS + 1];
	/* A copy with a terminator; the generated table stays a plain array. */
	if (!table[0].name)
		for (size_t i = 0; i < NPRESETS; i++)
			table[i] = presets[i].info;
	return table;
}

enum pe_status pe_model_preset(const char *name, struct pe_model **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	for (size_t i = 0; i < NPRESETS; i++) {
		if (strcmp(presets[i].info.name, name) != 0)
			continue;
		return pe_model_from_hf_json(presets[i].json, strlen(presets[i].json), name, out,
		                             err);
	}
	if (err) {
		struct strbuf b = {0};
		for (size_t i = 0; i < NPRESETS; i++)
			strbuf_addf(&b, "%s%s", i ? ", " : "", presets[i].info.name);
		*err = pe_asprintf("unknown model '%s' (known: %s; 'posenc help models')", name,
		                   b.buf ? b.buf : "");
		free(b.buf);
	}
	return PE_ENOTFOUND;
}

const char *pe_model_preset_config(const char *name)
{
	for (size_t i = 0; i < NPRESETS; i++)
		if (strcmp(presets[i].info.name, name) == 0)
			return presets[i].json;
	return NULL;
}
