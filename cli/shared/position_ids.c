/*
 * --position-ids FILE for mrope specs, and the note saying which position
 * ids a command used (explicit, or laid out by the spec's text/grid keys).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <posenc/read.h>
#include <posenc/rope.h>

#include "cli.h"
#include "shared/costs.h"
#include "shared/memio.h"
#include "shared/position_ids.h"

static int is_mrope(const struct pe_scheme *s)
{
	return strcmp(pe_scheme_name(s), "mrope") == 0;
}

static int has_npy_magic(const char *buf, size_t len)
{
	return len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0;
}

/*
 * Whether the decimal text s[0..len) (strtod's syntax) is a whole number,
 * judged on its digits: strtod rounds 4503599627370496.5 to a whole double.
 * Texts strtod reads otherwise (hex, inf, nan) are left to the value test.
 */
static int text_is_whole(const char *s, size_t len)
{
	size_t i = 0;
	if (i < len && (s[i] == '+' || s[i] == '-'))
		i++;
	const char *digits = s + i;
	size_t nd = 0, point = (size_t)-1;
	for (; i < len && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); i++) {
		if (s[i] == '.')
			point = nd;
		else
			nd++;
	}
	if (nd == 0)
		return 1;
	if (point == (size_t)-1)
		point = nd;
	long exp10 = 0;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		char *end;
		exp10 = strtol(s + i + 1, &end, 10);
		if (exp10 > 1000000 || exp10 < -1000000)
			exp10 = exp10 > 0 ? 1000000 : -1000000;
	} else if (i < len) {
		return 1; /* hex, inf, nan: the value decides */
	}
	/* Digits at or after index point + exp10 are the fraction: all zeros. */
	long whole = (long)point + exp10;
	size_t k = 0;
	for (const char *d = digits; k < nd; d++) {
		if (*d == '.')
			continue;
		if ((long)k >= whole && *d != '0')
			return 0;
		k++;
	}
	return 1;
}

/* CSV: lines of three numbers t,h,w; a first line that is not numbers is a header. */
static int parse_csv(const char *path, const char *buf, size_t len, double **out, size_t *count)
{
	size_t cap = 0, n = 0, line = 0;
	double *v = NULL;
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		line++;
		char text[512];
		size_t l = (size_t)(eol - p);
		if (l && p[l - 1] == '\r')
			l--;
		const char *at = p;
		p = eol + 1;
		if (l >= sizeof(text)) {
			free(v);
			return cli_error("option '--position-ids': '%s', line %zu: too long for "
			                 "three numbers t,h,w",
			                 path, line);
		}
		memcpy(text, at, l);
		text[l] = '\0';
		if (strspn(text, " \t") == l)
			continue;
		double cell[3];
		int cell_whole[3] = {1, 1, 1};
		const char *cell_at[3] = {"", "", ""};
		int cell_len[3] = {0, 0, 0};
		int cells = 0, bad = 0;
		for (char *c = text;;) {
			char *stop;
			while (*c == ' ' || *c == '\t')
				c++;
			errno = 0;
			double x = strtod(c, &stop);
			if (stop == c || errno == ERANGE)
				bad = 1;
			char *cell_text = c;
			c = stop;
			while (*c == ' ' || *c == '\t')
				c++;
			if (cells < 3) {
				cell[cells] = x;
				cell_whole[cells] =
				        stop == cell_text ||
				        text_is_whole(cell_text, (size_t)(stop - cell_text));
				cell_at[cells] = cell_text;
				cell_len[cells] = (int)(stop - cell_text);
			}
			cells++;
			if (*c == ',') {
				c++;
				continue;
			}
			if (*c)
				bad = 1;
			break;
		}
		if (bad && n == 0 && line == 1)
			continue; /* a header such as t,h,w */
		if (bad || cells != 3) {
			free(v);
			return cli_error("option '--position-ids': '%s', line %zu: is not "
			                 "three numbers t,h,w%s",
			                 path, line,
			                 bad ? "" : " (a CSV of position ids has 3 columns)");
		}
		for (int a = 0; a < 3; a++)
			if (!cell_whole[a]) {
				free(v);
				return cli_error(
				        "option '--position-ids': '%s', line %zu: token %zu, "
				        "%c: %.*s is not a whole number (position ids are "
				        "integers; judged on the digits, before rounding)",
				        path, line, n, "thw"[a], cell_len[a], cell_at[a]);
			}
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			double *grown = realloc(v, 3 * cap * sizeof(double));
			if (!grown) {
				free(v);
				return cli_error("option '--position-ids': out of memory");
			}
			v = grown;
		}
		memcpy(v + 3 * n, cell, sizeof(cell));
		n++;
	}
	*out = v;
	*count = n;
	return 0;
}

