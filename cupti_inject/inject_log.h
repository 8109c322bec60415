/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inject_log.h - the injection library's only writer of diagnostics: one
 * line per message to stderr or $GPUPERF_LOG_FILE, never to stdout.
 *
 * stderr means the file on fd 2 when inject_log__init() ran (st_dev and
 * st_ino): once the program puts something else there (dup2 of a data file,
 * a closed fd 2), lines are dropped and counted, and the next line that
 * finds the original stderr back says how many were.
 *
 * Thread-safety: inject_log() may be called from any thread once
 * inject_log__init() has run (before that it writes to stderr at the default
 * level). It formats on the stack and issues one write(2), so lines from
 * different threads never interleave; it does not allocate.
 */
#ifndef GPUPERF_INJECT_LOG_H
#define GPUPERF_INJECT_LOG_H

enum inject_log_level {
	INJECT_LOG_ERROR = 0,
	INJECT_LOG_WARN = 1,
	INJECT_LOG_INFO = 2,
	INJECT_LOG_DEBUG = 3,
};

/*
 * Send messages up to `level` to `path` (appended, created 0644) or to
 * stderr when path is NULL or empty, and remember which file fd 2 is now
 * (the first call only). Returns 0 or -errno (then stderr is used).
 */
int inject_log__init(int level, const char *path);
/* Close the log file (the child of a fork keeps its own copy). */
void inject_log__close(void);

void inject_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define inj_err(...) inject_log(INJECT_LOG_ERROR, __VA_ARGS__)
#define inj_warn(...) inject_log(INJECT_LOG_WARN, __VA_ARGS__)
#define inj_info(...) inject_log(INJECT_LOG_INFO, __VA_ARGS__)
#define inj_dbg(...) inject_log(INJECT_LOG_DEBUG, __VA_ARGS__)

#endif /* GPUPERF_INJECT_LOG_H */
