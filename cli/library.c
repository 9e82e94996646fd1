/*
 * cli/library.c - the program's commands as one library call (libposenc-python)
 *
 * The Python package (python/posenc/) runs the very code of the program:
 * posenc_run() takes the arguments of a command line, reads the tables the
 * caller holds in memory where the command line names them, and hands back
 * everything the run wrote (its exit status, standard output and error, and
 * each output file) as memory buffers, so the numbers are those of the
 * program's NPY byte for byte and the figures those it draws. Runs are
 * serialised: the command line parser (getopt) and the C streams are
 * process-wide.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "shared/memio.h"
#include "shared/model_spec.h"
#include "shared/options.h"
#include "shared/position_ids.h"

#define API __attribute__((visibility("default")))

/* What a run wrote; made by posenc_run(), freed by posenc_result_free(). */
struct posenc_result {
	int status; /* the program's exit status: 0, 1 (failure), 2 (usage), 3 (check: disagree) */
	char *out;  /* standard output */
	size_t out_len;
	char *err; /* standard error: notes and "posenc: error: ..." lines */
	size_t err_len;
	size_t nfiles;
	struct cli_memfile *files; /* the outputs, by the name given to -o */
};

API int posenc_run(int argc, char **argv, const struct cli_memtable *tables, size_t ntables,
                   struct posenc_result **result);
API void posenc_result_free(struct posenc_result *r);
API int posenc_result_write(const struct posenc_result *r, int fd);

static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;

void posenc_result_free(struct posenc_result *r)
{
	if (!r)
		return;
	free(r->out);
	free(r->err);
	for (size_t i = 0; i < r->nfiles; i++) {
		free(r->files[i].name);
		free(r->files[i].data);
	}
	free(r->files);
	free(r);
}

/*
 * posenc_run() - run "posenc ARGS..." in memory
 *
 * @argv: argv[0] is the program name; the array may be reordered (getopt).
 * @tables: tables that -s file:path=NAME and check --against NAME read by
 * name, borrowed for the call.
 * @result: on return 0, a new result (posenc_result_free()).
 *
 * @return 0, or -1 when memory for the streams ran out (nothing ran).
 */
int posenc_run(int argc, char **argv, const struct cli_memtable *tables, size_t ntables,
               struct posenc_result **result)
{
	*result = NULL;
	struct posenc_result *r = calloc(1, sizeof(*r));
	if (!r)
		return -1;
	pthread_mutex_lock(&run_lock);
	FILE *out = open_memstream(&r->out, &r->out_len);
	FILE *err = open_memstream(&r->err, &r->err_len);
	if (!out || !err) {
		if (out)
			fclose(out);
		if (err)
			fclose(err);
		pthread_mutex_unlock(&run_lock);
		posenc_result_free(r);
		return -1;
	}
	/* glibc's stdout and stderr are variables: the commands print into memory. */
	FILE *saved_out = stdout, *saved_err = stderr;
	fflush(stdout);
	fflush(stderr);
	stdout = out;
	stderr = err;
	/* The caller's heap (Python's arrays) is not the run's: the budget counts from here. */
	cli_memory_baseline = 0;
	cli_memory_baseline = cli_memory_in_use();
	cli_memio_begin(tables, ntables);
	r->status = cli_main(argc, argv);
	r->files = cli_memio_end(&r->nfiles);
	/* What a run reads once and keeps (a model's file, --position-ids) is for that run:
	 * the next call must see the file as it is then. */
	cli_model_forget();
	cli_position_ids_forget();
	cli_memory_baseline = 0;
	stdout = saved_out;
	stderr = saved_err;
	fclose(out);
	fclose(err);
	pthread_mutex_unlock(&run_lock);
	*result = r;
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_u64(int fd, uint64_t v)
{
	return write_all(fd, &v, sizeof(v));
}

/* A block: its length, then its bytes starting at a multiple of 64 (so arrays read in place are
 * aligned). */
static int write_block(int fd, uint64_t *at, const char *data, size_t len)
{
	static const char zeros[64];
	if (write_u64(fd, len))
		return -1;
	*at += 8;
	size_t pad = (size_t)((64 - *at % 64) % 64);
	if (write_all(fd, zeros, pad) || write_all(fd, data, len))
		return -1;
	*at += pad + len;
	return 0;
}

/*
 * posenc_result_write() - a result as bytes on @fd (a forked run hands it back)
 *
 * "posenc-result\n\0\0" (16 bytes), then u64 status and number of files, then
 * blocks (u64 length, zero padding to a multiple of 64, bytes): standard
 * output, standard error, and each file's name and data. Native byte order.
 *
 * @return 0, or -1 with errno set.
 */
int posenc_result_write(const struct posenc_result *r, int fd)
{
	static const char magic[16] = "posenc-result\n";
	uint64_t at = 0;
	if (write_all(fd, magic, sizeof(magic)) || write_u64(fd, (uint64_t)(int64_t)r->status) ||
	    write_u64(fd, r->nfiles))
		return -1;
	at = 32;
	if (write_block(fd, &at, r->out, r->out_len) || write_block(fd, &at, r->err, r->err_len))
		return -1;
	for (size_t i = 0; i < r->nfiles; i++)
		if (write_block(fd, &at, r->files[i].name, strlen(r->files[i].name)) ||
		    write_block(fd, &at, r->files[i].data, r->files[i].len))
			return -1;
	return 0;
}
