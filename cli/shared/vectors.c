#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/read.h>

#include "cli.h"
#include "shared/memio.h"
#include "shared/position_ids.h"
#include "shared/vectors.h"

/* A file's table; its problems are reported as "'FILE': <what is wrong>". */
static int load_file(const struct cli_common *o, const struct pe_scheme *s, struct pe_matrix **out)
{
	char *err = NULL;
	size_t budget = o->max_memory > SIZE_MAX ? SIZE_MAX : (size_t)o->max_memory;
	const struct cli_memtable *mt = cli_memtable_find(s->path);
	int rc0 = mt ? 0 : cli_check_csv_read(o, s->path, "save the table as .npy, read at once");
	if (rc0)
		return rc0;
	struct pe_read_request req = {s->tensor, s->row_first, s->row_end, s->row_end_set, 0};
	enum pe_status st = mt ? cli_memtable_read(mt, &req, budget, 1, out, &err)
	                       : pe_file_load_limited(s, budget, out, &err);
	if (st == PE_OK)
		return 0;
	if (st == PE_ETOOBIG) {
		int rc = cli_error("'%s': %s (--max-memory): read fewer rows (rows=A:B in the "
		                   "spec) or raise --max-memory",
		                   s->path, err ? err : pe_status_str(st));
		free(err);
		return rc;
	}
	/* rows=A:B outside the table is a bad value in the spec; the rest is the file's. */
	int rc = st == PE_ERANGE
	                 ? cli_usage_error("'%s': %s", s->path, err ? err : pe_status_str(st))
	                 : cli_error("'%s': %s", s->path, err ? err : pe_status_str(st));
	free(err);
	return rc;
}

/*
 * Distances, correlations and dot products square the values: beyond
 * 1e150 the squares overflow to inf, and when every value is below 1e-150
 * they underflow to 0 (and correlations become 0/0). Such a table gives no
 * finite answer, so it is refused, with the value that breaks it, instead
 * of handing inf or nan to a notebook.
 */
#define MAGNITUDE_MAX 1e150
#define MAGNITUDE_MIN 1e-150

static int check_magnitude(const struct pe_scheme *s, const struct pe_matrix *t)
{
	size_t count = t->rows * t->cols, at_max = 0;
	double biggest = 0.0;
	for (size_t i = 0; i < count; i++) {
		double a = fabs(t->data[i]);
		if (a > biggest) {
			biggest = a;
			at_max = i;
		}
	}
	if (biggest > MAGNITUDE_MAX)
		return cli_error(
		        "'%s': value %g at row %zu, column %zu is too large: distances and "
		        "dot products square the values, and squares past 1.8e308 "
		        "overflow (|values| up to %g; scale the table down)",
		        s->path, t->data[at_max], at_max / t->cols + (size_t)s->row_first,
		        at_max % t->cols, MAGNITUDE_MAX);
	if (biggest > 0.0 && biggest < MAGNITUDE_MIN)
		return cli_error("'%s': every value is below %g in size (the largest is %g): their "
		                 "squares underflow to 0, so distances and correlations would be "
		                 "meaningless (scale the table up)",
		                 s->path, MAGNITUDE_MIN, biggest);
	return 0;
}

