// SPDX-License-Identifier: Apache-2.0
/*
 * chrome_trace.c - stream the timeline out as Chrome Trace Event Format
 * JSON (trace.json): metadata, tracks and the events of each kind. The
 * output buffer is json_writer.h's, the samples' stacks
 * chrome_trace_stacks.c's.
 */
#include "chrome_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bulk_out.h"
#include "correlate.h"
#include "gp_alloc.h"
#include "gp_record.h"
#include "gp_util.h"
#include "json_writer.h"
#include "stack_agg.h"
#include "timeline.h"
#include "u64map.h"

int chrome_trace__write_string(gzFile out, const char *s)
{
	struct jw *w;
	int err;

	if (!out)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->buf = malloc(JW_BUF);
	if (!w->buf) {
		free(w);
		return -ENOMEM;
	}
	w->cap = JW_BUF;
	w->gz = out;
	jw_str(w, s);
	jw_flush(w);
	err = w->err;
	free(w->buf);
	free(w);
	return err;
}

/*
 * Add key to the set of tracks (pid << 32 | tid) or processes already
 * announced with metadata: 1 if it was new, 0 if present, -ENOMEM.
 * UINT64_MAX (pid and tid both ~0) reads as present, never announced.
 */
static int keyset_add(struct u64map *set, uint64_t key)
{
	if (key == UINT64_MAX || u64map_get(set, key))
		return 0;
	return u64map_put(set, key, 1) ? -ENOMEM : 1;
}

/*
 * Escaped JSON strings by timeline string id, quotes included: kernel and
 * API names repeat millions of times, so each is named (demangled) and
 * escaped once.
 */
struct esc_ent {
	char *s; /* NULL: not known yet */
	uint32_t len;
};

struct esc_cache {
	struct esc_ent *v;
	size_t cap;
};

struct ct {
	struct jw w;
	const struct timeline *tl;
	const struct chrome_trace_names *nm;
	uint64_t base;
	int first;
	int err;
	struct u64map procs, threads; /* announced: key -> 1 */
	uint64_t last_host, last_gpu, last_offcpu; /* the track the previous event announced, or UINT64_MAX */
	struct esc_cache strs;	      /* timeline strings as they are */
	struct esc_cache knames;      /* kernel names as shown (demangled) */
	struct chrome_trace_stacks *stacks; /* the samples' stacks: "stackFrames" */
	/* ",\"pid\":P,\"tid\":T" of recent tracks, by tid % 4: events come in runs per track */
	struct trk_text {
		uint64_t key; /* pid << 32 | tid, + 1; 0: empty */
		uint32_t len;
		char s[48];
	} trk[4];
};

/* The cache entry of id, NULL without memory (then nothing is cached). */
static struct esc_ent *esc_slot(struct esc_cache *c, uint32_t id)
{
	if (GP_ALLOC_GROW_ZERO(c->v, (size_t)id + 1, c->cap))
		return NULL;
	return &c->v[id];
}

static void esc_free(struct esc_cache *c)
{
	size_t i;

	for (i = 0; i < c->cap; i++)
		free(c->v[i].s);
	free(c->v);
}

/* Write str escaped; keep the escaped form in e (when given and it fits whole in the buffer). */
static void jw_str_keep(struct jw *w, const char *str, struct esc_ent *e)
{
	size_t at = w->len;
	unsigned long flushes = w->flushes;

	jw_str(w, str);
	if (e && flushes == w->flushes && w->len - at < UINT32_MAX) {
		e->s = malloc(w->len - at);
		if (e->s) {
			memcpy(e->s, w->buf + at, w->len - at);
			e->len = (uint32_t)(w->len - at);
		}
	}
}

/* Timeline string id escaped, from the cache when there. */
static void jw_tlstr(struct ct *ct, uint32_t id)
{
	struct esc_ent *e = esc_slot(&ct->strs, id);

	if (e && e->s)
		jw_put(&ct->w, e->s, e->len);
	else
		jw_str_keep(&ct->w, timeline__str(ct->tl, id), e);
}

/*
 * Start one event object: the separator, then the fields every event has.
 * head: the "ph" value and, when the event has one, its category, as
 * ev_head() spells them.
 */
