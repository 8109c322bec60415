// SPDX-License-Identifier: Apache-2.0
/*
 * perfetto_trace.c - stream the timeline out as a Perfetto protobuf trace
 * (trace.pftrace): its packet sequences, the events on them, and the
 * document. The rest of the writer is listed in perfetto_trace_priv.h.
 */
#include "perfetto_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bulk_out.h"
#include "chrome_trace.h"
#include "correlate.h"
#include "gp_alloc.h"
#include "gp_record.h"
#include "gp_util.h"
#include "perfetto_trace_priv.h"
#include "stack_agg.h"
#include "timeline.h"
#include "u64map.h"

/* ---- sequences ---- */

static inline uint8_t *put_clock(uint8_t *p, uint32_t id, uint64_t ts, bool incremental)
{
	uint8_t *c;

	p = msg_open(p, CS_CLOCKS, &c);
	p = put_uint(p, CLK_ID, id);
	p = put_uint(p, CLK_TIMESTAMP, ts);
	if (incremental)
		p = put_uint(p, CLK_IS_INCREMENTAL, 1);
	return msg_close(c, p);
}

/*
 * The first packet of sequence sq, whose events go on track uuid and
 * start at t0 (struct seq). The first sequence's also makes
 * CLOCK_MONOTONIC the trace's clock, before any timestamp is read: the
 * timeline's times are shown as they are, as in trace.json.
 */
