// SPDX-License-Identifier: Apache-2.0
/* The injection library's CUPTI buffer pool: bounded, FIFO hand-over, pages given back after a burst. */

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "act_buf.h"
#include "gp_util.h"

#define SIZE (64u << 10)
#define COUNT 8u
#define KEEP 2u

/* Buffers of the pool whose first page is resident. */
static unsigned resident_buffers(const struct act_buf *p)
{
	unsigned i, n = 0;
	unsigned char vec;

	for (i = 0; i < p->count; i++) {
		assert_int_equal(mincore(p->mem + (size_t)i * p->size, 1, &vec), 0);
		n += vec & 1;
	}
	return n;
}

static uint8_t *request(struct act_buf *p)
{
	uint8_t *b;
	size_t size, max;

	act_buf__requested(p, &b, &size, &max);
	if (b) {
		assert_int_equal(size, SIZE);
		memset(b, 0xab, size); /* what CUPTI does: write records */
	}
	return b;
}

/* A burst uses every buffer; once the writer gives them back only KEEP stay resident. */
static void test_burst_memory_given_back(void **state)
{
	struct act_buf p;
	uint8_t *bufs[COUNT];
	struct act_buf_done d;
	unsigned i;

	(void)state;
	assert_int_equal(act_buf__init(&p, SIZE, COUNT, KEEP, -1), 0);
	assert_int_equal(resident_buffers(&p), 0);
	for (i = 0; i < COUNT; i++) {
		bufs[i] = request(&p);
		assert_non_null(bufs[i]);
	}
	/* The pool is bounded: the next request is declined and counted. */
	assert_null(request(&p));
	assert_int_equal(act_buf__take_declined(&p), 1);
	assert_int_equal(resident_buffers(&p), COUNT);

	for (i = 0; i < COUNT; i++)
		act_buf__completed(&p, bufs[i], 100 + i, 0);
	for (i = 0; i < COUNT; i++) {
		unsigned waiting = 99;

		assert_int_equal(act_buf__take(&p, &d, &waiting), 1);
		/* ... and the writer knows how many wait behind each. */
		assert_int_equal(waiting, COUNT - 1 - i);
		/* Completed buffers reach the writer in the order CUPTI completed them. */
		assert_ptr_equal(d.buf, bufs[i]);
		assert_int_equal(d.valid, 100 + i);
		act_buf__put(&p, d.buf);
	}
	assert_int_equal(act_buf__take(&p, &d, NULL), 0);
	assert_int_equal(p.nfree, COUNT);
	assert_int_equal(resident_buffers(&p), KEEP);

	/* Every buffer can be handed out again, and each exactly once. */
	for (i = 0; i < COUNT; i++) {
		unsigned j;

		bufs[i] = request(&p);
		assert_non_null(bufs[i]);
		for (j = 0; j < i; j++)
			assert_ptr_not_equal(bufs[i], bufs[j]);
	}
	assert_null(request(&p));
	act_buf__release(&p);
}

/* Steady state: a writer that keeps up reuses the same resident buffers, releasing nothing. */
static void test_steady_state_reuses(void **state)
{
	struct act_buf p;
	struct act_buf_done d;
	uint8_t *first, *b;
	unsigned i;

	(void)state;
	assert_int_equal(act_buf__init(&p, SIZE, COUNT, KEEP, -1), 0);
	first = request(&p);
	act_buf__completed(&p, first, 1, 0);
	assert_int_equal(act_buf__take(&p, &d, NULL), 1);
	act_buf__put(&p, d.buf);
	for (i = 0; i < 100; i++) {
		b = request(&p);
		assert_ptr_equal(b, first);
		act_buf__completed(&p, b, 1, 0);
		assert_int_equal(act_buf__take(&p, &d, NULL), 1);
		act_buf__put(&p, d.buf);
	}
	assert_int_equal(resident_buffers(&p), 1);
	assert_int_equal(act_buf__take_declined(&p), 0);
	act_buf__release(&p);
}

