// SPDX-License-Identifier: Apache-2.0
/* record_agent.c - the CPU side of `gpuperf record`: the agent and its caches (record_agent.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu_agent.h"
#include "gp_file.h"
#include "record.h"
#include "record_agent.h"

#define KSYM_CACHE_DIR "/run/gpuperf" /* the kernel symbol cache: root's, emptied at boot */

/*
 * The agent keeps the CFI tables it builds in $XDG_CACHE_HOME/gpuperf
 * (~/.cache/gpuperf) of the user gpuperf acts for, so a warm start reads
 * them instead of parsing every library's .eh_frame again. As for DIR,
 * the user makes the directory (gp_user__run), root opens it once as a
 * directory that is not a link and that the user owns, and the agent
 * reads and writes entries only relative to that descriptor
 * (unwind/cfi_cache.h). GPUPERF_CACHE=0 turns it off.
 */

static bool cache_wanted(void)
{
	const char *s = getenv("GPUPERF_CACHE");

	return !s || !(!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "off") ||
		       !strcasecmp(s, "false"));
}

/* As the user: make the cache directory and any missing parent. */
static int cache_prepare(void *arg)
{
	char path[PATH_MAX], *p;

	snprintf(path, sizeof(path), "%s", (const char *)arg);
	for (p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Open the user's cache directory for the agent (r->cache_fd), or leave it -1 (why: with -v). */
static void cfi_cache_open(struct record *r)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = r->u.drop ? r->u.home : getenv("HOME");
	int n, err;

	if (!cache_wanted() || (getenv("GPUPERF_UNWIND") && !strcmp(getenv("GPUPERF_UNWIND"), "fp")))
		return;
	/* under sudo, a XDG_CACHE_HOME kept (sudo -E) is the user's, and checked to be theirs */
	if (xdg && xdg[0] == '/')
		n = snprintf(r->cache_dir, sizeof(r->cache_dir), "%s/gpuperf", xdg);
	else if (home && home[0] == '/')
		n = snprintf(r->cache_dir, sizeof(r->cache_dir), "%s/.cache/gpuperf", home);
	else
		return;
	if (n <= 0 || (size_t)n >= sizeof(r->cache_dir))
		return;
	err = gp_user__run(&r->u, cache_prepare, r->cache_dir);
	if (!err) {
		r->cache_fd = gp_file__dir_owned(r->cache_dir, gp_user__owner(&r->u));
		err = r->cache_fd < 0 ? r->cache_fd : 0;
	}
	if (err && r->o.verbose)
		fprintf(stderr, "gpuperf record: the CFI table cache '%s' is not used: %s\n",
			r->cache_dir,
			err == -EPERM ? "it does not belong to the user" : gp_file__strerror(err));
}

/*
 * Open the directory where the agent keeps the kernel's text symbols
 * between runs (r->ksym_fd): root's alone, as the addresses it holds are
 * what KASLR hides from users. /run is emptied at each boot, as the
 * addresses change. Made 0700 when missing; one that is not a directory
 * that root owns and alone can use is not used (the agent reads
 * /proc/kallsyms each time, as without a cache).
 */
static void ksym_cache_open(struct record *r)
{
	struct stat sb;
	int fd;

	if (geteuid() != 0 || r->o.user_stacks_only)
		return;
	if (mkdir(KSYM_CACHE_DIR, 0700) && errno != EEXIST)
		return;
	fd = gp_file__dir_owned(KSYM_CACHE_DIR, 0);
	if (fd < 0)
		return;
	if (fstat(fd, &sb) || (sb.st_mode & 077)) {
		close(fd);
		return;
	}
	r->ksym_fd = fd;
}

void record_agent__open_caches(struct record *r)
{
	cfi_cache_open(r);
	ksym_cache_open(r);
}

int record_agent__start(struct record *r, pid_t child)
{
	const struct record_opts *o = &r->o;
	struct cpu_agent_opts ao;
	int err;

	memset(&ao, 0, sizeof(ao));
	ao.dir = r->dir.path;
	/* the agent creates its files relative to DIR's descriptor, each handed to the user */
	ao.dir_fd = r->dir.fd;
	ao.set_owner = r->u.drop;
	ao.cache_dir_fd = r->cache_fd > 0 ? r->cache_fd : 0;
	ao.kallsyms_cache_fd = r->ksym_fd > 0 ? r->ksym_fd : 0;
	ao.owner_uid = r->u.uid;
	ao.owner_gid = r->u.gid;
	if (child) {
		if (!o->system_wide) {
			ao.pids = &r->prog.running;
			ao.nr_pids = 1;
		}
	} else {
		ao.pids = o->pids;
		ao.nr_pids = o->nr_pids;
		ao.tids = o->tids;
		ao.nr_tids = o->nr_tids;
		/* threads blocked when we attach are covered from then on */
		ao.attach_running = true;
	}
	ao.system_wide = o->system_wide;
	ao.cpus = o->cpus;
	ao.nr_cpus = o->nr_cpus;
	ao.user_threads_only = o->user_threads_only;
	ao.kernel_threads_only = o->kernel_threads_only;
	ao.on_cpu = o->on_cpu;
	ao.freq_hz = o->freq_hz;
	ao.no_user_stack = o->kernel_stacks_only;
	ao.no_kernel_stack = o->user_stacks_only;
	ao.off_cpu = o->off_cpu;
	ao.min_block_us = o->min_block_us;
	ao.max_block_us = o->max_block_us;
	ao.no_kallsyms = o->user_stacks_only; /* kernel symbols only serve kernel stacks */
	ao.errbuf = r->agent_msg;
	ao.errlen = sizeof(r->agent_msg);

	if (o->verbose)
		fprintf(stderr,
			"gpuperf record: CPU agent: on-cpu %s at %u Hz, off-cpu %s (%u..%u us)\n",
			ao.on_cpu ? "on" : "off", ao.freq_hz, ao.off_cpu ? "on" : "off",
			ao.min_block_us, ao.max_block_us);
	r->agent = cpu_agent__new(&ao);
	if (!r->agent) {
		err = -errno;
		goto fail;
	}
	err = cpu_agent__start(r->agent);
	if (err)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "gpuperf record: cannot start the CPU recorder: %s\n",
		r->agent_msg[0] ? r->agent_msg : cpu_agent__strerror(err));
	cpu_agent__free(r->agent);
	r->agent = NULL;
	return err;
}

void record_agent__stop(struct record *r)
{
	int err;

	if (!r->agent || r->agent_stopped)
		return;
	r->agent_stopped = true;
	err = cpu_agent__stop(r->agent);
	if (err && !r->agent_err)
		r->agent_err = err;
}
