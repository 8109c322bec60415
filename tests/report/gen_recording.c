// SPDX-License-Identifier: Apache-2.0
/*
 * gen_recording - write a synthetic gpuperf recording directory whose every
 * number is known: the input of the report's golden tests and of
 * bench/report (10M kernels).
 *
 * usage: gen_recording [-n STEPS] [-s SAMPLES_PER_STEP] [-k EVERY] [-c CHUNK_BYTES] [-D DEPTH] [-1] [-S] [-x] [-d] [-l [-i]] [-L] [-w] [-u] DIR
 *   -k K: CPU samples only in every K-th step (1)
 *   -1: every kernel launched as the format-1.0 fixture's were (grid 1x1x1,
 *       block 256x1x1, nothing else), and the launch stacks as an older
 *       gpuperf's CPU agent wrote them (launch_site records, each carrying
 *       its stack), for tests/report/format_compat.sh; else they are the
 *       injection library's (api_stack + stack by id, format 2.3)
 *   -S: no launch stacks at all (recorded with GPUPERF_STACKS=0)
 *   -x: the main thread is also preempted (state R) every step from 2 us before
 *       its cudaMemcpyAsync call to 0.5 us into it: an off-CPU span that
 *       overlaps the call without nesting, as the scheduler's and CUPTI's
 *       timestamps may (tests/report/pftrace.sh)
 *   -l: the loader thread also makes a CUDA call each step (cudaEventQuery,
 *       450-451 us into the step, no GPU work): a second launching thread,
 *       whose off-CPU time in idle gaps counts in gpu_idle.folded. Its
 *       correlation ids are a range of their own (0x40000000 up), which
 *       makes the process's ids sparse: the report's join then goes
 *       through its hash table
 *   -i: with -l, the loader's calls take their ids from the one counter
 *       the main thread's come from, interleaved, as CUPTI numbers a
 *       process's calls (bench/report/run.sh --two-threads)
 *   -L: the CPU trace reports losses, at the first step and at the end: 2 + 3
 *       off-CPU blocks whose switch the kernel did not show and 1 + 1 samples
 *       (ring buffer full); the GPU trace 4 CUPTI records at the end
 *   -D N: N more frames in every launch stack and main-thread sample, between
 *       train_step() and main(): layer_0() .. layer_<N-1>(), the framework and
 *       interpreter frames a real program's 20-60 frame stacks have (at most
 *       100; the default stacks are 3-4 frames)
 *   -d: each cudaLaunchKernel makes a driver call, cuLaunchKernel, from 1 us
 *       after its start to 1 us before its end: API calls nested on one
 *       thread, as CUPTI records them with both API domains enabled
 *   -w: the process also has the injection library's writer thread
 *       ("gpuperf-writer", tid 102): each step one on-CPU sample and a
 *       600 us off-CPU span of it, and at the end its short blocks (7 of
 *       them, 70 us in all): the tool's time, which every output leaves out
 *   -u: the samples and spans say where their user stacks end (format 2.5),
 *       as the agent's CFI unwinder does: at the root, except one in three
 *       of the loader's samples (the 3rd, 6th, ...), which end in code of
 *       no known module (unknown_module), and with -x the preempted spans,
 *       whose stack copy was too short (short_copy). The writer thread's
 *       spans have no user stack: nothing said
 *
 * One process "train" (pid 100) with a main thread (100) and a loader
 * thread (101). Each step (1 ms apart, starting at 1 s):
 *   main:   forward() launches fwd_kernel (200 us) and backward() launches
 *           bwd_kernel<float>(float*, int) (300 us), both via cudaLaunchKernel;
 *           (launch configurations: fwd 64x2x1 x 128x1x1, 24 registers; bwd
 *           128x1x1 x 256x1x1, 32 registers, 1 KiB + 2 KiB shared memory);
 *           cudaMemcpyAsync DtoH of 1 MiB (50 us); a cudaMemsetAsync (10 us)
 *           whose launch-site hit is missing (no launch stack);
 *           on-CPU samples in compute_loss() (in forward() on odd steps).
 *   loader: off-CPU in read() -> vfs_read -> schedule for 400 us,
 *           on-CPU samples in load_batch().
 * Every 100th step has one kernel with no API record at all.
 * Symbols come from DIR/perf-100.map (user) and DIR/kallsyms (kernel), so
 * the outputs do not depend on any binary of the machine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gp_record.h"
#include "gp_writer.h"

#define PID 100
#define TID_MAIN 100
#define TID_LOADER 101
#define TID_WRITER 102
#define T0 1000000000ull
#define STEP 1000000ull
#define SAMPLE_NS 10101ull /* 99 kHz-ish: any weight works */