static inline char *ev_begin_p(struct ct *ct, const char *head, size_t head_len, uint32_t pid,
				uint32_t tid)
{
	char *p = jw_room(&ct->w, P_ROOM);

	if (ct->first)
		p_lit(p, "\n{\"ph\":\"");
	else
		p_lit(p, ",\n{\"ph\":\"");
	ct->first = 0;
	memcpy(p, head, head_len);
	p += head_len;
	{
		struct trk_text *t = &ct->trk[tid & 3];
		uint64_t key = ((uint64_t)pid << 32 | tid) + 1;

		if (t->key != key) {
			char *q = t->s;

			p_lit(q, "\",\"pid\":");
			q = fmt_u64(q, pid);
			p_lit(q, ",\"tid\":");
			q = fmt_u64(q, tid);
			t->len = (uint32_t)(q - t->s);
			t->key = key;
		}
		memcpy(p, t->s, t->len);
		return p + t->len;
	}
}

#define ev_head(ph, cat) ph "\",\"cat\":\"" cat
/* The cursor variant leaves P_ROOM - 100 bytes of room to go on with before jw_done(). */
#define ev_begin_p(ct, head, pid, tid) ev_begin_p((ct), "" head, sizeof(head) - 1, (pid), (tid))
#define ev_begin(ct, head, pid, tid) jw_done(&(ct)->w, ev_begin_p((ct), head, (pid), (tid)))

static void ev_ts(struct ct *ct, uint64_t t)
{
	jw_lit(&ct->w, ",\"ts\":");
	jw_us(&ct->w, t >= ct->base ? t - ct->base : 0);
}

static void ev_dur(struct ct *ct, uint64_t start, uint64_t end)
{
	jw_lit(&ct->w, ",\"dur\":");
	jw_us(&ct->w, end > start ? end - start : 0);
}

static void meta(struct ct *ct, const char *what, uint32_t pid, uint32_t tid, const char *name,
		 int64_t sort_index)
{
	struct jw *w = &ct->w;
	char key[32];

	ev_begin(ct, "M", pid, tid);
	jw_lit(w, ",\"name\":\"");
	jw_puts(w, what);
	jw_lit(w, "_name\",\"args\":{\"name\":");
	jw_str(w, name);
	jw_lit(w, "}}");
	snprintf(key, sizeof(key), "%s_sort_index", what);
	ev_begin(ct, "M", pid, tid);
	jw_lit(w, ",\"name\":\"");
	jw_puts(w, key);
	jw_lit(w, "\",\"args\":{\"sort_index\":");
	jw_i64(w, sort_index);
	jw_lit(w, "}}");
}

/* Announce a host process and thread the first time one of their events is written. */
static void host_track(struct ct *ct, uint32_t pid, uint32_t tid)
{
	const struct chrome_trace_names *nm = ct->nm;
	const char *name;
	char tmp[64];
	int r;

	if (ct->last_host == ((uint64_t)pid << 32 | tid) && ct->last_host != UINT64_MAX)
		return;
	ct->last_host = (uint64_t)pid << 32 | tid;
	r = keyset_add(&ct->procs, pid);
	if (r < 0)
		ct->err = r;
	if (r > 0) {
		name = nm && nm->process_name ? nm->process_name(nm->ctx, pid) : NULL;
		if (!name) {
			snprintf(tmp, sizeof(tmp), "pid %" PRIu32, pid);
			name = tmp;
		}
		/* Host processes first, by pid; GPUs after them (see gpu_track()). */
		meta(ct, "process", pid, 0, name, pid);
	}
	r = keyset_add(&ct->threads, (uint64_t)pid << 32 | tid);
	if (r < 0)
		ct->err = r;
	if (r > 0) {
		name = nm && nm->thread_name ? nm->thread_name(nm->ctx, pid, tid) : NULL;
		if (!name) {
			snprintf(tmp, sizeof(tmp), "thread %" PRIu32, tid);
			name = tmp;
		}
		meta(ct, "thread", pid, tid, name, tid);
	}
}

