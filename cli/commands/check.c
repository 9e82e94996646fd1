/* posenc check: another implementation's dump against the exact table, with a diagnosis. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <posenc/check.h>
#include <posenc/read.h>

#include "cli.h"
#include "check_text.h"
#include "commands.h"
#include "figures/figure.h"
#include "shared/costs.h"
#include "shared/memio.h"
#include "shared/model_spec.h"
#include "shared/output.h"
#include "shared/position_ids.h"
#include "shared/vectors.h"

enum { OPT_AGAINST = CLI_OPT_COMMAND, OPT_WHAT, OPT_TOL, OPT_PRECISION, OPT_VECTOR, OPT_ENGINE };

/* Exit status of a dump that disagrees: distinct from runtime (1) and usage (2) failures. */
#define CHECK_DISAGREE 3

/* The default tolerance on |error| / max(1, |value|) against the exact table. */
#define CHECK_TOL_EXACT 1e-9

/*
 * A reduced-precision dump checked with the default flags: float32's own
 * rounding is accepted while it stays within this of the exact values (more
 * than bfloat16 storage alone costs, 2^-7; a float32 table at position 10^6
 * is 0.03 to 0.1 off, which is a real loss and disagrees).
 */
#define CHECK_ROUNDING_LIMIT 1e-2

static const char help[] =
        "Usage: posenc check -s SPEC --against FILE[#TENSOR] [--what KIND] [--start P] [-d D]\n"
        "                    [--engine E] [--tol T] [--precision P] [--vector FILE] [-o FILE]\n"
        "\n"
        "Compares what another implementation computed (a .npy, .safetensors or .csv dump)\n"
        "with posenc's exact table of SPEC, row r being position P + r. Prints what the dump\n"
        "was read as, the largest absolute and relative errors and where, the verdict, and,\n"
        "when they disagree, the known mistake that explains the dump best: the other pair\n"
        "layout, the scaling left out or with another factor, another base (fitted), the\n"
        "attention factor missing or applied twice, positions off by k, cos and sin\n"
        "swapped, frequencies of another rotary width, a partial rotation taken for a\n"
        "whole-head one or the other way round, a reduced precision (and which,\n"
        "on torch's, vLLM's GPU or ggml's float32 path), an engine's own convention (YaRN\n"
        "truncated, LongRoPE's other factors, vLLM's fixed dynamic NTK and YaRN attention\n"
        "factors), or a porting mistake (RoPE applied twice, bfloat16 positions or\n"
        "inv_freq, positions restarting per chunk, pairs that never turn, a fast sin/cos\n"
        "past its range), and for M-RoPE (mrope specs) the pairs on other axes (Qwen2-VL's\n"
        "sections for Qwen3-VL's interleaving or back, other sections, fitted) or 1-D\n"
        "positions for the (t,h,w) ids; two at once if need be.\n"
        "\n"
        "M-RoPE: row r is token P + r; each pair turns with its axis's id, laid out by the\n"
        "spec's text/frames/height/width keys (get_rope_index) or read from --position-ids\n"
        "FILE; every kind and precision below applies, each axis computed as plain RoPE.\n"
        "\n"
        "Kinds (--what KIND[:full|pairs|alternate]; recognised from the shape and values when\n"
        "not given):\n"
        "  inv-freq   the d_rot/2 inverse frequencies\n"
        "  angle      m theta_i: full (d or d_rot columns in the spec's layout) or pairs (one\n"
        "             column per pair, HF's freqs)\n"
        "  cos, sin   full (posenc encode --view cos; HF's cat(freqs, freqs).cos() for the\n"
        "             half layout) or pairs (one column per pair, Meta's freqs_cis.real)\n"
        "  cos-sin    [cos | sin] side by side: full (2 x d or 2 x d_rot columns), pairs\n"
        "             (vLLM's cos_sin_cache) or alternate (cos_0, sin_0, cos_1, ...: Meta's\n"
        "             view_as_real(freqs_cis))\n"
        "  rotated    a vector rotated to each position: all ones (posenc encode --view\n"
        "             rotated; apply_rotary_pos_emb on a tensor of ones) or --vector FILE\n"
        "  table      the encoding itself, for schemes other than rope (mrope's table is its\n"
        "             rotated all-ones vector, read as rotated)\n"
        "cos and sin carry the scaling's attention factor, as Hugging Face's caches do.\n"
        "Dynamic NTK and LongRoPE are evaluated at the dump's sequence length (its largest\n"
        "position + 1), as encode does, unless the spec gives length= or --engine says\n"
        "otherwise.\n"
        "\n"
        "Options:\n"
        "  -s, --scheme SPEC      the exact scheme, e.g. rope:layout=half,base=500000 (see\n"
        "                         'posenc help schemes'), or a model: hf:config.json,\n"
        "                         gguf:FILE, model:NAME\n"
        "      --against FILE     the dump; FILE#TENSOR picks a tensor of a .safetensors file\n"
        "      --what KIND        what the dump holds (see above)\n"
        "      --engine E         the conventions of an engine: hf (transformers: the\n"
        "                         default semantics), vllm (dynamic NTK at max_position x\n"
        "                         factor, LongRoPE's long factors when max_model_len > original;\n"
        "                         its float32 path on the CPU or a GPU)\n"
        "                         or llama.cpp (no dynamic NTK, YaRN always truncated,\n"
        "                         LongRoPE factors by context size, interleaved M-RoPE's\n"
        "                         pairs past its sections at position 0; ggml's float32 path)\n"
        "                         [default: transformers' semantics, either float32 path]\n"
        "      --tol T            agreement when every |error| <= T * max(1, |value|)\n"
        "                         [default: 1e-9 against exact values: a float64 implementation\n"
        "                         is within it up to position 10^6 (one rounding of m * theta is\n"
        "                         1.1e-10 there), a float32 one is not (6e-8 at position 1);\n"
        "                         with --precision P: 4 units in the last place of 1 in P's\n"
        "                         storage precision; a float32 or bfloat16 dump that\n"
        "                         disagrees with the exact table but matches a float32\n"
        "                         computation of the spec to 4 units in its last place, whose\n"
        "                         own error stays <= 0.01, agrees \"up to float32 rounding\";\n"
        "                         a float64 dump of float32 numbers too;\n"
        "                         a CSV dump of float32 numbers is judged as float32, one of\n"
        "                         fewer digits (%.6f) adds half a unit of its last digit]\n"
        "      --precision P      compare with the table computed in precision P (f64, f32,\n"
        "                         bf16, f16, or COMPUTE/STORE such as f32/bf16: float32 angles,\n"
        "                         cos and sin stored as bfloat16) instead of exact values\n"
        "      --vector FILE      rotated: the vector x (d values) that was rotated\n"
        "  -o, --output FILE      the error per position: .csv/.npy (columns abs_error,\n"
        "                         rel_error, column, and diagnosis_error when diagnosed) or\n"
        "                         .png/.svg/.pdf (the curves on a log scale) [default: none]\n"
        "%s"
        "\n"
        "Exit status: 0 the dump agrees within the tolerance; 3 it disagrees; 1 a runtime\n"
        "failure (unreadable file); 2 a usage error. The report goes to standard output.\n"
        "\n"
        "Example: posenc check -s rope:layout=half,base=500000 --against cos.npy --what cos\n";

static const struct cli_refusal refusals[] = {
        {CLI_TAKES_N, "the dump's rows are the positions"},
        {0, NULL},
};

