// SPDX-License-Identifier: Apache-2.0
/* The simulator's CUPTI as an NVTX tool (sim_nvtx.c), against the sentences of cupti_activity.h and nvToolsExt.h. */

/*
 * main() points NVTX_INJECTION64_PATH at the simulated libcupti this test
 * is linked with, as CUPTI's NVTX configuration asks, before the first
 * NVTX call: the nvtx3 headers compiled into this file then load it and
 * route every call through it. Records are read with sim_test.h's client.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cupti.h>
#include <generated_nvtx_meta.h>
#include <nvtx3/nvToolsExt.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sim_test.h"

#define DOC(s) static const char doc_sentence[] __attribute__((unused)) = s

/* What the NVTX callbacks saw. */
#define MAX_CBS 64

static struct {
	pthread_mutex_t lock;
	int n;
	struct {
		CUpti_CallbackId cbid;
		const char *fn;
		char message[32];
		int ret;
	} cb[MAX_CBS];
} seen = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				 const void *cbdata)
{
	const CUpti_NvtxData *d = cbdata;

	if (domain != CUPTI_CB_DOMAIN_NVTX)
		return;
	pthread_mutex_lock(&seen.lock);
	if (seen.n < MAX_CBS) {
		seen.cb[seen.n].cbid = cbid;
		seen.cb[seen.n].fn = d->functionName;
		seen.cb[seen.n].ret = -100;
		if (cbid == CUPTI_CBID_NVTX_nvtxRangePushA) {
			const nvtxRangePushA_params *p = d->functionParams;

			snprintf(seen.cb[seen.n].message, sizeof(seen.cb[seen.n].message), "%s",
				 p->message);
		}
		if ((cbid == CUPTI_CBID_NVTX_nvtxRangePushA || cbid == CUPTI_CBID_NVTX_nvtxRangePop) &&
		    d->functionReturnValue)
			seen.cb[seen.n].ret = *(const int *)d->functionReturnValue;
		seen.n++;
	}
	pthread_mutex_unlock(&seen.lock);
}

