/*
 * buffer.c - large buffers on huge pages, kept for the next request
 *
 * A first touch of a 4 KiB page costs a fault (about 17 us on the project's
 * VMs); a 512 MiB matrix is 131072 of them, more than the arithmetic that
 * fills it. Buffers of 2 MiB and more are therefore mapped on their own,
 * aligned to 2 MiB and marked MADV_HUGEPAGE, so that with transparent huge
 * pages in "madvise" or "always" mode the kernel backs them with 2 MiB pages
 * (512 times fewer faults, fewer TLB misses). Where that is off or refused
 * the mapping is an ordinary one: nothing fails because of it.
 *
 * The last freed mapping is kept and handed out again to a request it fits
 * (not more than twice its size), so a buffer freed and allocated again in
 * a loop is faulted in once. A request it does not fit unmaps it first:
 * the cache never adds to the peak.
 */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <posenc/matrix.h>

#define HUGE_SIZE   ((size_t)2 << 20)
#define MAX_REGIONS 64

struct region {
	void *p;
	size_t len; /* mapped bytes, a multiple of HUGE_SIZE */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct region live[MAX_REGIONS];
static struct region cached;

static void *map_aligned(size_t len)
{
	/* len + HUGE_SIZE, then the unaligned head and the tail cut off */
	if (len > SIZE_MAX - HUGE_SIZE)
		return NULL;
	size_t span = len + HUGE_SIZE;
	char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	uintptr_t a = ((uintptr_t)raw + HUGE_SIZE - 1) & ~(uintptr_t)(HUGE_SIZE - 1);
	char *p = (char *)a;
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	if (raw + span > p + len)
		munmap(p + len, (size_t)(raw + span - (p + len)));
#ifdef MADV_HUGEPAGE
	(void)madvise(p, len, MADV_HUGEPAGE); /* advice: refused is fine */
#endif
	return p;
}

static void *big_alloc(size_t bytes, int zero)
{
	size_t len = (bytes + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1);
	void *p = NULL, *drop = NULL;
	size_t drop_len = 0;
	int reused = 0;
	pthread_mutex_lock(&lock);
	size_t slot = MAX_REGIONS;
	for (size_t i = 0; i < MAX_REGIONS && slot == MAX_REGIONS; i++)
		if (!live[i].p)
			slot = i;
	if (slot < MAX_REGIONS) {
		if (cached.p && cached.len >= len && cached.len / 2 <= len) {
			p = cached.p;
			len = cached.len;
			reused = 1;
		} else if (cached.p) {
			drop = cached.p;
			drop_len = cached.len;
		}
		cached.p = NULL;
		cached.len = 0;
		if (!p)
			p = map_aligned(len);
		if (p) {
			live[slot].p = p;
			live[slot].len = len;
		}
	}
	pthread_mutex_unlock(&lock);
	if (drop)
		munmap(drop, drop_len);
	if (slot == MAX_REGIONS) /* too many at once: the C library's */
		return zero ? calloc(1, bytes) : malloc(bytes);
	if (p && reused && zero)
		memset(p, 0, bytes); /* a fresh mapping is zero already */
	return p;
}

void *pe_buffer_alloc(size_t bytes)
{
	if (bytes < HUGE_SIZE)
		return malloc(bytes ? bytes : 1);
	return big_alloc(bytes, 0);
}

void *pe_buffer_calloc(size_t count, size_t size)
{
	size_t bytes;
	if (pe_size_mul(count, size, &bytes) != PE_OK)
		return NULL;
	if (bytes < HUGE_SIZE)
		return calloc(bytes ? bytes : 1, 1);
	return big_alloc(bytes, 1);
}

void pe_buffer_free(void *p)
{
	if (!p)
		return;
	void *drop = NULL;
	size_t drop_len = 0;
	int found = 0;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < MAX_REGIONS; i++) {
		if (live[i].p != p)
			continue;
		found = 1;
		/* keep the larger of this one and the one kept before */
		if (cached.p && cached.len > live[i].len) {
			drop = p;
			drop_len = live[i].len;
		} else {
			drop = cached.p;
			drop_len = cached.len;
			cached = live[i];
		}
		live[i].p = NULL;
		live[i].len = 0;
		break;
	}
	pthread_mutex_unlock(&lock);
	if (!found)
		free(p);
	else if (drop)
		munmap(drop, drop_len);
}

void pe_buffer_trim(void)
{
	pthread_mutex_lock(&lock);
	struct region c = cached;
	cached.p = NULL;
	cached.len = 0;
	pthread_mutex_unlock(&lock);
	if (c.p)
		munmap(c.p, c.len);
}