/* perf-100.map: name -> [addr, addr + 0x100) */
enum { F_MAIN, F_TRAIN_STEP, F_FORWARD, F_BACKWARD, F_LOAD_BATCH, F_LAUNCH, F_MEMCPY, F_READ,
       F_LOSS, F_LOADER_MAIN, F_COUNT };
static const char *const fname[F_COUNT] = {
	"main", "train_step", "forward", "backward", "load_batch", "cudaLaunchKernel",
	"cudaMemcpyAsync", "read", "compute_loss", "loader_main",
};
#define MAX_DEPTH 100 /* -D: layer_<i>() is function F_COUNT + i */
#define FADDR(f) (0x400000ull + 0x100ull * (f))
#define RET(f) (FADDR(f) + 0x10) /* a return address inside f */

static const char *const kname[] = { "schedule", "vfs_read", "ksys_read", "do_syscall_64" };
#define KADDR(i) (0xffffffff81000000ull + 0x100ull * (i))

static int depth;	  /* -D */
static int legacy_config; /* -1 */
static int no_stacks;	  /* -S */

/* Append the -D frames to a main-thread stack at ips[n] (room for MAX_DEPTH more): the new n. */
static uint16_t deepen(uint64_t *ips, uint16_t n)
{
	uint64_t main_ret = ips[n - 1];
	int i;

	for (i = 0; i < depth; i++)
		ips[n - 1 + i] = RET(F_COUNT + depth - 1 - i);
	ips[n - 1 + depth] = main_ret;
	return (uint16_t)(n + depth);
}

static int write_maps(const char *dir)
{
	char path[4096];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/perf-%u.map", dir, PID);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	for (i = 0; i < F_COUNT; i++)
		fprintf(f, "%llx 100 %s\n", (unsigned long long)FADDR(i), fname[i]);
	for (i = 0; i < depth; i++)
		fprintf(f, "%llx 100 layer_%d\n", (unsigned long long)FADDR(F_COUNT + i), i);
	if (fclose(f))
		return -EIO;
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	for (i = 0; i < 4; i++)
		fprintf(f, "%llx T %s\n", (unsigned long long)KADDR(i), kname[i]);
	fprintf(f, "%llx T _etext\n", (unsigned long long)KADDR(4));
	if (fclose(f))
		return -EIO;
	return 0;
}

static uint32_t chunk_size; /* 0: the writer's default */

static struct gp_writer *open_trace(const char *dir, const char *name, uint16_t producer)
{
	struct gp_writer_opts o = { .producer = producer, .pid = PID, .truncate = 1,
				    .chunk_size = chunk_size,
				    .producer_version = "gpuperf synthetic" };
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return gp_writer__open(path, &o);
}

static int writer_thread;

static void proc_thread(struct gp_writer *w)
{
	struct gp_rec_process *p = gp_writer__reserve(w, GP_REC_PROCESS, sizeof(*p));
	struct gp_rec_thread *t;

	p->ts = T0;
	p->pid = PID;
	p->ppid = 1;
	p->event = GP_PROC_INFO;
	p->comm_str = gp_writer__intern(w, "train");
	p->exe_str = gp_writer__intern(w, "/opt/train/bin/train");
	gp_writer__commit(w);
	t = gp_writer__reserve(w, GP_REC_THREAD, sizeof(*t));
	t->ts = T0;
	t->pid = PID;
	t->tid = TID_MAIN;
	t->name_str = gp_writer__intern(w, "train");
	gp_writer__commit(w);
	t = gp_writer__reserve(w, GP_REC_THREAD, sizeof(*t));
	t->ts = T0;
	t->pid = PID;
	t->tid = TID_LOADER;
	t->name_str = gp_writer__intern(w, "loader");
	gp_writer__commit(w);
	if (!writer_thread)
		return;
	t = gp_writer__reserve(w, GP_REC_THREAD, sizeof(*t));
	t->ts = T0;
	t->pid = PID;
	t->tid = TID_WRITER;
	t->name_str = gp_writer__intern(w, "gpuperf-writer");
	gp_writer__commit(w);
}

