/*
 * pairwise_threads.c - a small parallel-for over the online cores
 *
 * Chunks are handed out from a shared counter in ascending order, so
 * callers put the most expensive chunks first (upper-triangle row blocks).
 * If threads cannot be created the work runs on the calling thread: the
 * result is the same, only slower.
 */
#include <pthread.h>
#include <unistd.h>

#include "analysis/pairwise_internal.h"

#define MAX_THREADS 64

struct pool {
	pthread_mutex_t lock;
	size_t next;
	size_t n;
	size_t grain;
	pe_chunk_fn fn;
	void *ctx;
	enum pe_status status;
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t begin = p->next;
		int stop = begin >= p->n || p->status != PE_OK;
		size_t end = 0;
		if (!stop) {
			end = p->n - begin > p->grain ? begin + p->grain : p->n;
			p->next = end;
		}
		pthread_mutex_unlock(&p->lock);
		if (stop)
			return NULL;
		enum pe_status st = p->fn(p->ctx, begin, end);
		if (st != PE_OK) {
			pthread_mutex_lock(&p->lock);
			if (p->status == PE_OK)
				p->status = st;
			pthread_mutex_unlock(&p->lock);
		}
	}
}

static size_t core_count(void)
{
	long c = sysconf(_SC_NPROCESSORS_ONLN);
	if (c < 1)
		return 1;
	return c > MAX_THREADS ? MAX_THREADS : (size_t)c;
}

enum pe_status pe_parallel_for(size_t n, size_t grain, pe_chunk_fn fn, void *ctx)
{
	if (n == 0)
		return PE_OK;
	if (grain == 0)
		grain = 1;
	struct pool p = {.next = 0, .n = n, .grain = grain, .fn = fn, .ctx = ctx, .status = PE_OK};
	size_t chunks = (n + grain - 1) / grain;
	size_t nt = core_count();
	if (nt > chunks)
		nt = chunks;
	if (pthread_mutex_init(&p.lock, NULL) != 0)
		return fn(ctx, 0, n);
	pthread_t tid[MAX_THREADS];
	size_t started = 0;
	/* The calling thread is one of the workers. */
	for (size_t t = 1; t < nt; t++) {
		if (pthread_create(&tid[started], NULL, worker, &p) != 0)
			break;
		started++;
	}
	worker(&p);
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	pthread_mutex_destroy(&p.lock);
	return p.status;
}
