/* SPDX-License-Identifier: Apache-2.0 */
/* stop_guard: a watchdog process that continues the processes the agent holds stopped, should the agent die. */
#ifndef GPUPERF_CPU_AGENT_STOP_GUARD_H
#define GPUPERF_CPU_AGENT_STOP_GUARD_H

#include <sys/types.h>

/*
 * The agent holds a followed process with SIGSTOP while it attaches to a
 * library the process just loaded, and continues it with SIGCONT. If the
 * agent's process dies in between (SIGKILL, a crash), nobody would. So
 * before anything can be stopped, the agent forks a guard: a process that
 * shares only a pipe and the held-process map (cl_held) with it and waits
 * on the pipe. The agent's death closes the pipe (and, with its other fds,
 * the uprobe links, so no new stop can happen); the guard then sends
 * SIGCONT to every process still in the map that is stopped, a few times
 * over 100 ms for a stop that was in flight, and exits. A normal end tells
 * the guard to exit without touching anything.
 *
 * The guard leaves the caller's process group and ignores the terminal's
 * signals, so a Ctrl-C or a kill of the group does not take it along; it
 * holds no BPF link or program. In the child only system calls are made
 * (fork from a multithreaded caller is safe).
 */
struct stop_guard;

/* Fork the guard over map @held_fd; NULL with errno on failure. */
struct stop_guard *stop_guard__new(int held_fd);

/* Its pid (to leave it out of a system-wide recording). */
pid_t stop_guard__pid(const struct stop_guard *g);

/* Tell the guard the agent ended normally, reap it and free. Accepts NULL. */
void stop_guard__free(struct stop_guard *g);

#endif /* GPUPERF_CPU_AGENT_STOP_GUARD_H */