/*
 * The launch stack of call `corr`: the entry point, then return addresses
 * into caller, ..., main. As the injection library writes it, in the GPU
 * trace by correlation id; with -1 as an older CPU agent's uprobe hit at
 * `ts`, in cpu.trace (read, never joined).
 */
static void launched(struct gp_writer *cpu, struct gp_writer *gpu, uint64_t ts, uint32_t corr,
		     int probe, int caller)
{
	uint64_t ips[4 + MAX_DEPTH] = { FADDR(probe), RET(caller), RET(F_TRAIN_STEP), RET(F_MAIN) };
	uint16_t n = deepen(ips, 4);
	struct gp_writer *w = cpu;
	struct gp_rec_launch_site *l;
	struct gp_rec_api_stack *a;

	if (no_stacks)
		return;
	if (!legacy_config) {
		a = gp_writer__reserve(gpu, GP_REC_API_STACK, sizeof(*a));
		a->correlation_id = corr;
		a->stack_id = gp_writer__intern_stack(gpu, ips, n, 0);
		gp_writer__commit(gpu);
		return;
	}
	l = gp_writer__reserve(w, GP_REC_LAUNCH_SITE, (uint32_t)(sizeof(*l) + n * sizeof(*ips)));
	l->ts = ts;
	l->pid = PID;
	l->tid = TID_MAIN;
	l->probe_str = gp_writer__intern(w, fname[probe]);
	l->nr_user = n;
	memcpy(l->ips, ips, n * sizeof(*ips));
	gp_writer__commit(w);
}

static int unwind_ends;

/* -u: hdr.flags saying that a user stack ends at @end (GP_STACK_END_*); 0 without -u */
static uint16_t end_flags(unsigned end)
{
	return unwind_ends ? (uint16_t)(end << GP_STACK_END_SHIFT) : 0;
}

static void sample(struct gp_writer *w, uint64_t ts, uint32_t tid, int leaf, int mid)
{
	static unsigned long loader_samples;
	uint64_t ips[3 + MAX_DEPTH] = { RET(leaf) - 8, RET(mid),
					RET(tid == TID_MAIN ? F_MAIN : F_LOADER_MAIN) };
	uint16_t n = tid == TID_MAIN ? deepen(ips, 3) : 3;
	struct gp_rec_cpu_sample *s =
		gp_writer__reserve(w, GP_REC_CPU_SAMPLE, (uint32_t)(sizeof(*s) + n * sizeof(*ips)));

	s->hdr.flags = end_flags(tid == TID_LOADER && ++loader_samples % 3 == 0
					 ? GP_STACK_END_UNKNOWN_MODULE
					 : GP_STACK_END_ROOT);
	s->ts = ts;
	s->weight_ns = SAMPLE_NS;
	s->pid = PID;
	s->tid = tid;
	s->cpu = tid & 1;
	s->nr_user = n;
	memcpy(s->ips, ips, n * sizeof(*ips));
	gp_writer__commit(w);
}

static void offcpu_span(struct gp_writer *w, uint64_t start, uint64_t end, uint32_t tid,
			uint32_t state, const uint64_t *ips, uint16_t nr_user, uint16_t nr_kernel,
			uint16_t flags)
{
	size_t n = (size_t)(nr_user + nr_kernel) * sizeof(*ips);
	struct gp_rec_offcpu *o = gp_writer__reserve(w, GP_REC_OFFCPU, (uint32_t)(sizeof(*o) + n));

	o->hdr.flags = flags;

	o->start = start;
	o->end = end;
	o->pid = PID;
	o->tid = tid;
	o->state = state;
	o->nr_user = nr_user;
	o->nr_kernel = nr_kernel;
	memcpy(o->ips, ips, n);
	gp_writer__commit(w);
}

