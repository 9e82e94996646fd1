/*
 * A Hugging Face config.json as a model description: which architecture,
 * where its text model is (multimodal wrappers keep it under text_config),
 * and which reader its encoding needs (model_hf_rope.c, model_hf_tables.c).
 * The architectures and their class defaults are in model_hf_archs.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/model.h>

#include "model/model_hf.h"
#include "model/model_internal.h"

/* The revision of the reference whose semantics posenc follows (doc/models.md):
 * its RoPE code for rotary models, the architecture's own files for tables and biases. */
#define REFERENCE_ROPE                                                                             \
	"transformers 5.x: modeling_rope_utils.py with rope_parameters and "                       \
	"standardize_rope_params, checked against commit 008e574"
#define REFERENCE_REMOTE                                                                           \
	"the checkpoint's own modeling file (auto_map, no class in transformers), as "             \
	"doc/models.md restates it"
#define REFERENCE_OTHER                                                                            \
	"transformers 5.x: the architecture's configuration and modeling files, checked "          \
	"against commit 008e574"

/* An architecture posenc has no row for: what its keys say it is, with a warning. */
static enum pe_status guess_unknown(struct hf *h, const char *model_type, enum hf_enc *enc)
{
	const struct json *cfg = h->cfg;
	const struct json *alibi = hf_present(cfg, "alibi");
	const struct json *pet = hf_present(cfg, "position_embedding_type");
	const char *what;
	if (alibi && alibi->type == JSON_BOOL && alibi->boolean) {
		*enc = HF_ALIBI;
		what = "ALiBi (alibi: true) with BLOOM's slopes and form";
	} else if (hf_present(cfg, "relative_attention_num_buckets")) {
		*enc = HF_T5;
		what = "T5's relative buckets (relative_attention_num_buckets)";
	} else if (pet && pet->type == JSON_STRING && strcmp(pet->string, "absolute") == 0) {
		*enc = HF_LEARNED;
		what = "a learned absolute table (position_embedding_type: absolute)";
	} else if (pet && pet->type == JSON_STRING && strcmp(pet->string, "rotary") != 0) {
		return hf_fail(h, PE_EUNSUPPORTED,
		               "position_embedding_type: '%s' of the unknown model_type '%s' is "
		               "not an encoding posenc has",
		               pet->string, model_type);
	} else {
		double v;
		int named = strcmp(model_type, "(none)") != 0;
		int mla = h->arch == hf_arch_generic(1); /* its width is qk_rope_head_dim */
		int hrc = 1, nrc = 1;
		if (!mla && !hf_present(cfg, "head_dim") &&
		    ((hrc = hf_cfg_number(h, "hidden_size", &v, NULL)) < 0 ||
		     (nrc = hf_cfg_number(h, "num_attention_heads", &v, NULL)) < 0))
			return PE_EFORMAT; /* reported: a key present but not a number */
		if (hrc == 0 || nrc == 0)
			return hf_fail(
			        h, PE_EUNSUPPORTED,
			        "model_type: %s%s%s, and the config has neither head_dim nor "
			        "hidden_size with num_attention_heads to read it as "
			        "transformers' default rotary code would",
			        named ? "'" : "", named ? model_type : "missing",
			        named ? "' is not an architecture posenc knows" : "");
		*enc = HF_ROPE;
		what = mla ? "DeepSeek's multi-head latent attention (kv_lora_rank): RoPE on "
		             "qk_rope_head_dim, pairs 2i, 2i+1 unless rope_interleave is false, "
		             "the rope block, rope_theta default 10000"
		           : "transformers' default rotary embedding (rotate_half pairing, "
		             "head_dim or hidden_size // num_attention_heads, "
		             "partial_rotary_factor, the rope block, rope_theta default 10000)";
	}
	/* auto_map: the modeling is the repository's own code (trust_remote_code) */
	int remote = hf_present(h->root, "auto_map") != NULL;
	int named = strcmp(model_type, "(none)") != 0;
	return hf_warn(h, "model_type %s%s%s: read as %s; %s", named ? "'" : "",
	               named ? model_type : "missing",
	               named ? "' is not in posenc's table of "
	                       "transformers architectures"
	                     : "",
	               what,
	               remote ? "its modeling is the repository's own code (auto_map), which "
	                        "may encode positions otherwise"
	                      : "its modeling file may differ");
}

/*
 * A remote-code model_type whose auto_map loads another family's modeling
 * file (InternLM2's first configs say 'internlm' and load modeling_internlm2):
 * the file's rules are that family's row, when posenc has one.
 */
