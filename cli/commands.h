/*
 * cli/commands.h - the commands of the posenc program
 *
 * To add a command NAME, these files change (the packaging tests fail
 * until the help, the man page and the completion agree):
 *   1. cli/commands/NAME.c (new): int cmd_NAME(int argc, char **argv), argv[0]
 *      the command name. Its --help text is one string with "%s" where the
 *      common options go; a struct cli_command_options beside it declares
 *      which groups of common options it takes (CLI_TAKES_*), the -o line's
 *      formats and why it refuses the others; its own options are long
 *      options coded from CLI_OPT_COMMAND with one parse function (struct
 *      cli_own_options); one call to cli_parse_args() (cli/shared/options.h)
 *      reads everything.
 *      Errors go through cli_error()/cli_usage_error(), other messages
 *      through cli_note(), files through cli_write_matrix() or
 *      cli_figure_write(); it returns an exit code (enum cli_exit).
 *   2. cli/commands.h: its declaration below.
 *   3. cli/main.c: a row in the command table (alphabetised).
 *   4. cli/meson.build: the file.
 *   5. doc/posenc.1.in: a line in SYNOPSIS and an entry in COMMANDS naming
 *      every option of its --help (tests/packaging/test_man.py).
 *   6. completions/posenc.bash.in: the fallback command list
 *      (_posenc_commands), its options, own and common
 *      (_posenc_command_options), and
 *      those that take a value (_posenc_takes_value)
 *      (tests/packaging/test_completion.py).
 *   7. README.md: the command list.
 *   8. tests/cli/test_NAME_cli.py (new) and its line in tests/meson.build.
 */
#ifndef POSENC_CLI_COMMANDS_H
#define POSENC_CLI_COMMANDS_H

int cmd_bias(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_corr(int argc, char **argv);
int cmd_decay(int argc, char **argv);
int cmd_distance(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_freqs(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_layers(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_precision(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_scatter(int argc, char **argv);
int cmd_usage(int argc, char **argv);

#endif