/* The loader blocked in read(). */
static void offcpu(struct gp_writer *w, uint64_t start, uint64_t end)
{
	static const uint64_t ips[6] = { RET(F_READ), RET(F_LOAD_BATCH), RET(F_LOADER_MAIN),
					 KADDR(0) + 0x20, KADDR(1) + 0x20, KADDR(3) + 0x20 };

	offcpu_span(w, start, end, TID_LOADER, 1 /* TASK_INTERRUPTIBLE */, ips, 3, 3,
		    end_flags(GP_STACK_END_ROOT));
}

/* The main thread preempted in backward() (-x). */
static void preempted(struct gp_writer *w, uint64_t start, uint64_t end)
{
	static const uint64_t ips[2] = { RET(F_BACKWARD), RET(F_TRAIN_STEP) };

	offcpu_span(w, start, end, TID_MAIN, 0 /* TASK_RUNNING */, ips, 2, 0,
		    end_flags(GP_STACK_END_SHORT_COPY));
}

static int overlap, driver, loader_calls, losses, shared_ids;

/* The injection library's writer thread (-w): waiting for buffers, and its short blocks. */
static void writer_step(struct gp_writer *w, uint64_t t)
{
	static const uint64_t ips[2] = { KADDR(0) + 0x20, KADDR(3) + 0x20 };

	sample(w, t + 300000, TID_WRITER, F_READ, F_LOAD_BATCH);
	offcpu_span(w, t + 310000, t + 910000, TID_WRITER, 1, ips, 0, 2, 0);
}

static void writer_short(struct gp_writer *w, uint64_t t)
{
	struct gp_rec_offcpu *o = gp_writer__reserve(w, GP_REC_OFFCPU, sizeof(*o));

	o->hdr.flags = GP_OFFCPU_AGGREGATE;
	o->start = t;
	o->end = t + 70000;
	o->pid = PID;
	o->tid = TID_WRITER;
	o->cpu = UINT32_MAX;
	o->pad = 7;
	gp_writer__commit(w);
}

static void dropped_why(struct gp_writer *w, uint64_t ts, uint32_t source, uint64_t count,
			uint32_t cause)
{
	struct gp_rec_dropped *r = gp_writer__reserve(w, GP_REC_DROPPED, sizeof(*r));

	r->ts = ts;
	r->count = count;
	r->source = source;
	r->cause = cause;
	gp_writer__commit(w);
}

static void dropped(struct gp_writer *w, uint64_t ts, uint32_t source, uint64_t count)
{
	dropped_why(w, ts, source, count, 0);
}
static uint32_t driver_corr = 0x80000000u; /* the driver calls' own correlation ids */

static void api_call_on(struct gp_writer *w, uint32_t tid, uint64_t start, uint64_t end,
			uint32_t corr, const char *name, uint32_t domain)
{
	struct gp_rec_api *a = gp_writer__reserve(w, GP_REC_API, sizeof(*a));

	a->start = start;
	a->end = end;
	a->correlation_id = corr;
	a->pid = PID;
	a->tid = tid;
	a->domain = domain;
	a->name_str = gp_writer__intern(w, name);
	gp_writer__commit(w);
}

static void api_call(struct gp_writer *w, uint64_t start, uint64_t end, uint32_t corr,
		     const char *name, uint32_t domain)
{
	api_call_on(w, TID_MAIN, start, end, corr, name, domain);
}

static void api(struct gp_writer *w, uint64_t start, uint64_t end, uint32_t corr, const char *name)
{
	api_call(w, start, end, corr, name, GP_API_RUNTIME);
	if (driver && !strcmp(name, "cudaLaunchKernel"))
		api_call(w, start + 1000, end - 1000, driver_corr++, "cuLaunchKernel", GP_API_DRIVER);
}

