#include <posenc/colormap.h>

#include "fig_internal.h"

struct rgb series_color(size_t i)
{
	/* matplotlib's tab10 (Tableau 10), in its default cycle order. */
	static const unsigned hex[10] = {
	        0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
	        0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf,
	};
	unsigned h = hex[i % 10];
	return (struct rgb){(h >> 16 & 255) / 255.0, (h >> 8 & 255) / 255.0, (h & 255) / 255.0};
}

bool colormap_lut(const char *name, uint8_t lut[256][3])
{
	const struct pe_colormap *cm = pe_colormap_find(name);
	if (!cm)
		return false;
	pe_colormap_palette(cm, lut);
	return true;
}

const char *colormap_default(bool is_signed)
{
	return is_signed ? PE_COLORMAP_DIVERGING : PE_COLORMAP_DEFAULT;
}
