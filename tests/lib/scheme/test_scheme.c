/* The scheme-spec parser: defaults, every key type, every error class. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/scheme.h>

static struct pe_scheme *parse_ok(const char *spec)
{
	struct pe_scheme *s = NULL;
	char *err = NULL;
	enum pe_status st = pe_scheme_parse(spec, &s, &err);
	if (st != PE_OK)
		fail_msg("'%s' failed: %s", spec, err ? err : "?");
	assert_null(err);
	return s;
}

/* Parses a bad spec; checks the status and that the message holds @needle. */
static void parse_bad(const char *spec, enum pe_status want, const char *needle)
{
	struct pe_scheme *s = (struct pe_scheme *)1;
	char *err = NULL;
	enum pe_status st = pe_scheme_parse(spec, &s, &err);
	if (st != want)
		fail_msg("'%s': status %d, want %d (%s)", spec, st, want, err ? err : "");
	assert_null(s);
	assert_non_null(err);
	if (!strstr(err, needle))
		fail_msg("'%s': message '%s' lacks '%s'", spec, err, needle);
	free(err);
}

static void defaults(void **state)
{
	(void)state;
	struct pe_scheme *s = parse_ok("sinusoidal");
	assert_string_equal(pe_scheme_name(s), "sinusoidal");
	assert_true(s->base == 10000.0);
	assert_int_equal(s->layout, PE_LAYOUT_INTERLEAVED);
	assert_int_equal(s->freq, PE_FREQ_PAPER);
	assert_true(s->start == 0.0);
	assert_string_equal(s->canonical, "sinusoidal");
	assert_string_equal(s->label, "sinusoidal");
	pe_scheme_destroy(s);

	s = parse_ok("rope");
	assert_true(s->rotary == 1.0);
	assert_int_equal(s->scaling.type, PE_ROPE_SCALING_NONE);
	pe_scheme_destroy(s);

	s = parse_ok("learned");
	assert_true(s->std == 0.02);
	assert_int_equal(s->seed, 0);
	assert_true(pe_scheme_is_untrained(s));
	assert_non_null(strstr(s->label, "untrained"));
	pe_scheme_destroy(s);

	s = parse_ok("alibi");
	assert_int_equal(s->heads, 8);
	assert_int_equal(s->form, PE_ALIBI_PAPER);
	assert_false(pe_scheme_is_vector(s));
	pe_scheme_destroy(s);

	s = parse_ok("t5");
	assert_int_equal(s->buckets, 32);
	assert_int_equal(s->max_distance, 128);
	assert_int_equal(s->bidirectional, 1);
	pe_scheme_destroy(s);
}

static void keys_and_canonical_text(void **state)
{
	(void)state;
	struct pe_scheme *s = parse_ok("sinusoidal:base=10,layout=blocks,freq=t2t,start=2");
	assert_true(s->base == 10.0);
	assert_int_equal(s->layout, PE_LAYOUT_BLOCKS);
	assert_int_equal(s->freq, PE_FREQ_T2T);
	assert_true(s->start == 2.0);
	assert_string_equal(s->canonical, "sinusoidal base=10 layout=blocks freq=t2t start=2");
	pe_scheme_destroy(s);

	/* Canonical text is independent of key order and number spelling. */
	s = parse_ok("sinusoidal:start=2.0,base=1e1");
	assert_string_equal(s->canonical, "sinusoidal base=10 start=2");
	pe_scheme_destroy(s);

	s = parse_ok("rope:layout=half,rotary=0.25,base=500000,label=GPT-NeoX");
	assert_int_equal(s->layout, PE_LAYOUT_HALF);
	assert_true(s->rotary == 0.25);
	assert_string_equal(s->label, "GPT-NeoX");
	assert_string_equal(s->canonical, "rope base=500000 layout=half rotary=0.25");
	pe_scheme_destroy(s);

	s = parse_ok("learned:seed=18446744073709551615,std=0.01");
	assert_true(s->seed == UINT64_MAX);
	assert_true(s->std == 0.01);
	pe_scheme_destroy(s);

	s = parse_ok("alibi:heads=12,form=official");
	assert_int_equal(s->heads, 12);
	assert_int_equal(s->form, PE_ALIBI_OFFICIAL);
	pe_scheme_destroy(s);

	s = parse_ok("t5:buckets=32,max-distance=128,bidirectional=false");
	assert_int_equal(s->bidirectional, 0);
	pe_scheme_destroy(s);
}