static int ids_from_matrix(const char *path, struct pe_matrix *m, double **out, size_t *count);

static int parse_npy(const char *path, const char *buf, size_t len, double **out, size_t *count)
{
	struct pe_matrix *m = NULL;
	char *err = NULL;
	enum pe_status st = pe_npy_read(buf, len, NULL, &m, &err);
	if (st != PE_OK) {
		int rc = cli_error("option '--position-ids': '%s': %s%s", path,
		                   err ? err : pe_status_str(st),
		                   err && strstr(err, "dtype")
		                           ? " (save position ids as floats: ids.astype(float))"
		                           : "");
		free(err);
		return rc;
	}
	return ids_from_matrix(path, m, out, count);
}

/* An n x 3 or 3 x n array of ids as (t, h, w) per token; takes @m. */
static int ids_from_matrix(const char *path, struct pe_matrix *m, double **out, size_t *count)
{
	int transpose = m->cols != 3 && m->rows == 3;
	if (m->cols != 3 && !transpose) {
		int rc = cli_error("option '--position-ids': '%s': a %zu x %zu array; position "
		                   "ids are n x 3 (t, h, w per token) or 3 x n",
		                   path, m->rows, m->cols);
		pe_matrix_destroy(m);
		return rc;
	}
	/* Three tokens saved as the reference holds them, (3, n), and three saved one per row
	 * are the same shape: read either way only when both readings agree. */
	bool ambiguous = false;
	if (m->rows == 3 && m->cols == 3)
		for (size_t a = 0; a < 3; a++)
			for (size_t i = 0; i < a; i++)
				ambiguous |= m->data[3 * a + i] != m->data[3 * i + a];
	if (ambiguous) {
		pe_matrix_destroy(m);
		return cli_error("option '--position-ids': '%s': a 3 x 3 array is three tokens "
		                 "either as rows (n x 3) or as columns (3 x n, as position_ids[:, "
		                 "0, :]); give them as a CSV t,h,w",
		                 path);
	}
	size_t n = transpose ? m->cols : m->rows;
	double *v = malloc(3 * n * sizeof(double));
	if (!v) {
		pe_matrix_destroy(m);
		return cli_error("option '--position-ids': out of memory");
	}
	for (size_t i = 0; i < n; i++)
		for (size_t a = 0; a < 3; a++)
			v[3 * i + a] = transpose ? m->data[a * n + i] : m->data[3 * i + a];
	pe_matrix_destroy(m);
	*out = v;
	*count = n;
	return 0;
}

/* The ids read this run: the file is read once, however many schemes use it
 * (standard input and FIFOs cannot be read twice, a file may change). */
static double *kept;
static size_t n_kept;

static void kept_free(void)
{
	free(kept);
	kept = NULL;
}

void cli_position_ids_forget(void)
{
	kept_free();
}

static int load_file(const struct cli_common *o, double **out, size_t *count);

