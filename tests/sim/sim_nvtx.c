// SPDX-License-Identifier: Apache-2.0
/* The simulated libcupti.so.13 as an NVTX tool: what the nvtx3 headers load through NVTX_INJECTION64_PATH. */

/*
 * CUPTI's NVTX support: "Set the NVTX_INJECTION64_PATH environment variable
 * to point to the same CUPTI shared library" (CUPTI's NVTX configuration).
 * The nvtx3 headers then load this library at the program's first NVTX
 * call: "If env var NVTX_INJECTION64_PATH is set, it should contain the
 * path to a 64-bit dynamic NVTX injection library" and they call its
 * InitializeInjectionNvtx2 (nvtxInit.h), which fills their function tables
 * (NVTX_ETID_CALLBACKS) with the functions below. Each one:
 *
 *  - issues the call's CUPTI_CB_DOMAIN_NVTX callback (CUpti_NvtxData, with
 *    generated_nvtx_meta.h's parameters) when the subscriber enabled it;
 *  - with CUPTI_ACTIVITY_KIND_MARKER enabled, stages CUpti_ActivityMarker2
 *    records, "Instantaneous, start, or end NVTX marker": a mark is one
 *    INSTANTANEOUS record; a range is a START record, with its name, when
 *    it starts and an END record with the same id and no name ("This will
 *    be NULL for an end marker") when it ends. With MARKER_DATA enabled too,
 *    an Ex call's color, category and payload follow in a
 *    CUpti_ActivityMarkerData2 of the same id. nvtxNameOsThread gives a
 *    CUpti_ActivityName when CUPTI_ACTIVITY_KIND_NAME is enabled;
 *  - writes the event to the simulator's log ("type":"nvtx"), with the
 *    timestamp its record carries, as the tests' ground truth.
 *
 * Calls not filled in (the CUDA and OpenCL resource naming, sync, the
 * extension modules) stay the headers' no-ops. Wide strings are converted
 * with wcstombs. Push/pop stacks are per thread and per domain ("Each
 * domain maintains its own nvtxRangePush and nvtxRangePop stack"), up to
 * NVTX_MAX_DOMAINS domains and NVTX_MAX_DEPTH levels a thread; deeper levels
 * still count, and their END records carry id 0.
 */

#include <nvtx3/nvToolsExt.h>

#include <generated_nvtx_meta.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "sim_internal.h"
#include "sim_nvtx.h"

#define NVTX_MAX_DOMAINS 16
#define NVTX_MAX_DEPTH 256
#define NAME_MAX_BYTES 1024

/* A name a handle stands for, on a list with the others so that it stays reachable. */
struct named {
	struct named *next;
	char *name;
};

/* A domain's handle points to one of these; the default domain is NULL. */
struct nvtxDomainRegistration_st {
	struct named n;
};

/* A registered string's handle points to one of these. */
struct nvtxStringRegistration_st {
	struct named n;
};

/* A process range started and not yet ended: its END record names its domain. */
struct open_range {
	struct open_range *next;
	uint32_t id;
	const char *domain;
};

/* Handles live until the process exits, as the names CUPTI's records point to must. */
static struct {
	pthread_mutex_t lock;
	struct named *handles;
	struct open_range *ranges;
	struct stack *stacks;
	atomic_uint next_id;
} N = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* One domain's push/pop stack on one thread. */
struct stack {
	struct stack *all_next; /* every thread's, so a thread's exit leaks none */
	nvtxDomainHandle_t domain;
	int depth;
	uint32_t ids[NVTX_MAX_DEPTH];
};

static __thread struct stack *tls_stacks[NVTX_MAX_DOMAINS];
static __thread int tls_nstacks;

static const char *domain_name(nvtxDomainHandle_t d)
{
	return d ? d->n.name : NULL;
}

/* A copy that lives as long as the process; NULL when out of memory. */
static char *keep(const char *s)
{
	return s ? strdup(s) : NULL;
}

static char *keep_wide(const wchar_t *w)
{
	char buf[NAME_MAX_BYTES];
	size_t n;

	if (!w)
		return NULL;
	n = wcstombs(buf, w, sizeof(buf) - 1);
	if (n == (size_t)-1)
		return strdup("?");
	buf[n] = '\0';
	return strdup(buf);
}