static const struct hf_arch *remote_file_arch(const struct json *root, const struct hf_arch *a)
{
	const struct json *am = hf_present(root, "auto_map");
	const struct json *cls =
	        am && am->type == JSON_OBJECT ? hf_present(am, "AutoModelForCausalLM") : NULL;
	if (!cls || cls->type != JSON_STRING)
		return a;
	/* "modeling_X.Class", or "owner/repo--modeling_X.Class" for code in another repo */
	const char *file = strstr(cls->string, "modeling_");
	if (!file)
		return a;
	file += strlen("modeling_");
	size_t len = strcspn(file, ".");
	char name[64];
	if (!file[len] || len == 0 || len >= sizeof(name))
		return a;
	memcpy(name, file, len);
	name[len] = '\0';
	/* a later generation that kept its forerunner's file name stays itself:
	 * PLaMo 2 (plamo2) loads modeling_plamo.Plamo2ForCausalLM */
	if (strncmp(a->model_type, name, len) == 0 && a->model_type[len] != '\0')
		return a;
	const struct hf_arch *other = hf_arch_find(name);
	/* a wrapper's file (InternVL's modeling_internvl_chat) says nothing of its LLM */
	return other && other != a && other->enc != HF_WRAPPER && (other->flags & HF_REMOTE_CODE)
	               ? other
	               : a;
}

/*
 * HF_TEXT_BY_VERSION: MiniCPM-V's LLM by its version, as vLLM's minicpmv.py
 * dispatches (the checkpoints' configuration classes subclass that LLM's): 2.0 MiniCPM, 2.5
 * and 4.0 Llama, 2.6 Qwen2, 4.5 Qwen3; without a version, 2.0 when
 * hidden_size is 2304 with query_num 64, else 2.5. NULL: a version it has not.
 */
static const char *version_text(const struct json *root)
{
	const struct json *v = hf_present(root, "version");
	if (!v) {
		const struct json *hs = hf_present(root, "hidden_size");
		const struct json *qn = hf_present(root, "query_num");
		int v20 = hs && hs->type == JSON_NUMBER && hs->number == 2304 && qn &&
		          qn->type == JSON_NUMBER && qn->number == 64;
		return v20 ? "minicpm" : "llama";
	}
	char text[32];
	if (v->type == JSON_NUMBER)
		snprintf(text, sizeof(text), "%g", v->number);
	else if (v->type == JSON_STRING && strlen(v->string) < sizeof(text))
		strcpy(text, v->string);
	else
		return NULL;
	static const char *const map[][2] = {{"2", "minicpm"}, {"2.0", "minicpm"}, {"2.5", "llama"},
	                                     {"2.6", "qwen2"}, {"4", "llama"},     {"4.0", "llama"},
	                                     {"4.5", "qwen3"}};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(text, map[i][0]) == 0)
			return map[i][1];
	return NULL;
}

/* The row a model is read by: a wrapper's default text model (NULL when it
 * has none), any other row itself. */
static const struct hf_arch *text_row(const struct hf_arch *a)
{
	if (a && a->enc == HF_WRAPPER)
		a = a->text ? hf_arch_find(a->text) : NULL;
	return a && a->enc != HF_WRAPPER ? a : NULL;
}

/* The row an architectures list's first class names (*cls), through
 * text_row(); NULL if none. */
static const struct hf_arch *class_arch(const struct json *obj, const char **cls)
{
	const struct json *ar = hf_present(obj, "architectures");
	if (!ar || ar->type != JSON_ARRAY || !ar->n || ar->items[0].type != JSON_STRING)
		return NULL;
	*cls = ar->items[0].string;
	return text_row(hf_arch_by_class(*cls));
}

/*
 * An unknown wrapper whose top level has no head width: the one sub-object
 * named as wrappers name their language model whose model_type posenc knows
 * (llama.cpp's converter renames llm_config and language_config to
 * text_config alike). NULL if there is none, or more than one.
 */
static const char *const text_keys[] = {"text_config", "llm_config", "language_config",
                                        "text_model"};

static const char *unknown_wrapper_text(const struct json *root)
{
	if (hf_present(root, "head_dim") ||
	    (hf_present(root, "hidden_size") && hf_present(root, "num_attention_heads")))
		return NULL;
	const char *found = NULL;
	for (size_t i = 0; i < sizeof(text_keys) / sizeof(text_keys[0]); i++) {
		const struct json *sub = hf_present(root, text_keys[i]);
		if (!sub || sub->type != JSON_OBJECT)
			continue;
		if (found)
			return NULL;
		const struct json *mt = hf_present(sub, "model_type");
		const struct hf_arch *a =
		        mt && mt->type == JSON_STRING ? hf_arch_find(mt->string) : NULL;
		if (!a || a->enc == HF_WRAPPER)
			return NULL;
		found = text_keys[i];
	}
	return found;
}

