/*
 * The engine registry (pe_engine_parse, pe_engine_apply), ggml's float32 path in
 * pe_check_run, and LongRoPE's float32 factors in pe_rope_model_init, against values
 * computed here in float arithmetic the way each engine's source does.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/check.h>
#include <posenc/precision.h>
#include <posenc/rope.h>
#include <posenc/scheme.h>

static struct pe_scheme *parse(const char *spec)
{
	struct pe_scheme *s = NULL;
	assert_int_equal(pe_scheme_parse(spec, &s, NULL), PE_OK);
	return s;
}

static void engine_names(void **state)
{
	(void)state;
	enum pe_engine e;
	assert_int_equal(pe_engine_parse("hf", &e), PE_OK);
	assert_int_equal(e, PE_ENGINE_HF);
	assert_int_equal(pe_engine_parse("transformers", &e), PE_OK);
	assert_int_equal(e, PE_ENGINE_HF);
	assert_int_equal(pe_engine_parse("vllm", &e), PE_OK);
	assert_int_equal(e, PE_ENGINE_VLLM);
	assert_int_equal(pe_engine_parse("llama.cpp", &e), PE_OK);
	assert_int_equal(e, PE_ENGINE_LLAMACPP);
	assert_int_equal(pe_engine_parse("ggml", &e), PE_OK);
	assert_int_equal(e, PE_ENGINE_LLAMACPP);
	assert_int_equal(pe_engine_parse("tgi", &e), PE_EINVAL);
	assert_string_equal(pe_engine_name(PE_ENGINE_LLAMACPP), "llama.cpp");
}

static void engine_semantics(void **state)
{
	(void)state;
	struct pe_scheme *s = parse("rope:scaling=dynamic,factor=4,original=4096");
	struct pe_rope_scaling_params p = s->scaling;
	const char *note = NULL;
	/* transformers: the sequence length */
	assert_int_equal(pe_engine_apply(PE_ENGINE_HF, &p, 6144, 0, &note), PE_OK);
	assert_true(p.length == 6144 && note == NULL);
	/* vLLM: max_position x factor */
	p = s->scaling;
	assert_int_equal(pe_engine_apply(PE_ENGINE_VLLM, &p, 512, 0, &note), PE_OK);
	assert_true(p.length == 16384 && note != NULL);
	/* llama.cpp: no dynamic NTK */
	p = s->scaling;
	assert_int_equal(pe_engine_apply(PE_ENGINE_LLAMACPP, &p, 512, 0, &note), PE_OK);
	assert_int_equal(p.type, PE_ROPE_SCALING_NONE);
	pe_scheme_destroy(s);

	s = parse("rope:scaling=yarn,factor=32,original=4096,truncate=0");
	p = s->scaling;
	assert_int_equal(pe_engine_apply(PE_ENGINE_LLAMACPP, &p, 512, 0, &note), PE_OK);
	assert_true(p.truncate == 1 && note != NULL);
	p = s->scaling;
	assert_int_equal(pe_engine_apply(PE_ENGINE_HF, &p, 512, 0, &note), PE_OK);
	assert_true(p.truncate == 0);
	pe_scheme_destroy(s);

	/* llama.cpp computes YaRN's attention factor itself, unless the GGUF gives it */
	s = parse("rope:scaling=yarn,factor=32,original=4096,attention-factor=1");
	p = s->scaling;
	assert_int_equal(pe_engine_apply(PE_ENGINE_LLAMACPP, &p, 512, 0, &note), PE_OK);
	assert_true(isnan(p.attention_factor));
	p = s->scaling;
	assert_int_equal(pe_engine_apply(PE_ENGINE_LLAMACPP, &p, 512, 1, &note), PE_OK);
	assert_true(p.attention_factor == 1);
	pe_scheme_destroy(s);

	/* an explicit length stays */
	s = parse("rope:scaling=dynamic,factor=4,original=4096,length=8192");
	p = s->scaling;
	assert_int_equal(pe_engine_apply(PE_ENGINE_VLLM, &p, 512, 0, &note), PE_OK);
	assert_true(p.length == 8192);
	pe_scheme_destroy(s);
}

/* ggml_rope_cache_init in float arithmetic: [cos_0..cos_h | sin_0..sin_h] per position. */
static struct pe_matrix *ggml_table(float base, size_t n_dims, size_t rows)
{
	size_t h = n_dims / 2;
	struct pe_matrix *m = pe_matrix_create(rows, n_dims);
	float ts = (float)pow((double)base, (double)(-2.0f / (float)n_dims));
	for (size_t r = 0; r < rows; r++) {
		float theta = (float)r;
		for (size_t i = 0; i < h; i++) {
			m->data[r * n_dims + i] = (double)(float)cos((double)theta);
			m->data[r * n_dims + h + i] = (double)(float)sin((double)theta);
			theta *= ts;
		}
	}
	return m;
}

static void ggml_path(void **state)
{
	(void)state;
	struct pe_scheme *s = parse("rope:layout=half,base=10000");
	struct pe_matrix *dump = ggml_table(10000.0f, 64, 512);
	struct pe_check_options o;
	memset(&o, 0, sizeof(o));
	o.kind = PE_CHECK_COS_SIN;
	o.packing = PE_PACK_PAIRS;
	o.d = 64;
	o.prec = (struct pe_precision){PE_FLOAT_F32, PE_FLOAT_F32};
	o.tol = 4 * ldexp(1, -23);
	o.engine = PE_ENGINE_LLAMACPP;
	struct pe_check_result *r = NULL;
	assert_int_equal(pe_check_run(s, dump, &o, &r, NULL), PE_OK);
	assert_true(r->agree);
	assert_non_null(r->path);
	pe_check_result_destroy(r);
	/* torch's path only: the ggml table is 1e-5 away at position 511 */
	o.engine = PE_ENGINE_HF;
	assert_int_equal(pe_check_run(s, dump, &o, &r, NULL), PE_OK);
	assert_false(r->agree);
	assert_true(r->stats.abs.value > 1e-6);
	pe_check_result_destroy(r);
	pe_matrix_destroy(dump);
	pe_scheme_destroy(s);
}

/* HF/vLLM: 1 / (float32(ext) * float32(base ** (arange / d))), every step in float32. */
static void longrope_float32_factors(void **state)
{
	(void)state;
	struct pe_scheme *s = parse("rope:base=10000,scaling=longrope,factor=32,original=4096,"
	                            "short-factor=1.0137/1.0271/1.0409/1.0551,"
	                            "long-factor=1.5/2.5/3.5/4.5");
	struct pe_rope_model m;
	assert_int_equal(pe_rope_model_init(&m, s, 8,
	                                    (struct pe_precision){PE_FLOAT_F32, PE_FLOAT_F32}, 0, 0,
	                                    NULL),
	                 PE_OK);
	static const double ext[] = {1.0137, 1.0271, 1.0409, 1.0551};
	for (size_t i = 0; i < 4; i++) {
		float e = (float)(2 * i) / 8.0f;
		float p = (float)pow(10000.0, (double)e);
		float want = 1.0f / ((float)ext[i] * p);
		assert_true(m.theta[i] == (double)want);
	}
	pe_rope_model_free(&m);
	pe_scheme_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(engine_names),
	        cmocka_unit_test(engine_semantics),
	        cmocka_unit_test(ggml_path),
	        cmocka_unit_test(longrope_float32_factors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