static uint32_t gettid_u32(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static const CUpti_ActivityMarker2 *marker(size_t nth)
{
	return (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MARKER, nth);
}

/* The record of @flags and @id, or NULL. */
static const CUpti_ActivityMarker2 *marker_of(CUpti_ActivityFlag flags, uint32_t id)
{
	const CUpti_ActivityMarker2 *m;

	for (size_t i = 0; (m = marker(i)); i++)
		if (m->flags == flags && m->id == id)
			return m;
	return NULL;
}

/* The START record named @name, or NULL. */
static const CUpti_ActivityMarker2 *start_named(const char *name)
{
	const CUpti_ActivityMarker2 *m;

	for (size_t i = 0; (m = marker(i)); i++)
		if (m->flags == CUPTI_ACTIVITY_FLAG_MARKER_START && m->name &&
		    !strcmp(m->name, name))
			return m;
	return NULL;
}

static void *end_elsewhere(void *arg)
{
	nvtxRangeEnd(*(nvtxRangeId_t *)arg);
	return NULL;
}

static void test_ranges_and_marks(void **state)
{
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_MARKER,
						    CUPTI_ACTIVITY_KIND_MARKER_DATA,
						    CUPTI_ACTIVITY_KIND_NAME };
	const CUpti_ActivityMarker2 *m, *outer, *inner, *d_start, *p_start, *p_end;
	const CUpti_ActivityMarkerData2 *md;
	const CUpti_ActivityName *nm;
	nvtxEventAttributes_t a;
	CUpti_SubscriberHandle sub;
	nvtxDomainHandle_t dom;
	nvtxStringHandle_t reg;
	nvtxRangeId_t proc;
	pthread_t t;

	assert_int_equal(cuptiSubscribe(&sub, on_callback, NULL), CUPTI_SUCCESS);
	assert_int_equal(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_NVTX), CUPTI_SUCCESS);
	assert_int_equal(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM), CUPTI_SUCCESS);
	sim_recs_start(kinds, 3);

	nvtxMarkA("checkpoint");
	{
		DOC("The 0 based level of range being started.");
		assert_int_equal(nvtxRangePushA("outer"), 0);
		assert_int_equal(nvtxRangePushA("inner"), 1);
	}
	dom = nvtxDomainCreateA("io");
	assert_non_null(dom);
	reg = nvtxDomainRegisterStringA(dom, "read batch");
	assert_non_null(reg);
	memset(&a, 0, sizeof(a));
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.colorType = NVTX_COLOR_ARGB;
	a.color = 0xff00ff00u;
	a.category = 7;
	a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
	a.payload.ullValue = 4096;
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = reg;
	{
		DOC("Each domain maintains its own nvtxRangePush and nvtxRangePop stack.");
		assert_int_equal(nvtxDomainRangePushEx(dom, &a), 0);
		assert_int_equal(nvtxDomainRangePop(dom), 0);
	}
	{
		DOC("The level of the range being ended.");
		assert_int_equal(nvtxRangePop(), 1);
		assert_int_equal(nvtxRangePop(), 0);
		/* "If an error occurs a negative value is returned on the current thread." */
		assert_true(nvtxRangePop() < 0);
	}
	/* A process range may end on another thread. */
	proc = nvtxRangeStartA("load");
	assert_int_equal(pthread_create(&t, NULL, end_elsewhere, &proc), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	nvtxNameOsThreadA(gettid_u32(), "main loop");
	assert_int_equal(cuptiActivityFlushAll(1), CUPTI_SUCCESS);

	/* "Instantaneous, start, or end NVTX marker." */
	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_MARKER), 1 + 2 * 2 + 2 + 2);
	m = marker(0);
	assert_non_null(m);
	assert_int_equal(m->flags, CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS);
	assert_string_equal(m->name, "checkpoint");
	/* "This will be NULL for default domain." */
	assert_null(m->domain);
	assert_int_equal(m->objectKind, CUPTI_ACTIVITY_OBJECT_THREAD);
	assert_int_equal(m->objectId.pt.processId, (uint32_t)getpid());
	assert_int_equal(m->objectId.pt.threadId, gettid_u32());

	outer = start_named("outer");
	inner = start_named("inner");
	assert_non_null(outer);
	assert_non_null(inner);
	assert_int_not_equal(outer->id, inner->id);
	{
		DOC("The marker name for an instantaneous or start marker. This will be NULL for an end marker.");
		const CUpti_ActivityMarker2 *oe = marker_of(CUPTI_ACTIVITY_FLAG_MARKER_END, outer->id);
		const CUpti_ActivityMarker2 *ie = marker_of(CUPTI_ACTIVITY_FLAG_MARKER_END, inner->id);

		assert_non_null(oe);
		assert_non_null(ie);
		assert_null(oe->name);
		/* nested: inner starts after outer and ends before it */
		assert_true(outer->timestamp <= inner->timestamp);
		assert_true(inner->timestamp <= ie->timestamp);
		assert_true(ie->timestamp <= oe->timestamp);
	}

	d_start = start_named("read batch");
	assert_non_null(d_start);
	{
		DOC("The name of the domain to which this marker belongs to.");
		assert_non_null(d_start->domain);
		assert_string_equal(d_start->domain, "io");
		m = marker_of(CUPTI_ACTIVITY_FLAG_MARKER_END, d_start->id);
		assert_non_null(m);
		assert_string_equal(m->domain, "io");
	}
	{
		DOC("The marker data contains color, payload, and category.");
		assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_MARKER_DATA), 1);
		md = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MARKER_DATA, 0);
		assert_int_equal(md->id, d_start->id);
		assert_int_equal(md->flags, CUPTI_ACTIVITY_FLAG_MARKER_COLOR_ARGB);
		assert_int_equal(md->color, 0xff00ff00u);
		assert_int_equal(md->category, 7);
		assert_int_equal(md->payloadKind, CUPTI_METRIC_VALUE_KIND_UINT64);
		assert_int_equal(md->payload.metricValueUint64, 4096);
	}

	/* "The unique ID used to correlate a pair of Start and End events." */
	p_start = start_named("load");
	assert_non_null(p_start);
	assert_int_equal(p_start->id, (uint32_t)proc);
	p_end = marker_of(CUPTI_ACTIVITY_FLAG_MARKER_END, p_start->id);
	assert_non_null(p_end);
	assert_int_not_equal(p_end->objectId.pt.threadId, p_start->objectId.pt.threadId);

	{
		DOC("Resource naming done via NVTX APIs for thread, device, context, etc.");
		assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_NAME), 1);
		nm = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_NAME, 0);
		assert_int_equal(nm->objectKind, CUPTI_ACTIVITY_OBJECT_THREAD);
		assert_int_equal(nm->objectId.pt.threadId, gettid_u32());
		assert_string_equal(nm->name, "main loop");
	}

	/* "Data passed into a NVTX callback function as the cbdata argument" */
	pthread_mutex_lock(&seen.lock);
	assert_true(seen.n >= 12);
	assert_int_equal(seen.cb[0].cbid, CUPTI_CBID_NVTX_nvtxMarkA);
	assert_string_equal(seen.cb[0].fn, "nvtxMarkA");
	assert_int_equal(seen.cb[1].cbid, CUPTI_CBID_NVTX_nvtxRangePushA);
	assert_string_equal(seen.cb[1].message, "outer");
	assert_int_equal(seen.cb[1].ret, 0);
	assert_int_equal(seen.cb[2].cbid, CUPTI_CBID_NVTX_nvtxRangePushA);
	assert_int_equal(seen.cb[2].ret, 1);
	assert_int_equal(seen.cb[3].cbid, CUPTI_CBID_NVTX_nvtxDomainCreateA);
	pthread_mutex_unlock(&seen.lock);
	assert_int_equal(cuptiUnsubscribe(sub), CUPTI_SUCCESS);
}

/* Marker records are off unless asked for: nothing reaches a client that only traces API calls. */
static void test_no_records_unless_enabled(void **state)
{
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_RUNTIME };

	assert_int_equal(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MARKER), CUPTI_SUCCESS);
	assert_int_equal(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MARKER_DATA), CUPTI_SUCCESS);
	assert_int_equal(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_NAME), CUPTI_SUCCESS);
	sim_recs_start(kinds, 1);
	assert_int_equal(nvtxRangePushA("quiet"), 0);
	assert_int_equal(nvtxRangePop(), 0);
	nvtxMarkA("quiet");
	assert_int_equal(cuptiActivityFlushAll(1), CUPTI_SUCCESS);
	assert_int_equal(sim_recs.nseen, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges_and_marks),
		cmocka_unit_test(test_no_records_unless_enabled),
	};
	Dl_info info;

	/* "Set the NVTX_INJECTION64_PATH environment variable to point to the same CUPTI shared library" */
	if (!dladdr((void *)cuptiGetVersion, &info) || !info.dli_fname ||
	    setenv("NVTX_INJECTION64_PATH", info.dli_fname, 1)) {
		fprintf(stderr, "test_sim_nvtx: cannot find the simulated libcupti\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
