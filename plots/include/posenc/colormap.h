/*
 * posenc/colormap.h - named colormaps and matplotlib-style colour lookup
 *
 * Every map is a table of PE_COLORMAP_SIZE (256) RGB entries:
 *   viridis (the default), magma, inferno, plasma, cividis  - sequential
 *   RdBu                                                   - diverging
 *   gray                                                   - sequential
 * and every name with "_r" appended is the same table reversed. RdBu runs
 * from red (low) to blue (high) as in matplotlib, so the usual map for signed
 * data, blue for negative and red for positive, is "RdBu_r"
 * (PE_COLORMAP_DIVERGING). Names are matched without regard to case.
 *
 * Lookup follows matplotlib's Colormap.__call__: a normalised value v (see
 * posenc/norm.h) selects entry trunc(v * 256), with v == 1 giving entry 255;
 * values below 0 (including -inf) take the first entry and values above 1
 * (including +inf) the last, like matplotlib's default under/over colours.
 * NaN is "bad": transparent black (0, 0, 0, 0), matplotlib's default, so a
 * figure shows its background where data is missing.
 *
 * Maps are static and immutable: nothing here allocates or needs freeing.
 */
#ifndef POSENC_COLORMAP_H
#define POSENC_COLORMAP_H

#include <posenc/status.h>

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PE_COLORMAP_SIZE      256
#define PE_COLORMAP_DEFAULT   "viridis"
#define PE_COLORMAP_DIVERGING "RdBu_r"

struct pe_colormap;

struct pe_rgb {
	double r, g, b; /* each in [0, 1] */
};

struct pe_rgba {
	double r, g, b, a; /* each in [0, 1]; not premultiplied */
};

/*
 * pe_colormap_find() - the map called @name ("viridis", "magma_r", ...)
 *
 * @return a static map, or NULL if @name is NULL or not a known map (list
 * them with pe_colormap_names()). Never free the result.
 */
PE_API const struct pe_colormap *pe_colormap_find(const char *name);

/*
 * pe_colormap_names() - the base names of all maps, for messages and completion
 *
 * @return a static NULL-terminated array ("viridis", "magma", ..., "gray").
 * Each name also exists with "_r" appended. Never free it.
 */
PE_API const char *const *pe_colormap_names(void);

/*
 * pe_colormap_name() - the canonical name of @cm ("RdBu_r" even if it was
 * found as "rdbu_r")
 *
 * @return a static string.
 */
PE_API const char *pe_colormap_name(const struct pe_colormap *cm);

/*
 * pe_colormap_is_diverging() - whether @cm is meant for signed data centred
 * at 0 (its middle entry is the neutral colour); true for RdBu and RdBu_r
 */
PE_API bool pe_colormap_is_diverging(const struct pe_colormap *cm);

/*
 * pe_colormap_index() - the table entry a normalised value selects
 *
 * @return trunc(v * 256) clamped to 0..255 (v == 1 gives 255, v < 0 gives 0,
 * v > 1 gives 255), or -1 if @v is NaN.
 */
PE_API int pe_colormap_index(double v);

/*
 * pe_colormap_entry() - entry @i (0..255, wrapped modulo 256) of @cm, in the
 * map's own order (entry 0 of "viridis_r" is entry 255 of "viridis")
 *
 * @return the colour, components in [0, 1].
 */
PE_API struct pe_rgb pe_colormap_entry(const struct pe_colormap *cm, size_t i);

/*
 * pe_colormap_lookup() - the colour of a normalised value
 *
 * @return entry pe_colormap_index(v) with alpha 1, or transparent black
 * (0, 0, 0, 0) if @v is NaN.
 */
PE_API struct pe_rgba pe_colormap_lookup(const struct pe_colormap *cm, double v);

/*
 * pe_colormap_palette() - the 256 entries of @cm as 8-bit RGB triples, in the
 * map's own order (the PLTE of an indexed PNG)
 *
 * Components are rounded to nearest, round(c * 255). matplotlib truncates
 * (floor(c * 255)), so its pixels can be one level darker in some channels.
 */
PE_API void pe_colormap_palette(const struct pe_colormap *cm,
                                unsigned char out[PE_COLORMAP_SIZE][3]);

#ifdef __cplusplus
}
#endif

#endif
