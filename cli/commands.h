/*
 * cli/commands.h - the commands of the posenc program
 *
 * To add a command:
 *   1. write cli/cmd_<name>.c with int cmd_<name>(int argc, char **argv),
 *      where argv[0] is the command name; parse with getopt_long using
 *      CLI_COMMON_SHORT/CLI_COMMON_LONG (cli/options.h) and hand unknown
 *      options to cli_common_option(); print --help to stdout, exit 0;
 *   2. declare it here;
 *   3. add a row to the table in cli/main.c (keep it alphabetised) and the
 *      file to cli/meson.build.
 * A command returns an exit code (enum cli_exit) and reports its own errors.
 */
#ifndef POSENC_CLI_COMMANDS_H
#define POSENC_CLI_COMMANDS_H

int cmd_bias(int argc, char **argv);
int cmd_corr(int argc, char **argv);
int cmd_decay(int argc, char **argv);
int cmd_distance(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_freqs(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_scatter(int argc, char **argv);

#endif
