/* posenc bias: ALiBi bias tensors (heads x n x n) and T5 bucket maps (n x n). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <posenc/bias.h>

#include "cli.h"
#include "commands.h"
#include "output.h"

static const char help[] =
	"Usage: posenc bias [-s SPEC] [-n N] [-o FILE]\n"
	"\n"
	"Attention-bias matrices over query positions 0..n-1 (rows) and keys (columns).\n"
	"  alibi  per head h, slopes as the official get_slopes (any head count):\n"
	"         form=paper -m_h (i - j), form=official m_h j; keys after the query -inf.\n"
	"         CSV: long format head,query,key,bias; NPY: shape (heads, n, n).\n"
	"  t5     the bucket of key - query as T5's _relative_position_bucket\n"
	"         (bidirectional=1 encoder, 0 decoder); CSV and NPY (n, n).\n"
	"\n"
	"Options:\n"
	"%s"
	"\n"
	"Defaults: -s alibi -n 16 -o bias.png\n"
	"Example: posenc bias -s alibi:heads=12 -n 64 -o alibi.npy\n";

/* The long CSV of a heads x n x n tensor stored as (heads * n) x n. */
static int write_long_csv(const struct cli_common *o, const char *path, const struct pe_matrix *m,
			  size_t heads, size_t n)
{
	struct cli_file file;
	int rc = cli_file_open(&file, path);
	if (rc)
		return rc;
	int bad = fputs("head,query,key,bias\n", file.f) < 0;
	char num[32];
	for (size_t h = 0; h < heads && !bad; h++)
		for (size_t i = 0; i < n && !bad; i++)
			for (size_t j = 0; j < n && !bad; j++) {
				pe_csv_format(m->data[(h * n + i) * n + j], num);
				bad = fprintf(file.f, "%zu,%zu,%zu,%s\n", h, i, j, num) < 0;
			}
	if (bad) {
		int e = errno;
		cli_file_abort(&file);
		return cli_error("writing '%s' failed: %s",
				 strcmp(path, "-") == 0 ? "standard output" : path, strerror(e));
	}
	if ((rc = cli_file_commit(&file)))
		return rc;
	char what[96];
	snprintf(what, sizeof(what), "%zu x %zu x %zu long table", heads, n, n);
	cli_report_written(o, path, what);
	return 0;
}

static int write_npy3(const struct cli_common *o, const char *path, const struct pe_matrix *m,
		      size_t heads, size_t n)
{
	struct cli_file file;
	int rc = cli_file_open(&file, path);
	if (rc)
		return rc;
	size_t shape[3] = {heads, n, n};
	enum pe_status st = pe_npy_write(file.f, m->data, shape, 3, o->dtype);
	if (st != PE_OK) {
		int e = errno;
		cli_file_abort(&file);
		return cli_error("writing '%s' failed: %s", path,
				 st == PE_EIO ? strerror(e) : pe_status_str(st));
	}
	if ((rc = cli_file_commit(&file)))
		return rc;
	char what[96];
	snprintf(what, sizeof(what), "%zu x %zu x %zu %s array", heads, n, n,
		 o->dtype == PE_DTYPE_F32 ? "float32" : "float64");
	cli_report_written(o, path, what);
	return 0;
}

static int run(const struct cli_common *o, const struct pe_scheme *s, size_t n, const char *path,
	       enum cli_format format)
{
	size_t heads = s->kind == PE_SCHEME_ALIBI ? s->heads : 1;
	char what[128];
	snprintf(what, sizeof(what), "the %zu x %zu x %zu bias", heads, n, n);
	int rc = cli_check_memory(o, (double)heads * (double)n * (double)n * 8.0, what,
				  "ask for fewer positions (-n)");
	if (rc)
		return rc;
	struct pe_matrix *m = NULL;
	enum pe_status st = s->kind == PE_SCHEME_ALIBI ? pe_alibi_bias(s, n, &m)
						       : pe_t5_bucket_map(s, n, &m);
	if (st == PE_ENOMEM || st == PE_ETOOBIG)
		return cli_error("%s: %s", what, pe_status_str(st));
	if (st != PE_OK)
		return cli_usage_error("scheme '%s': %s", s->canonical, pe_status_str(st));
	if (s->kind == PE_SCHEME_T5) {
		struct pe_axis rows = {"query", 0.0, 1.0, NULL};
		struct pe_axis cols = {NULL, 0.0, 1.0, NULL};
		rc = cli_write_matrix(o, path, format, m, &rows, &cols);
	} else if (format == CLI_FORMAT_NPY) {
		rc = write_npy3(o, path, m, heads, n);
	} else {
		rc = write_long_csv(o, path, m, heads, n);
	}
	pe_matrix_destroy(m);
	return rc;
}

int cmd_bias(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_COMMON_LONG,
		{NULL, 0, NULL, 0},
	};
	struct cli_common o;
	cli_common_init(&o);
	int opt, rc;
	while ((opt = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, NULL)) != -1) {
		rc = cli_common_option(&o, opt, optarg, argv);
		if (rc == 1)
			rc = cli_usage_error("unknown option '%s'", argv[optind - 1]);
		if (rc)
			return rc;
	}
	if (o.help) {
		printf(help, cli_common_help);
		return CLI_OK;
	}
	if ((rc = cli_no_operands(argc, argv)))
		return rc;
	if (o.d || o.start)
		return cli_usage_error("options '-d' and '--start' do not apply to attention "
				       "biases (positions are 0..n-1, there is no width)");

	struct pe_scheme **schemes;
	size_t count;
	if ((rc = cli_schemes(&o, "alibi", 1, &schemes, &count)))
		return rc;
	const struct pe_scheme *s = schemes[0];
	const char *why = NULL;
	enum pe_status st = pe_bias_check(s, &why);
	if (st == PE_EUNSUPPORTED)
		rc = cli_usage_error("scheme '%s' gives position vectors, not an attention bias: "
				     "bias covers alibi and t5",
				     s->canonical);
	else if (st != PE_OK)
		rc = cli_usage_error("scheme '%s': %s", s->canonical,
				     why ? why : pe_status_str(st));
	char buf[64];
	const char *path = cli_output_path(&o, buf, sizeof(buf));
	enum cli_format format;
	if (!rc)
		rc = cli_output_format(&o, path, &format);
	if (!rc && cli_format_is_figure(format))
		rc = cli_error("figure output ('%s') is not available yet: write .csv, .npy "
			       "or - for now",
			       path);
	if (!rc)
		rc = run(&o, s, o.n ? o.n : 16, path, format);
	cli_schemes_free(schemes, count);
	return rc;
}
