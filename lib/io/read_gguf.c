/*
 * GGUF metadata reader (see read_gguf.h). A cursor walks the file through
 * a small window; every count and length is checked against the bytes that
 * remain before it is used, so a hostile header cannot make us allocate or
 * loop more than the file could describe.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "io/read_gguf.h"

#define KEEP_STRING 4096u
#define KEEP_ARRAY  4096u
#define MAX_KEY     65535u

struct cur {
	const struct gguf_source *src;
	uint64_t off;
	unsigned char win[65536];
	uint64_t win_off; /* file offset of win[0] */
	size_t win_len;
	char **err;
	uint64_t budget;
	uint64_t used;
};

static enum pe_status fail(struct cur *c, enum pe_status st, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static enum pe_status fail(struct cur *c, enum pe_status st, const char *fmt, ...)
{
	if (c->err && !*c->err) {
		va_list ap;
		va_start(ap, fmt);
		char *what = pe_vasprintf(fmt, ap);
		va_end(ap);
		*c->err = what ? pe_asprintf("%s (at byte %llu)", what, (unsigned long long)c->off)
		               : NULL;
		free(what);
	}
	return st;
}

static uint64_t left(const struct cur *c)
{
	return c->src->size - c->off;
}

static enum pe_status take(struct cur *c, void *dst, size_t n)
{
	if (n > left(c))
		return fail(c, PE_EFORMAT, "truncated: %zu bytes needed, %llu left", n,
		            (unsigned long long)left(c));
	unsigned char *d = dst;
	while (n) {
		if (c->off < c->win_off || c->off >= c->win_off + c->win_len) {
			uint64_t want = left(c) < sizeof(c->win) ? left(c) : sizeof(c->win);
			if (c->src->read(c->src->ctx, c->off, c->win, (size_t)want) != 0)
				return fail(c, PE_EIO, "cannot read");
			c->win_off = c->off;
			c->win_len = (size_t)want;
		}
		size_t at = (size_t)(c->off - c->win_off);
		size_t k = c->win_len - at < n ? c->win_len - at : n;
		memcpy(d, c->win + at, k);
		d += k;
		n -= k;
		c->off += k;
	}
	return PE_OK;
}

static enum pe_status skip(struct cur *c, uint64_t n)
{
	if (n > left(c))
		return fail(c, PE_EFORMAT, "truncated: %llu bytes to skip, %llu left",
		            (unsigned long long)n, (unsigned long long)left(c));
	c->off += n;
	return PE_OK;
}

static uint64_t le(const unsigned char *b, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | b[i];
	return v;
}

static enum pe_status u32(struct cur *c, uint32_t *v)
{
	unsigned char b[4];
	enum pe_status st = take(c, b, 4);
	*v = (uint32_t)le(b, 4);
	return st;
}

static enum pe_status u64(struct cur *c, uint64_t *v)
{
	unsigned char b[8];
	enum pe_status st = take(c, b, 8);
	*v = le(b, 8);
	return st;
}

static void *keep(struct cur *c, size_t bytes)
{
	if (bytes > c->budget - c->used) {
		fail(c, PE_ETOOBIG, "the metadata needs more than the memory budget");
		return NULL;
	}
	void *p = malloc(bytes ? bytes : 1);
	if (p)
		c->used += bytes;
	return p;
}

/* A gguf string; kept (NUL-terminated) only when it is at most @max bytes. */
static enum pe_status string(struct cur *c, size_t max, char **out)
{
	uint64_t len;
	enum pe_status st = u64(c, &len);
	*out = NULL;
	if (st != PE_OK)
		return st;
	if (len > left(c))
		return fail(c, PE_EFORMAT, "a string of %llu bytes runs past the end",
		            (unsigned long long)len);
	if (len > max)
		return skip(c, len);
	char *s = keep(c, (size_t)len + 1);
	if (!s)
		return c->err && *c->err ? PE_ETOOBIG : PE_ENOMEM;
	if ((st = take(c, s, (size_t)len)) != PE_OK) {
		free(s);
		return st;
	}
	s[len] = '\0';
	if (memchr(s, '\0', (size_t)len)) {
		free(s);
		return fail(c, PE_EFORMAT, "a string holds a NUL byte");
	}
	*out = s;
	return PE_OK;
}

static size_t type_size(uint32_t t)
{
	switch (t) {
	case GGUF_UINT8:
	case GGUF_INT8:
	case GGUF_BOOL:
		return 1;
	case GGUF_UINT16:
	case GGUF_INT16:
		return 2;
	case GGUF_UINT32:
	case GGUF_INT32:
	case GGUF_FLOAT32:
		return 4;
	case GGUF_UINT64:
	case GGUF_INT64:
	case GGUF_FLOAT64:
		return 8;
	default:
		return 0;
	}
}

static double decode(uint32_t t, const unsigned char *b)
{
	uint64_t v = le(b, type_size(t));
	switch (t) {
	case GGUF_INT8:
		return (double)(int8_t)v;
	case GGUF_INT16:
		return (double)(int16_t)v;
	case GGUF_INT32:
		return (double)(int32_t)v;
	case GGUF_INT64:
		return (double)(int64_t)v;
	case GGUF_FLOAT32: {
		uint32_t w = (uint32_t)v;
		float f;
		memcpy(&f, &w, 4);
		return (double)f;
	}
	case GGUF_FLOAT64: {
		double d;
		memcpy(&d, &v, 8);
		return d;
	}
	default:
		return (double)v;
	}
}

static enum pe_status value(struct cur *c, struct gguf_kv *kv)
{
	unsigned char b[8];
	enum pe_status st;
	size_t sz = type_size(kv->type);
	if (sz) {
		if ((st = take(c, b, sz)) != PE_OK)
			return st;
		kv->num = decode(kv->type, b);
		return PE_OK;
	}
	if (kv->type == GGUF_STRING)
		return string(c, KEEP_STRING, &kv->str);
	if (kv->type != GGUF_ARRAY)
		return fail(c, PE_EFORMAT, "key '%s': unknown value type %u", kv->key,
		            (unsigned)kv->type);
	uint32_t at;
	if ((st = u32(c, &at)) != PE_OK || (st = u64(c, &kv->arr_n)) != PE_OK)
		return st;
	kv->arr_type = (enum gguf_type)at;
	if (at == GGUF_STRING) {
		/* Walk the strings (a vocabulary): each is at least its 8-byte length. */
		if (kv->arr_n > left(c) / 8)
			return fail(c, PE_EFORMAT, "key '%s': %llu strings cannot fit", kv->key,
			            (unsigned long long)kv->arr_n);
		for (uint64_t i = 0; i < kv->arr_n; i++) {
			char *s;
			if ((st = string(c, 0, &s)) != PE_OK)
				return st;
			free(s); /* an empty string is kept by string(); we want none */
		}
		return PE_OK;
	}
	size_t esz = type_size(at);
	if (!esz)
		return fail(c, PE_EFORMAT, "key '%s': arrays of type %u are not GGUF", kv->key,
		            (unsigned)at);
	if (kv->arr_n > left(c) / esz)
		return fail(c, PE_EFORMAT, "key '%s': %llu elements run past the end", kv->key,
		            (unsigned long long)kv->arr_n);
	if (kv->arr_n > KEEP_ARRAY)
		return skip(c, kv->arr_n * esz);
	kv->arr = keep(c, (size_t)kv->arr_n * sizeof(double));
	if (!kv->arr)
		return c->err && *c->err ? PE_ETOOBIG : PE_ENOMEM;
	for (uint64_t i = 0; i < kv->arr_n; i++) {
		if ((st = take(c, b, esz)) != PE_OK)
			return st;
		kv->arr[i] = decode(at, b);
	}
	return PE_OK;
}

const char *const gguf_all_tensors[] = {NULL};

static int wanted(const char *const *want, const char *name)
{
	if (want == gguf_all_tensors)
		return 1;
	for (size_t i = 0; want && want[i]; i++)
		if (strcmp(want[i], name) == 0)
			return 1;
	return 0;
}

static int key_order(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first key (in sorted order) that the file holds twice, in *twice, or NULL. */
static enum pe_status first_duplicate(const struct gguf *g, const char **twice)
{
	*twice = NULL;
	if (g->n_kv < 2)
		return PE_OK;
	const char **keys = malloc(g->n_kv * sizeof(*keys));
	if (!keys)
		return PE_ENOMEM;
	for (size_t i = 0; i < g->n_kv; i++)
		keys[i] = g->kv[i].key;
	qsort(keys, g->n_kv, sizeof(*keys), key_order);
	for (size_t i = 1; i < g->n_kv && !*twice; i++)
		if (strcmp(keys[i - 1], keys[i]) == 0)
			*twice = keys[i];
	free(keys);
	return PE_OK;
}

enum pe_status gguf_read(const struct gguf_source *src, const char *const *want, uint64_t budget,
                         struct gguf **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	struct cur *c = calloc(1, sizeof(*c));
	struct gguf *g = calloc(1, sizeof(*g));
	enum pe_status st = PE_OK;
	if (!c || !g) {
		free(c);
		free(g);
		return PE_ENOMEM;
	}
	c->src = src;
	c->err = err;
	c->budget = budget;
	unsigned char magic[4];
	uint64_t n_tensors = 0, n_kv = 0;
	if ((st = take(c, magic, 4)) != PE_OK)
		goto done;
	if (memcmp(magic, "GGUF", 4) != 0) {
		c->off = 0;
		st = fail(c, PE_EFORMAT, "not a GGUF file (no 'GGUF' magic)");
		goto done;
	}
	if ((st = u32(c, &g->version)) != PE_OK)
		goto done;
	if (g->version == 0 || (g->version & 0xffff) == 0) {
		st = fail(c, PE_EFORMAT, "version %u: a big-endian GGUF file, not supported",
		          (unsigned)g->version);
		goto done;
	}
	if (g->version < 2 || g->version > 3) {
		st = fail(c, PE_EFORMAT, "GGUF version %u (posenc reads versions 2 and 3)",
		          (unsigned)g->version);
		goto done;
	}
	if ((st = u64(c, &n_tensors)) != PE_OK || (st = u64(c, &n_kv)) != PE_OK)
		goto done;
	/* Each pair needs at least a key length, a type and one byte. */
	if (n_kv > left(c) / 13 || n_tensors > left(c) / 24) {
		st = fail(c, PE_EFORMAT, "%llu keys and %llu tensors cannot fit in the file",
		          (unsigned long long)n_kv, (unsigned long long)n_tensors);
		goto done;
	}
	g->kv = keep(c, (size_t)n_kv * sizeof(*g->kv));
	if (!g->kv) {
		st = err && *err ? PE_ETOOBIG : PE_ENOMEM;
		goto done;
	}
	memset(g->kv, 0, (size_t)n_kv * sizeof(*g->kv));
	uint64_t alignment = 32;
	for (uint64_t i = 0; i < n_kv; i++) {
		struct gguf_kv *kv = &g->kv[g->n_kv];
		uint32_t t;
		if ((st = string(c, MAX_KEY, &kv->key)) != PE_OK)
			goto done;
		if (!kv->key) {
			st = fail(c, PE_EFORMAT, "a key longer than %u bytes", MAX_KEY);
			goto done;
		}
		g->n_kv++;
		if ((st = u32(c, &t)) != PE_OK)
			goto done;
		kv->type = (enum gguf_type)t;
		if ((st = value(c, kv)) != PE_OK)
			goto done;
		if (strcmp(kv->key, "general.alignment") == 0) {
			if (kv->type != GGUF_UINT32 || kv->num < 1 || kv->num > 65536 ||
			    ((uint64_t)kv->num & ((uint64_t)kv->num - 1))) {
				st = fail(c, PE_EFORMAT,
				          "general.alignment: not a power of two up to 65536");
				goto done;
			}
			alignment = (uint64_t)kv->num;
		}
	}
	/* gguf.cpp refuses a file with a key twice: which one holds is not defined */
	const char *twice = NULL;
	if ((st = first_duplicate(g, &twice)) != PE_OK)
		goto done;
	if (twice) {
		st = fail(c, PE_EFORMAT, "key '%s' appears twice", twice);
		goto done;
	}
	struct gguf_tensor *kept = NULL;
	size_t cap = 0;
	for (uint64_t i = 0; i < n_tensors; i++) {
		char *name;
		uint32_t nd, type;
		uint64_t dims[4] = {1, 1, 1, 1}, offset;
		if ((st = string(c, MAX_KEY, &name)) != PE_OK)
			goto done;
		if (!name) {
			st = fail(c, PE_EFORMAT, "a tensor name longer than %u bytes", MAX_KEY);
			goto done;
		}
		st = u32(c, &nd);
		if (st == PE_OK && (nd == 0 || nd > 4))
			st = fail(c, PE_EFORMAT, "tensor '%s': %u dimensions (1 to 4)", name,
			          (unsigned)nd);
		for (uint32_t k = 0; st == PE_OK && k < nd; k++)
			st = u64(c, &dims[k]);
		if (st == PE_OK)
			st = u32(c, &type);
		if (st == PE_OK)
			st = u64(c, &offset);
		if (st != PE_OK || !wanted(want, name)) {
			free(name);
			if (st != PE_OK)
				goto done;
			continue;
		}
		/* every tensor: its names are checked once sorted (the tensor store does),
		 * not against each other here, which would take n^2 */
		for (size_t k = 0; want != gguf_all_tensors && k < g->n_tensors; k++)
			if (strcmp(g->tensors[k].name, name) == 0) {
				st = fail(c, PE_EFORMAT, "tensor '%s' appears twice", name);
				free(name);
				goto done;
			}
		/* a name and an info each: counted against the budget like the keys */
		size_t cost = strlen(name) + 1 + sizeof(*kept);
		if (cost > c->budget - c->used) {
			free(name);
			st = fail(c, PE_ETOOBIG,
			          "the tensor infos need more than the memory budget");
			goto done;
		}
		c->used += cost;
		if (g->n_tensors == cap) {
			cap = cap ? 2 * cap : 16;
			kept = realloc(g->tensors, cap * sizeof(*kept));
			if (!kept) {
				free(name);
				st = PE_ENOMEM;
				goto done;
			}
			g->tensors = kept;
		}
		struct gguf_tensor *t = &g->tensors[g->n_tensors++];
		t->name = name;
		t->n_dims = nd;
		memcpy(t->dims, dims, sizeof(dims));
		t->type = type;
		t->offset = offset; /* relative for now */
	}
	/* The data section starts at the next multiple of the alignment. */
	uint64_t data = (c->off + alignment - 1) / alignment * alignment;
	for (size_t i = 0; i < g->n_tensors; i++) {
		struct gguf_tensor *t = &g->tensors[i];
		if (t->offset > UINT64_MAX - data || t->offset % alignment) {
			st = fail(c, PE_EFORMAT, "tensor '%s': offset %llu is not aligned", t->name,
			          (unsigned long long)t->offset);
			goto done;
		}
		t->offset += data;
	}
done:
	free(c);
	if (st != PE_OK) {
		if (st == PE_ENOMEM && err && !*err)
			*err = pe_strdup("out of memory");
		gguf_free(g);
		return st;
	}
	*out = g;
	return PE_OK;
}

const struct gguf_kv *gguf_find(const struct gguf *g, const char *key)
{
	const struct gguf_kv *found = NULL;
	for (size_t i = 0; i < g->n_kv; i++)
		if (strcmp(g->kv[i].key, key) == 0)
			found = &g->kv[i];
	return found;
}

const struct gguf_tensor *gguf_tensor(const struct gguf *g, const char *name)
{
	for (size_t i = 0; i < g->n_tensors; i++)
		if (strcmp(g->tensors[i].name, name) == 0)
			return &g->tensors[i];
	return NULL;
}

static enum pe_status tensor_f32(const struct gguf_source *src, const struct gguf_tensor *t,
                                 double *out, size_t n, int exact)
{
	/* llama.cpp's per-pair factors are 1-D: a 2-D tensor of as many values is
	 * something else (refused, not read flat). */
	if (t->type != 0 || t->n_dims != 1)
		return PE_EUNSUPPORTED;
	uint64_t count = 1;
	for (uint32_t k = 0; k < t->n_dims; k++) {
		if (t->dims[k] && count > UINT64_MAX / t->dims[k])
			return PE_EFORMAT;
		count *= t->dims[k];
	}
	if (exact ? count != n : count < n)
		return PE_EFORMAT;
	if (t->offset > src->size || (uint64_t)n * 4 > src->size - t->offset)
		return PE_EFORMAT;
	for (size_t i = 0; i < n; i++) {
		unsigned char b[4];
		if (src->read(src->ctx, t->offset + 4 * i, b, 4) != 0)
			return PE_EIO;
		out[i] = decode(GGUF_FLOAT32, b);
	}
	return PE_OK;
}

enum pe_status gguf_tensor_f32(const struct gguf_source *src, const struct gguf_tensor *t,
                               double *out, size_t n)
{
	return tensor_f32(src, t, out, n, 1);
}

enum pe_status gguf_tensor_f32_head(const struct gguf_source *src, const struct gguf_tensor *t,
                                    double *out, size_t n)
{
	return tensor_f32(src, t, out, n, 0);
}

void gguf_free(struct gguf *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n_kv; i++) {
		free(g->kv[i].key);
		free(g->kv[i].str);
		free(g->kv[i].arr);
	}
	for (size_t i = 0; i < g->n_tensors; i++)
		free(g->tensors[i].name);
	free(g->kv);
	free(g->tensors);
	free(g);
}
