/* SPDX-License-Identifier: Apache-2.0 */
/*
 * make_corpus.c - writes the fuzz seed corpus: small traces that between
 * them hold every record type, several chunks, unknown types, deep stacks,
 * a truncated file and a bit-flipped one; plus raw-*.bin, decompressed
 * chunk payloads for the harness's raw mode (see fuzz_reader.c).
 *
 *	make_corpus OUTDIR
 *
 * The output is deterministic (fixed pseudo-random seed, fixed timestamps,
 * and the host-dependent header fields - hostname, uname, start times - are
 * overwritten and the header checksum recomputed), so regenerating the
 * checked-in corpus only changes it when the format or writer changes.
 * Regenerate with `cmake --build BUILD --target fuzz_corpus`.
 * format1-every_type.trace in the checked-in corpus is every_type.trace as
 * the format-1 writer wrote it (before zero-byte packing), kept by hand so
 * the reader's format-1 path stays fuzzed; this program does not touch it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "gp_pack.h"
#include "gp_record.h"
#include "gp_util.h"
#include "gp_writer.h"

#define PID 4242u
#define T0 1000000000000ull /* 1000 s of CLOCK_MONOTONIC: plausible, fixed */

struct rng {
	uint64_t s;
};

static uint32_t rng_next(struct rng *r)
{
	/* xorshift64*: enough variety for seeds, same output everywhere */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return (uint32_t)((r->s * 2685821657736338717ull) >> 32);
}

static const char *const kernel_names[] = {
	"_Z9vectorAddPKfS0_Pfi",
	"_ZN7cutlass6KernelINS_4gemm6kernel4GemmIfEEEEvNT_6ParamsE",
	"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"
	"(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
	"_Z15reduce_sum_tileILi256EEvPKfPfi",
};

struct ctx {
	const char *dir;
	struct rng rng;
	int failed;
};

static struct gp_writer *open_trace(struct ctx *c, const char *name, uint16_t producer,
				    char *path, size_t pathlen)
{
	struct gp_writer_opts o = {
		.producer = producer,
		.pid = PID,
		.chunk_size = 4096,
		.level = 6,
		.producer_version = "gpuperf corpus",
		.truncate = 1,
	};
	struct gp_writer *w;

	snprintf(path, pathlen, "%s/%s", c->dir, name);
	w = gp_writer__open(path, &o);
	if (!w) {
		fprintf(stderr, "make_corpus: cannot create '%s': %s\n", path, strerror(errno));
		c->failed = 1;
	}
	return w;
}

/* Replace what depends on the host and the hour, then re-checksum. */
static int pin_header(const char *path)
{
	struct gp_file_header h;
	int fd, err = 0;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		err = -EIO;
		goto cleanup;
	}
	h.start_monotonic_ns = T0;
	h.start_realtime_ns = 1795305600000000000ull; /* 2026-11-22T00:00:00Z */
	h.ncpus = 8;
	memset(h.hostname, 0, sizeof(h.hostname));
	strcpy(h.hostname, "corpus-host");
	memset(h.kernel_release, 0, sizeof(h.kernel_release));
	strcpy(h.kernel_release, "6.1.0-corpus");
	memset(h.machine, 0, sizeof(h.machine));
	strcpy(h.machine, "x86_64");
	h.header_crc = (uint32_t)crc32(0, (const Bytef *)&h, offsetof(struct gp_file_header, header_crc));
	if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		err = -EIO;
cleanup:
	close(fd);
	return err;
}

/*
 * End the trace with a fixed-time GP_REC_END (gp_writer__close would stamp
 * the wall clock), or with none when `clean` is 0, like a killed producer.
 */
static void finish(struct ctx *c, struct gp_writer *w, const char *path, int clean, uint64_t ts)
{
	if (clean) {
		struct gp_rec_end *e = gp_writer__reserve(w, GP_REC_END, sizeof(*e));
		if (e) {
			e->ts = ts;
			e->records = gp_writer__records(w);
			gp_writer__commit(w);
		}
	}
	if (gp_writer__flush(w) < 0 || gp_writer__lost(w) != 0) {
		fprintf(stderr, "make_corpus: writing '%s' failed (%llu records lost)\n", path,
			(unsigned long long)gp_writer__lost(w));
		c->failed = 1;
	}
	gp_writer__abandon(w);
	if (pin_header(path) < 0) {
		fprintf(stderr, "make_corpus: cannot rewrite the header of '%s'\n", path);
		c->failed = 1;
	}
}

