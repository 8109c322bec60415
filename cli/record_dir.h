/* SPDX-License-Identifier: Apache-2.0 */
/*
 * record_dir.h - the directory `gpuperf record` writes (DIR), made by the
 * user it records for and written by root only through one descriptor.
 *
 * The contract: DIR belongs to the user the program runs as, and the
 * program can put anything in it. So DIR is made (or, with --force,
 * emptied) by that user in a child process with their credentials
 * (gp_user__run); root then opens it once, as a directory that is not a
 * link and that the user owns, and creates its own files (cpu.trace,
 * record.json, ...) only relative to that descriptor, with
 * O_EXCL|O_NOFOLLOW, handing each to the user by its descriptor. --force
 * reuses only a directory that is empty or holds a recording, and removes
 * only what a recording leaves, never following a link.
 *
 * Errors are printed once, as "gpuperf record: ...", where they happen.
 */
#ifndef GPUPERF_RECORD_DIR_H
#define GPUPERF_RECORD_DIR_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

struct gp_user;

struct record_dir {
	const struct gp_user *user; /* who DIR is made by and belongs to */
	char path[PATH_MAX];	/* absolute: what the program gets (GPUPERF_DIR) */
	char name[PATH_MAX];	/* as made or given (-o) */
	int fd;			/* DIR, opened once: root writes only relative to it; -1: none */
	bool created;		/* made by this run (not a --force reuse) */
};

/* No directory yet, to be made for @user; end with record_dir__release(). */
void record_dir__init(struct record_dir *d, const struct gp_user *user);

/*
 * As the user: make @output, or with @force take an existing recording
 * there; without @output, make gpuperf-@what-YYYYmmdd-HHMMSS[-N]. Then
 * open it for root. 0, or -errno (printed).
 */
int record_dir__make(struct record_dir *d, const char *output, bool force, const char *what);

/* Undo record_dir__make() after a start that failed before the program ran. */
void record_dir__unmake(struct record_dir *d);

/*
 * Create DIR/@name for writing as root, for the user: a descriptor, or
 * -errno (printed). O_EXCL: DIR was emptied, so a name that exists was put
 * there by the program, and is neither followed nor replaced.
 */
int record_dir__create(struct record_dir *d, const char *name);

/* Call @fn for each regular file of DIR matching @pattern, with its size, in name order. */
void record_dir__each(struct record_dir *d, const char *pattern,
		      void (*fn)(struct record_dir *d, const char *name, uint64_t size, void *arg),
		      void *arg);

/* Add the number of regular files of DIR matching @pattern to @sum[0], their bytes to @sum[1]. */
void record_dir__sum(struct record_dir *d, const char *pattern, uint64_t sum[2]);

void record_dir__release(struct record_dir *d);

#endif /* GPUPERF_RECORD_DIR_H */
