// SPDX-License-Identifier: Apache-2.0
/*
 * timeline_load.c - a trace file or a recording directory into the
 * timeline: the file's header (host, clocks, producer), the clock fit of a
 * file not in CLOCK_MONOTONIC, correlation ids of a pid's later images,
 * the warnings a file earns (no end mark, cut launch stacks); its records
 * are timeline_records.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"
#include "gp_reader.h"
#include "gp_record.h"
#include "timeline.h"
#include "timeline_priv.h"

/*
 * First pass over a file not in CLOCK_MONOTONIC: its clock pairs decide
 * the mapping before any of its records is stored.
 */
static void fit_clock(struct timeline *tl, const char *path, struct gp_reader *r, struct clock_fit *fit)
{
	const struct gp_file_header *h = gp_reader__header(r);
	uint64_t *prod = NULL, *mono = NULL;
	size_t n = 0, prod_alloc = 0, mono_alloc = 0;
	const struct gp_rec_hdr *rec;
	int rc;

	while ((rc = gp_reader__next(r, &rec)) != GP_READ_EOF) {
		const struct gp_rec_clock_pair *cp = (const void *)rec;

		if (rc != GP_READ_RECORD || rec->type != GP_REC_CLOCK_PAIR || !cp->producer_ts)
			continue;
		if (GP_ALLOC_GROW(prod, n + 1, prod_alloc) || GP_ALLOC_GROW(mono, n + 1, mono_alloc))
			break; /* the pairs so far */
		prod[n] = cp->producer_ts;
		mono[n] = cp->monotonic_ns;
		n++;
	}
	if (n) {
		clock_fit__pairs(fit, prod, mono, n);
	} else {
		/* The header's two clocks, read together when the file was opened. */
		uint64_t at = h->clock_id == GP_CLOCK_REALTIME ? h->start_realtime_ns : h->start_monotonic_ns;

		clock_fit__offset(fit, at, h->start_monotonic_ns, CLOCK_HEADER);
		tl_warn(tl, "'%s': timestamps are not CLOCK_MONOTONIC and the trace has no clock pairs; "
			 "aligned by the header's clocks only (expect microseconds of error)", path);
	}
	free(prod);
	free(mono);
}

int timeline__load_file(struct timeline *tl, const char *path, const char **why)
{
	struct tl_priv *p = tl->priv;
	struct gp_reader_stats rs;
	struct gp_reader *r;
	struct tl_file *f;
	uint64_t writer0;
	int err;

	r = gp_reader__open(path, p->errbuf, sizeof(p->errbuf));
	if (!r) {
		err = -errno;
		if (why)
			*why = p->errbuf;
		return err ? err : -EINVAL;
	}
	f = PUSH(tl, files, nr_files, files);
	if (!f) {
		gp_reader__free(r);
		return -ENOMEM;
	}
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	f->pid = gp_reader__header(r)->pid;
	f->producer = gp_reader__header(r)->producer;
	{
		const struct gp_file_header *h = gp_reader__header(r);

		f->start_monotonic_ns = h->start_monotonic_ns;
		f->start_realtime_ns = h->start_realtime_ns;
		snprintf(f->hostname, sizeof(f->hostname), "%.*s", (int)sizeof(h->hostname),
			 h->hostname);
		snprintf(f->kernel_release, sizeof(f->kernel_release), "%.*s",
			 (int)sizeof(h->kernel_release), h->kernel_release);
		snprintf(f->machine, sizeof(f->machine), "%.*s", (int)sizeof(h->machine), h->machine);
		snprintf(f->producer_version, sizeof(f->producer_version), "%.*s",
			 (int)sizeof(h->producer_version), h->producer_version);
	}
	/*
	 * CUPTI counts correlation ids from 1 in every process image: the ids of
	 * a later image of the same pid (its own trace after an exec) go above
	 * those of the images loaded before, so each call keeps its own GPU work.
	 */
	if (f->producer == GP_PRODUCER_INJECT) {
		size_t i;

		for (i = 0; i + 1 < tl->nr_files; i++) {
			const struct tl_file *e = &tl->files[i];

			if (e->producer == GP_PRODUCER_INJECT && e->pid == f->pid &&
			    e->corr_base + (uint64_t)e->corr_max > f->corr_base)
				f->corr_base = (uint32_t)(e->corr_base + (uint64_t)e->corr_max);
		}
	}
	if (gp_reader__header(r)->clock_id != GP_CLOCK_MONOTONIC) {
		fit_clock(tl, path, r, &f->fit);
		gp_reader__free(r);
		r = gp_reader__open(path, p->errbuf, sizeof(p->errbuf));
		if (!r) {
			if (why)
				*why = p->errbuf;
			return -EIO;
		}
	}
	writer0 = tl->dropped[GP_DROP_WRITER];
	err = tl_records__load(tl, r, f);
	if (p->api_stacks_truncated)
		tl_warn(tl, "'%s': %llu of %llu launch stacks end early (a frame the unwinder could not "
			 "read, or code loaded after its last table refresh): their outer frames are "
			 "missing", path, (unsigned long long)p->api_stacks_truncated,
		     (unsigned long long)p->api_stacks_seen);
	gp_reader__stats(r, &rs);
	f->clean_end = rs.clean_end;
	f->records = rs.records;
	/* 2.2: the writer's losses, kept in the header where no record could go (a full disk) */
	if (gp_reader__header(r)->lost_records > tl->dropped[GP_DROP_WRITER] - writer0)
		tl->dropped[GP_DROP_WRITER] = writer0 + gp_reader__header(r)->lost_records;
	if (gp_reader__header(r)->lost_records && !tl->drop_cause[GP_DROP_WRITER])
		tl->drop_cause[GP_DROP_WRITER] = gp_reader__header(r)->lost_cause;
	if (gp_reader__header(r)->flags & GP_FILE_END_LOST)
		rs.clean_end = 1; /* closed; its losses say what is missing */
	if (!rs.clean_end && !rs.truncated && !err && p->next_image)
		tl_warn(tl, "'%s': no end mark: the process exec'd ('%s' is its next image); what it "
			 "flushed before the exec is used, its last flush period is lost", path,
		     p->next_image);
	else if (!rs.clean_end && !rs.truncated && !err)
		tl_warn(tl, "'%s': no end mark: the recording process was killed or is still running; "
			 "what it flushed is used", path);
	gp_reader__free(r);
	if (err && why) {
		snprintf(p->errbuf, sizeof(p->errbuf), "out of memory loading '%s'", path);
		*why = p->errbuf;
	}
	return err;
}

