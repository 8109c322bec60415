// SPDX-License-Identifier: Apache-2.0
/* agent_write: what the CPU agent writes to DIR -- its records in cpu.trace, and files beside it. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "agent_priv.h"
#include "cfi_cache.h"
#include "cpu_sample_prog.h"
#include "gp_file.h"
#include "gp_writer.h"
#include "offcpu.h"
#include "offcpu_prog.h"
#include "proc_track_prog.h"
#include "ustack.h"

void agent_write__process(struct cpu_agent *a, uint64_t ts, uint32_t pid, uint32_t ppid,
			  uint32_t event, int32_t exit_code, const char *comm, const char *exe)
{
	struct gp_rec_process *r = gp_writer__reserve(a->w, GP_REC_PROCESS, sizeof(*r));

	if (!r)
		return;
	r->ts = ts;
	r->pid = pid;
	r->ppid = ppid;
	r->event = event;
	r->exit_code = exit_code;
	r->comm_str = gp_writer__intern(a->w, comm);
	r->exe_str = gp_writer__intern(a->w, exe);
	gp_writer__commit(a->w);
	a->st.procs++;
}

void agent_write__thread(struct cpu_agent *a, uint64_t ts, uint32_t pid, uint32_t tid,
			 uint32_t event, const char *name)
{
	struct gp_rec_thread *r = gp_writer__reserve(a->w, GP_REC_THREAD, sizeof(*r));

	if (!r)
		return;
	r->ts = ts;
	r->pid = pid;
	r->tid = tid;
	r->event = event;
	r->name_str = gp_writer__intern(a->w, name);
	gp_writer__commit(a->w);
}

void agent_write__clock_pair(struct cpu_agent *a)
{
	struct gp_rec_clock_pair *r = gp_writer__reserve(a->w, GP_REC_CLOCK_PAIR, sizeof(*r));
	uint64_t mono = agent_now_ns(CLOCK_MONOTONIC);

	if (!r)
		return;
	r->producer_ts = mono; /* bpf_ktime_get_ns() is CLOCK_MONOTONIC */
	r->monotonic_ns = mono;
	r->realtime_ns = agent_now_ns(CLOCK_REALTIME);
	r->source = GP_CLOCKSRC_BPF;
	gp_writer__commit(a->w);
}

static void write_dropped(struct cpu_agent *a, uint32_t source, uint64_t total, bool always,
			  uint32_t cause)
{
	struct gp_rec_dropped *r;
	uint64_t delta = total - a->written_lost[source];

	if (!delta && !always)
		return;
	r = gp_writer__reserve(a->w, GP_REC_DROPPED, sizeof(*r));
	if (!r)
		return;
	r->ts = agent_now_ns(CLOCK_MONOTONIC);
	r->count = delta;
	r->source = source;
	r->cause = cause;
	gp_writer__commit(a->w);
	a->written_lost[source] = total;
}

static void collect_stats(struct cpu_agent *a)
{
	struct proc_track_stats ps = { 0 };

	if (a->pt) {
		proc_track_prog__stats(a->pt, &ps);
		a->st.lost_proc = ps.lost_events + ps.lost_follows;
	}
	a->st.lost_stack = 0;
	if (a->cs) {
		struct cpu_sample_stats cs;

		cpu_sample_prog__stats(a->cs, &cs);
		a->st.lost_sample = cs.lost_events;
		a->st.lost_stack += cs.stack_errors;
	}
	if (a->oc) {
		struct offcpu_stats os;

		offcpu_prog__stats(a->oc, &os);
		a->st.lost_offcpu = os.lost_events;
		a->st.lost_short = os.short_lost;
		a->st.offcpu_repaired = os.missed_switch_ins;
		a->st.offcpu_missed = os.missed_switch_outs + os.prog_misses;
		a->st.lost_stack += os.stack_errors;
		a->st.offcpu_ustack_lost = os.ustack_lost;
		a->st.lost_stack += os.ustack_lost;
	}
	if (a->us) {
		struct ustack_stats us;

		ustack__stats(a->us, &us);
		a->st.unwinds = us.unwinds;
		memcpy(a->st.unwind_ends, us.ends, sizeof(a->st.unwind_ends));
		a->st.unwind_tables = us.tables;
		a->st.unwind_files_no_cfi = us.files_no_cfi + us.files_failed;
		a->st.unwind_maps_dropped = us.mappings_dropped;
		a->st.unwind_maps_no_segment = us.mappings_no_segment;
		a->st.unwind_copy_bytes = us.copy_bytes;
		a->st.unwind_rescans = us.rescans;
		a->st.unwind_rescans_found = us.rescans_found;
	}
	if (a->cache) {
		struct cfi_cache_stats cs;

		cfi_cache__stats(a->cache, &cs);
		a->st.unwind_cache_hits = cs.hits;
		a->st.unwind_cache_misses = cs.misses;
		a->st.unwind_cache_bad = cs.bad;
		a->st.unwind_cache_written = cs.written;
		a->st.unwind_cache_write_errors = cs.write_errors;
		a->st.unwind_cache_write_error = cs.write_error;
		a->st.unwind_cache_evicted = cs.evicted;
	}
	if (a->w) {
		a->st.lost_writer = gp_writer__lost(a->w);
		a->st.writer_cause = gp_writer__lost_cause(a->w);
	}
}

