/*
 * posenc plan: how to reach a target context with each RoPE scaling. For a
 * model (or a rope spec with --train-length) and a target length, per
 * method (linear, dynamic, YaRN, llama3, and LongRoPE where the model has
 * its factor lists): the factor target / training context, the pairs each
 * keeps, ramps and interpolates, the attention factor, the pairs that never
 * complete a turn within the target, and the maximum length Hugging Face
 * transformers, vLLM and llama.cpp derive from the resulting config.
 *
 * The resulting config is the one each method's reference documents:
 * rope_scaling {type, factor, original_max_position_embeddings = the
 * training context} with max_position_embeddings = the target; dynamic NTK
 * keeps max_position_embeddings at the training context, past which
 * transformers grows its base. What each engine derives from it:
 *   transformers  max_position_embeddings (it enforces no limit; dynamic and
 *                 LongRoPE switch regimes there);
 *   vLLM          _get_and_verify_max_len (vllm/config.py): the config's
 *                 length, times factor for every type but longrope/su and
 *                 llama3, and for yarn original_max_position_embeddings times
 *                 factor; never for a model_type containing "gemma3", whose
 *                 max_position_embeddings vLLM takes as already scaled;
 *   llama.cpp     n_ctx_train = the GGUF context_length, which
 *                 convert_hf_to_gguf.py writes from max_position_embeddings;
 *                 llama.cpp has no dynamic NTK scaling.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/freqs.h>
#include <posenc/model.h>

#include "cli.h"
#include "commands.h"
#include "shared/contexts.h"
#include "shared/csv_cells.h"
#include "shared/model_spec.h"
#include "shared/output.h"
#include "shared/vectors.h"

#define MAX_SCHEMES 16
#define TWO_PI      6.283185307179586476925

enum { OPT_TARGET = CLI_OPT_COMMAND, OPT_TRAIN_LENGTH };

static const char help[] =
        "Usage: posenc plan -s SPEC... --target LENGTH [--train-length T] [-o FILE.csv]\n"
        "\n"
        "How each RoPE scaling reaches a target context, per model (or rope spec) and\n"
        "layer group: linear, dynamic, yarn, llama3, and longrope when the model has\n"
        "its factor lists (a proportional group, Gemma 4's global layers: proportional\n"
        "alone). Each method's config has rope_scaling {type, factor =\n"
        "target / training context, original_max_position_embeddings = the training\n"
        "context} and max_position_embeddings = the target (dynamic keeps it at the\n"
        "training context, where transformers starts to grow its base); a model's own\n"
        "method keeps its settings (YaRN's betas, truncate and mscale keys). Per method:\n"
        "the factor; the pairs kept, ramped (rescaled for longrope) and interpolated;\n"
        "the attention factor (cos and sin are multiplied by it, logits by its square\n"
        "and by DeepSeek's own softmax factor);\n"
        "the pairs that never complete a turn within the target; and the maximum length\n"
        "that transformers (max_position_embeddings), vLLM (_get_and_verify_max_len)\n"
        "and llama.cpp (n_ctx_train, the GGUF context_length) derive from that config.\n"
        "A group whose layers all attend within a sliding window shorter than the\n"
        "training context (Gemma's local layers) is said to need no scaling.\n"
        "Text on stdout; -o FILE.csv (or -o -) one row per model, group and method.\n"
        "\n"
        "Options:\n"
        "  -s, --scheme SPEC      a model (hf:config.json, gguf:FILE, model:NAME), or a rope\n"
        "                         spec with --train-length, e.g. rope:base=500000\n"
        "      --target LENGTH    the context to reach (required)\n"
        "      --train-length T   the training context [default: the model's; required\n"
        "                         for a plain rope spec without a scaling original]\n"
        "%s"
        "\n"
        "Example: posenc plan -s model:llama-3.1-8b --target 262144\n";

static const struct cli_refusal refusals[] = {
        {CLI_TAKES_BASE | CLI_TAKES_POSITIONS | CLI_TAKES_POSITION_IDS,
         "plan starts from each model's own base and training context"},
        {CLI_TAKES_MAX_TIME, "plan reads a config: there is no long work to bound"},
        {0, NULL},
};

static const struct cli_command_options command = {
        help,
        CLI_TAKES_SCHEME | CLI_TAKES_LAYER | CLI_TAKES_DIM | CLI_TAKES_MAX_MEMORY,
        "text on stdout by default; .csv table, - for CSV on stdout",
        "plan writes text or CSV",
        refusals,
};

struct own {
	double target;
	double train;
};

static int parse_own(void *ctx, int opt, const char *arg)
{
	struct own *w = ctx;
	const char *name = opt == OPT_TARGET ? "--target" : "--train-length";
	double *dst = opt == OPT_TARGET ? &w->target : &w->train;
	int rc = cli_parse_double(name, arg, dst);
	if (!rc && !(*dst >= 2 && *dst <= 1e15))
		rc = cli_usage_error("option '%s': %s is outside 2..1e15", name, arg);
	return rc;
}

/* One method's outcome. */
struct row {
	const char *method;
	double factor;
	size_t kept, ramped, interp, pairs, never;
	double attention;
	double logits;             /* attention^2 times the model's own softmax factor */
	double hf, vllm, llamacpp; /* NaN: not supported there */
};

