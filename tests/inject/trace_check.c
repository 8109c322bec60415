// SPDX-License-Identifier: Apache-2.0
/* Test helper: checks a gpu-<pid>.trace against the CUDA simulator's ground-truth log (GPUPERF_SIM_LOG). */

/*
 * usage: trace_check [options] TRACE TRUTH.jsonl
 *   --no-end           the trace may lack GP_REC_END (SIGKILL)
 *   --expect-drops     the trace must hold drop counters; then it may miss
 *                      records, but must not invent or duplicate any
 *   --min-threads N    API launch records from at least N distinct tids
 *   --graph            at least one kernel ran inside a graph
 *   --tolerance NS     timestamp tolerance (default 1000: the simulator's
 *                      stated clock-conversion error)
 *   --no-truth         real GPU: no ground truth (pass any file, e.g.
 *                      /dev/null); check the trace on its own: joins,
 *                      ordering, times inside the process's lifetime, and the
 *                      --kernels/--memcpys/--memsets counts when given
 *   --kernels N, --memcpys N, --memsets N, --memory N   exact counts expected
 *   --skip-api TEXT    truth API calls whose name contains TEXT need not be
 *                      in the trace (a call the program never returned from
 *                      normally, e.g. a reset followed by _exit)
 *   --late-ms MS       an API call's recorded end may be this late (default 100:
 *                      the thread preempted between the call's end and CUPTI's stamp)
 *   --no-stacks        launch stacks were off (GPUPERF_STACKS=0): no api_stack records
 *   --min-frames N     every launch stack has at least N frames
 *
 * What it asserts (exit 0, or 1 with one line per problem):
 *   - the trace reads cleanly (MONOTONIC clock, producer inject, truth's pid);
 *   - every API call the program made that the library records (api_filter)
 *     is there exactly once, with its cbid, tid, return value and times;
 *     no API record that did not happen, or is not on the list;
 *   - every kernel, memcpy, memset and synchronization the simulator ran is
 *     there exactly once, with its correlation id, stream and times (and
 *     kernel name/grid/block, copy kind/bytes); nothing else;
 *   - every allocation, free and memory pool event (the log's `mem` lines;
 *     virtual memory's, from its `vmm` lines: a handle created, last released)
 *     is there exactly once as a memory record, with its correlation id,
 *     op, memory kind, address, bytes, context, stream, pool size and use,
 *     graph node (a graph's memory nodes) and time; nothing else; each
 *     joins to an API record;
 *   - no kernel, memcpy or memset starts before the one before it on its
 *     stream has ended;
 *   - every GPU record joins to an API record of the trace by correlation id,
 *     which started no later than the work; graph kernels join to a graph launch;
 *   - drop counters are zero unless --expect-drops;
 *   - launch stacks: every API call that issues GPU work (launch, graph
 *     launch, memcpy, memset, host function) or allocates or frees memory
 *     has exactly one api_stack record, naming a
 *     stack the trace defines; a driver call made inside a runtime call
 *     has the runtime call's stack, flagged nested; no other call has one.
 */

#include <cjson/cJSON.h>
#include <cupti_activity.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_filter.h"
#include "gp_alloc.h"
#include "gp_reader.h"
#include "gp_util.h"
#include "gp_record.h"

enum { K_API, K_KERNEL, K_MEMCPY, K_MEMSET, K_SYNC, K_MEM, K_NKINDS };
static const char *const kind_names[] = { "api", "kernel", "memcpy", "memset", "sync", "memory" };

/* One record, from either side, reduced to what is compared. */
struct item {
	int kind;
	uint32_t corr, domain, cbid, tid, stream, sub; /* sub: copy kind / sync type / memory op */
	uint64_t node, start, end, bytes; /* node: a memory record's address */
	uint32_t mem_kind, context;	  /* memory records */
	uint64_t pool_size, pool_used, graph_node;
	int32_t ret;
	uint32_t grid[3], block[3];
	uint32_t in_graph;
	uint32_t from_call; /* a memory record the library made itself (GP_MEMORY_FROM_CALL) */
	uint32_t parent; /* truth API calls: the enclosing call's corr, 0 at top level */
	char name[256];
	int matched;
};

/* An api_stack record, and the frames of its stack. */
struct apistack {
	uint32_t corr, stack_id, flags, nframes;
};

/* --late-ms: how far after the call's end its recorded end may be (preemption) */
static uint64_t late_ns = 100000000ull;

static struct apistack *apistacks;
static size_t nr_apistacks, cap_apistacks;
static uint32_t stack_frames[65536]; /* by stack id (ids below 65536): frames, + 1 once defined */

struct vec {
	struct item *v;
	size_t n, cap;
};

static struct item *push(struct vec *a)
{
	if (GP_ALLOC_GROW(a->v, a->n + 1, a->cap)) {
		fprintf(stderr, "trace_check: out of memory\n");
		exit(2);
	}
	memset(&a->v[a->n], 0, sizeof(a->v[0]));
	return &a->v[a->n++];
}

/* A GPU record's item, with what the four GPU record types share (gp_rec_gpu__get()). */
static struct item *push_gpu(struct vec *a, const struct gp_rec_hdr *rec, int kind)
{
	struct item *it = push(a);
	struct gp_rec_gpu g;

