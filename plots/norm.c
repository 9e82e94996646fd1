/*
 * norm.c - data range and normalisation for colour lookup
 */
#include <math.h>

#include <posenc/norm.h>

struct pe_norm pe_norm_empty(void)
{
	return (struct pe_norm){INFINITY, -INFINITY};
}

bool pe_norm_is_empty(const struct pe_norm *n)
{
	return !(n->vmin <= n->vmax);
}

void pe_norm_add(struct pe_norm *n, const double *x, size_t count)
{
	double lo = n->vmin, hi = n->vmax;
	for (size_t i = 0; i < count; i++) {
		if (!isfinite(x[i]))
			continue;
		if (x[i] < lo)
			lo = x[i];
		if (x[i] > hi)
			hi = x[i];
	}
	n->vmin = lo;
	n->vmax = hi;
}

enum pe_status pe_norm_from_data(const double *x, size_t count, struct pe_norm *out)
{
	struct pe_norm n = pe_norm_empty();
	pe_norm_add(&n, x, count);
	if (pe_norm_is_empty(&n))
		return PE_ERANGE;
	*out = n;
	return PE_OK;
}

struct pe_norm pe_norm_symmetric(struct pe_norm n)
{
	if (pe_norm_is_empty(&n))
		return n;
	double h = fmax(fabs(n.vmin), fabs(n.vmax));
	return (struct pe_norm){-h, h};
}

enum pe_status pe_norm_override(struct pe_norm *n, const double *vmin, const double *vmax,
                                bool symmetric)
{
	if ((vmin && !isfinite(*vmin)) || (vmax && !isfinite(*vmax)))
		return PE_EINVAL;
	struct pe_norm r = *n;
	if (vmin)
		r.vmin = *vmin;
	if (vmax)
		r.vmax = *vmax;
	if (symmetric && vmin && !vmax)
		r.vmax = -*vmin;
	if (symmetric && vmax && !vmin)
		r.vmin = -*vmax;
	if (!isfinite(r.vmin) || !isfinite(r.vmax) || r.vmin > r.vmax)
		return PE_ERANGE;
	*n = r;
	return PE_OK;
}

double pe_norm_apply(const struct pe_norm *n, double x)
{
	if (isnan(x))
		return x;
	if (!(n->vmax > n->vmin)) {
		if (x == n->vmin)
			return 0.5;
		return x < n->vmin ? 0.0 : 1.0;
	}
	/* Halved so that vmax - vmin cannot overflow for limits near DBL_MAX. */
	return (0.5 * x - 0.5 * n->vmin) / (0.5 * n->vmax - 0.5 * n->vmin);
}
