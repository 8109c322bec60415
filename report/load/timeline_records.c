// SPDX-License-Identifier: Apache-2.0
/*
 * timeline_records.c - one loader per record type (add_api(), add_gpu(),
 * ...), each copying a trace record into the timeline's arrays with its
 * clock brought to CLOCK_MONOTONIC and its string and stack ids mapped to
 * the timeline's; and the loop over a file's records that calls them. The
 * loop and the loaders are one file so that the per-record dispatch
 * inlines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gp_reader.h"
#include "gp_record.h"
#include "gp_util.h"
#include "timeline.h"
#include "timeline_priv.h"

/*
 * Per-file string id -> timeline string id. Producers number strings from 1,
 * so ids below IDMAP_DIRECT index an array (a lookup per record); larger
 * ones (a foreign producer) go to the hash table.
 */
#define IDMAP_DIRECT 65536u

struct idmap {
	uint32_t *direct; /* by id: timeline id, 0 unknown */
	size_t ndirect;
	struct u64map sparse; /* ids from IDMAP_DIRECT on */
};

static uint32_t idmap_get(const struct idmap *m, uint32_t key)
{
	if (key < IDMAP_DIRECT)
		return key < m->ndirect ? m->direct[key] : 0;
	return u64map_get(&m->sparse, key);
}

/* Map key to val (nonzero), replacing what it mapped to: 0 or -ENOMEM. */
static int idmap_put(struct idmap *m, uint32_t key, uint32_t val)
{
	size_t j;

	if (key < IDMAP_DIRECT) {
		if (GP_ALLOC_GROW_ZERO(m->direct, (size_t)key + 1, m->ndirect))
			return -ENOMEM;
		m->direct[key] = val;
		return 0;
	}
	if (u64map_reserve(&m->sparse))
		return -ENOMEM;
	if (!u64map_find(&m->sparse, key, &j)) {
		m->sparse.keys[j] = key;
		m->sparse.nr++;
	}
	m->sparse.vals[j] = val;
	return 0;
}

static void idmap_release(struct idmap *m)
{
	free(m->direct);
	u64map_free(&m->sparse);
}

static void seen_ts(struct timeline *tl, uint64_t a, uint64_t b)
{
	if (a && a < tl->first_ts)
		tl->first_ts = a;
	if (b > tl->last_ts)
		tl->last_ts = b;
}

/*
 * The record just stored last in an array (its ORD_* bit, *ord its count
 * of records checked): whether it came after the one before it in the
 * order above (struct tl_priv's ord_*).
 */
static inline void note_order(struct tl_priv *p, size_t *ord, unsigned bit, bool out_of_order)
{
	if (out_of_order)
		p->unordered |= bit;
	(*ord)++;
}

/*
 * Whether a new API call on thread thr, ending at end, is nested, as
 * timeline__finish() marks them while the calls come in order (outer_*:
 * the thread's enclosing call so far).
 */
static inline unsigned api_nested(struct timeline *tl, uint32_t thr, uint64_t end)
{
	struct tl_priv *p = tl->priv;
	size_t i = tl->nr_api - 1; /* its index */
	unsigned nested;

	/* in order, a call starts no earlier than the thread's enclosing one */
	nested = i && thr == p->outer_thr && end <= p->outer_end;
	if (!nested) {
		p->outer_thr = thr;
		p->outer_end = end;
	}
	return nested;
}

/* most traces are CLOCK_MONOTONIC already: no call per timestamp then */
#define T(x) (f->fit.method == CLOCK_IDENTITY ? (x) : clock_fit__apply(&f->fit, (x)))
/* a string id of the file's, to the timeline's */
#define S(x) idmap_get(ids, (x))

/* A string: its id in the file mapped to the timeline's */
static inline int add_string(struct timeline *tl, struct idmap *ids, const struct gp_rec_hdr *rec)
{
	const struct gp_rec_string *s = (const void *)rec;
	uint32_t id = timeline__intern(tl, s->data);

	return id ? idmap_put(ids, s->id, id) : 0;
}

/* An API call */
static inline int add_api(struct timeline *tl, struct idmap *ids, const struct gp_rec_hdr *rec,
			  struct tl_file *f)
{
	const struct gp_rec_api *a = (const void *)rec;
	struct tl_api *o = PUSH(tl, api, nr_api, api);
	uint64_t start = T(a->start), end = T(a->end);
	uint32_t thr = tid_index(tl, a->pid ? a->pid : f->pid, a->tid);
	struct tl_api bits = { .thr = thr & 0x1fffffff, .domain = a->domain & 3 };