	gp_rec_gpu__get(rec, &g);
	it->kind = kind;
	it->corr = g.correlation_id;
	it->stream = g.stream_id;
	it->node = g.graph_node_id;
	it->in_graph = g.graph_id != 0;
	it->start = g.start;
	it->end = g.end;
	return it;
}

static int nproblems;
static const char *skip_api;

static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void problem(const char *fmt, ...)
{
	va_list ap;

	if (++nproblems > 25)
		return;
	fputs("FAIL: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static int cmp_item(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;

#define C(f)                      \
	if (a->f != b->f)         \
		return a->f < b->f ? -1 : 1
	C(kind);
	C(domain);
	C(corr);
	C(node);
	C(start);
#undef C
	return 0;
}

static uint64_t jnum(const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(x) ? (uint64_t)x->valuedouble : 0;
}

static int64_t jint(const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(x) ? (int64_t)x->valuedouble : 0;
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(x) ? x->valuestring : "";
}

static uint32_t copy_kind(const char *s)
{
	return !strcmp(s, "HtoD") ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOD :
	       !strcmp(s, "DtoH") ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOH :
	       !strcmp(s, "DtoD") ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOD :
	       !strcmp(s, "HtoH") ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOH :
	       !strcmp(s, "HtoA") ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOA :
	       !strcmp(s, "AtoH") ? CUPTI_ACTIVITY_MEMCPY_KIND_ATOH :
	       !strcmp(s, "AtoA") ? CUPTI_ACTIVITY_MEMCPY_KIND_ATOA :
	       !strcmp(s, "AtoD") ? CUPTI_ACTIVITY_MEMCPY_KIND_ATOD :
	       !strcmp(s, "DtoA") ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOA :
				    CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN;
}

static uint32_t sync_type(const char *s)
{
	return !strcmp(s, "context")	       ? CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE :
	       !strcmp(s, "stream")	       ? CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE :
	       !strcmp(s, "event")	       ? CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE :
	       !strcmp(s, "stream_wait_event") ? CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT :
						 0;
}

static uint32_t mem_op(const char *s)
{
	return !strcmp(s, "alloc")	  ? GP_MEM_ALLOC :
	       !strcmp(s, "free")	  ? GP_MEM_FREE :
	       !strcmp(s, "pool_create")  ? GP_MEM_POOL_CREATE :
	       !strcmp(s, "pool_destroy") ? GP_MEM_POOL_DESTROY :
	       !strcmp(s, "pool_trim")	  ? GP_MEM_POOL_TRIM :
					    0;
}

/* A memory record the library makes itself, as the vmm line o says it should. */
static void vmm_emit(struct vec *out, const cJSON *o, uint32_t op, uint64_t handle, uint64_t bytes)
{
	struct item *it = push(out);

	it->kind = K_MEM;
	it->sub = op;
	it->domain = op;
	it->mem_kind = 3; /* CUPTI_ACTIVITY_MEMORY_KIND_DEVICE */
	it->node = handle;
	it->bytes = bytes;
	it->stream = UINT32_MAX;
	it->context = UINT32_MAX;
	it->corr = (uint32_t)jnum(o, "corr");
	it->tid = (uint32_t)jnum(o, "tid");
	it->start = it->end = jnum(o, "ts");
	snprintf(it->name, sizeof(it->name), "%s", op == GP_MEM_ALLOC ? "alloc" : "free");
}

/*
 * The log's vmm lines: what the program did with virtual memory handles. A
 * creation is an allocation of its size (device memory); the free is the
 * later of its handle's last release and the unmapping of its last
 * mapping (one unmapping may end several): the records the library makes
 * itself (GP_MEMORY_FROM_CALL).
 */
static void vmm_truth(struct vec *out, const cJSON *o)
{
	static struct {
		uint64_t handle, bytes;
		unsigned refs, maps; /* refs 0: released, still mapped */
	} h[4096];
	static struct {
		uint64_t va;
		size_t at; /* in h */
	} m[4096];
	static size_t nh, nm;
	const char *op = jstr(o, "op");
	uint64_t handle = jnum(o, "handle"), va = jnum(o, "address"), size = jnum(o, "bytes");
	size_t i, k;

	for (i = 0; i < nh && !(h[i].handle == handle && h[i].refs); i++)
		;
	if (!strcmp(op, "create") && i == nh && nh < ARRAY_SIZE(h)) {
		h[nh].handle = handle;
		h[nh].bytes = size;
		h[nh].maps = 0;
		h[nh++].refs = 1;
		vmm_emit(out, o, GP_MEM_ALLOC, handle, size);
	} else if (!strcmp(op, "retain") && i < nh) {
		h[i].refs++;
	} else if (!strcmp(op, "map") && i < nh && nm < ARRAY_SIZE(m)) {
		h[i].maps++;
		m[nm].va = va;
		m[nm++].at = i;
	} else if (!strcmp(op, "release") && i < nh && !--h[i].refs && !h[i].maps) {
		vmm_emit(out, o, GP_MEM_FREE, handle, h[i].bytes);
	} else if (!strcmp(op, "unmap")) {
		for (k = 0; k < nm;) {
			if (m[k].va < va || m[k].va - va >= size) {
				k++;
				continue;
			}
			i = m[k].at;
			m[k] = m[--nm];
			if (!--h[i].maps && !h[i].refs)
				vmm_emit(out, o, GP_MEM_FREE, h[i].handle, h[i].bytes);
		}
	}
}

/* Ground truth: the lines this process's library should have recorded. */
static int load_truth(const char *path, struct vec *out, uint32_t *pid)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0;

	if (!f) {
		fprintf(stderr, "trace_check: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		cJSON *o = cJSON_Parse(line);
		const char *type;
		struct item *it = NULL;

		lineno++;
		if (!o) {
			/* A SIGKILLed simulator may leave half a last line. */
			fprintf(stderr, "trace_check: %s:%d: not JSON, ignored\n", path, lineno);
			continue;
		}
		type = jstr(o, "type");
		if (!strcmp(type, "init") && !*pid) {
			*pid = (uint32_t)jnum(o, "pid");
		} else if (!strcmp(type, "api")) {
			uint32_t domain = !strcmp(jstr(o, "domain"), "runtime") ? GP_API_RUNTIME :
										 GP_API_DRIVER;
			uint32_t cbid = (uint32_t)jnum(o, "cbid");

			if (api_filter__wanted(domain, cbid) &&
			    !(skip_api && strstr(jstr(o, "name"), skip_api))) {
				it = push(out);
				it->kind = K_API;
				it->domain = domain;
				it->cbid = cbid;
				it->ret = (int32_t)jint(o, "ret");
				it->parent = (uint32_t)jnum(o, "parent_corr");
				snprintf(it->name, sizeof(it->name), "%s", jstr(o, "name"));
			}
		} else if (!strcmp(type, "kernel") || !strcmp(type, "memcpy") ||
			   !strcmp(type, "memset") || !strcmp(type, "sync")) {
			const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "grid");
			const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "block");
			int i;

			it = push(out);
			it->kind = type[0] == 'k' ? K_KERNEL :
				   !strcmp(type, "memcpy") ? K_MEMCPY :
				   !strcmp(type, "memset") ? K_MEMSET :
							     K_SYNC;
			it->stream = (uint32_t)jint(o, "stream");
			it->node = jnum(o, "graph_node");
			it->in_graph = jnum(o, "graph") != 0;
			it->bytes = jnum(o, "bytes");
			snprintf(it->name, sizeof(it->name), "%s", jstr(o, "name"));
			if (it->kind == K_MEMCPY)
				it->sub = copy_kind(jstr(o, "copy"));
			if (it->kind == K_SYNC)
				it->sub = sync_type(jstr(o, "sync"));
			for (i = 0; i < 3; i++) {
				if (cJSON_IsNumber(cJSON_GetArrayItem(g, i)))
					it->grid[i] = (uint32_t)cJSON_GetArrayItem(g, i)->valuedouble;
				if (cJSON_IsNumber(cJSON_GetArrayItem(b, i)))
					it->block[i] = (uint32_t)cJSON_GetArrayItem(b, i)->valuedouble;
			}
		} else if (!strcmp(type, "vmm")) {
			vmm_truth(out, o);
		} else if (!strcmp(type, "mem")) {
			it = push(out);
			it->kind = K_MEM;
			it->sub = mem_op(jstr(o, "op"));
			it->domain = it->sub; /* sorts an alloc and a free of one call apart */
			it->mem_kind = (uint32_t)jnum(o, "kind");
			it->node = jnum(o, "address");
			it->bytes = jnum(o, "bytes");
			it->stream = (uint32_t)jint(o, "stream");
			it->context = (uint32_t)jnum(o, "context");
			it->pool_size = jnum(o, "pool_size");
			it->pool_used = jnum(o, "pool_used");
			it->graph_node = jnum(o, "graph_node");
			snprintf(it->name, sizeof(it->name), "%s", jstr(o, "op"));
		} else {
			cJSON_Delete(o);
			continue;
		}
		if (it) {
			it->corr = (uint32_t)jnum(o, "corr");
			it->tid = (uint32_t)jnum(o, "tid");
			it->start = jnum(o, "start");
			it->end = jnum(o, "end");
			if (it->kind == K_MEM)
				it->start = it->end = jnum(o, "ts");
		}
		cJSON_Delete(o);
	}
	free(line);
	fclose(f);
	return 0;
}