/* The message of an event's attributes, kept for the records. */
static char *message_of(const nvtxEventAttributes_t *a)
{
	if (!a)
		return NULL;
	switch (a->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII: return keep(a->message.ascii);
	case NVTX_MESSAGE_TYPE_UNICODE: return keep_wide(a->message.unicode);
	case NVTX_MESSAGE_TYPE_REGISTERED:
		return a->message.registered ? keep(a->message.registered->n.name) : NULL;
	default: return NULL;
	}
}

/*
 * Names are kept once per distinct string: a program that pushes the same
 * few names a million times must not grow the simulator by a million copies.
 */
struct kept {
	struct kept *next;
	char *s;
};
static struct kept *kept_names;

static const char *intern(char *s)
{
	struct kept *k;

	if (!s)
		return NULL;
	pthread_mutex_lock(&N.lock);
	for (k = kept_names; k; k = k->next)
		if (!strcmp(k->s, s))
			break;
	if (!k) {
		k = malloc(sizeof(*k));
		if (k) {
			k->s = s;
			k->next = kept_names;
			kept_names = k;
			s = NULL;
		}
	}
	pthread_mutex_unlock(&N.lock);
	free(s);
	return k ? k->s : NULL;
}

static struct stack *stack_of(nvtxDomainHandle_t d)
{
	struct stack *s;

	for (int i = 0; i < tls_nstacks; i++)
		if (tls_stacks[i]->domain == d)
			return tls_stacks[i];
	if (tls_nstacks == NVTX_MAX_DOMAINS)
		return NULL;
	/* Kept with the process: a thread's stacks are a few KiB. */
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->domain = d;
	pthread_mutex_lock(&N.lock);
	s->all_next = N.stacks;
	N.stacks = s;
	pthread_mutex_unlock(&N.lock);
	tls_stacks[tls_nstacks++] = s;
	return s;
}

/* ---- records and log ------------------------------------------------------ */

enum ev { EV_MARK, EV_START, EV_END };

static void log_event(const char *op, const char *domain, const char *name, uint32_t id,
		      int level, uint64_t cupti_ts)
{
	char line[NAME_MAX_BYTES + 512];
	size_t pos = 0;
	int n;

	n = snprintf(line, sizeof(line), "{\"type\":\"nvtx\",\"op\":\"%s\",\"domain\":", op);
	pos = n > 0 ? (size_t)n : 0;
	if (domain)
		gpsim_json_str(line, sizeof(line), &pos, domain);
	else if (pos < sizeof(line))
		pos += (size_t)snprintf(line + pos, sizeof(line) - pos, "null");
	if (pos < sizeof(line))
		pos += (size_t)snprintf(line + pos, sizeof(line) - pos, ",\"name\":");
	if (name)
		gpsim_json_str(line, sizeof(line), &pos, name);
	else if (pos < sizeof(line))
		pos += (size_t)snprintf(line + pos, sizeof(line) - pos, "null");
	if (pos < sizeof(line))
		snprintf(line + pos, sizeof(line) - pos,
			 ",\"id\":%u,\"level\":%d,\"pid\":%u,\"tid\":%u,\"ts\":%llu,\"cupti_ts\":%llu}",
			 id, level, gpsim_getpid(), gpsim_gettid(),
			 (unsigned long long)gpsim_now(), (unsigned long long)cupti_ts);
	gpsim_log_line(line);
}

