// SPDX-License-Identifier: Apache-2.0
/*
 * test_vmm_mem.c - virtual memory's allocations as the injection library's
 * own memory records (cupti_inject/vmm_mem.h), and the report keeping one
 * account of a call: CUPTI's where it gave one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gp_reader.h"
#include "gp_record.h"
#include "gp_writer.h"
#include "timeline.h"
#include "vmm_mem.h"

static char dir[64];
static char path[128];

static struct gp_writer *open_trace(void)
{
	struct gp_writer_opts o = { .producer = GP_PRODUCER_INJECT, .pid = 10 };
	struct gp_writer *w;

	snprintf(path, sizeof(path), "%s/gpu-10.trace", dir);
	w = gp_writer__open(path, &o);
	assert_non_null(w);
	return w;
}

/* The memory records of the trace at path, in order: n of them. */
static size_t read_memory(struct gp_rec_memory *out, size_t max)
{
	char err[256];
	struct gp_reader *r = gp_reader__open(path, err, sizeof(err));
	const struct gp_rec_hdr *h;
	size_t n = 0;

	assert_non_null(r);
	while (gp_reader__next(r, &h) == GP_READ_RECORD)
		if (h->type == GP_REC_MEMORY && n < max)
			memcpy(&out[n++], h, sizeof(*out));
	gp_reader__free(r);
	return n;
}

/*
 * A handle's creation is an allocation; a retained handle is one more
 * reference; its last release is the free, with the created size; a
 * handle the library never saw made (imported) is nobody's allocation.
 */
static void test_handles(void **state)
{
	static struct vmm_mem vm;
	struct gp_rec_memory m[8];
	struct gp_writer *w;

	(void)state;
	vmm_mem__init(&vm);
	vmm_mem__created(&vm, 0xa1, 2 << 20, 0, 3, 11, 100);
	vmm_mem__created(&vm, 0xb2, 4 << 20, 0, 3, 12, 200);
	vmm_mem__retained(&vm, 0xa1);
	vmm_mem__released(&vm, 0xa1, 13, 300); /* the retained reference: still live */
	vmm_mem__released(&vm, 0xc3, 14, 350); /* imported: not ours */
	vmm_mem__released(&vm, 0xb2, 15, 400);
	vmm_mem__released(&vm, 0xa1, 16, 500);
	w = open_trace();
	assert_int_equal(vmm_mem__drain(&vm, w, 10), 4);
	assert_int_equal(vmm_mem__drain(&vm, w, 10), 0);
	assert_int_equal(gp_writer__close(w), 0);
	assert_int_equal(read_memory(m, 8), 4);
	assert_int_equal(m[0].op, GP_MEM_ALLOC);
	assert_int_equal(m[0].address, 0xa1);
	assert_int_equal(m[0].bytes, 2 << 20);
	assert_int_equal(m[0].correlation_id, 11);
	assert_int_equal(m[0].hdr.flags, GP_MEMORY_FROM_CALL);
	assert_int_equal(m[0].memory_kind, 3);
	assert_int_equal(m[0].pid, 10);
	assert_int_equal(m[1].op, GP_MEM_ALLOC);
	assert_int_equal(m[1].address, 0xb2);
	assert_int_equal(m[2].op, GP_MEM_FREE);
	assert_int_equal(m[2].address, 0xb2);
	assert_int_equal(m[2].bytes, 4 << 20);
	assert_int_equal(m[2].correlation_id, 15);
	assert_int_equal(m[2].ts, 400);
	assert_int_equal(m[3].op, GP_MEM_FREE);
	assert_int_equal(m[3].address, 0xa1);
	assert_int_equal(m[3].bytes, 2 << 20);
	assert_int_equal(m[3].correlation_id, 16);
	assert_int_equal(m[3].hdr.flags, GP_MEMORY_FROM_CALL);
	assert_int_equal(vmm_mem__take_lost(&vm), 0);
}

/*
 * More events than the ring holds between two drains, or more live handles
 * than the table holds: each one that could not be kept is counted, and
 * the handles the table did keep free as they should, however many were
 * removed before them (its probe chains stay whole).
 */
