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
#include "io/read_json.h"

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

static uint64_t le_u64(const unsigned char *b, size_t n);

/*
 * Whether a stream can stop here: its start is already not a file posenc
 * reads (an .npy without the magic; a safetensors length that is 0, too
 * large or not followed by '{'; a NUL byte, which no CSV has), and the
 * reader reports it from these bytes instead of reading, say, /dev/zero or
 * /dev/urandom to the limit.
 */
static int hopeless(const unsigned char *b, size_t len, const char *path)
{
	if (len > 4096) /* the start only: a NUL deep in a text is the reader's to report */
		len = 4096;
	enum pe_file_format f = pe_file_format_detect(b, len, path);
	if (f == PE_FORMAT_NPY)
		return memcmp(b, "\x93NUMPY", 6) != 0;
	if (f == PE_FORMAT_SAFETENSORS) {
		uint64_t hl = le_u64(b, 8);
		return hl > PE_SAFETENSORS_HEADER_MAX || hl == 0 || b[8] != '{';
	}
	return memchr(b, 0, len) != NULL;
}

/* Streams have no size to check up front: they stop at @limit bytes (0: none),
 * and with @path set as soon as they cannot be a file posenc reads. */
static enum pe_status read_stream_until(int fd, size_t limit, const char *path, struct contents *c,
                                        char **err);

static enum pe_status read_stream_until(int fd, size_t limit, const char *path, struct contents *c,
                                        char **err)
{
	size_t cap = 1 << 16, len = 0;
	int judged = 0;
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
		/* judged once, on the first 16 bytes or more: a later read never cuts a table */
		if (path && !judged && len >= 16) {
			judged = 1;
			if (hopeless(buf, len, path))
				break;
		}
		if (limit && len > limit) {
			free(buf);
			return rd_fail(err, PE_ETOOBIG, "the stream is longer than the limit of %s",
			               rd_size((double)limit, (char[24]){0}));
		}
	}
	c->heap = buf;
	c->p = buf;
	c->len = len;
	return PE_OK;
}