/* The MARKER (and MARKER_DATA) records of one event, and its log line. */
static void marker(enum ev ev, const char *op, const char *domain, const char *name, uint32_t id,
		   int level, const nvtxEventAttributes_t *a)
{
	static const CUpti_ActivityFlag flags[] = {
		[EV_MARK] = CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS,
		[EV_START] = CUPTI_ACTIVITY_FLAG_MARKER_START,
		[EV_END] = CUPTI_ACTIVITY_FLAG_MARKER_END,
	};
	uint64_t ts = cupti__now();

	if (cupti__kind_on(CUPTI_ACTIVITY_KIND_MARKER)) {
		CUpti_ActivityMarker2 m;

		memset(&m, 0, sizeof(m));
		m.kind = CUPTI_ACTIVITY_KIND_MARKER;
		m.flags = flags[ev];
		m.timestamp = ts;
		m.id = id;
		m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
		m.objectId.pt.processId = gpsim_getpid();
		m.objectId.pt.threadId = cupti__thread_id();
		m.name = ev == EV_END ? NULL : name;
		m.domain = domain;
		cupti__stage_record(&m, sizeof(m));
		if (a && ev != EV_END && cupti__kind_on(CUPTI_ACTIVITY_KIND_MARKER_DATA)) {
			CUpti_ActivityMarkerData2 d;

			memset(&d, 0, sizeof(d));
			d.kind = CUPTI_ACTIVITY_KIND_MARKER_DATA;
			d.flags = a->colorType == NVTX_COLOR_ARGB ?
					  CUPTI_ACTIVITY_FLAG_MARKER_COLOR_ARGB :
					  CUPTI_ACTIVITY_FLAG_MARKER_COLOR_NONE;
			d.id = id;
			d.color = a->color;
			d.category = a->category;
			switch (a->payloadType) {
			case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
				d.payloadKind = CUPTI_METRIC_VALUE_KIND_UINT64;
				d.payload.metricValueUint64 = a->payload.ullValue;
				break;
			case NVTX_PAYLOAD_TYPE_INT64:
				d.payloadKind = CUPTI_METRIC_VALUE_KIND_INT64;
				d.payload.metricValueInt64 = a->payload.llValue;
				break;
			case NVTX_PAYLOAD_TYPE_DOUBLE:
				d.payloadKind = CUPTI_METRIC_VALUE_KIND_DOUBLE;
				d.payload.metricValueDouble = a->payload.dValue;
				break;
			case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
				d.payloadKind = CUPTI_METRIC_VALUE_KIND_UINT64;
				d.payload.metricValueUint64 = a->payload.uiValue;
				break;
			case NVTX_PAYLOAD_TYPE_INT32:
				d.payloadKind = CUPTI_METRIC_VALUE_KIND_INT64;
				d.payload.metricValueInt64 = a->payload.iValue;
				break;
			case NVTX_PAYLOAD_TYPE_FLOAT:
				d.payloadKind = CUPTI_METRIC_VALUE_KIND_DOUBLE;
				d.payload.metricValueDouble = a->payload.fValue;
				break;
			default:
				break;
			}
			cupti__stage_record(&d, sizeof(d));
		}
	}
	log_event(op, domain, name, id, level, ts);
}

static uint32_t new_id(void)
{
	return atomic_fetch_add(&N.next_id, 1) + 1;
}

/* ---- the calls ------------------------------------------------------------ */

static void do_mark(nvtxDomainHandle_t d, const char *name, const nvtxEventAttributes_t *a)
{
	marker(EV_MARK, "mark", domain_name(d), name, new_id(), -1, a);
}

/* "The unique ID used to correlate a pair of Start and End events." */
static nvtxRangeId_t do_start(nvtxDomainHandle_t d, const char *name,
			      const nvtxEventAttributes_t *a)
{
	struct open_range *r = malloc(sizeof(*r));
	uint32_t id = new_id();

	if (r) {
		r->id = id;
		r->domain = domain_name(d);
		pthread_mutex_lock(&N.lock);
		r->next = N.ranges;
		N.ranges = r;
		pthread_mutex_unlock(&N.lock);
	}
	marker(EV_START, "start", domain_name(d), name, id, -1, a);
	return id;
}

/*
 * "This function is offered completeness but is an alias for nvtxRangeEnd.
 * It does not need a domain param since that is associated with the range
 * ID at nvtxDomainRangeStartEx": the domain is the start's.
 */
static void do_end(nvtxRangeId_t rid)
{
	struct open_range **pp, *r = NULL;
	const char *domain = NULL;

	pthread_mutex_lock(&N.lock);
	for (pp = &N.ranges; *pp; pp = &(*pp)->next)
		if ((*pp)->id == (uint32_t)rid) {
			r = *pp;
			*pp = r->next;
			break;
		}
	pthread_mutex_unlock(&N.lock);
	if (r) {
		domain = r->domain;
		free(r);
	}
	marker(EV_END, "end", domain, NULL, (uint32_t)rid, -1, NULL);
}

