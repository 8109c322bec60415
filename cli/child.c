// SPDX-License-Identifier: Apache-2.0
/*
 * child.c - the program `gpuperf record` runs: fork held, exec, reap, and
 * the signals meant for it (see child.h).
 *
 * Two pipes, both close-on-exec: the child blocks reading the hold pipe
 * until gpuperf writes one byte (EOF: gpuperf gave up, the program never
 * runs), and reports a failed setgroups/setgid/setuid/exec through the
 * fail pipe, whose EOF at a successful exec tells gpuperf that the program
 * is running.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "child.h"
#include "gp_util.h"
#include "user.h"

/* What gpuperf catches while it records; the program gets them as gpuperf found them. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD };
_Static_assert(ARRAY_SIZE(stop_signals) == CHILD_NR_SIGNALS, "one saved disposition each");

/*
 * The signal handlers' only state: counters the command's loop reads.
 * Signals carry no user data, so this is the one global of the command.
 */
static volatile sig_atomic_t sig_requests; /* SIGINT/SIGTERM/SIGHUP/SIGQUIT received */
static volatile sig_atomic_t sig_terms;	   /* ... of which SIGTERM: passed on to the program */
static volatile sig_atomic_t sig_last;

static void on_stop_signal(int sig)
{
	sig_requests++;
	if (sig == SIGTERM)
		sig_terms++;
	sig_last = sig;
}

static void on_sigchld(int sig)
{
	(void)sig; /* only to interrupt the agent's epoll_wait */
}

void child__init(struct child *c)
{
	memset(c, 0, sizeof(*c));
	c->hold_fd = -1;
	c->fail_fd = -1;
}

void child__signals_catch(struct child *c)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < CHILD_NR_SIGNALS; i++) {
		/* no SA_RESTART: interrupt the poll */
		sa.sa_handler = stop_signals[i] == SIGCHLD ? on_sigchld : on_stop_signal;
		sa.sa_flags = stop_signals[i] == SIGCHLD ? SA_NOCLDSTOP : 0;
		sigaction(stop_signals[i], &sa, &c->saved[i]);
	}
	c->signals_set = true;
}

void child__signals_restore(struct child *c)
{
	size_t i;

	if (!c->signals_set)
		return;
	for (i = 0; i < CHILD_NR_SIGNALS; i++)
		sigaction(stop_signals[i], &c->saved[i], NULL);
	c->signals_set = false;
}

void child__signals_seen(struct child_signals *s)
{
	s->requests = sig_requests;
	s->terms = sig_terms;
	s->last = sig_last;
}

void child__forward_terms(struct child *c)
{
	/* SIGTERM to gpuperf is meant for the program */
	while (c->terms_sent < sig_terms) {
		c->terms_sent++;
		if (c->running)
			kill(c->running, SIGTERM);
	}
}

int child__find(const char *prog)
{
	const char *path = getenv("PATH"), *p;
	char buf[PATH_MAX];
	int err = -ENOENT;

	if (strchr(prog, '/'))
		return access(prog, X_OK) ? -errno : 0;
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	for (p = path;; p += strcspn(p, ":") + 1) {
		size_t len = strcspn(p, ":");
		struct stat sb;

		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, len ? p : ".", "/", prog);
		if (!stat(buf, &sb) && S_ISREG(sb.st_mode)) {
			if (!access(buf, X_OK))
				return 0;
			err = -EACCES;
		}
		if (!p[len])
			break;
	}
	return err;
}

int child__exec_status(int err)
{
	return err == ENOENT || err == ENOTDIR ? CHILD_EXIT_NOTFOUND : CHILD_EXIT_NOEXEC;
}

/* What the child reports through the fail pipe when it cannot start the program. */
struct child_failure {
	int stage; /* CHILD_* */
	int err;
};

enum { CHILD_EXEC, CHILD_SETGROUPS, CHILD_SETGID, CHILD_SETUID };

static void child_fail(int fd, int stage, int err)
{
	struct child_failure f = { stage, err };

	if (write(fd, &f, sizeof(f)) < 0)
		_exit(1);
}

