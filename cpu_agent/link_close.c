// SPDX-License-Identifier: Apache-2.0
/* link_close: BPF links closed from several threads, so their grace periods overlap. */
#include "link_close.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/libbpf.h>

struct link_item {
	struct bpf_link *link;
	int fd;
};

struct link_close {
	struct link_item *items;
	size_t n;
	size_t next;	/* the next item to take, atomically */
	pthread_t th[LINK_CLOSE_THREADS];
	int nth;
};

static void close_item(const struct link_item *it)
{
	if (it->link)
		bpf_link__destroy(it->link);
	else
		close(it->fd);
}

/* Take and close items until none is left; also what the waiting caller runs. */
static void *closer(void *arg)
{
	struct link_close *c = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED)) < c->n)
		close_item(&c->items[i]);
	return NULL;
}

struct link_close *link_close__start(struct bpf_link *const *links, size_t nlinks, const int *fds,
				     size_t nfds)
{
	struct link_close *c;
	sigset_t all, old;
	size_t i, n = 0, want;

	c = calloc(1, sizeof(*c));
	if (c)
		c->items = calloc(nlinks + nfds ? nlinks + nfds : 1, sizeof(*c->items));
	if (!c || !c->items) {
		/* no memory: one after another, here */
		for (i = 0; i < nlinks; i++)
			bpf_link__destroy(links[i]);
		for (i = 0; i < nfds; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		free(c);
		return NULL;
	}
	for (i = 0; i < nlinks; i++)
		if (links[i])
			c->items[n++] = (struct link_item){ .link = links[i], .fd = -1 };
	for (i = 0; i < nfds; i++)
		if (fds[i] >= 0)
			c->items[n++] = (struct link_item){ .link = NULL, .fd = fds[i] };
	c->n = n;
	if (!n) {
		free(c->items);
		free(c);
		return NULL;
	}
	/* the caller's signal handlers run on the caller's threads, not on these */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	want = n < LINK_CLOSE_THREADS ? n : LINK_CLOSE_THREADS;
	while ((size_t)c->nth < want && !pthread_create(&c->th[c->nth], NULL, closer, c))
		c->nth++;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return c; /* with no thread started, __wait closes them all */
}

void link_close__wait(struct link_close *c)
{
	if (!c)
		return;
	closer(c);
	for (int i = 0; i < c->nth; i++)
		pthread_join(c->th[i], NULL);
	free(c->items);
	free(c);
}