static void seq_header(struct pt *pt, struct seq *sq, uint32_t uuid, uint64_t t0)
{
	uint8_t *p = pk_room(pt, 1024), *m, *m2;

	if (!p)
		return;
	p = put_uint(p, PKT_SEQUENCE_ID, sq->id);
	p = put_uint(p, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	p = msg_open(p, PKT_DEFAULTS, &m);
	p = put_uint(p, DEF_TIMESTAMP_CLOCK_ID, CLOCK_INCREMENTAL_ID);
	p = msg_open(p, DEF_TRACK_EVENT, &m2);
	p = put_uint(p, TED_TRACK_UUID, uuid);
	p = msg_close(m, msg_close(m2, p));
	p = msg_open(p, PKT_INTERNED_DATA, &m);
	for (unsigned i = 0; i < NR_ARGS; i++) {
		p = msg_open(p, ID_DEBUG_ANNOTATION_NAMES, &m2);
		p = put_uint(p, IN_IID, i + 1);
		p = put_bytes(p, IN_NAME, arg_names[i], strlen(arg_names[i]));
		p = msg_close(m2, p);
	}
	p = msg_close(m, p);
	/* read after the defaults and interned data of the same packet */
	p = msg_open(p, PKT_CLOCK_SNAPSHOT, &m);
	p = put_clock(p, CLOCK_MONOTONIC_ID, t0, false);
	p = put_clock(p, CLOCK_INCREMENTAL_ID, t0, true);
	if (sq->id == SEQ_ID + 1) {
		p = put_uint(p, CS_PRIMARY_TRACE_CLOCK, CLOCK_MONOTONIC_ID);
		/*
		 * The reader relates CLOCK_BOOTTIME, a proto trace's usual clock,
		 * to the trace's clock, and reports an import error where nothing
		 * does. Nothing here is on BOOTTIME and the recording does not
		 * keep it: it is given as MONOTONIC's value (they differ by the
		 * time the machine spent suspended before the recording).
		 */
		p = put_clock(p, CLOCK_BOOTTIME_ID, t0, false);
	}
	pk_emit(pt, msg_close(m, p));
	sq->last = t0;
}

/* The slot of key in a direct-mapped cache of n entries: key_of()'s fields folded, no multiply. */
static inline size_t cache_slot(uint64_t key, size_t n)
{
	return ((uint32_t)key ^ (uint32_t)(key >> 32) ^ (uint32_t)(key >> 60) * 7) & (n - 1);
}

/* The bytes every SLICE_END packet of sq ends with, and every other event's starts with. */
static void seq_templates(struct seq *sq)
{
	uint8_t *p = put_uint(sq->end_tail, PKT_SEQUENCE_ID, sq->id), *te;

	p = msg_open(p, PKT_TRACK_EVENT, &te);
	p = msg_close(te, put_uint(p, TE_TYPE, TYPE_SLICE_END));
	sq->end_tail_len = (uint8_t)(p - sq->end_tail);
	p = put_uint(sq->ev_head, PKT_SEQUENCE_ID, sq->id);
	p = put_varint(p, TAG(PKT_TRACK_EVENT, WT_LEN));
	sq->ev_head_len = (uint8_t)(p - sq->ev_head);
}

/* The sequence that holds what key names, or NULL when it has not begun. */
static inline struct seq *seq_find(struct pt *pt, uint64_t key)
{
	size_t c = cache_slot(key, SEQ_FIND_CACHE);
	uint32_t i;

	if (pt->seq_cache[c].key == key) /* keys are never 0 */
		return pt->seq_cache[c].sq;
	i = u64map_get(&pt->seq_of, key);
	if (!i)
		return NULL;
	pt->seq_cache[c].key = key;
	pt->seq_cache[c].sq = pt->seqs[i - 1];
	return pt->seqs[i - 1];
}

/*
 * Begin the sequence that holds what key names, on track uuid (which the
 * caller made), at t0. NULL on error.
 */
static struct seq *seq_new(struct pt *pt, uint64_t key, uint32_t uuid, uint64_t t0)
{
	struct seq *sq;

	if (pt->err || !uuid)
		return NULL;
	if (GP_ALLOC_GROW(pt->seqs, pt->nr_seqs + 1, pt->seqs_alloc))
		goto nomem;
	sq = calloc(1, sizeof(*sq));
	if (!sq)
		goto nomem;
	pt->seqs[pt->nr_seqs++] = sq;
	sq->id = SEQ_ID + (uint32_t)pt->nr_seqs;
	if (u64map_put(&pt->seq_of, key, (uint32_t)pt->nr_seqs))
		goto nomem;
	seq_templates(sq);
	seq_header(pt, sq, uuid, t0);
	return pt->err ? NULL : sq;
nomem:
	pt->err = -ENOMEM;
	return NULL;
}

/* The iid of name key on sequence sq, or 0 when it is not interned there yet. */
static inline uint32_t seq_iid(struct seq *sq, uint64_t key)
{
	size_t c = cache_slot(key, SEQ_CACHE);
	uint32_t iid;

	if (sq->cache[c].key == key) /* keys are never 0: a kind is in their top bits */
		return sq->cache[c].iid;
	iid = u64map_get(&sq->names, key);
	if (iid) {
		sq->cache[c].key = key;
		sq->cache[c].iid = iid;
	}
	return iid;
}

/* The packet's timestamp on sq's incremental clock, or on CLOCK_MONOTONIC when earlier. */
static inline uint8_t *put_ts(uint8_t *p, struct seq *sq, uint64_t ts)
{
	if (ts >= sq->last) {
		p = put_uint(p, PKT_TIMESTAMP, ts - sq->last);
		sq->last = ts;
		return p;
	}
	p = put_uint(p, PKT_TIMESTAMP, ts);
	return put_uint(p, PKT_TIMESTAMP_CLOCK_ID, CLOCK_MONOTONIC_ID);
}

/* ---- events ---- */

/*
 * An event packet under construction: the name to intern (when new) goes
 * into the same packet, ahead of the event.
 */
struct ev {
	uint8_t *p, *te;
};

/*
 * Start an event packet at ts on sequence sq; its name is key's interned
 * id, interned here as name (made by the caller only when needed: when
 * seq_iid() has none). room: bytes the caller will add to the event.
 */
static inline __attribute__((always_inline)) bool
ev_start(struct pt *pt, struct seq *sq, struct ev *e, uint64_t ts, unsigned type,
	 uint64_t key, const char *name, size_t room)
{
	uint32_t iid = seq_iid(sq, key);
	size_t n = !iid && name ? name_len(name) : 0;
	uint8_t *p = pk_room(pt, 64 + n + room), *idata, *en;

	if (!p)
		return false;
	if (!iid) {
		iid = ++sq->next_iid;
		if (u64map_put(&sq->names, key, iid)) {
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
	p = put_ts(p, sq, ts);
	memcpy(p, sq->ev_head, sizeof(sq->ev_head));
	p += sq->ev_head_len;
	e->te = p++; /* its length: ev_end() */
	p[0] = TAG(TE_TYPE, WT_VARINT);
	p[1] = (uint8_t)type; /* a one-byte varint */
	e->p = put_uint(p + 2, TE_NAME_IID, iid);
	return true;
}

static void ev_end(struct pt *pt, struct ev *e)
{
	pk_emit(pt, msg_close(e->te, e->p));
}

/*
 * A SLICE_END at ts on sequence sq's track: after the timestamp, the same
 * bytes every time (struct seq's end_tail). One in two packets of a trace
 * is one of these.
 */
static inline __attribute__((always_inline)) void
slice_end(struct pt *pt, struct seq *sq, uint64_t ts)
{
	uint8_t *p = pk_room(pt, 32); /* a timestamp of at most 14 bytes, the tail */

	if (!p)
		return;
	p = put_ts(p, sq, ts);
	memcpy(p, sq->end_tail, sizeof(sq->end_tail));
	pk_emit(pt, p + sq->end_tail_len);
}

/*
 * The start of a DebugAnnotation named a, written straight: arguments are
 * short enough for a one-byte length, which the caller puts at p[1] when
 * the value is written; the cursor for the value.
 */
static inline uint8_t *arg_head(uint8_t *p, enum arg a)
{
	_Static_assert(NR_ARGS < 0x80, "argument name ids are one byte");
	p[0] = TAG(TE_DEBUG_ANNOTATIONS, WT_LEN);
	p[2] = TAG(DA_NAME_IID, WT_VARINT);
	p[3] = (uint8_t)(a + 1);
	return p + 4;
}

/* An argument whose value is a varint field (uint_value, int_value, string_value_iid). */
static inline uint8_t *arg_varint(uint8_t *p, enum arg a, unsigned field, uint64_t v)
{
	uint8_t *q = put_uint(arg_head(p, a), field, v);

	p[1] = (uint8_t)(q - p - 2); /* at most 2 + 2 + 10 */
	return q;
}

#define arg_uint(p, a, v) arg_varint((p), (a), DA_UINT_VALUE, (v))
#define arg_int(p, a, v) arg_varint((p), (a), DA_INT_VALUE, (uint64_t)(int64_t)(v))
#define arg_sval(p, a, iid) arg_varint((p), (a), DA_STRING_VALUE_IID, (iid))

/* A double argument: 13 bytes. */
static inline uint8_t *arg_double(uint8_t *p, enum arg a, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	p[1] = 11;
	return put_fixed64(arg_head(p, a), DA_DOUBLE_VALUE, bits);
}

/* A string argument, one of ours (shorter than 0x80 - 6 bytes). */
static inline uint8_t *arg_str(uint8_t *p, enum arg a, const char *s)
{
	uint8_t *q = put_bytes(arg_head(p, a), DA_STRING_VALUE, s, strlen(s));

	p[1] = (uint8_t)(q - p - 2);
	return q;
}

/*
 * The arguments launch configuration kcfg gives a kernel on stream
 * sequence sq (grid and block as interned strings such as "256x1x1",
 * registers, shared memory), encoded into sq->kc_args once per run of the
 * configuration on the stream, to be copied into each kernel's event. The
 * grid and block strings are interned, in a packet of their own, the first
 * time.
 */
static bool kconfig_args(struct pt *pt, struct seq *sq, uint16_t kcfg, const struct tl_kconfig *kc)
{
	char dims[2][CHROME_TRACE_DIMS_LEN];
	uint32_t iid[2];
	size_t n[2];
	uint8_t *p, *idata, *sv;

	if (kcfg == sq->kc_kcfg && sq->kc_len) /* a stream runs one configuration many times */
		return true;
	iid[0] = seq_iid(sq, key_of(K_DIMS, kcfg, 0));
	iid[1] = seq_iid(sq, key_of(K_DIMS, kcfg, 1));
	if (!iid[0] || !iid[1]) {
		n[0] = chrome_trace__dims(dims[0], kc->grid);
		n[1] = chrome_trace__dims(dims[1], kc->block);
		p = pk_room(pt, 64 + n[0] + n[1]);
		if (!p)
			return false;
		p = put_uint(p, PKT_SEQUENCE_ID, sq->id);
		p = msg_open(p, PKT_INTERNED_DATA, &idata);
		for (int i = 0; i < 2; i++) {
			iid[i] = ++sq->next_sval_iid;
			if (u64map_put(&sq->names, key_of(K_DIMS, kcfg, (uint32_t)i), iid[i])) {
				pt->err = -ENOMEM;
				return false;
			}
			p = msg_open(p, ID_DEBUG_ANNOTATION_STRING_VALUES, &sv);
			p = put_uint(p, IN_IID, iid[i]);
			p = put_bytes(p, IN_NAME, dims[i], n[i]);
			p = msg_close(sv, p);
		}
		pk_emit(pt, msg_close(idata, p));
	}
	p = arg_sval(sq->kc_args, ARG_GRID, iid[0]);
	p = arg_sval(p, ARG_BLOCK, iid[1]);
	p = arg_uint(p, ARG_REGS, kc->regs);
	p = arg_uint(p, ARG_SMEM, (uint64_t)kc->static_smem + kc->dynamic_smem);
	if (kc->dynamic_smem)
		p = arg_uint(p, ARG_DYN_SMEM, kc->dynamic_smem);
	sq->kc_len = (uint8_t)(p - sq->kc_args);
	sq->kc_kcfg = kcfg;
	return true;
}

/* The flow of GPU record i of a graph launch: above every launch's own (API index + 1). */
static inline uint64_t fan_id(const struct pt *pt, uint64_t i)
{
	return (uint64_t)pt->tl->nr_api + i + 1;
}

static int fan_cmp(const void *a, const void *b)
{
	const struct fan *x = a, *y = b;

	if (x->api != y->api)
		return x->api < y->api ? -1 : 1;
	return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

/* Whether GPU record i of a graph launch has a flow of its own (is in pt->fan). */
static bool fan_has(const struct pt *pt, uint32_t api, uint64_t i)
{
	struct fan key = { .api = api, .gpu = i };

	return bsearch(&key, pt->fan, pt->nr_fan, sizeof(key), fan_cmp) != NULL;
}

/*
 * A launch's flows are ids on its one packet: at most FAN_MAX of them
 * (about 1 MiB), the first records of the launch; the rest of a bigger
 * graph is drawn without arrows.
 */
#define FAN_MAX 100000

/* pt->fan: the drawn records of every launch that issued several. 0 or -ENOMEM. */
static int fan_build(struct pt *pt)
{
	const struct timeline *tl = pt->tl;
	size_t i, n = 0, run = 0, k;

	for (i = 0; i < tl->nr_gpu; i++) {
		const struct tl_gpu *g = &tl->gpu[i];
		int32_t api = timeline__gpu_api(tl, g);

		n += api >= 0 && g->kind != TL_GPU_SYNC && correlation__multi(pt->c, (size_t)api);
	}
	if (!n)
		return 0;
	pt->fan = malloc(n * sizeof(*pt->fan));
	if (!pt->fan)
		return -ENOMEM;
	for (i = 0; i < tl->nr_gpu; i++) {
		const struct tl_gpu *g = &tl->gpu[i];
		int32_t api = timeline__gpu_api(tl, g);

		if (api >= 0 && g->kind != TL_GPU_SYNC && correlation__multi(pt->c, (size_t)api))
			pt->fan[pt->nr_fan++] = (struct fan){ .api = (uint32_t)api, .gpu = i };
	}
	/* records in time order, which is not their launches' */
	qsort(pt->fan, pt->nr_fan, sizeof(*pt->fan), fan_cmp);
	for (i = 0, k = 0; i < pt->nr_fan; i++) {
		run = i && pt->fan[i].api == pt->fan[i - 1].api ? run + 1 : 0;
		if (run < FAN_MAX)
			pt->fan[k++] = pt->fan[i];
	}
	pt->nr_fan = k;
	return 0;
}

static inline __attribute__((always_inline)) void
write_api(struct pt *pt, size_t i)
{
	const struct timeline *tl = pt->tl;
	const struct tl_api *a = &tl->api[i];
	struct seq *sq = pt->api_seq[a->thr];
	uint32_t name = timeline__api_name(tl, a);
	uint64_t key = key_of(K_API_NAME, name, 0);
	size_t f0 = pt->fan_at, nfan = 0, k;
	struct ev e;

	if (correlation__multi(pt->c, i)) {
		/* a graph launch: a flow to each record, as trace.json fans out to them */
		while (f0 < pt->nr_fan && pt->fan[f0].api < i)
			f0++;
		while (f0 + nfan < pt->nr_fan && pt->fan[f0 + nfan].api == i)
			nfan++;
		pt->fan_at = f0 + nfan;
	}
	if (!sq) {
		uint32_t pid = timeline__api_pid(tl, a), tid = timeline__api_tid(tl, a);

		sq = seq_new(pt, key_of(K_THREAD_TRACK, pid, tid), pt_host_track(pt, pid, tid), a->start);
		if (!sq)
			return;
		pt->api_seq[a->thr] = sq;
	}
	if (!ev_start(pt, sq, &e, a->start, TYPE_SLICE_BEGIN, key,
		      name ? timeline__str(tl, name) : "[unknown API]", 64 + 12 * nfan))
		return;
	for (k = 0; k < nfan; k++)
		e.p = put_uint(e.p, TE_FLOW_IDS, fan_id(pt, pt->fan[f0 + k].gpu));
	if (!nfan && correlation__flow(pt->c, i))
		e.p = put_uint(e.p, TE_FLOW_IDS, (uint64_t)i + 1);
	e.p = arg_uint(e.p, ARG_CORRELATION_ID, a->corr);
	if (a->ret)
		e.p = arg_int(e.p, ARG_RETURN, a->ret);
	ev_end(pt, &e);
	slice_end(pt, sq, timeline__api_end(tl, a));
}

static void write_sample(struct pt *pt, const struct tl_sample *s)
{
	int64_t cs = chrome_trace__sample_stack(pt->stacks, pt->tl, pt->nm, s);
	uint64_t thread = (uint64_t)s->pid << 32 | s->tid;
	struct seq *sq = pt->sample_seq;
	uint8_t *p, *ps;
	uint32_t uuid;

	if (cs < 0) {
		pt->err = (int)cs;
		return;
	}
	if (!sq || thread != pt->sample_thread) {
		/* the thread's track names it, and the sample lands there by pid and tid */
		uuid = pt_host_track(pt, s->pid, s->tid);
		pt->sample_thread = thread;
		if (!sq) {
			sq = seq_new(pt, key_of(K_SAMPLE_SEQ, 0, 0), uuid, s->ts);
			if (!sq)
				return;
			pt->sample_seq = sq;
			pt_sample_header(pt, sq);
		}
	}
	if (cs) {
		size_t w = (size_t)cs / 64;

		if (GP_ALLOC_GROW_ZERO(pt->cs_done, w + 1, pt->cs_done_words)) {
			pt->err = -ENOMEM;
			return;
		}
		if (!(pt->cs_done[w] >> (cs % 64) & 1)) {
			pt_intern_callstack(pt, sq, (uint32_t)cs);
			pt->cs_done[w] |= 1ull << (cs % 64);
		}
	}
	p = pk_room(pt, 64);
	if (!p)
		return;
	p = put_ts(p, sq, s->ts);
	p = put_uint(p, PKT_SEQUENCE_ID, sq->id);
	p = msg_open(p, PKT_PERF_SAMPLE, &ps);
	p = put_uint(p, PS_CPU, s->cpu);
	p = put_uint(p, PS_PID, s->pid);
	p = put_uint(p, PS_TID, s->tid);
	if (cs)
		p = put_uint(p, PS_CALLSTACK_IID, (uint64_t)cs);
	p = put_uint(p, PS_CPU_MODE, s->stack.nr_kernel ? CPU_MODE_KERNEL : CPU_MODE_USER);
	pk_emit(pt, msg_close(ps, p));
}

static void write_offcpu(struct pt *pt, const struct tl_offcpu *o)
{
	uint64_t key = key_of(K_OFFCPU_LEAF, o->stack.off, o->pid);
	const char *state = chrome_trace__task_state(o->state);
	char tmp[32], *name = NULL;
	uint64_t okey = key_of(K_OFFCPU_TRACK, o->pid, o->tid);
	struct seq *sq = seq_find(pt, okey);
	struct ev e;
	bool ok;

	if (!sq)
		sq = seq_new(pt, okey, pt_offcpu_track(pt, o->pid, o->tid), o->start);
	if (!sq)
		return;
	if (!seq_iid(sq, key)) {
		const char *leaf = chrome_trace__leaf_name(pt->tl, pt->nm, o->pid, &o->stack, tmp,
							   sizeof(tmp));

		if (asprintf(&name, "[off-cpu] %s", leaf) < 0) {
			pt->err = -ENOMEM;
			return;
		}
	}
	ok = ev_start(pt, sq, &e, o->start, TYPE_SLICE_BEGIN, key, name, 64);
	free(name);
	if (!ok)
		return;
	e.p = arg_str(e.p, ARG_STATE, state);
	if (!chrome_trace__task_state_exact(o->state))
		e.p = arg_uint(e.p, ARG_TASK_STATE, o->state);
	e.p = arg_uint(e.p, ARG_CPU, o->cpu);
	ev_end(pt, &e);
	slice_end(pt, sq, o->end > o->start ? o->end : o->start);
}

static void write_gpu(struct pt *pt, size_t i)
{
	const struct timeline *tl = pt->tl;
	const struct tl_gpu *g = &tl->gpu[i];
	const struct chrome_trace_names *nm = pt->nm;
	const struct tl_kconfig *kc = timeline__gpu_kconfig(tl, g);
	uint32_t graph = timeline__gpu_graph(tl, g);
	uint64_t key, dur = timeline__dur(tl, g->dur);
	int64_t api = timeline__gpu_api(tl, g);
	const char *name = NULL;
	char tmp[32];
	struct seq *sq;
	struct ev e;

	switch (g->kind) {
	case TL_GPU_KERNEL:
		key = key_of(K_KERNEL_NAME, g->name, 0);
		break;
	case TL_GPU_MEMCPY:
		key = key_of(K_COPY_NAME, g->copy_kind, 0);
		break;
	case TL_GPU_MEMSET:
		key = key_of(K_MEMSET_NAME, 0, 0);
		name = "[memset]";
		break;
	default:
		return;
	}
	sq = pt->lane_seq[g->lane];
	if (!sq) {
		uint32_t device = timeline__gpu_device(tl, g), stream = timeline__gpu_stream(tl, g);
		uint64_t skey = key_of(K_STREAM_TRACK, device, stream);

		sq = seq_find(pt, skey);
		if (!sq)
			sq = seq_new(pt, skey, pt_stream_track(pt, device, stream), g->start);
		if (!sq)
			return;
		pt->lane_seq[g->lane] = sq;
	}
	if (g->kind == TL_GPU_KERNEL && !seq_iid(sq, key)) {
		const char *mangled = timeline__str(tl, g->name);

		if (nm && nm->kernel_name && *mangled)
			name = nm->kernel_name(nm->ctx, mangled);
		if (!name)
			name = *mangled ? mangled : "[unknown kernel]";
	} else if (g->kind == TL_GPU_MEMCPY && !seq_iid(sq, key)) {
		snprintf(tmp, sizeof(tmp), "[memcpy %s]", timeline__copy_kind_name(g->copy_kind));
		name = tmp;
	}
	if (kc && !kconfig_args(pt, sq, g->kconfig, kc))
		return;
	if (!ev_start(pt, sq, &e, g->start, TYPE_SLICE_BEGIN, key, name, 160))
		return;
	if (api >= 0 && (size_t)api < tl->nr_api) {
		/* the end of its launch's flow; of a graph launch, of the flow to this record */
		if (!correlation__multi(pt->c, (size_t)api))
			e.p = put_uint(e.p, TE_TERMINATING_FLOW_IDS, (uint64_t)api + 1);
		else if (fan_has(pt, (uint32_t)api, i))
			e.p = put_uint(e.p, TE_TERMINATING_FLOW_IDS, fan_id(pt, i));
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
		memcpy(e.p, sq->kc_args, sizeof(sq->kc_args)); /* within ev_start()'s room */
		e.p += sq->kc_len;
	}
	ev_end(pt, &e);
	slice_end(pt, sq, g->start + dur);
}

/*
 * Each device's "GPU memory" counter, as trace.json's: bytes allocated and
 * not yet freed, a value after each allocation and free (tl->mem is in
 * time order), on a sequence of its own per device.
 */
static void write_memory(struct pt *pt)
{
	const struct timeline *tl = pt->tl;
	struct {
		uint32_t device;
		uint64_t live;
		struct seq *sq;
	} dev[CHROME_TRACE_MEM_DEVICES];
	size_t i, j, n = 0;

	for (i = 0; i < tl->nr_mem && !pt->err; i++) {
		const struct tl_mem *m = &tl->mem[i];
		uint8_t *p, *te;

		if (m->op != GP_MEM_ALLOC && m->op != GP_MEM_FREE)
			continue;
		for (j = 0; j < n && dev[j].device != m->device; j++)
			;
		if (j == n) {
			if (n == CHROME_TRACE_MEM_DEVICES)
				continue;
			dev[n].device = m->device;
			dev[n].live = 0;
			dev[n++].sq = seq_new(pt, key_of(K_MEM_TRACK, m->device, 0),
					      pt_mem_track(pt, m->device), m->ts);
		}
		if (!dev[j].sq)
			return;
		if (m->op == GP_MEM_ALLOC)
			dev[j].live += m->bytes;
		else /* memory allocated before the recording is freed from nothing */
			dev[j].live -= m->bytes < dev[j].live ? m->bytes : dev[j].live;
		p = pk_room(pt, 64);
		if (!p)
			return;
		p = put_ts(p, dev[j].sq, m->ts);
		p = put_uint(p, PKT_SEQUENCE_ID, dev[j].sq->id);
		p = msg_open(p, PKT_TRACK_EVENT, &te);
		p = put_uint(p, TE_TYPE, TYPE_COUNTER);
		p = put_uint(p, TE_COUNTER_VALUE, dev[j].live);
		pk_emit(pt, msg_close(te, p));
	}
}

int perfetto_trace__write(const struct timeline *tl, const struct correlation *c,
			  const struct chrome_trace_names *names, const char *path)
{
	struct pt *pt = NULL;
	size_t i, s, o;
	int err = 0, cerr;

	if (!tl || !c || !path || c->nr_gpu != tl->nr_gpu)
		return -EINVAL;
	pt = calloc(1, sizeof(*pt));
	if (pt) {
		pt->api_seq = calloc(tl->nr_tids + 1, sizeof(*pt->api_seq));
		pt->lane_seq = calloc(tl->nr_lanes + 1, sizeof(*pt->lane_seq));
	}
	if (!pt || !pt->api_seq || !pt->lane_seq) {
		err = -ENOMEM;
		goto cleanup;
	}
	pt->c = c;
	pt->tl = tl;
	pt->nm = names;
	pt->bo = bulk_out__new(path, 1);
	if (!pt->bo) {
		err = -errno;
		goto cleanup;
	}
	pt->out = bulk_out__buf(pt->bo);
	pt->stacks = chrome_trace__stacks_new();
	if (!pt->stacks || fan_build(pt)) {
		err = -ENOMEM;
		goto cleanup;
	}

	/* Each sequence's events in time order, which keeps the time between them small. */
	for (i = 0; i < tl->nr_api && !pt->err; i++)
		write_api(pt, i);
	for (s = 0, o = 0; (s < tl->nr_samples || o < tl->nr_offcpu) && !pt->err;) {
		if (timeline__sample_next(tl, s, o))
			write_sample(pt, &tl->samples[s++]);
		else
			write_offcpu(pt, &tl->offcpu[o++]);
	}
	/* GPU work in time order: each record ends the flow its launch began */
	for (i = 0; i < tl->nr_gpu && !pt->err; i++)
		write_gpu(pt, i);
	write_memory(pt);
	err = pt->err;
cleanup:
	if (pt) {
		cerr = bulk_out__close(pt->bo, pt->out_len);
		if (!err)
			err = cerr;
		for (i = 0; i < pt->nr_seqs; i++) {
			u64map_free(&pt->seqs[i]->names);
			free(pt->seqs[i]);
		}
		free(pt->seqs);
		u64map_free(&pt->seq_of);
		u64map_free(&pt->tracks);
		free(pt->api_seq);
		free(pt->lane_seq);
		chrome_trace__stacks_free(pt->stacks);
		free(pt->cs_done);
		free(pt->path);
		free(pt->fan);
	}
	free(pt);
	return err;
}