	if (!o || thr == UINT32_MAX)
		return -ENOMEM;
	bits.nested = api_nested(tl, bits.thr, end > start ? end : start) & 1;
	/*
	 * Plain stores only, in the order of the fields: the first touch of
	 * each new page is a write. A bit field's read-modify-write would
	 * map the zero page first and take a second fault to replace it.
	 */
	o->start = start;
	o->dur = timeline__dur_code(tl, start, end);
	o->corr = a->correlation_id + f->corr_base;
	if (a->correlation_id > f->corr_max)
		f->corr_max = a->correlation_id;
	o->launch = -1;
	o->bits = bits.bits;
	o->name = api_name_index(tl, S(a->name_str));
	o->ret = a->return_value > INT16_MAX   ? INT16_MAX
		 : a->return_value < INT16_MIN ? INT16_MIN
					       : (int16_t)a->return_value;
	if (o->dur == UINT32_MAX || !tl->nr_api_names)
		return -ENOMEM; /* a long duration, or not even the "unknown" API name */
	note_order(tl->priv, &tl->priv->ord_api, ORD_API,
		   tl->nr_api > 1 && api_cmp(tl, o - 1, o) > 0);
	seen_ts(tl, start, end);
	return 0;
}

/* GPU work: a kernel, copy, memset or synchronization */
static inline int add_gpu(struct timeline *tl, struct idmap *ids, const struct gp_rec_hdr *rec,
			  struct tl_file *f)
{
	struct tl_gpu *g = PUSH(tl, gpu, nr_gpu, gpu);
	struct gp_rec_gpu c;
	uint64_t bytes = 0, end;

	if (!g)
		return -ENOMEM;
	memset(g, 0, sizeof(*g));
	gp_rec_gpu__get(rec, &c);
	g->corr = c.correlation_id;
	if (rec->type == GP_REC_KERNEL) {
		const struct gp_rec_kernel *k = (const void *)rec;

		g->kind = TL_GPU_KERNEL;
		g->name = S(k->name_str);
		if (k->grid[0] && k->block[0]) {
			struct tl_kconfig kc = {
				.grid = { k->grid[0], k->grid[1], k->grid[2] },
				.block = { k->block[0], k->block[1], k->block[2] },
				.static_smem = k->static_shared_mem,
				.dynamic_smem = k->dynamic_shared_mem,
				.regs = k->registers_per_thread,
			};

			g->kconfig = kconfig_index(tl, &kc);
		}
	} else if (rec->type == GP_REC_MEMCPY) {
		const struct gp_rec_memcpy *m = (const void *)rec;

		g->kind = TL_GPU_MEMCPY;
		bytes = m->bytes;
		g->copy_kind = m->copy_kind;
	} else if (rec->type == GP_REC_MEMSET) {
		g->kind = TL_GPU_MEMSET;
		bytes = ((const struct gp_rec_memset *)(const void *)rec)->bytes;
	} else {
		g->kind = TL_GPU_SYNC;
	}
	if (g->corr > f->corr_max)
		f->corr_max = g->corr;
	g->corr += f->corr_base;
	g->start = T(c.start);
	end = T(c.end);
	g->dur = timeline__dur_code(tl, g->start, end);
	if (g->dur == UINT32_MAX)
		return -ENOMEM;
	note_order(tl->priv, &tl->priv->ord_gpu, ORD_GPU,
		   tl->nr_gpu > 1 && gpu_cmp(tl, g - 1, g) > 0);
	g->lane = lane_index(tl, c.pid ? c.pid : f->pid, c.device_id, c.stream_id, c.graph_id);
	if (g->lane == UINT32_MAX)
		return -ENOMEM;
	if (g->kind == TL_GPU_MEMCPY || g->kind == TL_GPU_MEMSET) {
		g->name = bytes_index(tl, bytes);
		if (g->name == UINT32_MAX)
			return -ENOMEM;
	}
	seen_ts(tl, g->start, end);
	return 0;
}

/* A device memory allocation or release */
static inline int add_memory(struct timeline *tl, const struct gp_rec_hdr *rec, struct tl_file *f)
{
	const struct gp_rec_memory *m = (const void *)rec;
	struct tl_mem *o = PUSH(tl, mem, nr_mem, mem);

	if (!o)
		return -ENOMEM;
	memset(o, 0, sizeof(*o));
	o->ts = T(m->ts);
	o->address = m->address;
	o->bytes = m->bytes;
	o->pool_address = m->pool_address;
	o->pool_size = m->pool_size;
	o->pool_used = m->pool_used;
	o->pid = m->pid ? m->pid : f->pid;
	o->device = m->device_id;
	o->context = m->context_id;
	o->stream = m->stream_id;
	if (m->correlation_id > f->corr_max)
		f->corr_max = m->correlation_id;
	o->corr = m->correlation_id + f->corr_base;
	o->api = -1;
	o->op = m->op;
	o->kind = m->memory_kind;
	o->pool_type = m->pool_type;
	o->is_async = m->is_async;
	o->from_call = !!(rec->flags & GP_MEMORY_FROM_CALL);
	seen_ts(tl, o->ts, o->ts);
	return 0;
}

