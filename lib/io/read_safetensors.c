/*
 * safetensors reader, validating the header as huggingface/safetensors
 * safetensors/src/tensor.rs (read_metadata, Metadata::validate) does,
 * plus refusing duplicate names and duplicate fields.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/read.h>

#include "io/read_internal.h"
#include "io/read_json.h"

struct dtype_def {
	const char *name;
	unsigned bits;
	int readable;
	enum rd_elem elem;
};

static const struct dtype_def dtypes[] = {
        {"F64", 64, 1, RD_F64},    {"F32", 32, 1, RD_F32},    {"F16", 16, 1, RD_F16},
        {"BF16", 16, 1, RD_BF16},  {"BOOL", 8, 0, RD_F64},    {"U8", 8, 0, RD_F64},
        {"I8", 8, 0, RD_F64},      {"F8_E5M2", 8, 0, RD_F64}, {"F8_E4M3", 8, 0, RD_F64},
        {"F8_E8M0", 8, 0, RD_F64}, {"I16", 16, 0, RD_F64},    {"U16", 16, 0, RD_F64},
        {"I32", 32, 0, RD_F64},    {"U32", 32, 0, RD_F64},    {"I64", 64, 0, RD_F64},
        {"U64", 64, 0, RD_F64},    {"C64", 64, 0, RD_F64},    {"F4", 4, 0, RD_F64},
        {"F6_E2M3", 6, 0, RD_F64}, {"F6_E3M2", 6, 0, RD_F64},
};

static const struct dtype_def *find_dtype(const char *name)
{
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (strcmp(dtypes[i].name, name) == 0)
			return &dtypes[i];
	return NULL;
}

/* A tensor entry while validating: its place in the buffer. */
struct entry {
	size_t key;  /* index in the JSON object */
	size_t slot; /* index of its parsed description */
	uint64_t begin, end;
	uint64_t nbytes;
};

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return 0;
}

struct named {
	const char *key;
	size_t index;
};

static int named_cmp(const void *pa, const void *pb)
{
	const struct named *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);
	if (c)
		return c;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Refuses a JSON object with a repeated key; @what names the object. */
static enum pe_status check_unique(const struct json *obj, const char *what, char **err)
{
	if (obj->n < 2)
		return PE_OK;
	struct named *keys = malloc(obj->n * sizeof(*keys));
	if (!keys)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	for (size_t i = 0; i < obj->n; i++)
		keys[i] = (struct named){obj->keys[i], i};
	qsort(keys, obj->n, sizeof(*keys), named_cmp);
	enum pe_status st = PE_OK;
	for (size_t i = 1; i < obj->n; i++) {
		if (strcmp(keys[i].key, keys[i - 1].key) == 0) {
			st = rd_fail(err, PE_EFORMAT, "%s: '%s' appears twice", what, keys[i].key);
			break;
		}
	}
	free(keys);
	return st;
}

static enum pe_status parse_metadata(const struct json *m, struct pe_file_info *info, char **err)
{
	if (m->type == JSON_NULL)
		return PE_OK;
	if (m->type != JSON_OBJECT)
		return rd_fail(err, PE_EFORMAT,
		               "safetensors header: __metadata__ is not an object");
	enum pe_status st = check_unique(m, "safetensors __metadata__", err);
	if (st != PE_OK)
		return st;
	if (m->n == 0)
		return PE_OK;
	info->metadata_keys = calloc(m->n, sizeof(char *));
	info->metadata_values = calloc(m->n, sizeof(char *));
	if (!info->metadata_keys || !info->metadata_values)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	for (size_t i = 0; i < m->n; i++) {
		if (m->items[i].type != JSON_STRING)
			return rd_fail(err, PE_EFORMAT,
			               "safetensors header: __metadata__ value of '%s' is not a "
			               "string",
			               m->keys[i]);
		info->metadata_keys[i] = strdup(m->keys[i]);
		info->metadata_values[i] = strdup(m->items[i].string);
		info->n_metadata = i + 1;
		if (!info->metadata_keys[i] || !info->metadata_values[i])
			return rd_fail(err, PE_ENOMEM, "out of memory");
	}
	return PE_OK;
}

