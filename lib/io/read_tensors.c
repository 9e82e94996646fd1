/*
 * A checkpoint's tensors by name: one safetensors file, the shards of an
 * index JSON, or an .npy array; headers parsed once (pe_file_inspect(),
 * which reads only them), data read by offset a slice at a time.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <posenc/tensors.h>

#include "core/strutil.h"
#include "io/read_gguf.h"
#include "io/read_internal.h"
#include "io/read_json.h"
#include "io/tensor_store_internal.h"

struct shard {
	char *path;
	int fd;
	uint64_t size;
	struct pe_file_info *info;
	struct gguf *gguf; /* a GGUF file's metadata; NULL for the rest */
};

struct ref {
	const char *name;
	size_t shard;
	const struct pe_tensor_info *t;
};

struct pe_tensor_store {
	struct shard *shards;
	size_t n_shards;
	struct ref *refs; /* in file order */
	struct ref *by_name;
	size_t count;
	uint64_t bytes_read;
};

#define PIECE ((size_t)1 << 20)

static int ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* Bytes [off, off + n) of a file; a short read means it shrank. */
static enum pe_status pread_all(int fd, void *dst, uint64_t off, size_t n, char **err)
{
	unsigned char *p = dst;
	while (n) {
		ssize_t got = pread(fd, p, n, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return rd_fail(err, PE_EIO, "%s", strerror(errno));
		if (got == 0)
			return rd_fail(err, PE_EIO, "the file shrank while it was being read");
		p += got;
		off += (uint64_t)got;
		n -= (size_t)got;
	}
	return PE_OK;
}

/* ggml's type names (ggml.h enum ggml_type), spelt as safetensors spells its dtypes
 * where the two share one (F32, F16, BF16, F64, I8..I64): only those four floats convert. */
static int elem_of(const char *dtype, enum rd_elem *e, int *big);

static const char *ggml_type_name(uint32_t type)
{
	static const char *const names[] = {
	        "F32",   "F16",        "Q4_0",       "Q4_1",       "Q4_2",     "Q4_3",     "Q5_0",
	        "Q5_1",  "Q8_0",       "Q8_1",       "Q2_K",       "Q3_K",     "Q4_K",     "Q5_K",
	        "Q6_K",  "Q8_K",       "IQ2_XXS",    "IQ2_XS",     "IQ3_XXS",  "IQ1_S",    "IQ4_NL",
	        "IQ3_S", "IQ2_S",      "IQ4_XS",     "I8",         "I16",      "I32",      "I64",
	        "F64",   "IQ1_M",      "BF16",       "Q4_0_4_4",   "Q4_0_4_8", "Q4_0_8_8", "TQ1_0",
	        "TQ2_0", "IQ4_NL_4_4", "IQ4_NL_4_8", "IQ4_NL_8_8", "MXFP4",    "NVFP4",    "Q1_0",
	        "Q2_0",
	};
	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

static int gguf_src_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	return pread_all(*(int *)ctx, buf, off, len, NULL) == PE_OK ? 0 : -1;
}

/*
 * A GGUF file's tensors as a store lists them: ggml's dimensions run
 * fastest first (ne[0] is the row length), so a torch [out, in] weight is
 * stored with ne = [in, out]; the shape here is ne reversed, row-major like
 * safetensors, and elements are read in the same order.
 */
static enum pe_status gguf_open(struct shard *sh, uint64_t *budget_left, char **err)
{
	struct gguf_source src = {gguf_src_read, &sh->fd, sh->size};
	uint64_t budget = *budget_left == UINT64_MAX ? ((uint64_t)1 << 30) : *budget_left;
	enum pe_status st = gguf_read(&src, gguf_all_tensors, budget, &sh->gguf, err);
	if (st != PE_OK)
		return st;
	/* the store's own description of each tensor, beside gguf_read's */
	uint64_t need = (uint64_t)sh->gguf->n_tensors * (sizeof(struct pe_tensor_info) + 64);
	if (*budget_left != UINT64_MAX) {
		if (need > *budget_left)
			return rd_fail(err, PE_ETOOBIG,
			               "the GGUF's %zu tensor infos need %.1f MiB, more than the "
			               "memory left (%.1f MiB)",
			               sh->gguf->n_tensors, (double)need / 1048576.0,
			               (double)*budget_left / 1048576.0);
		*budget_left -= need;
	}
	sh->info = calloc(1, sizeof(*sh->info));
	if (!sh->info)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	sh->info->format = PE_FORMAT_UNKNOWN;
	const struct gguf *g = sh->gguf;
	sh->info->tensors = calloc(g->n_tensors ? g->n_tensors : 1, sizeof(*sh->info->tensors));
	if (!sh->info->tensors)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	for (size_t i = 0; i < g->n_tensors; i++) {
		const struct gguf_tensor *gt = &g->tensors[i];
		struct pe_tensor_info *t = &sh->info->tensors[i];
		const char *type = ggml_type_name(gt->type);
		if (!(t->name = pe_strdup(gt->name)))
			return rd_fail(err, PE_ENOMEM, "out of memory");
		sh->info->count = i + 1;
		if (type)
			snprintf(t->dtype, sizeof(t->dtype), "%s", type);
		else
			snprintf(t->dtype, sizeof(t->dtype), "type %u", (unsigned)gt->type);
		t->ndim = gt->n_dims;
		uint64_t n = 1;
		for (uint32_t k = 0; k < gt->n_dims; k++) {
			t->shape[k] = gt->dims[gt->n_dims - 1 - k];
			if (t->shape[k] && n > UINT64_MAX / 8 / t->shape[k])
				return rd_fail(err, PE_EFORMAT, "tensor '%s': too many elements",
				               gt->name);
			n *= t->shape[k];
		}
		t->offset = gt->offset;
		enum rd_elem e;
		int big;
		if (elem_of(t->dtype, &e, &big)) {
			t->nbytes = n * rd_elem_size(e);
			if (t->offset > sh->size || t->nbytes > sh->size - t->offset)
				return rd_fail(
				        err, PE_EFORMAT,
				        "tensor '%s': its %llu bytes at %llu run past the end "
				        "of the file",
				        gt->name, (unsigned long long)t->nbytes,
				        (unsigned long long)t->offset);
		}
	}
	return PE_OK;
}

/*
 * Opens one file and lists its tensors. Only the header is read, into a
 * buffer of its own size: nothing of the size of the file is allocated or
 * mapped, so a checkpoint of any size opens under ulimit -v.
 */
static enum pe_status shard_open(struct shard *sh, uint64_t *budget_left, char **err)
{
	/* O_NONBLOCK: a FIFO is refused at once instead of waiting for a writer */
	sh->fd = open(sh->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (sh->fd < 0)
		return rd_fail(err, PE_EIO, "%s", strerror(errno));
	struct stat sb;
	if (fstat(sh->fd, &sb) != 0)
		return rd_fail(err, PE_EIO, "%s", strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return rd_fail(err, PE_EFORMAT, "not a regular file");
	sh->size = (uint64_t)sb.st_size;
	/* The header length and the '{' after it: by its bytes a safetensors file is one
	 * whatever its name (the name decides only when the bytes do not). */
	unsigned char head[9] = {0};
	size_t seen = sh->size < 9 ? (size_t)sh->size : 9;
	enum pe_status st = pread_all(sh->fd, head, 0, seen, err);
	if (st != PE_OK)
		return st;
	size_t got = seen < 8 ? seen : 8;
	if (seen >= 4 && memcmp(head, "GGUF", 4) == 0)
		return gguf_open(sh, budget_left, err);
	if (pe_file_format_detect(head, seen, sh->path) != PE_FORMAT_SAFETENSORS) {
		/* .npy and the rest: their own inspector, which reads the header only */
		if ((st = pe_file_inspect(sh->path, &sh->info, err)) != PE_OK)
			return st;
		if (sh->info->format != PE_FORMAT_NPY)
			return rd_fail(err, PE_EFORMAT, "a %s file holds no tensors by name",
			               pe_file_format_name(sh->info->format));
		return PE_OK;
	}
	sh->info = calloc(1, sizeof(*sh->info));
	if (!sh->info)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	uint64_t hl = 0;
	for (int i = 7; i >= 0; i--)
		hl = hl << 8 | head[i];
	/* Past the limit or the file's end: the parser says so from the 8 bytes. */
	if (got < 8 || hl > PE_SAFETENSORS_HEADER_MAX || hl > sh->size - 8)
		return rd_safetensors_inspect_header(head, got, sh->size, sh->info, err);
	/* The parsed header holds about twice its text. */
	if (*budget_left != UINT64_MAX) {
		if (3 * hl > *budget_left)
			return rd_fail(err, PE_ETOOBIG,
			               "the safetensors header of %.1f MiB needs about %.1f MiB to "
			               "read and parse, more than the memory left (%.1f MiB)",
			               (double)hl / 1048576.0, 3.0 * (double)hl / 1048576.0,
			               (double)*budget_left / 1048576.0);
		*budget_left -= 3 * hl;
	}
	unsigned char *buf = malloc(8 + (size_t)hl);
	if (!buf)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	memcpy(buf, head, 8);
	st = pread_all(sh->fd, buf + 8, 8, (size_t)hl, err);
	if (st == PE_OK)
		st = rd_safetensors_inspect_header(buf, 8 + (size_t)hl, sh->size, sh->info, err);
	free(buf);
	return st;
}

static int ref_cmp(const void *pa, const void *pb)
{
	const struct ref *a = pa, *b = pb;
	if (!a->name || !b->name)
		return a->name ? 1 : b->name ? -1 : 0;
	return strcmp(a->name, b->name);
}

/* The shard files of an index, each named once, in the order they first appear. */
static enum pe_status index_shards(const char *path, struct pe_tensor_store *s, struct json **root,
                                   char **err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO: refused, not waited on */
	if (fd < 0)
		return rd_fail(err, PE_EIO, "%s", strerror(errno));
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > (1 << 28)) {
		close(fd);
		return rd_fail(err, PE_EFORMAT, "not a regular file of at most 256 MiB");
	}
	size_t len = (size_t)sb.st_size;
	char *text = malloc(len ? len : 1);
	if (!text) {
		close(fd);
		return rd_fail(err, PE_ENOMEM, "out of memory");
	}
	enum pe_status st = pread_all(fd, text, 0, len, err);
	close(fd);
	if (st != PE_OK) {
		free(text);
		return st;
	}
	char *jerr = NULL;
	*root = json_parse(text, len, &jerr);
	free(text);
	if (!*root) {
		st = rd_fail(err, PE_EFORMAT, "index: %s", jerr ? jerr : "malformed JSON");
		free(jerr);
		return st;
	}
	const struct json *map = NULL;
	if ((*root)->type == JSON_OBJECT)
		for (size_t i = 0; i < (*root)->n; i++)
			if (strcmp((*root)->keys[i], "weight_map") == 0)
				map = &(*root)->items[i];
	if (!map || map->type != JSON_OBJECT)
		return rd_fail(err, PE_EFORMAT, "index: no \"weight_map\" object");
	if (map->n == 0)
		return rd_fail(err, PE_EFORMAT, "index: the weight_map is empty");
	size_t dir_len = strrchr(path, '/') ? (size_t)(strrchr(path, '/') - path) + 1 : 0;
	s->shards = calloc(map->n, sizeof(*s->shards));
	if (!s->shards)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	for (size_t i = 0; i < map->n; i++) {
		const struct json *v = &map->items[i];
		if (v->type != JSON_STRING)
			return rd_fail(err, PE_EFORMAT,
			               "index: weight_map['%s'] is not a file name", map->keys[i]);
		if (!*v->string || strchr(v->string, '/') || strcmp(v->string, "..") == 0 ||
		    strcmp(v->string, ".") == 0)
			return rd_fail(err, PE_EFORMAT,
			               "index: weight_map['%s'] = '%s' is not a file name in the "
			               "index's folder",
			               map->keys[i], v->string);
		size_t k = 0;
		for (; k < s->n_shards; k++)
			if (strcmp(s->shards[k].path + dir_len, v->string) == 0)
				break;
		if (k < s->n_shards)
			continue;
		char *p = pe_asprintf("%.*s%s", (int)dir_len, path, v->string);
		if (!p)
			return rd_fail(err, PE_ENOMEM, "out of memory");
		s->shards[s->n_shards].path = p;
		s->shards[s->n_shards].fd = -1;
		s->n_shards++;
	}
	return PE_OK;
}

/* Each name of the index in the shard it names, and no tensor twice. */
static enum pe_status index_check(const struct pe_tensor_store *s, const struct json *root,
                                  size_t dir_len, char **err)
{
	for (size_t i = 1; i < s->count; i++)
		if (s->by_name[i].name && s->by_name[i - 1].name &&
		    strcmp(s->by_name[i].name, s->by_name[i - 1].name) == 0)
			return rd_fail(err, PE_EFORMAT,
			               "tensor '%s' is in two shards, '%s' and '%s'",
			               s->by_name[i].name, s->shards[s->by_name[i - 1].shard].path,
			               s->shards[s->by_name[i].shard].path);
	const struct json *map = NULL;
	for (size_t i = 0; i < root->n; i++)
		if (strcmp(root->keys[i], "weight_map") == 0)
			map = &root->items[i];
	for (size_t i = 0; i < map->n; i++) {
		const struct pe_tensor_info *t = pe_tensor_store_find(s, map->keys[i]);
		if (!t)
			return rd_fail(err, PE_EFORMAT,
			               "index: tensor '%s' is not in its shard '%s'", map->keys[i],
			               map->items[i].string);
		for (size_t k = 0; k < s->count; k++)
			if (s->refs[k].t == t && strcmp(s->shards[s->refs[k].shard].path + dir_len,
			                                map->items[i].string) != 0)
				return rd_fail(err, PE_EFORMAT,
				               "index: tensor '%s' is in '%s', the index says '%s'",
				               map->keys[i], s->shards[s->refs[k].shard].path,
				               map->items[i].string);
	}
	return PE_OK;
}

enum pe_status pe_tensor_store_open(const char *path, uint64_t budget, struct pe_tensor_store **out,
                                    char **err)
{
	if (err)
		*err = NULL;
	*out = NULL;
	struct pe_tensor_store *s = calloc(1, sizeof(*s));
	if (!s)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	struct json *root = NULL;
	enum pe_status st = PE_OK;
	int is_index = ends_with(path, ".json");
	if (is_index) {
		st = index_shards(path, s, &root, err);
	} else {
		s->shards = calloc(1, sizeof(*s->shards));
		if (!s->shards || !(s->shards[0].path = pe_strdup(path)))
			st = rd_fail(err, PE_ENOMEM, "out of memory");
		else {
			s->shards[0].fd = -1;
			s->n_shards = 1;
		}
	}
	uint64_t left = budget ? budget : UINT64_MAX;
	for (size_t i = 0; st == PE_OK && i < s->n_shards; i++) {
		char *e = NULL;
		st = shard_open(&s->shards[i], &left, err ? &e : NULL);
		if (st != PE_OK && err) {
			*err = is_index ? pe_asprintf("shard '%s': %s", s->shards[i].path,
			                              e ? e : pe_status_str(st))
			                : e;
			if (is_index)
				free(e);
		}
		if (st == PE_OK) {
			if (is_index && (s->shards[i].gguf ||
			                 s->shards[i].info->format != PE_FORMAT_SAFETENSORS))
				st = rd_fail(err, PE_EFORMAT,
				             "shard '%s' is not a safetensors file",
				             s->shards[i].path);
			else
				s->count += s->shards[i].info->count;
		}
	}
	if (st == PE_OK) {
		s->refs = calloc(s->count ? s->count : 1, sizeof(*s->refs));
		s->by_name = calloc(s->count ? s->count : 1, sizeof(*s->by_name));
		if (!s->refs || !s->by_name)
			st = rd_fail(err, PE_ENOMEM, "out of memory");
	}
	if (st == PE_OK) {
		size_t k = 0;
		for (size_t i = 0; i < s->n_shards; i++)
			for (size_t j = 0; j < s->shards[i].info->count; j++, k++)
				s->refs[k] = (struct ref){s->shards[i].info->tensors[j].name, i,
				                          &s->shards[i].info->tensors[j]};
		memcpy(s->by_name, s->refs, s->count * sizeof(*s->refs));
		qsort(s->by_name, s->count, sizeof(*s->by_name), ref_cmp);
		/* gguf_read() leaves a GGUF's duplicate names to this sorted check */
		for (size_t i = 1; st == PE_OK && !is_index && i < s->count; i++)
			if (s->by_name[i].name && s->by_name[i - 1].name &&
			    strcmp(s->by_name[i].name, s->by_name[i - 1].name) == 0)
				st = rd_fail(err, PE_EFORMAT, "tensor '%s' appears twice",
				             s->by_name[i].name);
		if (st == PE_OK && is_index) {
			size_t dir_len =
			        strrchr(path, '/') ? (size_t)(strrchr(path, '/') - path) + 1 : 0;
			st = index_check(s, root, dir_len, err);
		}
	}
	json_free(root);
	if (st != PE_OK) {
		pe_tensor_store_destroy(s);
		return st;
	}
	*out = s;
	return PE_OK;
}

size_t pe_tensor_store_count(const struct pe_tensor_store *s)
{
	return s ? s->count : 0;
}

const struct pe_tensor_info *pe_tensor_store_info(const struct pe_tensor_store *s, size_t i)
{
	return s && i < s->count ? s->refs[i].t : NULL;
}

const struct pe_tensor_info *pe_tensor_store_find(const struct pe_tensor_store *s, const char *name)
{
	if (!s || !name)
		return NULL;
	size_t lo = 0, hi = s->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = s->by_name[mid].name ? strcmp(s->by_name[mid].name, name) : 1;
		if (c == 0)
			return s->by_name[mid].t;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The element encoding of a dtype, as safetensors or NPY spell it. */
static int elem_of(const char *dtype, enum rd_elem *e, int *big)
{
	static const struct {
		const char *name;
		enum rd_elem e;
		int big;
	} map[] = {
	        {"F64", RD_F64, 0}, {"F32", RD_F32, 0}, {"F16", RD_F16, 0}, {"BF16", RD_BF16, 0},
	        {"<f8", RD_F64, 0}, {"<f4", RD_F32, 0}, {"<f2", RD_F16, 0}, {">f8", RD_F64, 1},
	        {">f4", RD_F32, 1}, {">f2", RD_F16, 1},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(map[i].name, dtype) == 0) {
			*e = map[i].e;
			*big = map[i].big;
			return 1;
		}
	return 0;
}

int pe_tensor_store_readable(const struct pe_tensor_info *t)
{
	enum rd_elem e;
	int big;
	return t && elem_of(t->dtype, &e, &big);
}

static uint64_t nelem(const struct pe_tensor_info *t)
{
	uint64_t n = 1;
	for (size_t i = 0; i < t->ndim; i++)
		n *= t->shape[i];
	return n;
}

enum pe_status pe_tensor_store_read(struct pe_tensor_store *s, const struct pe_tensor_info *t,
                                    uint64_t first, size_t count, double *dst, char **err)
{
	if (err)
		*err = NULL;
	const struct shard *sh = NULL;
	for (size_t i = 0; s && t && i < s->n_shards && !sh; i++)
		if (t >= s->shards[i].info->tensors &&
		    t < s->shards[i].info->tensors + s->shards[i].info->count)
			sh = &s->shards[i];
	if (!sh)
		return rd_fail(err, PE_EINVAL, "the tensor is not one of this store");
	enum rd_elem e;
	int big;
	const char *name = t->name ? t->name : "array";
	if (!elem_of(t->dtype, &e, &big))
		return rd_fail(err, PE_EFORMAT,
		               "tensor '%s' has dtype %s; readable dtypes: F64, F32, F16, BF16",
		               name, t->dtype);
	if (sh->info->format == PE_FORMAT_NPY && sh->info->fortran_order && t->ndim > 1)
		return rd_fail(err, PE_EFORMAT, "a Fortran-order array is not read by slices");
	uint64_t n = nelem(t);
	if (first > n || count > n - first)
		return rd_fail(err, PE_ERANGE,
		               "elements %llu..%llu are past the end of '%s' (%llu)",
		               (unsigned long long)first, (unsigned long long)(first + count), name,
		               (unsigned long long)n);
	size_t size = rd_elem_size(e);
	unsigned char *buf = malloc(PIECE);
	if (!buf)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	enum pe_status st = PE_OK;
	size_t per = PIECE / size;
	for (size_t done = 0; done < count && st == PE_OK;) {
		size_t k = count - done < per ? count - done : per;
		st = pread_all(sh->fd, buf, t->offset + (first + done) * size, k * size, err);
		if (st == PE_OK) {
			rd_convert(buf, e, big, k, 1, dst + done);
			s->bytes_read += k * size;
		}
		done += k;
	}
	free(buf);
	return st;
}

const struct gguf *rd_tensor_store_gguf(const struct pe_tensor_store *s)
{
	return s && s->n_shards == 1 ? s->shards[0].gguf : NULL;
}

uint64_t pe_tensor_store_bytes_read(const struct pe_tensor_store *s)
{
	return s ? s->bytes_read : 0;
}

size_t pe_tensor_store_files(const struct pe_tensor_store *s)
{
	return s ? s->n_shards : 0;
}

void pe_tensor_store_destroy(struct pe_tensor_store *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_shards; i++) {
		if (s->shards[i].fd >= 0)
			close(s->shards[i].fd);
		free(s->shards[i].path);
		pe_file_info_destroy(s->shards[i].info);
		gguf_free(s->shards[i].gguf);
	}
	free(s->shards);
	free(s->refs);
	free(s->by_name);
	free(s);
}