static void test_full(void **state)
{
	static struct vmm_mem vm;
	struct gp_writer *w;
	size_t n = 0;
	uint64_t i;

	(void)state;
	vmm_mem__init(&vm);
	for (i = 1; i <= VMM_MEM_RING + 5; i++)
		vmm_mem__created(&vm, i, 1, 0, 3, (uint32_t)i, i);
	assert_int_equal(vmm_mem__take_lost(&vm), 5);
	assert_int_equal(vmm_mem__take_lost(&vm), 0);
	w = open_trace();
	assert_int_equal(vmm_mem__drain(&vm, w, 10), VMM_MEM_RING);
	/* every handle is in the table, those whose event was lost too */
	for (i = VMM_MEM_RING + 6; i <= VMM_MEM_HANDLES + 2; i++) {
		vmm_mem__created(&vm, i, 1, 0, 3, (uint32_t)i, i);
		if (vm.head - vm.tail >= VMM_MEM_RING / 2)
			assert_true(vmm_mem__drain(&vm, w, 10) > 0);
	}
	assert_int_equal(vmm_mem__take_lost(&vm), 2); /* the table is full: the last two */
	vmm_mem__drain(&vm, w, 10);
	/* every other one released, then the rest: each found, each freed once */
	for (i = 1; i <= VMM_MEM_HANDLES; i += 2) {
		vmm_mem__released(&vm, i, (uint32_t)i, i);
		if (vm.head - vm.tail >= VMM_MEM_RING / 2)
			n += (size_t)vmm_mem__drain(&vm, w, 10);
	}
	n += (size_t)vmm_mem__drain(&vm, w, 10);
	assert_int_equal(n, VMM_MEM_HANDLES / 2);
	for (i = 2, n = 0; i <= VMM_MEM_HANDLES; i += 2) {
		vmm_mem__released(&vm, i, (uint32_t)i, i);
		if (vm.head - vm.tail >= VMM_MEM_RING / 2)
			n += (size_t)vmm_mem__drain(&vm, w, 10);
	}
	n += (size_t)vmm_mem__drain(&vm, w, 10);
	assert_int_equal(n, VMM_MEM_HANDLES / 2);
	vmm_mem__released(&vm, 7, 7, 7); /* freed already */
	assert_int_equal(vmm_mem__drain(&vm, w, 10), 0);
	assert_int_equal(vmm_mem__take_lost(&vm), 0);
	assert_int_equal(gp_writer__close(w), 0);
}

/*
 * "The memory allocation will be freed when all outstanding mappings to
 * the memory are unmapped and when all outstanding references to the
 * handle [...] are also released": released while mapped, it is freed by
 * the unmapping (one may end several), also when the driver has given its
 * handle to a new allocation meanwhile; retained and released around its
 * unmapping (NCCL's free), by its last release; a mapping of a handle the
 * library never saw made changes nothing.
 */
static void test_mappings(void **state)
{
	static struct vmm_mem vm;
	struct gp_rec_memory m[16];
	struct gp_writer *w;
	const uint64_t mb2 = 2 << 20;

	(void)state;
	vmm_mem__init(&vm);
	/* released right after mapping, as NVIDIA's samples do: freed by the unmapping */
	vmm_mem__created(&vm, 0xa1, mb2, 0, 3, 1, 10);
	vmm_mem__mapped(&vm, 0x10000000, mb2, 0xa1);
	vmm_mem__released(&vm, 0xa1, 2, 20);
	/* the driver gives the same handle to a new allocation: its own */
	vmm_mem__created(&vm, 0xa1, 2 * mb2, 0, 3, 3, 30);
	vmm_mem__mapped(&vm, 0x20000000, 2 * mb2, 0xa1);
	/* a second released allocation mapped next to the first */
	vmm_mem__created(&vm, 0xb2, mb2, 0, 3, 4, 40);
	vmm_mem__mapped(&vm, 0x10000000 + mb2, mb2, 0xb2);
	vmm_mem__released(&vm, 0xb2, 5, 50);
	/* imported from another process: its mapping and unmapping count nothing */
	vmm_mem__mapped(&vm, 0x30000000, mb2, 0xc3);
	vmm_mem__unmapped(&vm, 0x30000000, mb2, 6, 60);
	/* one unmapping ends both released ones */
	vmm_mem__unmapped(&vm, 0x10000000, 2 * mb2, 7, 70);
	/* NCCL's free: retain by address, release, unmap, release */
	vmm_mem__retained(&vm, 0xa1);
	vmm_mem__released(&vm, 0xa1, 8, 80);
	vmm_mem__unmapped(&vm, 0x20000000, 2 * mb2, 9, 90);
	vmm_mem__released(&vm, 0xa1, 10, 100);
	w = open_trace();
	assert_int_equal(vmm_mem__drain(&vm, w, 10), 6);
	assert_int_equal(gp_writer__close(w), 0);
	assert_int_equal(read_memory(m, 16), 6);
	assert_int_equal(m[0].op, GP_MEM_ALLOC);
	assert_int_equal(m[0].correlation_id, 1);
	assert_int_equal(m[1].op, GP_MEM_ALLOC);
	assert_int_equal(m[1].correlation_id, 3);
	assert_int_equal(m[1].bytes, 2 * mb2);
	assert_int_equal(m[2].op, GP_MEM_ALLOC);
	assert_int_equal(m[2].correlation_id, 4);
	/* the unmapping freed both, each with its own size and handle */
	assert_int_equal(m[3].op, GP_MEM_FREE);
	assert_int_equal(m[3].correlation_id, 7);
	assert_int_equal(m[4].op, GP_MEM_FREE);
	assert_int_equal(m[4].correlation_id, 7);
	assert_int_equal(m[3].bytes + m[4].bytes, 2 * mb2);
	assert_true((m[3].address == 0xa1 && m[4].address == 0xb2) ||
		    (m[3].address == 0xb2 && m[4].address == 0xa1));
	assert_int_equal(m[5].op, GP_MEM_FREE);
	assert_int_equal(m[5].address, 0xa1);
	assert_int_equal(m[5].bytes, 2 * mb2);
	assert_int_equal(m[5].correlation_id, 10);
	assert_int_equal(m[5].ts, 100);
	assert_int_equal(vmm_mem__take_lost(&vm), 0);
}