/* Lost counts since the last call; every source once at the end (@always), even at 0. */
void agent_write__all_dropped(struct cpu_agent *a, bool always)
{
	collect_stats(a);
	write_dropped(a, GP_DROP_RINGBUF_PROC, a->st.lost_proc, always, 0);
	if (a->cs)
		write_dropped(a, GP_DROP_RINGBUF_SAMPLE, a->st.lost_sample, always, 0);
	if (a->oc) {
		write_dropped(a, GP_DROP_RINGBUF_OFFCPU, a->st.lost_offcpu, always, 0);
		write_dropped(a, GP_DROP_OFFCPU_MISSED, a->st.offcpu_missed, always, 0);
	}
	write_dropped(a, GP_DROP_STACK, a->st.lost_stack, always, 0);
	write_dropped(a, GP_DROP_WRITER, a->st.lost_writer, always, (uint32_t)a->st.writer_cause);
	/* only when there is one: sources of format 2.2 */
	write_dropped(a, GP_DROP_PERF_MAP, a->st.perf_maps_skipped, false, a->perf_map_cause);
	write_dropped(a, GP_DROP_KALLSYMS, a->st.kallsyms_lost, false, a->kallsyms_cause);
	/* only when there is one: mappings left out, each with its cause */
	write_dropped(a, GP_DROP_MODULE, a->st.modules_dropped + a->st.unwind_maps_dropped, false,
		      ENOMEM);
	write_dropped(a, GP_DROP_UNWIND_CFI, a->st.unwind_maps_no_segment, false, ENOEXEC);
}

/*
 * Create DIR/name for writing, relative to the directory fd and never
 * through a link, owned by opts.owner_* when set_owner: an fd or -errno.
 */
int agent_write__create(struct cpu_agent *a, const char *name)
{
	int fd, err;

	if (a->excl)
		return gp_file__create(a->dfd, name, a->opts.set_owner, a->opts.owner_uid,
				       a->opts.owner_gid);
	fd = openat(a->dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (a->opts.set_owner && fchown(fd, a->opts.owner_uid, a->opts.owner_gid)) {
		err = -errno;
		close(fd);
		unlinkat(a->dfd, name, 0);
		return err;
	}
	return fd;
}

/* One thread's short off-CPU blocks as one GP_OFFCPU_AGGREGATE record. */
int agent_write__short(void *ctx, const struct offcpu_short *s)
{
	struct cpu_agent *a = ctx;
	struct gp_rec_offcpu *r;

	if (!s->count)
		return 0;
	r = gp_writer__reserve(a->w, GP_REC_OFFCPU, sizeof(*r));
	if (!r)
		return 0;
	r->hdr.flags = GP_OFFCPU_AGGREGATE;
	r->start = s->first_ns;
	r->end = s->first_ns + s->total_ns;
	r->pid = s->pid;
	r->tid = s->tid;
	r->cpu = UINT32_MAX;
	r->pad = s->count > UINT32_MAX ? UINT32_MAX : (uint32_t)s->count;
	gp_writer__commit(a->w);
	a->st.offcpu_aggregates++;
	a->st.offcpu_short += s->count;
	return 0;
}

/*
 * Copy at most @max bytes of @in to a new DIR/name: 0 or -errno. A copy
 * that cannot be finished is emptied (a reader takes none rather than a
 * part for the whole).
 */
int agent_write__copy_fd(struct cpu_agent *a, int in, uint64_t max, const char *name)
{
	char buf[65536];
	uint64_t left = max;
	int out, err = 0;
	ssize_t n;

	out = agent_write__create(a, name);
	if (out < 0)
		return out;
	while (left && (n = read(in, buf, left < sizeof(buf) ? left : sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		err = gp_file__write_full(out, buf, (size_t)n);
		if (err)
			break;
		left -= (uint64_t)n;
	}
	if (err && ftruncate(out, 0))
		err = -errno;
	if (close(out) && !err)
		err = -errno;
	return err;
}

/*
 * DIR/kallsyms: the kernel symbols of the addresses written (not the whole
 * table), read as root (a user reads zeros in /proc/kallsyms): from the
 * table read at start when it names every address (all in the kernel's
 * own text), else from the one read at stop.
 * A file that cannot be written whole is emptied (a part would name frames
 * wrongly), and counted (stats.kallsyms_lost, a GP_DROP_KALLSYMS drop).
 */
_Static_assert(CPU_AGENT_KSYM_NO_CACHE == KSYM_CACHE_NONE && CPU_AGENT_KSYM_HIT == KSYM_CACHE_HIT &&
		       CPU_AGENT_KSYM_WRITTEN == KSYM_CACHE_WRITTEN,
	       "the agent's kallsyms cache states are kallsyms.h's");

void agent_write__kallsyms(struct cpu_agent *a)
{
	uint64_t nsyms = 0;
	int fd, err;

	fd = agent_write__create(a, "kallsyms");
	if (fd < 0) {
		err = fd;
	} else {
		struct ksym_snap *k = a->ksnap_stop;

		if (!k && kallsyms__snap_covers(a->ksnap, &a->kips))
			k = a->ksnap;
		if (k)
			err = kallsyms__snap_write_needed(k, &a->kips, fd, &nsyms);
		else
			err = kallsyms__write_needed("/proc/kallsyms", &a->kips, fd, &nsyms);
		if (err && ftruncate(fd, 0)) {
			/* emptied as far as it can be; the count says the rest */
		}
		if (close(fd) && !err)
			err = -errno;
	}
	a->st.kallsyms_symbols = err ? 0 : nsyms;
	a->st.kallsyms_cache = kallsyms__snap_cache_state(a->ksnap);
	if (!err)
		return;
	/* symbols not written; the addresses left unnamed where that is not known */
	a->st.kallsyms_lost = nsyms ? nsyms : a->kips.n;
	if (!a->st.kallsyms_lost)
		a->st.kallsyms_lost = 1;
	a->kallsyms_cause = (uint32_t)-err;
}
