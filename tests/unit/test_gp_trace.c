// SPDX-License-Identifier: Apache-2.0
/* test_gp_trace.c - the trace container: round trips, truncation, corruption, versions, packing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "gp_pack.h"
#include "gp_reader.h"
#include "gp_record.h"
#include "gp_writer.h"

/* A trace written to an unlinked temp file, read back into memory. */
struct blob {
	uint8_t *data;
	size_t size;
};

static struct gp_writer *tmp_writer(FILE **fp, uint32_t chunk_size)
{
	struct gp_writer_opts o = { .producer = GP_PRODUCER_SYNTH, .chunk_size = chunk_size };
	struct gp_writer *w;

	*fp = tmpfile();
	assert_non_null(*fp);
	w = gp_writer__fdopen(dup(fileno(*fp)), &o);
	assert_non_null(w);
	return w;
}

static struct blob finish(struct gp_writer *w, FILE *fp, int clean)
{
	struct blob b;
	long n;

	if (clean)
		assert_int_equal(gp_writer__close(w), 0);
	else
		gp_writer__abandon(w);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	assert_true(n >= (long)sizeof(struct gp_file_header));
	b.size = (size_t)n;
	b.data = malloc(b.size);
	assert_non_null(b.data);
	rewind(fp);
	assert_int_equal(fread(b.data, 1, b.size, fp), b.size);
	fclose(fp);
	return b;
}

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void fill_kernel(struct gp_rec_kernel *k, uint64_t i, uint32_t name)
{
	k->start = 1000000000ull + i * 5000 + rnd() % 100;
	k->end = k->start + 3000 + rnd() % 1000;
	k->correlation_id = (uint32_t)(i * 2 + 1);
	k->pid = 4242;
	k->name_str = name;
	k->device_id = (uint32_t)(i % 2);
	k->stream_id = (uint32_t)(7 + i % 3);
	k->grid[0] = 1024;
	k->block[0] = 256;
	k->registers_per_thread = 32;
}

/* Reads every record; returns how many came back, checks termination. */
static uint64_t drain(struct gp_reader *r, int *errors, char *last_err, size_t errlen)
{
	const struct gp_rec_hdr *h;
	uint64_t n = 0, guard = 0;
	int rc;

	*errors = 0;
	while ((rc = gp_reader__next(r, &h)) != GP_READ_EOF) {
		assert_true(++guard < 10000000); /* never loops */
		if (rc == GP_READ_ERROR) {
			(*errors)++;
			if (last_err)
				snprintf(last_err, errlen, "%s", gp_reader__error(r));
			continue;
		}
		n++;
	}
	/* EOF is sticky */
	assert_int_equal(gp_reader__next(r, &h), GP_READ_EOF);
	return n;
}