static void memory(struct gp_writer *w, uint32_t corr, uint8_t op, uint64_t bytes, uint16_t flags)
{
	struct gp_rec_memory *m = gp_writer__reserve(w, GP_REC_MEMORY, sizeof(*m));

	m->hdr.flags = flags;
	m->ts = 1000 + corr;
	m->address = 0x7f0000000000ull + corr;
	m->bytes = bytes;
	m->correlation_id = corr;
	m->pid = 10;
	m->op = op;
	m->memory_kind = 3;
	gp_writer__commit(w);
}

/*
 * A call CUPTI gave a memory record for keeps CUPTI's alone; the library's
 * own records of other calls stay, and so does all of it when CUPTI gave
 * none.
 */
static void test_report_keeps_cupti(void **state)
{
	struct gp_writer *w = open_trace();
	struct timeline *tl = timeline__new();
	const char *why = NULL;

	(void)state;
	memory(w, 5, GP_MEM_ALLOC, 1 << 21, 0);
	memory(w, 5, GP_MEM_ALLOC, 1 << 21, GP_MEMORY_FROM_CALL);
	memory(w, 6, GP_MEM_ALLOC, 1 << 22, GP_MEMORY_FROM_CALL);
	memory(w, 7, GP_MEM_FREE, 1 << 22, GP_MEMORY_FROM_CALL);
	memory(w, 8, GP_MEM_ALLOC, 1 << 20, 0);
	assert_int_equal(gp_writer__close(w), 0);
	assert_non_null(tl);
	assert_int_equal(timeline__load_dir(tl, dir, &why), 0);
	timeline__finish(tl);
	assert_int_equal(tl->nr_mem, 4);
	assert_int_equal(tl->mem[0].corr, 5);
	assert_int_equal(tl->mem[0].from_call, 0);
	assert_int_equal(tl->mem[1].corr, 6);
	assert_int_equal(tl->mem[1].from_call, 1);
	assert_int_equal(tl->mem[2].corr, 7);
	assert_int_equal(tl->mem[2].op, GP_MEM_FREE);
	assert_int_equal(tl->mem[3].corr, 8);
	timeline__free(tl);

	unlink(path);
	w = open_trace();
	memory(w, 6, GP_MEM_ALLOC, 1 << 22, GP_MEMORY_FROM_CALL);
	memory(w, 7, GP_MEM_FREE, 1 << 22, GP_MEMORY_FROM_CALL);
	assert_int_equal(gp_writer__close(w), 0);
	tl = timeline__new();
	assert_non_null(tl);
	assert_int_equal(timeline__load_dir(tl, dir, &why), 0);
	timeline__finish(tl);
	assert_int_equal(tl->nr_mem, 2);
	assert_int_equal(tl->mem[0].from_call, 1);
	timeline__free(tl);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gp_vmm_XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_handles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mappings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_keeps_cupti, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