static void put_clock_pair(struct gp_writer *w, uint64_t ts, uint32_t source)
{
	struct gp_rec_clock_pair *p = gp_writer__reserve(w, GP_REC_CLOCK_PAIR, sizeof(*p));

	if (!p)
		return;
	p->producer_ts = ts + 17;
	p->monotonic_ns = ts;
	p->realtime_ns = ts + 1795305600000000000ull - T0;
	p->source = source;
	gp_writer__commit(w);
}

static void put_process(struct gp_writer *w, uint64_t ts, uint32_t pid, uint32_t event,
			const char *comm, const char *exe)
{
	struct gp_rec_process *p = gp_writer__reserve(w, GP_REC_PROCESS, sizeof(*p));

	if (!p)
		return;
	p->ts = ts;
	p->pid = pid;
	p->ppid = 1;
	p->event = event;
	p->exit_code = event == GP_PROC_EXIT ? 256 : 0;
	p->comm_str = gp_writer__intern(w, comm);
	p->exe_str = gp_writer__intern(w, exe);
	gp_writer__commit(w);
}

static void put_thread(struct gp_writer *w, uint64_t ts, uint32_t tid, uint32_t event,
		       const char *name)
{
	struct gp_rec_thread *t = gp_writer__reserve(w, GP_REC_THREAD, sizeof(*t));

	if (!t)
		return;
	t->ts = ts;
	t->pid = PID;
	t->tid = tid;
	t->event = event;
	t->name_str = gp_writer__intern(w, name);
	gp_writer__commit(w);
}

static void put_device(struct gp_writer *w, uint32_t id)
{
	struct gp_rec_device *d = gp_writer__reserve(w, GP_REC_DEVICE, sizeof(*d));

	if (!d)
		return;
	d->global_memory_bytes = 80ull << 30;
	d->device_id = id;
	d->name_str = gp_writer__intern(w, "NVIDIA H100 80GB HBM3");
	d->cc_major = 9;
	d->cc_minor = 0;
	d->sm_count = 132;
	d->pci_bus_id = 0x18 + id;
	d->pci_device_id = 0;
	for (unsigned i = 0; i < sizeof(d->uuid); i++)
		d->uuid[i] = (uint8_t)(0xa0 + i + id);
	gp_writer__commit(w);
}

static void put_dropped(struct gp_writer *w, uint64_t ts, uint32_t source, uint64_t count)
{
	struct gp_rec_dropped *d = gp_writer__reserve(w, GP_REC_DROPPED, sizeof(*d));

	if (!d)
		return;
	d->ts = ts;
	d->count = count;
	d->source = source;
	d->context_id = source == GP_DROP_CUPTI ? 1 : 0;
	gp_writer__commit(w);
}

/* A launch hit naming one of four stacks by id (format 2.1), defined in its chunk. */
static void put_launch_id(struct gp_writer *w, uint64_t ts, uint32_t tid, unsigned which)
{
	struct gp_rec_launch_site_id *l = gp_writer__reserve(w, GP_REC_LAUNCH_SITE_ID, sizeof(*l));
	uint64_t ips[12];

	if (!l)
		return;
	for (unsigned i = 0; i < 3 + 3 * which; i++)
		ips[i] = 0x555555560000ull + 0x100ull * which + 8 * i;
	l->ts = ts;
	l->pid = PID;
	l->tid = tid;
	l->probe_str = gp_writer__intern(w, "cudaLaunchKernel");
	l->stack_id = gp_writer__intern_stack(w, ips, (uint16_t)(3 + 3 * which), 0);
	gp_writer__commit(w);
}