static int trace_name(const struct dirent *de)
{
	return !strcmp(de->d_name, "cpu.trace") || !fnmatch("gpu-*.trace", de->d_name, 0);
}

/*
 * The n of gpu-<pid>.<n>.trace (a pid's image after n execs), 0 for
 * gpu-<pid>.trace; *stem: the length of "gpu-<pid>".
 */
static unsigned long image_of(const char *name, size_t *stem)
{
	const char *dot = strchr(name, '.');

	*stem = dot ? (size_t)(dot - name) : strlen(name);
	return dot && dot[1] >= '0' && dot[1] <= '9' ? strtoul(dot + 1, NULL, 10) : 0;
}

/*
 * gpu-*.trace by name, a pid's images in exec order, then cpu.trace.
 */
static int cmp_trace_name(const struct dirent **a, const struct dirent **b)
{
	const char *x = (*a)->d_name, *y = (*b)->d_name;
	int ca = !strcmp(x, "cpu.trace"), cb = !strcmp(y, "cpu.trace"), c;
	unsigned long nx, ny;
	size_t sx, sy;

	if (ca != cb)
		return ca - cb;
	nx = image_of(x, &sx);
	ny = image_of(y, &sy);
	c = strncmp(x, y, sx < sy ? sx : sy);
	if (c || sx != sy)
		return c ? c : sx < sy ? -1 : 1;
	return nx != ny ? (nx < ny ? -1 : 1) : strcmp(x, y);
}

static int load_dir(struct timeline *tl, const char *dir, const char **why)
{
	struct tl_priv *p = tl->priv;
	struct dirent **de = NULL;
	char path[4096];
	int n = scandir(dir, &de, trace_name, cmp_trace_name), i, err = 0;

	if (n < 0) {
		err = -errno;
		snprintf(p->errbuf, sizeof(p->errbuf), "cannot open directory '%s': %s", dir, strerror(-err));
		if (why)
			*why = p->errbuf;
		return err;
	}
	for (i = 0; i < n && err != -ENOMEM; i++) {
		size_t s1, s2;

		snprintf(path, sizeof(path), "%s/%s", dir, de[i]->d_name);
		/* the next name a later image of the same pid (sorted so): this one exec'd */
		p->next_image = NULL;
		if (i + 1 < n && strcmp(de[i + 1]->d_name, "cpu.trace")) {
			image_of(de[i]->d_name, &s1);
			image_of(de[i + 1]->d_name, &s2);
			if (s1 == s2 && !strncmp(de[i]->d_name, de[i + 1]->d_name, s1))
				p->next_image = de[i + 1]->d_name;
		}
		err = timeline__load_file(tl, path, why);
		p->next_image = NULL;
		if (err && err != -ENOMEM) {
			/* an unreadable file is a warning; the others still load */
			tl_warn(tl, "%s", p->errbuf);
			err = 0;
		}
	}
	for (i = 0; i < n; i++)
		free(de[i]);
	free(de);
	if (!err && !n) {
		snprintf(p->errbuf, sizeof(p->errbuf),
			 "'%s' holds no cpu.trace or gpu-<pid>.trace: not a gpuperf recording", dir);
		if (why)
			*why = p->errbuf;
		return -ENOENT;
	}
	return err;
}

int timeline__load_dir(struct timeline *tl, const char *dir, const char **why)
{
	return load_dir(tl, dir, why);
}