/* A launch stack, defined once per chunk */
static inline int add_launch_stack(struct timeline *tl, struct idmap *stacks,
				   const struct gp_rec_hdr *rec)
{
	/* launch stacks, so far the only ones named by id (GP_REC_API_STACK) */
	const struct gp_rec_stack *k = (const void *)rec;
	struct tl_stack st;
	uint32_t li;

	/*
	 * Mapped again at each chunk's definition (a few per chunk; the
	 * stack and its index are found in their caches): a writer's ids
	 * name the same frames, but a reader need not count on it.
	 */
	if (add_stack(tl, &st, k->ips, k->nr_user, k->nr_kernel))
		return -ENOMEM;
	li = launch_stack_index(tl, &st);
	return li == UINT32_MAX ? -ENOMEM : idmap_put(stacks, k->id, li + 1);
}

/* Which launch stack an API call took */
static inline int add_api_stack(struct timeline *tl, struct idmap *stacks,
				const struct gp_rec_hdr *rec, struct tl_file *f)
{
	/* (2.3) the call's own stack, taken on its thread: bound after the file (bind_api_stacks()) */
	const struct gp_rec_api_stack *a = (const void *)rec;
	uint32_t li = a->stack_id ? idmap_get(stacks, a->stack_id) : 0;
	struct tl_priv *p = tl->priv;
	struct api_stack_ent *e;

	f->launch_stacks = 1;
	p->api_stacks_seen++;
	p->api_stacks_truncated += !!(rec->flags & GP_API_STACK_TRUNCATED);
	if (!li)
		return 0; /* not known, or its chunk did not define it: the call keeps none */
	if (GP_ALLOC_GROW(p->api_stacks, p->nr_api_stacks + 1, p->api_stacks_alloc))
		return -ENOMEM;
	e = &p->api_stacks[p->nr_api_stacks++];
	e->corr = a->correlation_id + f->corr_base;
	e->stack = li - 1;
	return 0;
}

/* A CPU sample */
static inline int add_sample(struct timeline *tl, const struct gp_rec_hdr *rec, struct tl_file *f)
{
	const struct gp_rec_cpu_sample *s = (const void *)rec;
	struct tl_sample *o = PUSH(tl, samples, nr_samples, samples);

	if (!o)
		return -ENOMEM;
	o->ts = T(s->ts);
	note_order(tl->priv, &tl->priv->ord_samples, ORD_SAMPLES,
		   tl->nr_samples > 1 && cmp_sample(o - 1, o) > 0);
	o->weight = s->weight_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)s->weight_ns;
	o->pid = s->pid;
	o->tid = s->tid;
	o->cpu = s->cpu;
	seen_ts(tl, o->ts, o->ts);
	if (tl_note_stack_end(tl, s->pid, rec->flags))
		return -ENOMEM;
	return add_stack(tl, &o->stack, s->ips, s->nr_user, s->nr_kernel);
}

/* An off-CPU span, or a thread's short ones summed */
static inline int add_offcpu(struct timeline *tl, const struct gp_rec_hdr *rec, struct tl_file *f)
{
	const struct gp_rec_offcpu *s = (const void *)rec;
	struct tl_offcpu *o;

	if (rec->flags & GP_OFFCPU_AGGREGATE) {
		struct tl_offcpu_short *a = PUSH(tl, offcpu_short, nr_offcpu_short, offcpu_short);

		if (!a)
			return -ENOMEM;
		a->total_ns = s->end > s->start ? s->end - s->start : 0;
		a->pid = s->pid;
		a->tid = s->tid;
		a->count = s->pad;
		a->pad = 0;
		return 0;
	}
	o = PUSH(tl, offcpu, nr_offcpu, offcpu);

	if (!o)
		return -ENOMEM;
	o->start = T(s->start);
	note_order(tl->priv, &tl->priv->ord_offcpu, ORD_OFFCPU,
		   tl->nr_offcpu > 1 && cmp_offcpu(o - 1, o) > 0);
	o->end = T(s->end);
	o->pid = s->pid;
	o->tid = s->tid;
	o->cpu = s->cpu;
	o->state = s->state;
	seen_ts(tl, o->start, o->end);
	if (tl_note_stack_end(tl, s->pid, rec->flags))
		return -ENOMEM;
	return add_stack(tl, &o->stack, s->ips, s->nr_user, s->nr_kernel);
}