static int load(const struct cli_common *o, double **out, size_t *count)
{
	if (!kept) {
		double *v = NULL;
		size_t n = 0;
		int rc = load_file(o, &v, &n);
		if (rc)
			return rc;
		kept = v;
		n_kept = n;
		static int registered;
		if (!registered)
			registered = atexit(kept_free) == 0;
	}
	*out = malloc(3 * n_kept * sizeof(double));
	if (!*out)
		return cli_error("option '--position-ids': out of memory");
	memcpy(*out, kept, 3 * n_kept * sizeof(double));
	*count = n_kept;
	return 0;
}

/* An array handed over in memory (the Python package) under the name given. */
static int load_memtable(const struct cli_common *o, const struct cli_memtable *mt, double **out,
                         size_t *count)
{
	const char *path = o->position_ids;
	struct pe_read_request req = {NULL, 0, 0, 0, 0};
	size_t budget = o->max_memory > SIZE_MAX ? SIZE_MAX : (size_t)o->max_memory;
	struct pe_matrix *m = NULL;
	char *err = NULL;
	enum pe_status st = cli_memtable_read(mt, &req, budget, 1, &m, &err);
	if (st != PE_OK) {
		int rc = cli_error("option '--position-ids': '%s': %s", path,
		                   err ? err : pe_status_str(st));
		free(err);
		return rc;
	}
	int rc = ids_from_matrix(path, m, out, count);
	if (!rc && *count == 0) {
		free(*out);
		rc = cli_error("option '--position-ids': '%s' has no position ids", path);
	}
	return rc;
}