static void test_roundtrip_every_type(void **state)
{
	FILE *fp;
	struct gp_writer *w = tmp_writer(&fp, 0);
	struct gp_rec_kernel k = { 0 };
	struct gp_rec_api a = { 0 };
	struct gp_rec_memcpy m = { 0 };
	struct gp_rec_memset ms = { 0 };
	struct gp_rec_sync sy = { 0 };
	struct gp_rec_clock_pair cp = { 0 };
	struct gp_rec_process pr = { 0 };
	struct gp_rec_thread th = { 0 };
	struct gp_rec_module mo = { 0 };
	struct gp_rec_device dev = { 0 };
	struct gp_rec_dropped dr = { 0 };
	struct gp_rec_cpu_sample *cs;
	struct gp_rec_offcpu *oc;
	struct gp_rec_launch_site *ls;
	const struct gp_rec_hdr *h;
	struct gp_reader_stats st;
	struct gp_reader *r;
	struct blob b;
	char err[256];
	int seen[GP_REC_TYPE_COUNT] = { 0 };
	int i;

	(void)state;
	k.start = 100;
	k.end = 50; /* end before start must survive the delta coding too */
	k.correlation_id = 0xfffffff0u;
	k.name_str = gp_writer__intern(w, "_Z9vectorAddPKfS0_Pfi");
	k.grid[2] = 3;
	k.graph_node_id = ~0ull;
	assert_int_equal(gp_writer__append(w, GP_REC_KERNEL, &k, sizeof(k)), 0);
	a.start = 90;
	a.end = 120;
	a.correlation_id = 0xfffffff0u;
	a.tid = 77;
	a.domain = GP_API_RUNTIME;
	a.return_value = -3;
	a.name_str = gp_writer__intern(w, "cudaLaunchKernel");
	assert_int_equal(gp_writer__append(w, GP_REC_API, &a, sizeof(a)), 0);
	m.start = ~0ull - 5; /* wraps in the delta coding */
	m.end = 2;
	m.bytes = 1 << 20;
	m.copy_kind = 1;
	assert_int_equal(gp_writer__append(w, GP_REC_MEMCPY, &m, sizeof(m)), 0);
	ms.start = 7;
	ms.value = 0xab;
	assert_int_equal(gp_writer__append(w, GP_REC_MEMSET, &ms, sizeof(ms)), 0);
	sy.start = 1;
	sy.end = 9;
	sy.stream_id = 0xffffffffu;
	assert_int_equal(gp_writer__append(w, GP_REC_SYNC, &sy, sizeof(sy)), 0);
	cp.producer_ts = 5;
	cp.monotonic_ns = 6;
	cp.realtime_ns = 7;
	cp.source = GP_CLOCKSRC_CUPTI;
	assert_int_equal(gp_writer__append(w, GP_REC_CLOCK_PAIR, &cp, sizeof(cp)), 0);
	pr.pid = 10;
	pr.event = GP_PROC_EXIT;
	pr.exit_code = 3 << 8;
	assert_int_equal(gp_writer__append(w, GP_REC_PROCESS, &pr, sizeof(pr)), 0);
	th.tid = 11;
	assert_int_equal(gp_writer__append(w, GP_REC_THREAD, &th, sizeof(th)), 0);
	mo.start = 0x400000;
	mo.build_id_size = 20;
	for (i = 0; i < 20; i++)
		mo.build_id[i] = (uint8_t)i;
	mo.path_str = gp_writer__intern(w, "/usr/bin/app");
	assert_int_equal(gp_writer__append(w, GP_REC_MODULE, &mo, sizeof(mo)), 0);
	dev.global_memory_bytes = 80ull << 30;
	dev.cc_major = 9;
	assert_int_equal(gp_writer__append(w, GP_REC_DEVICE, &dev, sizeof(dev)), 0);
	dr.count = 12345;
	dr.source = GP_DROP_CUPTI;
	assert_int_equal(gp_writer__append(w, GP_REC_DROPPED, &dr, sizeof(dr)), 0);

	cs = gp_writer__reserve(w, GP_REC_CPU_SAMPLE, sizeof(*cs) + 3 * 8);
	assert_non_null(cs);
	cs->ts = 1234;
	cs->nr_user = 2;
	cs->nr_kernel = 1;
	cs->ips[0] = 0x401000;
	cs->ips[1] = 0x401100;
	cs->ips[2] = 0xffffffff81000000ull;
	gp_writer__commit(w);
	oc = gp_writer__reserve(w, GP_REC_OFFCPU, sizeof(*oc) + 8);
	assert_non_null(oc);
	oc->start = 50;
	oc->end = 70;
	oc->nr_user = 1;
	oc->ips[0] = 0x402000;
	gp_writer__commit(w);
	ls = gp_writer__reserve(w, GP_REC_LAUNCH_SITE, sizeof(*ls) + 8);
	assert_non_null(ls);
	ls->ts = 89;
	ls->tid = 77;
	ls->probe_str = gp_writer__intern(w, "cudaLaunchKernel");
	ls->nr_user = 1;
	ls->ips[0] = 0x403000;
	gp_writer__commit(w);
	assert_int_equal(ls->probe_str, a.name_str); /* interned once */
	{
		static const uint64_t kips[3] = { 0x404000, 0x404100, 0xffffffff81000100ull };
		struct gp_rec_launch_site_id *li = gp_writer__reserve(w, GP_REC_LAUNCH_SITE_ID, sizeof(*li));

		assert_non_null(li);
		li->ts = 95;
		li->tid = 77;
		li->probe_str = gp_writer__intern(w, "cudaLaunchKernel");
		li->stack_id = gp_writer__intern_stack(w, kips, 2, 1);
		assert_int_equal(li->stack_id, 1);
		gp_writer__commit(w);
	}
	{
		static const uint64_t kips[3] = { 0x404000, 0x404100, 0xffffffff81000100ull };
		struct gp_rec_api_stack *as = gp_writer__reserve(w, GP_REC_API_STACK, sizeof(*as));

		assert_non_null(as);
		as->correlation_id = 42;
		as->stack_id = gp_writer__intern_stack(w, kips, 2, 1); /* the same frames: the same id */
		as->hdr.flags = GP_API_STACK_NESTED;
		gp_writer__commit(w);
	}
	{
		struct gp_rec_memory *mem = gp_writer__reserve(w, GP_REC_MEMORY, sizeof(*mem));

		assert_non_null(mem);
		mem->ts = 97;
		mem->correlation_id = 43;
		mem->address = 0x7f0000000000ull;
		mem->bytes = 1 << 20;
		mem->op = GP_MEM_ALLOC;
		gp_writer__commit(w);
	}

	b = finish(w, fp, 1);
	r = gp_reader__open_mem(b.data, b.size, "rt.trace", err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(gp_reader__header(r)->producer, GP_PRODUCER_SYNTH);
	assert_int_equal(gp_reader__header(r)->clock_id, GP_CLOCK_MONOTONIC);
	assert_int_equal(gp_reader__header(r)->pid, (uint32_t)getpid());
	while (gp_reader__next(r, &h) == GP_READ_RECORD) {
		seen[h->type]++;
		switch (h->type) {
		case GP_REC_KERNEL:
			assert_memory_equal((const char *)h + 8, (const char *)&k + 8, sizeof(k) - 8);
			assert_string_equal(gp_reader__string(r, ((const struct gp_rec_kernel *)h)->name_str),
					    "_Z9vectorAddPKfS0_Pfi");
			break;
		case GP_REC_API:
			assert_memory_equal((const char *)h + 8, (const char *)&a + 8, sizeof(a) - 8);
			break;
		case GP_REC_MEMCPY:
			assert_memory_equal((const char *)h + 8, (const char *)&m + 8, sizeof(m) - 8);
			break;
		case GP_REC_MEMSET:
			assert_memory_equal((const char *)h + 8, (const char *)&ms + 8, sizeof(ms) - 8);
			break;
		case GP_REC_SYNC:
			assert_memory_equal((const char *)h + 8, (const char *)&sy + 8, sizeof(sy) - 8);
			break;
		case GP_REC_CLOCK_PAIR:
			assert_memory_equal((const char *)h + 8, (const char *)&cp + 8, sizeof(cp) - 8);
			break;
		case GP_REC_PROCESS:
			assert_memory_equal((const char *)h + 8, (const char *)&pr + 8, sizeof(pr) - 8);
			break;
		case GP_REC_MODULE:
			assert_memory_equal((const char *)h + 8, (const char *)&mo + 8, sizeof(mo) - 8);
			assert_string_equal(gp_reader__string(r, mo.path_str), "/usr/bin/app");
			break;
		case GP_REC_DEVICE:
			assert_memory_equal((const char *)h + 8, (const char *)&dev + 8, sizeof(dev) - 8);
			break;
		case GP_REC_DROPPED:
			assert_int_equal(((const struct gp_rec_dropped *)h)->count, 12345);
			break;
		case GP_REC_CPU_SAMPLE: {
			const struct gp_rec_cpu_sample *c = (const void *)h;

			assert_int_equal(h->size, sizeof(*c) + 24);
			assert_int_equal(c->ts, 1234);
			assert_int_equal(c->ips[2], 0xffffffff81000000ull);
			break;
		}
		case GP_REC_OFFCPU: {
			const struct gp_rec_offcpu *o = (const void *)h;

			assert_int_equal(o->start, 50);
			assert_int_equal(o->end, 70);
			assert_int_equal(o->ips[0], 0x402000);
			break;
		}
		case GP_REC_LAUNCH_SITE: {
			const struct gp_rec_launch_site *l = (const void *)h;

			assert_int_equal(l->ts, 89);
			assert_string_equal(gp_reader__string(r, l->probe_str), "cudaLaunchKernel");
			break;
		}
		case GP_REC_STACK: {
			const struct gp_rec_stack *sk = (const void *)h;

			assert_int_equal(sk->id, 1);
			assert_int_equal(sk->nr_user, 2);
			assert_int_equal(sk->nr_kernel, 1);
			assert_int_equal(sk->ips[2], 0xffffffff81000100ull);
			assert_int_equal(seen[GP_REC_LAUNCH_SITE_ID], 0); /* defined ahead of its use */
			break;
		}
		case GP_REC_LAUNCH_SITE_ID: {
			const struct gp_rec_launch_site_id *l = (const void *)h;

			assert_int_equal(l->ts, 95);
			assert_int_equal(l->stack_id, 1);
			break;
		}
		case GP_REC_API_STACK: {
			const struct gp_rec_api_stack *as = (const void *)h;

			assert_int_equal(as->correlation_id, 42);
			assert_int_equal(as->stack_id, 1);
			assert_int_equal(as->hdr.flags, GP_API_STACK_NESTED);
			break;
		}
		case GP_REC_MEMORY: {
			const struct gp_rec_memory *mem = (const void *)h;

			assert_int_equal(mem->ts, 97);
			assert_int_equal(mem->correlation_id, 43);
			assert_int_equal(mem->bytes, 1 << 20);
			assert_int_equal(mem->op, GP_MEM_ALLOC);
			break;
		}
		default:
			break;
		}
	}
	for (i = GP_REC_CLOCK_PAIR; i < GP_REC_TYPE_COUNT; i++)
		assert_int_equal(seen[i], 1);
	assert_int_equal(seen[GP_REC_STRING], 3);
	gp_reader__stats(r, &st);
	assert_int_equal(st.clean_end, 1);
	assert_int_equal(st.truncated, 0);
	assert_int_equal(st.bad_chunks, 0);
	gp_reader__free(r);
	free(b.data);
}

/*
 * Stacks named by id (GP_REC_STACK + GP_REC_LAUNCH_SITE_ID): every chunk
 * defines the stacks its records name, ahead of them, so each chunk reads
 * on its own; an id always names the same frames, also after the writer's
 * table has filled and started again.
 */
static void check_stack_ids(const struct blob *b, uint64_t n, const uint64_t *(*frames_of)(uint64_t, uint16_t *))
{
	char err[256];
	struct gp_reader *r = gp_reader__open_mem(b->data, b->size, "stk.trace", err, sizeof(err));
	const uint64_t **def = calloc(n + 2, sizeof(*def)); /* by id: frames last defined in this chunk */
	uint16_t *ndef = calloc(n + 2, sizeof(*ndef));
	uint64_t *first_ip = calloc(n + 2, sizeof(*first_ip)); /* by id, file-wide: its frames' first */
	const uint8_t *recs;
	uint64_t seen = 0, chunks = 0;
	size_t len, off;

	assert_non_null(r);
	assert_true(def && ndef && first_ip);
	while (gp_reader__next_chunk(r, &recs, &len) == GP_READ_RECORD) {
		memset(def, 0, (n + 2) * sizeof(*def));
		chunks++;
		for (off = 0; off < len; off += ((const struct gp_rec_hdr *)(recs + off))->size) {
			const struct gp_rec_hdr *h = (const void *)(recs + off);

			if (h->type == GP_REC_STACK) {
				const struct gp_rec_stack *k = (const void *)h;

				assert_in_range(k->id, 1, n + 1);
				def[k->id] = k->ips;
				ndef[k->id] = k->nr_user;
				if (first_ip[k->id])
					assert_int_equal(first_ip[k->id], k->ips[0]);
				first_ip[k->id] = k->ips[0];
			} else if (h->type == GP_REC_LAUNCH_SITE_ID) {
				const struct gp_rec_launch_site_id *l = (const void *)h;
				uint16_t want_n;
				const uint64_t *want = frames_of(l->ts, &want_n);

				assert_in_range(l->stack_id, 1, n + 1);
				assert_non_null(def[l->stack_id]); /* in this chunk, before this record */
				assert_int_equal(ndef[l->stack_id], want_n);
				assert_memory_equal(def[l->stack_id], want, 8 * (size_t)want_n);
				assert_int_equal(l->ts, seen);
				seen++;
			}
		}
	}
	assert_int_equal(seen, n);
	assert_true(chunks > 2);
	free(def);
	free(ndef);
	free(first_ip);
	gp_reader__free(r);
}

/* Record i's stack: one of five, 1 to 40 frames deep. */
static const uint64_t *five_stacks(uint64_t i, uint16_t *n)
{
	static uint64_t ips[5][40];

	for (int k = 0; k < 5; k++)
		for (int j = 0; j < 40; j++)
			ips[k][j] = 0x500000 + 0x1000 * (uint64_t)k + 8 * (uint64_t)j;
	*n = (uint16_t)(1 + (i % 5) * 9);
	return ips[i % 5];
}

/* Record i's stack: its own, one frame. */
static const uint64_t *own_stack(uint64_t i, uint16_t *n)
{
	static uint64_t ip;

	ip = 0x700000 + 16 * i;
	*n = 1;
	return &ip;
}

static void write_stack_ids(struct gp_writer *w, uint64_t n, const uint64_t *(*frames_of)(uint64_t, uint16_t *))
{
	for (uint64_t i = 0; i < n; i++) {
		struct gp_rec_launch_site_id *l = gp_writer__reserve(w, GP_REC_LAUNCH_SITE_ID, sizeof(*l));
		uint16_t nf;
		const uint64_t *f = frames_of(i, &nf);

		assert_non_null(l);
		l->ts = i;
		l->pid = 1;
		l->tid = 1;
		l->stack_id = gp_writer__intern_stack(w, f, nf, 0);
		assert_int_not_equal(l->stack_id, 0);
		gp_writer__commit(w);
	}
}

static void test_stack_ids(void **state)
{
	FILE *fp;
	struct gp_writer *w = tmp_writer(&fp, 4096);
	struct blob b;
	uint64_t too_deep[GP_STACK_MAX_DEPTH + 1] = { 0 };

	(void)state;
	assert_int_equal(gp_writer__intern_stack(w, too_deep, 0, 0), 0); /* no frames, no id */
	write_stack_ids(w, 20000, five_stacks);
	b = finish(w, fp, 1);
	check_stack_ids(&b, 20000, five_stacks);
	free(b.data);

	/* 70000 distinct stacks: past the writer's 65536 it starts again, with new ids */
	w = tmp_writer(&fp, 64 << 10);
	assert_int_equal(gp_writer__intern_stack(w, too_deep, GP_STACK_MAX_DEPTH + 1, 0), 0);
	write_stack_ids(w, 70000, own_stack);
	b = finish(w, fp, 1);
	check_stack_ids(&b, 70000, own_stack);
	free(b.data);
}

/* Many chunks, names reused: every field of every record comes back. */
static struct blob write_kernels(uint64_t n, uint32_t chunk, int clean)
{
	static const char *names[] = { "_Z4gemmPfS_S_", "_Z4reluPf", "_Z7softmaxPfi" };
	FILE *fp;
	struct gp_writer *w = tmp_writer(&fp, chunk);
	uint64_t i;

	rng_state = 88172645463325252ull;
	for (i = 0; i < n; i++) {
		struct gp_rec_kernel *k = gp_writer__reserve(w, GP_REC_KERNEL, sizeof(*k));

		assert_non_null(k);
		fill_kernel(k, i, gp_writer__intern(w, names[i % 3]));
		gp_writer__commit(w);
	}
	assert_int_equal(gp_writer__records(w), n);
	assert_int_equal(gp_writer__lost(w), 0);
	return finish(w, fp, clean);
}

static void test_many_chunks(void **state)
{
	const uint64_t n = 100000;
	struct blob b = write_kernels(n, 16384, 1);
	const struct gp_rec_hdr *h;
	struct gp_reader_stats st;
	struct gp_reader *r;
	uint64_t i = 0;

	(void)state;
	r = gp_reader__open_mem(b.data, b.size, "many.trace", NULL, 0);
	assert_non_null(r);
	rng_state = 88172645463325252ull;
	while (gp_reader__next(r, &h) == GP_READ_RECORD) {
		struct gp_rec_kernel want = { 0 };
		const struct gp_rec_kernel *k = (const void *)h;

		if (h->type != GP_REC_KERNEL)
			continue;
		fill_kernel(&want, i, k->name_str);
		assert_memory_equal((const char *)k + 8, (const char *)&want + 8, sizeof(want) - 8);
		assert_non_null(gp_reader__string(r, k->name_str));
		i++;
	}
	assert_int_equal(i, n);
	gp_reader__stats(r, &st);
	assert_true(st.chunks > 100);
	/* Compression does its job: well under the 96-byte struct per record. */
	assert_true(b.size / n < 32);
	gp_reader__free(r);
	free(b.data);
}

/*
 * A writer that has fallen behind stores chunks uncompressed for a while:
 * the records read back the same, the stored chunks are counted, and they
 * cost more bytes.
 */
static void test_stored_chunks(void **state)
{
	const uint64_t n = 30000;
	struct blob packed = write_kernels(n, 16384, 1), b;
	const struct gp_rec_hdr *h;
	struct gp_reader *r;
	struct gp_writer *w;
	uint64_t i, chunks, stored;
	FILE *fp;
	int rc;

	(void)state;
	w = tmp_writer(&fp, 16384);
	rng_state = 88172645463325252ull;
	for (i = 0; i < n; i++) {
		struct gp_rec_kernel *k;

		gp_writer__set_stored(w, i >= n / 3 && i < 2 * n / 3);
		k = gp_writer__reserve(w, GP_REC_KERNEL, sizeof(*k));
		assert_non_null(k);
		fill_kernel(k, i, gp_writer__intern(w, "_Z4gemmPfS_S_"));
		gp_writer__commit(w);
	}
	chunks = gp_writer__chunks(w, &stored);
	assert_true(stored > 5);
	assert_true(chunks > 2 * stored);
	b = finish(w, fp, 1);
	assert_true(b.size > packed.size + packed.size / 2);

	r = gp_reader__open_mem(b.data, b.size, "stored.trace", NULL, 0);
	assert_non_null(r);
	rng_state = 88172645463325252ull;
	i = 0;
	while ((rc = gp_reader__next(r, &h)) != GP_READ_EOF) {
		struct gp_rec_kernel want = { 0 };
		const struct gp_rec_kernel *k = (const void *)h;

		assert_int_equal(rc, GP_READ_RECORD); /* no damage anywhere */
		if (h->type != GP_REC_KERNEL)
			continue;
		fill_kernel(&want, i, k->name_str);
		assert_memory_equal((const char *)k + 8, (const char *)&want + 8, sizeof(want) - 8);
		assert_string_equal(gp_reader__string(r, k->name_str), "_Z4gemmPfS_S_");
		i++;
	}
	assert_int_equal(i, n);
	gp_reader__free(r);
	free(b.data);
	free(packed.data);
}

/*
 * Interning goes by what a string says, not where it lives: a buffer
 * rewritten in place with another name gets that name's id, and the same
 * name from another address the first id (the writer caches by address).
 */
static void test_intern_by_content(void **state)
{
	char buf[32], other[32];
	uint32_t a, b, a2, a3;
	FILE *fp;
	struct gp_writer *w = tmp_writer(&fp, 0);
	struct blob bl;

	(void)state;
	strcpy(buf, "_Z5alphav");
	a = gp_writer__intern(w, buf);
	assert_int_equal(gp_writer__intern(w, buf), a);
	strcpy(buf, "_Z4betav");
	b = gp_writer__intern(w, buf);
	assert_int_not_equal(a, b);
	strcpy(other, "_Z5alphav");
	a2 = gp_writer__intern(w, other);
	assert_int_equal(a2, a);
	strcpy(buf, "_Z5alphav");
	a3 = gp_writer__intern(w, buf);
	assert_int_equal(a3, a);
	strcpy(buf, "_Z5alphavx"); /* one character longer than the cached string */
	assert_int_not_equal(gp_writer__intern(w, buf), a);
	bl = finish(w, fp, 1);
	free(bl.data);
}

/* Chunk boundaries and per-chunk record counts of a well-formed trace. */
struct chunk_map {
	size_t end[4096];
	uint32_t nrec[4096];
	int n;
};

static void map_chunks(const struct blob *b, struct chunk_map *cm)
{
	size_t off = sizeof(struct gp_file_header);

	cm->n = 0;
	while (off < b->size) {
		struct gp_chunk_header ch;

		memcpy(&ch, b->data + off, sizeof(ch));
		assert_int_equal(ch.magic, GP_CHUNK_MAGIC);
		off += sizeof(ch) + ch.csize;
		assert_true(cm->n < 4096);
		cm->end[cm->n] = off;
		cm->nrec[cm->n] = ch.nrecords;
		cm->n++;
	}
	assert_int_equal(off, b->size);
}

static void test_truncation_every_byte(void **state)
{
	struct blob b = write_kernels(600, 4096, 1);
	struct chunk_map cm;
	size_t len;
	char err[512];

	(void)state;
	map_chunks(&b, &cm);
	assert_true(cm.n >= 10);
	for (len = 0; len <= b.size; len++) {
		struct gp_reader *r = gp_reader__open_mem(b.data, len, "cut.trace", err, sizeof(err));
		struct gp_reader_stats st;
		uint64_t want = 0, got;
		int errors, c;

		if (len < sizeof(struct gp_file_header)) {
			assert_null(r);
			assert_non_null(strstr(err, "cut.trace"));
			continue;
		}
		assert_non_null(r);
		for (c = 0; c < cm.n && cm.end[c] <= len; c++)
			want += cm.nrec[c];
		err[0] = '\0';
		got = drain(r, &errors, err, sizeof(err));
		assert_int_equal(got, want);
		gp_reader__stats(r, &st);
		if (len == b.size) {
			assert_int_equal(errors, 0);
			assert_int_equal(st.clean_end, 1);
		} else if (c < cm.n && len > (c ? cm.end[c - 1] : sizeof(struct gp_file_header))) {
			/* cut inside a chunk: one clear error naming file and offset */
			assert_int_equal(errors, 1);
			assert_int_equal(st.truncated, 1);
			assert_non_null(strstr(err, "'cut.trace': offset "));
			assert_non_null(strstr(err, "truncated"));
		} else {
			assert_int_equal(errors, 0); /* cut on a chunk boundary */
		}
		gp_reader__free(r);
	}
	free(b.data);
}

static void test_bit_flips(void **state)
{
	struct blob b = write_kernels(600, 4096, 1);
	struct chunk_map cm;
	uint64_t total = 0;
	size_t pos;
	int c;

	(void)state;
	map_chunks(&b, &cm);
	for (c = 0; c < cm.n; c++)
		total += cm.nrec[c];
	for (pos = 0; pos < b.size; pos++) {
		uint8_t *copy = malloc(b.size);
		struct gp_reader *r;
		char err[512];
		int errors;
		uint64_t got;

		memcpy(copy, b.data, b.size);
		copy[pos] ^= (uint8_t)(1u << (pos % 8));
		r = gp_reader__open_mem(copy, b.size, "flip.trace", err, sizeof(err));
		if (pos < sizeof(struct gp_file_header)) {
			/* any header damage is caught (magic, checksum) */
			assert_null(r);
			assert_non_null(strstr(err, "flip.trace"));
			free(copy);
			continue;
		}
		assert_non_null(r);
		got = drain(r, &errors, NULL, 0);
		for (c = 0; pos >= cm.end[c]; c++)
			;
		/* exactly the damaged chunk is lost; every other chunk reads */
		assert_int_equal(got, total - cm.nrec[c]);
		assert_int_equal(errors, 1);
		gp_reader__free(r);
		free(copy);
	}
	free(b.data);
}

/* A chunk stands on its own: strings are defined again in each chunk. */
static void test_lost_chunk_keeps_names(void **state)
{
	struct blob b = write_kernels(3000, 4096, 1);
	struct chunk_map cm;
	const struct gp_rec_hdr *h;
	struct gp_reader *r;
	uint64_t named = 0;

	(void)state;
	map_chunks(&b, &cm);
	/* wipe the first chunk's payload, where the names were first defined */
	memset(b.data + sizeof(struct gp_file_header) + sizeof(struct gp_chunk_header), 0x55, 64);
	r = gp_reader__open_mem(b.data, b.size, "lost.trace", NULL, 0);
	assert_non_null(r);
	for (;;) {
		int rc = gp_reader__next(r, &h);

		if (rc == GP_READ_EOF)
			break;
		if (rc == GP_READ_RECORD && h->type == GP_REC_KERNEL) {
			assert_non_null(gp_reader__string(r, ((const struct gp_rec_kernel *)h)->name_str));
			named++;
		}
	}
	assert_int_equal(named, 3000 - (cm.nrec[0] - 3)); /* 3 string records in chunk 0 */
	gp_reader__free(r);
	free(b.data);
}

static void rewrite_header(struct blob *b, void (*edit)(struct gp_file_header *))
{
	struct gp_file_header h;

	memcpy(&h, b->data, sizeof(h));
	edit(&h);
	h.header_crc = (uint32_t)crc32(0, (const Bytef *)&h, offsetof(struct gp_file_header, header_crc));
	memcpy(b->data, &h, sizeof(h));
}

static void bump_major(struct gp_file_header *h)
{
	h->version_major = GP_FORMAT_MAJOR + 1;
}

static void bump_minor(struct gp_file_header *h)
{
	h->version_minor = GP_FORMAT_MINOR + 7;
}

static void test_versions(void **state)
{
	struct blob b = write_kernels(10, 0, 1);
	struct gp_reader *r;
	char err[512], want[32];
	int errors;

	(void)state;
	rewrite_header(&b, bump_major);
	r = gp_reader__open_mem(b.data, b.size, "next.trace", err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, "cannot read 'next.trace'"));
	snprintf(want, sizeof(want), "version %u.%u", GP_FORMAT_MAJOR + 1, GP_FORMAT_MINOR);
	assert_non_null(strstr(err, want));
	free(b.data);

	/* a newer minor version reads */
	b = write_kernels(10, 0, 1);
	rewrite_header(&b, bump_minor);
	r = gp_reader__open_mem(b.data, b.size, "v1.7.trace", err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(drain(r, &errors, NULL, 0), 10 + 3 + 1);
	gp_reader__free(r);

	memcpy(b.data, "NOTATRCE", 8);
	r = gp_reader__open_mem(b.data, b.size, "x.bin", err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, "not a gpuperf trace"));
	free(b.data);
}

