/*
 * Private helpers shared by the model readers.
 */
#ifndef POSENC_MODEL_INTERNAL_H
#define POSENC_MODEL_INTERNAL_H

#include <stddef.h>

#include <posenc/model.h>

/*
 * pe_model_check_specs() - every group's spec must parse
 *
 * @return PE_OK, PE_EFORMAT with *err naming the group and the value the
 * spec parser refused, or PE_ENOMEM.
 */
enum pe_status pe_model_check_specs(const struct pe_model *m, char **err);

/*
 * pe_model_width_fraction() - a rotary width as the spec's rotary= fraction
 *
 * The smallest double p with int(@head_dim * p) == @width (@width <=
 * @head_dim, @head_dim > 0), the reference's int(head_dim *
 * partial_rotary_factor): width / head_dim itself can give one less (26 of
 * 45, 30 of 44).
 */
double pe_model_width_fraction(size_t width, size_t head_dim);

/*
 * pe_model_add_fact() - append a fact (struct pe_model_fact) to @m
 *
 * @key, @what, @value are copied. A fact with the same key and value
 * already there is kept alone (each layer of a group can state it).
 * @return PE_OK or PE_ENOMEM (@m unchanged then).
 */
enum pe_status pe_model_add_fact(struct pe_model *m, const char *key, const char *what,
                                 const char *value);

/*
 * pe_model_layer_list() - "0-4,6-10,12" of the layers whose @flag is set
 *
 * @return a malloc'd string ("" when none is set), NULL when out of memory.
 */
char *pe_model_layer_list(const unsigned char *flag, size_t n);

#endif
