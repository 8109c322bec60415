// SPDX-License-Identifier: Apache-2.0
/* Diagnostics of the injection library: one line, one write(2), stderr or a log file. */

#include "inject_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_int log_level = INJECT_LOG_WARN;
static atomic_int log_fd = STDERR_FILENO;

int inject_log__init(int level, const char *path)
{
	int fd;

	atomic_store(&log_level, level);
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
	int n, m;

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
	/* A failed diagnostic has nowhere to go; the application must not notice. */
	if (write(atomic_load(&log_fd), line, (size_t)n) < 0)
		return;
}
