/* SPDX-License-Identifier: Apache-2.0 */
/*
 * user.h - the user gpuperf acts for when it runs as root.
 *
 * Under sudo that is the invoking user (SUDO_UID/SUDO_GID): the program
 * runs as them, the recording directory is made by them, and the report
 * runs with their credentials, so root does only what needs root (the
 * eBPF agent). gp_user__run() does one job as the user in a child process
 * and leaves the caller root.
 */
#ifndef GPUPERF_USER_H
#define GPUPERF_USER_H

#include <stdbool.h>
#include <sys/types.h>

struct gp_user {
	bool drop;	/* act as uid/gid below; false: as we are */
	uid_t uid;
	gid_t gid;
	gid_t *groups;	/* supplementary groups, gid first when none are known */
	int nr_groups;
	char *name, *home; /* NULL when uid has no passwd entry */
};

/*
 * Under euid 0 with SUDO_UID set and not 0: that user (SUDO_GID, else the
 * passwd group), with the groups of their passwd entry. Else drop is false.
 * -EINVAL for a malformed SUDO_UID/SUDO_GID, -ENOMEM.
 */
int gp_user__sudo(struct gp_user *u);

/* @uid with @gid and the supplementary groups of its passwd entry. */
int gp_user__of(struct gp_user *u, uid_t uid, gid_t gid);

void gp_user__release(struct gp_user *u);

/* The uid files made for @u belong to: u->uid, or our euid. */
uid_t gp_user__owner(const struct gp_user *u);

/* Become @u for good (groups, gid, uid; checked that root cannot be regained): 0 or -errno. */
int gp_user__become(const struct gp_user *u);

/*
 * Run @fn(@arg) as @u in a child process (in this process when !u->drop)
 * and return what it returned: 0 or -errno (errno values up to 255). Its
 * stderr is ours; what it must hand back goes through memory the caller
 * maps MAP_SHARED.
 */
int gp_user__run(const struct gp_user *u, int (*fn)(void *arg), void *arg);

#endif /* GPUPERF_USER_H */