struct trace_info {
	uint64_t t0; /* header start_monotonic_ns */
	uint64_t drops, drops_cupti, drops_inject;
	int devices, clean_end, errors;
};

static int load_trace(const char *path, struct vec *out, struct trace_info *ti, uint32_t pid)
{
	char err[512];
	struct gp_reader *r = gp_reader__open(path, err, sizeof(err));
	const struct gp_file_header *h;
	const struct gp_rec_hdr *rec;
	struct gp_reader_stats st;
	int s;

	if (!r) {
		problem("%s", err);
		return -1;
	}
	h = gp_reader__header(r);
	if (h->producer != GP_PRODUCER_INJECT)
		problem("producer is %u, not the injection library", h->producer);
	if (h->clock_id != GP_CLOCK_MONOTONIC)
		problem("trace clock is %u, not CLOCK_MONOTONIC", h->clock_id);
	ti->t0 = h->start_monotonic_ns;
	if (pid && h->pid != pid)
		problem("trace pid %u, the simulator saw pid %u", h->pid, pid);
	while ((s = gp_reader__next(r, &rec)) != GP_READ_EOF) {
		struct item *it;

		if (s == GP_READ_ERROR) {
			ti->errors++;
			fprintf(stderr, "trace_check: %s\n", gp_reader__error(r));
			continue;
		}
		switch (rec->type) {
		case GP_REC_API: {
			const struct gp_rec_api *a = (const void *)rec;
			const char *name = gp_reader__string(r, a->name_str);

			it = push(out);
			it->kind = K_API;
			it->domain = a->domain;
			it->cbid = a->cbid;
			it->corr = a->correlation_id;
			it->tid = a->tid;
			it->start = a->start;
			it->end = a->end;
			it->ret = a->return_value;
			snprintf(it->name, sizeof(it->name), "%s", name ? name : "");
			break;
		}
		case GP_REC_KERNEL: {
			const struct gp_rec_kernel *k = (const void *)rec;
			const char *name = gp_reader__string(r, k->name_str);

			it = push_gpu(out, rec, K_KERNEL);
			memcpy(it->grid, k->grid, sizeof(it->grid));
			memcpy(it->block, k->block, sizeof(it->block));
			snprintf(it->name, sizeof(it->name), "%s", name ? name : "");
			if (!!(k->hdr.flags & GP_KERNEL_IN_GRAPH) != !!k->graph_id)
				problem("kernel corr %u: IN_GRAPH flag disagrees with graph id %u",
					k->correlation_id, k->graph_id);
			break;
		}
		case GP_REC_MEMCPY: {
			struct gp_rec_memcpy mr;
			const struct gp_rec_memcpy *m = &mr;

			gp_rec_read(&mr, sizeof(mr), rec);
			it = push_gpu(out, rec, K_MEMCPY);
			it->bytes = m->bytes;
			it->sub = m->copy_kind;
			break;
		}
		case GP_REC_MEMSET: {
			struct gp_rec_memset mr;
			const struct gp_rec_memset *m = &mr;

			gp_rec_read(&mr, sizeof(mr), rec);
			it = push_gpu(out, rec, K_MEMSET);
			it->bytes = m->bytes;
			break;
		}
		case GP_REC_SYNC: {
			const struct gp_rec_sync *y = (const void *)rec;

			it = push_gpu(out, rec, K_SYNC);
			it->sub = y->sync_type;
			break;
		}
		case GP_REC_MEMORY: {
			const struct gp_rec_memory *m = (const void *)rec;
			static const char *const ops[] = { "?", "alloc", "free", "pool_create",
							   "pool_destroy", "pool_trim" };

			it = push(out);
			it->kind = K_MEM;
			it->corr = m->correlation_id;
			it->sub = m->op;
			it->domain = m->op;
			it->mem_kind = m->memory_kind;
			/* the log has no address or size for a pool event: its pool's are in pool_* */
			it->node = m->op >= GP_MEM_POOL_CREATE ? 0 : m->address;
			it->bytes = m->op >= GP_MEM_POOL_CREATE ? 0 : m->bytes;
			it->stream = m->stream_id;
			it->context = m->context_id;
			it->pool_size = m->pool_size;
			it->pool_used = m->pool_used;
			it->graph_node = m->graph_node_id;
			it->start = it->end = m->ts;
			it->from_call = !!(rec->flags & GP_MEMORY_FROM_CALL);
			snprintf(it->name, sizeof(it->name), "%s", ops[m->op < 6 ? m->op : 0]);
			if (it->from_call && ((m->op != GP_MEM_ALLOC && m->op != GP_MEM_FREE) ||
					      !m->address))
				problem("memory corr %u: the library's own record is op %u at %#" PRIx64,
					m->correlation_id, m->op, m->address);
			if (m->op >= GP_MEM_POOL_CREATE && (m->memory_kind || !m->pool_type))
				problem("memory pool event corr %u: memory kind %u, pool type %u",
					m->correlation_id, m->memory_kind, m->pool_type);
			if (m->op < GP_MEM_POOL_CREATE && !!m->pool_type != !!m->pool_address)
				problem("memory corr %u: pool type %u with pool address %#" PRIx64,
					m->correlation_id, m->pool_type, m->pool_address);
			break;
		}
		case GP_REC_DROPPED: {
			const struct gp_rec_dropped *d = (const void *)rec;

			ti->drops += d->count;
			if (d->source == GP_DROP_CUPTI)
				ti->drops_cupti += d->count;
			else if (d->source == GP_DROP_INJECT_BUFFERS)
				ti->drops_inject += d->count;
			break;
		}
		case GP_REC_DEVICE:
			ti->devices++;
			break;
		case GP_REC_STACK: {
			const struct gp_rec_stack *k = (const void *)rec;

			if (k->id < 65536)
				stack_frames[k->id] = (uint32_t)k->nr_user + k->nr_kernel + 1;
			break;
		}
		case GP_REC_API_STACK: {
			const struct gp_rec_api_stack *a = (const void *)rec;

			if (GP_ALLOC_GROW(apistacks, nr_apistacks + 1, cap_apistacks))
				abort();
			apistacks[nr_apistacks++] = (struct apistack){
				a->correlation_id, a->stack_id, a->hdr.flags,
				a->stack_id < 65536 && stack_frames[a->stack_id] ?
					stack_frames[a->stack_id] - 1 : 0
			};
			if (!a->stack_id || a->stack_id >= 65536 || !stack_frames[a->stack_id])
				problem("api_stack corr %u names stack %u, which its chunk does not define",
					a->correlation_id, a->stack_id);
			break;
		}
		default:
			break;
		}
	}
	gp_reader__stats(r, &st);
	ti->clean_end = st.clean_end;
	gp_reader__free(r);
	return 0;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static int cmp_stream_start(const void *pa, const void *pb)
{
	const struct item *a = *(const struct item *const *)pa, *b = *(const struct item *const *)pb;

	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

/*
 * Work on one stream runs in order (a GPU's, and the simulator's rule): no
 * kernel, copy or memset of the trace starts before the one before it on
 * its stream has ended. Records without times (a forced flush) are skipped.
 */
static void check_stream_order(const struct vec *tr)
{
	const struct item **v = calloc(tr->n ? tr->n : 1, sizeof(*v));
	size_t i, n = 0;

	if (!v) {
		problem("out of memory");
		return;
	}
	for (i = 0; i < tr->n; i++)
		if (tr->v[i].kind != K_API && tr->v[i].kind != K_SYNC && tr->v[i].kind != K_MEM &&
		    tr->v[i].start)
			v[n++] = &tr->v[i];
	qsort(v, n, sizeof(*v), cmp_stream_start);
	for (i = 1; i < n; i++)
		if (v[i]->stream == v[i - 1]->stream && v[i]->start < v[i - 1]->end)
			problem("%s corr %u starts %" PRIu64 " ns before the end of %s corr %u on "
				"stream %u",
				kind_names[v[i]->kind], v[i]->corr, v[i - 1]->end - v[i]->start,
				kind_names[v[i - 1]->kind], v[i - 1]->corr, v[i]->stream);
	free(v);
}

/* Both sorted by (kind, domain, corr, node, start): pair them group by group. */
static void match(struct vec *truth, struct vec *tr, uint64_t tol, int allow_missing,
		  uint64_t *max_dt, uint64_t *max_dd)
{
	size_t i = 0, j = 0;

	while (i < truth->n || j < tr->n) {
		struct item *a = i < truth->n ? &truth->v[i] : NULL;
		struct item *b = j < tr->n ? &tr->v[j] : NULL;
		int c;

		if (a && b) {
			struct item ka = *a, kb = *b;

			ka.start = kb.start = 0;
			c = cmp_item(&ka, &kb);
		} else {
			c = a ? -1 : 1;
		}
		if (c < 0) {
			if (!allow_missing)
				problem("missing %s corr %u (%s) tid %u", kind_names[a->kind], a->corr,
					a->name, a->tid);
			i++;
			continue;
		}
		if (c > 0) {
			problem("%s corr %u (%s) in the trace did not happen (or is a duplicate)",
				kind_names[b->kind], b->corr, b->name);
			j++;
			continue;
		}
		a->matched = b->matched = 1;
		if (b->kind == K_API) {
			if (a->cbid != b->cbid || a->tid != b->tid || a->ret != b->ret)
				problem("api corr %u %s: cbid/tid/ret %u/%u/%d, truth %u/%u/%d", b->corr,
					a->name, b->cbid, b->tid, b->ret, a->cbid, a->tid, a->ret);
			/*
			 * CUPTI stamps the call inside the simulator's own bracket, except
			 * that the exit stamp is read just after the simulator's, so the
			 * end runs late by however long the thread was preempted in
			 * between (rare, but ms on a loaded 2-core machine); a reset's
			 * also includes the library's own flush.
			 */
			uint64_t late = strstr(a->name, "Reset") || strstr(a->name, "Destroy") ?
						2000000000ull :
						late_ns;

			if (b->start + tol < a->start || b->start > a->end || b->end < b->start ||
			    b->end > a->end + late)
				problem("api corr %u %s: [%" PRIu64 ", %" PRIu64
					"] outside the call [%" PRIu64 ", %" PRIu64 "]",
					b->corr, a->name, b->start, b->end, a->start, a->end);
			if (strcmp(a->name, b->name))
				problem("api corr %u: name '%s', truth '%s'", b->corr, b->name, a->name);
		} else {
			uint64_t ds = absdiff(a->start, b->start), de = absdiff(a->end, b->end);
			uint64_t dd = absdiff(a->end - a->start, b->end - b->start);

			/*
			 * A memory record is stamped by CUPTI inside the API call, after
			 * the simulator's own stamp: a thread preempted in between puts
			 * them ms apart. main() checks that it lies inside its call.
			 */
			if (b->kind == K_MEM)
				ds = de = dd = 0;
			if (ds > *max_dt)
				*max_dt = ds;
			if (de > *max_dt)
				*max_dt = de;
			if (dd > *max_dd)
				*max_dd = dd;
			/*
			 * Durations must match to the tolerance; absolute times carry
			 * the offset error of one clock conversion per delivery, which
			 * the simulator bounds by half the bracket of one
			 * timestamp-callback call: < 1 us stated, but a preempted or
			 * sanitizer-slowed bracket was seen at 6 us. Far below any gap
			 * that could make a record match the wrong work: 50x slack.
			 */
			if (ds > 50 * tol || de > 50 * tol || dd > tol)
				problem("%s corr %u: [%" PRIu64 ", %" PRIu64 "], truth [%" PRIu64
					", %" PRIu64 "]",
					kind_names[b->kind], b->corr, b->start, b->end, a->start, a->end);
			if (a->stream != b->stream)
				problem("%s corr %u: stream %u, truth %u", kind_names[b->kind], b->corr,
					b->stream, a->stream);
			if (b->kind == K_KERNEL &&
			    (strcmp(a->name, b->name) || memcmp(a->grid, b->grid, sizeof(a->grid)) ||
			     memcmp(a->block, b->block, sizeof(a->block))))
				problem("kernel corr %u: %s grid/block differ from truth %s", b->corr,
					b->name, a->name);
			if ((b->kind == K_MEMCPY || b->kind == K_MEMSET) &&
			    (a->bytes != b->bytes || a->sub != b->sub))
				problem("%s corr %u: bytes/kind %" PRIu64 "/%u, truth %" PRIu64 "/%u",
					kind_names[b->kind], b->corr, b->bytes, b->sub, a->bytes, a->sub);
			if (b->kind == K_SYNC && a->sub != b->sub)
				problem("sync corr %u: type %u, truth %u", b->corr, b->sub, a->sub);
			if (b->kind == K_MEM &&
			    (a->sub != b->sub || a->mem_kind != b->mem_kind || a->bytes != b->bytes ||
			     a->pool_size != b->pool_size || a->pool_used != b->pool_used ||
			     (b->sub < GP_MEM_POOL_CREATE && a->context != b->context)))
				problem("memory corr %u %s at %#" PRIx64 ": op/kind/bytes/context/pool "
					"%u/%u/%" PRIu64 "/%u/%" PRIu64 "/%" PRIu64 ", truth %u/%u/%" PRIu64
					"/%u/%" PRIu64 "/%" PRIu64,
					b->corr, b->name, b->node, b->sub, b->mem_kind, b->bytes, b->context,
					b->pool_size, b->pool_used, a->sub, a->mem_kind, a->bytes, a->context,
					a->pool_size, a->pool_used);
			if (b->kind == K_MEM && a->graph_node != b->graph_node)
				problem("memory corr %u %s at %#" PRIx64 ": graph node %" PRIu64
					", truth %" PRIu64,
					b->corr, b->name, b->node, b->graph_node, a->graph_node);
		}
		i++;
		j++;
	}
}

/* The API call with that id in domain dom (GP_API_RUNTIME, GP_API_DRIVER). */
static const struct item *find_api_in(const struct vec *tr, uint32_t dom, uint32_t corr)
{
	size_t lo = 0, hi = tr->n;

	/* API items sort first, by (domain, corr). */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct item *m = &tr->v[mid];
		int less = m->kind != K_API ? 0 : m->domain != dom ? m->domain < dom : m->corr < corr;

		if (less)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < tr->n && tr->v[lo].kind == K_API && tr->v[lo].domain == dom &&
	    tr->v[lo].corr == corr)
		return &tr->v[lo];
	return NULL;
}

/* The API call with that id: a runtime call before a driver call sharing its id. */
static const struct item *find_api(const struct vec *tr, uint32_t corr)
{
	const struct item *a = find_api_in(tr, GP_API_RUNTIME, corr);

	return a ? a : find_api_in(tr, GP_API_DRIVER, corr);
}

/* The calls whose stack the library takes: they issue GPU work or allocate memory. */
static int issues_work(const char *name)
{
	static const char *const p[] = { "__cudaLaunch", "cudaLaunch", "cudaGraphLaunch",
					 "cudaMemcpy", "cudaMemset", "cudaStreamAddCallback",
					 "cudaMalloc", "cudaFree", "cudaHostAlloc",
					 "cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset",
					 "cuStreamAddCallback", "cuMemAlloc", "cuMemFree",
					 "cuMemHostAlloc", "cuArrayCreate", "cuArray3DCreate",
					 "cuArrayDestroy", "cuMipmappedArrayCreate",
					 "cuMipmappedArrayDestroy", "cuMemCreate", "cuMemRelease" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(p); i++)
		if (!strncmp(name, p[i], strlen(p[i])))
			return 1;
	return 0;
}

static int cmp_apistack(const void *pa, const void *pb)
{
	const struct apistack *a = pa, *b = pb;

	return a->corr < b->corr ? -1 : a->corr > b->corr;
}

static const struct apistack *find_apistack(uint32_t corr)
{
	struct apistack key = { .corr = corr };

	return bsearch(&key, apistacks, nr_apistacks, sizeof(key), cmp_apistack);
}

static int cmp_tid_start(const void *pa, const void *pb)
{
	const struct item *a = *(const struct item *const *)pa, *b = *(const struct item *const *)pb;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/*
 * Without ground truth (a real GPU), the call a driver call was made inside
 * is read off the trace: the runtime call of the same thread that started
 * last before it and ended after it. rt: the trace's runtime calls sorted by
 * (tid, start).
 */
static const struct item *enclosing_in_trace(const struct item *const *rt, size_t n,
					     const struct item *it)
{
	size_t lo = 0, hi = n;

	if (it->domain != GP_API_DRIVER)
		return NULL;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (rt[mid]->tid < it->tid || (rt[mid]->tid == it->tid && rt[mid]->start <= it->start))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || rt[lo - 1]->tid != it->tid || rt[lo - 1]->end < it->end)
		return NULL;
	return rt[lo - 1];
}

/* Launch stacks: see the header comment. Returns how many calls had one. */
static size_t check_stacks(const struct vec *tr, const struct vec *truth, int off, int lossy,
			   unsigned min_frames)
{
	const struct item **rt = NULL;
	size_t k, n = 0, nrt = 0;

	if (off) {
		if (nr_apistacks)
			problem("%zu api_stack records with launch stacks off", nr_apistacks);
		return 0;
	}
	gp_sort(apistacks, nr_apistacks, sizeof(*apistacks), cmp_apistack);
	for (k = 1; k < nr_apistacks; k++)
		if (apistacks[k].corr == apistacks[k - 1].corr)
			problem("corr %u has two api_stack records", apistacks[k].corr);
	for (k = 0; k < nr_apistacks; k++) {
		const struct item *api = find_api(tr, apistacks[k].corr);

		if (!api && lossy)
			continue; /* its API record was dropped */
		if (!api || !issues_work(api->name))
			problem("api_stack corr %u: no API call that issues GPU work has that id (%s)",
				apistacks[k].corr, api ? api->name : "none");
	}
	if (!truth->n) {
		rt = calloc(tr->n + 1, sizeof(*rt));
		if (!rt) {
			problem("out of memory");
			return 0;
		}
		for (k = 0; k < tr->n; k++)
			if (tr->v[k].kind == K_API && tr->v[k].domain == GP_API_RUNTIME)
				rt[nrt++] = &tr->v[k];
		gp_sort(rt, nrt, sizeof(*rt), cmp_tid_start);
	}
	for (k = 0; k < tr->n; k++) {
		const struct item *it = &tr->v[k], *t, *parent;
		const struct apistack *s, *ps;

		if (it->kind != K_API || !issues_work(it->name))
			continue;
		if (truth->n) {
			t = find_api_in(truth, it->domain, it->corr);
			parent = t && t->parent ? find_api(truth, t->parent) : NULL;
		} else {
			parent = enclosing_in_trace(rt, nrt, it);
			if (!parent && lossy)
				continue; /* the enclosing call's record may be the one dropped */
		}
		/*
		 * A driver call with its enclosing runtime call's id (real CUPTI,
		 * GPUPERF_SIM_NESTED_CORR=outer) has that call's record.
		 */
		if (parent && parent->corr == it->corr && it->domain == GP_API_DRIVER)
			continue;
		s = find_apistack(it->corr);
		if (!s) {
			if (!lossy)
				problem("api %s corr %u has no launch stack", it->name, it->corr);
			continue;
		}
		n++;
		if (s->nframes < min_frames)
			problem("api %s corr %u: launch stack of %u frames, expected at least %u",
				it->name, it->corr, s->nframes, min_frames);
		if (!!(s->flags & GP_API_STACK_NESTED) != !!(parent && issues_work(parent->name)))
			problem("api %s corr %u: nested flag %u, enclosing call %s", it->name, it->corr,
				s->flags & GP_API_STACK_NESTED, parent ? parent->name : "none");
		ps = parent ? find_apistack(parent->corr) : NULL;
		if (ps && ps->stack_id != s->stack_id)
			problem("api %s corr %u: stack %u, its enclosing %s has stack %u", it->name,
				it->corr, s->stack_id, parent->name, ps->stack_id);
	}
	free(rt);
	return n;
}

int main(int argc, char **argv)
{
	struct vec truth = { 0 }, tr = { 0 };
	struct trace_info ti = { 0 };
	uint64_t tol = 1000, max_dt = 0, max_dd = 0;
	unsigned min_threads = 0, counts[K_NKINDS] = { 0 }, graph_kernels = 0;
	int no_end = 0, expect_drops = 0, graph = 0, no_truth = 0, no_stacks = 0, i;
	unsigned min_frames = 1;
	size_t with_stack;
	long want[K_NKINDS] = { -1, -1, -1, -1, -1, -1 };
	uint32_t pid = 0, tids[4096];
	size_t ntids = 0, k;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--no-end"))
			no_end = 1;
		else if (!strcmp(argv[i], "--expect-drops"))
			expect_drops = 1;
		else if (!strcmp(argv[i], "--graph"))
			graph = 1;
		else if (!strcmp(argv[i], "--min-threads") && i + 1 < argc)
			min_threads = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--no-truth"))
			no_truth = 1;
		else if (!strcmp(argv[i], "--late-ms") && i + 1 < argc)
			late_ns = strtoull(argv[++i], NULL, 10) * 1000000ull;
		else if (!strcmp(argv[i], "--no-stacks"))
			no_stacks = 1;
		else if (!strcmp(argv[i], "--min-frames") && i + 1 < argc)
			min_frames = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--kernels") && i + 1 < argc)
			want[K_KERNEL] = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--memcpys") && i + 1 < argc)
			want[K_MEMCPY] = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--memsets") && i + 1 < argc)
			want[K_MEMSET] = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--memory") && i + 1 < argc)
			want[K_MEM] = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--skip-api") && i + 1 < argc)
			skip_api = argv[++i];
		else if (!strcmp(argv[i], "--tolerance") && i + 1 < argc)
			tol = strtoull(argv[++i], NULL, 10);
		else
			break;
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: trace_check [--no-end] [--expect-drops] [--graph] "
				"[--min-threads N] [--tolerance NS] [--skip-api TEXT] [--no-truth]\n"
				"       [--no-stacks] [--min-frames N] [--late-ms MS]\n"
				"       [--kernels N] [--memcpys N] [--memsets N] [--memory N] TRACE TRUTH.jsonl\n");
		return 2;
	}
	if (load_truth(argv[i + 1], &truth, &pid))
		return 1;
	if (load_trace(argv[i], &tr, &ti, pid))
		return 1;
	if (ti.errors)
		problem("%d read errors in the trace", ti.errors);
	if (!ti.clean_end && !no_end)
		problem("the trace has no end record (not closed)");
	if (!ti.devices)
		problem("no device record");
	if (expect_drops && !ti.drops)
		problem("drops were expected, the trace counts none");
	if (!expect_drops && ti.drops)
		problem("the trace counts %" PRIu64 " dropped records", ti.drops);

	gp_sort(truth.v, truth.n, sizeof(*truth.v), cmp_item);
	gp_sort(tr.v, tr.n, sizeof(*tr.v), cmp_item);
	if (!no_truth)
		match(&truth, &tr, tol, expect_drops, &max_dt, &max_dd);
	check_stream_order(&tr);

	for (k = 0; k < tr.n; k++) {
		const struct item *it = &tr.v[k], *api;

		counts[it->kind]++;
		/* Times are CLOCK_MONOTONIC of this boot, inside the process's life. */
		if (it->start && (it->start + 10000000000ull < ti.t0 ||
				  it->start > ti.t0 + 3600000000000ull || it->end < it->start))
			problem("%s corr %u: times [%" PRIu64 ", %" PRIu64
				"] are not MONOTONIC ns of this run (trace opened at %" PRIu64 ")",
				kind_names[it->kind], it->corr, it->start, it->end, ti.t0);
		if (it->kind == K_API) {
			if (!api_filter__wanted(it->domain, it->cbid))
				problem("api %s (cbid %u) is not on the recorded list", it->name,
					it->cbid);
			if (strstr(it->name, "Launch") && ntids < 4096) {
				size_t t;

				for (t = 0; t < ntids && tids[t] != it->tid; t++)
					;
				if (t == ntids)
					tids[ntids++] = it->tid;
			}
			continue;
		}
		api = find_api(&tr, it->corr);
		if (!api) {
			if (!expect_drops)
				problem("%s corr %u joins no API record", kind_names[it->kind], it->corr);
			continue;
		}
		if (it->start && api->start > it->start)
			problem("%s corr %u starts before its API call %s", kind_names[it->kind],
				it->corr, api->name);
		/* the library stamps its own as the call returns, after CUPTI's end */
		if (it->kind == K_MEM && !it->from_call && it->start > api->end)
			problem("memory corr %u (%s) at %" PRIu64 ", after its API call %s ended at %" PRIu64,
				it->corr, it->name, it->start, api->name, api->end);
		if (it->kind == K_KERNEL && it->in_graph) {
			graph_kernels++;
			if (!strstr(api->name, "GraphLaunch"))
				problem("graph kernel corr %u joins %s, not a graph launch", it->corr,
					api->name);
		}
	}
	for (k = K_KERNEL; k < K_NKINDS; k++)
		if (want[k] >= 0 && counts[k] != (unsigned long)want[k])
			problem("%u %s records, expected %ld", counts[k], kind_names[k], want[k]);
	if (graph && !graph_kernels)
		problem("no kernel ran inside a graph");
	if (ntids < min_threads)
		problem("launches came from %zu threads, expected at least %u", ntids, min_threads);
	if (!counts[K_API])
		problem("no API records");
	with_stack = check_stacks(&tr, no_truth ? &(struct vec){ 0 } : &truth, no_stacks, expect_drops,
				  min_frames);

	printf("trace_check: api=%u kernel=%u memcpy=%u memset=%u sync=%u memory=%u drops=%" PRIu64
	       " (cupti=%" PRIu64 " declined_buffers=%" PRIu64 ") graph_kernels=%u launch_threads=%zu launch_stacks=%zu max_gpu_time_error_ns=%" PRIu64 " max_duration_error_ns=%" PRIu64 " end=%d %s\n",
	       counts[K_API], counts[K_KERNEL], counts[K_MEMCPY], counts[K_MEMSET], counts[K_SYNC],
	       counts[K_MEM],
	       ti.drops, ti.drops_cupti, ti.drops_inject, graph_kernels, ntids, with_stack, max_dt, max_dd, ti.clean_end, nproblems ? "FAILED" : "ok");
	free(truth.v);
	free(tr.v);
	free(apistacks);
	return nproblems ? 1 : 0;
}