/* Announce thread tid's off-CPU track (its host track first) the first time. */
static void offcpu_track(struct ct *ct, uint32_t pid, uint32_t tid)
{
	const struct chrome_trace_names *nm = ct->nm;
	uint64_t key = (uint64_t)pid << 32 | (CHROME_TRACE_OFFCPU_TID + tid);
	const char *name;
	char tmp[320];
	int r;

	if (ct->last_offcpu == key)
		return;
	host_track(ct, pid, tid);
	ct->last_offcpu = key;
	r = keyset_add(&ct->threads, key);
	if (r < 0)
		ct->err = r;
	if (r > 0) {
		name = nm && nm->thread_name ? nm->thread_name(nm->ctx, pid, tid) : NULL;
		if (name)
			snprintf(tmp, sizeof(tmp), "%.256s (off-CPU)", name);
		else
			snprintf(tmp, sizeof(tmp), "thread %" PRIu32 " (off-CPU)", tid);
		/* right after its thread's track */
		meta(ct, "thread", pid, CHROME_TRACE_OFFCPU_TID + tid, tmp, tid);
	}
}

/* Announce a GPU's process the first time one of its events is written. */
static void gpu_process(struct ct *ct, uint32_t device)
{
	const struct chrome_trace_names *nm = ct->nm;
	uint32_t pid = CHROME_TRACE_GPU_PID_BASE + device;
	const char *dev;
	char tmp[320];
	int r;

	r = keyset_add(&ct->procs, pid);
	if (r < 0)
		ct->err = r;
	if (r > 0) {
		dev = nm && nm->device_name ? nm->device_name(nm->ctx, device) : NULL;
		if (dev && *dev)
			snprintf(tmp, sizeof(tmp), "GPU %" PRIu32 " (%.256s)", device, dev);
		else
			snprintf(tmp, sizeof(tmp), "GPU %" PRIu32, device);
		meta(ct, "process", pid, 0, tmp, (int64_t)pid);
	}
}

static void gpu_track(struct ct *ct, uint32_t device, uint32_t stream)
{
	uint32_t pid = CHROME_TRACE_GPU_PID_BASE + device;
	char tmp[32];
	int r;

	if (ct->last_gpu == ((uint64_t)device << 32 | stream) && ct->last_gpu != UINT64_MAX)
		return;
	ct->last_gpu = (uint64_t)device << 32 | stream;
	gpu_process(ct, device);
	r = keyset_add(&ct->threads, (uint64_t)pid << 32 | stream);
	if (r < 0)
		ct->err = r;
	if (r > 0) {
		snprintf(tmp, sizeof(tmp), "stream %" PRIu32, stream);
		meta(ct, "thread", pid, stream, tmp, stream);
	}
}

const char *chrome_trace__leaf_name(const struct timeline *tl, const struct chrome_trace_names *nm,
				   uint32_t pid, const struct tl_stack *st, char *tmp, size_t len)
{
	const char *name = nm && nm->stack_leaf ? nm->stack_leaf(nm->ctx, pid, st) : NULL;
	const uint64_t *f;

	if (name)
		return name;
	if (!st->nr_user && !st->nr_kernel)
		return "[unknown]";
	f = timeline__frames(tl, st);
	if (!f)
		return "[unknown]";
	snprintf(tmp, len, "0x%" PRIx64, f[0]);
	return tmp;
}

static const char *leaf_name(struct ct *ct, uint32_t pid, const struct tl_stack *st, char *tmp,
			     size_t len)
{
	return chrome_trace__leaf_name(ct->tl, ct->nm, pid, st, tmp, len);
}

/*
 * The kernel's TASK_* bits at switch-out, as ps(1) letters: task_state_index()'s
 * rule, so that a state that is several bits reads as ps(1) shows it
 * (TASK_KILLABLE = TASK_WAKEKILL | TASK_UNINTERRUPTIBLE is D): keep the bits
 * /proc reports (TASK_REPORT), take the highest; TASK_IDLE (NOLOAD |
 * UNINTERRUPTIBLE) is I; an rtlock waiter or a frozen task is D.
 */
#define TASK_REPORT	   0x7fu
#define TASK_UNINTERR	   0x2u
#define TASK_IDLE	   0x402u
#define TASK_RTLOCK_WAIT   0x1000u
#define TASK_FROZEN	   0x8000u

static unsigned task_state_index(uint32_t state)
{
	uint32_t bits = state & TASK_REPORT;

	if ((state & TASK_IDLE) == TASK_IDLE)
		return 8;
	if (state & (TASK_RTLOCK_WAIT | TASK_FROZEN))
		bits = TASK_UNINTERR;
	/* fls(): 0 for none (running), 1 for bit 0, ... */
	return bits ? 32 - (unsigned)__builtin_clz(bits) : 0;
}

