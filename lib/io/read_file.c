/*
 * Format dispatch, file mapping and the file scheme's loader.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <posenc/read.h>

#include "io/read_internal.h"

/* A file's bytes: mapped when it is a regular file, read otherwise. */
struct contents {
	const unsigned char *p;
	size_t len;
	void *map;
	unsigned char *heap;
};

/* Streams have no size to check up front: they stop at @limit bytes (0: none). */
static enum pe_status read_stream(int fd, size_t limit, struct contents *c, char **err)
{
	size_t cap = 1 << 16, len = 0;
	unsigned char *buf = malloc(cap);
	if (!buf)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	for (;;) {
		if (len == cap) {
			if (cap > SIZE_MAX / 2) {
				free(buf);
				return rd_fail(err, PE_ETOOBIG, "the file is too large");
			}
			/* Never more than one byte past the limit: enough to see it passed. */
			size_t grown = limit && cap * 2 > limit + 1 ? limit + 1 : cap * 2;
			unsigned char *bigger = realloc(buf, grown);
			if (!bigger) {
				free(buf);
				return rd_fail(err, PE_ENOMEM, "out of memory");
			}
			buf = bigger;
			cap = grown;
		}
		ssize_t got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;
			free(buf);
			return rd_fail(err, PE_EIO, "%s", strerror(e));
		}
		if (got == 0)
			break;
		len += (size_t)got;
		if (limit && len > limit) {
			free(buf);
			return rd_fail(err, PE_ETOOBIG,
			               "the stream is longer than the limit of %.1f MiB",
			               (double)limit / 1048576.0);
		}
	}
	c->heap = buf;
	c->p = buf;
	c->len = len;
	return PE_OK;
}

static enum pe_status contents_open(const char *path, size_t limit, struct contents *c, char **err)
{
	memset(c, 0, sizeof(*c));
	c->p = (const unsigned char *)""; /* an empty file: a valid pointer, length 0 */
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return rd_fail(err, PE_EIO, "%s", strerror(errno));
	struct stat sb;
	if (fstat(fd, &sb) != 0) {
		int e = errno;
		close(fd);
		return rd_fail(err, PE_EIO, "%s", strerror(e));
	}
	if (S_ISDIR(sb.st_mode)) {
		close(fd);
		return rd_fail(err, PE_EIO, "%s", strerror(EISDIR));
	}
	enum pe_status st = PE_OK;
	if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
		if ((uint64_t)sb.st_size > SIZE_MAX) {
			close(fd);
			return rd_fail(err, PE_ETOOBIG, "the file is too large to map");
		}
		void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			st = read_stream(fd, limit, c, err);
		} else {
			c->map = map;
			c->p = map;
			c->len = (size_t)sb.st_size;
			posix_madvise(map, c->len, POSIX_MADV_SEQUENTIAL);
		}
	} else if (!S_ISREG(sb.st_mode)) {
		st = read_stream(fd, limit, c, err);
	}
	close(fd);
	return st;
}

static void contents_close(struct contents *c)
{
	if (c->map)
		munmap(c->map, c->len);
	free(c->heap);
}

enum pe_status pe_read_buffer(const void *buf, size_t len, const char *name,
                              const struct pe_read_request *req, struct pe_matrix **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	switch (pe_file_format_detect(buf, len, name)) {
	case PE_FORMAT_NPY:
		if (req && req->tensor)
			return rd_fail(err, PE_ENOTFOUND,
			               "an NPY file holds one unnamed array (tensor=%s)",
			               req->tensor);
		return pe_npy_read(buf, len, req, out, err);
	case PE_FORMAT_SAFETENSORS:
		return pe_safetensors_read(buf, len, req, out, err);
	case PE_FORMAT_CSV:
		return pe_csv_read(buf, len, req, out, err);
	case PE_FORMAT_UNKNOWN:
		break;
	}
	return rd_fail(err, PE_EFORMAT, "the file is empty");
}

enum pe_status pe_read_file(const char *path, const struct pe_read_request *req,
                            struct pe_matrix **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	struct contents c;
	enum pe_status st = contents_open(path, 0, &c, err);
	if (st != PE_OK)
		return st;
	st = pe_read_buffer(c.p, c.len, path, req, out, err);
	contents_close(&c);
	return st;
}