/* "The 0 based level of range being started. This value is scoped to the domain." */
static int do_push(nvtxDomainHandle_t d, const char *name, const nvtxEventAttributes_t *a)
{
	struct stack *s = stack_of(d);
	uint32_t id = new_id();
	int level;

	if (!s)
		return -1;
	level = s->depth++;
	if (level < NVTX_MAX_DEPTH)
		s->ids[level] = id;
	marker(EV_START, "push", domain_name(d), name, id, level, a);
	return level;
}

/* "The level of the range being ended. If an error occurs a negative value is returned" */
static int do_pop(nvtxDomainHandle_t d)
{
	struct stack *s = stack_of(d);
	int level;

	if (!s || s->depth == 0)
		return -1;
	level = --s->depth;
	marker(EV_END, "pop", domain_name(d), NULL, level < NVTX_MAX_DEPTH ? s->ids[level] : 0,
	       level, NULL);
	return level;
}

#define CB(cbid, fn, params, ret) \
	cupti__nvtx_callback(CUPTI_CBID_NVTX_##cbid, fn, params, ret)

static void NVTX_API sim_MarkEx(const nvtxEventAttributes_t *a)
{
	nvtxMarkEx_params p = { a };

	CB(nvtxMarkEx, "nvtxMarkEx", &p, NULL);
	do_mark(NULL, intern(message_of(a)), a);
}

static void NVTX_API sim_MarkA(const char *message)
{
	nvtxMarkA_params p = { message };

	CB(nvtxMarkA, "nvtxMarkA", &p, NULL);
	do_mark(NULL, intern(keep(message)), NULL);
}

static void NVTX_API sim_MarkW(const wchar_t *message)
{
	nvtxMarkW_params p = { message };

	CB(nvtxMarkW, "nvtxMarkW", &p, NULL);
	do_mark(NULL, intern(keep_wide(message)), NULL);
}

static nvtxRangeId_t NVTX_API sim_RangeStartEx(const nvtxEventAttributes_t *a)
{
	nvtxRangeStartEx_params p = { a };
	nvtxRangeId_t r = do_start(NULL, intern(message_of(a)), a);

	CB(nvtxRangeStartEx, "nvtxRangeStartEx", &p, &r);
	return r;
}

static nvtxRangeId_t NVTX_API sim_RangeStartA(const char *message)
{
	nvtxRangeStartA_params p = { message };
	nvtxRangeId_t r = do_start(NULL, intern(keep(message)), NULL);

	CB(nvtxRangeStartA, "nvtxRangeStartA", &p, &r);
	return r;
}

static nvtxRangeId_t NVTX_API sim_RangeStartW(const wchar_t *message)
{
	nvtxRangeStartW_params p = { message };
	nvtxRangeId_t r = do_start(NULL, intern(keep_wide(message)), NULL);

	CB(nvtxRangeStartW, "nvtxRangeStartW", &p, &r);
	return r;
}

static void NVTX_API sim_RangeEnd(nvtxRangeId_t id)
{
	nvtxRangeEnd_params p = { id };

	CB(nvtxRangeEnd, "nvtxRangeEnd", &p, NULL);
	do_end(id);
}

static int NVTX_API sim_RangePushEx(const nvtxEventAttributes_t *a)
{
	nvtxRangePushEx_params p = { a };
	int r = do_push(NULL, intern(message_of(a)), a);

	CB(nvtxRangePushEx, "nvtxRangePushEx", &p, &r);
	return r;
}

static int NVTX_API sim_RangePushA(const char *message)
{
	nvtxRangePushA_params p = { message };
	int r = do_push(NULL, intern(keep(message)), NULL);

	CB(nvtxRangePushA, "nvtxRangePushA", &p, &r);
	return r;
}

static int NVTX_API sim_RangePushW(const wchar_t *message)
{
	nvtxRangePushW_params p = { message };
	int r = do_push(NULL, intern(keep_wide(message)), NULL);

	CB(nvtxRangePushW, "nvtxRangePushW", &p, &r);
	return r;
}

static int NVTX_API sim_RangePop(void)
{
	nvtxRangePop_params p = { NULL };
	int r = do_pop(NULL);

	CB(nvtxRangePop, "nvtxRangePop", &p, &r);
	return r;
}

/* "CUPTI_ACTIVITY_KIND_NAME: Resource naming done via NVTX APIs for thread, device, context, etc." */
static void name_thread(uint32_t tid, const char *name)
{
	CUpti_ActivityName n;

	if (!cupti__kind_on(CUPTI_ACTIVITY_KIND_NAME))
		return;
	memset(&n, 0, sizeof(n));
	n.kind = CUPTI_ACTIVITY_KIND_NAME;
	n.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	n.objectId.pt.processId = gpsim_getpid();
	n.objectId.pt.threadId = tid;
	n.name = name;
	cupti__stage_record(&n, sizeof(n));
}

static void NVTX_API sim_NameOsThreadA(uint32_t tid, const char *name)
{
	nvtxNameOsThreadA_params p = { tid, name };

	CB(nvtxNameOsThreadA, "nvtxNameOsThreadA", &p, NULL);
	name_thread(tid, intern(keep(name)));
}

static void NVTX_API sim_NameOsThreadW(uint32_t tid, const wchar_t *name)
{
	nvtxNameOsThreadW_params p = { tid, name };

	CB(nvtxNameOsThreadW, "nvtxNameOsThreadW", &p, NULL);
	name_thread(tid, intern(keep_wide(name)));
}

static void NVTX_API sim_DomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	nvtxDomainMarkEx_params p = { d, { a } };

	CB(nvtxDomainMarkEx, "nvtxDomainMarkEx", &p, NULL);
	do_mark(d, intern(message_of(a)), a);
}