/* Fills tensor t and entry e from the JSON description of tensor @name. */
static enum pe_status parse_tensor(const char *name, const struct json *v, struct pe_tensor_info *t,
                                   struct entry *e, char **err)
{
	if (v->type != JSON_OBJECT)
		return rd_fail(err, PE_EFORMAT, "tensor '%s': its description is not an object",
		               name);
	enum pe_status st = check_unique(v, "safetensors header: a tensor description", err);
	if (st != PE_OK)
		return st;
	const struct json *dtype = NULL, *shape = NULL, *offsets = NULL;
	for (size_t i = 0; i < v->n; i++) {
		/* Other fields are ignored, as serde does for the reference. */
		if (strcmp(v->keys[i], "dtype") == 0)
			dtype = &v->items[i];
		else if (strcmp(v->keys[i], "shape") == 0)
			shape = &v->items[i];
		else if (strcmp(v->keys[i], "data_offsets") == 0)
			offsets = &v->items[i];
	}
	if (!dtype || !shape || !offsets)
		return rd_fail(err, PE_EFORMAT, "tensor '%s': no \"%s\"", name,
		               !dtype   ? "dtype"
		               : !shape ? "shape"
		                        : "data_offsets");
	if (dtype->type != JSON_STRING)
		return rd_fail(err, PE_EFORMAT, "tensor '%s': dtype is not a string", name);
	const struct dtype_def *def = find_dtype(dtype->string);
	if (!def)
		return rd_fail(err, PE_EFORMAT, "tensor '%s': unknown dtype '%.40s'", name,
		               dtype->string);
	if (shape->type != JSON_ARRAY)
		return rd_fail(err, PE_EFORMAT, "tensor '%s': shape is not an array", name);
	if (shape->n > PE_READ_MAX_DIMS)
		return rd_fail(err, PE_EFORMAT, "tensor '%s': more than %d dimensions", name,
		               PE_READ_MAX_DIMS);
	uint64_t nelem = 1;
	int overflow = 0;
	for (size_t i = 0; i < shape->n; i++) {
		if (!shape->items[i].is_uint)
			return rd_fail(err, PE_EFORMAT,
			               "tensor '%s': shape holds something other than "
			               "non-negative integers",
			               name);
		uint64_t dim = shape->items[i].uint;
		t->shape[i] = dim;
		if (dim != 0 && nelem > UINT64_MAX / dim)
			overflow = 1;
		else
			nelem *= dim;
	}
	t->ndim = shape->n;
	char text[160];
	rd_shape_str(text, sizeof(text), t->shape, t->ndim);
	if (overflow || nelem > UINT64_MAX / def->bits)
		return rd_fail(err, PE_EFORMAT, "tensor '%s': shape %s overflows", name, text);
	uint64_t bits = nelem * def->bits;
	if (bits % 8)
		return rd_fail(err, PE_EFORMAT,
		               "tensor '%s': %s of shape %s is not a whole number of bytes", name,
		               def->name, text);
	if (offsets->type != JSON_ARRAY || offsets->n != 2 || !offsets->items[0].is_uint ||
	    !offsets->items[1].is_uint)
		return rd_fail(err, PE_EFORMAT,
		               "tensor '%s': data_offsets is not a pair of non-negative integers",
		               name);
	snprintf(t->dtype, sizeof(t->dtype), "%s", def->name);
	t->readable = def->readable && (t->ndim == 1 || t->ndim == 2);
	e->begin = offsets->items[0].uint;
	e->end = offsets->items[1].uint;
	e->nbytes = bits / 8;
	return PE_OK;
}

