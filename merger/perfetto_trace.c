// SPDX-License-Identifier: Apache-2.0
/* perfetto_trace.c - stream the timeline out as a Perfetto protobuf trace (trace.pftrace). */
#include "perfetto_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bulk_out.h"
#include "correlate.h"
#include "gp_util.h"
#include "timeline.h"
#include "u64map.h"

/*
 * A hand-written encoder, for the reasons pprof.c gives: a trace is one
 * repeated field of small messages, written as they come, and the per-event
 * path is a few varints. Field numbers: Perfetto's protos/perfetto/trace/
 * (trace_packet.proto, track_event/track_event.proto, track_descriptor.proto,
 * process_descriptor.proto, thread_descriptor.proto, debug_annotation.proto,
 * interned_data/interned_data.proto).
 */
enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

#define TAG(field, wt) (((field) << 3) | (wt))

/* Trace */
#define TRACE_PACKET 1
/* TracePacket */
#define PKT_TIMESTAMP	      8
#define PKT_SEQUENCE_ID	      10 /* trusted_packet_sequence_id */
#define PKT_TRACK_EVENT	      11
#define PKT_INTERNED_DATA     12
#define PKT_SEQUENCE_FLAGS    13
#define PKT_TRACK_DESCRIPTOR  60
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE   2
/* TrackEvent */
#define TE_DEBUG_ANNOTATIONS 4
#define TE_TYPE		     9
#define TE_NAME_IID	     10
#define TE_TRACK_UUID	     11
#define TE_FLOW_IDS	     47 /* fixed64 */
#define TE_TERMINATING_FLOW_IDS 48 /* fixed64 */
#define TYPE_SLICE_BEGIN 1
#define TYPE_SLICE_END	 2
#define TYPE_INSTANT	 3
/* TrackDescriptor */
#define TD_UUID	       1
#define TD_NAME	       2
#define TD_PROCESS     3
#define TD_THREAD      4
#define TD_PARENT_UUID 5
/* ProcessDescriptor */
#define PD_PID		1
#define PD_PROCESS_NAME 6
/* ThreadDescriptor */
#define THD_PID		1
#define THD_TID		2
#define THD_THREAD_NAME 5
/* InternedData */
#define ID_EVENT_NAMES		   2
#define ID_DEBUG_ANNOTATION_NAMES 3
#define ID_DEBUG_ANNOTATION_STRING_VALUES 29
/* EventName, DebugAnnotationName; InternedString (its text: field 2, "str") */
#define IN_IID	1
#define IN_NAME 2
/* DebugAnnotation */
#define DA_NAME_IID	1
#define DA_UINT_VALUE	3
#define DA_INT_VALUE	4
#define DA_DOUBLE_VALUE 5
#define DA_STRING_VALUE 6
#define DA_STRING_VALUE_IID 17

#define SEQ_ID 1

/* Debug annotation names, interned in the first packet as iid = index + 1. */
enum arg {
	ARG_CORRELATION_ID,
	ARG_RETURN,
	ARG_BYTES,
	ARG_BANDWIDTH,
	ARG_GRAPH_ID,
	ARG_STATE,
	ARG_TASK_STATE,
	ARG_CPU,
	ARG_GRID,
	ARG_BLOCK,
	ARG_REGS,
	ARG_SMEM,
	ARG_DYN_SMEM,
	NR_ARGS,
};
static const char *const arg_names[NR_ARGS] = {
	"correlation_id", "return", "bytes", "bandwidth_GBps", "graph_id", "state", "task_state",
	"cpu", "grid", "block", "registers_per_thread", "shared_memory", "dynamic_shared_memory",
};

/* Names are cut to this many bytes, so that any packet fits in the buffer. */
#define MAX_NAME (16u << 10)

enum key_kind {
	K_API_NAME = 1, /* a: timeline string id */
	K_KERNEL_NAME,	/* a: timeline string id */
	K_LEAF,		/* a: stack pool offset, b: pid */
	K_OFFCPU_LEAF,	/* a: stack pool offset, b: pid */
	K_COPY_NAME,	/* a: memcpy kind */
	K_MEMSET_NAME,
	K_PROC_TRACK, /* a: pid */
	K_THREAD_TRACK, /* a: pid, b: tid */
	K_OFFCPU_TRACK, /* a: pid, b: tid */
	K_GPU_TRACK,	/* a: device */
	K_STREAM_TRACK, /* a: device, b: stream */
	K_DIMS,		/* a: tl_gpu.kconfig, b: 0 grid, 1 block (an interned string value) */
};