static nvtxRangeId_t NVTX_API sim_DomainRangeStartEx(nvtxDomainHandle_t d,
						     const nvtxEventAttributes_t *a)
{
	nvtxDomainRangeStartEx_params p = { d, { a } };
	nvtxRangeId_t r = do_start(d, intern(message_of(a)), a);

	CB(nvtxDomainRangeStartEx, "nvtxDomainRangeStartEx", &p, &r);
	return r;
}

static void NVTX_API sim_DomainRangeEnd(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	nvtxDomainRangeEnd_params p = { d, { id } };

	CB(nvtxDomainRangeEnd, "nvtxDomainRangeEnd", &p, NULL);
	do_end(id);
}

static int NVTX_API sim_DomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	nvtxDomainRangePushEx_params p = { d, { a } };
	int r = do_push(d, intern(message_of(a)), a);

	CB(nvtxDomainRangePushEx, "nvtxDomainRangePushEx", &p, &r);
	return r;
}

static int NVTX_API sim_DomainRangePop(nvtxDomainHandle_t d)
{
	nvtxDomainRangePop_params p = { d };
	int r = do_pop(d);

	CB(nvtxDomainRangePop, "nvtxDomainRangePop", &p, &r);
	return r;
}

/* @n names @name (kept with the process from here on); false, @name freed, when @n is NULL. */
static bool name_handle(struct named *n, char *name)
{
	if (!n || !name) {
		free(name);
		return false;
	}
	n->name = name;
	pthread_mutex_lock(&N.lock);
	n->next = N.handles;
	N.handles = n;
	pthread_mutex_unlock(&N.lock);
	return true;
}

static nvtxStringHandle_t register_string(char *s)
{
	struct nvtxStringRegistration_st *h = s ? malloc(sizeof(*h)) : NULL;

	if (!name_handle(h ? &h->n : NULL, s)) {
		free(h);
		return NULL;
	}
	return h;
}

static nvtxStringHandle_t NVTX_API sim_DomainRegisterStringA(nvtxDomainHandle_t d, const char *s)
{
	nvtxDomainRegisterStringA_params p = { d, s };
	nvtxStringHandle_t r = register_string(keep(s));

	CB(nvtxDomainRegisterStringA, "nvtxDomainRegisterStringA", &p, &r);
	return r;
}

static nvtxStringHandle_t NVTX_API sim_DomainRegisterStringW(nvtxDomainHandle_t d,
							     const wchar_t *s)
{
	/* generated_nvtx_meta.h declares this one's string as const char *. */
	nvtxDomainRegisterStringW_params p = { d, (const char *)(const void *)s };
	nvtxStringHandle_t r = register_string(keep_wide(s));

	CB(nvtxDomainRegisterStringW, "nvtxDomainRegisterStringW", &p, &r);
	return r;
}