/* Records of types this build does not know are skipped by size. */
static void test_unknown_type_skipped(void **state)
{
	FILE *fp;
	struct gp_writer *w = tmp_writer(&fp, 0);
	struct gp_rec_dropped d = { 0 };
	struct gp_reader_stats st;
	struct gp_reader *r;
	struct blob b;
	uint64_t *future;
	int errors;

	(void)state;
	future = gp_writer__reserve(w, 200, 40);
	assert_non_null(future);
	future[2] = 0xdeadbeef;
	gp_writer__commit(w);
	d.count = 1;
	assert_int_equal(gp_writer__append(w, GP_REC_DROPPED, &d, sizeof(d)), 0);
	b = finish(w, fp, 1);
	r = gp_reader__open_mem(b.data, b.size, "future.trace", NULL, 0);
	assert_non_null(r);
	assert_int_equal(drain(r, &errors, NULL, 0), 2); /* dropped + end */
	assert_int_equal(errors, 0);
	gp_reader__stats(r, &st);
	assert_int_equal(st.skipped_records, 1);
	gp_reader__free(r);
	free(b.data);
}

/* 2.4 appended graph_node_id to memcpy and memset: a 2.3 record (64 bytes) reads it as 0. */
static void test_memcpy_node_id_appended(void **state)
{
	FILE *fp;
	struct gp_writer *w = tmp_writer(&fp, 0);
	struct gp_rec_memcpy m = { 0 }, got;
	struct gp_rec_memset ms = { 0 }, got_s;
	const struct gp_rec_hdr *h;
	struct gp_reader *r;
	struct blob b;
	int n = 0;

	(void)state;
	m.bytes = 4096;
	m.graph_node_id = 0x100000005ull;
	assert_int_equal(gp_writer__append(w, GP_REC_MEMCPY, &m, sizeof(m)), 0);
	m.bytes = 64;
	assert_int_equal(gp_writer__append(w, GP_REC_MEMCPY, &m, 64), 0); /* as 2.3 wrote it */
	ms.value = 7;
	ms.graph_node_id = 9;
	assert_int_equal(gp_writer__append(w, GP_REC_MEMSET, &ms, sizeof(ms)), 0);
	b = finish(w, fp, 1);
	r = gp_reader__open_mem(b.data, b.size, "node.trace", NULL, 0);
	assert_non_null(r);
	while (gp_reader__next(r, &h) == GP_READ_RECORD) {
		if (h->type == GP_REC_MEMCPY) {
			gp_rec_read(&got, sizeof(got), h);
			assert_int_equal(got.graph_node_id, got.bytes == 4096 ? 0x100000005ull : 0);
			n++;
		} else if (h->type == GP_REC_MEMSET) {
			gp_rec_read(&got_s, sizeof(got_s), h);
			assert_int_equal(got_s.graph_node_id, 9);
			assert_int_equal(got_s.value, 7);
			n++;
		}
	}
	assert_int_equal(n, 3);
	gp_reader__free(r);
	free(b.data);
}

