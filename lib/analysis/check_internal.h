/*
 * Private interface of posenc check (check.c, check_form.c,
 * check_diagnose.c): the model a dump is compared with and how its rows
 * are made.
 */
#ifndef POSENC_CHECK_INTERNAL_H
#define POSENC_CHECK_INTERNAL_H

#include <stddef.h>

#include <posenc/check.h>
#include <posenc/precision.h>

/*
 * How a float32 table is computed (check_ggml.c has the second):
 * TORCH: inv_freq = 1 / base^(arange / d) once, angle = position x inv_freq
 * (transformers, vLLM, Meta); GGML: theta_scale = powf(base, -2/n_dims), the
 * angle of pair i the position times theta_scale multiplied i times in
 * float32, divided by the pair's freq_factor, YaRN mixed in float32
 * (ggml-cpu ops.cpp: ggml_rope_cache_init, rope_yarn); VLLM: torch's, but
 * linear scaling divides the float32 positions by the factor instead of
 * inv_freq (LinearScalingRotaryEmbedding: t = arange(max_len) / factor),
 * which rounds the angles otherwise; the same as TORCH for other scalings.
 * VLLM_CUDA: VLLM's as torch computes it on a GPU, where vLLM builds its
 * caches (base.py: "we create the cache on GPU"): a tensor divided by a
 * Python number is a product by the number's float32 reciprocal
 * (div_true_kernel_cuda), in arange / rotary_dim, the positions over the
 * linear factor and the llama3 and YaRN steps.
 */
enum check_path {
	CHECK_PATH_TORCH,
	CHECK_PATH_GGML,
	CHECK_PATH_VLLM,
	CHECK_PATH_VLLM_CUDA,
	CHECK_PATH_COUNT
};

/* ggml's per-call parameters, as llama.cpp passes them to ggml_rope_ext. */
struct check_ggml {
	float theta_scale;
	float *ff;        /* d_rot/2 freq_factors, or NULL */
	float freq_scale; /* 1 / factor (linear, yarn) */
	float ext_factor; /* yarn: 1 */
	float corr[2];    /* yarn: the correction range */
	float mscale;     /* the amplitude of cos and sin */
	int fma;          /* yarn's mix as ggml built with FMA contraction computes it */
};

/* What a dump is compared with: a rope model, or the scheme's own table. */
struct check_model {
	const struct pe_scheme *s;
	int is_rope;
	struct pe_rope_model rope; /* is_rope */
	double offset;             /* added to every position (a position-offset hypothesis) */
	int swap_cs;               /* cos-sin: sin where cos belongs and back */
	int ggml;                  /* the GGML path: rope.theta unused for positions */
	struct check_ggml g;
	double pos_scale; /* positions times this (2: rotated twice); 0 or 1: as they are */
	int pos_bf16;     /* positions rounded to bfloat16 before the product */
	double chunk;     /* > 0: positions restart at 0 every chunk rows */
	double pos_div;   /* > 0: float32 positions divided by this (the VLLM path) */
	int pos_recip;    /* pos_div as a product by its float32 reciprocal (VLLM_CUDA) */
	/*
	 * M-RoPE: pair i turns with id axis[i] (0 t, 1 h, 2 w, 3 ggml's fourth: 0) of the row's
	 * token, each id going through the changes above as a 1-D position does; NULL: one position
	 * per row
	 */
	unsigned char *axis;
	int sequential;          /* M-RoPE: every token at t = h = w = its index (1-D positions) */
	struct pe_scheme *own_s; /* a shallow copy of s with another tstep (freed alone), or NULL */
};

/* A hypothesis: the spec's model with some parameters changed. */
struct check_hyp {
	double base;                           /* 0: the scheme's */
	double exponent_width;                 /* 0: the rotary width */
	struct pe_rope_scaling_params scaling; /* shallow copy of the scheme's, maybe changed */
	enum pe_layout layout;
	struct pe_precision prec;
	double att; /* NaN: the model's */
	double offset;
	int swap_cs;
	double rotary;        /* 0: the scheme's rotary fraction */
	enum check_path path; /* TORCH unless prec.compute is float32 and GGML asked for */
	/* porting mistakes that change the positions or the frequency buffer */
	double pos_scale;          /* 0: 1 */
	int pos_bf16;              /* position_ids in bfloat16 */
	double chunk;              /* > 0: positions restart at 0 every chunk */
	int theta_bf16;            /* inv_freq rounded to bfloat16 */
	const unsigned char *zero; /* d_rot/2 flags: pairs whose frequency is 0; NULL: none */
	/* M-RoPE: the pairs of each axis and how they are assigned (the spec's in the
	 * reference), and the token index used as every id */
	unsigned mrope_pairs[3];
	int mrope_interleaved;
	int sequential;
	int ggml_axes; /* M-RoPE: llama.cpp's axis rule (its fourth position, 0, past the
	                  interleaved sections); transformers' otherwise */
	double tstep;  /* M-RoPE: temporal ids per video frame; 0: the scheme's */
};

/* Whether @s is the mrope scheme: RoPE whose pairs turn with one of three ids per token. */
int check_is_mrope(const struct pe_scheme *s);

/* The GGML path of a model already built for @h (float32 compute): fills m->g. */
enum pe_status check_ggml_init(struct check_model *m, const struct pe_scheme *s,
                               const struct check_hyp *h);

