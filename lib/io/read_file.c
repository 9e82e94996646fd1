/*
 * Format dispatch, file reading and the file scheme's loader.
 */
/* MAP_ANONYMOUS (POSIX.1-2024; every Unix has it) beside _POSIX_C_SOURCE. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <posenc/read.h>

#include "io/read_internal.h"

/*
 * A file's bytes. A regular file is read (not mapped: a file truncated
 * while mapped kills the reader with SIGBUS) into an anonymous mapping of
 * its size, of which only the parts the reader needs are filled: the
 * header, and for a safetensors file the selected tensor alone, so that a
 * table from a large checkpoint costs its own bytes, not the checkpoint's.
 * Pages never filled stay zero and cost no memory. Streams are read whole.
 */
struct contents {
	const unsigned char *p;
	size_t len;
	void *map; /* anonymous, len bytes */
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

/* Bytes [off, off + n) of the file into the buffer; a short read means it shrank. */
static enum pe_status fill(int fd, struct contents *c, uint64_t off, uint64_t n, char **err)
{
	if (off >= c->len)
		return PE_OK;
	if (n > c->len - off)
		n = c->len - off;
	unsigned char *dst = (unsigned char *)c->map + off;
	/* Writable from the page that holds the first byte to the one past the last. */
	long page = sysconf(_SC_PAGESIZE);
	size_t ps = page > 0 ? (size_t)page : 4096;
	size_t lo = (size_t)off / ps * ps;
	if (mprotect((unsigned char *)c->map + lo, (size_t)(off + n) - lo,
	             PROT_READ | PROT_WRITE) != 0)
		return rd_fail(err, PE_ENOMEM, "out of memory (%llu bytes)", (unsigned long long)n);
	while (n) {
		size_t want = n > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)n;
		ssize_t got = pread(fd, dst, want, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return rd_fail(err, PE_EIO, "%s", strerror(errno));
		if (got == 0)
			return rd_fail(err, PE_EIO,
			               "the file shrank while it was being read (%zu bytes at the "
			               "start, %llu now)",
			               c->len, (unsigned long long)off);
		dst += got;
		off += (uint64_t)got;
		n -= (uint64_t)got;
	}
	return PE_OK;
}

static uint64_t le_u64(const unsigned char *b, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | b[i];
	return v;
}

/*
 * The parts of a regular file a reader needs. @tensor: the safetensors
 * tensor wanted (NULL: the single one, if there is one); @header_only:
 * inspect, which reads headers only (and CSV whole).
 */
static enum pe_status fill_needed(int fd, struct contents *c, const char *path, size_t limit,
                                  const char *tensor, int header_only, char **err)
{
	size_t head = c->len < 4096 ? c->len : 4096;
	enum pe_status st = fill(fd, c, 0, head, err);
	if (st != PE_OK)
		return st;
	enum pe_file_format f = pe_file_format_detect(c->p, c->len, path);
	if (f == PE_FORMAT_NPY && c->len >= 10) {
		const unsigned char *b = c->p;
		uint64_t hl = b[6] == 1 ? 10 + le_u64(b + 8, 2) : 12 + le_u64(b + 8, 4);
		return fill(fd, c, head, header_only ? (hl > head ? hl - head : 0) : c->len, err);
	}
	if (f != PE_FORMAT_SAFETENSORS || c->len < 8)
		return fill(fd, c, head, c->len, err);
	uint64_t hl = le_u64(c->p, 8);
	if (hl > PE_SAFETENSORS_HEADER_MAX)
		return PE_OK; /* the reader says what is wrong */
	/* The JSON header is parsed into names and shapes: about twice its size. */
	if (limit && 2.0 * (double)hl > (double)limit)
		return rd_fail(err, PE_ETOOBIG,
		               "the safetensors header of %.1f MiB needs about %.1f MiB to parse, "
		               "more than the limit of %.1f MiB",
		               (double)hl / 1048576.0, 2.0 * (double)hl / 1048576.0,
		               (double)limit / 1048576.0);
	if ((st = fill(fd, c, head, 8 + hl, err)) != PE_OK || header_only)
		return st;
	struct pe_file_info *info = NULL;
	if (pe_file_inspect_buffer(c->p, c->len, path, &info, NULL) != PE_OK)
		return PE_OK; /* the reader reports what is wrong */
	for (size_t i = 0; i < info->count && st == PE_OK; i++) {
		const struct pe_tensor_info *t = &info->tensors[i];
		int wanted = tensor ? t->name && strcmp(t->name, tensor) == 0 : info->count == 1;
		if (wanted)
			st = fill(fd, c, t->offset, t->nbytes, err);
	}
	pe_file_info_destroy(info);
	return st;
}

static enum pe_status contents_open(const char *path, size_t limit, const char *tensor,
                                    int header_only, struct contents *c, char **err)
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
			return rd_fail(err, PE_ETOOBIG, "the file is too large");
		}
		/*
		 * A read-only anonymous mapping of the file's size: zero pages that
		 * cost nothing until a range is made writable and filled, and that a
		 * process limit on data (RLIMIT_DATA, --max-memory) does not count.
		 */
		void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		                 -1, 0);
		if (map == MAP_FAILED) {
			close(fd);
			return rd_fail(err, PE_ENOMEM, "out of memory (%llu bytes)",
			               (unsigned long long)sb.st_size);
		}
		c->map = map;
		c->p = map;
		c->len = (size_t)sb.st_size;
		st = fill_needed(fd, c, path, limit, tensor, header_only, err);
		/* A file that changed while it was read is not one file: refused. */
		struct stat after;
		if (st == PE_OK && fstat(fd, &after) == 0) {
			if (after.st_nlink == 0)
				st = rd_fail(err, PE_EIO,
				             "the file was removed while it was being read");
			else if (after.st_size != sb.st_size)
				st = rd_fail(
				        err, PE_EIO,
				        "the file changed size while it was being read (%lld bytes "
				        "at the start, %lld at the end)",
				        (long long)sb.st_size, (long long)after.st_size);
			else if (after.st_mtim.tv_sec != sb.st_mtim.tv_sec ||
			         after.st_mtim.tv_nsec != sb.st_mtim.tv_nsec)
				st = rd_fail(err, PE_EIO,
				             "the file changed while it was being read");
		}
	} else if (!S_ISREG(sb.st_mode)) {
		st = read_stream(fd, limit, c, err);
	}
	close(fd);
	if (st != PE_OK) {
		if (c->map)
			munmap(c->map, c->len);
		free(c->heap);
		memset(c, 0, sizeof(*c));
	}
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
	enum pe_status st = contents_open(path, 0, req ? req->tensor : NULL, 0, &c, err);
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
	enum pe_status st = contents_open(path, PE_READ_INSPECT_STREAM_MAX, NULL, 1, &c, err);
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
	enum pe_status st = contents_open(s->path, max_bytes, s->tensor, 0, &c, err);
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
