/* SPDX-License-Identifier: Apache-2.0 */
/*
 * record_agent.h - the CPU side of `gpuperf record`: the eBPF agent
 * (cpu_agent.h) set up from record's options, and the cache directories it
 * reads and writes.
 *
 * The agent writes DIR/cpu.trace relative to DIR's descriptor, each file
 * handed to the user. Its caches are opened here, once, as directories
 * that are not links: the CFI table cache is the user's
 * ($XDG_CACHE_HOME/gpuperf, made by the user), the kernel symbol cache
 * root's alone (/run/gpuperf, 0700: KASLR hides those addresses from
 * users). A cache that cannot be used is left out, never an error.
 * Errors are printed once, as "gpuperf record: ...".
 */
#ifndef GPUPERF_RECORD_AGENT_H
#define GPUPERF_RECORD_AGENT_H

#include <sys/types.h>

struct record;

/* Open the caches for the agent (r->cache_fd, r->ksym_fd), where they can be used. */
void record_agent__open_caches(struct record *r);

/*
 * Start r->agent on @child (0: on -p/-t/-a's targets, covering what is
 * blocked when it attaches): 0, or -errno (printed; r->agent NULL).
 */
int record_agent__start(struct record *r, pid_t child);

/* Stop the agent once (its first error kept in r->agent_err); no-op without one. */
void record_agent__stop(struct record *r);

#endif /* GPUPERF_RECORD_AGENT_H */