const char *chrome_trace__task_state(uint32_t state)
{
	static const char *const letters[] = {"R", "S", "D", "T", "t", "X", "Z", "P", "I"};

	return letters[task_state_index(state)];
}

bool chrome_trace__task_state_exact(uint32_t state)
{
	unsigned i = task_state_index(state);

	if (i == 8)
		return state == TASK_IDLE;
	return state == (i ? 1u << (i - 1) : 0);
}

static uint64_t earliest(const struct timeline *tl)
{
	uint64_t t = UINT64_MAX;
	size_t i;

	/* gpu, samples and offcpu are sorted by time; api by thread first. */
	if (tl->nr_gpu)
		t = tl->gpu[0].start;
	if (tl->nr_samples && tl->samples[0].ts < t)
		t = tl->samples[0].ts;
	if (tl->nr_offcpu && tl->offcpu[0].start < t)
		t = tl->offcpu[0].start;
	for (i = 0; i < tl->nr_api; i++)
		if (tl->api[i].start < t)
			t = tl->api[i].start;
	return t == UINT64_MAX ? 0 : t;
}

/*
 * Events carry what a viewer needs and nothing it already has: the track
 * (pid/tid) says the thread, GPU and stream, the category the kind of work,
 * the name the API call, kernel or copy direction. args keep the
 * correlation id (the key CUPTI and Nsight use), a non-zero return value,
 * byte counts, bandwidth and graph ids: at 10M launches every byte of an
 * event is 20 MB of trace.json.
 */
static void write_api(struct ct *ct, size_t i, const struct correlation *c)
{
	const struct timeline *tl = ct->tl;
	const struct tl_api *a = &tl->api[i];
	struct jw *w = &ct->w;
	uint32_t name = timeline__api_name(tl, a);
	uint64_t base = ct->base;
	char *p;

	host_track(ct, timeline__api_pid(tl, a), timeline__api_tid(tl, a));
	p = ev_begin_p(ct, ev_head("X", "cuda_api"), timeline__api_pid(tl, a),
		       timeline__api_tid(tl, a));
	p_lit(p, ",\"name\":");
	jw_done(w, p);
	if (name)
		jw_tlstr(ct, name);
	else
		jw_lit(w, "\"[unknown API]\"");
	p = jw_room(w, P_ROOM);
	p_lit(p, ",\"ts\":");
	p = fmt_us(p, a->start >= base ? a->start - base : 0);
	p_lit(p, ",\"dur\":");
	p = fmt_us(p, timeline__dur(ct->tl, a->dur));
	if (correlation__flow(c, i)) {
		/* bind_id: the API record's index + 1, unique across processes (correlation ids are
		 * not). */
		p_lit(p, ",\"bind_id\":");
		p = fmt_u64(p, (uint64_t)i + 1);
		p_lit(p, ",\"flow_out\":true");
	}
	p_lit(p, ",\"args\":{\"correlation_id\":");
	p = fmt_u64(p, a->corr);
	if (a->ret) {
		p_lit(p, ",\"return\":");
		p = fmt_i64(p, a->ret);
	}
	p_lit(p, "}}");
	jw_done(w, p);
}

static void write_sample(struct ct *ct, const struct tl_sample *s)
{
	struct jw *w = &ct->w;
	char tmp[32];

	host_track(ct, s->pid, s->tid);
	/* An instant, not a slice: a sample is a point, and a slice of the
	 * period's width would overlap API slices and break their nesting. */
	int64_t sf = chrome_trace__sample_stack(ct->stacks, ct->tl, ct->nm, s);

	if (sf < 0) {
		ct->err = (int)sf;
		return;
	}
	ev_begin(ct, ev_head("i", "cpu_sample"), s->pid, s->tid);
	jw_lit(w, ",\"s\":\"t\",\"name\":");
	if (sf && (s->stack.nr_user || s->stack.nr_kernel)) {
		/* its innermost frame (a kernel function's, in a system call) */
		struct chrome_trace_frame f;

		chrome_trace__stack_node(ct->stacks, (uint32_t)sf, &f);
		jw_str(w, f.name);
	} else {
		jw_str(w, leaf_name(ct, s->pid, &s->stack, tmp, sizeof(tmp)));
	}
	ev_ts(ct, s->ts);
	/* its stack: a node of "stackFrames", each distinct stack written once at the end */
	if (sf) {
		jw_lit(w, ",\"sf\":");
		jw_u64(w, (uint64_t)sf);
	}
	/* the weight is the sampling period, the same for every sample: summary.json has it */
	jw_lit(w, ",\"args\":{\"cpu\":");
	jw_u64(w, s->cpu);
	jw_lit(w, "}}");
}