/* @len: the bytes of @buf, which must hold the header; @file_len: the whole file's. */
static enum pe_status st_parse_sized(const unsigned char *buf, size_t len, uint64_t file_len,
                                     struct pe_file_info *info, char **err)
{
	info->format = PE_FORMAT_SAFETENSORS;
	if (len < 8)
		return rd_fail(err, PE_EFORMAT,
		               "truncated: %zu bytes, a safetensors file starts with an 8-byte "
		               "header length",
		               len);
	uint64_t n = 0;
	for (int i = 7; i >= 0; i--)
		n = n << 8 | buf[i];
	if (n > PE_SAFETENSORS_HEADER_MAX)
		return rd_fail(err, PE_EFORMAT,
		               "safetensors header length %llu exceeds the limit of %u bytes",
		               (unsigned long long)n, PE_SAFETENSORS_HEADER_MAX);
	if (n > file_len - 8 || n > len - 8)
		return rd_fail(err, PE_EFORMAT,
		               "truncated: the header length says %llu bytes, %llu follow",
		               (unsigned long long)n, (unsigned long long)(file_len - 8));
	const unsigned char *header = buf + 8;
	if (!json_utf8_valid(header, n))
		return rd_fail(err, PE_EFORMAT, "safetensors header is not valid UTF-8");
	if (n == 0 || header[0] != '{')
		return rd_fail(err, PE_EFORMAT, "safetensors header does not start with '{'");
	char *jerr = NULL;
	struct json *root = json_parse((const char *)header, n, err ? &jerr : NULL);
	if (!root) {
		enum pe_status js = rd_fail(err, PE_EFORMAT, "safetensors header: %s",
		                            jerr ? jerr : "invalid JSON");
		free(jerr);
		return js;
	}
	enum pe_status st = PE_OK;
	struct entry *entries = NULL;
	struct pe_tensor_info *scratch = NULL;
	size_t count = 0;
	if (root->type != JSON_OBJECT) {
		st = rd_fail(err, PE_EFORMAT, "safetensors header is not a JSON object");
		goto done;
	}
	if ((st = check_unique(root, "safetensors header", err)) != PE_OK)
		goto done;
	entries = calloc(root->n ? root->n : 1, sizeof(*entries));
	scratch = calloc(root->n ? root->n : 1, sizeof(*scratch));
	if (!entries || !scratch) {
		st = rd_fail(err, PE_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < root->n; i++) {
		if (strcmp(root->keys[i], "__metadata__") == 0) {
			if ((st = parse_metadata(&root->items[i], info, err)) != PE_OK)
				goto done;
			continue;
		}
		st = parse_tensor(root->keys[i], &root->items[i], &scratch[count], &entries[count],
		                  err);
		if (st != PE_OK)
			goto done;
		entries[count].key = i;
		entries[count].slot = count;
		count++;
	}
	/* The reference sorts by (begin, end), then requires exact tiling. */
	qsort(entries, count, sizeof(*entries), entry_cmp);
	uint64_t data_len = file_len - 8 - n;
	uint64_t at = 0;
	for (size_t i = 0; i < count && st == PE_OK; i++) {
		const struct entry *e = &entries[i];
		const char *name = root->keys[e->key];
		if (e->end < e->begin)
			st = rd_fail(err, PE_EFORMAT,
			             "tensor '%s': data_offsets [%llu, %llu] end before they begin",
			             name, (unsigned long long)e->begin,
			             (unsigned long long)e->end);
		else if (e->begin > at)
			st = rd_fail(err, PE_EFORMAT,
			             "tensor '%s': data_offsets [%llu, %llu] leave a hole after "
			             "byte %llu",
			             name, (unsigned long long)e->begin, (unsigned long long)e->end,
			             (unsigned long long)at);
		else if (e->begin < at)
			st = rd_fail(err, PE_EFORMAT,
			             "tensor '%s': data_offsets [%llu, %llu] overlap the tensor "
			             "before, which ends at %llu",
			             name, (unsigned long long)e->begin, (unsigned long long)e->end,
			             (unsigned long long)at);
		else if (e->end - e->begin != e->nbytes)
			st = rd_fail(err, PE_EFORMAT,
			             "tensor '%s': data_offsets [%llu, %llu] hold %llu bytes, its "
			             "dtype and shape need %llu",
			             name, (unsigned long long)e->begin, (unsigned long long)e->end,
			             (unsigned long long)(e->end - e->begin),
			             (unsigned long long)e->nbytes);
		at = e->end;
	}
	if (st == PE_OK && at != data_len) {
		if (at > data_len)
			st = rd_fail(err, PE_EFORMAT,
			             "truncated: the tensors need %llu bytes of data, the file has "
			             "%llu",
			             (unsigned long long)at, (unsigned long long)data_len);
		else
			st = rd_fail(err, PE_EFORMAT, "%llu bytes after the last tensor's data",
			             (unsigned long long)(data_len - at));
	}
	if (st != PE_OK)
		goto done;
	/* The tensors in offset order, with their names and absolute offsets. */
	info->tensors = calloc(count ? count : 1, sizeof(*info->tensors));
	if (!info->tensors) {
		st = rd_fail(err, PE_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < count; i++) {
		struct pe_tensor_info *t = &info->tensors[i];
		*t = scratch[entries[i].slot];
		t->name = strdup(root->keys[entries[i].key]);
		t->offset = 8 + n + entries[i].begin;
		t->nbytes = entries[i].nbytes;
		info->count = i + 1;
		if (!t->name) {
			st = rd_fail(err, PE_ENOMEM, "out of memory");
			break;
		}
	}
done:
	free(entries);
	free(scratch);
	json_free(root);
	return st;
}

static enum pe_status st_parse(const unsigned char *buf, size_t len, struct pe_file_info *info,
                               char **err)
{
	return st_parse_sized(buf, len, len, info, err);
}

enum pe_status rd_safetensors_inspect_header(const unsigned char *buf, size_t len,
                                             uint64_t file_len, struct pe_file_info *info,
                                             char **err)
{
	if (file_len < len)
		return rd_fail(err, PE_EINVAL, "the header is longer than the file");
	return st_parse_sized(buf, len, file_len, info, err);
}

enum pe_status rd_safetensors_inspect(const unsigned char *buf, size_t len,
                                      struct pe_file_info *info, char **err)
{
	return st_parse(buf, len, info, err);
}

static enum pe_status no_tensor_named(const struct pe_file_info *info, const char *want, char **err)
{
	char **names = malloc((info->count ? info->count : 1) * sizeof(*names));
	if (!names)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	size_t n = 0;
	if (want) {
		for (size_t i = 0; i < info->count; i++)
			names[n++] = info->tensors[i].name;
	} else {
		/* Without a name to compare with, list the tensors a table can come from. */
		for (size_t i = 0; i < info->count; i++)
			if (info->tensors[i].readable)
				names[n++] = info->tensors[i].name;
		for (size_t i = 0; i < info->count; i++)
			if (!info->tensors[i].readable)
				names[n++] = info->tensors[i].name;
	}
	char *list = want ? rd_names_closest(want, names, n, 8) : rd_names_in_order(names, n, 8);
	free(names);
	if (!list)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	enum pe_status st;
	if (want)
		st = rd_fail(err, PE_ENOTFOUND, "no tensor '%s' (the file has %s)", want, list);
	else
		st = rd_fail(err, PE_ENOTFOUND,
		             "the file holds %zu tensors, name one with tensor=NAME or "
		             "PATH#NAME: %s",
		             info->count, list);
	free(list);
	return st;
}

enum pe_status rd_safetensors_locate(const unsigned char *buf, size_t len,
                                     const struct pe_read_request *req, struct rd_table_loc *loc,
                                     char **err)
{
	struct pe_file_info *info = calloc(1, sizeof(*info));
	if (!info)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	enum pe_status st = st_parse(buf, len, info, err);
	if (st != PE_OK)
		goto done;
	const char *want = req ? req->tensor : NULL;
	const struct pe_tensor_info *t = NULL;
	if (info->count == 0) {
		st = rd_fail(err, PE_ENOTFOUND, "the file holds no tensors");
		goto done;
	}
	if (!want && info->count == 1)
		t = &info->tensors[0];
	for (size_t i = 0; want && i < info->count; i++)
		if (strcmp(info->tensors[i].name, want) == 0)
			t = &info->tensors[i];
	if (!t) {
		st = no_tensor_named(info, want, err);
		goto done;
	}
	const struct dtype_def *def = find_dtype(t->dtype);
	if (!def || !def->readable) {
		st = rd_fail(err, PE_EFORMAT,
		             "tensor '%s' has dtype %s; readable dtypes: F64, F32, F16, BF16",
		             t->name, t->dtype);
		goto done;
	}
	size_t what_len = strlen(t->name) + 16;
	char *what = malloc(what_len);
	if (!what) {
		st = rd_fail(err, PE_ENOMEM, "out of memory");
		goto done;
	}
	snprintf(what, what_len, "tensor '%s'", t->name);
	memset(loc, 0, sizeof(*loc));
	st = rd_table_shape(t->shape, t->ndim, 0, what, &loc->rows, &loc->cols, err);
	free(what);
	if (st != PE_OK)
		goto done;
	if ((st = rd_row_range(req, loc->rows, &loc->r0, &loc->r1, err)) != PE_OK)
		goto done;
	loc->offset = t->offset;
	loc->elem = def->elem;
done:
	pe_file_info_destroy(info);
	return st;
}

enum pe_status pe_safetensors_read(const void *buf, size_t len, const struct pe_read_request *req,
                                   struct pe_matrix **out, char **err)
{
	return rd_table_read(buf, len, req, rd_safetensors_locate, out, err);
}
