/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inject_config.h - every GPUPERF_* variable the injection library reads,
 * parsed and validated in one place (the table is in README.md).
 *
 * A bad value never stops the program: it is replaced by the default and a
 * warning is queued in `warnings`, which the caller logs once logging is set
 * up (logging itself is configured by two of these variables).
 */
#ifndef GPUPERF_INJECT_CONFIG_H
#define GPUPERF_INJECT_CONFIG_H

#include <limits.h>
#include <stdint.h>

/* inject_config.kinds: which CUPTI activity kinds are enabled */
#define INJ_KIND_API 0x01u	/* RUNTIME + DRIVER API records */
#define INJ_KIND_KERNEL 0x02u	/* CONCURRENT_KERNEL */
#define INJ_KIND_MEMCPY 0x04u
#define INJ_KIND_MEMSET 0x08u
#define INJ_KIND_SYNC 0x10u	/* SYNCHRONIZATION */
#define INJ_KIND_DEVICE 0x20u
#define INJ_KIND_MEMORY 0x40u	/* MEMORY2 + MEMORY_POOL: allocations, frees, pool events */
#define INJ_KIND_ALL 0x7fu

#define INJ_CONFIG_MAX_WARNINGS 8

struct inject_config {
	char dir[PATH_MAX];	  /* GPUPERF_DIR: where gpu-<pid>.trace goes (".") */
	uint32_t buffer_size;	  /* GPUPERF_BUFFER_SIZE: bytes per CUPTI buffer */
	uint32_t buffer_count;	  /* GPUPERF_BUFFER_COUNT: buffers in the pool at most */
	uint32_t flush_ms;	  /* GPUPERF_FLUSH_MS: periodic flush to disk */
	uint32_t kinds;		  /* GPUPERF_ACTIVITY: INJ_KIND_* */
	int zlevel;		  /* GPUPERF_ZLEVEL: deflate level of the chunks; 0: uncompressed */
	int writer_nice;	  /* GPUPERF_WRITER_NICE: the writer thread's nice value, 0..19 */
	int signals;		  /* GPUPERF_SIGNALS: finish the trace on SIGINT/SIGTERM */
	int stacks;		  /* GPUPERF_STACKS: each launch's stack, taken in the callback */
	int stacks_fp;		  /* GPUPERF_STACKS_FP: frame pointers only (for comparison) */
	int log_level;		  /* GPUPERF_LOG: error|warn|info|debug */
	char log_file[PATH_MAX];  /* GPUPERF_LOG_FILE: "" = stderr */
	char cupti_lib[PATH_MAX]; /* GPUPERF_CUPTI_LIB: "" = search */
	unsigned nwarnings;
	char warnings[INJ_CONFIG_MAX_WARNINGS][256];
};

/* Fill `c` from the environment; never fails. */
void inject_config__load(struct inject_config *c);

#endif /* GPUPERF_INJECT_CONFIG_H */