/* kind in the top 4 bits, a (28 bits), b (32 bits) */
static inline uint64_t key_of(enum key_kind kind, uint32_t a, uint32_t b)
{
	return (uint64_t)kind << 60 | (uint64_t)(a & 0x0fffffffu) << 32 | b;
}

struct pt {
	const struct timeline *tl;
	const struct chrome_trace_names *nm;
	struct bulk_out *bo;
	int err;
	uint8_t *out; /* BULK_OUT_CAP bytes, the output buffer */
	size_t out_len;
	uint8_t *pk_len_at; /* the length byte of the packet being built */
	struct u64map names, tracks; /* interned names (by what they name), track uuids */
	uint32_t next_iid, next_uuid, next_sval_iid;
	uint64_t last_host_key, last_gpu_key; /* the track of the previous event: its uuid below */
	uint32_t last_host_uuid, last_gpu_uuid;
	uint64_t *flows, *multi; /* per API call: starts a flow; has more than one GPU record */
};

/* ---- encoding: a cursor into the packet buffer, which has room for what is written ---- */

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint8_t *put_uint(uint8_t *p, unsigned field, uint64_t v)
{
	return put_varint(put_varint(p, TAG(field, WT_VARINT)), v);
}

static inline uint8_t *put_fixed64(uint8_t *p, unsigned field, uint64_t v)
{
	p = put_varint(p, TAG(field, WT_I64));
	for (int i = 0; i < 8; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static inline uint8_t *put_bytes(uint8_t *p, unsigned field, const char *s, size_t n)
{
	p = put_varint(put_varint(p, TAG(field, WT_LEN)), n);
	memcpy(p, s, n);
	return p + n;
}

/*
 * A nested message: open() writes the tag and one byte for the length,
 * close() fills it in, moving the body along when the length needs more
 * bytes (long names only). Returns the cursor after the message.
 */
static inline uint8_t *msg_open(uint8_t *p, unsigned field, uint8_t **len_at)
{
	p = put_varint(p, TAG(field, WT_LEN));
	*len_at = p;
	return p + 1;
}

static inline uint8_t *msg_close(uint8_t *len_at, uint8_t *end)
{
	size_t n = (size_t)(end - len_at - 1);
	uint8_t tmp[10], *q;
	size_t k;

	if (n < 0x80) {
		*len_at = (uint8_t)n;
		return end;
	}
	q = put_varint(tmp, n);
	k = (size_t)(q - tmp);
	memmove(len_at + k, len_at + 1, n);
	memcpy(len_at, tmp, k);
	return end + k - 1;
}

static void out_flush(struct pt *pt)
{
	uint8_t *next;

	if (pt->err)
		return;
	next = bulk_out__flush(pt->bo, pt->out_len, &pt->out_len);
	if (next)
		pt->out = next;
	else
		pt->err = -errno;
}

/*
 * Start a packet of up to n bytes (names cut to MAX_NAME keep n far below
 * OUT_BUF) in the output buffer: the cursor for its body. Packets are
 * built in place; pk_emit() fills in the length.
 */
static uint8_t *pk_room(struct pt *pt, size_t n)
{
	uint8_t *p;

	if (BULK_OUT_CAP - pt->out_len < n + 16)
		out_flush(pt);
	if (pt->err)
		return NULL;
	p = put_varint(pt->out + pt->out_len, TAG(TRACE_PACKET, WT_LEN));
	pt->pk_len_at = p;
	return p + 1;
}

/* The packet started by pk_room() ends at end. */
static void pk_emit(struct pt *pt, uint8_t *end)
{
	pt->out_len = (size_t)(msg_close(pt->pk_len_at, end) - pt->out);
}

/* Bytes of name to write: all of it, or up to MAX_NAME cut at a UTF-8 character's start. */
static size_t name_len(const char *name)
{
	size_t n = strnlen(name, MAX_NAME);

	if (n == MAX_NAME)
		while (n && ((unsigned char)name[n] & 0xc0) == 0x80)
			n--;
	return n;
}

/* ---- tracks ---- */

static uint32_t new_uuid(struct pt *pt, uint64_t key)
{
	uint32_t uuid = ++pt->next_uuid;

	if (u64map_put(&pt->tracks, key, uuid)) {
		pt->err = -ENOMEM;
		return 0;
	}
	return uuid;
}

/*
 * Start a TrackDescriptor packet for track uuid, with room for n bytes of
 * names: the cursor for its other fields (NULL on error), *td for
 * track_close().
 */
static uint8_t *track_open(struct pt *pt, uint32_t uuid, size_t n, uint8_t **td)
{
	uint8_t *p = pk_room(pt, 64 + n);

	if (!p)
		return NULL;
	p = put_uint(p, PKT_SEQUENCE_ID, SEQ_ID);
	p = msg_open(p, PKT_TRACK_DESCRIPTOR, td);
	return put_uint(p, TD_UUID, uuid);
}

static void track_close(struct pt *pt, uint8_t *td, uint8_t *p)
{
	pk_emit(pt, msg_close(td, p));
}

/* A process track (ProcessDescriptor) named name. */
static void process_track(struct pt *pt, uint32_t uuid, uint32_t pid, const char *name)
{
	size_t n = name_len(name);
	uint8_t *td, *pd, *p = track_open(pt, uuid, n, &td);

	if (!p)
		return;
	p = msg_open(p, TD_PROCESS, &pd);
	p = put_uint(p, PD_PID, pid);
	p = put_bytes(p, PD_PROCESS_NAME, name, n);
	track_close(pt, td, msg_close(pd, p));
}

/* A track named name (a short name of ours) under track parent. */
static void child_track(struct pt *pt, uint32_t uuid, uint32_t parent, const char *name)
{
	size_t n = strlen(name);
	uint8_t *td, *p = track_open(pt, uuid, n, &td);

	if (!p)
		return;
	p = put_uint(p, TD_PARENT_UUID, parent);
	track_close(pt, td, put_bytes(p, TD_NAME, name, n));
}

/* The uuid of a host thread's track, announcing it (and its process) the first time. */
static uint32_t host_track(struct pt *pt, uint32_t pid, uint32_t tid)
{
	const struct chrome_trace_names *nm = pt->nm;
	uint64_t key = key_of(K_THREAD_TRACK, pid, tid);
	uint32_t uuid;
	const char *name;
	char tmp[64];
	uint8_t *p, *td, *th;
	size_t n;

	if (key == pt->last_host_key)
		return pt->last_host_uuid;
	uuid = u64map_get(&pt->tracks, key);
	if (!uuid) {
		uint64_t pkey = key_of(K_PROC_TRACK, pid, 0);

		if (!u64map_get(&pt->tracks, pkey)) {
			uint32_t puuid = new_uuid(pt, pkey);

			name = nm && nm->process_name ? nm->process_name(nm->ctx, pid) : NULL;
			if (!name) {
				snprintf(tmp, sizeof(tmp), "pid %" PRIu32, pid);
				name = tmp;
			}
			process_track(pt, puuid, pid, name);
		}
		uuid = new_uuid(pt, key);
		name = nm && nm->thread_name ? nm->thread_name(nm->ctx, pid, tid) : NULL;
		if (!name) {
			snprintf(tmp, sizeof(tmp), "thread %" PRIu32, tid);
			name = tmp;
		}
		n = name_len(name);
		p = track_open(pt, uuid, n, &td);
		if (!p)
			return 0;
		p = msg_open(p, TD_THREAD, &th);
		p = put_uint(p, THD_PID, pid);
		p = put_uint(p, THD_TID, tid);
		p = put_bytes(p, THD_THREAD_NAME, name, n);
		track_close(pt, td, msg_close(th, p));
	}
	pt->last_host_key = key;
	pt->last_host_uuid = uuid;
	return uuid;
}

/*
 * The uuid of a host thread's off-CPU track: a child of its thread track.
 * Off-CPU spans and CUDA API calls come from different clocks' sources
 * (the scheduler, CUPTI) and can overlap without nesting by a few
 * microseconds; on one track a SLICE_END closes the innermost open slice,
 * so such a pair would cut each other short.
 */
static uint32_t offcpu_track(struct pt *pt, uint32_t pid, uint32_t tid)
{
	uint64_t key = key_of(K_OFFCPU_TRACK, pid, tid);
	uint32_t uuid = u64map_get(&pt->tracks, key), parent;

	if (uuid)
		return uuid;
	parent = host_track(pt, pid, tid);
	uuid = new_uuid(pt, key);
	child_track(pt, uuid, parent, "off-CPU");
	return uuid;
}

/* The uuid of a GPU stream's track: a child of the device's process track. */
static uint32_t stream_track(struct pt *pt, uint32_t device, uint32_t stream)
{
	const struct chrome_trace_names *nm = pt->nm;
	uint64_t key = key_of(K_STREAM_TRACK, device, stream), dkey = key_of(K_GPU_TRACK, device, 0);
	uint32_t uuid, duuid;
	char tmp[320];

	if (key == pt->last_gpu_key)
		return pt->last_gpu_uuid;
	uuid = u64map_get(&pt->tracks, key);
	if (!uuid) {
		duuid = u64map_get(&pt->tracks, dkey);
		if (!duuid) {
			const char *dev = nm && nm->device_name ? nm->device_name(nm->ctx, device) : NULL;

			duuid = new_uuid(pt, dkey);
			if (dev && *dev)
				snprintf(tmp, sizeof(tmp), "GPU %" PRIu32 " (%.256s)", device, dev);
			else
				snprintf(tmp, sizeof(tmp), "GPU %" PRIu32, device);
			process_track(pt, duuid, CHROME_TRACE_GPU_PID_BASE + device, tmp);
		}
		uuid = new_uuid(pt, key);
		snprintf(tmp, sizeof(tmp), "stream %" PRIu32, stream);
		child_track(pt, uuid, duuid, tmp);
	}
	pt->last_gpu_key = key;
	pt->last_gpu_uuid = uuid;
	return uuid;
}

/* ---- events ---- */

/*
 * An event packet under construction: the name to intern (when new) goes
 * into the same packet, ahead of the event.
 */
struct ev {
	uint8_t *p, *te;
	uint32_t iid;
};

/*
 * Start an event packet at ts on track uuid; its name is key's interned id,
 * interned here as name (made by the caller only when needed: name_fn).
 * room: bytes the caller will add to the event.
 */
static bool ev_start(struct pt *pt, struct ev *e, uint64_t ts, uint32_t uuid, unsigned type,
		     uint64_t key, const char *name, size_t room)
{
	uint32_t iid = key ? u64map_get(&pt->names, key) : 0;
	size_t n = !iid && name ? name_len(name) : 0;
	uint8_t *p = pk_room(pt, 96 + n + room), *idata, *en;

	if (!p)
		return false;
	if (key && !iid) {
		iid = ++pt->next_iid;
		if (u64map_put(&pt->names, key, iid)) {
			pt->err = -ENOMEM;
			return false;
		}
		p = msg_open(p, PKT_INTERNED_DATA, &idata);
		p = msg_open(p, ID_EVENT_NAMES, &en);
		p = put_uint(p, IN_IID, iid);
		p = put_bytes(p, IN_NAME, name ? name : "", n);
		p = msg_close(en, p);
		p = msg_close(idata, p);
	}
	p = put_uint(p, PKT_TIMESTAMP, ts);
	p = put_uint(p, PKT_SEQUENCE_ID, SEQ_ID);
	if (key)
		p = put_uint(p, PKT_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	p = msg_open(p, PKT_TRACK_EVENT, &e->te);
	p = put_uint(p, TE_TYPE, type);
	p = put_uint(p, TE_TRACK_UUID, uuid);
	if (key)
		p = put_uint(p, TE_NAME_IID, iid);
	e->p = p;
	e->iid = iid;
	return true;
}

static void ev_end(struct pt *pt, struct ev *e)
{
	pk_emit(pt, msg_close(e->te, e->p));
}

/* A SLICE_END on track uuid at ts. */
static void slice_end(struct pt *pt, uint32_t uuid, uint64_t ts)
{
	struct ev e;

	if (ev_start(pt, &e, ts, uuid, TYPE_SLICE_END, 0, NULL, 0))
		ev_end(pt, &e);
}

/* Open a DebugAnnotation named a: the cursor for its value; msg_close(*da, ...) ends it. */
static inline uint8_t *arg_open(uint8_t *p, enum arg a, uint8_t **da)
{
	p = msg_open(p, TE_DEBUG_ANNOTATIONS, da);
	return put_uint(p, DA_NAME_IID, (uint64_t)a + 1);
}

/* An argument whose value is a varint field (uint_value, int_value, string_value_iid). */
static inline uint8_t *arg_varint(uint8_t *p, enum arg a, unsigned field, uint64_t v)
{
	uint8_t *da;

	p = arg_open(p, a, &da);
	return msg_close(da, put_uint(p, field, v));
}

#define arg_uint(p, a, v) arg_varint((p), (a), DA_UINT_VALUE, (v))
#define arg_int(p, a, v) arg_varint((p), (a), DA_INT_VALUE, (uint64_t)(int64_t)(v))
#define arg_sval(p, a, iid) arg_varint((p), (a), DA_STRING_VALUE_IID, (iid))

static inline uint8_t *arg_double(uint8_t *p, enum arg a, double v)
{
	uint64_t bits;
	uint8_t *da;

	memcpy(&bits, &v, sizeof(bits));
	p = arg_open(p, a, &da);
	return msg_close(da, put_fixed64(p, DA_DOUBLE_VALUE, bits));
}

static inline uint8_t *arg_str(uint8_t *p, enum arg a, const char *s)
{
	uint8_t *da;

	p = arg_open(p, a, &da);
	return msg_close(da, put_bytes(p, DA_STRING_VALUE, s, strlen(s))); /* short names of ours */
}

/*
 * The interned string values of launch configuration kcfg's grid and block
 * ("256x1x1"): interned, in a packet of their own, the first time.
 */
static bool kconfig_svals(struct pt *pt, uint16_t kcfg, const struct tl_kconfig *kc,
			  uint32_t iid[2])
{
	char dims[2][CHROME_TRACE_DIMS_LEN];
	size_t n[2];
	uint8_t *p, *idata, *sv;

	iid[0] = u64map_get(&pt->names, key_of(K_DIMS, kcfg, 0));
	iid[1] = u64map_get(&pt->names, key_of(K_DIMS, kcfg, 1));
	if (iid[0] && iid[1])
		return true;
	n[0] = chrome_trace__dims(dims[0], kc->grid);
	n[1] = chrome_trace__dims(dims[1], kc->block);
	p = pk_room(pt, 64 + n[0] + n[1]);
	if (!p)
		return false;
	p = put_uint(p, PKT_SEQUENCE_ID, SEQ_ID);
	p = put_uint(p, PKT_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	p = msg_open(p, PKT_INTERNED_DATA, &idata);
	for (int i = 0; i < 2; i++) {
		iid[i] = ++pt->next_sval_iid;
		if (u64map_put(&pt->names, key_of(K_DIMS, kcfg, (uint32_t)i), iid[i])) {
			pt->err = -ENOMEM;
			return false;
		}
		p = msg_open(p, ID_DEBUG_ANNOTATION_STRING_VALUES, &sv);
		p = put_uint(p, IN_IID, iid[i]);
		p = put_bytes(p, IN_NAME, dims[i], n[i]);
		p = msg_close(sv, p);
	}
	p = msg_close(idata, p);
	pk_emit(pt, p);
	return true;
}

/* The first packet: clears the sequence's incremental state and interns the argument names. */
static void first_packet(struct pt *pt)
{
	uint8_t *p = pk_room(pt, 1024), *idata, *dn;

	if (!p)
		return;
	p = put_uint(p, PKT_SEQUENCE_ID, SEQ_ID);
	p = put_uint(p, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	p = msg_open(p, PKT_INTERNED_DATA, &idata);
	for (unsigned i = 0; i < NR_ARGS; i++) {
		p = msg_open(p, ID_DEBUG_ANNOTATION_NAMES, &dn);
		p = put_uint(p, IN_IID, i + 1);
		p = put_bytes(p, IN_NAME, arg_names[i], strlen(arg_names[i]));
		p = msg_close(dn, p);
	}
	p = msg_close(idata, p);
	pk_emit(pt, p);
}

static void write_api(struct pt *pt, size_t i)
{
	const struct timeline *tl = pt->tl;
	const struct tl_api *a = &tl->api[i];
	uint32_t uuid = host_track(pt, timeline__api_pid(tl, a), timeline__api_tid(tl, a));
	uint32_t name = timeline__api_name(tl, a);
	struct ev e;

	if (!ev_start(pt, &e, a->start, uuid, TYPE_SLICE_BEGIN, key_of(K_API_NAME, name, 0),
		      name ? timeline__str(tl, name) : "[unknown API]", 64))
		return;
	if (pt->flows[i / 64] >> (i % 64) & 1)
		e.p = put_fixed64(e.p, TE_FLOW_IDS, (uint64_t)i + 1);
	e.p = arg_uint(e.p, ARG_CORRELATION_ID, a->corr);
	if (a->ret)
		e.p = arg_int(e.p, ARG_RETURN, a->ret);
	ev_end(pt, &e);
	slice_end(pt, uuid, a->end > a->start ? a->end : a->start);
}

static void write_sample(struct pt *pt, const struct tl_sample *s)
{
	uint32_t uuid = host_track(pt, s->pid, s->tid);
	uint64_t key = key_of(K_LEAF, s->stack.off, s->pid);
	const char *name = NULL;
	char tmp[32];
	struct ev e;

	if (!u64map_get(&pt->names, key))
		name = chrome_trace__leaf_name(pt->tl, pt->nm, s->pid, &s->stack, tmp, sizeof(tmp));
	if (!ev_start(pt, &e, s->ts, uuid, TYPE_INSTANT, key, name, 32))
		return;
	e.p = arg_uint(e.p, ARG_CPU, s->cpu);
	ev_end(pt, &e);
}

static void write_offcpu(struct pt *pt, const struct tl_offcpu *o)
{
	uint32_t uuid = offcpu_track(pt, o->pid, o->tid);
	uint64_t key = key_of(K_OFFCPU_LEAF, o->stack.off, o->pid);
	const char *state = chrome_trace__task_state(o->state);
	char tmp[32], *name = NULL;
	struct ev e;
	bool ok;

	if (!u64map_get(&pt->names, key)) {
		const char *leaf = chrome_trace__leaf_name(pt->tl, pt->nm, o->pid, &o->stack, tmp,
							   sizeof(tmp));

		if (asprintf(&name, "[off-cpu] %s", leaf) < 0) {
			pt->err = -ENOMEM;
			return;
		}
	}
	ok = ev_start(pt, &e, o->start, uuid, TYPE_SLICE_BEGIN, key, name, 64);
	free(name);
	if (!ok)
		return;
	e.p = arg_str(e.p, ARG_STATE, state);
	if (!strcmp(state, "?"))
		e.p = arg_uint(e.p, ARG_TASK_STATE, o->state);
	e.p = arg_uint(e.p, ARG_CPU, o->cpu);
	ev_end(pt, &e);
	slice_end(pt, uuid, o->end > o->start ? o->end : o->start);
}

static void write_gpu(struct pt *pt, size_t i)
{
	const struct timeline *tl = pt->tl;
	const struct tl_gpu *g = &tl->gpu[i];
	const struct chrome_trace_names *nm = pt->nm;
	const struct tl_kconfig *kc = timeline__gpu_kconfig(tl, g);
	uint32_t uuid, graph = timeline__gpu_graph(tl, g), dims[2];
	uint64_t key, dur = g->end > g->start ? g->end - g->start : 0;
	int64_t api = timeline__gpu_api(tl, g);
	const char *name = NULL;
	char tmp[32];
	struct ev e;

	switch (g->kind) {
	case TL_GPU_KERNEL:
		key = key_of(K_KERNEL_NAME, g->name, 0);
		if (!u64map_get(&pt->names, key)) {
			const char *mangled = timeline__str(tl, g->name);

			if (nm && nm->kernel_name && *mangled)
				name = nm->kernel_name(nm->ctx, mangled);
			if (!name)
				name = *mangled ? mangled : "[unknown kernel]";
		}
		break;
	case TL_GPU_MEMCPY:
		key = key_of(K_COPY_NAME, g->copy_kind, 0);
		snprintf(tmp, sizeof(tmp), "[memcpy %s]", chrome_trace__memcpy_kind(g->copy_kind));
		name = tmp;
		break;
	case TL_GPU_MEMSET:
		key = key_of(K_MEMSET_NAME, 0, 0);
		name = "[memset]";
		break;
	default:
		return;
	}
	uuid = stream_track(pt, timeline__gpu_device(tl, g), timeline__gpu_stream(tl, g));
	if (kc && !kconfig_svals(pt, g->kconfig, kc, dims))
		return;
	if (!ev_start(pt, &e, g->start, uuid, TYPE_SLICE_BEGIN, key, name, 160))
		return;
	if (api >= 0 && (size_t)api < tl->nr_api) {
		/* one GPU record: the flow ends here; several (a graph): it goes on to the next */
		bool more = pt->multi[api / 64] >> (api % 64) & 1;

		e.p = put_fixed64(e.p, more ? TE_FLOW_IDS : TE_TERMINATING_FLOW_IDS,
				  (uint64_t)api + 1);
	} else {
		e.p = arg_uint(e.p, ARG_CORRELATION_ID, timeline__gpu_corr(tl, g));
	}
	if (g->kind != TL_GPU_KERNEL) {
		uint64_t bytes = timeline__gpu_bytes(tl, g);

		e.p = arg_uint(e.p, ARG_BYTES, bytes);
		if (dur && g->kind == TL_GPU_MEMCPY)
			e.p = arg_double(e.p, ARG_BANDWIDTH, (double)bytes / (double)dur);
	}
	if (graph)
		e.p = arg_uint(e.p, ARG_GRAPH_ID, graph);
	if (kc) {
		e.p = arg_sval(e.p, ARG_GRID, dims[0]);
		e.p = arg_sval(e.p, ARG_BLOCK, dims[1]);
		e.p = arg_uint(e.p, ARG_REGS, kc->regs);
		e.p = arg_uint(e.p, ARG_SMEM, (uint64_t)kc->static_smem + kc->dynamic_smem);
		if (kc->dynamic_smem)
			e.p = arg_uint(e.p, ARG_DYN_SMEM, kc->dynamic_smem);
	}
	ev_end(pt, &e);
	slice_end(pt, uuid, g->start + dur);
}

int perfetto_trace__write(const struct timeline *tl, const struct correlation *c,
			  const struct chrome_trace_names *names, const char *path)
{
	struct pt *pt = NULL;
	size_t i, s, o, nw;
	int err = 0, cerr;

	if (!tl || !c || !path || c->nr_gpu != tl->nr_gpu)
		return -EINVAL;
	pt = calloc(1, sizeof(*pt));
	nw = tl->nr_api / 64 + 1;
	if (pt) {
		pt->flows = calloc(nw, sizeof(*pt->flows));
		pt->multi = calloc(nw, sizeof(*pt->multi));
	}
	if (!pt || !pt->flows || !pt->multi) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* Which API calls start a flow, and which have several GPU records (graph launches). */
	for (i = 0; i < tl->nr_gpu; i++) {
		int64_t a = timeline__gpu_api(tl, &tl->gpu[i]);

		if (tl->gpu[i].kind == TL_GPU_SYNC || a < 0 || (size_t)a >= tl->nr_api)
			continue;
		if (pt->flows[a / 64] >> (a % 64) & 1)
			pt->multi[a / 64] |= 1ULL << (a % 64);
		pt->flows[a / 64] |= 1ULL << (a % 64);
	}
	pt->tl = tl;
	pt->nm = names;
	pt->bo = bulk_out__new(path, 1);
	if (!pt->bo) {
		err = -errno;
		goto cleanup;
	}
	pt->out = bulk_out__buf(pt->bo);
	pt->last_host_key = pt->last_gpu_key = UINT64_MAX;

	first_packet(pt);
	for (i = 0; i < tl->nr_api && !pt->err; i++)
		write_api(pt, i);
	for (s = 0, o = 0; (s < tl->nr_samples || o < tl->nr_offcpu) && !pt->err;) {
		if (o == tl->nr_offcpu ||
		    (s < tl->nr_samples && tl->samples[s].ts <= tl->offcpu[o].start))
			write_sample(pt, &tl->samples[s++]);
		else
			write_offcpu(pt, &tl->offcpu[o++]);
	}
	/*
	 * GPU work in time order; a graph's kernels after their launch, so that
	 * its flow goes from the launch through each kernel in turn. The last
	 * kernel of a graph leaves the flow open: nothing follows it.
	 */
	for (i = 0; i < tl->nr_gpu && !pt->err; i++)
		write_gpu(pt, i);
	err = pt->err;
cleanup:
	if (pt) {
		cerr = bulk_out__close(pt->bo, pt->out_len);
		if (!err)
			err = cerr;
		u64map_free(&pt->names);
		u64map_free(&pt->tracks);
		free(pt->flows);
		free(pt->multi);
	}
	free(pt);
	return err;
}