/* 2.5's memory records: every field back as written, through the delta coding of ts and corr. */
static void test_memory_roundtrip(void **state)
{
	FILE *fp;
	struct gp_writer *w = tmp_writer(&fp, 0);
	struct gp_rec_memory m[3], got;
	const struct gp_rec_hdr *h;
	struct gp_reader *r;
	struct blob b;
	int i, n = 0;

	(void)state;
	memset(m, 0, sizeof(m));
	for (i = 0; i < 3; i++) {
		m[i].ts = 5000000000ull + (uint64_t)(i == 1 ? 0 : 7 * i); /* one out of order */
		m[i].correlation_id = i == 2 ? 3 : 40u + (uint32_t)i;
		m[i].address = 0x7f0000001000ull + 0x1000ull * (uint64_t)i;
		m[i].bytes = 65536u << i;
		m[i].pid = 77;
		m[i].device_id = 1;
		m[i].context_id = 2;
		m[i].stream_id = i ? 13 : UINT32_MAX;
		m[i].op = (uint8_t)(i == 2 ? GP_MEM_FREE : GP_MEM_ALLOC);
		m[i].memory_kind = 3;
		m[i].pool_type = (uint8_t)(i ? 1 : 0);
		m[i].is_async = (uint8_t)(i ? 1 : 0);
		m[i].pool_address = i ? 0x7f0000000000ull : 0;
		m[i].pool_size = i ? 1u << 21 : 0;
		m[i].pool_used = i ? 65536u << i : 0;
		m[i].graph_node_id = i == 1 ? 0x100000007ull : 0;
		assert_int_equal(gp_writer__append(w, GP_REC_MEMORY, &m[i], sizeof(m[i])), 0);
	}
	b = finish(w, fp, 1);
	r = gp_reader__open_mem(b.data, b.size, "memory.trace", NULL, 0);
	assert_non_null(r);
	while (gp_reader__next(r, &h) == GP_READ_RECORD) {
		if (h->type != GP_REC_MEMORY)
			continue;
		assert_true(n < 3);
		gp_rec_read(&got, sizeof(got), h);
		m[n].hdr = got.hdr;
		assert_memory_equal(&got, &m[n], sizeof(got));
		n++;
	}
	assert_int_equal(n, 3);
	assert_string_equal(gp_rec_type_name(GP_REC_MEMORY), "memory");
	gp_reader__free(r);
	free(b.data);
}