static const struct cli_command_options command = {
        help,
        CLI_TAKES_SCHEME | CLI_TAKES_LAYER | CLI_TAKES_BASE | CLI_TAKES_START |
                CLI_TAKES_POSITION_IDS | CLI_TAKES_DIM | CLI_TAKES_DTYPE | CLI_TAKES_FIGURES |
                CLI_TAKES_BUDGETS,
        NULL,
        "check draws error curves, not a heatmap",
        refusals,
};

struct check_args {
	const char *against;
	enum pe_engine engine;
	const char *vector;
	enum pe_check_kind kind;
	enum pe_check_packing packing;
	double tol; /* NaN: the default */
	struct pe_precision prec;
	int have_prec;
	/* The dump's first NaN (its errors are NaN, not inf): row, column. */
	int has_nan;
	size_t nan_row, nan_col;
};

/* FILE, or FILE#TENSOR when FILE itself does not exist. */
static int split_tensor(const char *arg, char **path, char **tensor)
{
	struct stat sb;
	const char *hash = strrchr(arg, '#');
	*tensor = NULL;
	if (hash && stat(arg, &sb) != 0) {
		*path = strndup(arg, (size_t)(hash - arg));
		*tensor = strdup(hash + 1);
		if (!*path || !*tensor) {
			free(*path);
			free(*tensor);
			return cli_error("out of memory");
		}
		return 0;
	}
	*path = strdup(arg);
	return *path ? 0 : cli_error("out of memory");
}

static const char *storage_name(enum pe_float f)
{
	return f == PE_FLOAT_BF16 ? "bfloat16" : f == PE_FLOAT_F16 ? "float16" : "float32";
}

/* The precision a file stores its values in, from its dtype ("<f4", "F32", "BF16"). */
static enum pe_float dtype_float(const char *dtype)
{
	if (strstr(dtype, "BF16") || strstr(dtype, "bf16"))
		return PE_FLOAT_BF16;
	if (strstr(dtype, "f4") || strstr(dtype, "F32"))
		return PE_FLOAT_F32;
	if (strstr(dtype, "f2") || strstr(dtype, "F16"))
		return PE_FLOAT_F16;
	if (strstr(dtype, "f8") || strstr(dtype, "F64"))
		return PE_FLOAT_F64;
	return PE_FLOAT_EXACT;
}

/*
 * A float32 dump of bfloat16 or float16 numbers (a bfloat16 or float16 model's cache
 * saved as float32), or a float64 dump of float32 numbers (an engine's float32 cache
 * saved with numpy's default dtype, or .double()): every value held by the narrower
 * format, and enough of them other than 0 and +-1 that it is no chance. A float64 dump
 * of other numbers holds exact values (PE_FLOAT_EXACT).
 */
static enum pe_float values_float(const struct pe_matrix *m, enum pe_float store)
{
	if (store != PE_FLOAT_F32 && store != PE_FLOAT_F64)
		return store;
	size_t n = m->rows * m->cols, other = 0;
	int f32 = 1, bf16 = 1, f16 = 1;
	/* until the answer is known: a float32 file once neither narrower format holds it */
	for (size_t i = 0; i < n && f32 && (bf16 || f16 || store == PE_FLOAT_F64); i++) {
		double v = m->data[i];
		if (!isfinite(v))
			continue;
		f32 &= pe_round(PE_FLOAT_F32, v) == v;
		bf16 &= pe_round(PE_FLOAT_BF16, v) == v;
		f16 &= pe_round(PE_FLOAT_F16, v) == v;
		other += v != 0 && v != 1 && v != -1;
	}
	if (other <= 8 || (store == PE_FLOAT_F64 && !f32))
		return store == PE_FLOAT_F64 ? PE_FLOAT_EXACT : store;
	return bf16 ? PE_FLOAT_BF16 : f16 ? PE_FLOAT_F16 : PE_FLOAT_F32;
}

static enum pe_float memtable_float(const struct cli_memtable *mt)
{
	switch (mt->dtype) {
	case CLI_MEM_F64:
		return PE_FLOAT_F64;
	case CLI_MEM_F32:
		return PE_FLOAT_F32;
	case CLI_MEM_F16:
		return PE_FLOAT_F16;
	case CLI_MEM_BF16:
		return PE_FLOAT_BF16;
	default:
		return PE_FLOAT_EXACT;
	}
}

/*
 * A text dump's numbers: float32 ones (written exactly or shortest) are the float32
 * numbers they name, stored as a float32 file's are; others hold what their digits
 * hold, which the verdict allows for (check_text.h).
 */
static void text_storage(struct pe_matrix *m, char *desc, size_t cap, enum pe_float *store,
                         struct cli_text_digits *digits)
{
	cli_text_digits_read(m, digits);
	if (digits->f32) {
		cli_text_digits_to_f32(m);
		*store = values_float(m, PE_FLOAT_F32);
		snprintf(desc, cap, ", %s numbers", storage_name(*store));
		digits->resolution = 0;
	} else if (digits->too_few && digits->decimals >= 0) {
		snprintf(desc, cap, ", %d decimals: too few to allow for", digits->decimals);
	} else if (digits->too_few) {
		snprintf(desc, cap, ", %d significant digits: too few to allow for",
		         digits->significant);
	} else if (digits->resolution > 0 && digits->decimals >= 0) {
		snprintf(desc, cap, ", %d decimals", digits->decimals);
	} else if (digits->resolution > 0) {
		snprintf(desc, cap, ", %d significant digits", digits->significant);
	}
}

/*
 * The dump, described. @keep_first: a CSV's first column is data even when it holds
 * consecutive integers no header cell names an index (an error is then left unsaid: that reading is
 * a second one); @guessed (may be NULL): set when the reader took such a column for an
 * index.
 */
