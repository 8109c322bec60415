// SPDX-License-Identifier: Apache-2.0
/*
 * gen_odd_recording - write a small recording that holds what a hostile or
 * damaged one may: module paths of the test's choosing (a FIFO, a device
 * node), module records with an empty range, names that are not UTF-8.
 *
 * usage: gen_odd_recording [-p PID] [-t SECONDS] [-m PATH]... [-a OFF]... [-S N] [-e] [-k] [-u] DIR
 *   -p PID: the process (100); its GPU trace is DIR/gpu-PID.trace
 *   -t S:   the recording starts S seconds after boot (1): two recordings
 *           with different -p and -t are two runs that do not belong together
 *   -m PATH: a module of the process: the i-th -m maps
 *           [0x10000000 * (i + 1), + 0x10000); one CPU sample has its leaf
 *           at +0x123 in it (the report names it [BASENAME+0x123])
 *   -a OFF: one more CPU sample, its leaf at file offset OFF (hex) of the
 *           first -m module (a stripped library's code, sampled all over)
 *   -S N:   N more processes named as the first ("odd", pids PID + 10,
 *           PID + 20, ...), CPU only: each 10 samples of 10 us in main(),
 *           after the first process's steps (a build's many cc1)
 *   -e:     two module records with end <= start (damaged)
 *   -k:     kernels only: no API call, no launch stack (a process whose
 *           GPU work has no API call at all)
 *   -u:     the process, a thread, the kernel and a JIT function are named
 *           with bytes that are not UTF-8 (0xff, a lone continuation byte,
 *           an overlong '/', a UTF-16 surrogate, a cut sequence at the end)
 *
 * Each of 10 steps (1 ms apart) has a cudaLaunchKernel whose launch stack
 * is in launch() <- main() (DIR/perf-PID.map) and a kernel of 100 us.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gp_record.h"
#include "gp_writer.h"

#define MAX_MODULES 8
#define MAX_EXTRA   4096
#define MOD_BASE(i) (0x10000000ull * ((i) + 1))
#define F_MAIN	    0x400000ull /* perf map: main() [0x400000, +0x100) */
#define F_LAUNCH    0x400100ull /* launch() */
#define F_API	    0x400200ull /* cudaLaunchKernel() */

static uint32_t pid = 100;
static int odd_names, kernels_only;

static const char *name(const char *plain, const char *odd)
{
	return odd_names ? odd : plain;
}

static struct gp_writer *open_trace(const char *dir, const char *file, uint16_t producer)
{
	struct gp_writer_opts o = { .producer = producer, .pid = pid, .truncate = 1,
				    .producer_version = "gpuperf odd" };
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return gp_writer__open(path, &o);
}

static void proc_thread(struct gp_writer *w, uint64_t t0)
{
	struct gp_rec_process *p = gp_writer__reserve(w, GP_REC_PROCESS, sizeof(*p));
	struct gp_rec_thread *t;

	p->ts = t0;
	p->pid = pid;
	p->ppid = 1;
	p->event = GP_PROC_INFO;
	p->comm_str = gp_writer__intern(w, name("odd", "od\xff" "d"));
	p->exe_str = gp_writer__intern(w, name("/opt/odd", "/opt/\x80odd"));
	gp_writer__commit(w);
	t = gp_writer__reserve(w, GP_REC_THREAD, sizeof(*t));
	t->ts = t0;
	t->pid = pid;
	t->tid = pid;
	t->name_str = gp_writer__intern(w, name("main", "ma\xc0\xafin\xed\xa0\x80"));
	gp_writer__commit(w);
	t = gp_writer__reserve(w, GP_REC_THREAD, sizeof(*t));
	t->ts = t0;
	t->pid = pid;
	t->tid = pid + 1;
	t->name_str = gp_writer__intern(w, name("worker", "worker\xe2\x82"));
	gp_writer__commit(w);
}

static void module(struct gp_writer *w, uint64_t ts, const char *path, uint64_t start,
		   uint64_t end)
{
	struct gp_rec_module *m = gp_writer__reserve(w, GP_REC_MODULE, sizeof(*m));

	m->ts = ts;
	m->pid = pid;
	m->start = start;
	m->end = end;
	m->prot = 5; /* r-x */
	m->path_str = gp_writer__intern(w, path);
	gp_writer__commit(w);
}

static void sample(struct gp_writer *w, uint64_t ts, uint32_t tid, uint64_t leaf)
{
	uint64_t ips[3] = { leaf, F_LAUNCH + 0x10, F_MAIN + 0x10 };
	struct gp_rec_cpu_sample *s =
		gp_writer__reserve(w, GP_REC_CPU_SAMPLE, (uint32_t)(sizeof(*s) + sizeof(ips)));

	s->ts = ts;
	s->weight_ns = 10000;
	s->pid = pid;
	s->tid = tid;
	s->nr_user = 3;
	memcpy(s->ips, ips, sizeof(ips));
	gp_writer__commit(w);
}

