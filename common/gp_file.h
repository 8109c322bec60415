/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gp_file.h - opening files in directories someone else controls.
 *
 * gpuperf often runs as root for another user (`sudo gpuperf`), and the
 * recording directory belongs to that user and to the program it records,
 * which may plant links, FIFOs or device nodes under any name. These calls
 * never follow a link in the last component of a name, never block on a
 * FIFO and never open a device node; they act relative to a directory fd
 * (AT_FDCWD for a plain path) so a directory checked once stays the one
 * written to. Each returns a descriptor (O_CLOEXEC) or -errno.
 */
#ifndef GPUPERF_GP_FILE_H
#define GPUPERF_GP_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Create @name in @dir_fd; it must not exist (O_EXCL: a planted file or
 * link gives -EEXIST). With @chown, the new file is handed to uid/gid
 * through its descriptor, never through its name.
 */
int gp_file__create(int dir_fd, const char *name, bool chown, uid_t uid, gid_t gid);

/*
 * Open @name in @dir_fd for writing an output that may be there from an
 * earlier run: created when missing, else truncated when it is a regular
 * file with no other hard link; a link (-ELOOP), a hard-linked file
 * (-EMLINK), a FIFO, socket, device or directory (-EINVAL) is refused.
 */
int gp_file__output(int dir_fd, const char *name);

/*
 * Open @name in @dir_fd for reading, when it is a regular file and not a
 * link (-ELOOP); anything else (FIFO, device, directory) gives -EINVAL
 * without blocking.
 */
int gp_file__input(int dir_fd, const char *name);

/* gp_file__output() of a plain path as a stdio stream ("w"): NULL with errno set. */
FILE *gp_file__fopen_output(const char *path);

/* Open @path as a directory that is not a link and belongs to @owner (-EPERM otherwise). */
int gp_file__dir_owned(const char *path, uid_t owner);

/* Write all of @buf to @fd, retrying on EINTR: 0 or -errno (-EIO for a write that stores nothing). */
int gp_file__write_full(int fd, const void *buf, size_t len);

/* What a -errno of the calls above means, for "cannot write 'X': ..." messages. */
const char *gp_file__strerror(int err);

#endif /* GPUPERF_GP_FILE_H */