static int read_dump(const struct cli_common *o, const char *arg, struct pe_matrix **out,
                     char *desc, size_t cap, enum pe_float *store, struct cli_text_digits *digits,
                     int keep_first, int *guessed)
{
	*store = PE_FLOAT_EXACT;
	if (guessed)
		*guessed = 0;
	memset(digits, 0, sizeof(*digits));
	char *path, *tensor, *err = NULL;
	int rc = split_tensor(arg, &path, &tensor);
	if (rc)
		return rc;
	struct pe_read_request req = {tensor, 0, 0, 0, keep_first};
	struct pe_file_info *info = NULL;
	struct stat sb;
	/* A second reading opens the file again: a pipe's bytes are gone, and a FIFO's
	 * open would wait for a writer that never comes. */
	if (keep_first && !cli_memtable_find(path) &&
	    (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))) {
		free(path);
		free(tensor);
		return 1;
	}
	/* Reading, comparing and diagnosing grow with the dump's bytes (a file's
	 * size known before it is read; a pipe's not). */
	if (!cli_memtable_find(path) && stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
		size_t len = strlen(path);
		int text = len >= 4 && strcmp(path + len - 4, ".csv") == 0;
		char what[96];
		snprintf(what, sizeof(what), "checking the %.0f MB dump", (double)sb.st_size / 1e6);
		rc = cli_check_time(
		        o, (double)sb.st_size * (text ? CLI_COST_CHECK_TEXT : CLI_COST_CHECK_BYTE),
		        what, "check a part of the dump (fewer rows)");
		if (rc) {
			free(path);
			free(tensor);
			return rc;
		}
	}
	/* One opening: the table and its description from the same bytes, within
	 * the memory budget (a stream such as /dev/zero stops at it); a table
	 * handed over in memory (the Python package) is that table. */
	size_t budget = o->max_memory > SIZE_MAX ? SIZE_MAX : (size_t)o->max_memory;
	const struct cli_memtable *mt = cli_memtable_find(path);
	enum pe_status st = mt ? cli_memtable_read(mt, &req, budget, 0, out, &err)
	                       : pe_read_file_described(path, &req, budget, out, &info, &err);
	if (st != PE_OK && keep_first) {
		rc = 1;
		free(err);
	} else if (st != PE_OK) {
		/* escaped once, by cli_error (the library's text has the file's bytes escaped) */
		rc = cli_error("'%s': %s%s", arg, err ? err : pe_status_str(st),
		               st == PE_ETOOBIG ? " (--max-memory)" : "");
		free(err);
	} else {
		/* what the file says of itself: its dtype and shape */
		snprintf(desc, cap, "%zu x %zu", (*out)->rows, (*out)->cols);
		/* An array's element type is its storage as a file's dtype is: a float32
		 * array judged as exact values would disagree by float32's rounding. */
		if (mt)
			*store = values_float(*out, memtable_float(mt));
		if (info) {
			for (size_t i = 0; i < info->count; i++) {
				const struct pe_tensor_info *t = &info->tensors[i];
				if (tensor && (!t->name || strcmp(t->name, tensor) != 0))
					continue;
				*store = values_float(*out, dtype_float(t->dtype));
				size_t len = 0;
				len += (size_t)snprintf(desc, cap, "%s %s, shape (",
				                        pe_file_format_name(info->format),
				                        t->dtype);
				/* a CSV's as read: with or without its first column */
				uint64_t csv_shape[2] = {(*out)->rows, (*out)->cols};
				const uint64_t *shape =
				        info->format == PE_FORMAT_CSV ? csv_shape : t->shape;
				for (size_t k = 0; k < t->ndim && len < cap; k++)
					len += (size_t)snprintf(desc + len, cap - len, "%s%llu",
					                        k ? ", " : "",
					                        (unsigned long long)shape[k]);
				if (len < cap)
					len += (size_t)snprintf(desc + len, cap - len, "%s)",
					                        t->ndim == 1 ? "," : "");
				/* a float64 file that holds narrower numbers says so */
				if (len < cap && dtype_float(t->dtype) == PE_FLOAT_F64 &&
				    *store != PE_FLOAT_EXACT)
					len += (size_t)snprintf(desc + len, cap - len,
					                        ", %s numbers",
					                        storage_name(*store));
				/* the digits are read whatever room the description has left */
				if (info->format == PE_FORMAT_CSV)
					text_storage(*out, desc + (len < cap ? len : cap - 1),
					             len < cap ? cap - len : 1, store, digits);
				if (guessed)
					*guessed = info->format == PE_FORMAT_CSV &&
					           info->csv_index_guessed;
				break;
			}
		}
		pe_file_info_destroy(info);
	}
	free(path);
	free(tensor);
	return rc;
}

static int read_vector(const struct cli_common *o, const char *path, struct pe_matrix **out)
{
	int rc0 = cli_check_csv_read(o, path, "give the vector of d values");
	if (rc0)
		return rc0;
	char *err = NULL;
	enum pe_status st = cli_read_file(path, NULL, out, &err);
	if (st != PE_OK) {
		int rc = cli_error("'%s': %s", path, err ? err : pe_status_str(st));
		free(err);
		return rc;
	}
	struct pe_matrix *m = *out;
	if (m->rows != 1 && m->cols != 1) {
		int rc = cli_error("'%s': expected one vector, found a %zu x %zu table", path,
		                   m->rows, m->cols);
		pe_matrix_destroy(m);
		*out = NULL;
		return rc;
	}
	return 0;
}

/* The default tolerance: exact values 1e-9; a precision: 4 ulp of 1 in its storage format. */
static double store_tol(enum pe_float store)
{
	switch (store) {
	case PE_FLOAT_F32:
		return 4 * ldexp(1, -23);
	case PE_FLOAT_BF16:
		return 4 * ldexp(1, -7);
	case PE_FLOAT_F16:
		return 4 * ldexp(1, -10);
	default:
		return CHECK_TOL_EXACT;
	}
}

/* One ulp of values just below 1 in @store: twice what rounding exact values to it costs. */
static double storage_tol(enum pe_float store)
{
	switch (store) {
	case PE_FLOAT_BF16:
		return ldexp(1, -8);
	case PE_FLOAT_F16:
		return ldexp(1, -11);
	default:
		return ldexp(1, -24);
	}
}

/*
 * A dump judged at its own precision: float32, 4 ulps of 1 (libm's cosf and powf differ
 * by an ulp or two); bfloat16 and float16, one ulp of values just below 1, as a
 * rounding that went the other way makes, and no more, so that an amplitude 1% off is
 * not taken for rounding.
 */
static double own_precision_tol(enum pe_float store)
{
	return store == PE_FLOAT_BF16 || store == PE_FLOAT_F16 ? storage_tol(store)
	                                                       : store_tol(store);
}

/* sqrt(2): a pair's length is at most this times its larger component */
#define M_SQRT2_LOCAL 1.4142135623730951

static double default_tol(const struct check_args *a)
{
	return a->have_prec ? store_tol(a->prec.store) : CHECK_TOL_EXACT;
}

/* Whether the dump is within @tol of the diagnosis's table: an explanation in a reduced
 * precision holds to that precision's tolerance. */
static int diag_within(const struct pe_check_result *r, double tol)
{
	return r->diag.stats.mixed.value <= fmax(tol, store_tol(r->diag.prec.store));
}

static const char *short_mistake(const struct pe_check_diagnosis *d, char *buf, size_t cap)
{
	char p[16];
	switch (d->mistake) {
	case PE_MISTAKE_LAYOUT:
		snprintf(buf, cap, "the other layout");
		break;
	case PE_MISTAKE_NO_SCALING:
		snprintf(buf, cap, "no scaling");
		break;
	case PE_MISTAKE_FACTOR:
		snprintf(buf, cap, "factor %.4g", d->value);
		break;
	case PE_MISTAKE_BASE:
		snprintf(buf, cap, "base %.6g", d->value);
		break;
	case PE_MISTAKE_ATTENTION:
		snprintf(buf, cap, "amplitude %.6g", d->value);
		break;
	case PE_MISTAKE_OFFSET:
		snprintf(buf, cap, "positions %+g", d->value);
		break;
	case PE_MISTAKE_SWAPPED:
		snprintf(buf, cap, "cos and sin swapped");
		break;
	case PE_MISTAKE_ROTARY:
		snprintf(buf, cap, "rotary width %g", d->value);
		break;
	case PE_MISTAKE_TRUNCATE:
		snprintf(buf, cap, "YaRN truncate=%g", d->value);
		break;
	case PE_MISTAKE_REGIME:
		snprintf(buf, cap, "LongRoPE's other factors");
		break;
	case PE_MISTAKE_LENGTH:
		snprintf(buf, cap, "dynamic at length %.10g", d->value);
		break;
	case PE_MISTAKE_DOUBLE:
		snprintf(buf, cap, "rotated twice");
		break;
	case PE_MISTAKE_BF16_POSITIONS:
		snprintf(buf, cap, "bf16 positions");
		break;
	case PE_MISTAKE_BF16_INV_FREQ:
		snprintf(buf, cap, "bf16 inv_freq");
		break;
	case PE_MISTAKE_CHUNK:
		snprintf(buf, cap, "restart every %g", d->value);
		break;
	case PE_MISTAKE_FAST_SINCOS:
		snprintf(buf, cap, "sin/cos past %.3g rad", d->value);
		break;
	case PE_MISTAKE_ZERO_FREQ:
		snprintf(buf, cap, "%g pairs still", d->value);
		break;
	case PE_MISTAKE_MROPE_AXES:
		snprintf(buf, cap, "M-RoPE %s", d->value != 0 ? "interleaved" : "sections");
		break;
	case PE_MISTAKE_MROPE_SEQUENTIAL:
		snprintf(buf, cap, "1-D positions");
		break;
	case PE_MISTAKE_YARN_BETAS:
		snprintf(buf, cap, "YaRN betas 32, 1");
		break;
	case PE_MISTAKE_MROPE_TSTEP:
		snprintf(buf, cap, "M-RoPE tstep %g", d->value);
		break;
	case PE_MISTAKE_EXTRA_SCALING:
		snprintf(buf, cap, "llama3 \xc3\x97%g", d->value);
		break;
	case PE_MISTAKE_LAYER_GROUP:
		snprintf(buf, cap, "another layer group");
		break;
	default:
		snprintf(buf, cap, "precision %s", pe_precision_name(d->prec, p, sizeof(p)));
		return buf;
	}
	if (d->with_prec) {
		size_t len = strlen(buf);
		snprintf(buf + len, cap - len, ", %s", pe_precision_name(d->prec, p, sizeof(p)));
	}
	return buf;
}