static int perf_map(const char *dir)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/perf-%u.map", dir, pid);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%llx 100 main\n%llx 100 %s\n%llx 100 cudaLaunchKernel\n",
			  F_MAIN, F_LAUNCH, name("launch", "laun\xff" "ch"), F_API) < 0 ||
	    fclose(f)) {
		fprintf(stderr, "gen_odd_recording: cannot write '%s'\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *mods[MAX_MODULES], *dir;
	static uint64_t extra[MAX_EXTRA];
	int nextra = 0, same = 0;
	struct gp_writer *cpu, *gpu;
	unsigned long secs = 1;
	int c, nmods = 0, empty = 0, i;
	char path[4096];
	uint64_t t0;

	while ((c = getopt(argc, argv, "p:t:m:a:S:eku")) != -1) {
		if (c == 'p')
			pid = (uint32_t)strtoul(optarg, NULL, 10);
		else if (c == 't')
			secs = strtoul(optarg, NULL, 10);
		else if (c == 'm' && nmods < MAX_MODULES)
			mods[nmods++] = optarg;
		else if (c == 'a' && nextra < MAX_EXTRA)
			extra[nextra++] = strtoull(optarg, NULL, 16);
		else if (c == 'S')
			same = atoi(optarg);
		else if (c == 'e')
			empty = 1;
		else if (c == 'u')
			odd_names = 1;
		else if (c == 'k')
			kernels_only = 1;
		else
			return 2;
	}
	if (optind != argc - 1 || !pid) {
		fprintf(stderr, "usage: gen_odd_recording [-p PID] [-t SECONDS] [-m PATH]... [-a OFF]... "
				"[-S N] [-e] [-k] [-u] DIR\n");
		return 2;
	}
	dir = argv[optind];
	t0 = secs * 1000000000ull;

	if (perf_map(dir))
		return 1;
	snprintf(path, sizeof(path), "gpu-%u.trace", pid);
	cpu = open_trace(dir, "cpu.trace", GP_PRODUCER_CPU_AGENT);
	gpu = open_trace(dir, path, GP_PRODUCER_INJECT);
	if (!cpu || !gpu) {
		fprintf(stderr, "gen_odd_recording: cannot create the traces in '%s': %s\n", dir,
			strerror(errno));
		return 1;
	}
	proc_thread(cpu, t0);
	proc_thread(gpu, t0);
	for (i = 0; i < nmods; i++)
		module(cpu, t0, mods[i], MOD_BASE(i), MOD_BASE(i) + 0x10000);
	if (empty) {
		module(cpu, t0, "/opt/odd/lib/empty.so", 0x7f0000000000ull, 0x7f0000000000ull);
		module(cpu, t0, "/opt/odd/lib/backwards.so", 0x7f0000002000ull, 0x7f0000001000ull);
	}
	for (i = 0; i < 10; i++) {
		uint64_t t = t0 + (uint64_t)i * 1000000;
		uint64_t ips[3] = { F_API, F_LAUNCH + 0x10, F_MAIN + 0x10 };
		struct gp_rec_api_stack *l;
		struct gp_rec_api *a;
		struct gp_rec_kernel *k;

		if (kernels_only)
			goto kernel;
		/* the call's launch stack, as the injection library writes it */
		l = gp_writer__reserve(gpu, GP_REC_API_STACK, sizeof(*l));
		l->correlation_id = (uint32_t)i + 1;
		l->stack_id = gp_writer__intern_stack(gpu, ips, 3, 0);
		gp_writer__commit(gpu);
		a = gp_writer__reserve(gpu, GP_REC_API, sizeof(*a));
		a->start = t + 2000;
		a->end = t + 5000;
		a->correlation_id = (uint32_t)i + 1;
		a->pid = pid;
		a->tid = pid;
		a->domain = GP_API_RUNTIME;
		a->name_str = gp_writer__intern(gpu, "cudaLaunchKernel");
		gp_writer__commit(gpu);
kernel:
		k = gp_writer__reserve(gpu, GP_REC_KERNEL, sizeof(*k));
		k->start = t + 10000;
		k->end = t + 110000;
		k->correlation_id = (uint32_t)i + 1;
		k->pid = pid;
		k->stream_id = 7;
		k->grid[0] = k->grid[1] = k->grid[2] = 1;
		k->block[0] = k->block[1] = k->block[2] = 1;
		k->name_str = gp_writer__intern(gpu, name("odd_kernel", "odd_k\xff\xfe" "ernel\xf4\x90\x80\x80"));
		gp_writer__commit(gpu);
		/* one sample in each module, on the worker thread; one in main() */
		sample(cpu, t + 50000, pid, F_MAIN + 0x20);
		if (i < nmods)
			sample(cpu, t + 60000, pid + 1, MOD_BASE(i) + 0x123);
	}
	for (i = 1; i <= same; i++) {
		uint32_t first = pid;

		pid = first + 10 * (uint32_t)i;
		if (perf_map(dir))
			return 1;
		proc_thread(cpu, t0 + 10000000);
		for (int k = 0; k < 10; k++)
			sample(cpu, t0 + 10000000 + (uint64_t)(i * 10 + k) * 1000, pid, F_MAIN + 0x20);
		pid = first;
	}
	for (i = 0; nmods && i < nextra; i++)
		sample(cpu, t0 + 20000000 + (uint64_t)i * 1000, pid + 1, MOD_BASE(0) + extra[i]);
	if (gp_writer__close(cpu) || gp_writer__close(gpu)) {
		fprintf(stderr, "gen_odd_recording: cannot write the traces: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