/* What the engines derive from the method's config (see the comment at the top). */
static void engine_lengths(enum pe_rope_scaling type, double target, double train, double factor,
                           int vllm_unscaled, struct row *out)
{
	double max_pos = type == PE_ROPE_SCALING_DYNAMIC ? train : target;
	out->hf = max_pos;
	/* vLLM returns int(derived_max_model_len): a factor that is not whole (Qwen2.5-VL's
	 * 128000 to 262144, x2.048) gives a length truncated to a whole number of tokens */
	out->vllm = trunc(vllm_unscaled || type == PE_ROPE_SCALING_LONGROPE ||
	                                  type == PE_ROPE_SCALING_LLAMA3
	                          ? max_pos
	                  : type == PE_ROPE_SCALING_YARN ? train * factor
	                                                 : max_pos * factor);
	out->llamacpp = type == PE_ROPE_SCALING_DYNAMIC ? NAN : max_pos;
}

/* Evaluates @type on the group's spec @base_spec at width @d. @return 0, 1 (skip) or rc. */
static int evaluate(const char *base_spec, const struct pe_scheme *orig, enum pe_rope_scaling type,
                    size_t d, double target, double train, int vllm_unscaled, int mscale_softmax,
                    struct row *out)
{
	double factor = target / train;
	char over[160];
	/* linear and proportional scalings have no original context */
	int no_original = type == PE_ROPE_SCALING_LINEAR || type == PE_ROPE_SCALING_PROPORTIONAL;
	snprintf(over, sizeof(over), "scaling=%s,factor=%.17g%s", pe_rope_scaling_name(type),
	         factor, no_original ? "" : ",original=");
	if (!no_original)
		snprintf(over + strlen(over), sizeof(over) - strlen(over), "%.17g", train);
	char *text = pe_spec_override(base_spec, over);
	if (!text)
		return cli_error("out of memory");
	/* The new scaling= dropped the model's own keys of its scaling. LongRoPE's lists
	 * are the model's whatever it had; a model that already has this method keeps its
	 * settings (gpt-oss's truncate=0 moves YaRN's ramp, DeepSeek's mscale keys split
	 * the attention factor from the softmax scale), the rest start from the defaults. */
	/* (the lists first: a model without both has no LongRoPE row; PhiMoE's mscales
	 * replace its attention factor) */
	static const char *const longrope_keys[] = {"long-factor", "short-factor", "short-mscale",
	                                            "long-mscale", NULL};
	static const char *const yarn_keys[] = {"beta-fast", "beta-slow",      "truncate",
	                                        "mscale",    "mscale-all-dim", "attention-factor",
	                                        NULL};
	static const char *const llama3_keys[] = {"low", "high", NULL};
	static const char *const proportional_keys[] = {"proportion", NULL};
	int own = orig->scaling.type == type;
	const char *const *keys = type == PE_ROPE_SCALING_LONGROPE        ? longrope_keys
	                          : own && type == PE_ROPE_SCALING_YARN   ? yarn_keys
	                          : own && type == PE_ROPE_SCALING_LLAMA3 ? llama3_keys
	                          : type == PE_ROPE_SCALING_PROPORTIONAL  ? proportional_keys
	                                                                  : NULL;
	for (size_t k = 0; keys && keys[k]; k++) {
		char at[40];
		snprintf(at, sizeof(at), ",%s=", keys[k]);
		const char *kv = strstr(base_spec, at);
		if (!kv) {
			if (type == PE_ROPE_SCALING_LONGROPE && k < 2) { /* no lists: no row */
				free(text);
				return 1;
			}
			continue;
		}
		size_t kl = strcspn(kv + 1, ",");
		size_t len = strlen(text) + kl + 2;
		char *with = malloc(len);
		if (!with) {
			free(text);
			return cli_error("out of memory");
		}
		snprintf(with, len, "%s,%.*s", text, (int)kl, kv + 1);
		free(text);
		text = with;
	}
	struct pe_scheme *s = NULL;
	char *err = NULL;
	enum pe_status st = pe_scheme_parse(text, &s, &err);
	free(text);
	if (st != PE_OK) {
		int rc = cli_usage_error("scheme '%s' with %s scaling: %s", orig->label,
		                         pe_rope_scaling_name(type), err ? err : pe_status_str(st));
		free(err);
		return rc;
	}
	struct pe_freqs_options fo = {target, train};
	struct pe_freq_table *t = NULL;
	st = pe_freq_table_create(s, d, &fo, &t);
	pe_scheme_destroy(s);
	if (st != PE_OK || !t->n_variants) {
		pe_freq_table_destroy(t);
		return st == PE_ENOMEM
		               ? cli_error("out of memory")
		               : cli_usage_error("scheme '%s': %s scaling: %s", orig->label,
		                                 pe_rope_scaling_name(type), pe_status_str(st));
	}
	const struct pe_freq_variant *v = &t->variants[0];
	memset(out, 0, sizeof(*out));
	out->method = pe_rope_scaling_name(type);
	out->factor = factor;
	out->attention = v->info.attention_factor;
	out->logits = out->attention * out->attention;
	/* DeepSeek's attention multiplies its softmax scale by yarn_get_mscale(factor,
	 * mscale_all_dim)^2 when its rope parameters have mscale_all_dim (kept above only for
	 * its own YaRN): the logits' total is that times the cos/sin factor squared */
	const char *mad = strstr(base_spec, ",mscale-all-dim=");
	if (mscale_softmax && own && type == PE_ROPE_SCALING_YARN && mad) {
		double m = strtod(mad + 16, NULL);
		double ms = m != 0 && factor > 1 ? 0.1 * m * log(factor) + 1.0 : 1.0;
		out->logits *= ms * ms;
	}
	out->pairs = t->values->rows;
	for (size_t i = 0; i < out->pairs; i++) {
		const double *row = t->values->data + i * t->values->cols;
		enum pe_pair_regime g = pe_pair_regime(v, row[3]);
		out->kept += g == PE_REGIME_KEPT;
		out->ramped += g == PE_REGIME_RAMPED || g == PE_REGIME_RESCALED;
		out->interp += g == PE_REGIME_INTERPOLATED;
		out->never += !(row[2] > 0) || TWO_PI / row[2] > target;
	}
	engine_lengths(type, target, train, factor, vllm_unscaled, out);
	pe_freq_table_destroy(t);
	return 0;
}