static void test_writer_rejects_bad_records(void **state)
{
	FILE *fp;
	struct gp_writer *w = tmp_writer(&fp, 0);
	struct gp_rec_cpu_sample *cs;
	struct blob b;
	struct gp_reader *r;
	int errors;

	(void)state;
	errno = 0;
	assert_null(gp_writer__reserve(w, GP_REC_KERNEL, 16)); /* shorter than its type */
	assert_int_equal(errno, EINVAL);
	assert_null(gp_writer__reserve(w, GP_REC_KERNEL, GP_REC_MAX_SIZE + 8));
	cs = gp_writer__reserve(w, GP_REC_CPU_SAMPLE, sizeof(*cs) + 8);
	cs->nr_user = 5; /* claims more frames than it holds */
	gp_writer__commit(w);
	assert_int_equal(gp_writer__lost(w), 1);
	assert_int_equal(gp_writer__records(w), 0);
	b = finish(w, fp, 1);
	r = gp_reader__open_mem(b.data, b.size, "bad.trace", NULL, 0);
	assert_non_null(r);
	assert_int_equal(drain(r, &errors, NULL, 0), 1); /* only the end record */
	assert_int_equal(errors, 0);
	gp_reader__free(r);
	free(b.data);
}

/* A producer killed mid-run (no close): everything flushed reads, no end mark. */
static void test_abandoned_writer(void **state)
{
	FILE *fp;
	struct gp_writer *w = tmp_writer(&fp, 4096);
	struct gp_reader_stats st;
	struct gp_reader *r;
	struct blob b;
	uint64_t i, got;
	int errors;

	(void)state;
	for (i = 0; i < 500; i++) {
		struct gp_rec_kernel *k = gp_writer__reserve(w, GP_REC_KERNEL, sizeof(*k));

		fill_kernel(k, i, 0);
		gp_writer__commit(w);
	}
	assert_int_equal(gp_writer__flush(w), 0);
	for (i = 0; i < 10; i++) { /* never flushed: lost with the process */
		struct gp_rec_kernel *k = gp_writer__reserve(w, GP_REC_KERNEL, sizeof(*k));

		fill_kernel(k, i, 0);
		gp_writer__commit(w);
	}
	b = finish(w, fp, 0);
	r = gp_reader__open_mem(b.data, b.size, "killed.trace", NULL, 0);
	got = drain(r, &errors, NULL, 0);
	assert_int_equal(got, 500);
	assert_int_equal(errors, 0);
	gp_reader__stats(r, &st);
	assert_int_equal(st.clean_end, 0);
	gp_reader__free(r);
	free(b.data);
}