static void rope_scalings(void **state)
{
	(void)state;
	struct pe_scheme *s = parse_ok("rope:scaling=llama3,base=500000");
	struct pe_rope_scaling_params *r = &s->scaling;
	assert_int_equal(r->type, PE_ROPE_SCALING_LLAMA3);
	/* Llama 3.1's config is the default. */
	assert_true(r->factor == 8.0 && r->original == 8192.0);
	assert_true(r->low_freq_factor == 1.0 && r->high_freq_factor == 4.0);
	pe_scheme_destroy(s);

	s = parse_ok("rope:scaling=yarn,factor=4,original=4096,beta-fast=32,beta-slow=1,"
	             "mscale=1,mscale-all-dim=1,truncate=0,attention-factor=1.5");
	r = &s->scaling;
	assert_int_equal(r->type, PE_ROPE_SCALING_YARN);
	assert_true(r->factor == 4.0 && r->original == 4096.0);
	assert_true(r->mscale == 1.0 && r->mscale_all_dim == 1.0);
	assert_int_equal(r->truncate, 0);
	assert_true(r->attention_factor == 1.5);
	pe_scheme_destroy(s);

	/* llama.cpp's rope.scaling.attn_factor applies without YaRN too */
	s = parse_ok("rope:scaling=linear,factor=8,attention-factor=1.5");
	assert_true(s->scaling.factor == 8.0 && s->scaling.attention_factor == 1.5);
	pe_scheme_destroy(s);
	s = parse_ok("rope:scaling=none,attention-factor=0.5");
	assert_true(s->scaling.attention_factor == 0.5);
	pe_scheme_destroy(s);

	s = parse_ok("rope:scaling=yarn");
	assert_true(isnan(s->scaling.attention_factor));
	assert_true(s->scaling.beta_fast == 32.0 && s->scaling.beta_slow == 1.0);
	assert_int_equal(s->scaling.truncate, 1);
	pe_scheme_destroy(s);

	s = parse_ok("rope:scaling=dynamic,factor=2,original=4096,length=8192");
	assert_true(s->scaling.length == 8192.0);
	pe_scheme_destroy(s);

	s = parse_ok("rope:scaling=longrope,long-factor=1/2/3,short-factor=1/1/1.5,factor=32");
	assert_int_equal(s->scaling.n_long_factor, 3);
	assert_true(s->scaling.long_factor[2] == 3.0);
	assert_true(s->scaling.short_factor[2] == 1.5);
	struct pe_scheme *c = NULL;
	assert_int_equal(pe_scheme_copy(s, &c), PE_OK);
	assert_true(c->scaling.long_factor != s->scaling.long_factor);
	assert_true(c->scaling.long_factor[1] == 2.0);
	assert_string_equal(c->canonical, s->canonical);
	pe_scheme_destroy(s);
	pe_scheme_destroy(c);
}

static void longrope_factors_from_file(void **state)
{
	(void)state;
	char path[] = "/tmp/posenc-test-factorsXXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("[1.0, 1.25,\n 2.5]\n", f);
	fclose(f);
	char spec[128];
	snprintf(spec, sizeof(spec), "rope:scaling=longrope,long-factor=@%s,short-factor=1/1/1",
	         path);
	struct pe_scheme *s = parse_ok(spec);
	assert_int_equal(s->scaling.n_long_factor, 3);
	assert_true(s->scaling.long_factor[1] == 1.25);
	pe_scheme_destroy(s);
	remove(path);
	parse_bad("rope:scaling=longrope,long-factor=@/nonexistent/x,short-factor=1", PE_EIO,
	          "/nonexistent/x");
}

