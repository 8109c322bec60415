// SPDX-License-Identifier: Apache-2.0
/* user.c - the user gpuperf acts for when it runs as root (see user.h). */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "parse.h"
#include "user.h"

int gp_user__of(struct gp_user *u, uid_t uid, gid_t gid)
{
	struct passwd *pw = getpwuid(uid);
	int n = 0;

	memset(u, 0, sizeof(*u));
	u->drop = true;
	u->uid = uid;
	u->gid = gid;
	if (pw) {
		u->name = strdup(pw->pw_name);
		u->home = strdup(pw->pw_dir);
		getgrouplist(pw->pw_name, u->gid, NULL, &n);
		if (n > 0)
			u->groups = calloc((size_t)n, sizeof(*u->groups));
		if (!u->name || !u->home || (n > 0 && !u->groups))
			return -ENOMEM;
		if (n > 0 && getgrouplist(pw->pw_name, u->gid, u->groups, &n) < 0)
			n = 0;
		u->nr_groups = n;
	}
	if (!u->nr_groups) {
		free(u->groups);
		u->groups = malloc(sizeof(*u->groups));
		if (!u->groups)
			return -ENOMEM;
		u->groups[0] = u->gid;
		u->nr_groups = 1;
	}
	return 0;
}

int gp_user__sudo(struct gp_user *u)
{
	const char *s = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	struct passwd *pw;
	uint64_t v;
	uid_t uid;
	gid_t gid;

	memset(u, 0, sizeof(*u));
	if (geteuid() != 0 || !s || !*s)
		return 0;
	if (parse_u64("gpuperf", "SUDO_UID", s, 0, UINT32_MAX - 1, &v))
		return -EINVAL;
	if (v == 0)
		return 0;
	uid = (uid_t)v;
	pw = getpwuid(uid);
	gid = pw ? pw->pw_gid : (gid_t)v;
	if (g && *g) {
		if (parse_u64("gpuperf", "SUDO_GID", g, 0, UINT32_MAX - 1, &v))
			return -EINVAL;
		gid = (gid_t)v;
	}
	return gp_user__of(u, uid, gid);
}

void gp_user__release(struct gp_user *u)
{
	free(u->groups);
	free(u->name);
	free(u->home);
	memset(u, 0, sizeof(*u));
}

uid_t gp_user__owner(const struct gp_user *u)
{
	return u->drop ? u->uid : geteuid();
}

int gp_user__become(const struct gp_user *u)
{
	if (!u->drop)
		return 0;
	if (setgroups((size_t)u->nr_groups, u->groups) || setgid(u->gid) || setuid(u->uid))
		return -errno;
	/* a uid that could not be given up entirely (a setuid binary's saved id) */
	if (u->uid != 0 && (setuid(0) == 0 || geteuid() == 0))
		return -EPERM;
	return 0;
}

int gp_user__run(const struct gp_user *u, int (*fn)(void *arg), void *arg)
{
	pid_t pid, w;
	int st, ret;

	if (!u->drop)
		return fn(arg);
	fflush(NULL); /* nothing buffered is written twice */
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		ret = gp_user__become(u);
		if (ret)
			fprintf(stderr, "gpuperf: cannot become uid %u: %s\n", (unsigned)u->uid,
				strerror(-ret));
		else
			ret = fn(arg);
		fflush(NULL);
		_exit(ret < 0 && ret > -256 ? -ret : ret ? EIO : 0);
	}
	do
		w = waitpid(pid, &st, 0);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return -errno;
	if (!WIFEXITED(st))
		return -EIO;
	return -WEXITSTATUS(st);
}
