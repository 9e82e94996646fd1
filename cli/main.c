/* posenc: the command table and the top-level options. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "shared/help_schemes.h"
#include "shared/model_spec.h"
#include "shared/output.h"

#ifndef POSENC_VERSION
#define POSENC_VERSION "unknown"
#endif

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* Keep alphabetised: --help lists the commands in this order. */
static const struct command commands[] = {
        {"bias", cmd_bias, "attention-bias matrices: ALiBi per head, T5 bucket map"},
        {"check", cmd_check, "check another implementation's RoPE dump; diagnose its mistake"},
        {"compare", cmd_compare, "several schemes side by side (default: base 10000 vs 10)"},
        {"corr", cmd_corr, "pairwise Pearson correlation between position vectors"},
        {"decay", cmd_decay, "dot product vs relative offset; RoPE: the RoFormer bound"},
        {"distance", cmd_distance, "pairwise distance between position vectors (--metric)"},
        {"encode", cmd_encode, "the encoding matrix (positions x dims)"},
        {"freqs", cmd_freqs, "per-pair frequencies and wavelengths, RoPE scalings side by side"},
        {"inspect", cmd_inspect, "the arrays of a .npy, .safetensors or .csv file"},
        {"layers", cmd_layers, "a model's layers one by one: encoding, widths, base, scaling"},
        {"model", cmd_model, "a real model's encoding: hf:config.json, gguf:FILE or model:NAME"},
        {"plan", cmd_plan, "a context plan: each RoPE scaling to a target length, per engine"},
        {"precision", cmd_precision,
         "error of f32/bf16/f16 RoPE tables against exact, by position"},
        {"profile", cmd_profile, "distance from chosen positions (--at) to every position"},
        {"report", cmd_report, "a PDF or self-contained HTML report of a comparison"},
        {"scatter", cmd_scatter, "distance vs correlation for pairs of positions"},
        {"usage", cmd_usage, "which RoPE frequencies a checkpoint's q/k weights use"},
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fputs("Usage: posenc <command> [options]\n"
	      "\n"
	      "Analyse and draw Transformer positional encodings.\n"
	      "\n"
	      "Commands:\n",
	      out);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\n"
	      "Options:\n"
	      "  -h, --help     show this help\n"
	      "  -V, --version  show the version\n"
	      "\n"
	      "'posenc help <command>' describes a command; 'posenc help schemes' the scheme "
	      "specs;\n'posenc help models' the model presets. A real model's encoding is the "
	      "spec\nhf:config.json, gguf:FILE.gguf or model:NAME (-s gguf:llama.gguf).\n",
	      out);
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int run(const struct command *c, int argc, char **argv)
{
	cli_command_name = c->name;
	/* glibc: optind 0 restarts getopt completely for the command's options. */
	optind = 0;
	return c->run(argc, argv);
}

static int help(int argc, char **argv)
{
	/* one topic: a second word would otherwise be dropped without a word */
	if (argc > 2)
		return cli_usage_error("'help' takes one topic (a command, 'schemes' or 'models'), "
		                       "not '%s'",
		                       argv[2]);
	if (argc < 2 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return CLI_OK;
	}
	if (strcmp(argv[1], "schemes") == 0) {
		cli_help_schemes(stdout);
		return CLI_OK;
	}
	if (strcmp(argv[1], "models") == 0)
		return cli_help_models();
	const struct command *c = find(argv[1]);
	if (!c)
		return cli_usage_error("unknown command '%s'", argv[1]);
	char *args[] = {argv[1], (char *)"--help", NULL};
	return run(c, 2, args);
}

int cli_main(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"help", no_argument, NULL, 'h'},
	        {"version", no_argument, NULL, 'V'},
	        {NULL, 0, NULL, 0},
	};
	cli_command_name = NULL;
	cli_progress_line = 0;
	/* glibc: 0 restarts getopt, also for a second run in one process (cli/library.c). */
	optind = 0;
	opterr = 0;
	int opt;
	/* '+': stop at the command name; its options are the command's. */
	while ((opt = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return CLI_OK;
		case 'V':
			printf("posenc %s\n", POSENC_VERSION);
			return CLI_OK;
		default:
			if (optopt && optopt < 256)
				return cli_usage_error("unknown option '-%c'", optopt);
			return cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return CLI_USAGE;
	}
	const char *name = argv[optind];
	if (strcmp(name, "help") == 0)
		return help(argc - optind, argv + optind);
	const struct command *c = find(name);
	if (!c)
		return cli_usage_error("unknown command '%s'", name);
	return run(c, argc - optind, argv + optind);
}

/* The library build (cli/library.c) calls cli_main() itself. */
#ifndef POSENC_LIBRARY
int main(int argc, char **argv)
{
	cli_output_install_signals();
	/* OpenBLAS (opened at the first Gram product) keeps its idle threads
	 * spinning for 2^28 cycles after every call, by default; beside
	 * posenc's own threads on the rest of a learned table's work that
	 * spin is a tenth of the CPU. The program, which owns its
	 * environment, asks them to sleep at once, unless the user chose. */
	setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
	return cli_main(argc, argv);
}
#endif
