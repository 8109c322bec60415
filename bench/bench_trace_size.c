/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_trace_size.c - bytes on disk per record and write throughput of the
 * trace writer on a realistic synthetic GPU trace.
 *
 *	bench_trace_size [-n LAUNCHES] [-r REPEAT] [-d DIR] [-s SEED] [-A] [-L] [-c]
 *
 * How it works: a workload of LAUNCHES kernel launches is generated up
 * front (so generation is not timed) the way libgpuperf_inject.so sees one:
 * 20 real-world mangled kernel names drawn zipf-like, each with its own
 * launch configuration and a duration of a few to a few hundred us with ns
 * noise, on 4 streams over 2 devices; one cudaLaunchKernel API record per
 * launch from 2 host threads, correlation ids increasing (mostly by 1), and
 * records ordered as CUPTI delivers them (by completion time, so streams
 * interleave). Each scenario writes it to a file in DIR and reports file
 * bytes per record, the ratio to the raw struct size, and records/s as a
 * ratio against a baseline measured in the same run: plain write() of the
 * same raw structs in 256 KiB batches (the writer's chunk size), no
 * compression, no delta coding. Then, unless -A, each field group of the
 * kernel record is zeroed in turn to show what it costs after compression.
 * "launch ord" writes the kernels in correlation-id order instead of
 * completion order, to show what stream interleaving costs the delta coder;
 * -L sweeps the zlib level.
 *
 * -c exits 1 when a kernel record costs more than 16 bytes on disk (the
 * target) in the kernel-only trace at the default level.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gp_record.h"
#include "gp_util.h"
#include "gp_writer.h"

#define TARGET_KERNEL_BYTES 16.0
#define BASELINE_BATCH (256u << 10)
#define PID 31337u

struct rng {
	uint64_t s;
};

static uint64_t rng_u64(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 2685821657736338717ull;
}

/* Uniform in [0, 1). */
static double rng_unit(struct rng *r)
{
	return (double)(rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Roughly normal, mean 0, sd 1 (Irwin-Hall of 4). */
static double rng_gauss(struct rng *r)
{
	return (rng_unit(r) + rng_unit(r) + rng_unit(r) + rng_unit(r) - 2.0) * 1.7320508;
}

/*
 * Names as CUPTI reports them, from PyTorch, cuBLAS, CUTLASS, cuDNN, NCCL
 * and hand-written kernels, with a typical launch shape and duration.
 */
struct kernel_kind {
	const char *name;
	uint32_t grid[3], block[3];
	uint32_t regs, static_smem, dynamic_smem;
	uint32_t dur_ns; /* typical duration */
};

static const struct kernel_kind kinds[] = {
	{ "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEENS_6detail5ArrayIPcLi3EEEEEviT0_T1_",
	  { 2048, 1, 1 }, { 128, 1, 1 }, 26, 0, 0, 3100 },
	{ "ampere_sgemm_128x64_tn", { 16, 32, 1 }, { 128, 1, 1 }, 122, 0, 33280, 41000 },
	{ "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_",
	  { 1024, 1, 1 }, { 128, 1, 1 }, 16, 0, 0, 2200 },
	{ "_Z9vectorAddPKfS0_Pfi", { 4096, 1, 1 }, { 256, 1, 1 }, 16, 0, 0, 4800 },
	{ "_ZN7cutlass6KernelINS_4gemm6kernel4GemmINS1_11threadblock12MmaPipelinedINS1_9GemmShapeILi128ELi128ELi8EEEfNS_6layout8RowMajorEEEEEEEvNT_6ParamsE",
	  { 8, 8, 1 }, { 256, 1, 1 }, 168, 32768, 0, 118000 },
	{ "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_functorIfffEclERNS_14TensorIteratorEEUlffE_EEjfLi4EEEEEvT1_",
	  { 160, 1, 1 }, { 32, 16, 1 }, 32, 0, 16, 7600 },
	{ "_ZN2at6native43_GLOBAL__N__softmax_warp_forwardIfffLi10ELb0ELb0EEEvPT0_PKT_iiiPKbib",
	  { 512, 1, 1 }, { 32, 4, 1 }, 40, 0, 0, 12400 },
	{ "_Z20layer_norm_fwd_kernelIfLi256EEvPKfS1_S1_Pfiif", { 1024, 1, 1 }, { 256, 1, 1 }, 38, 2048, 0, 9200 },
	{ "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
	  { 32, 24, 1 }, { 128, 1, 1 }, 230, 0, 81920, 64000 },
	{ "_ZN8internal5gemvx6kernelIiiffffLb0ELb1ELb1ELb0ELi7ELb0E16cublasGemvParamsI16cublasGemvTensorIKfES5_fEEENSt9enable_ifIXntT5_EvE4typeET11_",
	  { 64, 1, 1 }, { 128, 1, 1 }, 56, 1024, 0, 5400 },
	{ "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_13BUnaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
	  { 2048, 1, 1 }, { 128, 1, 1 }, 20, 0, 0, 3600 },
	{ "_Z17flash_fwd_kernelILi128ELi64ELi4ELb0ELb1EEv18Flash_fwd_params", { 16, 32, 4 }, { 128, 1, 1 }, 255, 0, 49152, 186000 },
	{ "ncclDevKernel_AllReduce_Sum_f32_RING_LL", { 16, 1, 1 }, { 640, 1, 1 }, 96, 4096, 0, 212000 },
	{ "_ZN3cub18DeviceReduceKernelINS_18DeviceReducePolicyIfjN6thrust4plusIfEEE9Policy600EPfS7_jS5_EEvT0_T1_T2_NS_13GridEvenShareIS9_EET3_",
	  { 320, 1, 1 }, { 256, 1, 1 }, 30, 5120, 0, 6100 },
	{ "_Z14transpose_tileILi32ELi8EEvPfPKfii", { 64, 64, 1 }, { 32, 8, 1 }, 12, 4224, 0, 8300 },
	{ "_ZN2at6native27unrolled_elementwise_kernelINS0_21copy_device_to_deviceEEEviT_", { 4096, 1, 1 }, { 128, 1, 1 }, 22, 0, 0, 5100 },
	{ "cudnn::engines_precompiled::nchwToNhwcKernel", { 256, 2, 1 }, { 256, 1, 1 }, 28, 0, 0, 11800 },
	{ "_Z11conv2d_im2colILi3EEvPKfPfiiiii", { 1296, 1, 1 }, { 256, 1, 1 }, 48, 0, 0, 22500 },
	{ "_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_16gpu_index_kernelIZNS0_17index_kernel_implINS0_10OpaqueTypeILi4EEEEEvRNS_18TensorIteratorBaseEN3c108ArrayRefIlEESB_EUlPcSC_lE_EEvS8_SB_SB_RKT_EUliE_EEviT1_",
	  { 96, 1, 1 }, { 128, 1, 1 }, 34, 0, 0, 4300 },
	{ "_Z16adam_update_fp32PfS_S_PKfffffi", { 6144, 1, 1 }, { 512, 1, 1 }, 24, 0, 0, 31000 },
};
#define NKINDS ARRAY_SIZE(kinds)

static const uint32_t streams[4] = { 7, 13, 14, 15 }; /* device = index / 2 */

/* One event in delivery order: an API record or a kernel record. */
struct event {
	uint64_t at;  /* when CUPTI would have it: API end or kernel end */
	uint32_t idx; /* launch index */
	uint32_t is_kernel;
};

struct workload {
	size_t n;
	struct gp_rec_api *api;
	struct gp_rec_kernel *kern;
	uint32_t *kind; /* kernel name index per launch */
	struct event *ev; /* 2n events, delivery order */
	uint32_t *kern_order; /* kernel indices in delivery order */
};

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return (int)x->is_kernel - (int)y->is_kernel;
}

static int workload_init(struct workload *wl, size_t n, uint64_t seed)
{
	double cdf[NKINDS], sum = 0;
	uint64_t cpu[2] = { 5000000000000ull, 5000000000000ull + 1777 };
	uint64_t stream_free[4] = { 0 };
	uint32_t corr = 1000;
	struct rng rng = { seed ? seed : 1 };
	size_t i, nk = 0;

	memset(wl, 0, sizeof(*wl));
	wl->n = n;
	wl->api = calloc(n, sizeof(*wl->api));
	wl->kern = calloc(n, sizeof(*wl->kern));
	wl->kind = calloc(n, sizeof(*wl->kind));
	wl->ev = calloc(2 * n, sizeof(*wl->ev));
	wl->kern_order = calloc(n, sizeof(*wl->kern_order));
	if (!wl->api || !wl->kern || !wl->kind || !wl->ev || !wl->kern_order)
		return -ENOMEM;

	/* zipf, s = 1.1: the top name is ~25% of launches, the last ~1%. */
	for (i = 0; i < NKINDS; i++) {
		double w = 1.0;
		for (size_t j = 0; j < i; j++)
			w *= 1.0 + 1.1 / (double)(j + 1); /* ~ (i+1)^1.1, no libm */
		sum += 1.0 / w;
		cdf[i] = sum;
	}
	for (i = 0; i < NKINDS; i++)
		cdf[i] /= sum;

	for (i = 0; i < n; i++) {
		struct gp_rec_api *a = &wl->api[i];
		struct gp_rec_kernel *k = &wl->kern[i];
		unsigned t = rng_unit(&rng) < 0.8 ? 0 : 1; /* main thread launches most */
		double u = rng_unit(&rng);
		unsigned kn = 0, s;
		const struct kernel_kind *kk;
		double dur;
		uint64_t ready;

		while (kn + 1 < NKINDS && u > cdf[kn])
			kn++;
		kk = &kinds[kn];
		wl->kind[i] = kn;
		/* Each name mostly runs on "its" stream, sometimes elsewhere. */
		s = rng_unit(&rng) < 0.85 ? (kn * 7u + t) % 4u : (unsigned)(rng_u64(&rng) % 4u);

		/* Host side: some CPU work between launches, then the API call. */
		cpu[t] += 1500 + (uint64_t)(rng_unit(&rng) * 6000.0);
		if (rng_unit(&rng) < 0.01) /* the host does something else now and then */
			cpu[t] += 200000 + (uint64_t)(rng_unit(&rng) * 2000000.0);
		/* Some correlation ids go to calls whose records we do not write. */
		corr += rng_unit(&rng) < 0.9 ? 1 : 2 + (uint32_t)(rng_u64(&rng) % 3);
		a->hdr.type = GP_REC_API;
		a->hdr.size = sizeof(*a);
		a->start = cpu[t];
		a->end = a->start + 2400 + (uint64_t)(rng_unit(&rng) * 3500.0);
		a->correlation_id = corr;
		a->pid = PID;
		a->tid = PID + t * 3;
		a->domain = GP_API_RUNTIME;
		a->cbid = 211; /* cudaLaunchKernel_v7000 */
		a->name_str = 0; /* interned at write time */
		cpu[t] = a->end;

		/* GPU side: queued on its stream after launch latency. */
		ready = a->start + 3000 + (uint64_t)(rng_unit(&rng) * 2000.0);
		if (stream_free[s] > ready)
			ready = stream_free[s] + 900 + (uint64_t)(rng_unit(&rng) * 400.0);
		dur = kk->dur_ns * (1.0 + 0.04 * rng_gauss(&rng)) + rng_unit(&rng) * 64.0;
		if (dur < 1000.0)
			dur = 1000.0;
		k->hdr.type = GP_REC_KERNEL;
		k->hdr.size = sizeof(*k);
		k->start = ready;
		k->end = ready + (uint64_t)dur;
		stream_free[s] = k->end;
		k->correlation_id = corr;
		k->pid = PID;
		k->name_str = 0;
		k->device_id = s / 2;
		k->context_id = 1 + s / 2;
		k->stream_id = streams[s];
		memcpy(k->grid, kk->grid, sizeof(k->grid));
		memcpy(k->block, kk->block, sizeof(k->block));
		k->static_shared_mem = kk->static_smem;
		k->dynamic_shared_mem = kk->dynamic_smem;
		k->registers_per_thread = kk->regs;

		wl->ev[2 * i] = (struct event){ a->end, (uint32_t)i, 0 };
		wl->ev[2 * i + 1] = (struct event){ k->end, (uint32_t)i, 1 };
	}
	qsort(wl->ev, 2 * n, sizeof(*wl->ev), cmp_event);
	for (i = 0; i < 2 * n; i++)
		if (wl->ev[i].is_kernel)
			wl->kern_order[nk++] = wl->ev[i].idx;
	return 0;
}

static void workload_free(struct workload *wl)
{
	free(wl->api);
	free(wl->kern);
	free(wl->kind);
	free(wl->ev);
	free(wl->kern_order);
}

/* Which kernel fields a scenario keeps; a cleared bit zeroes that group. */
enum {
	F_START = 1u << 0,	 /* start (end keeps the duration) */
	F_DURATION = 1u << 1,	 /* end - start */
	F_CORR = 1u << 2,
	F_NAME = 1u << 3,
	F_STREAM = 1u << 4,	 /* device, context, stream */
	F_PID = 1u << 5,
	F_GRID_BLOCK = 1u << 6,
	F_SMEM_REGS = 1u << 7,
	F_ALL = (1u << 8) - 1,
};

static const struct {
	unsigned bit;
	const char *name;
} field_groups[] = {
	{ F_START, "start" },
	{ F_DURATION, "end (duration)" },
	{ F_CORR, "correlation_id" },
	{ F_NAME, "name_str" },
	{ F_STREAM, "device/context/stream" },
	{ F_PID, "pid" },
	{ F_GRID_BLOCK, "grid + block" },
	{ F_SMEM_REGS, "smem + registers" },
};

/* MIX_KERNEL_LAUNCH: kernels in launch (correlation id) order, not completion order. */
enum mix { MIX_KERNEL, MIX_KERNEL_LAUNCH, MIX_API, MIX_BOTH };

struct result {
	uint64_t records, kernels, apis;
	uint64_t file_bytes;
	uint64_t raw_bytes;
	double seconds; /* best of the repeats */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void mask_kernel(struct gp_rec_kernel *k, unsigned keep)
{
	uint64_t dur = k->end - k->start;

	if (!(keep & F_START))
		k->start = 0;
	k->end = k->start + (keep & F_DURATION ? dur : 0);
	if (!(keep & F_CORR))
		k->correlation_id = 0;
	if (!(keep & F_NAME))
		k->name_str = 0;
	if (!(keep & F_STREAM))
		k->device_id = k->context_id = k->stream_id = 0;
	if (!(keep & F_PID))
		k->pid = 0;
	if (!(keep & F_GRID_BLOCK)) {
		memset(k->grid, 0, sizeof(k->grid));
		memset(k->block, 0, sizeof(k->block));
	}
	if (!(keep & F_SMEM_REGS))
		k->static_shared_mem = k->dynamic_shared_mem = k->registers_per_thread = 0;
}

static int put_kernel(struct gp_writer *w, const struct workload *wl, uint32_t i, unsigned keep)
{
	struct gp_rec_kernel *k = gp_writer__reserve(w, GP_REC_KERNEL, sizeof(*k));

	if (!k)
		return -errno;
	memcpy((char *)k + sizeof(k->hdr), (const char *)&wl->kern[i] + sizeof(k->hdr),
	       sizeof(*k) - sizeof(k->hdr));
	if (keep & F_NAME)
		k->name_str = gp_writer__intern(w, kinds[wl->kind[i]].name);
	if (keep != F_ALL)
		mask_kernel(k, keep);
	gp_writer__commit(w);
	return 0;
}

static int put_api(struct gp_writer *w, const struct workload *wl, uint32_t i)
{
	struct gp_rec_api *a = gp_writer__reserve(w, GP_REC_API, sizeof(*a));

	if (!a)
		return -errno;
	memcpy((char *)a + sizeof(a->hdr), (const char *)&wl->api[i] + sizeof(a->hdr),
	       sizeof(*a) - sizeof(a->hdr));
	a->name_str = gp_writer__intern(w, "cudaLaunchKernel_v7000");
	gp_writer__commit(w);
	return 0;
}

static int file_size(const char *path, uint64_t *size)
{
	struct stat sb;

	if (stat(path, &sb) < 0)
		return -errno;
	*size = (uint64_t)sb.st_size;
	return 0;
}

/* One write of the trace with gp_writer; fills bytes and time. */
static int run_writer(const struct workload *wl, const char *path, enum mix mix, int level,
		      unsigned keep, struct result *res)
{
	struct gp_writer_opts o = {
		.producer = GP_PRODUCER_SYNTH,
		.pid = PID,
		.level = level,
		.truncate = 1,
	};
	struct gp_writer *w;
	double t0 = now_s(), dt;
	int err = 0;
	size_t i;

	w = gp_writer__open(path, &o);
	if (!w)
		return -errno;
	if (mix == MIX_KERNEL) {
		for (i = 0; i < wl->n && !err; i++)
			err = put_kernel(w, wl, wl->kern_order[i], keep);
	} else if (mix == MIX_KERNEL_LAUNCH) {
		for (i = 0; i < wl->n && !err; i++)
			err = put_kernel(w, wl, (uint32_t)i, keep);
	} else if (mix == MIX_API) {
		for (i = 0; i < wl->n && !err; i++)
			err = put_api(w, wl, (uint32_t)i);
	} else {
		for (i = 0; i < 2 * wl->n && !err; i++)
			err = wl->ev[i].is_kernel ? put_kernel(w, wl, wl->ev[i].idx, keep) :
						    put_api(w, wl, wl->ev[i].idx);
	}
	if (!err && gp_writer__lost(w))
		err = -EIO;
	if (gp_writer__close(w) < 0 && !err)
		err = -EIO;
	dt = now_s() - t0;
	if (err)
		return err;
	res->kernels = mix == MIX_API ? 0 : wl->n;
	res->apis = mix == MIX_API || mix == MIX_BOTH ? wl->n : 0;
	res->records = res->kernels + res->apis;
	res->raw_bytes = res->kernels * sizeof(struct gp_rec_kernel) + res->apis * sizeof(struct gp_rec_api);
	if (res->seconds == 0 || dt < res->seconds)
		res->seconds = dt;
	return file_size(path, &res->file_bytes);
}

/* The baseline: the same raw structs, write() in 256 KiB batches. */
static int run_baseline(const struct workload *wl, const char *path, enum mix mix, struct result *res)
{
	uint8_t *buf = malloc(BASELINE_BATCH);
	size_t len = 0, i, nev = mix == MIX_BOTH ? 2 * wl->n : wl->n;
	double t0 = now_s(), dt;
	int fd, err = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		goto cleanup;
	}
	for (i = 0; i < nev && !err; i++) {
		const void *rec;
		size_t sz;

		if (mix == MIX_KERNEL) {
			rec = &wl->kern[wl->kern_order[i]];
			sz = sizeof(struct gp_rec_kernel);
		} else if (mix == MIX_API) {
			rec = &wl->api[i];
			sz = sizeof(struct gp_rec_api);
		} else if (wl->ev[i].is_kernel) {
			rec = &wl->kern[wl->ev[i].idx];
			sz = sizeof(struct gp_rec_kernel);
		} else {
			rec = &wl->api[wl->ev[i].idx];
			sz = sizeof(struct gp_rec_api);
		}
		if (len + sz > BASELINE_BATCH) {
			if (write(fd, buf, len) != (ssize_t)len)
				err = -EIO;
			len = 0;
		}
		memcpy(buf + len, rec, sz);
		len += sz;
	}
	if (!err && len && write(fd, buf, len) != (ssize_t)len)
		err = -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	dt = now_s() - t0;
	res->kernels = mix == MIX_API ? 0 : wl->n;
	res->apis = mix == MIX_API || mix == MIX_BOTH ? wl->n : 0;
	res->records = res->kernels + res->apis;
	res->raw_bytes = res->kernels * sizeof(struct gp_rec_kernel) + res->apis * sizeof(struct gp_rec_api);
	if (res->seconds == 0 || dt < res->seconds)
		res->seconds = dt;
	if (!err)
		err = file_size(path, &res->file_bytes);
cleanup:
	free(buf);
	return err;
}

static void print_row(const char *name, const struct result *r, const struct result *base)
{
	double per = (double)r->file_bytes / (double)r->records;
	double rate = (double)r->records / r->seconds;
	double base_rate = (double)base->records / base->seconds;

	printf("%-32s %9llu %11llu %9.2f %11.3f %10.2f %9.3f\n", name,
	       (unsigned long long)r->records, (unsigned long long)r->file_bytes, per,
	       (double)r->file_bytes / (double)r->raw_bytes, rate / 1e6, rate / base_rate);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bench_trace_size [-n LAUNCHES] [-r REPEAT] [-d DIR] [-s SEED] [-A] [-L] [-c]\n"
		"  -n  kernel launches (default 1000000)\n"
		"  -r  timed repeats per scenario, best kept (default 3)\n"
		"  -d  directory for the trace files (default $TMPDIR or /tmp); removed after\n"
		"  -s  workload seed (default 1)\n"
		"  -A  skip the per-field attribution\n"
		"  -L  also sweep zlib levels 1..9 on the kernel-only trace\n"
		"  -c  exit 1 if a kernel record costs more than %.0f bytes (kernel-only, default level)\n",
		TARGET_KERNEL_BYTES);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("TMPDIR");
	size_t n = 1000000;
	int repeat = 3, attribution = 1, check = 0, sweep = 0, opt, err = 0;
	uint64_t seed = 1;
	struct workload wl;
	struct result base_k = { 0 }, base_a = { 0 }, base_m = { 0 };
	struct result k6 = { 0 }, k1 = { 0 }, kl6 = { 0 }, a6 = { 0 }, a1 = { 0 }, m6 = { 0 }, m1 = { 0 };
	char path[4096], bpath[4096];
	double kernel_cost;

	while ((opt = getopt(argc, argv, "n:r:d:s:ALch")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoull(optarg, NULL, 10);
			break;
		case 'r':
			repeat = atoi(optarg);
			break;
		case 'd':
			dir = optarg;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 10);
			break;
		case 'A':
			attribution = 0;
			break;
		case 'c':
			check = 1;
			break;
		case 'L':
			sweep = 1;
			break;
		default:
			usage();
			return opt == 'h' ? 0 : 2;
		}
	}
	if (n < 1 || n > 50000000 || repeat < 1) {
		usage();
		return 2;
	}
	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/bench_trace_size.%d.trace", dir, (int)getpid());
	snprintf(bpath, sizeof(bpath), "%s/bench_trace_size.%d.raw", dir, (int)getpid());

	if (workload_init(&wl, n, seed) < 0) {
		fprintf(stderr, "bench_trace_size: out of memory for %zu launches\n", n);
		workload_free(&wl);
		return 1;
	}

	for (int r = 0; r < repeat && !err; r++) {
		/* Interleave scenarios so page-cache and CPU-clock drift hit all alike. */
		err = run_baseline(&wl, bpath, MIX_KERNEL, &base_k);
		err = err ? err : run_writer(&wl, path, MIX_KERNEL, 0, F_ALL, &k6);
		err = err ? err : run_writer(&wl, path, MIX_KERNEL, 1, F_ALL, &k1);
		err = err ? err : run_writer(&wl, path, MIX_KERNEL_LAUNCH, 0, F_ALL, &kl6);
		err = err ? err : run_baseline(&wl, bpath, MIX_API, &base_a);
		err = err ? err : run_writer(&wl, path, MIX_API, 0, F_ALL, &a6);
		err = err ? err : run_writer(&wl, path, MIX_API, 1, F_ALL, &a1);
		err = err ? err : run_baseline(&wl, bpath, MIX_BOTH, &base_m);
		err = err ? err : run_writer(&wl, path, MIX_BOTH, 0, F_ALL, &m6);
		err = err ? err : run_writer(&wl, path, MIX_BOTH, 1, F_ALL, &m1);
	}
	if (err) {
		fprintf(stderr, "bench_trace_size: writing '%s' failed: %s\n", path, strerror(-err));
		goto cleanup;
	}

	printf("bench_trace_size: %zu launches, %zu kernel names, 4 streams on 2 devices, "
	       "best of %d\n", n, NKINDS, repeat);
	printf("raw structs: kernel %zu B, api %zu B; baseline = write() of raw structs in 256 KiB "
	       "batches\n\n", sizeof(struct gp_rec_kernel), sizeof(struct gp_rec_api));
	printf("%-32s %9s %11s %9s %11s %10s %9s\n", "scenario", "records", "file bytes", "B/record",
	       "file/raw", "Mrec/s", "x base");
	print_row("kernel-only raw (baseline)", &base_k, &base_k);
	print_row("kernel-only default (zlib 3)", &k6, &base_k);
	print_row("kernel-only zlib 1", &k1, &base_k);
	print_row("kernel-only default, launch order", &kl6, &base_k);
	print_row("api-only raw (baseline)", &base_a, &base_a);
	print_row("api-only default (zlib 3)", &a6, &base_a);
	print_row("api-only zlib 1", &a1, &base_a);
	print_row("mixed raw (baseline)", &base_m, &base_m);
	print_row("mixed default (zlib 3)", &m6, &base_m);
	print_row("mixed zlib 1", &m1, &base_m);

	kernel_cost = (double)k6.file_bytes / (double)k6.kernels;
	printf("\nper launch (kernel + its API record), mixed trace: default %.2f B, zlib 1 %.2f B\n",
	       (double)m6.file_bytes / (double)n, (double)m1.file_bytes / (double)n);
	printf("kernel record: %.2f B (default), %.2f B (zlib 1); api record: %.2f B (default), "
	       "%.2f B (zlib 1)\n", kernel_cost, (double)k1.file_bytes / (double)k1.kernels,
	       (double)a6.file_bytes / (double)a6.apis, (double)a1.file_bytes / (double)a1.apis);
	printf("mixed vs separate files (default): %.2f B/launch vs %.2f + %.2f = %.2f B\n",
	       (double)m6.file_bytes / (double)n, kernel_cost, (double)a6.file_bytes / (double)n,
	       kernel_cost + (double)a6.file_bytes / (double)n);
	printf("target: a kernel record costs <= %.0f B on disk: %s (%.2f B)\n", TARGET_KERNEL_BYTES,
	       kernel_cost <= TARGET_KERNEL_BYTES ? "MET" : "MISSED", kernel_cost);

	if (sweep) {
		printf("\nkernel-only, zlib level sweep (one run each)\n%-8s %10s %10s %9s\n", "level",
		       "B/kernel", "Mrec/s", "x base");
		for (int lv = 1; lv <= 9 && !err; lv++) {
			struct result lr = { 0 };

			err = run_writer(&wl, path, MIX_KERNEL, lv, F_ALL, &lr);
			if (!err)
				printf("%-8d %10.2f %10.3f %9.3f\n", lv,
				       (double)lr.file_bytes / (double)n, (double)n / lr.seconds / 1e6,
				       ((double)n / lr.seconds) / ((double)n / base_k.seconds));
		}
	}
	if (attribution && !err) {
		struct result floor = { 0 };

		/*
		 * "alone": bytes/kernel with only this group populated, minus the
		 * all-zero floor. "saved": bytes/kernel saved by zeroing only this
		 * group in the full record. Neither is exact (zlib shares context
		 * between fields), the two bracket the field's real cost.
		 */
		err = run_writer(&wl, path, MIX_KERNEL, 0, 0, &floor);
		printf("\nkernel-only, default level, field attribution (B/kernel record)\n");
		printf("all fields zero (header + framing): %.2f   full record: %.2f\n",
		       (double)floor.file_bytes / (double)n, kernel_cost);
		printf("%-24s %10s %10s\n", "field group", "alone", "saved");
		for (size_t g = 0; g < ARRAY_SIZE(field_groups) && !err; g++) {
			struct result only = { 0 }, without = { 0 };

			err = run_writer(&wl, path, MIX_KERNEL, 0, field_groups[g].bit, &only);
			err = err ? err : run_writer(&wl, path, MIX_KERNEL, 0, F_ALL & ~field_groups[g].bit,
						     &without);
			if (!err)
				printf("%-24s %10.2f %10.2f\n", field_groups[g].name,
				       ((double)only.file_bytes - (double)floor.file_bytes) / (double)n,
				       ((double)k6.file_bytes - (double)without.file_bytes) / (double)n);
		}
		if (err)
			fprintf(stderr, "bench_trace_size: writing '%s' failed: %s\n", path,
				strerror(-err));
	}
	if (!err && check && kernel_cost > TARGET_KERNEL_BYTES)
		err = 1;
cleanup:
	unlink(path);
	unlink(bpath);
	workload_free(&wl);
	return err ? 1 : 0;
}