static void write_offcpu(struct ct *ct, const struct tl_offcpu *o)
{
	struct jw *w = &ct->w;
	const char *leaf;
	char tmp[32];

	offcpu_track(ct, o->pid, o->tid);
	ev_begin(ct, ev_head("X", "off_cpu"), o->pid, CHROME_TRACE_OFFCPU_TID + o->tid);
	leaf = leaf_name(ct, o->pid, &o->stack, tmp, sizeof(tmp));
	jw_lit(w, ",\"name\":");
	jw_str_prefixed(w, "[off-cpu] ", leaf);
	ev_ts(ct, o->start);
	ev_dur(ct, o->start, o->end);
	jw_lit(w, ",\"args\":{\"state\":\"");
	jw_puts(w, chrome_trace__task_state(o->state));
	jw_lit(w, "\"");
	if (!chrome_trace__task_state_exact(o->state)) {
		/* more than the letter says (D but killable): the kernel's bits */
		jw_lit(w, ",\"task_state\":");
		jw_u64(w, o->state);
	}
	jw_lit(w, ",\"cpu\":");
	jw_u64(w, o->cpu);
	jw_lit(w, "}}");
}

size_t chrome_trace__dims(char *buf, const uint32_t d[3])
{
	char *p = fmt_u64(buf, d[0]);

	*p++ = 'x';
	p = fmt_u64(p, d[1]);
	*p++ = 'x';
	p = fmt_u64(p, d[2]);
	*p = 0;
	return (size_t)(p - buf);
}

/* s[0..n) (nothing to escape) in quotes. */
static inline char *put_quoted(char *p, const char *s, size_t n)
{
	*p++ = '"';
	memcpy(p, s, n);
	p += n;
	*p++ = '"';
	return p;
}

/* The next key of an event's args: opens the object before the first. */
static inline char *arg_key(char *p, unsigned *nargs, const char *key)
{
	size_t n = strlen(key); /* a short literal of ours */

	if ((*nargs)++)
		p_lit(p, ",\"");
	else
		p_lit(p, ",\"args\":{\"");
	memcpy(p, key, n);
	p += n;
	p_lit(p, "\":");
	return p;
}