static void kernel(struct gp_writer *w, uint64_t start, uint64_t dur, uint32_t corr, const char *name)
{
	struct gp_rec_kernel *k = gp_writer__reserve(w, GP_REC_KERNEL, sizeof(*k));

	k->start = start;
	k->end = start + dur;
	k->correlation_id = corr;
	k->pid = PID;
	k->name_str = gp_writer__intern(w, name);
	k->stream_id = 7;
	if (legacy_config) {
		k->grid[0] = k->grid[1] = k->grid[2] = 1;
		k->block[0] = 256;
		k->block[1] = k->block[2] = 1;
	} else if (strstr(name, "bwd")) {
		/* 128x1x1 blocks of 256x1x1, 32 registers, 1 KiB static + 2 KiB dynamic shared */
		k->grid[0] = 128;
		k->grid[1] = k->grid[2] = 1;
		k->block[0] = 256;
		k->block[1] = k->block[2] = 1;
		k->registers_per_thread = 32;
		k->static_shared_mem = 1024;
		k->dynamic_shared_mem = 2048;
	} else {
		/* 64x2x1 blocks of 128x1x1, 24 registers, no shared memory */
		k->grid[0] = 64;
		k->grid[1] = 2;
		k->grid[2] = 1;
		k->block[0] = 128;
		k->block[1] = k->block[2] = 1;
		k->registers_per_thread = 24;
	}
	gp_writer__commit(w);
}

