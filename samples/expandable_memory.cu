// SPDX-License-Identifier: Apache-2.0
// expandable_memory: a buffer that grows and shrinks in place through the
// driver's virtual memory management, as PyTorch's caching allocator does
// with expandable_segments: one reserved address range, physical chunks
// created and mapped onto its end as the buffer grows (cuMemCreate,
// cuMemMap, cuMemSetAccess), a kernel over the whole buffer after each
// growth, then the chunks unmapped and released from the end.
//
// main -> run_segment -> grow_segment   (cuMemCreate, cuMemMap, cuMemSetAccess)
//                     -> launch_fill    (fill_kernel, over the mapped bytes)
//                     -> shrink_segment (cuMemUnmap, cuMemRelease)
#include "sample_util.h"

#include "sample_drv.h"

#include <vector>

static const char *const SAMPLE = "expandable_memory";

// x[i] = v + i over n words
__global__ void fill_kernel(unsigned *x, unsigned v, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = v + (unsigned)i;
}

struct segment {
	CUdeviceptr base;  // the reserved range
	size_t chunk;      // the allocation granularity: one chunk
	size_t max_chunks; // the range holds this many
	std::vector<CUmemGenericAllocationHandle> chunks; // mapped, in address order
};

// One more chunk of device memory at the end of the mapped part.
static SAMPLE_NOINLINE void grow_segment(segment &s, int device)
{
	CUmemAllocationProp prop = {};
	CUmemAccessDesc access = {};
	CUmemGenericAllocationHandle h;
	CUdeviceptr at = s.base + s.chunks.size() * s.chunk;

	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = device;
	CU_CHECK(cuMemCreate(&h, s.chunk, &prop, 0));
	CU_CHECK(cuMemMap(at, s.chunk, 0, h, 0));
	access.location = prop.location;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	CU_CHECK(cuMemSetAccess(at, s.chunk, &access, 1));
	s.chunks.push_back(h);
}

// The last chunk unmapped and given back.
static SAMPLE_NOINLINE void shrink_segment(segment &s)
{
	CUdeviceptr at = s.base + (s.chunks.size() - 1) * s.chunk;

	CU_CHECK(cuMemUnmap(at, s.chunk));
	CU_CHECK(cuMemRelease(s.chunks.back()));
	s.chunks.pop_back();
}

static SAMPLE_NOINLINE void launch_fill(const segment &s, unsigned v)
{
	size_t n = s.chunks.size() * s.chunk / sizeof(unsigned);

	fill_kernel<<<(unsigned)((n + 255) / 256), 256>>>((unsigned *)s.base, v, n);
	CHECK_LAUNCH();
}

static SAMPLE_NOINLINE int run_segment(unsigned long chunks, bool simulated)
{
	CUmemAllocationProp prop = {};
	segment s = {};
	int device = 0, bad = 0;

	CHECK(cudaSetDevice(device));
	CHECK(cudaFree(0)); // the primary context, current on this thread
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = device;
	CU_CHECK(cuMemGetAllocationGranularity(&s.chunk, &prop,
					       CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
	s.max_chunks = chunks;
	CU_CHECK(cuMemAddressReserve(&s.base, s.max_chunks * s.chunk, 0, 0, 0));
	for (unsigned long i = 0; i < chunks; i++) {
		grow_segment(s, device);
		launch_fill(s, (unsigned)i);
	}
	CHECK(cudaDeviceSynchronize());
	if (!simulated) {
		// the last fill wrote the whole buffer: word k holds chunks - 1 + k
		std::vector<unsigned> host(s.chunks.size() * s.chunk / sizeof(unsigned));
		CHECK(cudaMemcpy(host.data(), (void *)s.base, host.size() * sizeof(unsigned),
				 cudaMemcpyDeviceToHost));
		for (size_t k = 0; k < host.size(); k++)
			bad += host[k] != (unsigned)(chunks - 1 + k);
	}
	while (!s.chunks.empty())
		shrink_segment(s);
	CU_CHECK(cuMemAddressFree(s.base, s.max_chunks * s.chunk));
	if (simulated)
		sample_note_skipped(SAMPLE);
	if (bad) {
		fprintf(stderr, "%s: %d words wrong\n", SAMPLE, bad);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	sample_usage(argc, argv, "[CHUNKS]   (default 4 chunks of the allocation granularity)");
	unsigned long chunks = sample_arg(argc, argv, 1, "CHUNKS", 4, 1, 64);
	bool simulated = sample_on_simulator();

	if (run_segment(chunks, simulated))
		return 1;
	printf("%s: chunks=%lu launches=%lu ok\n", SAMPLE, chunks, chunks);
	return 0;
}