static void write_gpu(struct ct *ct, size_t i)
{
	const struct timeline *tl = ct->tl;
	const struct tl_gpu *g = &tl->gpu[i];
	const struct chrome_trace_names *nm = ct->nm;
	const struct tl_kconfig *kc;
	uint32_t pid = CHROME_TRACE_GPU_PID_BASE + timeline__gpu_device(tl, g);
	uint32_t stream = timeline__gpu_stream(tl, g), graph = timeline__gpu_graph(tl, g);
	struct jw *w = &ct->w;
	struct esc_ent *kn = NULL;
	const char *mangled = NULL, *name = NULL;
	uint64_t dur = timeline__dur(ct->tl, g->dur), base = ct->base;
	int64_t api = timeline__gpu_api(tl, g);
	unsigned nargs = 0;
	char *p;

	switch (g->kind) {
	case TL_GPU_KERNEL:
		gpu_track(ct, timeline__gpu_device(tl, g), stream);
		p = ev_begin_p(ct, ev_head("X", "gpu_kernel"), pid, stream);
		p_lit(p, ",\"name\":");
		jw_done(w, p);
		kn = esc_slot(&ct->knames, g->name);
		if (kn && kn->s) {
			jw_put(w, kn->s, kn->len);
			break;
		}
		mangled = timeline__str(tl, g->name);
		if (nm && nm->kernel_name && *mangled)
			name = nm->kernel_name(nm->ctx, mangled);
		if (!name)
			name = *mangled ? mangled : "[unknown kernel]";
		jw_str_keep(w, name, kn);
		break;
	case TL_GPU_MEMCPY:
		gpu_track(ct, timeline__gpu_device(tl, g), stream);
		p = ev_begin_p(ct, ev_head("X", "gpu_memcpy"), pid, stream);
		p_lit(p, ",\"name\":\"[memcpy ");
		{
			const char *k = timeline__copy_kind_name(g->copy_kind);
			size_t kl = strlen(k); /* a short name of ours, nothing to escape */

			memcpy(p, k, kl);
			p += kl;
		}
		p_lit(p, "]\"");
		jw_done(w, p);
		break;
	case TL_GPU_MEMSET:
		gpu_track(ct, timeline__gpu_device(tl, g), stream);
		p = ev_begin_p(ct, ev_head("X", "gpu_memset"), pid, stream);
		p_lit(p, ",\"name\":\"[memset]\"");
		jw_done(w, p);
		break;
	default:
		return;
	}
	p = jw_room(w, P_ROOM);
	p_lit(p, ",\"ts\":");
	p = fmt_us(p, g->start >= base ? g->start - base : 0);
	p_lit(p, ",\"dur\":");
	p = fmt_us(p, dur);
	if (api >= 0 && (size_t)api < tl->nr_api) {
		p_lit(p, ",\"bind_id\":");
		p = fmt_u64(p, (uint64_t)api + 1);
		p_lit(p, ",\"flow_in\":true");
	}
	/* args, when there are any; a joined record's correlation id is on the API slice its
	 * arrow comes from */
	if (api < 0) {
		p = arg_key(p, &nargs, "correlation_id");
		p = fmt_u64(p, timeline__gpu_corr(tl, g));
	}
	if (g->kind != TL_GPU_KERNEL) {
		uint64_t bytes = timeline__gpu_bytes(tl, g);

		p = arg_key(p, &nargs, "bytes");
		p = fmt_u64(p, bytes);
		if (dur && g->kind == TL_GPU_MEMCPY) {
			/* bytes per ns is GB/s; milli-GB/s in 128 bits cannot overflow. */
			unsigned __int128 m = (unsigned __int128)bytes * 1000 / dur;

			p = arg_key(p, &nargs, "bandwidth_GBps");
			p = fmt_us(p, m > UINT64_MAX ? UINT64_MAX : (uint64_t)m);
		}
	}
	if (graph) {
		p = arg_key(p, &nargs, "graph_id");
		p = fmt_u64(p, graph);
	}
	kc = timeline__gpu_kconfig(tl, g);
	if (kc) {
		char dims[CHROME_TRACE_DIMS_LEN];

		p = arg_key(p, &nargs, "grid");
		p = put_quoted(p, dims, chrome_trace__dims(dims, kc->grid));
		p = arg_key(p, &nargs, "block");
		p = put_quoted(p, dims, chrome_trace__dims(dims, kc->block));
		p = arg_key(p, &nargs, "registers_per_thread");
		p = fmt_u64(p, kc->regs);
		p = arg_key(p, &nargs, "shared_memory");
		p = fmt_u64(p, (uint64_t)kc->static_smem + kc->dynamic_smem);
		if (kc->dynamic_smem) {
			p = arg_key(p, &nargs, "dynamic_shared_memory");
			p = fmt_u64(p, kc->dynamic_smem);
		}
	}
	if (nargs)
		p_lit(p, "}");
	p_lit(p, "}");
	jw_done(w, p);
}

/*
 * Bytes of an event beyond its name, as write_*() print them, measured on
 * a 10M-record trace (13-digit times, 8-digit flow ids): a little high for
 * small traces, which is the safe side.
 */
#define EST_API 155
#define EST_KERNEL 130
#define EST_KCONFIG 100 /* a kernel's launch configuration in its args */
#define EST_COPY 175
#define EST_SAMPLE 115 /* with its stack's "sf" */
#define EST_OFFCPU 130
#define EST_LEAF 16 /* a symbol name */