int main(int argc, char **argv)
{
	unsigned long steps = 10, spp = 4, every = 1, s, i;
	struct gp_writer *cpu, *gpu;
	struct gp_rec_device *d;
	uint32_t corr = 1;
	const char *dir;
	int c;

	while ((c = getopt(argc, argv, "n:s:c:k:D:1xdilLSwu")) != -1) {
		if (c == 'D')
			depth = atoi(optarg);
		else if (c == 'i')
			shared_ids = 1;
		else if (c == 'L')
			losses = 1;
		else if (c == 'w')
			writer_thread = 1;
		else if (c == 'u')
			unwind_ends = 1;
		else if (c == 'l')
			loader_calls = 1;
		else if (c == '1')
			legacy_config = 1;
		else if (c == 'S')
			no_stacks = 1;
		else if (c == 'd')
			driver = 1;
		else if (c == 'x')
			overlap = 1;
		else if (c == 'c')
			chunk_size = (uint32_t)strtoul(optarg, NULL, 10);
		else if (c == 'k')
			every = strtoul(optarg, NULL, 10);
		else if (c == 'n')
			steps = strtoul(optarg, NULL, 10);
		else if (c == 's')
			spp = strtoul(optarg, NULL, 10);
		else
			return 2;
	}
	if (optind != argc - 1 || !steps || spp > 40 || depth < 0 || depth > MAX_DEPTH) {
		fprintf(stderr, "usage: gen_recording [-n STEPS] [-s SAMPLES_PER_STEP (<= 40)] [-k K] [-c CHUNK] [-D DEPTH (<= 100)] [-1] [-S] [-x] [-d] [-l [-i]] [-L] [-w] [-u] DIR\n");
		return 2;
	}
	dir = argv[optind];
	if (write_maps(dir)) {
		fprintf(stderr, "gen_recording: cannot write the symbol maps in '%s'\n", dir);
		return 1;
	}
	cpu = open_trace(dir, "cpu.trace", GP_PRODUCER_CPU_AGENT);
	gpu = open_trace(dir, "gpu-100.trace", GP_PRODUCER_INJECT);
	if (!cpu || !gpu) {
		fprintf(stderr, "gen_recording: cannot create the traces in '%s': %s\n", dir,
			strerror(errno));
		return 1;
	}
	proc_thread(cpu);
	proc_thread(gpu);
	d = gp_writer__reserve(gpu, GP_REC_DEVICE, sizeof(*d));
	d->device_id = 0;
	d->name_str = gp_writer__intern(gpu, "Synthetic GPU");
	d->sm_count = 132;
	gp_writer__commit(gpu);

	for (s = 0; s < steps; s++) {
		uint64_t t = T0 + s * STEP;
		struct gp_rec_memcpy *m;
		struct gp_rec_memset *ms;

		if (losses && !s) {
			dropped(cpu, t, GP_DROP_OFFCPU_MISSED, 2);
			dropped(cpu, t, GP_DROP_RINGBUF_SAMPLE, 1);
		}
		/* forward: the API call, its kernel 10 us later */
		launched(cpu, gpu, t + 9000, corr, F_LAUNCH, F_FORWARD);
		api(gpu, t + 10000, t + 15000, corr, "cudaLaunchKernel");
		kernel(gpu, t + 20000, 200000, corr++, "_Z10fwd_kernelPfi");
		/* backward, back to back with forward's kernel */
		launched(cpu, gpu, t + 16000, corr, F_LAUNCH, F_BACKWARD);
		api(gpu, t + 16500, t + 19000, corr, "cudaLaunchKernel");
		kernel(gpu, t + 220000, 300000, corr++, "_Z10bwd_kernelIfEvPT_i");
		/* a copy back */
		launched(cpu, gpu, t + 19500, corr, F_MEMCPY, F_BACKWARD);
		api(gpu, t + 20000, t + 21000, corr, "cudaMemcpyAsync");
		if (overlap)
			preempted(cpu, t + 18000, t + 20500);
		/* -1: as format 1.0 wrote them, without the node id 2.4 appended */
		m = gp_writer__reserve(gpu, GP_REC_MEMCPY,
				       legacy_config ? gp_rec_min_size(GP_REC_MEMCPY) : sizeof(*m));
		m->start = t + 520000;
		m->end = t + 570000;
		m->bytes = 1 << 20;
		m->correlation_id = corr++;
		m->pid = PID;
		m->stream_id = 7;
		m->copy_kind = 2; /* DtoH */
		gp_writer__commit(gpu);
		/* a memset whose launch stack was lost */
		api(gpu, t + 22000, t + 23000, corr, "cudaMemsetAsync");
		ms = gp_writer__reserve(gpu, GP_REC_MEMSET,
					legacy_config ? gp_rec_min_size(GP_REC_MEMSET) : sizeof(*ms));
		ms->start = t + 570000;
		ms->end = t + 580000;
		ms->bytes = 4096;
		ms->correlation_id = corr++;
		ms->pid = PID;
		ms->stream_id = 7;
		gp_writer__commit(gpu);
		if (s % 100 == 99)
			kernel(gpu, t + 600000, 5000, 0xfffffff0u, "_Z6orphanv"); /* no API record */

		for (i = 0; i < spp && every && s % every == 0; i++) {
			/* odd steps sample forward(): two stacks that differ only in their frames */
			sample(cpu, t + 600000 + i * SAMPLE_NS, TID_MAIN, s % 2 ? F_FORWARD : F_LOSS,
			       F_TRAIN_STEP);
			sample(cpu, t + 100000 + i * SAMPLE_NS, TID_LOADER, F_READ, F_LOAD_BATCH);
		}
		offcpu(cpu, t + 500000, t + 900000);
		if (writer_thread)
			writer_step(cpu, t);
		if (loader_calls) /* its own correlation ids, past the main thread's; or the next one */
			api_call_on(gpu, TID_LOADER, t + 450000, t + 451000,
				    shared_ids ? corr++ : 0x40000000u + (uint32_t)s, "cudaEventQuery",
				    GP_API_RUNTIME);
	}
	if (writer_thread)
		writer_short(cpu, T0 + steps * STEP - 100000);
	if (losses) {
		uint64_t end = T0 + steps * STEP;

		dropped(cpu, end, GP_DROP_OFFCPU_MISSED, 3);
		dropped(cpu, end, GP_DROP_RINGBUF_SAMPLE, 1);
		dropped(gpu, end, GP_DROP_CUPTI, 4);
		/* a mapping at an offset no segment of its file holds: frame pointers there */
		dropped_why(cpu, end, GP_DROP_UNWIND_CFI, 2, ENOEXEC);
	}
	if (gp_writer__close(cpu) || gp_writer__close(gpu)) {
		fprintf(stderr, "gen_recording: cannot write the traces: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