static void put_stacked(struct gp_writer *w, struct rng *rng, uint16_t type, uint64_t ts,
			uint32_t tid, unsigned nu, unsigned nk)
{
	uint32_t fixed = type == GP_REC_CPU_SAMPLE ? sizeof(struct gp_rec_cpu_sample) :
			 type == GP_REC_OFFCPU	   ? sizeof(struct gp_rec_offcpu) :
						     sizeof(struct gp_rec_launch_site);
	struct gp_rec_hdr *h = gp_writer__reserve(w, type, fixed + 8u * (nu + nk));
	uint64_t *ips;

	if (!h)
		return;
	ips = (uint64_t *)(void *)((char *)h + fixed);
	for (unsigned i = 0; i < nu; i++)
		ips[i] = 0x555555554000ull + 0x1000ull * (i % 7) + (rng_next(rng) & 0xfff);
	for (unsigned i = 0; i < nk; i++)
		ips[nu + i] = 0xffffffff81000000ull + (rng_next(rng) & 0xfffff);
	if (type == GP_REC_CPU_SAMPLE) {
		struct gp_rec_cpu_sample *s = (void *)h;
		s->ts = ts;
		s->weight_ns = 1000000000ull / 99;
		s->pid = PID;
		s->tid = tid;
		s->cpu = tid & 7;
		s->nr_user = (uint16_t)nu;
		s->nr_kernel = (uint16_t)nk;
	} else if (type == GP_REC_OFFCPU) {
		struct gp_rec_offcpu *o = (void *)h;
		o->start = ts;
		o->end = ts + 50000 + (rng_next(rng) & 0xffff);
		o->pid = PID;
		o->tid = tid;
		o->waker_pid = PID;
		o->waker_tid = PID;
		o->cpu = tid & 7;
		o->state = 1; /* TASK_INTERRUPTIBLE */
		o->nr_user = (uint16_t)nu;
		o->nr_kernel = (uint16_t)nk;
	} else {
		struct gp_rec_launch_site *l = (void *)h;
		l->ts = ts;
		l->pid = PID;
		l->tid = tid;
		l->probe_str = gp_writer__intern(w, (ts / 1000) & 1 ? "cudaLaunchKernel" :
								      "__cudaLaunchKernel");
		l->nr_user = (uint16_t)nu;
		l->nr_kernel = 0;
	}
	gp_writer__commit(w);
}

