/* posenc inspect: what a .npy, .safetensors or .csv file holds, to find tensor names. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/read.h>

#include "cli.h"
#include "commands.h"
#include "shared/options.h"
#include "shared/output.h"

static const char help[] =
        "Usage: posenc inspect FILE...\n"
        "\n"
        "List the arrays of .npy, .safetensors and .csv files: for safetensors every\n"
        "tensor's name, dtype and shape (in data order), for NPY the array's dtype,\n"
        "shape and order, for CSV the table's shape and whether it has a header row\n"
        "and an index column. Tensors marked 'table' can be read with the file scheme:\n"
        "  -s 'file:path=FILE,tensor=NAME'   or   -s FILE#NAME\n"
        "\n"
        "Options:\n"
        "      --max-time T  refuse a CSV file whose reading is estimated to take longer\n"
        "                    than T seconds (or 30s, 10m, 2h) [default: 30s]\n"
        "  -h, --help        show this help\n"
        "\n"
        "Example: posenc inspect model.safetensors\n";

static void shape_text(const struct pe_tensor_info *t, char *buf, size_t cap)
{
	size_t used = (size_t)snprintf(buf, cap, "(");
	for (size_t i = 0; i < t->ndim && used < cap; i++)
		used += (size_t)snprintf(buf + used, cap - used, "%s%llu", i ? ", " : "",
		                         (unsigned long long)t->shape[i]);
	if (used < cap)
		snprintf(buf + used, cap - used, "%s", t->ndim == 1 ? ",)" : ")");
}

/* Names, keys and values come from the file: printed escaped (cli_escape). */
static const char *esc(char **slot, const char *text)
{
	free(*slot);
	*slot = cli_escape(text);
	return *slot ? *slot : "?";
}

static void print_safetensors(const char *path, const struct pe_file_info *info)
{
	char *a = NULL, *b = NULL;
	printf("%s: safetensors, %zu tensor%s\n", esc(&a, path), info->count,
	       info->count == 1 ? "" : "s");
	for (size_t i = 0; i < info->n_metadata; i++) {
		printf("  metadata %s = ", esc(&a, info->metadata_keys[i]));
		printf("%s\n", esc(&b, info->metadata_values[i]));
	}
	int width = 4;
	for (size_t i = 0; i < info->count; i++) {
		size_t len = strlen(esc(&a, info->tensors[i].name));
		if (len > (size_t)width)
			width = len > 60 ? 60 : (int)len;
	}
	if (info->count)
		printf("  %-*s  %-7s  %s\n", width, "name", "dtype", "shape");
	for (size_t i = 0; i < info->count; i++) {
		const struct pe_tensor_info *t = &info->tensors[i];
		char shape[256];
		shape_text(t, shape, sizeof(shape));
		esc(&a, t->name);
		esc(&b, t->dtype);
		if (t->readable)
			printf("  %-*s  %-7s  %-16s  table\n", width, a ? a : "?", b ? b : "?",
			       shape);
		else
			printf("  %-*s  %-7s  %s\n", width, a ? a : "?", b ? b : "?", shape);
	}
	free(a);
	free(b);
}

static int inspect(const char *path, double max_time)
{
	struct pe_file_info *info;
	char *err = NULL;
	/* A CSV file is read whole (its shape is its rows), NPY and safetensors files
	 * only as far as their header. */
	struct cli_common o;
	memset(&o, 0, sizeof(o));
	o.max_time = max_time;
	int rc0 =
	        cli_check_csv_read(&o, path, "inspect a part of it (head -n 1000 FILE > part.csv)");
	if (rc0)
		return rc0;
	/* inspect has no --max-memory: the default budget (half of RAM, within
	 * ulimit -v) bounds what a stream or a header may take, the bytes and
	 * their parse about half each. */
	uint64_t budget = cli_default_budget() / 2;
	size_t limit =
	        budget < PE_READ_INSPECT_STREAM_MAX ? (size_t)budget : PE_READ_INSPECT_STREAM_MAX;
	enum pe_status st = pe_file_inspect_limited(path, limit, &info, &err);
	if (st != PE_OK) {
		size_t len = strlen(path);
		/* a config.json, not a checkpoint's index (a GGUF file's message says it) */
		int model = len > 5 && strcmp(path + len - 5, ".json") == 0 &&
		            !(len > 11 && strcmp(path + len - 11, ".index.json") == 0);
		/* cli_error escapes what a terminal must not see; the library's text has its
		 * file bytes escaped already, so neither is escaped twice here */
		int rc = cli_error("'%s': %s%s%s%s", path, err ? err : pe_status_str(st),
		                   model ? " ('posenc model " : "", model ? path : "",
		                   model ? "' reads a model's positional encoding from it)" : "");
		free(err);
		return rc;
	}
	const struct pe_tensor_info *t = info->count ? &info->tensors[0] : NULL;
	char shape[256] = "";
	if (t)
		shape_text(t, shape, sizeof(shape));
	char *a = NULL, *b = NULL;
	switch (info->format) {
	case PE_FORMAT_SAFETENSORS:
		print_safetensors(path, info);
		break;
	case PE_FORMAT_NPY:
		printf("%s: npy %d.%d, dtype %s, shape %s, %s order%s\n", esc(&a, path),
		       info->npy_major, info->npy_minor, esc(&b, t->dtype), shape,
		       info->fortran_order ? "Fortran" : "C", t->readable ? ", table" : "");
		break;
	case PE_FORMAT_CSV:
		printf("%s: csv, %llu rows x %llu columns, %s, %s, table\n", esc(&a, path),
		       (unsigned long long)t->shape[0], (unsigned long long)t->shape[1],
		       info->csv_header ? "header row" : "no header row",
		       info->csv_index ? "index column (skipped)" : "no index column");
		break;
	case PE_FORMAT_UNKNOWN:
		break;
	}
	free(a);
	free(b);
	pe_file_info_destroy(info);
	return CLI_OK;
}

int cmd_inspect(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"help", no_argument, NULL, 'h'},
	        {"max-time", required_argument, NULL, 'T'},
	        {NULL, 0, NULL, 0},
	};
	opterr = 0;
	int opt;
	double max_time = CLI_DEFAULT_MAX_TIME;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(help, stdout);
			return CLI_OK;
		}
		if (opt == 'T') {
			if (cli_parse_duration(optarg, &max_time) != 0)
				return cli_usage_error(
				        "option '--max-time': '%s' is not a duration "
				        "like 90, 90s, 10m or 2h",
				        optarg);
			continue;
		}
		if (opt == ':')
			return cli_usage_error("option '%s' needs a value", argv[optind - 1]);
		if (optopt && optopt < 256)
			return cli_usage_error("unknown option '-%c'", optopt);
		return cli_usage_error("unknown option '%s'", argv[optind - 1]);
	}
	if (optind >= argc)
		return cli_usage_error("no file to inspect");
	int rc = CLI_OK;
	for (int i = optind; i < argc; i++) {
		int r = inspect(argv[i], max_time);
		if (r)
			rc = r;
	}
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		return cli_stdout_failed(errno);
	return rc;
}