static void test_open_errors(void **state)
{
	char err[512];
	char dir[] = "/tmp/gp_trace_XXXXXX";
	char path[600];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/missing.trace", dir);
	assert_null(gp_reader__open(path, err, sizeof(err)));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, "missing.trace"));
	assert_non_null(strstr(err, "No such file"));

	assert_null(gp_reader__open(dir, err, sizeof(err)));
	assert_non_null(strstr(err, "is a directory"));

	snprintf(path, sizeof(path), "%s/empty.trace", dir);
	f = fopen(path, "w");
	fclose(f);
	assert_null(gp_reader__open(path, err, sizeof(err)));
	assert_non_null(strstr(err, "empty file"));
	unlink(path);

	/* the writer refuses to overwrite unless asked */
	snprintf(path, sizeof(path), "%s/x.trace", dir);
	assert_int_equal(gp_writer__close(gp_writer__open(path, NULL)), 0);
	assert_null(gp_writer__open(path, NULL));
	assert_int_equal(errno, EEXIST);
	unlink(path);
	rmdir(dir);
}

/* Words of every shape the packer tells apart: zero, full, low bytes only, scattered bytes. */
static void fill_words(uint8_t *buf, size_t nwords, uint32_t seed)
{
	size_t i;

	for (i = 0; i < nwords; i++) {
		uint64_t v = 0;
		unsigned k, shape;

		seed = seed * 1103515245u + 12345u;
		shape = (seed >> 16) % 4;
		for (k = 0; k < 8; k++) {
			seed = seed * 1103515245u + 12345u;
			if (shape == 1 || (shape == 2 && k < (i % 8)) || (shape == 3 && (seed >> 20) % 3 == 0))
				v |= (uint64_t)(1 + (seed >> 24) % 255) << (8 * k);
		}
		memcpy(buf + 8 * i, &v, sizeof(v));
	}
}