/* Launches as the injection library writes them: API, then its GPU work. */
static uint64_t put_launches(struct gp_writer *w, struct rng *rng, uint64_t ts, uint32_t *corr,
			     unsigned n, int every_kind)
{
	uint64_t gpu = ts + 20000;

	for (unsigned i = 0; i < n; i++) {
		unsigned what = every_kind ? i % 8 : rng_next(rng) % 8;
		struct gp_rec_api *a = gp_writer__reserve(w, GP_REC_API, sizeof(*a));

		if (!a)
			return ts;
		(*corr)++;
		a->start = ts;
		a->end = ts + 3000 + (rng_next(rng) & 0x3ff);
		a->correlation_id = *corr;
		a->pid = PID;
		a->tid = PID + (i & 1);
		a->domain = i % 5 == 4 ? GP_API_DRIVER : GP_API_RUNTIME;
		a->cbid = what < 5 ? 211 : what == 5 ? 51 : what == 6 ? 54 : 165;
		a->name_str = gp_writer__intern(w, what < 5 ? "cudaLaunchKernel_v7000" :
						   what == 5 ? "cudaMemcpyAsync_v3020" :
						   what == 6 ? "cudaMemsetAsync_v3020" :
							       "cudaStreamSynchronize_v3020");
		a->return_value = i == 7 ? 700 : 0; /* one failed call */
		ts = a->end + 500 + (rng_next(rng) & 0x7ff);
		gp_writer__commit(w);

		if (gpu < ts)
			gpu = ts + 4000;
		if (what < 5) {
			struct gp_rec_kernel *k = gp_writer__reserve(w, GP_REC_KERNEL, sizeof(*k));
			unsigned kn = rng_next(rng) % ARRAY_SIZE(kernel_names);

			if (!k)
				return ts;
			k->hdr.flags = i % 9 == 8 ? GP_KERNEL_IN_GRAPH : i % 13 == 12 ? GP_KERNEL_COOPERATIVE : 0;
			k->start = gpu;
			k->end = gpu + 2000 + 1000 * kn + (rng_next(rng) & 0x1ff);
			k->graph_node_id = k->hdr.flags & GP_KERNEL_IN_GRAPH ? 0x100000000ull + i : 0;
			k->correlation_id = *corr;
			k->pid = PID;
			k->name_str = gp_writer__intern(w, kernel_names[kn]);
			k->device_id = i & 1;
			k->context_id = 1 + (i & 1);
			k->stream_id = 7 + (i % 3);
			k->graph_id = k->hdr.flags & GP_KERNEL_IN_GRAPH ? 3 : 0;
			k->grid[0] = 1024u << kn;
			k->grid[1] = 1;
			k->grid[2] = 1;
			k->block[0] = 256;
			k->block[1] = kn == 1 ? 2 : 1;
			k->block[2] = 1;
			k->static_shared_mem = kn == 1 ? 49152 : 0;
			k->dynamic_shared_mem = kn == 3 ? 1024 : 0;
			k->registers_per_thread = 32 + 8 * kn;
			gpu = k->end + 800;
			gp_writer__commit(w);
		} else if (what == 5) {
			struct gp_rec_memcpy *m = gp_writer__reserve(w, GP_REC_MEMCPY, sizeof(*m));

			if (!m)
				return ts;
			m->start = gpu;
			m->end = gpu + 9000 + (rng_next(rng) & 0xfff);
			m->bytes = 1ull << (12 + i % 12);
			m->correlation_id = *corr;
			m->pid = PID;
			m->device_id = 0;
			m->context_id = 1;
			m->stream_id = 7;
			m->copy_kind = (uint8_t)(1 + i % 2); /* HtoD, DtoH */
			m->src_kind = 2;
			m->dst_kind = 3;
			m->is_async = 1;
			gpu = m->end + 600;
			gp_writer__commit(w);
		} else if (what == 6) {
			struct gp_rec_memset *m = gp_writer__reserve(w, GP_REC_MEMSET, sizeof(*m));

			if (!m)
				return ts;
			m->start = gpu;
			m->end = gpu + 1500;
			m->bytes = 1u << 20;
			m->correlation_id = *corr;
			m->pid = PID;
			m->context_id = 1;
			m->stream_id = 8;
			m->value = 0;
			m->memory_kind = 3;
			m->is_async = 1;
			gpu = m->end + 300;
			gp_writer__commit(w);
		} else {
			struct gp_rec_sync *s = gp_writer__reserve(w, GP_REC_SYNC, sizeof(*s));

			if (!s)
				return ts;
			s->start = ts - 2000;
			s->end = gpu;
			s->correlation_id = *corr;
			s->pid = PID;
			s->sync_type = 3; /* stream synchronize */
			s->context_id = 1;
			s->stream_id = 7;
			s->event_id = 0xffffffffu;
			ts = gpu + 1000;
			gp_writer__commit(w);
		}
	}
	return ts;
}

/* What libgpuperf_inject.so writes for a short run: several chunks. */
static void seed_gpu(struct ctx *c, const char *name, unsigned nlaunch, int clean)
{
	char path[4096];
	struct gp_writer *w = open_trace(c, name, GP_PRODUCER_INJECT, path, sizeof(path));
	uint32_t corr = 0;
	uint64_t ts = T0;

	if (!w)
		return;
	put_clock_pair(w, ts, GP_CLOCKSRC_CUPTI);
	put_process(w, ts, PID, GP_PROC_INFO, "vector_add", "/opt/app/vector_add");
	put_thread(w, ts, PID, GP_PROC_INFO, "vector_add");
	put_thread(w, ts + 10, PID + 1, GP_PROC_INFO, "cuda-EvtHandlr");
	put_device(w, 0);
	put_device(w, 1);
	for (unsigned done = 0; done < nlaunch; done += 20) {
		ts = put_launches(w, &c->rng, ts, &corr, 20, 0);
		/* Buffers complete in batches; each batch becomes a chunk. */
		gp_writer__flush(w);
		put_clock_pair(w, ts, GP_CLOCKSRC_CUPTI);
	}
	put_dropped(w, ts, GP_DROP_CUPTI, 12);
	put_dropped(w, ts, GP_DROP_INJECT_BUFFERS, 3);
	finish(c, w, path, clean, ts + 1000);
}

