/*
 * colormap_tables.h - the generated colormap tables (plots/colormap_tables.c)
 *
 * Private to plots/: callers go through posenc/colormap.h.
 */
#ifndef POSENC_PLOTS_COLORMAP_TABLES_H
#define POSENC_PLOTS_COLORMAP_TABLES_H

extern const double pe_cmap_viridis[256][3];
extern const double pe_cmap_magma[256][3];
extern const double pe_cmap_inferno[256][3];
extern const double pe_cmap_plasma[256][3];
extern const double pe_cmap_cividis[256][3];
extern const double pe_cmap_rdbu[256][3];
extern const double pe_cmap_gray[256][3];
extern const double pe_cmap_twilight[256][3];

#endif
