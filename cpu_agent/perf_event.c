// SPDX-License-Identifier: Apache-2.0
/* perf_event: one sampling perf event per online CPU (cycles in frequency mode, or the CPU clock). */
#include "perf_event.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

struct perf_event_set {
	int n;
	bool sw;
	int *fds;
	int *cpus;
};

static int sys_perf_event_open(struct perf_event_attr *attr, int cpu)
{
	long fd = syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

/*
 * Parse a CPU list ("0-3,5,7-8", as in /sys/devices/system/cpu/online) into
 * @mask of @n entries. Returns 0 or -errno.
 */
static int parse_cpu_list(const char *s, bool *mask, int n)
{
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1)
				return -EINVAL;
			s = end;
		}
		for (long c = a; c <= b && c < n; c++)
			if (c >= 0)
				mask[c] = true;
		if (*s == ',')
			s++;
	}
	return 0;
}

static int online_cpus(bool **mask, int *n)
{
	char buf[4096];
	FILE *f;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), err = 0;

	if (ncpu <= 0)
		return -ENODEV;
	*mask = calloc((size_t)ncpu, sizeof(**mask));
	if (!*mask)
		return -ENOMEM;
	*n = ncpu;
	f = fopen("/sys/devices/system/cpu/online", "re");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		/* no sysfs: assume every configured CPU is online */
		for (int i = 0; i < ncpu; i++)
			(*mask)[i] = true;
	} else {
		err = parse_cpu_list(buf, *mask, ncpu);
	}
	if (f)
		fclose(f);
	return err;
}

static void fill_attr(struct perf_event_attr *attr, bool sw, uint32_t hz)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = sw ? PERF_TYPE_SOFTWARE : PERF_TYPE_HARDWARE;
	attr->config = sw ? PERF_COUNT_SW_CPU_CLOCK : PERF_COUNT_HW_CPU_CYCLES;
	attr->freq = 1;
	attr->sample_freq = hz;
}

struct perf_event_set *perf_event_set__open(const struct perf_event_set_opts *opts)
{
	struct perf_event_set *s = NULL;
	struct perf_event_attr attr;
	bool *mask = NULL;
	int ncpu = 0, err;

	if (!opts || !opts->freq_hz) {
		err = -EINVAL;
		goto fail;
	}
	err = online_cpus(&mask, &ncpu);
	if (err)
		goto fail;
	s = calloc(1, sizeof(*s));
	if (!s) {
		err = -ENOMEM;
		goto fail;
	}
	s->fds = calloc((size_t)ncpu, sizeof(*s->fds));
	s->cpus = calloc((size_t)ncpu, sizeof(*s->cpus));
	if (!s->fds || !s->cpus) {
		err = -ENOMEM;
		goto fail;
	}
	s->sw = opts->force_sw_clock;
	if (opts->nr_cpus) {
		/* keep only the CPUs asked for */
		bool *want = calloc((size_t)ncpu, sizeof(*want));

		if (!want) {
			err = -ENOMEM;
			goto fail;
		}
		for (size_t i = 0; i < opts->nr_cpus; i++)
			if (opts->cpus[i] >= 0 && opts->cpus[i] < ncpu)
				want[opts->cpus[i]] = true;
		for (int cpu = 0; cpu < ncpu; cpu++)
			mask[cpu] = mask[cpu] && want[cpu];
		free(want);
	}
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int fd;

		if (!mask[cpu])
			continue;
		fill_attr(&attr, s->sw, opts->freq_hz);
		fd = sys_perf_event_open(&attr, cpu);
		if (fd < 0 && !s->sw && s->n == 0 &&
		    (fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV)) {
			/* no hardware PMU here: the software clock for every CPU */
			s->sw = true;
			fill_attr(&attr, true, opts->freq_hz);
			fd = sys_perf_event_open(&attr, cpu);
		}
		if (fd == -ENODEV)
			continue; /* went offline since we read the list */
		if (fd < 0) {
			err = fd;
			goto fail;
		}
		s->fds[s->n] = fd;
		s->cpus[s->n] = cpu;
		s->n++;
	}
	if (s->n == 0) {
		err = -ENODEV;
		goto fail;
	}
	free(mask);
	return s;

fail:
	free(mask);
	perf_event_set__free(s);
	errno = -err;
	return NULL;
}

int perf_event_set__count(const struct perf_event_set *s)
{
	return s->n;
}

int perf_event_set__fd(const struct perf_event_set *s, int i)
{
	return i >= 0 && i < s->n ? s->fds[i] : -EINVAL;
}

int perf_event_set__cpu(const struct perf_event_set *s, int i)
{
	return i >= 0 && i < s->n ? s->cpus[i] : -EINVAL;
}

bool perf_event_set__is_sw(const struct perf_event_set *s)
{
	return s->sw;
}

void perf_event_set__free(struct perf_event_set *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++)
		close(s->fds[i]);
	free(s->fds);
	free(s->cpus);
	free(s);
}
