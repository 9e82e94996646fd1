/*
 * Private helpers shared by the model readers.
 */
#ifndef POSENC_MODEL_INTERNAL_H
#define POSENC_MODEL_INTERNAL_H

#include <posenc/model.h>

/*
 * pe_model_check_specs() - every group's spec must parse
 *
 * @return PE_OK, PE_EFORMAT with *err naming the group and the value the
 * spec parser refused, or PE_ENOMEM.
 */
enum pe_status pe_model_check_specs(const struct pe_model *m, char **err);

#endif
