// SPDX-License-Identifier: Apache-2.0
/* record_dir.c - DIR: made by the user, opened once, written by root through it (record_dir.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gp_file.h"
#include "gp_record.h"
#include "gp_util.h"
#include "record_dir.h"
#include "user.h"

/* What a recording (and its report) leaves in DIR: removed for --force, or on a failed start. */
static const char *const dir_patterns[] = {
	"gpu-*.trace", "cpu.trace",	"record.json", "kallsyms",	"perf-*.map",
	"*.folded",    "profile.svg", "*.svg",	      "trace.json*", "trace.pftrace",
	"profile.pb.gz", "summary.json", "analysis.txt",
};

static bool dir_pattern_match(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dir_patterns); i++)
		if (!fnmatch(dir_patterns[i], name, FNM_PERIOD))
			return true;
	return false;
}

/* Does @name in @dir_fd start with the trace magic (a file gpuperf wrote)? */
static bool dir_is_trace(int dir_fd, const char *name)
{
	char magic[sizeof(GP_FILE_MAGIC) - 1];
	int fd = gp_file__input(dir_fd, name);
	bool yes;

	if (fd < 0)
		return false;
	yes = read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
	      !memcmp(magic, GP_FILE_MAGIC, sizeof(magic));
	close(fd);
	return yes;
}

/*
 * Remove what an earlier recording left in @dir_fd: only entries matching
 * dir_patterns, only regular files and links (the entries themselves, never
 * what a link points to). With @check, first make sure the directory is a
 * recording: empty, or holding a record.json or a trace gpuperf wrote.
 * 0, or -ENOTEMPTY when it is not a recording.
 */
static int dir_clean(int dir_fd, bool check)
{
	int fd = dup(dir_fd), err = 0;
	bool recording = true;
	struct dirent *de;
	struct stat sb;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd))) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	if (check) {
		bool empty = true, ours = false;

		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			empty = false;
			if (!fstatat(dir_fd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) &&
			    S_ISREG(sb.st_mode) &&
			    (!strcmp(de->d_name, "record.json") ||
			     (!fnmatch("*.trace", de->d_name, FNM_PERIOD) &&
			      dir_is_trace(dir_fd, de->d_name))))
				ours = true;
		}
		recording = empty || ours;
		rewinddir(d);
	}
	while (recording && (de = readdir(d))) {
		if (!dir_pattern_match(de->d_name) ||
		    fstatat(dir_fd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !(S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode)))
			continue;
		unlinkat(dir_fd, de->d_name, 0);
	}
	closedir(d);
	return recording ? 0 : -ENOTEMPTY;
}

/* What dir_prepare() is given and answers, in memory shared with the child that runs it. */
struct dir_job {
	const char *output;   /* -o, or NULL */
	bool force;
	char what[64];	      /* for the default name */
	char stamp[32];
	char name[PATH_MAX];  /* out: the directory made or reused */
	bool created;	      /* out */
};

static int dir_reuse(struct dir_job *job)
{
	int fd = gp_file__dir_owned(job->name, geteuid()), err;
	struct stat sb;

	/* O_DIRECTORY|O_NOFOLLOW of a link: ELOOP or ENOTDIR */
	if (fd == -ENOTDIR && !lstat(job->name, &sb) && S_ISLNK(sb.st_mode))
		fd = -ELOOP;
	if (fd == -ELOOP || fd == -ENOTDIR) {
		fprintf(stderr, "gpuperf record: '%s' is %s: not reused\n", job->name,
			fd == -ELOOP ? "a symbolic link" : "not a directory");
		return fd;
	}
	if (fd == -EPERM) {
		fprintf(stderr, "gpuperf record: '%s' does not belong to %s (uid %u): not reused\n",
			job->name, getenv("SUDO_UID") ? "the sudo user" : "you",
			(unsigned)geteuid());
		return fd;
	}
	if (fd < 0) {
		fprintf(stderr, "gpuperf record: cannot use '%s': %s\n", job->name, strerror(-fd));
		return fd;
	}
	err = dir_clean(fd, true);
	close(fd);
	if (err == -ENOTEMPTY)
		fprintf(stderr, "gpuperf record: '%s' is not a gpuperf recording (no record.json or "
				"trace in it): --force reuses only those; choose another -o\n",
			job->name);
	else if (err)
		fprintf(stderr, "gpuperf record: cannot use '%s': %s\n", job->name, strerror(-err));
	return err;
}

