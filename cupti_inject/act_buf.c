// SPDX-License-Identifier: Apache-2.0
/* Bounded, preallocated pool of CUPTI activity buffers and the completed-buffer queue. */

#include "act_buf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int act_buf__init(struct act_buf *p, size_t size, unsigned count, unsigned keep, int wake_fd)
{
	unsigned i;
	int err;

	memset(p, 0, sizeof(*p));
	if (!count || !size || size % 8)
		return -EINVAL;
	p->wake_fd = wake_fd;
	p->size = size;
	p->count = count;
	p->keep = keep < count ? keep : count;
	p->free = calloc(count, sizeof(*p->free));
	p->done = calloc(count, sizeof(*p->done));
	p->resident = calloc(count, 1);
	if (!p->free || !p->done || !p->resident) {
		err = -ENOMEM;
		goto fail;
	}
	/* Reserved, not committed: untouched buffers cost no memory. */
	p->mem = mmap(NULL, size * count, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p->mem == MAP_FAILED) {
		err = -errno;
		p->mem = NULL;
		goto fail;
	}
	/* Last buffer at the bottom of the stack, so the first ones are reused first. */
	for (i = 0; i < count; i++)
		p->free[i] = p->mem + (size_t)(count - 1 - i) * size;
	p->nfree = count;
	pthread_mutex_init(&p->lock, NULL);
	return 0;
fail:
	free(p->free);
	free(p->done);
	free(p->resident);
	memset(p, 0, sizeof(*p));
	return err;
}

void act_buf__release(struct act_buf *p)
{
	if (!p || !p->free)
		return;
	if (p->mem)
		munmap(p->mem, p->size * p->count);
	free(p->free);
	free(p->done);
	free(p->resident);
	pthread_mutex_destroy(&p->lock);
	memset(p, 0, sizeof(*p));
}

void act_buf__requested(struct act_buf *p, uint8_t **buffer, size_t *size, size_t *max_records)
{
	uint8_t *b = NULL;

	pthread_mutex_lock(&p->lock);
	if (p->nfree) {
		b = p->free[--p->nfree];
		p->resident[(size_t)(b - p->mem) / p->size] = 1;
	}
	pthread_mutex_unlock(&p->lock);
	*buffer = b;
	*size = b ? p->size : 0;
	*max_records = 0; /* as many as fit */
	if (!b)
		atomic_fetch_add(&p->declined, 1);
}

void act_buf__completed(struct act_buf *p, uint8_t *buffer, size_t valid, uint32_t stream)
{
	uint64_t one = 1;
	unsigned slot;

	if (!buffer)
		return;
	pthread_mutex_lock(&p->lock);
	/* At most `count` buffers exist, so the ring (of `count`) cannot overflow. */
	slot = (p->head + p->ndone) % p->count;
	p->done[slot].buf = buffer;
	p->done[slot].valid = valid;
	p->done[slot].stream = stream;
	p->ndone++;
	pthread_mutex_unlock(&p->lock);
	atomic_fetch_add(&p->completed_total, 1);
	if (p->wake_fd >= 0 && write(p->wake_fd, &one, sizeof(one)) < 0) {
		/* The writer also wakes on its flush period; nothing is lost. */
	}
}

int act_buf__take(struct act_buf *p, struct act_buf_done *out, unsigned *waiting)
{
	int got = 0;

	pthread_mutex_lock(&p->lock);
	if (p->ndone) {
		*out = p->done[p->head];
		p->head = (p->head + 1) % p->count;
		p->ndone--;
		got = 1;
	}
	if (waiting)
		*waiting = p->ndone;
	pthread_mutex_unlock(&p->lock);
	return got;
}

void act_buf__put(struct act_buf *p, uint8_t *buffer)
{
	uint8_t *victim = NULL;
	unsigned i;

	pthread_mutex_lock(&p->lock);
	if (p->nfree < p->count)
		p->free[p->nfree++] = buffer;
	/*
	 * The buffer that just fell out of the resident window is taken off the
	 * stack while its pages are released, so CUPTI cannot be handed it
	 * half-way through.
	 */
	if (p->nfree > p->keep) {
		i = p->nfree - 1 - p->keep;
		if (p->resident[(size_t)(p->free[i] - p->mem) / p->size]) {
			victim = p->free[i];
			memmove(&p->free[i], &p->free[i + 1], (p->nfree - 1 - i) * sizeof(*p->free));
			p->nfree--;
		}
	}
	pthread_mutex_unlock(&p->lock);
	if (!victim)
		return;
	/* On failure the pages just stay resident: still bounded by count * size. */
	i = madvise(victim, p->size, MADV_DONTNEED) == 0;
	pthread_mutex_lock(&p->lock);
	if (i)
		p->resident[(size_t)(victim - p->mem) / p->size] = 0;
	/* Back at the bottom: the last to be reused. */
	memmove(&p->free[1], &p->free[0], p->nfree * sizeof(*p->free));
	p->free[0] = victim;
	p->nfree++;
	pthread_mutex_unlock(&p->lock);
}

uint64_t act_buf__take_declined(struct act_buf *p)
{
	return atomic_exchange(&p->declined, 0);
}
