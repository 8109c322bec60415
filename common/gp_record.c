// SPDX-License-Identifier: Apache-2.0
/* gp_record.c - per-type facts about trace records: names and minimum sizes. */
#include "gp_record.h"

#include <stddef.h>

struct rec_info {
	const char *name;
	uint32_t min_size;
};

static const struct rec_info infos[GP_REC_TYPE_COUNT] = {
	[GP_REC_STRING] = { "string", sizeof(struct gp_rec_string) + 8 },
	[GP_REC_CLOCK_PAIR] = { "clock_pair", sizeof(struct gp_rec_clock_pair) },
	[GP_REC_PROCESS] = { "process", sizeof(struct gp_rec_process) },
	[GP_REC_THREAD] = { "thread", sizeof(struct gp_rec_thread) },
	[GP_REC_MODULE] = { "module", sizeof(struct gp_rec_module) },
	[GP_REC_DEVICE] = { "device", sizeof(struct gp_rec_device) },
	[GP_REC_API] = { "api", sizeof(struct gp_rec_api) },
	[GP_REC_KERNEL] = { "kernel", sizeof(struct gp_rec_kernel) },
	/* 2.4 appended graph_node_id: records of 2.3 and before end before it. */
	[GP_REC_MEMCPY] = { "memcpy", __builtin_offsetof(struct gp_rec_memcpy, graph_node_id) },
	[GP_REC_MEMSET] = { "memset", __builtin_offsetof(struct gp_rec_memset, graph_node_id) },
	[GP_REC_SYNC] = { "sync", sizeof(struct gp_rec_sync) },
	[GP_REC_CPU_SAMPLE] = { "cpu_sample", sizeof(struct gp_rec_cpu_sample) },
	[GP_REC_OFFCPU] = { "offcpu", sizeof(struct gp_rec_offcpu) },
	[GP_REC_LAUNCH_SITE] = { "launch_site", sizeof(struct gp_rec_launch_site) },
	[GP_REC_DROPPED] = { "dropped", sizeof(struct gp_rec_dropped) },
	[GP_REC_END] = { "end", sizeof(struct gp_rec_end) },
	[GP_REC_STACK] = { "stack", sizeof(struct gp_rec_stack) },
	[GP_REC_LAUNCH_SITE_ID] = { "launch_site_id", sizeof(struct gp_rec_launch_site_id) },
	[GP_REC_API_STACK] = { "api_stack", sizeof(struct gp_rec_api_stack) },
	[GP_REC_MEMORY] = { "memory", sizeof(struct gp_rec_memory) },
};

uint32_t gp_rec_min_size(uint16_t type)
{
	return type < GP_REC_TYPE_COUNT ? infos[type].min_size : 0;
}

void gp_rec_read(void *dst, uint32_t size, const struct gp_rec_hdr *h)
{
	uint32_t n = h->size < size ? h->size : size;

	__builtin_memcpy(dst, h, n);
	if (n < size)
		__builtin_memset((char *)dst + n, 0, size - n);
}

const char *gp_rec_type_name(uint16_t type)
{
	if (type >= GP_REC_TYPE_COUNT || !infos[type].name)
		return "unknown";
	return infos[type].name;
}

int gp_rec_stack_layout(uint16_t type, uint32_t *fixed, uint32_t *nr_off)
{
	switch (type) {
	case GP_REC_CPU_SAMPLE:
		*fixed = sizeof(struct gp_rec_cpu_sample);
		*nr_off = __builtin_offsetof(struct gp_rec_cpu_sample, nr_user);
		return 1;
	case GP_REC_OFFCPU:
		*fixed = sizeof(struct gp_rec_offcpu);
		*nr_off = __builtin_offsetof(struct gp_rec_offcpu, nr_user);
		return 1;
	case GP_REC_LAUNCH_SITE:
		*fixed = sizeof(struct gp_rec_launch_site);
		*nr_off = __builtin_offsetof(struct gp_rec_launch_site, nr_user);
		return 1;
	case GP_REC_STACK:
		*fixed = sizeof(struct gp_rec_stack);
		*nr_off = __builtin_offsetof(struct gp_rec_stack, nr_user);
		return 1;
	default:
		return 0;
	}
}

const char *gp_stack_end_name(unsigned end)
{
	static const char *const names[GP_STACK_END_COUNT] = {
		[GP_STACK_END_ROOT] = "root",
		[GP_STACK_END_DEPTH] = "depth",
		[GP_STACK_END_UNKNOWN_MODULE] = "unknown_module",
		[GP_STACK_END_BAD_FRAME] = "bad_frame",
		[GP_STACK_END_NO_FP] = "no_fp",
		[GP_STACK_END_UNSUPPORTED] = "unsupported_cfi",
		[GP_STACK_END_OFF_STACK] = "off_stack",
		[GP_STACK_END_NO_TABLES] = "no_tables",
		[GP_STACK_END_SHORT_COPY] = "short_copy",
	};

	return end < GP_STACK_END_COUNT ? names[end] : NULL;
}