static void print_length(FILE *f, double v)
{
	if (isnan(v))
		fprintf(f, " %10s", "n/a");
	else
		fprintf(f, " %10.10g", v);
}

static void text_rows(FILE *f, const char *name, const char *group, size_t d, double train,
                      double target, double window, const struct row *rows, size_t n)
{
	/* a partial rotary width (Qwen3-Next's 64 of 256) said, as the pairs counted are its */
	char rot[48] = "";
	if (n && 2 * rows[0].pairs != d)
		snprintf(rot, sizeof(rot), ", rotary %zu", 2 * rows[0].pairs);
	fprintf(f, "%s%s%s (d=%zu%s): training context %.17g, target %.17g (factor %.6g)\n", name,
	        *group ? " " : "", group, d, rot, train, target, target / train);
	/* Gemma's local layers: a longer context never gives them longer offsets, so what
	 * each method would change there is no reason to scale them. */
	if (window > 0 && window < train)
		fprintf(f,
		        "  a sliding window of %.17g positions, shorter than the training context: "
		        "a "
		        "longer context\n  needs no scaling in these layers (the rows say what "
		        "each "
		        "method would change)\n",
		        window);
	fprintf(f, "  %-12s %5s %5s %6s %6s %9s %9s %10s %10s %10s\n", "method", "kept", "ramp",
	        "interp", "never", "attention", "logits", "HF max", "vLLM max", "llama.cpp");
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		fprintf(f, "  %-12s %5zu %5zu %6zu %6zu %9.6g %9.6g", r->method, r->kept, r->ramped,
		        r->interp, r->never, r->attention, r->logits);
		print_length(f, r->hf);
		print_length(f, r->vllm);
		print_length(f, r->llamacpp);
		fputc('\n', f);
	}
}