/* Picks the text model (text_config of a wrapper) and its architecture. */
static enum pe_status find_arch(struct hf *h, const char *name, const char **type_out,
                                enum hf_enc *enc)
{
	const struct json *root = h->root;
	const struct json *mt = hf_present(root, "model_type");
	if (mt && mt->type != JSON_STRING)
		return hf_fail(h, PE_EFORMAT, "model_type: is not a string");
	const char *outer = mt ? mt->string : NULL;
	const struct hf_arch *oa = outer ? hf_arch_find(outer) : NULL;
	/* most wrappers keep it in text_config; Qwen2.5-Omni in thinker_config.text_config */
	const char *tpath = oa && oa->enc == HF_WRAPPER && oa->what ? oa->what : "text_config";
	const char *guessed = outer && !oa ? unknown_wrapper_text(root) : NULL;
	if (guessed)
		tpath = guessed;
	const struct json *tc = hf_present(root, tpath);
	if (tc && tc->type != JSON_OBJECT)
		return hf_fail(h, PE_EFORMAT, "%s: is not an object", tpath);
	const char *wrapper_text = oa && oa->enc == HF_WRAPPER ? oa->text : NULL;
	if (oa && oa->enc == HF_WRAPPER && (oa->flags & HF_TEXT_BY_VERSION) &&
	    !(wrapper_text = version_text(root)))
		return hf_fail(h, PE_EUNSUPPORTED,
		               "model_type '%s': a version whose language model posenc does not "
		               "know (vLLM's minicpmv.py has 2.0, 2.5, 2.6, 4.0, 4.5)",
		               oa->model_type);
	h->remote = oa && oa->enc == HF_WRAPPER && (oa->flags & HF_REMOTE_CODE);
	const char *type = outer;
	if (tc) {
		h->cfg = tc;
		const struct json *it = hf_present(tc, "model_type");
		if (it && it->type != JSON_STRING)
			return hf_fail(h, PE_EFORMAT, "%s.model_type: is not a string", tpath);
		const char *cls = NULL;
		const struct hf_arch *sa = it ? NULL : class_arch(tc, &cls);
		if (it) {
			type = it->string;
		} else if (sa && h->remote) {
			/* the class its architectures name, as InternVLChatConfig picks its
			 * LLM's configuration by llm_config.architectures[0]; transformers'
			 * wrappers (LlavaConfig...) default the type whatever the class */
			type = sa->model_type;
			enum pe_status st =
			        hf_warn(h,
			                "%s.model_type missing: read as '%s', the model "
			                "type its architectures[0] '%s' names",
			                tpath, type, cls);
			if (st != PE_OK)
				return st;
		} else if (oa && oa->enc == HF_WRAPPER) {
			type = wrapper_text; /* the wrapper class's default text config */
		}
		if (guessed) {
			enum pe_status st = hf_warn(h,
			                            "model_type '%s' is not in posenc's table and "
			                            "its top level has no head width: read as its "
			                            "one language-model config %s (model_type "
			                            "'%s'), as posenc reads a known wrapper's",
			                            outer, tpath, type);
			if (st != PE_OK)
				return st;
		}
	} else if (oa && oa->enc == HF_WRAPPER) {
		type = wrapper_text; /* the text keys at the top level */
	}
	/* HF_MLA_SWITCH (DeepSeek-VL2-Tiny's use_mla false): its modeling_deepseek.py
	 * builds transformers' LlamaAttention (ATTENTION_CLASSES "mha_*") on the same
	 * keys */
	const struct json *mla =
	        oa && (oa->flags & HF_MLA_SWITCH) ? hf_present(h->cfg, "use_mla") : NULL;
	if (mla && mla->type == JSON_BOOL && !mla->boolean) {
		type = "llama";
		enum pe_status st = hf_warn(h,
		                            "%s.use_mla false: read as 'llama', the LlamaAttention "
		                            "DeepSeek-VL2's modeling_deepseek.py uses then",
		                            tpath);
		if (st != PE_OK)
			return st;
	}
	h->arch = type ? hf_arch_find(type) : NULL;
	/* No model_type (transformers' AutoConfig then has nothing to go by): the
	 * class architectures names, as vLLM and llama.cpp's converter pick a model */
	const char *root_cls = NULL;
	const struct hf_arch *ca = type ? NULL : class_arch(root, &root_cls);
	if (ca) {
		h->arch = ca;
		type = ca->model_type;
		enum pe_status st = hf_warn(
		        h,
		        "model_type missing: read as '%s', the model type architectures[0] '%s' "
		        "names (vLLM and llama.cpp's converter choose a model by it)%s",
		        type, root_cls,
		        hf_present(root, "auto_map") && !(ca->flags & HF_REMOTE_CODE)
		                ? "; its modeling is the repository's own code (auto_map), which "
		                  "may encode positions otherwise"
		                : "");
		if (st != PE_OK)
			return st;
	}
	/* Nor a class: AutoConfig.from_pretrained falls back to the longest model type
	 * the model's name contains (without auto_map, which it would run instead) */
	const char *nt = !type && !ca && name && !hf_present(root, "auto_map")
	                         ? hf_type_in_name(name)
	                         : NULL;
	const struct hf_arch *na = nt ? hf_arch_find(nt) : NULL;
	if (nt && !na) {
		enum pe_status st = hf_warn(h,
		                            "model_type missing: the name '%s' contains '%s', the "
		                            "model type transformers' AutoConfig would read it as, "
		                            "which posenc has no row for",
		                            name, nt);
		if (st != PE_OK)
			return st;
	}
	na = text_row(na);
	if (na) {
		h->arch = na;
		type = na->model_type;
		enum pe_status st = hf_warn(h,
		                            "model_type missing: read as '%s', the longest model "
		                            "type the name '%s' contains (a plain substring, as "
		                            "transformers' AutoConfig "
		                            "matches it)",
		                            type, name);
		if (st != PE_OK)
			return st;
	}
	if (h->arch && h->arch->enc == HF_WRAPPER)
		h->arch = NULL;
	if (h->arch && (h->arch->flags & HF_REMOTE_CODE))
		h->arch = remote_file_arch(root, h->arch);
	const struct hf_arch *next = h->arch && (h->arch->flags & HF_MQ_NEXT) &&
	                                             hf_present(h->cfg, "num_multi_query_heads")
	                                     ? hf_arch_find(h->arch->text)
	                                     : NULL;
	if (next) {
		enum pe_status st = hf_warn(h,
		                            "num_multi_query_heads: read as '%s', the later "
		                            "generation that kept '%s''s class names",
		                            next->model_type, h->arch->model_type);
		if (st != PE_OK)
			return st;
		h->arch = next;
		type = next->model_type;
	}
	*type_out = type ? type : "(none)";
	if (h->arch) {
		*enc = h->arch->enc;
		return PE_OK;
	}
	h->arch = hf_arch_generic(hf_present(h->cfg, "kv_lora_rank") &&
	                          hf_present(h->cfg, "qk_rope_head_dim"));
	return guess_unknown(h, *type_out, enc);
}

