/*
 * png_util.c - silent libpng error handling and option setup
 */
#include <string.h>

#include "png_util.h"

static void on_error(png_structp png, png_const_charp msg)
{
	struct png_guard *g = png_get_error_ptr(png);
	/* libpng's messages are "Out of memory", "Insufficient memory", "Write
	 * Error", zlib errors...: only allocation failures are not I/O. */
	g->status = (msg && (strstr(msg, "memory") || strstr(msg, "Memory"))) ? PE_ENOMEM : PE_EIO;
	longjmp(g->jmp, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

enum pe_status png_util_create(struct png_guard *g, FILE *f, png_structp *png, png_infop *info)
{
	g->status = PE_OK;
	*png = png_create_write_struct(PNG_LIBPNG_VER_STRING, g, on_error, on_warning);
	if (!*png)
		return PE_ENOMEM;
	*info = png_create_info_struct(*png);
	if (!*info) {
		png_destroy_write_struct(png, NULL);
		return PE_ENOMEM;
	}
	png_init_io(*png, f);
	return PE_OK;
}

struct pe_png_options pe_png_options_default(void)
{
	return (struct pe_png_options){-1, PE_PNG_FILTER_AUTO, 100.0, -1};
}

enum pe_status png_util_check(const struct pe_png_options *opt, struct pe_png_options *out)
{
	struct pe_png_options o = opt ? *opt : pe_png_options_default();
	if (o.level < -1 || o.level > 9)
		return PE_EINVAL;
	if ((int)o.filter < PE_PNG_FILTER_AUTO || o.filter > PE_PNG_FILTER_ADAPTIVE)
		return PE_EINVAL;
	if (o.nan_index < -1 || o.nan_index > 255)
		return PE_EINVAL;
	if (o.dpi != o.dpi)
		return PE_EINVAL;
	*out = o;
	return PE_OK;
}

void png_util_apply(png_structp png, png_infop info, const struct pe_png_options *o, int level,
                    enum pe_png_filter filter)
{
	static const int masks[] = {
	        [PE_PNG_FILTER_NONE] = PNG_FILTER_NONE,
	        [PE_PNG_FILTER_SUB] = PNG_FILTER_SUB,
	        [PE_PNG_FILTER_UP] = PNG_FILTER_UP,
	        [PE_PNG_FILTER_AVG] = PNG_FILTER_AVG,
	        [PE_PNG_FILTER_PAETH] = PNG_FILTER_PAETH,
	        [PE_PNG_FILTER_ADAPTIVE] = PNG_ALL_FILTERS,
	};
	enum pe_png_filter fl = o->filter == PE_PNG_FILTER_AUTO ? filter : o->filter;
	png_set_compression_level(png, o->level < 0 ? level : o->level);
	png_set_filter(png, PNG_FILTER_TYPE_BASE, masks[fl]);
	if (o->dpi > 0.0) {
		/* pHYs counts pixels per metre: 100 dpi = 3937. */
		double ppm = o->dpi / 0.0254 + 0.5;
		png_uint_32 v = ppm >= 4294967295.0 ? 0xffffffffu : (png_uint_32)ppm;
		png_set_pHYs(png, info, v, v, PNG_RESOLUTION_METER);
	}
}

enum pe_status png_util_finish(FILE *f)
{
	if (fflush(f) != 0 || ferror(f))
		return PE_EIO;
	return PE_OK;
}