enum pe_status pe_file_inspect_buffer(const void *buf, size_t len, const char *name,
                                      struct pe_file_info **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	struct pe_file_info *info = calloc(1, sizeof(*info));
	if (!info)
		return rd_fail(err, PE_ENOMEM, "out of memory");
	enum pe_status st;
	switch (pe_file_format_detect(buf, len, name)) {
	case PE_FORMAT_NPY:
		st = rd_npy_inspect(buf, len, info, err);
		break;
	case PE_FORMAT_SAFETENSORS:
		st = rd_safetensors_inspect(buf, len, info, err);
		break;
	case PE_FORMAT_CSV:
		st = rd_csv_inspect(buf, len, info, err);
		break;
	default:
		st = rd_fail(err, PE_EFORMAT, "the file is empty");
		break;
	}
	if (st != PE_OK) {
		pe_file_info_destroy(info);
		return st;
	}
	*out = info;
	return PE_OK;
}

enum pe_status pe_file_inspect(const char *path, struct pe_file_info **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	struct contents c;
	enum pe_status st = contents_open(path, PE_READ_INSPECT_STREAM_MAX, &c, err);
	if (st != PE_OK)
		return st;
	st = pe_file_inspect_buffer(c.p, c.len, path, out, err);
	contents_close(&c);
	return st;
}

/*
 * The float64 table a file scheme selects, against @max_bytes, from the
 * file's header (a CSV is scanned, not parsed) before anything is
 * allocated for it. Anything the header cannot tell is left to the reader.
 */
static enum pe_status table_fits(const struct contents *c, const struct pe_scheme *s,
                                 size_t max_bytes, char **err)
{
	struct pe_file_info *info = NULL;
	if (pe_file_inspect_buffer(c->p, c->len, s->path, &info, NULL) != PE_OK)
		return PE_OK; /* the reader reports what is wrong */
	const struct pe_tensor_info *t = NULL;
	for (size_t i = 0; i < info->count; i++) {
		const char *name = info->tensors[i].name;
		if (s->tensor ? name && strcmp(name, s->tensor) == 0 : info->count == 1)
			t = &info->tensors[i];
	}
	enum pe_status st = PE_OK;
	if (t && t->readable && t->ndim >= 1) {
		double rows = (double)t->shape[0], cols = t->ndim == 2 ? (double)t->shape[1] : 1.0;
		if (s->row_end_set && (double)s->row_end < rows)
			rows = (double)s->row_end;
		rows -= (double)s->row_first;
		double bytes = rows * cols * 8.0;
		if (rows > 0 && bytes > (double)max_bytes)
			st = rd_fail(err, PE_ETOOBIG,
			             "the %.0f x %.0f table needs %.1f MiB as float64, more than "
			             "the limit of %.1f MiB",
			             rows, cols, bytes / 1048576.0, (double)max_bytes / 1048576.0);
	}
	pe_file_info_destroy(info);
	return st;
}

enum pe_status pe_file_load(const struct pe_scheme *s, struct pe_matrix **out, char **err)
{
	return pe_file_load_limited(s, 0, out, err);
}

enum pe_status pe_file_load_limited(const struct pe_scheme *s, size_t max_bytes,
                                    struct pe_matrix **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	if (!s || !pe_scheme_has(s, PE_CAP_TABLE) || !s->path)
		return rd_fail(err, PE_EINVAL, "not a file scheme");
	struct pe_read_request req = {s->tensor, s->row_first, s->row_end, s->row_end_set};
	struct pe_matrix *m;
	struct contents c;
	enum pe_status st = contents_open(s->path, max_bytes, &c, err);
	if (st != PE_OK)
		return st;
	if (max_bytes)
		st = table_fits(&c, s, max_bytes, err);
	if (st == PE_OK)
		st = pe_read_buffer(c.p, c.len, s->path, &req, &m, err);
	contents_close(&c);
	if (st != PE_OK)
		return st;
	size_t row, col;
	if (pe_matrix_find_nonfinite(m, &row, &col)) {
		double v = m->data[row * m->cols + col];
		const char *what = v != v ? "nan" : v > 0 ? "inf" : "-inf";
		pe_matrix_destroy(m);
		return rd_fail(err, PE_EFORMAT,
		               "value %s at row %zu, column %zu (counting from 0); analyses need "
		               "finite numbers",
		               what, row + s->row_first, col);
	}
	*out = m;
	return PE_OK;
}
