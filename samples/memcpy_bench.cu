// SPDX-License-Identifier: Apache-2.0
// memcpy_bench: every kind of copy the runtime has, so a profile shows
// [memcpy HtoD/DtoH/DtoD/DtoA/AtoH] and [memset] frames under the host code that asked.
//
// main -> run_bench -> copy_pageable_sync  (cudaMemcpy HtoD, DtoD, DtoH; pageable host memory)
//                   -> copy_pageable_async (cudaMemcpyAsync HtoD, DtoH; pageable)
//                   -> copy_pinned_sync    (cudaMemcpy HtoD, DtoH; cudaMallocHost memory)
//                   -> copy_pinned_async   (cudaMemcpyAsync HtoD, DtoD, DtoH; pinned)
//                   -> fill_memset         (cudaMemset, cudaMemsetAsync)
//                   -> copy_pitched_array  (cudaMemcpy2D HtoD into a pitched image,
//                                           cudaMemcpy2DToArray DtoA, cudaMemcpy2DFromArray AtoH)
//
// No kernel runs: every value is checked, on the simulator too.
#include "sample_util.h"

#include <vector>

static const char *const SAMPLE = "memcpy_bench";

struct bench {
	size_t bytes;
	cudaStream_t stream;
	unsigned char *dev_a, *dev_b;
	std::vector<unsigned char> pageable_src, pageable_dst;
	unsigned char *pinned_src, *pinned_dst;
	// a pitched image and an array (texture memory) of tile_h rows of tile_w bytes
	unsigned char *pitched;
	size_t pitch, tile_w, tile_h;
	cudaArray_t array;
	unsigned long copies, memsets, mismatches;
	double ms[6];
};

enum { PAGEABLE_SYNC, PAGEABLE_ASYNC, PINNED_SYNC, PINNED_ASYNC, MEMSET, PITCHED_ARRAY, STEPS };
static const char *const KIND_NAMES[] = {"pageable", "pageable-async", "pinned", "pinned-async",
					 "memset",   "pitched-array"};

static void fill_pattern(unsigned char *p, size_t bytes, unsigned seed)
{
	for (size_t i = 0; i < bytes; i++)
		p[i] = (unsigned char)(i * 31 + seed * 7 + (i >> 8));
}

static void expect_same_n(struct bench *b, const char *what, const unsigned char *got,
			  const unsigned char *want, size_t n)
{
	if (memcmp(got, want, n)) {
		fprintf(stderr, "%s: %s: data differs after the round trip\n", SAMPLE, what);
		b->mismatches++;
	}
}

static void expect_same(struct bench *b, const char *what, const unsigned char *got,
			const unsigned char *want)
{
	expect_same_n(b, what, got, want, b->bytes);
}

static void expect_bytes(struct bench *b, const char *what, const unsigned char *got,
			 unsigned char value)
{
	for (size_t i = 0; i < b->bytes; i++) {
		if (got[i] != value) {
			fprintf(stderr, "%s: %s: byte %zu is 0x%02x, expected 0x%02x\n", SAMPLE,
				what, i, got[i], value);
			b->mismatches++;
			return;
		}
	}
}