static void test_pack_roundtrip(void **state)
{
	enum { N = 4096 };
	uint8_t *in = malloc(8 * N), *out = malloc(8 * N);
	uint8_t *pk[2] = { malloc(GP_PACK_BOUND(8 * N)), malloc(GP_PACK_BOUND(8 * N)) };
	size_t i, plen[2], expect = N;
	int portable;

	(void)state;
	assert_non_null(in);
	assert_non_null(out);
	assert_non_null(pk[0]);
	assert_non_null(pk[1]);
	fill_words(in, N, 7);
	for (i = 0; i < 8 * N; i++)
		expect += in[i] != 0;
	/* the shuffle code (where the CPU has SSSE3) and the portable code agree byte for byte */
	for (portable = 0; portable < 2; portable++) {
		gp_pack__force_portable(portable);
		plen[portable] = gp_pack(in, 8 * N, pk[portable]);
		/* one mask byte per word, then only the non-zero bytes */
		assert_int_equal(plen[portable], expect);
		assert_int_equal(pk[portable][0], (in[0] != 0) | (in[1] != 0) << 1 | (in[2] != 0) << 2 |
						  (in[3] != 0) << 3 | (in[4] != 0) << 4 |
						  (in[5] != 0) << 5 | (in[6] != 0) << 6 | (in[7] != 0) << 7);
		memset(out, 0xaa, 8 * N);
		assert_int_equal(gp_unpack(pk[portable], plen[portable], out, 8 * N), 0);
		assert_memory_equal(in, out, 8 * N);
	}
	assert_memory_equal(pk[0], pk[1], plen[0]);
	/* unpacking one with the other */
	gp_pack__force_portable(0);
	assert_int_equal(gp_unpack(pk[1], plen[1], out, 8 * N), 0);
	assert_memory_equal(in, out, 8 * N);
	/* two parts pack as their concatenation */
	assert_int_equal(gp_pack2(in, 8 * 100, in + 8 * 100, 8 * (N - 100), pk[1]), plen[0]);
	assert_memory_equal(pk[0], pk[1], plen[0]);
	/* an all-zero word costs one byte */
	memset(in, 0, 64);
	assert_int_equal(gp_pack(in, 64, pk[0]), 8);
	free(in);
	free(out);
	free(pk[0]);
	free(pk[1]);
}