static void where_text(const struct pe_check_result *r, const struct pe_scheme *s,
                       const struct pe_check_where *w, uint64_t start, char *buf, size_t cap)
{
	char col[96];
	pe_check_column_name(&r->form, s, w->col, col, sizeof(col));
	if (r->form.kind == PE_CHECK_INV_FREQ)
		snprintf(buf, cap, "%s", col);
	else
		snprintf(buf, cap, "position %llu, %s", (unsigned long long)(start + w->row), col);
}

/* What the report says besides the result: the conventions and precision it was judged by. */
struct check_notes {
	const char *engine; /* what --engine changed, or NULL */
	double length;      /* >0: the length the command chose for dynamic/longrope */
	/* agreed up to the dump's precision: 1 with a float32 computation, 2 within the
	 * rounding bound of a scheme without a float32 model, 3 with the exact values
	 * rounded to the dump's storage */
	int rounded;
	double exact_err;              /* rounded: the largest error against the exact values */
	enum pe_float store;           /* the dump's storage precision (EXACT: not known) */
	const char *ids;               /* M-RoPE: the --position-ids file, or NULL */
	struct cli_text_digits digits; /* a text dump's digits; resolution > 0: allowed for */
	const char *no_diag;           /* the diagnosis left out: how long it would take, or NULL */
	const char *no_diag_raise;     /* then the --max-time that lets it through, or "" */
};

/* " plus 5e-07 (half a unit of its 6th decimal)": what a text dump's digits add. */
static void digits_text(const struct check_notes *n, char *buf, size_t cap)
{
	const struct cli_text_digits *g = &n->digits;
	if (g->resolution <= 0)
		*buf = '\0';
	else if (g->decimals >= 0)
		snprintf(buf, cap, " plus %.3g, half a unit of the dump's last decimal (%d)",
		         g->resolution, g->decimals);
	else
		snprintf(buf, cap,
		         " plus half a unit of the value's last digit (%d significant: at most "
		         "%.3g * max(1, |value|))",
		         g->significant, g->resolution);
}

/* M-RoPE: where the tokens' (t, h, w) ids come from, after the positions line. */
static void mrope_ids_text(FILE *out, const struct pe_scheme *s, const struct check_notes *n)
{
	const unsigned *g = s->mrope_grid;
	if (n->ids) {
		char *shown = cli_escape(n->ids);
		fprintf(out, " (tokens; M-RoPE ids (t,h,w) from the rows of %s)",
		        shown ? shown : "?");
		free(shown);
	} else if (g[0])
		fprintf(out,
		        " (tokens; M-RoPE ids (t,h,w) of %u text tokens, a %ux%ux%u grid, then "
		        "text, as get_rope_index numbers them)",
		        s->mrope_text, g[0], g[1], g[2]);
	else
		fprintf(out, " (text: t = h = w = token)");
}

