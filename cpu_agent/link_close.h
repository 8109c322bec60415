/* SPDX-License-Identifier: Apache-2.0 */
/*
 * link_close: close BPF links from several threads at once. Closing a
 * uprobe link waits for an RCU tasks-trace grace period (a perf-event
 * uprobe for more than one), 25-100 ms each: one after another they were
 * most of the recorder's stop. Closed at once the waits overlap, since one
 * grace period ends every wait queued before it began, and the caller does
 * other work meanwhile.
 */
#ifndef GPUPERF_CPU_AGENT_LINK_CLOSE_H
#define GPUPERF_CPU_AGENT_LINK_CLOSE_H

#include <stddef.h>

struct bpf_link;
struct link_close;

#define LINK_CLOSE_THREADS 16

/*
 * Start closing @links (bpf_link__destroy; NULL entries skipped) and the
 * link fds @fds (close; negative entries skipped): they are the closer's
 * from now on, the arrays are not kept. NULL when there is nothing to
 * close; without memory everything is closed here, before returning NULL.
 */
struct link_close *link_close__start(struct bpf_link *const *links, size_t nlinks, const int *fds,
				     size_t nfds);
/* Close what no thread has taken yet, wait for the threads, free @c (NULL: nothing). */
void link_close__wait(struct link_close *c);

#endif /* GPUPERF_CPU_AGENT_LINK_CLOSE_H */