/* Losses counted by a producer */
static inline int add_dropped(struct timeline *tl, const struct gp_rec_hdr *rec)
{
	const struct gp_rec_dropped *d = (const void *)rec;

	_Static_assert(GP_DROP_SOURCES <= ARRAY_SIZE(tl->dropped),
		       "timeline.dropped holds every source");

	if (d->source < ARRAY_SIZE(tl->dropped)) {
		tl->dropped[d->source] += d->count;
		if (d->count && d->cause && !tl->drop_cause[d->source])
			tl->drop_cause[d->source] = d->cause;
	}
	return 0;
}

/* A process event */
static inline int add_process(struct timeline *tl, struct idmap *ids, const struct gp_rec_hdr *rec,
			      struct tl_file *f)
{
	const struct gp_rec_process *pr = (const void *)rec;
	struct tl_proc *o = PUSH(tl, procs, nr_procs, procs);

	if (!o)
		return -ENOMEM;
	memset(o, 0, sizeof(*o));
	o->pid = pr->pid;
	o->ppid = pr->ppid;
	o->comm = S(pr->comm_str);
	o->exe = S(pr->exe_str);
	if (pr->event == GP_PROC_EXIT) {
		o->exit_ts = T(pr->ts);
		o->exit_status = pr->exit_code;
		o->exited = 1;
		/* the recording lasts at least until an exit it saw */
		seen_ts(tl, 0, o->exit_ts);
	} else {
		o->first_ts = T(pr->ts);
		o->forked = pr->event == GP_PROC_FORK;
	}
	/* exec: the record's comm/exe replace the old image's when merged */
	o->pad = (uint16_t)((pr->event & 0xff) |
			    (f->producer == GP_PRODUCER_INJECT ? PROC_GPU_IMAGE : 0));
	return 0;
}

/* A thread event */
static inline int add_thread(struct timeline *tl, struct idmap *ids, const struct gp_rec_hdr *rec,
			     struct tl_file *f)
{
	const struct gp_rec_thread *th = (const void *)rec;
	struct tl_thread *o = PUSH(tl, threads, nr_threads, threads);

	if (!o)
		return -ENOMEM;
	memset(o, 0, sizeof(*o));
	o->pid = th->pid;
	o->tid = th->tid;
	o->name = S(th->name_str);
	if (th->event == GP_PROC_EXIT) {
		o->exit_ts = T(th->ts);
		seen_ts(tl, 0, o->exit_ts);
	} else
		o->first_ts = T(th->ts);
	return 0;
}

/* A mapped module */
static inline int add_module(struct timeline *tl, struct idmap *ids, const struct gp_rec_hdr *rec,
			     struct tl_file *f)
{
	const struct gp_rec_module *m = (const void *)rec;
	struct tl_module *o = PUSH(tl, modules, nr_modules, modules);

	if (!o)
		return -ENOMEM;
	o->ts = T(m->ts);
	o->start = m->start;
	o->end = m->end;
	o->pgoff = m->pgoff;
	o->pid = m->pid;
	o->path = S(m->path_str);
	o->build_id_size = m->build_id_size <= sizeof(o->build_id) ? m->build_id_size : 0;
	memcpy(o->build_id, m->build_id, sizeof(o->build_id));
	return 0;
}

/* A GPU */
static inline int add_device(struct timeline *tl, struct idmap *ids, const struct gp_rec_hdr *rec,
			     struct tl_file *f)
{
	const struct gp_rec_device *d = (const void *)rec;
	struct tl_device *o = PUSH(tl, devices, nr_devices, devices);

	if (!o)
		return -ENOMEM;
	o->global_memory_bytes = d->global_memory_bytes;
	o->id = d->device_id;
	o->name = S(d->name_str);
	o->cc_major = d->cc_major;
	o->cc_minor = d->cc_minor;
	o->sm_count = d->sm_count;
	return 0;
}

#undef T
#undef S

/*
 * Copy one record into the timeline; -ENOMEM is the only failure. ids and
 * stacks: the file's string and stack ids, to timeline strings and launch
 * stacks (index + 1).
 */