/* Bytes [off, off + n) of a file of @len bytes into dst; a short read means it shrank. */
static enum pe_status pread_range(int fd, void *dst, uint64_t off, size_t n, size_t len, char **err)
{
	unsigned char *p = dst;
	while (n) {
		size_t want = n > ((size_t)1 << 30) ? (size_t)1 << 30 : n;
		ssize_t got = pread(fd, p, want, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return rd_fail(err, PE_EIO, "%s", strerror(errno));
		if (got == 0)
			return rd_fail(err, PE_EIO,
			               "the file shrank while it was being read (%zu bytes at the "
			               "start, %llu now)",
			               len, (unsigned long long)off);
		p += got;
		off += (uint64_t)got;
		n -= (size_t)got;
	}
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
	return pread_range(fd, dst, off, (size_t)n, c->len, err);
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
	/* The header's own bytes, then the tree they parse into (up to 30 times
	 * their size for arrays of numbers), against the limit. */
	if (limit && (double)hl > (double)limit)
		return rd_fail(err, PE_ETOOBIG,
		               "the safetensors header of %s needs more than the limit of "
		               "%s",
		               rd_size((double)hl, (char[24]){0}),
		               rd_size((double)limit, (char[24]){0}));
	if ((st = fill(fd, c, head, 8 + hl, err)) != PE_OK)
		return st;
	if (limit && 8 + hl <= c->len) {
		double cost = json_cost_bound((const char *)c->p + 8, (size_t)hl);
		if (cost > (double)limit)
			return rd_fail(err, PE_ETOOBIG,
			               "the safetensors header of %s needs up to %s to "
			               "parse, more than the limit of %s",
			               rd_size((double)hl, (char[24]){0}),
			               rd_size(cost, (char[24]){0}),
			               rd_size((double)limit, (char[24]){0}));
	}
	if (header_only)
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

static enum pe_status stream_header_fits(const struct contents *c, const char *path, size_t limit,
                                         char **err);

/* A file that changed while it was read is not one file: refused. */
static enum pe_status unchanged(int fd, const struct stat *sb, char **err)
{
	struct stat after;
	if (fstat(fd, &after) != 0)
		return PE_OK;
	if (after.st_nlink == 0)
		return rd_fail(err, PE_EIO, "the file was removed while it was being read");
	if (after.st_size != sb->st_size)
		return rd_fail(err, PE_EIO,
		               "the file changed size while it was being read (%lld bytes at the "
		               "start, %lld at the end)",
		               (long long)sb->st_size, (long long)after.st_size);
	if (after.st_mtim.tv_sec != sb->st_mtim.tv_sec ||
	    after.st_mtim.tv_nsec != sb->st_mtim.tv_nsec)
		return rd_fail(err, PE_EIO, "the file changed while it was being read");
	return PE_OK;
}

/* @path opened for reading and described (*fd, *sb); a folder is an error. */
static enum pe_status open_described(const char *path, int *fd, struct stat *sb, char **err)
{
	*fd = open(path, O_RDONLY);
	if (*fd < 0)
		return rd_fail(err, PE_EIO, "%s", strerror(errno));
	int e = fstat(*fd, sb) != 0 ? errno : S_ISDIR(sb->st_mode) ? EISDIR : 0;
	if (e) {
		close(*fd);
		*fd = -1;
		return rd_fail(err, PE_EIO, "%s", strerror(e));
	}
	return PE_OK;
}

/* The contents of the open @fd (described by @sb), which it closes: a
 * stream is read from this opening, never opened again (a FIFO's writer
 * would be gone). */
static enum pe_status contents_from_fd(int fd, const struct stat *sbp, const char *path,
                                       size_t limit, const char *tensor, int header_only,
                                       struct contents *c, char **err)
{
	memset(c, 0, sizeof(*c));
	c->p = (const unsigned char *)""; /* an empty file: a valid pointer, length 0 */
	struct stat sb = *sbp;
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
		if (st == PE_OK)
			st = unchanged(fd, &sb, err);
	} else if (!S_ISREG(sb.st_mode)) {
		st = read_stream_until(fd, limit, path ? path : "", c, err);
		if (st == PE_OK)
			st = stream_header_fits(c, path, limit, err);
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

static enum pe_status contents_open(const char *path, size_t limit, const char *tensor,
                                    int header_only, struct contents *c, char **err)
{
	int fd;
	struct stat sb;
	memset(c, 0, sizeof(*c));
	enum pe_status opened = open_described(path, &fd, &sb, err);
	if (opened != PE_OK)
		return opened;
	return contents_from_fd(fd, &sb, path, limit, tensor, header_only, c, err);
}

/* A stream's safetensors header: its parse must fit the limit too. */
static enum pe_status stream_header_fits(const struct contents *c, const char *path, size_t limit,
                                         char **err)
{
	if (!limit || c->len < 8 ||
	    pe_file_format_detect(c->p, c->len, path) != PE_FORMAT_SAFETENSORS)
		return PE_OK;
	uint64_t hl = le_u64(c->p, 8);
	if (hl > c->len - 8)
		return PE_OK; /* the reader says what is wrong */
	double cost = json_cost_bound((const char *)c->p + 8, (size_t)hl);
	if (cost > (double)limit)
		return rd_fail(err, PE_ETOOBIG,
		               "the safetensors header of %s needs up to %s to parse, "
		               "more than the limit of %s",
		               rd_size((double)hl, (char[24]){0}), rd_size(cost, (char[24]){0}),
		               rd_size((double)limit, (char[24]){0}));
	return PE_OK;
}

static void contents_close(struct contents *c)
{
	if (c->map)
		munmap(c->map, c->len);
	free(c->heap);
}

/*
 * Model files that would otherwise be read as CSV and refused as binary data or for
 * their "tensor names", which says nothing of what the file is: a GGUF file by its
 * magic, a JSON document (config.json, a sharded checkpoint's index) by its name
 * and first byte.
 */
static enum pe_status not_a_table(const unsigned char *p, size_t n, const char *name, char **err)
{
	if (n >= 4 && memcmp(p, "GGUF", 4) == 0)
		return rd_fail(err, PE_EUNSUPPORTED,
		               "a GGUF file: tables are read from .npy, .safetensors and .csv "
		               "files (gguf:%s reads the model's encoding from its metadata)",
		               name ? name : "FILE");
	size_t i = 0;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	size_t len = name ? strlen(name) : 0;
	if (i < n && (p[i] == '{' || p[i] == '[') && len > 5 &&
	    strcmp(name + len - 5, ".json") == 0)
		return rd_fail(err, PE_EUNSUPPORTED, "a JSON file, not a table%s",
		               len > 11 && strcmp(name + len - 11, ".index.json") == 0
		                       ? " (a sharded checkpoint's index: its tensors are in the "
		                         ".safetensors shards it names)"
		                       : "");
	return PE_OK;
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
	case PE_FORMAT_CSV: {
		enum pe_status st = not_a_table((const unsigned char *)buf, len, name, err);
		return st != PE_OK ? st : pe_csv_read(buf, len, req, out, err);
	}
	case PE_FORMAT_UNKNOWN:
		break;
	}
	return rd_fail(err, PE_EFORMAT, "the file is empty");
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
		st = not_a_table((const unsigned char *)buf, len, name, err);
		if (st == PE_OK)
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
	return pe_file_inspect_limited(path, PE_READ_INSPECT_STREAM_MAX, out, err);
}

enum pe_status pe_file_inspect_limited(const char *path, size_t max_bytes,
                                       struct pe_file_info **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	struct contents c;
	enum pe_status st = contents_open(path, max_bytes, NULL, 1, &c, err);
	if (st != PE_OK)
		return st;
	st = pe_file_inspect_buffer(c.p, c.len, path, out, err);
	contents_close(&c);
	return st;
}

/*
 * The float64 table a request selects, against @max_bytes, from the file's
 * header before anything is allocated for it. Anything the header cannot
 * tell is left to the reader.
 */
static enum pe_status table_fits(const struct contents *c, const char *path,
                                 const struct pe_read_request *req, size_t max_bytes, char **err)
{
	struct pe_file_info *info = NULL;
	if (pe_file_inspect_buffer(c->p, c->len, path, &info, NULL) != PE_OK)
		return PE_OK; /* the reader reports what is wrong */
	const char *tensor = req ? req->tensor : NULL;
	const struct pe_tensor_info *t = NULL;
	for (size_t i = 0; i < info->count; i++) {
		const char *name = info->tensors[i].name;
		if (tensor ? name && strcmp(name, tensor) == 0 : info->count == 1)
			t = &info->tensors[i];
	}
	enum pe_status st = PE_OK;
	if (t && t->readable && t->ndim >= 1) {
		double rows = (double)t->shape[0], cols = t->ndim == 2 ? (double)t->shape[1] : 1.0;
		if (req && req->row_end_set && (double)req->row_end < rows)
			rows = (double)req->row_end;
		rows -= req ? (double)req->row_first : 0.0;
		double bytes = rows * cols * 8.0;
		if (rows > 0 && bytes > (double)max_bytes)
			st = rd_fail(err, PE_ETOOBIG,
			             "the %.0f x %.0f table needs %s as float64, more than "
			             "the limit of %s",
			             rows, cols, rd_size(bytes, (char[24]){0}),
			             rd_size((double)max_bytes, (char[24]){0}));
	}
	pe_file_info_destroy(info);
	return st;
}

/* Read buffer of the direct readers: bounded, whatever the file's size. */
#define CHUNK_BYTES ((size_t)1 << 20)

static int host_is_little_endian(void)
{
	const uint16_t one = 1;
	unsigned char first;
	memcpy(&first, &one, 1);
	return first == 1;
}

/*
 * The located rows straight from the file into @dst: float64 in the host's
 * order is read in place, anything else through a bounded buffer, so the
 * file's bytes are never held whole beside the table.
 */
static enum pe_status read_located(int fd, size_t len, const struct rd_table_loc *loc, double *dst,
                                   char **err)
{
	size_t size = rd_elem_size(loc->elem), cols = loc->cols, rows = loc->r1 - loc->r0;
	int in_place = loc->elem == RD_F64 && !loc->big_endian && host_is_little_endian();
	if (!loc->fortran && in_place)
		return pread_range(fd, dst, loc->offset + (uint64_t)loc->r0 * cols * size,
		                   rows * cols * size, len, err);
	size_t per = CHUNK_BYTES / size;
	unsigned char *buf = malloc(per * size);
	double *tmp = loc->fortran ? malloc(per * sizeof(double)) : NULL;
	if (!buf || (loc->fortran && !tmp)) {
		free(buf);
		free(tmp);
		return rd_fail(err, PE_ENOMEM, "out of memory");
	}
	enum pe_status st = PE_OK;
	/* Runs of consecutive elements: the rows (C order) or each column's rows. */
	size_t runs = loc->fortran ? cols : 1, run = loc->fortran ? rows : rows * cols;
	for (size_t j = 0; j < runs && st == PE_OK; j++) {
		uint64_t first =
		        loc->fortran ? (uint64_t)j * loc->rows + loc->r0 : (uint64_t)loc->r0 * cols;
		for (size_t k = 0; k < run && st == PE_OK; k += per) {
			size_t count = run - k < per ? run - k : per;
			st = pread_range(fd, buf, loc->offset + (first + k) * size, count * size,
			                 len, err);
			if (st != PE_OK)
				break;
			if (!loc->fortran) {
				rd_convert(buf, loc->elem, loc->big_endian, count, 1, dst + k);
				continue;
			}
			rd_convert(buf, loc->elem, loc->big_endian, count, 1, tmp);
			for (size_t i = 0; i < count; i++)
				dst[(k + i) * cols + j] = tmp[i];
		}
	}
	free(buf);
	free(tmp);
	return st;
}

/* A CSV file parsed as it is read: memory is the table and one buffer of text. */
static enum pe_status read_csv_fd(int fd, size_t len, const struct pe_read_request *req,
                                  size_t limit, struct pe_matrix **out, char **err)
{
	if (req && req->tensor)
		return rd_fail(err, PE_ENOTFOUND, "a CSV file has no tensor names (tensor=%s)",
		               req->tensor);
	struct rd_csv *c;
	enum pe_status st = rd_csv_begin(req, limit, &c, err);
	if (st != PE_OK)
		return st;
	size_t cap = CHUNK_BYTES, have = 0;
	char *buf = malloc(cap);
	if (!buf) {
		rd_csv_abort(c);
		return rd_fail(err, PE_ENOMEM, "out of memory");
	}
	for (size_t off = 0; off < len && st == PE_OK;) {
		if (have == cap) {
			/* A line longer than the buffer: the buffer grows to hold it, within the
			 * budget. */
			if (limit && cap * 2 > limit) {
				st = rd_fail(err, PE_ETOOBIG,
				             "a line of more than %s of text, more than the "
				             "limit of "
				             "%s",
				             rd_size((double)cap, (char[24]){0}),
				             rd_size((double)limit, (char[24]){0}));
				break;
			}
			char *grown = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
			if (!grown) {
				st = rd_fail(err, PE_ENOMEM, "out of memory (a line of %zu bytes)",
				             cap);
				break;
			}
			buf = grown;
			cap *= 2;
		}
		size_t want = cap - have < len - off ? cap - have : len - off;
		if ((st = pread_range(fd, buf + have, off, want, len, err)) != PE_OK)
			break;
		off += want;
		have += want;
		size_t used;
		if ((st = rd_csv_feed(c, buf, have, off == len, &used, err)) != PE_OK)
			break;
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	free(buf);
	if (st != PE_OK) {
		rd_csv_abort(c);
		return st;
	}
	return rd_csv_finish(c, out, err);
}

/*
 * The table of a regular, non-empty file, read without a second copy:
 * NPY and safetensors from their headers straight into the matrix, CSV
 * parsed chunk by chunk. Then the file must be the one it was at the start.
 */
static enum pe_status read_regular(int fd, const struct stat *sb, const char *path,
                                   const struct pe_read_request *req, size_t limit,
                                   struct pe_matrix **out, char **err)
{
	if ((uint64_t)sb->st_size > SIZE_MAX)
		return rd_fail(err, PE_ETOOBIG, "the file is too large");
	size_t len = (size_t)sb->st_size;
	unsigned char head[16];
	size_t hn = len < sizeof(head) ? len : sizeof(head);
	enum pe_status st = pread_range(fd, head, 0, hn, len, err);
	if (st != PE_OK)
		return st;
	enum pe_file_format f = pe_file_format_detect(head, hn, path);
	struct pe_matrix *m = NULL;
	if (f == PE_FORMAT_CSV && (st = not_a_table(head, hn, path, err)) != PE_OK)
		return st;
	if (f == PE_FORMAT_CSV) {
		st = read_csv_fd(fd, len, req, limit, &m, err);
	} else {
		if (f == PE_FORMAT_NPY && req && req->tensor)
			return rd_fail(err, PE_ENOTFOUND,
			               "an NPY file holds one unnamed array (tensor=%s)",
			               req->tensor);
		/* The headers alone, in a zero mapping of the file's size (see contents). */
		void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (map == MAP_FAILED)
			return rd_fail(err, PE_ENOMEM, "out of memory (%zu bytes)", len);
		struct contents c = {map, len, map, NULL};
		st = fill_needed(fd, &c, path, limit, req ? req->tensor : NULL, 1, err);
		if (st == PE_OK && limit)
			st = table_fits(&c, path, req, limit, err);
		struct rd_table_loc loc;
		if (st == PE_OK)
			st = f == PE_FORMAT_NPY ? rd_npy_locate(c.p, len, req, &loc, err)
			                        : rd_safetensors_locate(c.p, len, req, &loc, err);
		munmap(map, len);
		if (st == PE_OK && !(m = pe_matrix_create(loc.r1 - loc.r0, loc.cols)))
			st = rd_fail(err, PE_ENOMEM, "out of memory for a %zu x %zu table",
			             loc.r1 - loc.r0, loc.cols);
		if (st == PE_OK)
			st = read_located(fd, len, &loc, m->data, err);
	}
	if (st == PE_OK)
		st = unchanged(fd, sb, err);
	if (st != PE_OK) {
		pe_matrix_destroy(m);
		return st;
	}
	*out = m;
	return PE_OK;
}

/* Any file's table: regular files read directly, streams (pipes, devices) whole first. */
static enum pe_status read_table(const char *path, const struct pe_read_request *req, size_t limit,
                                 struct pe_matrix **out, char **err)
{
	int fd;
	struct stat sb;
	enum pe_status st = open_described(path, &fd, &sb, err);
	if (st != PE_OK)
		return st;
	if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
		st = read_regular(fd, &sb, path, req, limit, out, err);
		close(fd);
		return st;
	}
	/* from this opening: a FIFO opened again would wait for a writer that is gone */
	struct contents c;
	st = contents_from_fd(fd, &sb, path, limit, req ? req->tensor : NULL, 0, &c, err);
	if (st != PE_OK)
		return st;
	if (limit)
		st = table_fits(&c, path, req, limit, err);
	if (st == PE_OK)
		st = pe_read_buffer(c.p, c.len, path, req, out, err);
	contents_close(&c);
	return st;
}

enum pe_status pe_read_file(const char *path, const struct pe_read_request *req,
                            struct pe_matrix **out, char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	return read_table(path, req, 0, out, err);
}

enum pe_status pe_read_file_described(const char *path, const struct pe_read_request *req,
                                      size_t max_bytes, struct pe_matrix **out,
                                      struct pe_file_info **info, char **err)
{
	*out = NULL;
	*info = NULL;
	if (err)
		*err = NULL;
	int fd;
	struct stat sb;
	enum pe_status opened = open_described(path, &fd, &sb, err);
	if (opened != PE_OK)
		return opened;
	enum pe_status st;
	if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
		/* The table, then the headers from the same open file (not the path
		 * again: it may name another file by now). */
		st = read_regular(fd, &sb, path, req, max_bytes, out, err);
		if (st == PE_OK && (uint64_t)sb.st_size <= SIZE_MAX) {
			size_t len = (size_t)sb.st_size;
			void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (map == MAP_FAILED) {
				st = rd_fail(err, PE_ENOMEM, "out of memory (%zu bytes)", len);
			} else {
				struct contents c = {map, len, map, NULL};
				st = fill_needed(fd, &c, path, max_bytes, NULL, 1, err);
				if (st == PE_OK)
					st = pe_file_inspect_buffer(c.p, c.len, path, info, err);
				if (st == PE_OK)
					st = unchanged(fd, &sb, err);
				munmap(map, len);
			}
		}
		close(fd);
	} else {
		/* A stream (pipe, FIFO, device) is read once, whole, within the limit. */
		struct contents c;
		memset(&c, 0, sizeof(c));
		c.p = (const unsigned char *)"";
		st = S_ISREG(sb.st_mode)
		             ? PE_OK
		             : read_stream_until(fd, max_bytes, path ? path : "", &c, err);
		close(fd);
		if (st == PE_OK)
			st = stream_header_fits(&c, path, max_bytes, err);
		if (st == PE_OK && max_bytes)
			st = table_fits(&c, path, req, max_bytes, err);
		if (st == PE_OK)
			st = pe_read_buffer(c.p, c.len, path, req, out, err);
		if (st == PE_OK)
			st = pe_file_inspect_buffer(c.p, c.len, path, info, err);
		free(c.heap);
	}
	if (st != PE_OK) {
		pe_matrix_destroy(*out);
		pe_file_info_destroy(*info);
		*out = NULL;
		*info = NULL;
	}
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
	struct pe_read_request req = {s->tensor, s->row_first, s->row_end, s->row_end_set, 0};
	struct pe_matrix *m;
	enum pe_status st = read_table(s->path, &req, max_bytes, &m, err);
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