uint64_t chrome_trace__estimate_size(const struct timeline *tl, uint64_t enough)
{
	uint32_t *len = NULL; /* by string id + 1 (0: not measured yet) */
	size_t nlen = 0, i;
	/* CPU events: counted, not measured */
	uint64_t total = 1024 + (uint64_t)tl->nr_samples * (EST_SAMPLE + EST_LEAF) +
			 (uint64_t)tl->nr_offcpu * (EST_OFFCPU + EST_LEAF);

	/* a lower bound with API calls of names of length 0 */
	if (total + (uint64_t)tl->nr_api * EST_API > enough)
		return total + (uint64_t)tl->nr_api * EST_API;

	for (i = 0; i < tl->nr_gpu; i++) {
		const struct tl_gpu *g = &tl->gpu[i];

		if (g->kind == TL_GPU_SYNC)
			continue;
		if (g->kind != TL_GPU_KERNEL) {
			total += EST_COPY;
			continue;
		}
		total += EST_KERNEL + (timeline__gpu_kconfig(tl, g) ? EST_KCONFIG : 0);
		if (GP_ALLOC_GROW_ZERO(len, (size_t)g->name + 1, nlen)) {
			total += 32; /* no memory for the lengths: a guess */
			continue;
		}
		/* demangled names are longer: about 5/4 of the mangled one */
		if (!len[g->name])
			len[g->name] = (uint32_t)(strlen(timeline__str(tl, g->name)) * 5 / 4) + 1;
		total += len[g->name] - 1;
	}
	free(len);
	/* API names by their index: few, each measured once */
	len = calloc(tl->nr_api_names + 1, sizeof(*len));
	for (i = 0; len && i < tl->nr_api_names; i++)
		len[i] = (uint32_t)strlen(timeline__str(tl, tl->api_names[i]));
	for (i = 0; i < tl->nr_api; i++)
		total += EST_API + (len ? len[tl->api[i].name]
				      : strlen(timeline__str(tl, timeline__api_name(tl, &tl->api[i]))));
	free(len);
	return total;
}

/*
 * The samples' stack frames: "id":{"name":...,"category":kind,"parent":"id"},
 * the ids their "sf" name. The category is the frame's kind as the folded
 * files mark it ("kernel" for _[k], "inline" for _[i], "jit" for _[j],
 * "cpu" for none).
 */
static void write_stack_frames(struct ct *ct)
{
	struct jw *w = &ct->w;
	size_t i, n = chrome_trace__nr_nodes(ct->stacks);
	struct chrome_trace_frame f;

	for (i = 1; i <= n && !w->err; i++) {
		chrome_trace__stack_node(ct->stacks, (uint32_t)i, &f);
		if (i > 1)
			jw_lit(w, ",");
		jw_lit(w, "\n\"");
		jw_u64(w, i);
		jw_lit(w, "\":{\"name\":");
		jw_str(w, f.name);
		jw_lit(w, ",\"category\":\"");
		jw_puts(w, gp_frame_kind__name(f.kind));
		jw_lit(w, "\"");
		if (f.parent) {
			jw_lit(w, ",\"parent\":\"");
			jw_u64(w, f.parent);
			jw_lit(w, "\"");
		}
		jw_lit(w, "}");
	}
}

/*
 * The "GPU memory" counter of each device (bytes allocated and not yet
 * freed, every memory kind CUPTI reports for the device): a value after
 * each allocation and free, in time order (tl->mem is).
 */
static void write_memory(struct ct *ct)
{
	const struct timeline *tl = ct->tl;
	struct {
		uint32_t device;
		uint64_t live;
	} dev[CHROME_TRACE_MEM_DEVICES];
	size_t i, j, n = 0;

	for (i = 0; i < tl->nr_mem && !ct->err; i++) {
		const struct tl_mem *m = &tl->mem[i];

		if (m->op != GP_MEM_ALLOC && m->op != GP_MEM_FREE)
			continue;
		for (j = 0; j < n && dev[j].device != m->device; j++)
			;
		if (j == n) {
			if (n == CHROME_TRACE_MEM_DEVICES)
				continue;
			dev[n].device = m->device;
			dev[n++].live = 0;
		}
		if (m->op == GP_MEM_ALLOC)
			dev[j].live += m->bytes;
		else /* memory allocated before the recording is freed from nothing */
			dev[j].live -= m->bytes < dev[j].live ? m->bytes : dev[j].live;
		gpu_process(ct, m->device);
		ev_begin(ct, "C", CHROME_TRACE_GPU_PID_BASE + m->device, 0);
		jw_lit(&ct->w, ",\"name\":\"GPU memory\"");
		ev_ts(ct, m->ts);
		jw_lit(&ct->w, ",\"args\":{\"bytes\":");
		jw_u64(&ct->w, dev[j].live);
		jw_lit(&ct->w, "}}");
	}
}