static void csv_rows(FILE *f, const char *name, const char *group, size_t d, double train,
                     double target, double window, const struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		cli_csv_text(f, name, 1);
		cli_csv_text(f, group, 0);
		cli_csv_num(f, (double)d, 0);
		cli_csv_num(f, train, 0);
		cli_csv_num(f, target, 0);
		cli_csv_text(f, r->method, 0);
		cli_csv_num(f, r->factor, 0);
		cli_csv_num(f, (double)r->pairs, 0);
		cli_csv_num(f, (double)r->kept, 0);
		cli_csv_num(f, (double)r->ramped, 0);
		cli_csv_num(f, (double)r->interp, 0);
		cli_csv_num(f, (double)r->never, 0);
		cli_csv_num(f, r->attention, 0);
		cli_csv_num(f, r->logits, 0);
		cli_csv_num(f, r->hf, 0);
		cli_csv_num(f, r->vllm, 0);
		cli_csv_num(f, r->llamacpp, 0);
		cli_csv_num(f, window > 0 ? window : NAN, 0);
		fputc('\n', f);
	}
}

int cmd_plan(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"target", required_argument, NULL, OPT_TARGET},
	        {"train-length", required_argument, NULL, OPT_TRAIN_LENGTH},
	        {NULL, 0, NULL, 0},
	};
	struct cli_common o;
	struct own own = {0, 0};
	int rc = cli_parse_args(argc, argv, &command,
	                        &(struct cli_own_options){opts, parse_own, &own}, &o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;
	if (!o.nspecs)
		return cli_usage_error(
		        "which model? e.g. posenc plan -s model:llama-3.1-8b --target "
		        "262144");
	if (!(own.target > 0))
		return cli_usage_error("option '--target' is required: the context to reach");
	int csv = 0;
	if (o.output) {
		enum cli_format format;
		if ((rc = cli_output_format(&o, o.output, &format)))
			return rc;
		if (format != CLI_FORMAT_CSV)
			return cli_usage_error(
			        "option '-o': plan writes a table (.csv or -), not '%s'", o.output);
		csv = 1;
	}
	struct pe_scheme **schemes;
	struct cli_model_info *info;
	size_t count;
	if ((rc = cli_schemes_models(&o, "rope", MAX_SCHEMES, &schemes, &count, &info)))
		return rc;
	struct cli_file file;
	memset(&file, 0, sizeof(file));
	FILE *f = stdout;
	if (csv) {
		if ((rc = cli_file_open(&file, o.output))) {
			free(info);
			cli_schemes_free(schemes, count);
			return rc;
		}
		f = file.f;
		fputs("model,group,d,train_context,target,method,factor,pairs,kept,ramped,"
		      "interpolated,never_turning,attention_factor,logit_scale,hf_max_length,"
		      "vllm_max_length,llamacpp_max_length,sliding_window\n",
		      f);
	}
	for (size_t i = 0; i < count && !rc; i++) {
		const struct pe_scheme *s = schemes[i];
		if (!pe_scheme_has(s, PE_CAP_SCALING)) {
			rc = cli_usage_error("scheme '%s' is not RoPE: plan covers RoPE scalings",
			                     s->label);
			break;
		}
		struct cli_contexts c = cli_contexts_of(s, &info[i], own.train);
		/* A model's own scaling started from its original context: the plan too. */
		double train = c.train;
		if (!(train > 0)) {
			rc = cli_usage_error("scheme '%s' states no training context: give "
			                     "--train-length",
			                     s->label);
			break;
		}
		size_t d = cli_scheme_width(&o, s, 128);
		const char *name = info[i].model[0] ? info[i].model : s->label;
		const char *group = info[i].model[0] && info[i].n_groups > 1 ? info[i].group : "";
		/* A linear scaling states no original: max_position_embeddings is the context
		 * the model already reaches with it (Gemma 3's global layers, x8), and each
		 * method below starts again from the unscaled base, so linear at the target
		 * over it can be the model's own frequencies again. */
		if (info[i].model[0] && s->scaling.type != PE_ROPE_SCALING_NONE &&
		    s->scaling.factor != 1 && !pe_rope_scaling_has_original(s->scaling.type) &&
		    !(own.train > 0))
			cli_note(
			        o.quiet,
			        "warning: %s%s%s: its %s x%g scaling states no original context: "
			        "the training context %.10g is max_position_embeddings, which that "
			        "scaling already reaches, and every method replaces it from the "
			        "unscaled base; --train-length gives the pretraining context",
			        name, *group ? " " : "", group,
			        pe_rope_scaling_name(s->scaling.type), s->scaling.factor, train);
		/* A target below the training context is no extension: each method would shrink
		 * the frequencies' reach (factor < 1), and the rows would read as a plan. */
		if (own.target < train)
			cli_note(o.quiet,
			         "warning: %s%s%s: the target %.17g is shorter than its training "
			         "context %.17g: it needs no scaling, and the rows are each method "
			         "at factor %.6g, below 1",
			         name, *group ? " " : "", group, own.target, train,
			         own.target / train);
		static const enum pe_rope_scaling methods[] = {
		        PE_ROPE_SCALING_LINEAR, PE_ROPE_SCALING_DYNAMIC, PE_ROPE_SCALING_YARN,
		        PE_ROPE_SCALING_LLAMA3, PE_ROPE_SCALING_LONGROPE};
		/* Proportional RoPE (Gemma 4's global layers) keeps its pairs of frequency 0
		 * only as that rope type, whose factor divides the turning pairs' frequencies;
		 * another type would turn every pair (and transformers refuses one on layers
		 * wider than head_dim): its own factor is the one method. */
		static const enum pe_rope_scaling proportional[] = {PE_ROPE_SCALING_PROPORTIONAL};
		int prop = s->scaling.type == PE_ROPE_SCALING_PROPORTIONAL;
		const enum pe_rope_scaling *method = prop ? proportional : methods;
		size_t n_methods = prop ? 1 : sizeof(methods) / sizeof(methods[0]);
		struct row rows[5];
		size_t n = 0;
		/* The spec text of this group: canonical is "rope key=value ..." */
		char *spec = malloc(strlen(s->canonical) + 2);
		if (!spec) {
			rc = cli_error("out of memory");
			break;
		}
		strcpy(spec, s->canonical);
		spec[strcspn(spec, " ")] = spec[strcspn(spec, " ")] ? ':' : '\0';
		for (char *p = strchr(spec, ':'); p && *p; p++)
			if (*p == ' ')
				*p = ',';
		/* vLLM's _get_and_verify_max_len skips the factor for Gemma 3 (gemma3,
		 * gemma3_text, gemma3n): their max_position_embeddings is the scaled one. Its
		 * rule is itself a substring test on model_type ("gemma3" not in ...), so it
		 * is restated as one, not as a flag of posenc's architectures: any type vLLM
		 * would match, known to posenc or not, is matched. */
		int vllm_unscaled = strstr(info[i].model_type, "gemma3") != NULL;
		for (size_t k = 0; k < n_methods && !rc; k++) {
			int e = evaluate(spec, s, method[k], d, own.target, train, vllm_unscaled,
			                 info[i].softmax_scale_factor > 0, &rows[n]);
			if (e == 0)
				n++;
			else if (e != 1)
				rc = e;
		}
		free(spec);
		if (!rc) {
			/* The CSV names every model's group, "all" for a model of one, as
			 * freqs, model and layers do, so that their tables merge on it. */
			if (csv)
				csv_rows(f, name, info[i].model[0] ? info[i].group : "", d, train,
				         own.target, info[i].window, rows, n);
			else
				text_rows(f, name, group, d, train, own.target, info[i].window,
				          rows, n);
			if (!csv && i + 1 < count)
				fputc('\n', f);
		}
	}
	if (csv) {
		if (rc)
			cli_file_abort(&file);
		else if (!(rc = cli_file_commit(&file)))
			cli_report_written(&o, o.output, "context plan");
	}
	free(info);
	cli_schemes_free(schemes, count);
	return rc;
}