static void report(FILE *out, const struct pe_check_result *r, const struct pe_scheme *s,
                   const struct check_args *a, const char *desc, uint64_t start, double tol,
                   const struct check_notes *n)
{
	char buf[320], where[160], p[16], digits[120];
	digits_text(n, digits, sizeof(digits));
	char *shown = cli_escape(a->against), *said = cli_escape(desc);
	fprintf(out, "against:        %s (%s)\n", shown ? shown : "?", said ? said : "?");
	free(shown);
	free(said);
	pe_check_form_describe(&r->form, s, buf, sizeof(buf));
	fprintf(out, "read as:        %s%s\n", buf,
	        !r->form_recognised ? ""
	        : r->form.kind == PE_CHECK_SIN
	                ? " (recognised from its shape and values: it holds sin; if it is meant "
	                  "to hold cos, cos and sin are swapped)"
	                : " (recognised from its shape and values)");
	if (r->form.kind != PE_CHECK_INV_FREQ) {
		fprintf(out, "positions:      %llu..%llu", (unsigned long long)start,
		        (unsigned long long)(start + r->rows - 1));
		if (strcmp(pe_scheme_name(s), "mrope") == 0)
			mrope_ids_text(out, s, n);
		fputc('\n', out);
	}
	fprintf(out, "reference:      %s, d=%zu, %s\n", s->canonical, r->form.d,
	        a->have_prec ? pe_precision_name(a->prec, p, sizeof(p)) : "exact");
	if (r->path)
		fprintf(out, "                %s\n", r->path);
	if (a->engine != PE_ENGINE_ANY) {
		fprintf(out, "engine:         %s%s%s", pe_engine_name(a->engine),
		        n->engine ? ": " : "", n->engine ? n->engine : "");
		if ((s->scaling.type == PE_ROPE_SCALING_DYNAMIC ||
		     s->scaling.type == PE_ROPE_SCALING_LONGROPE) &&
		    s->scaling.length > 0)
			fprintf(out, " (length %.10g)", s->scaling.length);
		fputc('\n', out);
	}
	if (n->length > 0 && !(a->engine != PE_ENGINE_ANY && n->engine))
		fprintf(out,
		        "length:         %s evaluated at sequence length %.17g (the dump's largest "
		        "position + 1, as encode does; length= sets another)\n",
		        s->scaling.type == PE_ROPE_SCALING_DYNAMIC ? "dynamic NTK" : "LongRoPE",
		        n->length);
	where_text(r, s, &r->stats.abs, start, where, sizeof(where));
	/* NaN where the reference has NaN too (float16's overflowed positions) is no error */
	if (a->has_nan && !r->agree) {
		/* A NaN has no size: said as such, where it first is. */
		struct pe_check_where w = r->stats.abs;
		w.row = a->nan_row;
		w.col = a->nan_col;
		where_text(r, s, &w, start, where, sizeof(where));
		fprintf(out, "max abs error:  nan (the dump holds NaN) at %s\n", where);
		fprintf(out, "max rel error:  nan at %s\n", where);
		fprintf(out, "verdict:        disagree (the dump holds NaN, first at %s)\n", where);
	} else {
		fprintf(out, "max abs error:  %.3g at %s\n", r->stats.abs.value, where);
		where_text(r, s, &r->stats.rel, start, where, sizeof(where));
		fprintf(out, "max rel error:  %.3g at %s\n", r->stats.rel.value, where);
	}
	if (a->has_nan && !r->agree)
		;
	else if (r->agree && n->rounded == 3)
		fprintf(out,
		        "verdict:        agree up to %s storage: no mistake found (every |error| "
		        "<= "
		        "%.3g * max(1, |value|), what storing the exact values as %s costs)\n",
		        storage_name(n->store), tol, storage_name(n->store));
	else if (r->agree && n->rounded == 2)
		fprintf(out,
		        "verdict:        agree up to float32 rounding: no mistake found (every "
		        "|error| <= %.3g * max(1, |value|): %s angles up to position %.10g)\n",
		        tol, n->store == PE_FLOAT_F32 ? "float32" : "float32 and its storage",
		        n->exact_err);
	else if (r->agree && n->rounded)
		fprintf(out,
		        "verdict:        agree up to float32 rounding: no mistake found (every "
		        "|error| <= %g * max(1, |value|%s) against the spec computed in %s; "
		        "%.3g at most against the exact values)\n",
		        tol,
		        r->form.kind == PE_CHECK_ROTATED
		                ? ", the pair's input length L (4 L in bfloat16 or float16)"
		                : "",
		        pe_precision_name(a->prec, p, sizeof(p)), n->exact_err);
	else if (r->agree)
		fprintf(out, "verdict:        agree (every |error| <= %g * max(1, |value|)%s)%s\n",
		        tol, digits, a->has_nan ? ", NaN where the reference has NaN" : "");
	else if (n->digits.decimals >= 0 && n->digits.resolution > 0)
		fprintf(out,
		        "verdict:        disagree ((|error| - %.3g) / max(1, |value|) reaches %.3g "
		        "> "
		        "%g; %.3g is half a unit of the dump's last decimal (%d))\n",
		        n->digits.resolution, r->stats.mixed.value, tol, n->digits.resolution,
		        n->digits.decimals);
	else if (n->digits.resolution > 0)
		fprintf(out,
		        "verdict:        disagree ((|error| - h) / max(1, |value|) reaches %.3g > "
		        "%g; h is half a unit of the value's last digit (%d significant: at most "
		        "%.3g * max(1, |value|)))\n",
		        r->stats.mixed.value, tol, n->digits.significant, n->digits.resolution);
	else
		fprintf(out,
		        "verdict:        disagree (|error| / max(1, |value|) reaches %.3g > "
		        "%g)\n",
		        r->stats.mixed.value, tol);
	if (!r->agree && n->no_diag) {
		fprintf(out, "diagnosis:      not tried: it would take %s%s%s%s\n", n->no_diag,
		        *n->no_diag_raise ? "; raise the budget (" : "", n->no_diag_raise,
		        *n->no_diag_raise ? ")" : "");
	} else if (r->diagnosed) {
		fprintf(out, "diagnosis:      %s\n", r->diag.text);
		where_text(r, s, &r->diag.stats.abs, start, where, sizeof(where));
		if (r->diag.mistake == PE_MISTAKE_FAST_SINCOS)
			; /* a pattern of the errors, no table to compare with */
		else if (!diag_within(r, tol))
			fprintf(out,
			        "                (that explains part of it: the dump is still %.3g "
			        "from it, at %s)\n",
			        r->diag.stats.abs.value, where);
		else if (r->diag.stats.abs.value == 0)
			fprintf(out, "                (the dump matches that exactly)\n");
		else
			fprintf(out, "                (the dump is within %.3g of that, at %s)\n",
			        r->diag.stats.abs.value, where);
	} else if (!r->agree) {
		fprintf(out, "diagnosis:      none of the known mistakes explains it better\n");
	}
	/* float16 rounds positions from 65520 up past its largest value, 65504 */
	int f16_pos = (r->agree && a->have_prec && a->prec.compute == PE_FLOAT_F16) ||
	              (r->diagnosed && r->diag.prec.compute == PE_FLOAT_F16);
	if (a->has_nan && f16_pos && r->form.kind != PE_CHECK_INV_FREQ &&
	    (double)start + (double)a->nan_row >= 65520.0)
		fprintf(out,
		        "                (float16 positions overflow to infinity past 65504: "
		        "NaN from position %.17g on)\n",
		        (double)start + (double)a->nan_row);
}

/*
 * A model spec's other layer groups: a dump that no mistake explains may be another
 * group's encoding (Gemma 3's global layers, base 1e6 and linear 8, checked with
 * --layer local). Each group is checked as the asked one would be (its engine, the
 * dump's own precision); the first that agrees becomes the diagnosis. A spec with
 * overrides (model:NAME,key=value) is left alone: its groups are not the file's.
 */
static void other_group(const struct cli_common *o, const char *spec, const struct check_args *a,
                        const struct pe_matrix *dump, const struct pe_check_options *co,
                        enum pe_float store, struct pe_check_result *r)
{
	struct pe_model *m = NULL;
	const char *overrides = NULL;
	if (!cli_is_model_spec(spec) || !o->layer)
		return;
	/* loaded again (cli_model_load()'s cache): its warnings were said when it was built */
	struct cli_common quiet = *o;
	quiet.quiet = 1;
	if (cli_model_load(&quiet, spec, &m, &overrides) || !m || (overrides && *overrides) ||
	    m->n_groups < 2)
		return;
	const struct pe_model_group *asked = pe_model_group_find(m, o->layer);
	int found = 0;
	for (size_t i = 0; i < m->n_groups && !found; i++) {
		const struct pe_model_group *g = &m->groups[i];
		if (g == asked || !g->spec || cli_spec_scheme_is(g->spec, "nope"))
			continue;
		struct pe_scheme *s2 = NULL;
		if (pe_scheme_parse(g->spec, &s2, NULL) != PE_OK)
			continue;
		if (pe_scheme_has(s2, PE_CAP_SCALING))
			pe_engine_apply(
			        a->engine, &s2->scaling, (double)o->start + (double)dump->rows,
			        strncmp(spec, "gguf:", 5) == 0 || strstr(spec, ".gguf"), NULL);
		struct pe_check_options c2 = *co;
		c2.diagnose = 0;
		int own =
		        !a->have_prec && isnan(a->tol) &&
		        (store == PE_FLOAT_F32 || store == PE_FLOAT_BF16 || store == PE_FLOAT_F16);
		if (own) {
			c2.prec = (struct pe_precision){PE_FLOAT_F32, store};
			c2.tol = own_precision_tol(store);
		}
		struct pe_check_result *r2 = NULL;
		if (pe_check_run(s2, dump, &c2, &r2, NULL) == PE_OK && r2->agree &&
		    r2->rows == r->rows) {
			double *rd = malloc((r->rows ? r->rows : 1) * sizeof(*rd));
			if (rd) {
				memcpy(rd, r2->row_abs, r->rows * sizeof(*rd));
				free(r->row_diag);
				r->row_diag = rd;
				memset(&r->diag, 0, sizeof(r->diag));
				r->diag.mistake = PE_MISTAKE_LAYER_GROUP;
				r->diag.prec = c2.prec;
				r->diag.with_prec = own;
				r->diag.stats = r2->stats;
				snprintf(r->diag.text, sizeof(r->diag.text),
				         "another layer group's encoding: the dump is group '%s' "
				         "(--layer "
				         "%s: %s), not '%s'",
				         g->name, g->name, g->spec, asked ? asked->name : o->layer);
				r->diagnosed = 1;
				found = 1;
			}
		}
		pe_check_result_destroy(r2);
		pe_scheme_destroy(s2);
	}
}