/* As the user: make DIR, or take an existing one with --force. 0, or -errno printed. */
static int dir_prepare(void *arg)
{
	struct dir_job *job = arg;
	int i;

	umask(022);
	if (job->output) {
		snprintf(job->name, sizeof(job->name), "%s", job->output);
		if (!mkdir(job->name, 0755)) {
			job->created = true;
			return 0;
		}
		if (errno == EEXIST && job->force)
			return dir_reuse(job);
		fprintf(stderr, "gpuperf record: cannot create '%s': %s\n", job->name,
			strerror(errno));
		return -errno;
	}
	/* never an existing one: two runs in one second get -2, -3, ... */
	for (i = 1; i < 1000; i++) {
		if (i == 1)
			snprintf(job->name, sizeof(job->name), "gpuperf-%s-%s", job->what,
				 job->stamp);
		else
			snprintf(job->name, sizeof(job->name), "gpuperf-%s-%s-%d", job->what,
				 job->stamp, i);
		if (!mkdir(job->name, 0755)) {
			job->created = true;
			return 0;
		}
		if (errno != EEXIST) {
			fprintf(stderr, "gpuperf record: cannot create '%s': %s\n", job->name,
				strerror(errno));
			return -errno;
		}
	}
	fprintf(stderr, "gpuperf record: cannot create '%s': %s\n", job->name, strerror(EEXIST));
	return -EEXIST;
}

void record_dir__init(struct record_dir *d, const struct gp_user *user)
{
	memset(d, 0, sizeof(*d));
	d->user = user;
	d->fd = -1;
}

int record_dir__make(struct record_dir *d, const char *output, bool force, const char *what)
{
	char link[64];
	struct dir_job *job;
	time_t t = time(NULL);
	struct tm tm;
	ssize_t n;
	int err;

	job = mmap(NULL, sizeof(*job), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (job == MAP_FAILED) {
		fprintf(stderr, "gpuperf record: %s\n", strerror(errno));
		return -errno;
	}
	memset(job, 0, sizeof(*job));
	job->output = output;
	job->force = force;
	localtime_r(&t, &tm);
	strftime(job->stamp, sizeof(job->stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(job->what, sizeof(job->what), "%s", what);

	err = gp_user__run(d->user, dir_prepare, job);
	if (err)
		goto out;
	d->created = job->created;
	snprintf(d->name, sizeof(d->name), "%s", job->name);
	/* root writes only into the directory the user made or owns, not through a swapped name */
	d->fd = gp_file__dir_owned(job->name, gp_user__owner(d->user));
	if (d->fd < 0) {
		err = d->fd;
		fprintf(stderr, "gpuperf record: cannot open '%s': %s\n", job->name,
			err == -EPERM ? "it changed owner or was replaced while being made"
				      : strerror(-err));
		goto out;
	}
	/* the path the program gets (GPUPERF_DIR): the directory opened, absolute */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", d->fd);
	n = readlink(link, d->path, sizeof(d->path) - 1);
	if (n > 0) {
		d->path[n] = '\0';
	} else if (!realpath(job->name, d->path)) {
		err = -errno;
		fprintf(stderr, "gpuperf record: cannot resolve '%s': %s\n", job->name,
			strerror(errno));
	}
out:
	munmap(job, sizeof(*job));
	return err;
}

static int dir_remove(void *arg)
{
	return rmdir(arg) ? -errno : 0;
}

void record_dir__unmake(struct record_dir *d)
{
	if (d->fd < 0)
		return;
	dir_clean(d->fd, false);
	if (d->created)
		gp_user__run(d->user, dir_remove, d->name);
}

int record_dir__create(struct record_dir *d, const char *name)
{
	const struct gp_user *u = d->user;
	int fd = gp_file__create(d->fd, name, u->drop, u->uid, u->gid);

	if (fd < 0)
		fprintf(stderr, "gpuperf record: cannot write '%s/%s': %s\n", d->path, name,
			fd == -EEXIST ? "it exists (made by the program?): not replaced"
				      : gp_file__strerror(fd));
	return fd;
}

void record_dir__each(struct record_dir *d, const char *pattern,
		      void (*fn)(struct record_dir *d, const char *name, uint64_t size, void *arg),
		      void *arg)
{
	struct dirent **list;
	struct stat sb;
	int i, n = scandirat(d->fd, ".", &list, NULL, alphasort);

	for (i = 0; i < n; i++) {
		if (!fnmatch(pattern, list[i]->d_name, FNM_PERIOD) &&
		    !fstatat(d->fd, list[i]->d_name, &sb, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(sb.st_mode))
			fn(d, list[i]->d_name, (uint64_t)sb.st_size, arg);
		free(list[i]);
	}
	if (n > 0)
		free(list);
}

static void add_size(struct record_dir *d, const char *name, uint64_t size, void *arg)
{
	uint64_t *sum = arg;

	(void)d;
	(void)name;
	sum[0]++;
	sum[1] += size;
}

void record_dir__sum(struct record_dir *d, const char *pattern, uint64_t sum[2])
{
	record_dir__each(d, pattern, add_size, sum);
}

void record_dir__release(struct record_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}
