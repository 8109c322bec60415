/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cupti_clock.h - CUPTI timestamps in CLOCK_MONOTONIC, and clock pairs.
 *
 * cupti_clock__install() registers a timestamp callback returning
 * CLOCK_MONOTONIC ns, so every record CUPTI produces is in the clock of
 * bpf_ktime_get_ns(). It must run before any activity kind is enabled
 * (records produced earlier would be in CUPTI's default clock).
 * cupti_clock__write_pair() records (cuptiGetTimestamp, MONOTONIC,
 * REALTIME) so a trace whose callback could not be installed can still be
 * aligned by offset and drift.
 */
#ifndef GPUPERF_CUPTI_CLOCK_H
#define GPUPERF_CUPTI_CLOCK_H

#include <stdint.h>

struct gp_writer;

uint64_t cupti_clock__monotonic_ns(void);
uint64_t cupti_clock__realtime_ns(void);

/* 0, or -EIO when CUPTI refused the callback (logged). */
int cupti_clock__install(void);

/*
 * Append a GP_REC_CLOCK_PAIR. With `use_cupti` 0 (a forked child, where
 * CUPTI must not be called) producer_ts is the MONOTONIC reading.
 */
int cupti_clock__write_pair(struct gp_writer *w, int use_cupti);

#endif /* GPUPERF_CUPTI_CLOCK_H */
