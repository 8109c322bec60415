/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_stats.h - the statistics summary.json and the text report are
 * written from, in one pass over the report's state so the two never
 * disagree: per kernel (count, total, min, max, a duration histogram, its
 * launch configurations), per device (busy, idle, overlap), per memcpy
 * kind, per launch site, per process, and the CPU totals.
 *
 * Kernel percentiles come from a log-linear histogram (64 buckets per power
 * of two: within 1.6% of the exact value, exact when every duration is
 * equal), so memory stays a few KiB per distinct kernel however many
 * launches there are. Plain data, read by the writers.
 */
#ifndef GPUPERF_REPORT_STATS_H
#define GPUPERF_REPORT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

struct memory_stats;
struct report_state;
struct site;

#define HIST_SUB 64u
#define HIST_BUCKETS (HIST_SUB * 60u)
#define MAX_MEMCPY_KINDS 16

/* The launch configurations of one kernel kept in summary.json: the first KCFG_MAX seen. */
#define KCFG_MAX 8

struct kcfg_stat {
	uint16_t kconfig; /* tl_gpu.kconfig; 0: slot free */
	uint64_t count, total;
};

struct kstat {
	uint32_t name; /* timeline string id */
	uint64_t count, total, min, max;
	uint32_t *hist;
	struct kcfg_stat cfg[KCFG_MAX];
	uint64_t cfg_other; /* launches with a configuration past KCFG_MAX, or none known */
};

/*
 * Device time with a min-heap of the ends of running activities, fed the
 * GPU records in start order (tl->gpu's); memory = the most activities
 * running at once.
 */
struct sweep {
	uint64_t *heap;
	size_t n, cap;
	uint64_t now, busy, overlap;
	int started;
};

struct dev_stat {
	uint32_t id;
	uint64_t busy, idle, overlap, kernel, memcpy, memset, first, last;
	struct sweep sw; /* while collecting */
};

struct mstat {
	uint64_t count, bytes, total;
};

struct pstat {
	uint64_t on, off, gpu;
};

struct report_stats {
	struct kstat *k;
	size_t nr_k, cap_k;
	struct u64map k_index; /* name id -> index in k + 1 */
	struct site *sites;
	size_t nr_sites, cap_sites;
	struct dev_stat *dev;
	size_t nr_dev, dev_alloc;
	struct mstat mc[MAX_MEMCPY_KINDS], ms;
	struct pstat *proc; /* per tl->procs */
	uint64_t busy, idle, overlap;
	uint64_t on_cpu, off_cpu, off_cpu_short;
	uint64_t tool_on, tool_off; /* the injection library's writer thread, left out */
	size_t gpu_records, with_api, with_stack;
	struct memory_stats *mem; /* NULL: no memory records */
};

/*
 * r's statistics, built on first use and kept in r->stats (the JSON and the
 * text ask in turn); kernels by total time, sites by GPU time, devices by
 * id. NULL when out of memory.
 */
struct report_stats *report_stats__get(struct report_state *r);
/* Free r->stats, if built. */
void report_stats__free(struct report_state *r);

/* The pct-th percentile of kernel k's durations, from its histogram, within [min, max]. */
uint64_t report_stats__kernel_pct(const struct kstat *k, double pct);

#endif /* GPUPERF_REPORT_STATS_H */
