/* posenc help schemes (help_schemes.c). */
#ifndef POSENC_CLI_HELP_SCHEMES_H
#define POSENC_CLI_HELP_SCHEMES_H

#include <stdio.h>

/* Every scheme of the registry with its keys, defaults and choices. */
void cli_help_schemes(FILE *out);

#endif
