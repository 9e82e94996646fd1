/*
 * colormap.c - colormap registry and lookup (tables in colormap_tables.c)
 */
#include <math.h>
#include <stddef.h>
#include <strings.h>

#include <posenc/colormap.h>

#include "colormap_tables.h"

struct pe_colormap {
	const char *name;
	const double (*table)[3];
	bool reversed;
	bool diverging;
};

/* Each base map followed by its reversal, in the order of base_names. */
static const struct pe_colormap maps[] = {
        {"viridis", pe_cmap_viridis, false, false},   {"viridis_r", pe_cmap_viridis, true, false},
        {"magma", pe_cmap_magma, false, false},       {"magma_r", pe_cmap_magma, true, false},
        {"inferno", pe_cmap_inferno, false, false},   {"inferno_r", pe_cmap_inferno, true, false},
        {"plasma", pe_cmap_plasma, false, false},     {"plasma_r", pe_cmap_plasma, true, false},
        {"cividis", pe_cmap_cividis, false, false},   {"cividis_r", pe_cmap_cividis, true, false},
        {"RdBu", pe_cmap_rdbu, false, true},          {"RdBu_r", pe_cmap_rdbu, true, true},
        {"gray", pe_cmap_gray, false, false},         {"gray_r", pe_cmap_gray, true, false},
        {"twilight", pe_cmap_twilight, false, false}, {"twilight_r", pe_cmap_twilight, true, false},
};

#define NMAPS (sizeof(maps) / sizeof(maps[0]))

static const char *const base_names[] = {
        "viridis", "magma", "inferno", "plasma", "cividis", "RdBu", "gray", "twilight", NULL,
};
_Static_assert(sizeof(base_names) / sizeof(base_names[0]) == NMAPS / 2 + 1,
               "every base map named once, then NULL");

const struct pe_colormap *pe_colormap_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < NMAPS; i++)
		if (strcasecmp(name, maps[i].name) == 0)
			return &maps[i];
	return NULL;
}

const char *const *pe_colormap_names(void)
{
	return base_names;
}

const char *pe_colormap_name(const struct pe_colormap *cm)
{
	return cm->name;
}

bool pe_colormap_is_diverging(const struct pe_colormap *cm)
{
	return cm->diverging;
}

int pe_colormap_index(double v)
{
	if (isnan(v))
		return -1;
	if (v <= 0.0)
		return 0;
	if (v >= 1.0)
		return PE_COLORMAP_SIZE - 1;
	int i = (int)(v * PE_COLORMAP_SIZE);
	return i < PE_COLORMAP_SIZE ? i : PE_COLORMAP_SIZE - 1;
}

struct pe_rgb pe_colormap_entry(const struct pe_colormap *cm, size_t i)
{
	i %= PE_COLORMAP_SIZE;
	if (cm->reversed)
		i = PE_COLORMAP_SIZE - 1 - i;
	const double *c = cm->table[i];
	return (struct pe_rgb){c[0], c[1], c[2]};
}

struct pe_rgba pe_colormap_lookup(const struct pe_colormap *cm, double v)
{
	int i = pe_colormap_index(v);
	if (i < 0)
		return (struct pe_rgba){0.0, 0.0, 0.0, 0.0};
	struct pe_rgb c = pe_colormap_entry(cm, (size_t)i);
	return (struct pe_rgba){c.r, c.g, c.b, 1.0};
}

static unsigned char to_byte(double c)
{
	double b = floor(c * 255.0 + 0.5);
	return (unsigned char)(b < 0.0 ? 0.0 : b > 255.0 ? 255.0 : b);
}

void pe_colormap_palette(const struct pe_colormap *cm, unsigned char out[PE_COLORMAP_SIZE][3])
{
	for (size_t i = 0; i < PE_COLORMAP_SIZE; i++) {
		struct pe_rgb c = pe_colormap_entry(cm, i);
		out[i][0] = to_byte(c.r);
		out[i][1] = to_byte(c.g);
		out[i][2] = to_byte(c.b);
	}
}