static SAMPLE_NOINLINE void copy_pageable_sync(struct bench *b, unsigned seed)
{
	fill_pattern(b->pageable_src.data(), b->bytes, seed);
	CHECK(cudaMemcpy(b->dev_a, b->pageable_src.data(), b->bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(b->dev_b, b->dev_a, b->bytes, cudaMemcpyDeviceToDevice));
	CHECK(cudaMemcpy(b->pageable_dst.data(), b->dev_b, b->bytes, cudaMemcpyDeviceToHost));
	b->copies += 3;
	expect_same(b, "pageable sync", b->pageable_dst.data(), b->pageable_src.data());
}

static SAMPLE_NOINLINE void copy_pageable_async(struct bench *b, unsigned seed)
{
	fill_pattern(b->pageable_src.data(), b->bytes, seed);
	CHECK(cudaMemcpyAsync(b->dev_a, b->pageable_src.data(), b->bytes, cudaMemcpyHostToDevice,
			      b->stream));
	CHECK(cudaMemcpyAsync(b->pageable_dst.data(), b->dev_a, b->bytes, cudaMemcpyDeviceToHost,
			      b->stream));
	CHECK(cudaStreamSynchronize(b->stream));
	b->copies += 2;
	expect_same(b, "pageable async", b->pageable_dst.data(), b->pageable_src.data());
}

static SAMPLE_NOINLINE void copy_pinned_sync(struct bench *b, unsigned seed)
{
	fill_pattern(b->pinned_src, b->bytes, seed);
	CHECK(cudaMemcpy(b->dev_b, b->pinned_src, b->bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(b->pinned_dst, b->dev_b, b->bytes, cudaMemcpyDeviceToHost));
	b->copies += 2;
	expect_same(b, "pinned sync", b->pinned_dst, b->pinned_src);
}

static SAMPLE_NOINLINE void copy_pinned_async(struct bench *b, unsigned seed)
{
	fill_pattern(b->pinned_src, b->bytes, seed);
	CHECK(cudaMemcpyAsync(b->dev_a, b->pinned_src, b->bytes, cudaMemcpyHostToDevice,
			      b->stream));
	CHECK(cudaMemcpyAsync(b->dev_b, b->dev_a, b->bytes, cudaMemcpyDeviceToDevice, b->stream));
	CHECK(cudaMemcpyAsync(b->pinned_dst, b->dev_b, b->bytes, cudaMemcpyDeviceToHost,
			      b->stream));
	CHECK(cudaStreamSynchronize(b->stream));
	b->copies += 3;
	expect_same(b, "pinned async", b->pinned_dst, b->pinned_src);
}

static SAMPLE_NOINLINE void fill_memset(struct bench *b, unsigned seed)
{
	unsigned char va = (unsigned char)(0x5a + seed), vb = (unsigned char)(0xa5 - seed);
	CHECK(cudaMemset(b->dev_a, va, b->bytes));
	CHECK(cudaMemsetAsync(b->dev_b, vb, b->bytes, b->stream));
	CHECK(cudaStreamSynchronize(b->stream));
	b->memsets += 2;
	CHECK(cudaMemcpy(b->pinned_dst, b->dev_a, b->bytes, cudaMemcpyDeviceToHost));
	expect_bytes(b, "cudaMemset", b->pinned_dst, va);
	CHECK(cudaMemcpy(b->pinned_dst, b->dev_b, b->bytes, cudaMemcpyDeviceToHost));
	expect_bytes(b, "cudaMemsetAsync", b->pinned_dst, vb);
	b->copies += 2;
}

// Rows of tile_w bytes: host to a pitched image (each row padded to its pitch), to an
// array, back to the host packed.
static SAMPLE_NOINLINE void copy_pitched_array(struct bench *b, unsigned seed)
{
	size_t w = b->tile_w, h = b->tile_h;
	fill_pattern(b->pinned_src, w * h, seed);
	CHECK(cudaMemcpy2D(b->pitched, b->pitch, b->pinned_src, w, w, h, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy2DToArray(b->array, 0, 0, b->pitched, b->pitch, w, h,
				  cudaMemcpyDeviceToDevice));
	CHECK(cudaMemcpy2DFromArray(b->pinned_dst, w, b->array, 0, 0, w, h,
				    cudaMemcpyDeviceToHost));
	b->copies += 3;
	expect_same_n(b, "pitched and array", b->pinned_dst, b->pinned_src, w * h);
}

static SAMPLE_NOINLINE void run_bench(struct bench *b, unsigned long reps)
{
	void (*const steps[])(struct bench *, unsigned) = {
		copy_pageable_sync, copy_pageable_async, copy_pinned_sync, copy_pinned_async,
		fill_memset,	    copy_pitched_array,
	};
	for (unsigned long r = 0; r < reps; r++) {
		for (unsigned k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
			double t0 = sample_now_ms();
			steps[k](b, (unsigned)(r * STEPS + k));
			b->ms[k] += sample_now_ms() - t0;
		}
	}
}

int main(int argc, char **argv)
{
	sample_usage(argc, argv, "[BYTES [REPS]]   (bytes per copy, default 1048576; 8 reps)");
	size_t bytes = sample_arg(argc, argv, 1, "BYTES", 1UL << 20, 1, 1UL << 31);
	unsigned long reps = sample_arg(argc, argv, 2, "REPS", 8, 1, 100000);

	// No kernel computes anything here, so all checks run on the simulator
	// too; the query still creates the context before the timed copies.
	(void)sample_on_simulator();
	struct bench b = {};
	b.bytes = bytes;
	b.pageable_src.resize(bytes);
	b.pageable_dst.resize(bytes);
	CHECK(cudaStreamCreate(&b.stream));
	CHECK(cudaMalloc(&b.dev_a, bytes));
	CHECK(cudaMalloc(&b.dev_b, bytes));
	CHECK(cudaMallocHost(&b.pinned_src, bytes));
	CHECK(cudaMallocHost(&b.pinned_dst, bytes));
	b.tile_w = bytes < 256 ? bytes : 256;
	b.tile_h = bytes / b.tile_w;
	CHECK(cudaMallocPitch((void **)&b.pitched, &b.pitch, b.tile_w, b.tile_h));
	cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned char>();
	CHECK(cudaMallocArray(&b.array, &desc, b.tile_w, b.tile_h));

	run_bench(&b, reps);

	CHECK(cudaFreeArray(b.array));
	CHECK(cudaFree(b.pitched));
	CHECK(cudaFreeHost(b.pinned_dst));
	CHECK(cudaFreeHost(b.pinned_src));
	CHECK(cudaFree(b.dev_b));
	CHECK(cudaFree(b.dev_a));
	CHECK(cudaStreamDestroy(b.stream));

	for (unsigned k = 0; k < STEPS; k++)
		printf("%s: %-15s %9.3f ms total\n", SAMPLE, KIND_NAMES[k], b.ms[k]);
	if (b.mismatches) {
		fprintf(stderr, "%s: %lu checks failed\n", SAMPLE, b.mismatches);
		return 1;
	}
	printf("%s: bytes=%zu copies=%lu memsets=%lu ok\n", SAMPLE, bytes, b.copies, b.memsets);
	return 0;
}
