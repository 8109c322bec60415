// SPDX-License-Identifier: Apache-2.0
/* Diagnostics of the injection library: one line, one write(2), stderr or a log file. */

#include "inject_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static atomic_int log_level = INJECT_LOG_WARN;
static atomic_int log_fd = STDERR_FILENO;
/*
 * What fd 2 was when the library started: 1 = err_dev/err_ino, -1 = not an
 * open file then, 0 = not looked at yet (every line goes to fd 2). A program
 * that later puts a data file on fd 2 (dup2) must not find our lines in it.
 */
static atomic_int err_known;
static dev_t err_dev;
static ino_t err_ino;
static atomic_ulong err_dropped; /* lines not written: fd 2 was no longer the original */

static void capture_stderr(void)
{
	struct stat st;

	if (atomic_load(&err_known))
		return;
	if (fstat(STDERR_FILENO, &st)) {
		atomic_store(&err_known, -1);
		return;
	}
	err_dev = st.st_dev;
	err_ino = st.st_ino;
	atomic_store(&err_known, 1);
}

/* fd 2 is still the file it was at start (fstat is async-signal-safe, like the rest here). */
static int stderr_is_original(void)
{
	struct stat st;
	int known = atomic_load(&err_known);

	if (!known)
		return 1;
	return known > 0 && !fstat(STDERR_FILENO, &st) && st.st_dev == err_dev &&
	       st.st_ino == err_ino;
}

int inject_log__init(int level, const char *path)
{
	int fd;

	atomic_store(&log_level, level);
	capture_stderr();
	if (!path || !*path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		int err = -errno;

		inject_log(INJECT_LOG_WARN, "cannot open log file '%s': %s; logging to stderr",
			   path, strerror(errno));
		return err;
	}
	atomic_store(&log_fd, fd);
	return 0;
}

void inject_log__close(void)
{
	int fd = atomic_exchange(&log_fd, STDERR_FILENO);

	if (fd != STDERR_FILENO)
		close(fd);
}

void inject_log(int level, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	char line[1024];
	va_list ap;
	int n, m, fd;

	if (level > atomic_load(&log_level))
		return;
	n = snprintf(line, sizeof(line), "gpuperf-inject[%d]: %s: ", (int)getpid(),
		     names[level < 0 ? 0 : level > 3 ? 3 : level]);
	if (n < 0)
		return;
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += m;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	fd = atomic_load(&log_fd);
	if (fd == STDERR_FILENO) {
		unsigned long lost;

		if (!stderr_is_original()) {
			atomic_fetch_add(&err_dropped, 1);
			return;
		}
		lost = atomic_exchange(&err_dropped, 0);
		if (lost) {
			char note[160];
			int k = snprintf(note, sizeof(note),
					 "gpuperf-inject[%d]: warning: %lu earlier message%s dropped: "
					 "fd 2 was not the original stderr\n",
					 (int)getpid(), lost, lost == 1 ? "" : "s");

			if (k > 0 && (size_t)k < sizeof(note) && write(fd, note, (size_t)k) < 0)
				return;
		}
	}
	/* A failed diagnostic has nowhere to go; the application must not notice. */
	if (write(fd, line, (size_t)n) < 0)
		return;
}
