#include <math.h>

#include <posenc/rope.h>

/* Placeholder until the scalings land: only "none" is computed. */
enum pe_status pe_rope_scale_frequencies(const struct pe_rope_scaling_params *p, double base,
					 size_t d_rot, double *theta,
					 struct pe_rope_scaling_info *info)
{
	(void)d_rot;
	(void)theta;
	if (info) {
		info->attention_factor = 1.0;
		info->base = base;
		info->yarn_low = NAN;
		info->yarn_high = NAN;
	}
	return p->type == PE_ROPE_SCALING_NONE ? PE_OK : PE_EUNSUPPORTED;
}
