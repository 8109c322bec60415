/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rec_groups.h - records that draw the same frames, aggregated once: a
 * group is one distinct (kind, pid, tid, stack, API name, GPU frame), with
 * the index of one of its records (rep), the sum of their weights and their
 * count. Every view builds a group's frames once (frames.h), however many
 * records it holds.
 */
#ifndef GPUPERF_REC_GROUPS_H
#define GPUPERF_REC_GROUPS_H

#include <stddef.h>
#include <stdint.h>

struct timeline;

/* The views: one aggregation each, frames root first, weights in ns. */
enum report_view {
	VIEW_CPU = 0, /* on-CPU samples */
	VIEW_OFFCPU,  /* off-CPU spans */
	VIEW_GPU,     /* kernels, memcpys, memsets under their launch stacks */
	VIEW_PROFILE, /* all three */
	VIEW_IDLE,    /* launching threads' stacks while the GPU had no work */
	VIEW_COUNT
};

/* What a GPU record's frames depend on, derived once per record. */
struct gpu_key {
	uint64_t stack;	 /* launch stack: off << 32 | nr_user << 16 | nr_kernel; UINT64_MAX none */
	uint64_t thread; /* pid << 32 | tid */
	uint64_t what;	 /* GPU frame (kernel name or memcpy kind) << 32 | API name index + 1
			  * (0: no API call) << 8 | tl_gpu kind */
			 /* (whole 64-bit words, each made in a register: a key built field by field
			  * and read back as wider words stalls on store forwarding) */
};

struct rec_group {
	uint64_t hash;
	uint64_t weight;
	uint64_t count;
	uint32_t rep;
	uint32_t kind;	    /* enum report_view of the records: VIEW_CPU, VIEW_OFFCPU, VIEW_GPU */
	struct gpu_key key; /* VIEW_GPU */
};

/* Zero-initialized is empty; the groups stay in the order they began. */
struct rec_groups {
	struct rec_group *g;
	size_t n, cap;
	uint32_t *slots; /* open addressing: group index + 1 */
	size_t nslots;
};

/*
 * Add sample (VIEW_CPU) or off-CPU span (VIEW_OFFCPU) number rec of tl, with
 * weight, to its group in gs: records of one thread with the same stack draw
 * the same frames. 0 or -ENOMEM.
 */
int rec_groups__add(struct rec_groups *gs, const struct timeline *tl, enum report_view kind,
		    size_t rec, uint64_t weight);

/*
 * Add every GPU record of tl but syncs (waiting, not device work: in the
 * timeline and off-CPU) to gs, weighted by its duration, by what makes two
 * draw the same frames: process, launching thread, API call, launch stack
 * and GPU frame. 0 or -ENOMEM.
 */
int rec_groups__add_gpu(struct rec_groups *gs, const struct timeline *tl);

/* The launching thread of GPU record i, 0 when it was joined to no API call. */
uint32_t rec_groups__gpu_tid(const struct timeline *tl, size_t i);

/* Frees the arrays; gs is empty after. */
void rec_groups__free(struct rec_groups *gs);

#endif /* GPUPERF_REC_GROUPS_H */
