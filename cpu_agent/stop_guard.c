// SPDX-License-Identifier: Apache-2.0
/* stop_guard: a watchdog process that continues the processes the agent holds stopped, should the agent die. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stop_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#define GUARD_QUIT	'q'
#define GUARD_ROUNDS	4	/* sweeps, GUARD_PAUSE_NS apart: a stop in flight lands meanwhile */
#define GUARD_PAUSE_NS	30000000L

struct stop_guard {
	pid_t pid;
	int fd;		/* our end of the socket pair */
};

/* ---- the guard process: system calls only ------------------------------------ */

/* Is @pid stopped by a signal (state T in /proc/PID/stat)? */
static bool is_stopped(uint32_t pid)
{
	char path[32] = "/proc/", digits[12], buf[512], *s;
	size_t n = 0, len = 6;
	ssize_t got;
	int fd;

	do
		digits[n++] = (char)('0' + pid % 10);
	while ((pid /= 10) && n < sizeof(digits));
	while (n)
		path[len++] = digits[--n];
	memcpy(path + len, "/stat", 6);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return false;
	buf[got] = '\0';
	s = strrchr(buf, ')'); /* the comm may hold anything, even ") " */
	return s && s[1] == ' ' && s[2] == 'T';
}

/* Close every descriptor but @a and @b: above all the agent's BPF links. */
static void close_others(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a, fd;

	if ((lo > 0 && close_range(0, (unsigned)lo - 1, 0)) ||
	    (hi > lo + 1 && close_range((unsigned)lo + 1, (unsigned)hi - 1, 0)) ||
	    close_range((unsigned)hi + 1, ~0u, 0)) {
		for (fd = 0; fd < 65536; fd++) /* kernels before 5.9 */
			if (fd != a && fd != b)
				close(fd);
	}
}

static void guard_run(int fd, int held_fd)
{
	static const int ignored[] = { SIGINT, SIGQUIT, SIGHUP, SIGTERM, SIGTSTP,
				       SIGTTIN, SIGTTOU, SIGPIPE, SIGUSR1, SIGUSR2 };
	struct sigaction sa;
	struct timespec pause = { 0, GUARD_PAUSE_NS };
	char c;
	ssize_t n;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		sigaction(ignored[i], &sa, NULL);
	setpgid(0, 0); /* out of the terminal's job: Ctrl-C or kill -- -PGID is not for us */
	close_others(fd, held_fd);
	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1 && c == GUARD_QUIT)
		_exit(0);
	/* the agent is gone, and its uprobes with its descriptors: continue what it held */
	for (int round = 0; round < GUARD_ROUNDS; round++) {
		uint32_t key, next;
		const void *prev = NULL;

		while (!bpf_map_get_next_key(held_fd, prev, &next)) {
			key = next;
			prev = &key;
			if (is_stopped(key))
				kill((pid_t)key, SIGCONT);
		}
		nanosleep(&pause, NULL);
	}
	_exit(0);
}

/* ---- the agent's side ------------------------------------------------------------ */

struct stop_guard *stop_guard__new(int held_fd)
{
	struct stop_guard *g = calloc(1, sizeof(*g));
	int sv[2], err;

	if (!g)
		return NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		err = errno;
		free(g);
		errno = err;
		return NULL;
	}
	g->pid = fork();
	if (g->pid < 0) {
		err = errno;
		close(sv[0]);
		close(sv[1]);
		free(g);
		errno = err;
		return NULL;
	}
	if (g->pid == 0)
		guard_run(sv[1], held_fd);
	close(sv[1]);
	g->fd = sv[0];
	return g;
}

pid_t stop_guard__pid(const struct stop_guard *g)
{
	return g ? g->pid : 0;
}

void stop_guard__free(struct stop_guard *g)
{
	char c = GUARD_QUIT;

	if (!g)
		return;
	/* MSG_NOSIGNAL: a guard that is gone already must not kill us with SIGPIPE */
	while (send(g->fd, &c, 1, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
	close(g->fd);
	while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
		;
	free(g);
}
