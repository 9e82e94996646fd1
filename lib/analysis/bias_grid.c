/* Attention biases averaged over blocks of positions, for figures of many positions
 * (posenc/bias.h, pe_bias_grid()). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <posenc/bias.h>

/* First position of block b of g over n positions: floor(b n / g) without overflow. */
static size_t block_lo(size_t b, size_t n, size_t g)
{
	return b * (n / g) + b * (n % g) / g;
}

/*
 * Mean ALiBi bias over queries a..a+p-1 and keys b..b+q-1, keys j <= i only:
 * paper form m (j - i), official form m j.
 */
static double alibi_block(double m, int official, size_t a, size_t p, size_t b, size_t q)
{
	if (b >= a + p)
		return NAN; /* every key after every query */
	double mi = (double)a + (double)(p - 1) / 2, mj = (double)b + (double)(q - 1) / 2;
	if (b + q - 1 <= a)
		return official ? m * mj : m * (mj - mi);
	/* the block straddles the diagonal: row by row, each a run of keys b..min(i, b+q-1) */
	double sum = 0, count = 0;
	for (size_t i = a; i < a + p; i++) {
		if (i < b)
			continue;
		size_t last = i < b + q - 1 ? i : b + q - 1;
		double c = (double)(last - b + 1), sj = c * ((double)b + (double)last) / 2;
		sum += official ? sj : sj - c * (double)i;
		count += c;
	}
	return m * sum / count;
}

static enum pe_status alibi_grid(const struct pe_scheme *s, size_t n, size_t g, double *out)
{
	double *slopes = malloc(s->heads * sizeof(*slopes));
	if (!slopes)
		return PE_ENOMEM;
	pe_alibi_scheme_slopes(s, slopes);
	int official = s->form == PE_ALIBI_OFFICIAL;
	for (size_t h = 0; h < s->heads; h++)
		for (size_t bi = 0; bi < g; bi++) {
			size_t a = block_lo(bi, n, g), p = block_lo(bi + 1, n, g) - a;
			double *row = out + (h * g + bi) * g;
			for (size_t bj = 0; bj < g; bj++) {
				size_t b = block_lo(bj, n, g), q = block_lo(bj + 1, n, g) - b;
				row[bj] = alibi_block(slopes[h], official, a, p, b, q);
			}
		}
	free(slopes);
	return PE_OK;
}

/*
 * T5: the bucket B depends on r = j - i only. With S(r) = sum of B up to r
 * and T its running sum, a block's total is a difference of four T values:
 * sum over i of S(b+q-1-i) - S(b-1-i), each a run of consecutive S.
 */
static enum pe_status t5_grid(const struct pe_scheme *s, size_t n, size_t g, double *out)
{
	/* S[k] = sum of B(r) for r = -(n-1) .. k-n; T[k] = S[0] + ... + S[k-1] */
	double *S = malloc(2 * n * sizeof(*S)), *T = malloc((2 * n + 1) * sizeof(*T));
	if (!S || !T) {
		free(S);
		free(T);
		return PE_ENOMEM;
	}
	S[0] = 0;
	enum pe_status st = PE_OK;
	for (size_t k = 1; k < 2 * n && st == PE_OK; k++) {
		unsigned bucket = 0;
		st = pe_t5_bucket((int64_t)k - (int64_t)n, s->buckets, s->max_distance,
		                  s->bidirectional, &bucket);
		S[k] = S[k - 1] + bucket;
	}
	T[0] = 0;
	for (size_t k = 0; k < 2 * n; k++)
		T[k + 1] = T[k] + S[k];
		/* sum of S(r) for r = r0 .. r1, as indices r + n into S */
#define RUN(r0, r1) (T[(r1) + (int64_t)n + 1] - T[(r0) + (int64_t)n])
	for (size_t bi = 0; st == PE_OK && bi < g; bi++) {
		size_t a = block_lo(bi, n, g), p = block_lo(bi + 1, n, g) - a;
		for (size_t bj = 0; bj < g; bj++) {
			size_t b = block_lo(bj, n, g), q = block_lo(bj + 1, n, g) - b;
			int64_t hi = (int64_t)b + (int64_t)q - 1 - (int64_t)a;
			int64_t lo = (int64_t)b - 1 - (int64_t)a;
			double sum = RUN(hi - (int64_t)p + 1, hi) - RUN(lo - (int64_t)p + 1, lo);
			out[bi * g + bj] = sum / ((double)p * (double)q);
		}
	}
#undef RUN
	free(S);
	free(T);
	return st;
}

enum pe_status pe_bias_grid(const struct pe_scheme *s, size_t n, size_t g, struct pe_matrix **out)
{
	*out = NULL;
	if (g == 0 || g > n)
		return PE_EINVAL;
	enum pe_status st = pe_bias_check(s, NULL);
	if (st != PE_OK)
		return st;
	size_t heads = pe_scheme_has(s, PE_CAP_BIAS_HEADS) ? s->heads : 1;
	struct pe_matrix *m = pe_matrix_create(heads * g, g);
	if (!m)
		return PE_ENOMEM;
	st = pe_scheme_has(s, PE_CAP_BIAS_HEADS) ? alibi_grid(s, n, g, m->data)
	                                         : t5_grid(s, n, g, m->data);
	if (st != PE_OK) {
		pe_matrix_destroy(m);
		return st;
	}
	*out = m;
	return PE_OK;
}