static int write_table(const struct cli_common *o, const char *path, enum cli_format format,
                       const struct pe_check_result *r, uint64_t start)
{
	size_t cols = r->diagnosed ? 4 : 3;
	struct pe_matrix *m = pe_matrix_create(r->rows, cols);
	if (!m)
		return cli_error("the error table: out of memory");
	for (size_t i = 0; i < r->rows; i++) {
		double *row = m->data + i * cols;
		row[0] = r->row_abs[i];
		row[1] = r->row_rel[i];
		row[2] = (double)r->row_col[i];
		if (r->diagnosed)
			row[3] = r->row_diag[i];
	}
	static const char *const names[] = {"abs_error", "rel_error", "column", "diagnosis_error"};
	int inv = r->form.kind == PE_CHECK_INV_FREQ;
	struct pe_axis rows = {inv ? "row" : "position", inv ? 0.0 : (double)start, 1.0, NULL};
	struct pe_axis cax = {NULL, 0.0, 1.0, names};
	int rc = cli_write_matrix(o, path, format, m, &rows, &cax);
	pe_matrix_destroy(m);
	return rc;
}

/* The largest value of each block of rows: the envelope a figure can show. */
static size_t envelope(const double *v, size_t n, size_t bins, uint64_t start, double *x, double *y)
{
	if (n <= bins) {
		for (size_t i = 0; i < n; i++) {
			x[i] = (double)(start + i);
			y[i] = v[i];
		}
		return n;
	}
	for (size_t b = 0; b < bins; b++) {
		size_t i0 = n * b / bins, i1 = n * (b + 1) / bins;
		double m = 0;
		for (size_t i = i0; i < i1; i++)
			if (v[i] > m || isnan(v[i]))
				m = v[i];
		x[b] = (double)start + (double)(i0 + i1 - 1) / 2.0;
		y[b] = m;
	}
	return bins;
}

static int draw(const struct cli_common *o, const char *path, enum cli_format format,
                const struct pe_check_result *r, const struct pe_scheme *s,
                const struct check_args *a, uint64_t start, double tol, const char *tol_note)
{
	size_t bins = 2000, n = r->rows;
	struct pe_figure *fig = pe_figure_create(1, 1);
	double *buf = malloc(4 * (n < bins ? n : bins) * sizeof(*buf));
	if (!fig || !buf) {
		pe_figure_destroy(fig);
		free(buf);
		return cli_error("the error figure: out of memory");
	}
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_CURVES);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	double *x = buf, *y = buf + bins, *x2 = buf + 2 * bins, *y2 = buf + 3 * bins;
	if (n <= bins) {
		x = buf;
		y = buf + n;
		x2 = buf + 2 * n;
		y2 = buf + 3 * n;
	}
	size_t k = envelope(r->row_abs, n, bins, start, x, y);
	enum pe_status st = pe_panel_add_line(p, "against the spec", x, y, k);
	char label[192], sh[96];
	if (st == PE_OK && r->diagnosed) {
		size_t k2 = envelope(r->row_diag, n, bins, start, x2, y2);
		snprintf(label, sizeof(label), "against the diagnosis (%s)",
		         short_mistake(&r->diag, sh, sizeof(sh)));
		st = pe_panel_add_line(p, label, x2, y2, k2);
	}
	snprintf(label, sizeof(label), "tolerance %g%s", tol, tol_note);
	if (st == PE_OK)
		st = pe_panel_add_hline(p, tol, label);
	pe_panel_set_log(p, false, true);
	pe_panel_set_integer_ticks(p, true, false);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "position");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, n > bins ? "largest |error| per block of positions"
		                                     : "largest |error| over the row");
	char title[320], what[160];
	pe_check_form_describe(&r->form, s, what, sizeof(what));
	const char *base = strrchr(a->against, '/');
	snprintf(title, sizeof(title), "%s (%s) against the exact table",
	         base ? base + 1 : a->against, pe_check_kind_name(r->form.kind));
	if (st == PE_OK)
		st = pe_figure_set_title(fig, title);
	/* the spec under the title: it can be long, the panel title has the width */
	if (st == PE_OK)
		st = pe_panel_set_title(p, cli_short_label(s));
	int rc;
	if (st != PE_OK) {
		rc = cli_figure_error(st);
	} else {
		snprintf(what, sizeof(what), "error of %zu positions", n);
		rc = cli_figure_write(o, path, format, fig, what);
	}
	pe_figure_destroy(fig);
	free(buf);
	return rc;
}

static int parse_check_option(void *ctx, int opt, const char *arg)
{
	struct check_args *a = ctx;
	switch (opt) {
	case OPT_AGAINST:
		a->against = arg;
		return 0;
	case OPT_VECTOR:
		a->vector = arg;
		return 0;
	case OPT_ENGINE:
		if (pe_engine_parse(arg, &a->engine) != PE_OK || a->engine == PE_ENGINE_ANY)
			return cli_usage_error(
			        "option '--engine': '%s' is not hf, vllm or llama.cpp", arg);
		return 0;
	case OPT_WHAT:
		if (pe_check_kind_parse(arg, &a->kind, &a->packing) != PE_OK)
			return cli_usage_error("option '--what': '%s' is not inv-freq, angle, cos, "
			                       "sin, cos-sin, rotated or table (with :full, :pairs "
			                       "or :alternate)",
			                       arg);
		return 0;
	case OPT_TOL: {
		int rc = cli_parse_double("--tol", arg, &a->tol);
		if (!rc && !(a->tol >= 0))
			rc = cli_usage_error("option '--tol': %s must be >= 0", arg);
		return rc;
	}
	default: /* OPT_PRECISION */
		if (pe_precision_parse(arg, &a->prec) != PE_OK)
			return cli_usage_error("option '--precision': '%s' is not f64, f32, bf16, "
			                       "f16 or COMPUTE/STORE (f32/bf16)",
			                       arg);
		a->have_prec = a->prec.compute != PE_FLOAT_EXACT;
		return 0;
	}
}

/* The first NaN of the dump, if any, into @a. */
static void find_nan(const struct pe_matrix *dump, struct check_args *a)
{
	for (size_t row = 0; row < dump->rows && !a->has_nan; row++)
		for (size_t col = 0; col < dump->cols && !a->has_nan; col++)
			if (isnan(dump->data[row * dump->cols + col])) {
				a->has_nan = 1;
				a->nan_row = row;
				a->nan_col = col;
			}
}

static void append(char *buf, size_t cap, const char *text)
{
	size_t len = strlen(buf);
	if (len + 1 < cap)
		snprintf(buf + len, cap - len, "%s", text);
}

/*
 * What the dump's digits allow into @co (slack, slack_digits). A text dump cannot be
 * closer than its digits: "%.6f" rounds by up to 5e-7 at any value, so fixed decimals are
 * an absolute slack (as a relative allowance they let an integer table of angles be 50%
 * off); "%g" rounds each value by half a unit of its own last digit (5e-7 for 0.54 but
 * 5e-11 for 1.2e-5: the largest, as a slack for every value, let a float32 table 8 units
 * off pass as "%g" of exact values). A given --tol or --precision is the whole allowance.
 */
static void digits_slack(const struct check_args *a, struct cli_text_digits *digits,
                         struct pe_check_options *co)
{
	if (!isnan(a->tol) || a->have_prec)
		digits->resolution = 0;
	co->slack = digits->decimals >= 0 ? digits->resolution : 0;
	co->slack_digits = digits->decimals < 0 && digits->resolution > 0 ? digits->significant : 0;
}

