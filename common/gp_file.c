// SPDX-License-Identifier: Apache-2.0
/*
 * gp_file.c - opening files in directories someone else controls.
 *
 * An existing name is first opened with O_PATH|O_NOFOLLOW, which opens
 * nothing (no FIFO open, no device driver call) and pins the inode; its
 * type and link count are checked on that descriptor, and the file itself
 * is then opened through /proc/self/fd, which reaches that very inode
 * whatever the name points to by then. Without /proc the name is opened
 * again with O_NOFOLLOW|O_NONBLOCK and must be the same inode.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gp_file.h"

/* The inode @pfd pins (O_PATH), opened with @flags; -errno. */
static int reopen(int pfd, int dir_fd, const char *name, int flags, const struct stat *want)
{
	char path[64];
	struct stat sb;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
	fd = open(path, flags | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (errno != ENOENT)
		return -errno;
	/* no /proc: the name again, and it must still be that file */
	fd = openat(dir_fd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) || sb.st_dev != want->st_dev || sb.st_ino != want->st_ino) {
		close(fd);
		return -EAGAIN;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* Pin @name (not following a link) and check it is a regular file: the O_PATH fd or -errno. */
static int pin_regular(int dir_fd, const char *name, struct stat *sb)
{
	int pfd = openat(dir_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (pfd < 0)
		return -errno;
	if (fstat(pfd, sb)) {
		int err = -errno;

		close(pfd);
		return err;
	}
	if (!S_ISREG(sb->st_mode)) {
		close(pfd);
		return S_ISLNK(sb->st_mode) ? -ELOOP : -EINVAL;
	}
	return pfd;
}

int gp_file__create(int dir_fd, const char *name, bool chown, uid_t uid, gid_t gid)
{
	int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	if (chown && fchown(fd, uid, gid)) {
		int err = -errno;

		close(fd);
		unlinkat(dir_fd, name, 0);
		return err;
	}
	return fd;
}

int gp_file__output(int dir_fd, const char *name)
{
	struct stat sb;
	int tries, fd, pfd;

	for (tries = 0; tries < 4; tries++) {
		fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0644);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
		pfd = pin_regular(dir_fd, name, &sb);
		if (pfd == -ENOENT)
			continue; /* removed in between: create it */
		if (pfd < 0)
			return pfd;
		if (sb.st_nlink > 1) {
			close(pfd);
			return -EMLINK;
		}
		fd = reopen(pfd, dir_fd, name, O_WRONLY, &sb);
		close(pfd);
		if (fd == -EAGAIN)
			continue;
		if (fd < 0)
			return fd;
		if (ftruncate(fd, 0)) {
			int err = -errno;

			close(fd);
			return err;
		}
		return fd;
	}
	return -EAGAIN;
}

FILE *gp_file__fopen_output(const char *path)
{
	int fd = gp_file__output(AT_FDCWD, path);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return f;
}

int gp_file__input(int dir_fd, const char *name)
{
	struct stat sb;
	int fd, pfd = pin_regular(dir_fd, name, &sb);

	if (pfd < 0)
		return pfd;
	fd = reopen(pfd, dir_fd, name, O_RDONLY, &sb);
	close(pfd);
	return fd;
}

int gp_file__dir_owned(const char *path, uid_t owner)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat sb;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb)) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (sb.st_uid != owner) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

const char *gp_file__strerror(int err)
{
	switch (err) {
	case -ELOOP:
		return "it is a symbolic link, not followed";
	case -EMLINK:
		return "it has other hard links, not overwritten";
	case -EINVAL:
		return "not a regular file";
	case -EEXIST:
		return "something else created it first";
	default:
		return strerror(err < 0 ? -err : err);
	}
}

int gp_file__write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