/*
 * "Domains are used to scope annotations." The handle stays valid after
 * nvtxDomainDestroy for records already written, which point to its name.
 */
static nvtxDomainHandle_t create_domain(char *name)
{
	struct nvtxDomainRegistration_st *h = name ? malloc(sizeof(*h)) : NULL;

	if (!name_handle(h ? &h->n : NULL, name)) {
		free(h);
		return NULL;
	}
	return h;
}

static nvtxDomainHandle_t NVTX_API sim_DomainCreateA(const char *name)
{
	nvtxDomainCreateA_params p = { name };
	nvtxDomainHandle_t r = create_domain(keep(name));

	CB(nvtxDomainCreateA, "nvtxDomainCreateA", &p, &r);
	return r;
}

static nvtxDomainHandle_t NVTX_API sim_DomainCreateW(const wchar_t *name)
{
	/* generated_nvtx_meta.h has no struct for this one: the A form's shape. */
	struct {
		const wchar_t *name;
	} p = { name };
	nvtxDomainHandle_t r = create_domain(keep_wide(name));

	CB(nvtxDomainCreateW, "nvtxDomainCreateW", &p, &r);
	return r;
}

static void NVTX_API sim_DomainDestroy(nvtxDomainHandle_t d)
{
	nvtxDomainDestroy_params p = { d };

	CB(nvtxDomainDestroy, "nvtxDomainDestroy", &p, NULL);
}

/* ---- the injection entry point ------------------------------------------- */

struct slot {
	unsigned idx;
	NvtxFunctionPointer fn;
};

#define SLOT(mod, name) { NVTX_CBID_##mod##_##name, (NvtxFunctionPointer)sim_##name }

static const struct slot core_slots[] = {
	SLOT(CORE, MarkEx),	     SLOT(CORE, MarkA),		SLOT(CORE, MarkW),
	SLOT(CORE, RangeStartEx),    SLOT(CORE, RangeStartA),	SLOT(CORE, RangeStartW),
	SLOT(CORE, RangeEnd),	     SLOT(CORE, RangePushEx),	SLOT(CORE, RangePushA),
	SLOT(CORE, RangePushW),	     SLOT(CORE, RangePop),	SLOT(CORE, NameOsThreadA),
	SLOT(CORE, NameOsThreadW),
};

static const struct slot core2_slots[] = {
	SLOT(CORE2, DomainMarkEx),	    SLOT(CORE2, DomainRangeStartEx),
	SLOT(CORE2, DomainRangeEnd),	    SLOT(CORE2, DomainRangePushEx),
	SLOT(CORE2, DomainRangePop),	    SLOT(CORE2, DomainRegisterStringA),
	SLOT(CORE2, DomainRegisterStringW), SLOT(CORE2, DomainCreateA),
	SLOT(CORE2, DomainCreateW),	    SLOT(CORE2, DomainDestroy),
};

static int fill(const NvtxExportTableCallbacks *cbs, NvtxCallbackModule module,
		const struct slot *slots, size_t n)
{
	NvtxFunctionTable table = NULL;
	unsigned int size = 0;

	if (!cbs->GetModuleFunctionTable(module, &table, &size) || !table)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (slots[i].idx < size && table[slots[i].idx])
			*table[slots[i].idx] = slots[i].fn;
	return 1;
}

/*
 * "entryPointStatus = init_fnptr(nvtxGetExportTable)": nonzero on success;
 * the headers give up on the tool when it returns 0.
 */
__attribute__((visibility("default"))) int
InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table);

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table)
{
	const NvtxExportTableCallbacks *cbs;

	if (!get_export_table)
		return 0;
	cbs = (const NvtxExportTableCallbacks *)get_export_table(NVTX_ETID_CALLBACKS);
	if (!cbs || cbs->struct_size < sizeof(*cbs) || !cbs->GetModuleFunctionTable)
		return 0;
	gpsim_log_open();
	if (!fill(cbs, NVTX_CB_MODULE_CORE, core_slots, sizeof(core_slots) / sizeof(core_slots[0])) ||
	    !fill(cbs, NVTX_CB_MODULE_CORE2, core2_slots,
		  sizeof(core2_slots) / sizeof(core2_slots[0])))
		return 0;
	return 1;
}
