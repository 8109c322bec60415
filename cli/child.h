/* SPDX-License-Identifier: Apache-2.0 */
/*
 * child.h - the program `gpuperf record` runs: forked held before exec,
 * released, reaped, and the signals meant for it.
 *
 * The contract with the command: child__start() forks the program and
 * leaves it blocked before exec, so the recorders can attach to its pid
 * first; child__exec() lets it exec, and the command then reaps it with
 * child__reap(). Closing the hold pipe without a release (child__kill_held,
 * or gpuperf dying) means the program never runs. In the child, the
 * dispositions gpuperf started with are restored, the environment is set,
 * and under sudo the user's credentials are taken just before the exec.
 *
 * The stop signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT) are caught while the
 * program runs and only counted: the command reads the counts in its loop
 * and decides; SIGTERM to gpuperf is passed on to the program with
 * child__forward_terms(). SIGCHLD is caught (without SA_RESTART) only to
 * wake the loop's poll. These counters are the one global of the command:
 * signals carry no user data.
 *
 * Errors are printed once, as "gpuperf record: ...", where they happen.
 */
#ifndef GPUPERF_CHILD_H
#define GPUPERF_CHILD_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct gp_user;

#define CHILD_EXIT_NOEXEC 126	/* the program exists but cannot be executed */
#define CHILD_EXIT_NOTFOUND 127 /* the program was not found */
#define CHILD_NR_SIGNALS 5	/* the stop signals and SIGCHLD */
#define CHILD_NR_ENV 2

struct child {
	/* set by the caller before child__start() */
	char **argv;			/* the program: argv[0] is looked up in PATH */
	const struct gp_user *user;	/* its credentials when user->drop */
	const char *env[CHILD_NR_ENV][2]; /* NAME, VALUE set in its environment; NULL: unused */

	pid_t pid;		/* the program, once forked; 0 before */
	pid_t running;		/* ... while it may still run; 0: none, reaped or left running */
	bool waited;		/* reaped: status valid */
	int status;		/* its wait status */
	int hold_fd;		/* one byte lets the held program exec; -1 once sent */
	int fail_fd;		/* EOF at the exec, or the child's report of what failed */
	int terms_sent;		/* SIGTERMs to gpuperf passed on so far */
	bool signals_set;
	struct sigaction saved[CHILD_NR_SIGNALS]; /* the dispositions gpuperf started with */
};

/* The stop signals gpuperf received since child__signals_catch(); counts only grow. */
struct child_signals {
	int requests;	/* SIGINT, SIGTERM, SIGHUP or SIGQUIT */
	int terms;	/* ... of which SIGTERM */
	int last;	/* the last one received */
};

/* Set up @c with no program yet (descriptors -1); end with child__release(). */
void child__init(struct child *c);

/*
 * Catch the stop signals and SIGCHLD, keeping the dispositions gpuperf was
 * started with in @c: the program gets them back (a background job or
 * nohup ignores SIGINT/SIGHUP, and so must the program). Also for -p/-t/-a,
 * where no program is started.
 */
void child__signals_catch(struct child *c);
void child__signals_restore(struct child *c);
void child__signals_seen(struct child_signals *s);

/* Send the program one SIGTERM for each SIGTERM gpuperf got since the last call. */
void child__forward_terms(struct child *c);

/*
 * What execvp would find for @prog: 0, -ENOENT or -EACCES. Checked before
 * anything is created so a typo costs no directory; the exec itself still
 * reports through the pipe.
 */
int child__find(const char *prog);

/* The exit status for a program that could not be executed with errno @err: 126 or 127. */
int child__exec_status(int err);

/* Fork the program, held before exec: 0, or -errno (printed). */
int child__start(struct child *c);

/*
 * Let the held program exec and wait for the outcome: 0 once it runs;
 * -errno (printed) when it could not be released, still held; or an exit
 * status (printed, the child reaped) when it could not become the user or
 * exec: 126, 127, or 1.
 */
int child__exec(struct child *c);

/* Kill a program that is still held (it never ran) and reap it. */
void child__kill_held(struct child *c);

/* Reap the program if it exited (@flags: 0 waits, WNOHANG does not). */
void child__reap(struct child *c, int flags);

/* Restore the signals, kill and reap a program still running, close the pipes. */
void child__release(struct child *c);

/* "TERM" for SIGTERM, "?" for what has no name. */
const char *child__signame(int sig);

#endif /* GPUPERF_CHILD_H */