/* In the child: wait for the release, become the user, exec. Never returns. */
static void child_run(struct child *c, int hold_fd, int fail_fd)
{
	const struct gp_user *u = c->user;
	size_t i;
	char b;

	child__signals_restore(c);
	for (i = 0; i < CHILD_NR_ENV; i++)
		if (c->env[i][0])
			setenv(c->env[i][0], c->env[i][1], 1);
	if (u->drop && u->name) {
		setenv("HOME", u->home, 1);
		setenv("USER", u->name, 1);
		setenv("LOGNAME", u->name, 1);
	}
	/* EOF: gpuperf gave up (the agent failed); the program never runs */
	if (read(hold_fd, &b, 1) != 1)
		_exit(1);
	close(hold_fd);
	if (u->drop) {
		if (setgroups((size_t)u->nr_groups, u->groups)) {
			child_fail(fail_fd, CHILD_SETGROUPS, errno);
			_exit(1);
		}
		if (setgid(u->gid)) {
			child_fail(fail_fd, CHILD_SETGID, errno);
			_exit(1);
		}
		if (setuid(u->uid)) {
			child_fail(fail_fd, CHILD_SETUID, errno);
			_exit(1);
		}
	}
	execvp(c->argv[0], c->argv);
	child_fail(fail_fd, CHILD_EXEC, errno);
	_exit(errno == ENOENT ? CHILD_EXIT_NOTFOUND : CHILD_EXIT_NOEXEC);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int child__start(struct child *c)
{
	int hold[2] = { -1, -1 }, fail[2] = { -1, -1 }, err;
	pid_t pid;

	if (pipe2(hold, O_CLOEXEC) || pipe2(fail, O_CLOEXEC)) {
		err = -errno;
		fprintf(stderr, "gpuperf record: cannot create a pipe: %s\n", strerror(-err));
		goto fail;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		fprintf(stderr, "gpuperf record: cannot fork: %s\n", strerror(-err));
		goto fail;
	}
	if (pid == 0) {
		close(hold[1]);
		close(fail[0]);
		child_run(c, hold[0], fail[1]);
	}
	c->running = c->pid = pid;
	close(hold[0]);
	close(fail[1]);
	c->hold_fd = hold[1];
	c->fail_fd = fail[0];
	return 0;
fail:
	close_fd(&hold[0]);
	close_fd(&hold[1]);
	close_fd(&fail[0]);
	close_fd(&fail[1]);
	return err;
}

int child__exec(struct child *c)
{
	static const char *const what[] = { "run", "set the groups of", "setgid for",
					    "setuid for" };
	struct child_failure f;
	ssize_t n;
	char b = 1;
	int err;

	if (write(c->hold_fd, &b, 1) != 1) {
		err = -errno;
		fprintf(stderr, "gpuperf record: cannot release %s: %s\n", c->argv[0],
			strerror(-err));
		return err;
	}
	close_fd(&c->hold_fd);

	/* EOF at the exec (close-on-exec), or the child's report of what failed */
	do
		n = read(c->fail_fd, &f, sizeof(f));
	while (n < 0 && errno == EINTR);
	close_fd(&c->fail_fd);
	if (n != (ssize_t)sizeof(f))
		return 0;
	fprintf(stderr, "gpuperf record: cannot %s '%s': %s\n",
		what[f.stage >= 0 && f.stage <= CHILD_SETUID ? f.stage : 0], c->argv[0],
		strerror(f.err));
	child__reap(c, 0);
	return f.stage == CHILD_EXEC ? child__exec_status(f.err) : GP_EXIT_DATA;
}

void child__kill_held(struct child *c)
{
	/* the program never ran: it is still blocked in read() before exec */
	if (c->running > 0)
		kill(c->running, SIGKILL);
	child__reap(c, 0);
	close_fd(&c->hold_fd);
	close_fd(&c->fail_fd);
}

void child__reap(struct child *c, int flags)
{
	int st;
	pid_t w;

	if (c->running <= 0)
		return;
	/* no WUNTRACED: a job-control stop is not an exit */
	do
		w = waitpid(c->running, &st, flags);
	while (w < 0 && errno == EINTR);
	if (w == c->running) {
		c->status = st;
		c->waited = true;
		c->running = 0;
	}
}

void child__release(struct child *c)
{
	child__signals_restore(c);
	if (c->running > 0) {
		kill(c->running, SIGKILL);
		child__reap(c, 0);
	}
	close_fd(&c->hold_fd);
	close_fd(&c->fail_fd);
}

const char *child__signame(int sig)
{
	const char *s = sigabbrev_np(sig);

	return s ? s : "?";
}