/* The writer stores chunks uncompressed from ACT_BUF_BEHIND buffers waiting until none waits. */
static void test_behind_hysteresis(void **state)
{
	static const unsigned waiting[] = { 0, 1, 2, 5, 1, 1, 0, 1, 2, 0 };
	static const int expect[] = { 0, 0, 1, 1, 1, 1, 0, 0, 1, 0 };
	int behind = 0;
	size_t i;

	(void)state;
	assert_int_equal(ACT_BUF_BEHIND, 2);
	for (i = 0; i < ARRAY_SIZE(waiting); i++) {
		behind = act_buf__behind(behind, waiting[i]);
		assert_int_equal(behind, expect[i]);
	}
}

/*
 * CUPTI may request and complete buffers on several threads at once (with
 * per-thread activity buffers, on the application's own threads) while the
 * writer takes and gives them back and pages are released: no buffer is
 * ever in two hands, none is released while in use, none is lost.
 */
#define PRODUCERS 4
#define ROUNDS 4000
#define MARK 4096 /* bytes of each buffer a producer writes and the writer checks */

struct conc {
	struct act_buf p;
	atomic_int owner[COUNT]; /* 0 free, 1 a producer's, 2 the writer's */
	atomic_int producers_left;
	atomic_long taken, twice, damaged;
};

static unsigned buf_index(const struct act_buf *p, const uint8_t *b)
{
	return (unsigned)((size_t)(b - p->mem) / p->size);
}

static void *producer(void *arg)
{
	struct conc *c = arg;
	unsigned n = 0;

	while (n < ROUNDS) {
		uint8_t *b;
		size_t size, max;
		int want = 0;
		unsigned char tag = (unsigned char)(n * 7 + 1);

		act_buf__requested(&c->p, &b, &size, &max);
		if (!b) {
			sched_yield(); /* the pool is empty: CUPTI would drop; here, try again */
			continue;
		}
		if (!atomic_compare_exchange_strong(&c->owner[buf_index(&c->p, b)], &want, 1))
			atomic_fetch_add(&c->twice, 1);
		memset(b, tag, MARK);
		b[size - 1] = tag;
		act_buf__completed(&c->p, b, MARK, tag); /* the stream argument carries the tag */
		n++;
	}
	atomic_fetch_sub(&c->producers_left, 1);
	return NULL;
}

static void test_concurrent_producers(void **state)
{
	static struct conc c;
	pthread_t t[PRODUCERS];
	struct act_buf_done d;
	int i;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(act_buf__init(&c.p, SIZE, COUNT, KEEP, -1), 0);
	atomic_store(&c.producers_left, PRODUCERS);
	for (i = 0; i < PRODUCERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, producer, &c), 0);
	for (;;) {
		int left = atomic_load(&c.producers_left);

		if (!act_buf__take(&c.p, &d, NULL)) {
			if (!left)
				break;
			sched_yield();
			continue;
		}
		{
			unsigned idx = buf_index(&c.p, d.buf);
			int want = 1;
			unsigned char tag = (unsigned char)d.stream;
			size_t k;

			if (!atomic_compare_exchange_strong(&c.owner[idx], &want, 2))
				atomic_fetch_add(&c.twice, 1);
			for (k = 0; k < MARK && d.buf[k] == tag; k++)
				;
			if (k != MARK || d.buf[SIZE - 1] != tag || d.valid != MARK)
				atomic_fetch_add(&c.damaged, 1);
			atomic_store(&c.owner[idx], 0);
			act_buf__put(&c.p, d.buf);
			atomic_fetch_add(&c.taken, 1);
		}
	}
	for (i = 0; i < PRODUCERS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&c.twice), 0);
	assert_int_equal(atomic_load(&c.damaged), 0);
	assert_int_equal(atomic_load(&c.taken), PRODUCERS * ROUNDS);
	assert_int_equal(c.p.nfree, COUNT);
	assert_true(resident_buffers(&c.p) <= KEEP);
	act_buf__release(&c.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_concurrent_producers),
		cmocka_unit_test(test_behind_hysteresis),
		cmocka_unit_test(test_burst_memory_given_back),
		cmocka_unit_test(test_steady_state_reuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