int cli_vectors_prepare(const struct cli_common *o, const struct pe_scheme *s, enum pe_view view,
                        size_t default_n, size_t default_d, struct cli_vectors *out)
{
	memset(out, 0, sizeof(*out));
	if (!pe_scheme_is_vector(s))
		return cli_usage_error("scheme '%s' is an attention bias, not position vectors: "
		                       "use 'posenc bias'",
		                       s->canonical);
	struct pe_vectors *v = &out->vec;
	v->scheme = s;
	v->view = view;
	v->first = o->start;
	size_t ids = 0;
	if (o->position_ids) {
		/* The scheme is the command's own heap object (as for length= below). */
		int rc = cli_position_ids_apply(o, (struct pe_scheme *)s, &ids);
		if (rc)
			return rc;
		if (o->start >= ids)
			return cli_usage_error("option '--start': %llu is past the %zu tokens of "
			                       "'%s'",
			                       (unsigned long long)o->start, ids, o->position_ids);
		if (o->n && o->n > ids - (size_t)o->start)
			return cli_usage_error("option '-n': tokens %llu..%llu are past the %zu "
			                       "tokens of '%s'",
			                       (unsigned long long)o->start,
			                       (unsigned long long)(o->start + o->n - 1), ids,
			                       o->position_ids);
		default_n = ids - (size_t)o->start;
	}
	if (pe_scheme_has(s, PE_CAP_TABLE)) {
		if (view != PE_VIEW_DEFAULT)
			return cli_usage_error("option '--view' applies to rope, not '%s'",
			                       s->canonical);
		int rc = load_file(o, s, &out->table);
		if (rc)
			return rc;
		v->table = out->table;
		v->d = out->table->cols;
		/* encode only converts the table; every other analysis squares it. */
		int squares = !cli_command_name || strcmp(cli_command_name, "encode") != 0;
		if (squares && (rc = check_magnitude(s, out->table))) {
			cli_vectors_finish(out);
			return rc;
		}
		if (o->d && o->d != v->d) {
			cli_vectors_finish(out);
			return cli_usage_error(
			        "option '-d': %zu differs from the %zu columns of '%s'", o->d, v->d,
			        s->path);
		}
		size_t rows = out->table->rows;
		if (o->start >= rows) {
			cli_vectors_finish(out);
			return cli_usage_error(
			        "option '--start': %llu is past the %zu rows of '%s'",
			        (unsigned long long)o->start, rows, s->path);
		}
		v->n = o->n ? o->n : rows - (size_t)o->start;
		if (v->n > rows - (size_t)o->start) {
			cli_vectors_finish(out);
			return cli_usage_error(
			        "option '-n': rows %llu..%llu are past the %zu rows of "
			        "'%s'",
			        (unsigned long long)o->start,
			        (unsigned long long)(o->start + o->n - 1), rows, s->path);
		}
		return 0;
	}
	v->n = o->n ? o->n : default_n;
	v->d = cli_scheme_width(o, s, default_d);
	const char *why = NULL;
	enum pe_status st = pe_encode_check(s, v->d, view, &why);
	if (st != PE_OK)
		return cli_usage_error("scheme '%s' with d=%zu: %s", s->canonical, v->d,
		                       why ? why : pe_status_str(st));
	uint64_t limit = (uint64_t)PE_POSITION_MAX - pe_scheme_position_offset(s);
	if (o->start > limit || (uint64_t)v->n - 1 > limit - o->start)
		return cli_usage_error("positions %llu..%llu go past 2^53, the last exact position",
		                       (unsigned long long)o->start,
		                       (unsigned long long)o->start + (unsigned long long)v->n - 1);
	int rc = cli_position_ids_note(o, s, o->start, v->n);
	if (rc)
		return rc;
	if (pe_scheme_has(s, PE_CAP_SCALING) && s->scaling.length == 0.0 &&
	    (s->scaling.type == PE_ROPE_SCALING_DYNAMIC ||
	     s->scaling.type == PE_ROPE_SCALING_LONGROPE)) {
		/* The reference evaluates these at the sequence length, the largest
		 * position + 1. The scheme is the command's own heap object. */
		struct pe_scheme *w = (struct pe_scheme *)s;
		w->scaling.length = (double)o->start + (double)v->n;
		cli_note(o->quiet,
		         "%s: %s scaling evaluated at sequence length %.17g (the "
		         "largest position + 1; length= sets another)",
		         s->label,
		         s->scaling.type == PE_ROPE_SCALING_DYNAMIC ? "dynamic" : "longrope",
		         w->scaling.length);
	}
	return 0;
}

size_t cli_scheme_width(const struct cli_common *o, const struct pe_scheme *s, size_t fallback)
{
	if (o->d_given)
		return o->d;
	if (s && s->head)
		return s->head;
	if (s && strcmp(pe_scheme_name(s), "mrope") == 0)
		/* M-RoPE's sections fix its width: a model's mrope spec has no head=, and
		 * the model's head (Qwen 3.5: 256) is wider than the part it rotates (64). */
		return 2 * ((size_t)s->mrope_pairs[0] + s->mrope_pairs[1] + s->mrope_pairs[2]);
	return o->d ? o->d : fallback;
}

void cli_width_list_add(char *list, size_t cap, size_t d)
{
	/* Ascending: "64/96/128" reads as a range, whatever the order of the schemes. */
	size_t at = strlen(list);
	for (const char *p = list; *p;) {
		char *end;
		unsigned long long w = strtoull(p, &end, 10);
		if (w == d)
			return;
		if (w > d) {
			at = (size_t)(p - list);
			break;
		}
		p = *end == '/' ? end + 1 : end;
	}
	size_t len = strlen(list);
	char num[24];
	int nl = snprintf(num, sizeof(num), "%zu", d);
	if (nl < 0 || len + (size_t)nl + 2 > cap)
		return;
	/* "d/" before the first larger width, or "/d" at the end */
	size_t add = (size_t)nl + (len ? 1 : 0);
	memmove(list + at + add, list + at, len - at + 1);
	if (at < len) {
		memcpy(list + at, num, (size_t)nl);
		list[at + (size_t)nl] = '/';
	} else {
		if (len)
			list[at++] = '/';
		memcpy(list + at, num, (size_t)nl);
	}
}

const char *cli_width_label(const char *label, size_t d, int show, char *buf, size_t cap)
{
	if (!show)
		return label;
	snprintf(buf, cap, "%s (d=%zu)", label, d);
	return buf;
}

int cli_vectors_matrix(const struct cli_common *o, const struct cli_vectors *v,
                       struct pe_matrix **out)
{
	const struct pe_vectors *vec = &v->vec;
	char what[128];
	snprintf(what, sizeof(what), "the %zu x %zu matrix", vec->n, vec->d);
	int rc = cli_check_memory(o, (double)vec->n * (double)vec->d * 8.0, what,
	                          "ask for fewer positions (-n) or a smaller width (-d)");
	if (rc)
		return rc;
	struct pe_matrix *m = pe_matrix_create(vec->n, vec->d);
	if (!m)
		return cli_error("%s: out of memory", what);
	enum pe_status st = pe_vectors_rows(vec, 0, vec->n, m->data);
	if (st != PE_OK) {
		pe_matrix_destroy(m);
		return st == PE_ENOMEM ? cli_error("%s: out of memory", what)
		                       : cli_usage_error("%s: %s", what, pe_status_str(st));
	}
	*out = m;
	return 0;
}

void cli_vectors_finish(struct cli_vectors *v)
{
	pe_matrix_destroy(v->table);
	v->table = NULL;
}