/* Write the document to ct->w, whose output is set up; 0 or -errno. */
static int write_doc(struct ct *ct, const struct timeline *tl, const struct correlation *c,
		     const struct chrome_trace_names *names)
{
	size_t i, s, o;
	ct->last_host = ct->last_gpu = ct->last_offcpu = UINT64_MAX;
	ct->tl = tl;
	ct->nm = names;
	ct->base = earliest(tl);
	ct->first = 1;

	jw_puts(&ct->w, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"gpuperf\"},"
			"\"traceEvents\":[");
	for (i = 0; i < tl->nr_api && !ct->err; i++)
		write_api(ct, i, c);
	/* Samples and off-CPU spans in one time order, so each thread's events ascend. */
	for (s = 0, o = 0; (s < tl->nr_samples || o < tl->nr_offcpu) && !ct->err;) {
		if (timeline__sample_next(tl, s, o))
			write_sample(ct, &tl->samples[s++]);
		else
			write_offcpu(ct, &tl->offcpu[o++]);
	}
	for (i = 0; i < tl->nr_gpu && !ct->err; i++)
		write_gpu(ct, i);
	write_memory(ct);
	jw_lit(&ct->w, "\n],\"stackFrames\":{");
	write_stack_frames(ct);
	jw_lit(&ct->w, "\n}}\n");
	return ct->err ? ct->err : ct->w.err;
}

static void ct_free(struct ct *ct)
{
	if (!ct)
		return;
	u64map_free(&ct->procs);
	u64map_free(&ct->threads);
	chrome_trace__stacks_free(ct->stacks);
	esc_free(&ct->strs);
	esc_free(&ct->knames);
	if (!ct->w.bo)
		free(ct->w.buf);
	free(ct);
}

int chrome_trace__write(const struct timeline *tl, const struct correlation *c,
			const struct chrome_trace_names *names, gzFile out)
{
	struct ct *ct;
	int err;

	if (!tl || !c || !out || c->nr_gpu != tl->nr_gpu)
		return -EINVAL;
	ct = calloc(1, sizeof(*ct));
	if (ct) {
		ct->w.buf = malloc(JW_BUF);
		ct->stacks = chrome_trace__stacks_new();
	}
	if (!ct || !ct->w.buf || !ct->stacks) {
		ct_free(ct);
		return -ENOMEM;
	}
	ct->w.gz = out;
	ct->w.cap = JW_BUF;
	err = write_doc(ct, tl, c, names);
	jw_flush(&ct->w);
	/* Push zlib's own buffer out too, so that a full disk shows here, not only at gzclose(). */
	if (!err && !ct->w.err && gzflush(out, Z_SYNC_FLUSH) != Z_OK)
		ct->w.err = -EIO;
	if (!err)
		err = ct->w.err;
	ct_free(ct);
	return err;
}

int chrome_trace__write_path(const struct timeline *tl, const struct correlation *c,
			     const struct chrome_trace_names *names, const char *path)
{
	struct ct *ct;
	int err, cerr;

	if (!tl || !c || !path || c->nr_gpu != tl->nr_gpu)
		return -EINVAL;
	ct = calloc(1, sizeof(*ct));
	if (ct)
		ct->stacks = chrome_trace__stacks_new();
	if (!ct || !ct->stacks) {
		free(ct);
		return -ENOMEM;
	}
	ct->w.bo = bulk_out__new(path, 1);
	if (!ct->w.bo) {
		err = -errno;
		chrome_trace__stacks_free(ct->stacks);
		free(ct);
		return err;
	}
	ct->w.buf = (char *)bulk_out__buf(ct->w.bo);
	ct->w.cap = BULK_OUT_CAP;
	err = write_doc(ct, tl, c, names);
	cerr = bulk_out__close(ct->w.bo, ct->w.err ? 0 : ct->w.len);
	if (!err)
		err = cerr;
	ct_free(ct);
	return err;
}