/* Damaged packed data is refused, and never read or written past (ASan checks the exact-size copies). */
static void test_unpack_damaged(void **state)
{
	enum { N = 64 };
	uint8_t in[8 * N], pk[GP_PACK_BOUND(8 * N)];
	uint8_t *exact, *out = malloc(8 * N);
	size_t plen, cut, w;
	int portable;

	(void)state;
	assert_non_null(out);
	fill_words(in, N, 3);
	plen = gp_pack(in, sizeof(in), pk);
	for (portable = 0; portable < 2; portable++) {
		gp_pack__force_portable(portable);
		for (cut = 0; cut < plen; cut++) {
			exact = malloc(cut ? cut : 1);
			assert_non_null(exact);
			memcpy(exact, pk, cut);
			assert_int_equal(gp_unpack(exact, cut, out, 8 * N), -1);
			free(exact);
		}
		exact = malloc(plen + 1);
		assert_non_null(exact);
		memcpy(exact, pk, plen);
		exact[plen] = 0;
		/* a byte left over */
		assert_int_equal(gp_unpack(exact, plen + 1, out, 8 * N), -1);
		/* an output that is not whole words, or one word short */
		assert_int_equal(gp_unpack(exact, plen, out, 8 * N - 3), -1);
		assert_int_equal(gp_unpack(exact, plen, out, 8 * N - 8), -1);
		/* a mask that claims one byte more than the data holds */
		for (w = 0; w < N && exact[w] == 0xff; w++)
			;
		assert_true(w < N);
		exact[w] |= (uint8_t)(~exact[w] & -(unsigned)~exact[w]);
		assert_int_equal(gp_unpack(exact, plen, out, 8 * N), -1);
		/* and the intact copy still unpacks */
		memcpy(exact, pk, plen);
		assert_int_equal(gp_unpack(exact, plen, out, 8 * N), 0);
		assert_memory_equal(in, out, 8 * N);
		free(exact);
	}
	gp_pack__force_portable(0);
	free(out);
}

/*
 * gp_rec_gpu: the fields the four GPU records share, written and read
 * through one accessor, land in each type's own fields; a sync has no
 * device, graph or node; a 2.3 memcpy (before graph_node_id) reads node 0.
 */
static void test_gpu_common_fields(void **state)
{
	const struct gp_rec_gpu in = { .start = 100, .end = 250, .graph_node_id = 77,
				       .correlation_id = 9, .pid = 1234, .device_id = 2,
				       .context_id = 3, .stream_id = 14, .graph_id = 5 };
	struct gp_rec_kernel k = { .hdr = { .type = GP_REC_KERNEL, .size = sizeof(k) } };
	struct gp_rec_memcpy m = { .hdr = { .type = GP_REC_MEMCPY, .size = sizeof(m) } };
	struct gp_rec_memset ms = { .hdr = { .type = GP_REC_MEMSET, .size = sizeof(ms) } };
	struct gp_rec_sync s = { .hdr = { .type = GP_REC_SYNC, .size = sizeof(s) } };
	struct gp_rec_api a = { .hdr = { .type = GP_REC_API, .size = sizeof(a) } };
	struct gp_rec_gpu out;

	(void)state;
	assert_true(gp_rec_gpu__set(&k.hdr, &in));
	assert_int_equal(k.correlation_id, 9);
	assert_int_equal(k.device_id, 2);
	assert_int_equal(k.graph_node_id, 77);
	assert_true(gp_rec_gpu__get(&k.hdr, &out));
	assert_memory_equal(&out, &in, sizeof(in));

	assert_true(gp_rec_gpu__set(&m.hdr, &in));
	assert_int_equal(m.stream_id, 14);
	assert_int_equal(m.graph_id, 5);
	assert_true(gp_rec_gpu__get(&m.hdr, &out));
	assert_memory_equal(&out, &in, sizeof(in));
	m.hdr.size = (uint32_t)__builtin_offsetof(struct gp_rec_memcpy, graph_node_id);
	assert_true(gp_rec_gpu__get(&m.hdr, &out));
	assert_int_equal(out.graph_node_id, 0);
	assert_int_equal(out.end, 250);

	assert_true(gp_rec_gpu__set(&ms.hdr, &in));
	assert_int_equal(ms.pid, 1234);
	assert_true(gp_rec_gpu__get(&ms.hdr, &out));
	assert_memory_equal(&out, &in, sizeof(in));

	assert_true(gp_rec_gpu__set(&s.hdr, &in));
	assert_int_equal(s.context_id, 3);
	assert_int_equal(s.stream_id, 14);
	assert_true(gp_rec_gpu__get(&s.hdr, &out));
	assert_int_equal(out.start, 100);
	assert_int_equal(out.correlation_id, 9);
	assert_int_equal(out.device_id, 0);
	assert_int_equal(out.graph_id, 0);
	assert_int_equal(out.graph_node_id, 0);

	assert_false(gp_rec_gpu__get(&a.hdr, &out));
	assert_int_equal(out.start, 0);
	assert_false(gp_rec_gpu__set(&a.hdr, &in));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_every_type),
		cmocka_unit_test(test_gpu_common_fields),
		cmocka_unit_test(test_many_chunks),
		cmocka_unit_test(test_stored_chunks),
		cmocka_unit_test(test_intern_by_content),
		cmocka_unit_test(test_stack_ids),
		cmocka_unit_test(test_truncation_every_byte),
		cmocka_unit_test(test_bit_flips),
		cmocka_unit_test(test_lost_chunk_keeps_names),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_memcpy_node_id_appended),
		cmocka_unit_test(test_unknown_type_skipped),
		cmocka_unit_test(test_memory_roundtrip),
		cmocka_unit_test(test_writer_rejects_bad_records),
		cmocka_unit_test(test_abandoned_writer),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_pack_roundtrip),
		cmocka_unit_test(test_unpack_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