static void file_forms(void **state)
{
	(void)state;
	struct pe_scheme *s = parse_ok("file:path=gpt2.safetensors,tensor=wpe.weight,rows=2:1026");
	assert_string_equal(pe_scheme_name(s), "file");
	assert_string_equal(s->path, "gpt2.safetensors");
	assert_string_equal(s->tensor, "wpe.weight");
	assert_int_equal(s->row_first, 2);
	assert_int_equal(s->row_end, 1026);
	assert_true(s->row_end_set);
	pe_scheme_destroy(s);

	s = parse_ok("model.safetensors#transformer.wpe.weight");
	assert_string_equal(s->path, "model.safetensors");
	assert_string_equal(s->tensor, "transformer.wpe.weight");
	pe_scheme_destroy(s);

	s = parse_ok("table.npy");
	assert_string_equal(s->path, "table.npy");
	assert_null(s->tensor);
	pe_scheme_destroy(s);

	s = parse_ok("file:path=x.csv,rows=2:");
	assert_int_equal(s->row_first, 2);
	assert_false(s->row_end_set);
	pe_scheme_destroy(s);
}

static void errors_name_the_key(void **state)
{
	(void)state;
	parse_bad("", PE_EINVAL, "empty scheme name");
	parse_bad("sinusodal", PE_EINVAL, "unknown scheme 'sinusodal'");
	parse_bad("sinusoidal:bse=10", PE_EINVAL, "unknown key 'bse' for sinusoidal");
	parse_bad("sinusoidal:bse=10", PE_EINVAL, "known: base, layout, freq, start, label");
	parse_bad("sinusoidal:base", PE_EINVAL, "'base' is not key=value");
	parse_bad("sinusoidal:=3", PE_EINVAL, "has no key");
	parse_bad("sinusoidal:", PE_EINVAL, "nothing after ':'");
	parse_bad("sinusoidal:base=10,", PE_EINVAL, "empty key=value");
	parse_bad("sinusoidal:base=10,,layout=blocks", PE_EINVAL, "empty key=value");
	parse_bad("sinusoidal:base=10,base=20", PE_EINVAL, "key 'base' is given twice");
	/* Malformed numbers. */
	parse_bad("sinusoidal:base=abc", PE_EINVAL, "key 'base': 'abc' is not a number");
	parse_bad("sinusoidal:base=10x", PE_EINVAL, "key 'base'");
	parse_bad("sinusoidal:base=", PE_EINVAL, "key 'base'");
	parse_bad("sinusoidal:base= 10", PE_EINVAL, "key 'base'");
	/* Out of range. */
	parse_bad("sinusoidal:base=1", PE_ERANGE, "key 'base': 1 must be > 1");
	parse_bad("sinusoidal:base=0.5", PE_ERANGE, "key 'base'");
	parse_bad("sinusoidal:base=-10", PE_ERANGE, "key 'base'");
	parse_bad("sinusoidal:base=nan", PE_ERANGE, "key 'base'");
	parse_bad("sinusoidal:base=inf", PE_ERANGE, "key 'base'");
	parse_bad("sinusoidal:base=1e999", PE_ERANGE, "key 'base'");
	parse_bad("sinusoidal:start=-1", PE_ERANGE, "key 'start'");
	parse_bad("sinusoidal:start=1.5", PE_EINVAL, "key 'start'");
	parse_bad("rope:rotary=0", PE_ERANGE, "key 'rotary'");
	parse_bad("rope:rotary=1.5", PE_ERANGE, "key 'rotary'");
	parse_bad("learned:std=0", PE_ERANGE, "key 'std'");
	parse_bad("learned:std=-0.02", PE_ERANGE, "key 'std'");
	parse_bad("learned:seed=-1", PE_EINVAL, "key 'seed'");
	parse_bad("learned:seed=18446744073709551616", PE_ERANGE, "key 'seed'");
	parse_bad("alibi:heads=0", PE_ERANGE, "key 'heads'");
	parse_bad("alibi:heads=-3", PE_EINVAL, "key 'heads'");
	parse_bad("alibi:heads=2.5", PE_EINVAL, "key 'heads'");
	parse_bad("t5:buckets=1", PE_ERANGE, "key 'buckets'");
	parse_bad("t5:buckets=3", PE_ERANGE, "key 'buckets'");
	parse_bad("t5:max-distance=4", PE_ERANGE, "key 'max-distance'");
	parse_bad("t5:bidirectional=maybe", PE_EINVAL, "key 'bidirectional'");
	/* Enumerations list their choices. */
	parse_bad("sinusoidal:layout=half", PE_EINVAL, "one of interleaved, blocks");
	parse_bad("rope:layout=blocks", PE_EINVAL, "one of interleaved, half");
	parse_bad("sinusoidal:freq=fairseq", PE_EINVAL, "key 'freq'");
	parse_bad("rope:scaling=xpos", PE_EINVAL, "key 'scaling'");
	parse_bad("alibi:form=mpt", PE_EINVAL, "key 'form'");
	/* Keys of another scheme, and combinations a scheme cannot do. */
	parse_bad("sinusoidal:rotary=0.5", PE_EINVAL, "unknown key 'rotary' for sinusoidal");
	parse_bad("binary:base=10", PE_EINVAL, "unknown key 'base' for binary");
	parse_bad("rope:factor=2", PE_EINVAL, "key 'factor' needs scaling=");
	parse_bad("rope:scaling=linear,beta-fast=16", PE_EINVAL,
	          "key 'beta-fast' needs scaling=yarn");
	parse_bad("rope:scaling=yarn,low=2", PE_EINVAL, "key 'low' needs scaling=llama3");
	parse_bad("rope:scaling=dynamic,attention-factor=1.5", PE_EINVAL,
	          "key 'attention-factor' needs scaling=none|linear|yarn|longrope");
	parse_bad("rope:scaling=llama3,attention-factor=1.5", PE_EINVAL,
	          "key 'attention-factor' needs scaling=none|linear|yarn|longrope");
	/* high <= low is accepted: transformers warns and computes it (Llama 4 Scout
	 * publishes low = high = 1); a zero factor is not */
	pe_scheme_destroy(parse_ok("rope:scaling=llama3,low=4,high=2"));
	pe_scheme_destroy(parse_ok("rope:scaling=llama3,low=1,high=1"));
	parse_bad("rope:scaling=llama3,high=0", PE_ERANGE, "key 'high'");
	parse_bad("rope:scaling=linear,factor=0", PE_ERANGE, "key 'factor'");
	parse_bad("rope:scaling=longrope", PE_EINVAL, "long-factor");
	parse_bad("rope:scaling=longrope,long-factor=1/x,short-factor=1", PE_EINVAL, "'x'");
	parse_bad("rope:scaling=longrope,long-factor=1/-2,short-factor=1", PE_ERANGE,
	          "long-factor");
	parse_bad("file:tensor=wpe.weight", PE_EINVAL, "key 'path'");
	parse_bad("file:path=x.npy,rows=5:2", PE_ERANGE, "key 'rows'");
	parse_bad("file:path=x.npy,rows=abc", PE_EINVAL, "key 'rows'");
	parse_bad("x.safetensors#", PE_EINVAL, "tensor name");
}

static void destroy_accepts_null(void **state)
{
	(void)state;
	pe_scheme_destroy(NULL);
	struct pe_scheme *s = parse_ok("t5");
	assert_string_equal(pe_scheme_name(s), "t5");
	pe_scheme_destroy(s);
	s = parse_ok("binary");
	assert_int_equal(pe_scheme_set_label(s, "bits"), PE_OK);
	assert_string_equal(s->label, "bits");
	pe_scheme_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(defaults),
	        cmocka_unit_test(keys_and_canonical_text),
	        cmocka_unit_test(rope_scalings),
	        cmocka_unit_test(longrope_factors_from_file),
	        cmocka_unit_test(file_forms),
	        cmocka_unit_test(errors_name_the_key),
	        cmocka_unit_test(destroy_accepts_null),
	};
	return cmocka_run_group_tests_name("scheme", tests, NULL, NULL);
}