static int add_record(struct timeline *tl, struct idmap *ids, struct idmap *stacks,
		      const struct gp_rec_hdr *rec, struct tl_file *f)
{
	switch (rec->type) {
	case GP_REC_STRING:
		return add_string(tl, ids, rec);
	case GP_REC_API:
		return add_api(tl, ids, rec, f);
	case GP_REC_KERNEL:
	case GP_REC_MEMCPY:
	case GP_REC_MEMSET:
	case GP_REC_SYNC:
		return add_gpu(tl, ids, rec, f);
	case GP_REC_MEMORY:
		return add_memory(tl, rec, f);
	case GP_REC_STACK:
		return add_launch_stack(tl, stacks, rec);
	case GP_REC_API_STACK:
		return add_api_stack(tl, stacks, rec, f);
	case GP_REC_CPU_SAMPLE:
		return add_sample(tl, rec, f);
	case GP_REC_OFFCPU:
		return add_offcpu(tl, rec, f);
	case GP_REC_DROPPED:
		return add_dropped(tl, rec);
	case GP_REC_PROCESS:
		return add_process(tl, ids, rec, f);
	case GP_REC_THREAD:
		return add_thread(tl, ids, rec, f);
	case GP_REC_MODULE:
		return add_module(tl, ids, rec, f);
	case GP_REC_DEVICE:
		return add_device(tl, ids, rec, f);
	case GP_REC_LAUNCH_SITE:
	case GP_REC_LAUNCH_SITE_ID:
		/* an older agent's uprobe hits: no longer joined, only counted (timeline.h) */
		tl->old_launch_sites++;
		return 0;
	default:
		return 0; /* types this merger does not use */
	}
}

static int cmp_api_stack(const void *a, const void *b)
{
	const struct api_stack_ent *x = a, *y = b;

	return x->corr < y->corr ? -1 : x->corr > y->corr;
}

/*
 * A GPU trace with launch stacks (2.3): each of its API calls [api0,
 * nr_api) takes the stack its api_stack record names, by correlation id,
 * exactly. The first record of an id
 * wins, as correlate's does for API records.
 */
static void bind_api_stacks(struct timeline *tl, size_t api0)
{
	struct tl_priv *p = tl->priv;
	const struct api_stack_ent *s = p->api_stacks;
	size_t i, k, n = p->nr_api_stacks, next = 0;

	if (!n)
		return;
	/*
	 * The writer drains each thread's calls in order: the records mostly
	 * come sorted, and the calls mostly in the same order. A sort and a
	 * search per call were a third of loading a trace.
	 */
	for (k = 1; k < n && s[k - 1].corr <= s[k].corr; k++)
		;
	if (k < n)
		gp_sort(p->api_stacks, n, sizeof(*p->api_stacks), cmp_api_stack);
	for (i = api0; i < tl->nr_api; i++) {
		uint32_t corr = tl->api[i].corr;
		size_t lo = 0, hi = n;

		/*
		 * Where the last call's search ended, when this call's id falls
		 * there (its record, or none: calls that issue no work have none).
		 */
		if ((!next || s[next - 1].corr < corr) && (next == n || s[next].corr >= corr)) {
			lo = next;
		} else {
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (s[mid].corr < corr)
					lo = mid + 1;
				else
					hi = mid;
			}
		}
		if (lo < n && s[lo].corr == corr) {
			tl->api[i].launch = (int32_t)s[lo].stack;
			while (lo < n && s[lo].corr == corr)
				lo++; /* past its id's other records: the first one wins */
		}
		next = lo;
	}
	p->nr_api_stacks = 0;
}

int tl_records__load(struct timeline *tl, struct gp_reader *r, struct tl_file *f)
{
	struct idmap ids = { 0 }, stacks = { 0 };
	const uint8_t *recs;
	size_t len, api0;
	int rc, err = 0;

	api0 = tl->nr_api;
	tl->priv->nr_api_stacks = 0;
	tl->priv->api_stacks_seen = tl->priv->api_stacks_truncated = 0;
	/* a chunk's records at a time: a call per record is a tenth of the loading time */
	while (!err && (rc = gp_reader__next_chunk(r, &recs, &len)) != GP_READ_EOF) {
		const uint8_t *end = recs + len;

		if (rc == GP_READ_ERROR) {
			tl_warn(tl, "%s", gp_reader__error(r));
			continue;
		}
		for (; recs < end && !err; recs += ((const struct gp_rec_hdr *)recs)->size)
			err = add_record(tl, &ids, &stacks, (const struct gp_rec_hdr *)recs, f);
	}
	if (!err)
		bind_api_stacks(tl, api0);
	idmap_release(&ids);
	idmap_release(&stacks);
	return err;
}
