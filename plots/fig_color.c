#include <math.h>
#include <string.h>

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

/* TEMPORARY until plotcore's colormaps land: coarse anchors, linearly interpolated. */
static void interp(const double (*a)[3], size_t n, uint8_t lut[256][3])
{
	for (size_t i = 0; i < 256; i++) {
		double t = (double)i / 255 * (double)(n - 1);
		size_t k = (size_t)t;
		if (k >= n - 1)
			k = n - 2;
		double f = t - (double)k;
		for (int c = 0; c < 3; c++)
			lut[i][c] = (uint8_t)lround(255 * (a[k][c] * (1 - f) + a[k + 1][c] * f));
	}
}

bool colormap_lut(const char *name, uint8_t lut[256][3])
{
	static const double viridis[9][3] = {
		{0.267, 0.005, 0.329}, {0.283, 0.141, 0.458}, {0.254, 0.265, 0.530},
		{0.207, 0.372, 0.553}, {0.164, 0.471, 0.558}, {0.128, 0.567, 0.551},
		{0.135, 0.659, 0.518}, {0.478, 0.821, 0.318}, {0.993, 0.906, 0.144},
	};
	static const double rdbu_r[11][3] = {
		{0.020, 0.188, 0.380}, {0.129, 0.400, 0.675}, {0.263, 0.576, 0.765},
		{0.573, 0.773, 0.871}, {0.820, 0.898, 0.941}, {0.969, 0.969, 0.969},
		{0.992, 0.859, 0.780}, {0.957, 0.647, 0.510}, {0.839, 0.376, 0.302},
		{0.698, 0.094, 0.169}, {0.404, 0.000, 0.122},
	};
	if (!strcmp(name, "viridis"))
		interp(viridis, 9, lut);
	else if (!strcmp(name, "RdBu_r") || !strcmp(name, "diverging"))
		interp(rdbu_r, 11, lut);
	else
		return false;
	return true;
}

const char *colormap_default(bool is_signed)
{
	return is_signed ? "RdBu_r" : "viridis";
}