static int load_file(const struct cli_common *o, double **out, size_t *count)
{
	const char *path = o->position_ids;
	const struct cli_memtable *mt = cli_memtable_find(path);
	if (mt)
		return load_memtable(o, mt, out, count);
	FILE *f = fopen(path, "rb");
	if (!f)
		return cli_error("option '--position-ids': '%s': %s", path, strerror(errno));
	struct stat sb;
	int known = fstat(fileno(f), &sb) == 0;
	int regular = known && S_ISREG(sb.st_mode);
	if (known && S_ISDIR(sb.st_mode)) {
		fclose(f);
		return cli_error("option '--position-ids': '%s': is a directory", path);
	}
	/* A file's reading by its size, before it is read (a pipe's size is not known). */
	if (regular) {
		char head[6];
		size_t got = fread(head, 1, sizeof(head), f);
		int npy = has_npy_magic(head, got);
		char what[128];
		snprintf(what, sizeof(what), "option '--position-ids': reading %.0f MB of %s",
		         (double)sb.st_size / 1e6, npy ? "NPY" : "text");
		int rc =
		        fseek(f, 0, SEEK_SET) != 0
		                ? cli_error("option '--position-ids': '%s': cannot seek", path)
		                : cli_check_time(o,
		                                 (double)sb.st_size * (npy ? CLI_COST_IDS_NPY_BYTE
		                                                           : CLI_COST_IDS_CSV_BYTE),
		                                 what, "give fewer position ids");
		if (rc) {
			fclose(f);
			return rc;
		}
	}
	/* The text, then at most 24 bytes of doubles per 6 bytes of text ("0,0,0\n"). */
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	int rc = buf ? 0 : cli_error("option '--position-ids': out of memory");
	while (!rc) {
		if (len == cap) {
			rc = cli_check_memory(o, 6.0 * (double)cap, "option '--position-ids'",
			                      "give fewer position ids");
			char *grown = rc ? NULL : realloc(buf, 2 * cap);
			if (!rc && !grown)
				rc = cli_error("option '--position-ids': out of memory");
			if (rc)
				break;
			buf = grown;
			cap *= 2;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		/* a NUL byte is no CSV text: say so now, not after reading /dev/urandom
		 * to the memory budget */
		/* NPY's magic has no NUL: a NUL before it is complete is no NPY either */
		if (got && memchr(buf + len - got, 0, got) &&
		    !(len >= 6 && has_npy_magic(buf, len))) {
			rc = cli_error(
			        "option '--position-ids': '%s': binary data, neither CSV text "
			        "nor NPY",
			        path);
			break;
		}
		if (got == 0) {
			if (ferror(f))
				rc = cli_error("option '--position-ids': '%s': read error", path);
			break;
		}
	}
	fclose(f);
	if (!rc)
		rc = has_npy_magic(buf, len) ? parse_npy(path, buf, len, out, count)
		                             : parse_csv(path, buf, len, out, count);
	free(buf);
	if (!rc && *count == 0) {
		free(*out);
		rc = cli_error("option '--position-ids': '%s' has no position ids", path);
	}
	return rc;
}

int cli_position_ids_apply(const struct cli_common *o, struct pe_scheme *s, size_t *count)
{
	if (!is_mrope(s))
		return cli_usage_error("option '--position-ids': (t, h, w) position ids are for "
		                       "mrope specs; '%s' has one position per token (--start, -n)",
		                       s->canonical);
	double *thw = NULL;
	int rc = load(o, &thw, count);
	if (rc)
		return rc;
	char *err = NULL;
	enum pe_status st = pe_mrope_set_positions(s, thw, *count, &err);
	free(thw);
	if (st == PE_ENOMEM)
		rc = cli_error("option '--position-ids': out of memory");
	else if (st != PE_OK)
		rc = st == PE_EINVAL /* the spec and the option disagree: usage */
		             ? cli_usage_error("option '--position-ids': '%s': %s", o->position_ids,
		                               err ? err : pe_status_str(st))
		             /* the file's values: a malformed input file */
		             : cli_error("option '--position-ids': '%s': %s", o->position_ids,
		                         err ? err : pe_status_str(st));
	free(err);
	return rc;
}

static void say_ids(const struct pe_scheme *s, const char *what, uint64_t q)
{
	double p[3];
	if (pe_mrope_position(s, q, p) == PE_OK)
		cli_eprintf("%s (%.17g,%.17g,%.17g)", what, p[0], p[1], p[2]);
}

int cli_position_ids_note(const struct cli_common *o, const struct pe_scheme *s, uint64_t first,
                          size_t n)
{
	if (!is_mrope(s) || n == 0)
		return 0;
	uint64_t last = first + n - 1;
	double top[3];
	/* The ids grow with the token past the grid: the last token has the largest. */
	if (pe_mrope_position(s, last, top) == PE_ERANGE)
		return cli_usage_error("scheme '%s': the position ids of tokens up to %llu pass "
		                       "2^53, the last exact position",
		                       s->canonical, (unsigned long long)last);
	if (o->quiet)
		return 0;
	cli_eprintf("posenc: %s: M-RoPE position ids (t,h,w) of tokens %llu..%llu: ", s->label,
	            (unsigned long long)first, (unsigned long long)last);
	const unsigned *g = s->mrope_grid;
	if (s->mrope_positions) {
		cli_eprintf("rows %llu..%llu of %s", (unsigned long long)first,
		            (unsigned long long)last, o->position_ids);
	} else if (!g[0]) {
		/* cli_eprintf escapes control characters: the line ends apart */
		cli_eprintf("text, t = h = w = token (plain RoPE)");
		fputc('\n', stderr);
		return 0;
	} else {
		unsigned long long t0 = s->mrope_text,
		                   g0 = t0 + (unsigned long long)g[0] * g[1] * g[2];
		if (t0)
			cli_eprintf("text 0..%llu at t = h = w = token; ", t0 - 1);
		double after[3] = {0, 0, 0};
		pe_mrope_position(s, g0, after);
		cli_eprintf(
		        "a %ux%ux%u grid %llu..%llu at t = %llu + floor(frame x %.17g), h = %llu + "
		        "row, w = %llu + column; text from %llu on at t = h = w = %.17g + ...",
		        g[0], g[1], g[2], t0, g0 - 1, t0, s->mrope_tstep, t0, t0, g0, after[0]);
	}
	say_ids(s, "; first", first);
	say_ids(s, ", last", last);
	fputc('\n', stderr);
	return 0;
}
