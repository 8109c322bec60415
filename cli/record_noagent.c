// SPDX-License-Identifier: Apache-2.0
/* record_noagent.c - the CPU agent's API in a build without eBPF: every start fails with ENOSYS. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu_agent.h"

struct cpu_agent *cpu_agent__new(const struct cpu_agent_opts *opts)
{
	(void)opts;
	errno = ENOSYS;
	return NULL;
}

int cpu_agent__start(struct cpu_agent *a)
{
	(void)a;
	return -ENOSYS;
}

int cpu_agent__poll(struct cpu_agent *a, int timeout_ms)
{
	(void)a;
	(void)timeout_ms;
	return -ENOSYS;
}

size_t cpu_agent__alive(const struct cpu_agent *a)
{
	(void)a;
	return 0;
}

int cpu_agent__stop(struct cpu_agent *a)
{
	(void)a;
	return 0;
}

void cpu_agent__stats(const struct cpu_agent *a, struct cpu_agent_stats *st)
{
	(void)a;
	*st = (struct cpu_agent_stats){ 0 };
}

const char *cpu_agent__strerror(int err)
{
	(void)err;
	return "--cpu is not available in this build (built without the eBPF agent)";
}

void cpu_agent__free(struct cpu_agent *a)
{
	(void)a;
}

uint64_t cpu_agent__covered_ns(const struct cpu_agent *a)
{
	(void)a;
	return 0;
}

const struct cpu_agent_exit *cpu_agent__exits(const struct cpu_agent *a, size_t *n)
{
	(void)a;
	*n = 0;
	return NULL;
}

const char *cpu_agent__unwind_end_name(int end)
{
	(void)end;
	return "unknown";
}