/* What the eBPF agent writes: process tree, modules, stacks. */
static void seed_cpu(struct ctx *c)
{
	char path[4096];
	struct gp_writer *w = open_trace(c, "cpu.trace", GP_PRODUCER_CPU_AGENT, path, sizeof(path));
	uint64_t ts = T0;

	if (!w)
		return;
	put_clock_pair(w, ts, GP_CLOCKSRC_BPF);
	put_process(w, ts, PID, GP_PROC_FORK, "gpuperf", NULL);
	put_process(w, ts + 100, PID, GP_PROC_EXEC, "vector_add", "/opt/app/vector_add");
	for (unsigned i = 0; i < 3; i++) {
		static const char *const paths[] = { "/opt/app/vector_add",
						     "/usr/lib/x86_64-linux-gnu/libc.so.6",
						     "/usr/lib/x86_64-linux-gnu/libcuda.so.1" };
		struct gp_rec_module *m = gp_writer__reserve(w, GP_REC_MODULE, sizeof(*m));

		if (!m)
			break;
		m->ts = ts + 200;
		m->start = 0x555555554000ull + 0x10000000ull * i;
		m->end = m->start + 0x200000;
		m->pgoff = 0x1000;
		m->inode = 131072 + i;
		m->pid = PID;
		m->path_str = gp_writer__intern(w, paths[i]);
		m->dev = (8u << 8) | 1u;
		m->prot = 5; /* PROT_READ | PROT_EXEC */
		m->build_id_size = i == 2 ? 0 : 20;
		for (unsigned b = 0; b < m->build_id_size; b++)
			m->build_id[b] = (uint8_t)(rng_next(&c->rng));
		gp_writer__commit(w);
	}
	put_thread(w, ts + 300, PID + 1, GP_PROC_FORK, "cuda-EvtHandlr");
	for (unsigned i = 0; i < 60; i++) {
		ts += 1000000000ull / 99;
		put_stacked(w, &c->rng, GP_REC_CPU_SAMPLE, ts, PID + (i % 3 == 0), 3 + i % 20,
			    i % 4 ? 0 : 5);
		if (i % 5 == 0)
			put_stacked(w, &c->rng, GP_REC_OFFCPU, ts + 7000, PID, 6, 8);
		if (i % 3 == 1)
			put_stacked(w, &c->rng, GP_REC_LAUNCH_SITE, ts + 9000, PID, 9, 0);
		if (i % 3 == 2)
			put_launch_id(w, ts + 9500, PID, i % 4);
		if (i == 30)
			gp_writer__flush(w);
	}
	/* The deepest stacks the format allows, and an empty one. */
	put_stacked(w, &c->rng, GP_REC_CPU_SAMPLE, ts + 1, PID, GP_STACK_MAX_DEPTH, GP_STACK_MAX_DEPTH);
	put_stacked(w, &c->rng, GP_REC_OFFCPU, ts + 2, PID, 0, 0);
	put_dropped(w, ts, GP_DROP_RINGBUF_SAMPLE, 2);
	put_dropped(w, ts, GP_DROP_STACK, 1);
	put_thread(w, ts + 10, PID + 1, GP_PROC_EXIT, "cuda-EvtHandlr");
	put_process(w, ts + 20, PID, GP_PROC_EXIT, "vector_add", NULL);
	finish(c, w, path, 1, ts + 30);
}

/*
 * One chunk holding one record of every type, the longest string, a record
 * of a type from a future minor version (readers skip it by size) and a
 * longer-than-known kernel record (fields appended by a future minor).
 */