/* Angle, cos and sin of every pair at @pos as ggml computes them (check_ggml.c). */
void check_ggml_pairs(const struct check_model *m, double pos, double *ang, double *c, double *s);

/*
 * Whether vLLM's GPU path computes the float32 model of @h otherwise than
 * its CPU path (a rotary width, linear factor or llama3/YaRN divisor that is
 * not a power of two); 0 when either cannot be built.
 */
int check_cuda_differs(const struct pe_scheme *s, size_t d, const struct check_hyp *h);

/* The paths an engine's float32 tables take (bit 1 << enum check_path). */
unsigned check_engine_paths(enum pe_engine e);

/* The name of a path for reports ("ggml's theta_scale product (llama.cpp)"). */
const char *check_path_text(enum check_path p);

/* The hypothesis that changes nothing (the reference of @opt). */
void check_hyp_reference(const struct pe_scheme *s, const struct pe_check_options *opt,
                         struct check_hyp *h);

/* Builds the model of a hypothesis; free with check_model_free(). */
enum pe_status check_model_build(const struct pe_scheme *s, size_t d, const struct check_hyp *h,
                                 struct check_model *m);
void check_model_free(struct check_model *m);

/*
 * Scratch for check_expected_row(): 3 * (d + cols) + 3 doubles, at least
 * 6 d_rot/2 + 3: the pairs, and one M-RoPE axis's pairs.
 */
size_t check_work_size(const struct pe_check_form *f);

/*
 * Angle, cos and sin of every pair at dump row @r (token start + r) as the
 * model computes them, each pair at its own position (M-RoPE's ids and the
 * model's changes of them). @tmp: 3 d_rot/2 doubles (M-RoPE only).
 * @return PE_OK, PE_ERANGE past the M-RoPE ids.
 */
enum pe_status check_model_pairs(const struct check_model *m, uint64_t start, size_t r, double *ang,
                                 double *c, double *s, double *tmp);

/*
 * The row a form expects at dump row @r (position start + r + offset).
 * @x: the rotated vector (d values) or NULL for ones. @row: f->cols doubles.
 * @return PE_OK or the errors of pe_encode_rows() (table kind).
 */
enum pe_status check_expected_row(const struct check_model *m, const struct pe_check_form *f,
                                  uint64_t start, size_t r, const double *x, double *work,
                                  double *row);

/*
 * The dump against a model over rows @idx[0..nidx-1] (all rows if idx is
 * NULL and nidx is the row count). Per-row arrays may be NULL. @sum_sq:
 * if not NULL, the sum of squared errors (NaN counted as 1e300) and @count.
 */
enum pe_status check_compare(const struct check_model *m, const struct pe_check_form *f,
                             const struct pe_matrix *dump, const struct pe_check_options *opt,
                             const size_t *idx, size_t nidx, struct pe_check_stats *st,
                             double *row_abs, double *row_rel, size_t *row_col, double *sum_sq);

/* Forms a dump of this shape can be (recognition candidates); returns how many. */
size_t check_candidate_forms(const struct pe_scheme *s, const struct pe_matrix *dump,
                             const struct pe_check_options *opt, struct pe_check_form *out,
                             size_t cap);

/* Whether a form's columns depend on the layout (a swapped pairing can show). */
int check_form_has_layout(const struct pe_check_form *f, size_t d_rot);

#define CHECK_NO_PAIR ((size_t)-1)
/* cos, sin, rotated: relative errors only where |value| > this (posenc/check.h) */
#define CHECK_REL_FLOOR  0.1
#define CHECK_FIT_FIRST  32
#define CHECK_FIT_SPREAD 16

/* The pair whose values column j of a form holds, or CHECK_NO_PAIR (a column that does not rotate).
 */
size_t check_column_pair(const struct pe_check_form *f, const struct check_model *m, size_t j);

/* Sum of squared errors of each column over rows idx (col_ss: f->cols doubles). */
enum pe_status check_column_errors(const struct check_model *m, const struct pe_check_form *f,
                                   const struct pe_matrix *dump, const struct pe_check_options *opt,
                                   const size_t *idx, size_t nidx, double *col_ss);

/* The rows fits use: the first CHECK_FIT_FIRST and CHECK_FIT_SPREAD spread over the rest. */
size_t check_fit_rows(size_t rows, size_t *idx);

/*
 * A reduced-precision model: each pair's frequency may be up to two units in
 * the last place either side of the correctly rounded value (libraries'
 * float32 pow are not all correctly rounded, and 1 / p rounds again); keep, per pair, the one that
 * fits the dump best on rows idx. Nothing happens for exact and float64 models.
 */
enum pe_status check_fit_last_bits(struct check_model *m, const struct pe_check_form *f,
                                   const struct pe_matrix *dump, const struct pe_check_options *opt,
                                   const size_t *idx, size_t nidx);

/* The diagnosis: fills r->diag and r->diagnosed when a mistake explains the dump better;
 * @cuda: vLLM's GPU float32 path differs from torch's for this spec (check_cuda_differs). */
enum pe_status check_diagnose(const struct pe_scheme *s, const struct pe_matrix *dump,
                              const struct pe_check_options *opt, int cuda,
                              struct pe_check_result *r);

#endif
