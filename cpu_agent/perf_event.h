/* SPDX-License-Identifier: Apache-2.0 */
/* perf_event: one sampling perf event per online CPU (cycles in frequency mode, or the CPU clock). */
#ifndef GPUPERF_CPU_AGENT_PERF_EVENT_H
#define GPUPERF_CPU_AGENT_PERF_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_event_set;

struct perf_event_set_opts {
	uint32_t freq_hz;	/* samples per second per CPU; required */
	bool force_sw_clock;	/* skip the hardware cycles event (tests, VMs with a broken PMU) */
	const int *cpus;	/* only these CPUs (those online among them); NULL/0: every CPU */
	size_t nr_cpus;
};

/*
 * Open a disabled-until-attach sampling event on every online CPU: hardware
 * cycles in frequency mode, falling back to PERF_COUNT_SW_CPU_CLOCK when the
 * machine has no usable PMU (VMs, containers). Offline CPUs are skipped, and
 * with opts->cpus every CPU not in that list.
 * Returns NULL and sets errno: EPERM/EACCES without CAP_PERFMON (or with a
 * restrictive perf_event_paranoid), EINVAL for a zero frequency or one above
 * kernel.perf_event_max_sample_rate, ENODEV with no usable CPU.
 */
struct perf_event_set *perf_event_set__open(const struct perf_event_set_opts *opts);

int perf_event_set__count(const struct perf_event_set *s);
/* The fd of the i-th event (0 <= i < count), owned by the set. */
int perf_event_set__fd(const struct perf_event_set *s, int i);
/* The CPU of the i-th event. */
int perf_event_set__cpu(const struct perf_event_set *s, int i);
/* true when the software clock is used instead of hardware cycles. */
bool perf_event_set__is_sw(const struct perf_event_set *s);

/* Close every event; accepts NULL. */
void perf_event_set__free(struct perf_event_set *s);

#endif /* GPUPERF_CPU_AGENT_PERF_EVENT_H */