static void seed_every_type(struct ctx *c)
{
	char path[4096];
	struct gp_writer *w = open_trace(c, "every_type.trace", GP_PRODUCER_SYNTH, path, sizeof(path));
	uint32_t corr = 100;
	char *longstr;
	uint64_t ts;

	if (!w)
		return;
	put_clock_pair(w, T0, GP_CLOCKSRC_CUPTI);
	put_process(w, T0, PID, GP_PROC_INFO, "every", "/bin/every");
	put_thread(w, T0, PID, GP_PROC_INFO, "every");
	put_device(w, 0);
	ts = put_launches(w, &c->rng, T0, &corr, 16, 1);
	put_stacked(w, &c->rng, GP_REC_CPU_SAMPLE, ts, PID, 4, 2);
	put_stacked(w, &c->rng, GP_REC_OFFCPU, ts, PID, 4, 2);
	put_stacked(w, &c->rng, GP_REC_LAUNCH_SITE, ts, PID, 4, 0);
	put_dropped(w, ts, GP_DROP_WRITER, 1);

	longstr = malloc(GP_STR_MAX_LEN + 1);
	if (longstr) {
		struct gp_rec_thread *t = gp_writer__reserve(w, GP_REC_THREAD, sizeof(*t));

		memset(longstr, 'x', GP_STR_MAX_LEN);
		longstr[GP_STR_MAX_LEN] = '\0';
		if (t) {
			t->ts = ts;
			t->pid = PID;
			t->tid = PID + 9;
			t->name_str = gp_writer__intern(w, longstr);
			gp_writer__commit(w);
		}
		free(longstr);
	}
	{
		/* A type this build does not know: 40 bytes of payload. */
		uint8_t *u = gp_writer__reserve(w, GP_REC_TYPE_COUNT + 3, 48);
		if (u) {
			memset(u + sizeof(struct gp_rec_hdr), 0x5a, 40);
			gp_writer__commit(w);
		}
	}
	{
		/* A kernel record from a newer minor: 16 bytes appended. */
		struct gp_rec_kernel *k = gp_writer__reserve(w, GP_REC_KERNEL, sizeof(*k) + 16);
		if (k) {
			k->start = ts;
			k->end = ts + 5000;
			k->correlation_id = ++corr;
			k->pid = PID;
			k->name_str = gp_writer__intern(w, kernel_names[0]);
			k->grid[0] = k->grid[1] = k->grid[2] = 1;
			k->block[0] = k->block[1] = k->block[2] = 1;
			memset(k + 1, 0xa5, 16);
			gp_writer__commit(w);
		}
	}
	finish(c, w, path, 1, ts + 10000);
}

static int read_file(const char *path, uint8_t **buf, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long n;
	int err = 0;

	*buf = NULL;
	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		err = -EIO;
		goto cleanup;
	}
	*buf = malloc((size_t)n + 1);
	if (!*buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	*size = (size_t)n;
	if (fread(*buf, 1, *size, f) != *size)
		err = -EIO;
cleanup:
	fclose(f);
	return err;
}

static void write_file(struct ctx *c, const char *name, const uint8_t *buf, size_t size)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "make_corpus: cannot write '%s'\n", path);
		c->failed = 1;
	}
}

/* Damaged copies of gpu.trace: cut short, and one bit flipped. */
static void seed_damaged(struct ctx *c)
{
	char path[4096];
	uint8_t *buf = NULL;
	size_t size = 0;
	struct gp_chunk_header ch;
	size_t second;

	snprintf(path, sizeof(path), "%s/gpu.trace", c->dir);
	if (read_file(path, &buf, &size) < 0 || size < sizeof(struct gp_file_header) + 2 * sizeof(ch)) {
		fprintf(stderr, "make_corpus: cannot read back '%s'\n", path);
		free(buf);
		c->failed = 1;
		return;
	}
	/* Truncated in the middle of a chunk's payload, as after SIGKILL. */
	write_file(c, "gpu_truncated.trace", buf, size * 3 / 5);

	/* One bit flipped in the second chunk's compressed payload. */
	memcpy(&ch, buf + sizeof(struct gp_file_header), sizeof(ch));
	second = sizeof(struct gp_file_header) + sizeof(ch) + ch.csize;
	if (second + sizeof(ch) + 8 < size) {
		memcpy(&ch, buf + second, sizeof(ch));
		buf[second + sizeof(ch) + ch.csize / 2] ^= 0x10;
	} else {
		buf[size / 2] ^= 0x10;
	}
	write_file(c, "gpu_bitflip.trace", buf, size);
	free(buf);
}