/*
 * Whether the dump read with its first column (@alt) is the better reading of it than
 * without (@dump): it agrees where the other does not, or is closer to the spec (or the
 * other fits no form of it). Compared without a diagnosis.
 */
static int pick_first_column(const struct pe_scheme *s, const struct pe_matrix *dump,
                             const struct pe_check_options *co, const struct pe_matrix *alt,
                             const struct pe_check_options *alt_co)
{
	struct pe_check_options t = *co, t2 = *alt_co;
	t.diagnose = t2.diagnose = 0;
	struct pe_check_result *r1 = NULL, *r2 = NULL;
	enum pe_status s1 = pe_check_run(s, dump, &t, &r1, NULL);
	enum pe_status s2 = pe_check_run(s, alt, &t2, &r2, NULL);
	int pick = s2 == PE_OK &&
	           (s1 != PE_OK ||
	            (!r1->agree && (r2->agree || r2->stats.mixed.value < r1->stats.mixed.value)));
	pe_check_result_destroy(r1);
	pe_check_result_destroy(r2);
	return pick;
}

int cmd_check(int argc, char **argv)
{
	struct cli_common o;
	struct check_args a = {NULL,
	                       PE_ENGINE_ANY,
	                       NULL,
	                       PE_CHECK_AUTO,
	                       PE_PACK_AUTO,
	                       NAN,
	                       {PE_FLOAT_EXACT, PE_FLOAT_EXACT},
	                       0,
	                       0,
	                       0,
	                       0};
	static const struct option opts[] = {
	        {"against", required_argument, NULL, OPT_AGAINST},
	        {"what", required_argument, NULL, OPT_WHAT},
	        {"tol", required_argument, NULL, OPT_TOL},
	        {"precision", required_argument, NULL, OPT_PRECISION},
	        {"vector", required_argument, NULL, OPT_VECTOR},
	        {"engine", required_argument, NULL, OPT_ENGINE},
	        {NULL, 0, NULL, 0},
	};
	int rc = cli_parse_args(argc, argv, &command,
	                        &(struct cli_own_options){opts, parse_check_option, &a}, &o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;
	if (!o.nspecs)
		return cli_usage_error("check needs the spec to check against (-s SPEC)");
	if (!a.against)
		return cli_usage_error("check needs the dump to check (--against FILE)");
	if (a.vector && a.kind != PE_CHECK_AUTO && a.kind != PE_CHECK_ROTATED)
		return cli_usage_error("option '--vector' goes with --what rotated");
	enum cli_format format = CLI_FORMAT_CSV;
	if (o.output) {
		if ((rc = cli_output_format(&o, o.output, &format)))
			return rc;
		if (cli_format_is_figure(format) && (rc = cli_figure_check_options(&o)))
			return rc;
		if (format == CLI_FORMAT_HTML)
			return cli_usage_error(
			        "option '-o': check writes .csv, .npy, .png, .svg or "
			        ".pdf");
	}
	struct pe_scheme **schemes;
	size_t count;
	if ((rc = cli_schemes(&o, NULL, 1, &schemes, &count)))
		return rc;
	const struct pe_scheme *s = schemes[0];
	struct pe_matrix *dump = NULL, *vec = NULL, *alt = NULL;
	char desc[256], alt_desc[256];
	enum pe_float alt_store = PE_FLOAT_EXACT;
	struct cli_text_digits alt_digits;
	int guessed = 0;
	enum pe_float store = PE_FLOAT_EXACT;
	struct cli_text_digits digits = {0, 0, 0, 0, 0};
	size_t nids = 0;
	if (o.position_ids)
		rc = cli_position_ids_apply(&o, schemes[0], &nids);
	if (!rc)
		rc = read_dump(&o, a.against, &dump, desc, sizeof(desc), &store, &digits, 0,
		               &guessed);
	/* A first column of consecutive integers that no header cell names an index was
	 * taken for one (pandas' to_csv(header=False)); it may as well be data: np.savetxt's
	 * "%g" (with or without a header of column names) writes an
	 * angle table's pair 0 (theta 1) as the positions 0, 1, 2, ... Both are read; the
	 * one closer to the spec is checked (below). A single column left is a list of
	 * frequencies with its index. */
	if (!rc && guessed && dump->cols >= 2) {
		/* both held at once: the second within what the first leaves of the budget
		 * (past it, the index reading stands) */
		struct cli_common o2 = o;
		double held = (double)dump->rows * (double)dump->cols * sizeof(double);
		o2.max_memory = (double)o.max_memory > held ? o.max_memory - (uint64_t)held : 0;
		if (!o2.max_memory || read_dump(&o2, a.against, &alt, alt_desc, sizeof(alt_desc),
		                                &alt_store, &alt_digits, 1, NULL))
			alt = NULL;
	}
	if (!rc)
		find_nan(dump, &a);
	if (!rc && a.vector)
		rc = read_vector(&o, a.vector, &vec);
	/* As in encode: positions are exact up to 2^53, and the dump's rows are
	 * positions --start.. (the rows of an inv_freq dump are not). */
	if (!rc && dump->rows &&
	    (o.start > ((uint64_t)1 << 53) ||
	     (uint64_t)(dump->rows - 1) > ((uint64_t)1 << 53) - o.start))
		rc = cli_usage_error(
		        "option '--start': positions from %llu over the dump's %zu rows "
		        "pass 2^53 (%.0f), the last exact position",
		        (unsigned long long)o.start, dump->rows, PE_POSITION_MAX);
	/* A one-row or one-column dump may be a list of frequencies, without positions,
	 * unless --what or --vector says it is a table (a one-row table is a position). */
	int tabled = a.vector || (a.kind != PE_CHECK_AUTO && a.kind != PE_CHECK_INV_FREQ);
	int freq_list = dump && !tabled && (dump->rows == 1 || dump->cols == 1);
	/* every row a token of the file */
	if (!rc && nids && !freq_list && (o.start >= nids || dump->rows > nids - o.start))
		rc = cli_usage_error("option '--position-ids': the dump's %zu rows from token %llu "
		                     "pass the %zu tokens of '%s'",
		                     dump->rows, (unsigned long long)o.start, nids, o.position_ids);
	if (rc) {
		pe_matrix_destroy(dump);
		pe_matrix_destroy(alt);
		cli_schemes_free(schemes, count);
		return rc;
	}
	double tol = isnan(a.tol) ? default_tol(&a) : a.tol;
	/* float64 itself: one rounding of m theta is half an ulp of the angle, at most the
	 * position; past about 2^21 two ulps of the largest position exceed 1e-9 */
	if (isnan(a.tol) && !a.have_prec)
		tol = fmax(tol, ldexp(1, -51) * ((double)o.start + (double)dump->rows));
	const char *engine_note = NULL;
	double length0 = s->scaling.length;
	if (pe_scheme_has(s, PE_CAP_SCALING)) {
		/* the scheme is this command's own heap object (as encode's) */
		struct pe_scheme *w = (struct pe_scheme *)s;
		pe_engine_apply(a.engine, &w->scaling,
		                freq_list ? 0.0 : (double)o.start + (double)dump->rows,
		                strncmp(o.specs[0], "gguf:", 5) == 0 || strstr(o.specs[0], ".gguf"),
		                &engine_note);
	}
	struct pe_check_options co = {a.kind,
	                              a.packing,
	                              cli_scheme_width(&o, s, 0),
	                              o.start,
	                              vec ? vec->data : NULL,
	                              vec ? vec->rows * vec->cols : 0,
	                              a.prec,
	                              tol,
	                              1,
	                              a.engine,
	                              store,
	                              0,
	                              0};
	if (a.vector)
		co.kind = co.kind == PE_CHECK_AUTO ? PE_CHECK_ROTATED : co.kind;
	digits_slack(&a, &digits, &co);
	/* each reading judged with its own digits and storage */
	struct pe_check_options alt_co = co;
	if (alt) {
		alt_co.dump_store = alt_store;
		digits_slack(&a, &alt_digits, &alt_co);
	}
	if (alt && pick_first_column(s, dump, &co, alt, &alt_co)) {
		pe_matrix_destroy(dump);
		dump = alt;
		alt = NULL;
		memcpy(desc, alt_desc, sizeof(desc));
		store = alt_store;
		digits = alt_digits;
		co = alt_co;
		a.has_nan = 0;
		find_nan(dump, &a);
		append(desc, sizeof(desc),
		       "; its first column (consecutive integers, not named an index) read as "
		       "values: "
		       "as an index the rest is further from the spec");
	} else if (guessed) {
		append(desc, sizeof(desc),
		       "; its first column (consecutive integers, not named an index) skipped as "
		       "an "
		       "index");
	}
	pe_matrix_destroy(alt);
	alt = NULL;
	/* The diagnosis fits its hypotheses on at most 256 rows (a column of frequencies is
	 * one row): its work grows with their values, not with the file's bytes. Over the
	 * budget the verdict still comes, without it. */
	double fit_values = dump->cols == 1 ? (double)dump->rows
	                                    : fmin((double)dump->rows, 256) * (double)dump->cols;
	char no_diag[CLI_TIME_OVER_CAP], no_diag_raise[32] = "";
	if (cli_time_over(&o, fit_values * CLI_COST_CHECK_DIAGNOSE_VALUE, no_diag, sizeof(no_diag),
	                  no_diag_raise, sizeof(no_diag_raise)))
		co.diagnose = 0;
	struct pe_check_result *r = NULL;
	char *err = NULL;
	enum pe_status st = pe_check_run(s, dump, &co, &r, &err);
	if (st == PE_ENOMEM)
		rc = cli_error("checking '%s': out of memory", a.against);
	else if (st == PE_EINVAL || st == PE_EUNSUPPORTED)
		rc = cli_usage_error("'%s': %s", a.against, err ? err : pe_status_str(st));
	else if (st != PE_OK)
		rc = cli_error("'%s': %s", a.against, err ? err : pe_status_str(st));
	free(err);
	err = NULL;
	struct check_notes notes = {engine_note,
	                            length0 == 0 ? s->scaling.length : 0,
	                            0,
	                            NAN,
	                            store,
	                            o.position_ids,
	                            digits,
	                            co.diagnose ? NULL : no_diag,
	                            no_diag_raise};
	/*
	 * The default for a float32/bfloat16 dump: judged at its own precision. If it
	 * disagrees with the exact values but matches a float32 computation of the spec,
	 * and float32's own error is small, it agrees up to float32 rounding.
	 */
	if (!rc && !r->agree && !a.have_prec && isnan(a.tol) &&
	    (store == PE_FLOAT_F32 || store == PE_FLOAT_BF16 || store == PE_FLOAT_F16) &&
	    pe_check_has_model(s)) {
		struct pe_check_options c2 = co;
		struct pe_check_result *r2 = NULL;
		c2.prec = (struct pe_precision){PE_FLOAT_F32, store};
		c2.tol = own_precision_tol(store);
		c2.diagnose = 0;
		/* rotated vectors: float32's own error scales with the input's length too */
		double reach = 1.0;
		for (size_t j = 0; vec && j < vec->rows * vec->cols; j++)
			reach = fmax(reach, M_SQRT2_LOCAL * fabs(vec->data[j]));
		if (pe_check_run(s, dump, &c2, &r2, NULL) == PE_OK && r2->agree &&
		    r->stats.mixed.value <= CHECK_ROUNDING_LIMIT * reach) {
			notes.exact_err = r->stats.abs.value;
			notes.rounded = 1;
			pe_check_result_destroy(r);
			r = r2;
			tol = c2.tol;
			a.prec = c2.prec;
			a.have_prec = 1;
		} else {
			pe_check_result_destroy(r2);
		}
	}
	/*
	 * Else the exact values stored in it, as close as such a file can be: within one
	 * ulp of values just below 1 (twice the storage's rounding), it agrees.
	 */
	if (!rc && !r->agree && !a.have_prec && isnan(a.tol) &&
	    (store == PE_FLOAT_F32 || store == PE_FLOAT_BF16 || store == PE_FLOAT_F16) &&
	    !a.has_nan && r->stats.mixed.value <= storage_tol(store)) {
		r->agree = 1;
		r->diagnosed = 0;
		notes.rounded = 3;
		tol = storage_tol(store);
	}
	/*
	 * Tables of other schemes (sinusoidal, learned) have no float32 model: their float32
	 * rounding is bounded by 8 ulps of the largest angle, the largest position (every
	 * frequency is at most 1), plus the storage's half ulp.
	 */
	if (!rc && !r->agree && !a.have_prec && isnan(a.tol) &&
	    (store == PE_FLOAT_F32 || store == PE_FLOAT_BF16 || store == PE_FLOAT_F16) &&
	    !pe_check_has_model(s)) {
		double last = (double)o.start + (double)r->rows;
		double bound = 8 * ldexp(1, -24) * last + own_precision_tol(store) / 2;
		if (store == PE_FLOAT_F32)
			bound = 8 * ldexp(1, -24) * (1 + last);
		if (bound <= CHECK_ROUNDING_LIMIT && r->stats.mixed.value <= bound) {
			r->agree = 1;
			r->diagnosed = 0;
			notes.rounded = 2;
			notes.exact_err = last;
			tol = bound;
		}
	}
	/* a model's other layer group may be what the dump holds, where no mistake explains
	 * all of it (one that leaves the dump past the tolerance explains part of it) */
	if (!rc && !r->agree && co.diagnose && !a.has_nan &&
	    (!r->diagnosed || r->diag.partial || !diag_within(r, tol)))
		other_group(&o, o.specs[0], &a, dump, &co, store, r);
	/* CSV on standard output (-o -) keeps stdout to itself: the report moves to stderr */
	int csv_stdout = o.output && strcmp(o.output, "-") == 0;
	if (!rc)
		report(csv_stdout ? stderr : stdout, r, s, &a, desc, o.start, tol, &notes);
	if (!rc && o.output) {
		fflush(stdout);
		/* the line over absolute errors, digits allowed for: fixed decimals' at any
		 * value; significant digits' differ by decade, the line is a value's from 0.1
		 * to 1 (cos and sin tables' most) */
		double line = tol + (co.slack_digits ? 0.5 * pow(10, -co.slack_digits) : co.slack);
		if (cli_format_is_figure(format))
			rc = draw(&o, o.output, format, r, s, &a, o.start, line,
			          co.slack_digits ? " (a value from 0.1 to 1)" : "");
		else
			rc = write_table(&o, o.output, format, r, o.start);
	}
	if (!rc && !r->agree)
		rc = CHECK_DISAGREE;
	pe_check_result_destroy(r);
	pe_matrix_destroy(dump);
	pe_matrix_destroy(vec);
	cli_schemes_free(schemes, count);
	return rc;
}