enum pe_status pe_model_from_hf_json(const char *text, size_t len, const char *label,
                                     struct pe_model **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	char *jerr = NULL;
	struct json *root = json_parse(text, len, &jerr);
	if (!root) {
		if (err)
			*err = pe_asprintf("not JSON: %s", jerr ? jerr : "malformed");
		free(jerr);
		return PE_EFORMAT;
	}
	struct pe_model *m = calloc(1, sizeof(*m));
	struct hf h = {.root = root, .cfg = root, .m = m, .err = err};
	enum pe_status st = PE_OK;
	if (!m) {
		st = PE_ENOMEM;
		goto done;
	}
	if (root->type != JSON_OBJECT) {
		st = hf_fail(&h, PE_EFORMAT, "the config is not a JSON object");
		goto done;
	}
	const char *type = NULL;
	enum hf_enc enc = HF_ROPE;
	if ((st = find_arch(&h, label, &type, &enc)) != PE_OK)
		goto done;
	if (enc == HF_NONE || enc == HF_RELATIVE || enc == HF_REFUSED) {
		st = hf_fail(&h, PE_EUNSUPPORTED,
		             enc == HF_NONE ? "model_type '%s': no positional encoding to show: %s"
		             : enc == HF_RELATIVE ? "model_type '%s': %s, a relative scheme posenc "
		                                    "does not have"
		                                  : "model_type '%s': %s",
		             type, h.arch->what);
		goto done;
	}
	m->model_type = pe_strdup(type);
	m->name = pe_strdup(label ? label : type);
	h.label = m->name;
	if (!m->model_type || !m->name) {
		st = PE_ENOMEM;
		goto done;
	}
	/* Falcon and RefinedWeb: ALiBi or RoPE by a flag. */
	const struct json *alibi_flag = hf_present(h.cfg, "alibi");
	if ((h.arch->flags & HF_ALIBI_FLAG) && alibi_flag && alibi_flag->type == JSON_BOOL &&
	    alibi_flag->boolean)
		enc = HF_ALIBI;
	/* position_embedding_type: the row's learned table or, by one value, ALiBi
	 * (Jais, BTLM: 'alibi'; the class default 'learned') or RoPE (CodeShell:
	 * 'rope'; the class default learned_absolute) */
	if (h.arch->flags & (HF_PET_ALIBI | HF_PET_ROPE)) {
		int alibi = (h.arch->flags & HF_PET_ALIBI) != 0;
		const struct json *pet = hf_present(h.cfg, "position_embedding_type");
		if (pet && pet->type != JSON_STRING) {
			st = hf_fail(&h, PE_EFORMAT, "position_embedding_type: is not a string");
			goto done;
		}
		if (pet && strcmp(pet->string, alibi ? "alibi" : "rope") == 0) {
			enc = alibi ? HF_ALIBI : HF_ROPE;
		} else if (pet && alibi && strcmp(pet->string, "learned") != 0) {
			st = hf_fail(&h, PE_EUNSUPPORTED,
			             "position_embedding_type: model_type '%s' has 'learned' or "
			             "'alibi' (its own modeling file); not '%s'",
			             type, pet->string);
			goto done;
		}
	}
	/* Baichuan's 13B modeling files (Baichuan-13B, Baichuan2-13B) add ALiBi with
	 * Press et al.'s slopes (_gen_alibi_mask), its 7B ones rotate. The config class
	 * shipped beside each file tells them apart whatever the size: the 13B
	 * BaichuanConfig keeps only model_max_length, the 7B ones also write
	 * max_position_embeddings, so trimmed test copies (IPEX's one-layer 13B) still
	 * pair with their file, where a layer count would not. */
	if (h.arch->flags & HF_ALIBI_IF_NO_MAX_POS) {
		int is13b = hf_present(h.cfg, "max_position_embeddings") == NULL;
		if (is13b)
			enc = HF_ALIBI;
		st = hf_warn(&h,
		             is13b ? "model_type '%s' without max_position_embeddings: the "
		                     "13B configuration class, whose modeling file adds ALiBi; "
		                     "read as ALiBi"
		                   : "model_type '%s' with max_position_embeddings: the 7B "
		                     "configuration class, whose modeling file rotates as Llama "
		                     "does; read as RoPE (the 13B class, which adds ALiBi, "
		                     "writes only model_max_length)",
		             h.arch->model_type);
		if (st != PE_OK)
			goto done;
	}
	/* CogVLM's build_position_ids and GLM-4V's position_ids repeat: the whole
	 * image between its boi and eoi tokens sits at one position */
	if ((h.arch->flags & HF_IMAGE_ONE_POS) && hf_present(h.root, "vision_config")) {
		st = hf_warn(&h, "vision_config: the model's own code gives all of an image's "
		                 "tokens one position (boi, the image, eoi: three positions), so "
		                 "past an image a position is not the token's index");
		if (st != PE_OK)
			goto done;
	}
	if ((st = hf_fact(&h, "reference", "the reference whose semantics posenc follows", "%s",
	                  (h.arch->flags & HF_REMOTE_CODE) || h.remote ? REFERENCE_REMOTE
	                  : enc == HF_ROPE                             ? REFERENCE_ROPE
	                                                               : REFERENCE_OTHER)) != PE_OK)
		goto done;
	switch (enc) {
	case HF_ROPE:
		st = hf_read_rope(&h);
		break;
	case HF_ALIBI:
		st = hf_read_alibi(&h);
		break;
	case HF_T5:
		st = hf_read_t5(&h);
		break;
	case HF_LEARNED:
		st = hf_read_learned(&h);
		break;
	case HF_WHISPER:
		st = hf_read_whisper(&h);
		break;
	case HF_SINUSOIDAL:
		st = hf_read_sinusoidal(&h);
		break;
	default:
		st = PE_EUNSUPPORTED;
		break;
	}
	if (st == PE_OK && !(m->train_context > 0))
		m->train_context = m->context;
	if (st == PE_OK)
		st = pe_model_check_specs(m, err);
done:
	json_free(root);
	if (st != PE_OK) {
		if (st == PE_ENOMEM && err && !*err)
			*err = pe_strdup("out of memory");
		pe_model_destroy(m);
		return st;
	}
	*out = m;
	return PE_OK;
}