/* A format-2 chunk payload (raw deflate of packed records) back to its records: 0 or -1. */
static int inflate_unpack(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
	size_t cap = out_len + out_len / 8;
	uint8_t *pk = malloc(cap ? cap : 1);
	z_stream z;
	int ok = 0;

	memset(&z, 0, sizeof(z));
	if (!pk || inflateInit2(&z, -MAX_WBITS) != Z_OK) {
		free(pk);
		return -1;
	}
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)in_len;
	z.next_out = pk;
	z.avail_out = (uInt)cap;
	if (inflate(&z, Z_FINISH) == Z_STREAM_END)
		ok = gp_unpack(pk, cap - z.avail_out, out, out_len) == 0;
	inflateEnd(&z);
	free(pk);
	return ok ? 0 : -1;
}

/*
 * Seeds for the harness's raw mode: the decompressed payload of chunk
 * `nth` of trace `from` (delta-coded records, as the reader sees them after
 * inflate).
 */
static void seed_raw(struct ctx *c, const char *from, unsigned nth, const char *name)
{
	char path[4096];
	uint8_t *buf = NULL, *raw = NULL;
	size_t size = 0, off = sizeof(struct gp_file_header);
	struct gp_chunk_header ch;
	size_t rlen;

	snprintf(path, sizeof(path), "%s/%s", c->dir, from);
	if (read_file(path, &buf, &size) < 0)
		goto fail;
	for (;;) {
		if (size - off < sizeof(ch))
			goto fail;
		memcpy(&ch, buf + off, sizeof(ch));
		if (ch.csize > size - off - sizeof(ch))
			goto fail;
		if (nth-- == 0)
			break;
		off += sizeof(ch) + ch.csize;
	}
	raw = malloc(ch.rsize ? ch.rsize : 1);
	rlen = ch.rsize;
	if (!raw || inflate_unpack(buf + off + sizeof(ch), ch.csize, raw, rlen))
		goto fail;
	write_file(c, name, raw, rlen);
	free(raw);
	free(buf);
	return;
fail:
	fprintf(stderr, "make_corpus: cannot take chunk payload from '%s'\n", path);
	c->failed = 1;
	free(raw);
	free(buf);
}

int main(int argc, char **argv)
{
	struct ctx c = { .rng = { 0x9e3779b97f4a7c15ull } };
	char path[4096];
	struct gp_writer *w;

	if (argc != 2) {
		fprintf(stderr, "usage: make_corpus OUTDIR\n");
		return 2;
	}
	c.dir = argv[1];
	if (mkdir(c.dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "make_corpus: cannot create '%s': %s\n", c.dir, strerror(errno));
		return 1;
	}
	seed_gpu(&c, "gpu.trace", 100, 1);
	seed_gpu(&c, "gpu_killed.trace", 40, 0); /* complete chunks, no GP_REC_END */
	seed_cpu(&c);
	seed_every_type(&c);
	/* Header and GP_REC_END only: a producer that saw nothing. */
	w = open_trace(&c, "empty.trace", GP_PRODUCER_INJECT, path, sizeof(path));
	if (w)
		finish(&c, w, path, 1, T0);
	/* Header only: killed before the first flush. */
	w = open_trace(&c, "header_only.trace", GP_PRODUCER_CPU_AGENT, path, sizeof(path));
	if (w)
		finish(&c, w, path, 0, T0);
	seed_damaged(&c);
	seed_raw(&c, "gpu.trace", 1, "raw-gpu.bin");
	seed_raw(&c, "cpu.trace", 0, "raw-cpu.bin");
	seed_raw(&c, "every_type.trace", 0, "raw-every_type.bin");
	if (c.failed)
		return 1;
	printf("make_corpus: wrote seeds to %s\n", c.dir);
	return 0;
}
