// SPDX-License-Identifier: Apache-2.0
/* Simulated libcuda.so.1: one fake device, streams on a deterministic timeline, injection. */

/*
 * How it works. Nothing runs on a GPU: every piece of work gets a start and
 * an end on a simulated device timeline kept in CLOCK_MONOTONIC ns, computed
 * when the work is issued from fixed rules (see README.md):
 *
 *   start = max(issue time + launch latency, end of the previous work on the
 *               stream, legacy-default-stream barriers, awaited events)
 *   end   = start + duration(kind, size, kernel name)
 *
 * Work is "running" while CLOCK_MONOTONIC is between start and end, so a
 * synchronize really sleeps the calling thread until the end time. Data
 * effects of copies and memsets happen at issue; kernels compute nothing.
 *
 * Every API call (driver here, runtime in libcudart) goes through
 * gpsim_call_enter/exit, which assigns correlation ids, keeps a per-thread
 * call stack (so a kernel issued by cuLaunchKernel inside cudaLaunchKernel
 * carries the runtime id), calls the hook client (libcupti) and writes the
 * ground-truth log (GPUPERF_SIM_LOG).
 *
 * cuInit loads CUDA_INJECTION64_PATH and calls its InitializeInjection()
 * once per process before cuInit returns, as the real driver does.
 */

/* Like the real driver's own build: exposes every versioned entry point
 * (cuMemAlloc_v2 and friends) and the legacy types generated_cuda_meta.h uses. */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <generated_cuda_meta.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sim_deep.h"
#include "sim_internal.h"

/* Duration rules, documented in README.md. */
#define LAUNCH_LATENCY_NS 2000ULL
/* Work a stream holds issued but not finished before issuing blocks (README.md). */
#define QUEUE_DEPTH 1024u
#define QUEUE_DEPTH_MAX 65536u
#define KERNEL_BASE_NS 2000ULL
#define MEMCPY_BASE_NS 1000ULL
#define MEMSET_BASE_NS 500ULL
/* Bandwidths in bytes per microsecond (= MB/s). */
#define BW_PINNED 20000ULL
#define BW_PAGEABLE 8000ULL
#define BW_DTOD 400000ULL
#define BW_HTOH 10000ULL
#define BW_MEMSET 800000ULL

struct CUctx_st {
	uint32_t id;
};

struct CUfunc_st {
	const char *name; /* mangled; owned for the process lifetime */
	struct CUfunc_st *next;
};

struct CUmod_st {
	size_t n;
	struct CUfunc_st **funcs;
};

struct CUstream_st {
	uint32_t id;
	unsigned int flags;
	int priority;
	int legacy;
	uint64_t ready; /* end of the last work issued to it */
	uint64_t *qend; /* ends of its last S.queue_depth pieces of work (a ring); NULL: none yet */
	unsigned qpos;
	struct CUgraph_st *capture;
	struct CUstream_st *next;
};

struct CUevent_st {
	uint32_t id;
	unsigned int flags;
	int recorded;
	uint64_t ts;
};

struct gnode {
	int kind;
	CUfunction f;
	unsigned int grid[3], block[3], shmem;
	int launch_type;
	void *dst;
	const void *src;
	size_t bytes;
	int copy_kind;
	uint32_t value;
	unsigned int elem;
};

struct CUgraph_st {
	uint32_t id;
	size_t n, cap;
	struct gnode *nodes;
};

struct CUgraphExec_st {
	uint32_t id;
	uint32_t graph_id;
	size_t n;
	struct gnode *nodes;
};

struct alloc {
	uintptr_t base;
	size_t size;
	int pinned;
	struct alloc *next;
};

struct kernel_rule {
	char *name;
	uint64_t ns;
};

/* The one process-wide state a driver must keep. */
static struct gpsim_state {
	pthread_mutex_t lock;
	pthread_once_t env_once;
	pthread_once_t inject_once;
	atomic_int inited;
	atomic_uint corr;
	_Atomic(const struct gpsim_hooks *) hooks;
	int ctx_alive;
	struct CUctx_st ctx;
	struct CUstream_st legacy;
	struct CUstream_st *streams;
	uint64_t orphan_ready; /* work of destroyed streams */
	uint32_t next_stream_id, next_event_id, next_graph_id;
	int64_t next_grid_id;
	struct alloc *allocs;
	struct CUfunc_st *funcs;
	struct kernel_rule *rules;
	size_t nrules;
	int log_fd;
	unsigned queue_depth; /* 0: unbounded */
} S = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.env_once = PTHREAD_ONCE_INIT,
	.inject_once = PTHREAD_ONCE_INIT,
	.ctx = { .id = GPSIM_CONTEXT_ID },
	.legacy = { .id = GPSIM_LEGACY_STREAM_ID, .legacy = 1 },
	.next_stream_id = 13,
	.next_event_id = 1,
	.next_graph_id = 1,
	.next_grid_id = 1,
	.log_fd = -1,
	.queue_depth = QUEUE_DEPTH,
};

static __thread struct gpsim_call *tls_top;
static __thread CUcontext tls_ctx;
static __thread struct CUstream_st *tls_pts; /* per-thread default stream */

#pragma GCC visibility push(default)

uint64_t gpsim_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * Thread and process ids, read once per thread (per process) and again after
 * fork(): a driver keeps them at hand, and two system calls per API call
 * would make the simulator's launch path several times slower than a real
 * one on machines where system calls are dear, hiding the costs measured.
 */
static unsigned fork_gen; /* bumped in the child of every fork() */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void on_fork_child(void)
{
	__atomic_add_fetch(&fork_gen, 1, __ATOMIC_RELAXED);
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, on_fork_child);
}

static unsigned id_generation(void)
{
	pthread_once(&atfork_once, register_atfork);
	return __atomic_load_n(&fork_gen, __ATOMIC_RELAXED) + 1; /* 0: never read */
}

static uint32_t sys_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static uint32_t sys_getpid(void)
{
	return (uint32_t)getpid();
}

/* *id, read with `read` on this thread's first use and again after a fork. */
static uint32_t cached_id(uint32_t *id, unsigned *gen, uint32_t (*read)(void))
{
	unsigned g = id_generation();

	if (*gen != g) {
		*id = read();
		*gen = g;
	}
	return *id;
}

uint32_t gpsim_gettid(void)
{
	static __thread uint32_t tid;
	static __thread unsigned gen;

	return cached_id(&tid, &gen, sys_gettid);
}

uint32_t gpsim_getpid(void)
{
	static __thread uint32_t pid;
	static __thread unsigned gen;

	return cached_id(&pid, &gen, sys_getpid);
}

void gpsim_log_line(const char *json)
{
	size_t len = strlen(json);
	char *line;

	if (S.log_fd < 0)
		return;
	/* One write() per line on an O_APPEND fd keeps lines whole across threads. */
	line = malloc(len + 1);
	if (!line)
		return;
	memcpy(line, json, len);
	line[len] = '\n';
	if (write(S.log_fd, line, len + 1) < 0) {
		/* The log is best effort; the simulated program goes on. */
	}
	free(line);
}

#pragma GCC visibility pop

static void wait_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ULL),
			       .tv_nsec = (long)(t % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Appends printf output to a fixed buffer; truncation only shortens a log line. */
static void bprintf(char *buf, size_t size, size_t *pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void bprintf(char *buf, size_t size, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, size - *pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos += (size_t)n;
}

/* Kernel names and paths are JSON-escaped here and nowhere else in the sim. */
static void bjson_str(char *buf, size_t size, size_t *pos, const char *s)
{
	bprintf(buf, size, pos, "\"");
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			bprintf(buf, size, pos, "\\%c", c);
		else if (c < 0x20)
			bprintf(buf, size, pos, "\\u%04x", c);
		else
			bprintf(buf, size, pos, "%c", c);
	}
	bprintf(buf, size, pos, "\"");
}

/* GPUPERF_SIM_KERNEL_NS="name=ns,name2=ns" */
static void parse_kernel_rules(const char *spec)
{
	char *copy = strdup(spec), *save = NULL, *tok;

	if (!copy)
		return;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strrchr(tok, '='), *end;
		unsigned long long ns;
		struct kernel_rule *r;

		if (!eq || eq == tok)
			continue;
		*eq = '\0';
		errno = 0;
		ns = strtoull(eq + 1, &end, 10);
		if (errno || *end || end == eq + 1)
			continue;
		r = realloc(S.rules, (S.nrules + 1) * sizeof(*r));
		if (!r)
			break;
		S.rules = r;
		S.rules[S.nrules].name = strdup(tok);
		S.rules[S.nrules].ns = ns;
		if (S.rules[S.nrules].name)
			S.nrules++;
	}
	free(copy);
}

static void env_init(void)
{
	const char *log = getenv("GPUPERF_SIM_LOG");
	const char *rules = getenv("GPUPERF_SIM_KERNEL_NS");
	const char *depth = getenv("GPUPERF_SIM_QUEUE_DEPTH");
	char line[256];
	size_t pos = 0;

	if (depth && *depth) {
		unsigned long d = strtoul(depth, NULL, 10);

		S.queue_depth = d > QUEUE_DEPTH_MAX ? QUEUE_DEPTH_MAX : (unsigned)d;
	}
	if (rules)
		parse_kernel_rules(rules);
	if (log && *log)
		S.log_fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	bprintf(line, sizeof(line), &pos,
		"{\"type\":\"init\",\"pid\":%d,\"tid\":%u,\"clock\":\"CLOCK_MONOTONIC\",\"ts\":%" PRIu64
		"}",
		(int)getpid(), gpsim_gettid(), gpsim_now());
	gpsim_log_line(line);
}

static void env_once(void)
{
	pthread_once(&S.env_once, env_init);
}

/*
 * The plain function name of a mangled one: "_Z9vectorAddPKfS0_Pfi" ->
 * "vectorAdd", "_ZN2ns3fooEv" -> "ns::foo". Unmangled (extern "C") names are
 * their own plain name.
 */
static void plain_name(const char *m, char *out, size_t size)
{
	size_t pos = 0;
	int nested;

	out[0] = '\0';
	if (strncmp(m, "_Z", 2) != 0) {
		snprintf(out, size, "%s", m);
		return;
	}
	m += 2;
	nested = *m == 'N';
	if (nested)
		m++;
	while (*m >= '0' && *m <= '9') {
		char *end;
		unsigned long len = strtoul(m, &end, 10);

		if (strlen(end) < len)
			break;
		if (pos && pos + 2 < size) {
			out[pos++] = ':';
			out[pos++] = ':';
		}
		if (pos + len + 1 > size)
			break;
		memcpy(out + pos, end, len);
		pos += len;
		out[pos] = '\0';
		m = end + len;
		if (!nested)
			break;
	}
}

static uint64_t kernel_ns(const char *name, const unsigned int grid[3],
			  const unsigned int block[3])
{
	uint64_t threads = (uint64_t)grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
	char plain[256];
	size_t i;

	plain_name(name, plain, sizeof(plain));
	for (i = 0; i < S.nrules; i++)
		if (!strcmp(S.rules[i].name, name) || !strcmp(S.rules[i].name, plain))
			return S.rules[i].ns;
	/* One ns per warp of 32 threads on top of a fixed cost. */
	return KERNEL_BASE_NS + (threads + 31) / 32;
}

static uint64_t memcpy_ns(int copy_kind, int pinned, size_t bytes)
{
	uint64_t bw;

	switch (copy_kind) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
		bw = BW_DTOD;
		break;
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
		bw = BW_HTOH;
		break;
	default:
		bw = pinned ? BW_PINNED : BW_PAGEABLE;
	}
	return MEMCPY_BASE_NS + (uint64_t)bytes * 1000ULL / bw;
}

static uint64_t memset_ns(size_t bytes)
{
	return MEMSET_BASE_NS + (uint64_t)bytes * 1000ULL / BW_MEMSET;
}

static const char *copy_kind_str(int k)
{
	switch (k) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
	default: return "unknown";
	}
}

static const char *mem_kind_str(int k)
{
	switch (k) {
	case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "pageable";
	case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "pinned";
	case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "device";
	default: return "unknown";
	}
}

static const struct gpsim_hooks *hooks(void)
{
	return atomic_load_explicit(&S.hooks, memory_order_acquire);
}

/* ---- tracing ---------------------------------------------------------- */

#pragma GCC visibility push(default)

int gpsim_hooks_set(const struct gpsim_hooks *h)
{
	atomic_store_explicit(&S.hooks, h, memory_order_release);
	return 0;
}

static void hook_enter(void *c)
{
	const struct gpsim_hooks *h = hooks();

	if (h && h->api_enter)
		h->api_enter(c);
}

void gpsim_call_enter(struct gpsim_call *c, int domain, uint32_t cbid, const char *name,
		      const void *params, const char *symbol)
{
	const struct gpsim_hooks *h;

	env_once();
	memset(c, 0, sizeof(*c));
	c->domain = domain;
	c->cbid = cbid;
	c->name = name;
	c->params = params;
	c->symbol = symbol;
	c->corr = atomic_fetch_add(&S.corr, 1) + 1;
	c->tid = gpsim_gettid();
	c->pthread = (uint64_t)pthread_self();
	c->parent = tls_top;
	tls_top = c;
	c->start = gpsim_now();
	h = hooks();
	/* CUPTI's callback comes from beneath the driver's own frames (sim_deep.h). */
	if (h && h->api_enter)
		gpsim_deep(hook_enter, c);
}

int gpsim_call_exit(struct gpsim_call *c, int ret)
{
	const struct gpsim_hooks *h = hooks();
	char line[768];
	size_t pos = 0;

	c->ret = ret;
	c->end = gpsim_now();
	if (h && h->api_exit)
		h->api_exit(c);
	tls_top = c->parent;
	if (S.log_fd >= 0) {
		bprintf(line, sizeof(line), &pos, "{\"type\":\"api\",\"domain\":\"%s\",\"name\":",
			c->domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime" : "driver");
		bjson_str(line, sizeof(line), &pos, c->name);
		bprintf(line, sizeof(line), &pos,
			",\"cbid\":%u,\"corr\":%u,\"parent_corr\":%u,\"tid\":%u,\"start\":%" PRIu64
			",\"end\":%" PRIu64 ",\"ret\":%d",
			c->cbid, c->corr, c->parent ? c->parent->corr : 0, c->tid, c->start, c->end,
			ret);
		if (c->symbol) {
			bprintf(line, sizeof(line), &pos, ",\"symbol\":");
			bjson_str(line, sizeof(line), &pos, c->symbol);
		}
		bprintf(line, sizeof(line), &pos, "}");
		gpsim_log_line(line);
	}
	return ret;
}

#pragma GCC visibility pop

/* The ids GPU work issued now must carry. */
static void current_corr(uint32_t *corr, uint32_t *rt, uint32_t *drv)
{
	struct gpsim_call *c;

	*rt = *drv = 0;
	for (c = tls_top; c; c = c->parent) {
		if (c->domain == CUPTI_CB_DOMAIN_DRIVER_API && !*drv)
			*drv = c->corr;
		if (c->domain == CUPTI_CB_DOMAIN_RUNTIME_API && !*rt)
			*rt = c->corr;
	}
	*corr = *rt ? *rt : *drv;
}

#define DRV_ENTER(cb, params, sym)                                                       \
	struct gpsim_call call__;                                                          \
	gpsim_call_enter(&call__, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##cb, \
			 __func__, params, sym)
#define DRV_RETURN(r) return (CUresult)gpsim_call_exit(&call__, (int)(r))

/* ---- device timeline -------------------------------------------------- */

static struct CUstream_st *stream_of(CUstream s)
{
	if (!s || s == CU_STREAM_LEGACY)
		return &S.legacy;
	if (s == CU_STREAM_PER_THREAD)
		return gpsim_stream_per_thread();
	return s;
}

/* Earliest start on stream s: its own queue plus legacy-stream barriers. Lock held. */
static uint64_t stream_dep(struct CUstream_st *s)
{
	uint64_t t = s->ready;
	struct CUstream_st *o;

	if (s->legacy) {
		/* The legacy stream waits for all blocking streams. */
		for (o = S.streams; o; o = o->next)
			if (!(o->flags & CU_STREAM_NON_BLOCKING))
				t = max_u64(t, o->ready);
		t = max_u64(t, S.orphan_ready);
	} else if (!(s->flags & CU_STREAM_NON_BLOCKING)) {
		t = max_u64(t, S.legacy.ready);
	}
	return t;
}

static void log_op(const struct gpsim_op *op)
{
	char line[1024];
	size_t pos = 0;

	if (S.log_fd < 0)
		return;
	bprintf(line, sizeof(line), &pos, "{\"type\":\"%s\"",
		op->kind == GPSIM_OP_KERNEL ? "kernel" :
		op->kind == GPSIM_OP_MEMCPY ? "memcpy" : "memset");
	bprintf(line, sizeof(line), &pos,
		",\"corr\":%u,\"runtime_corr\":%u,\"driver_corr\":%u,\"tid\":%u,\"device\":%u"
		",\"context\":%u,\"stream\":%u,\"start\":%" PRIu64 ",\"end\":%" PRIu64
		",\"graph\":%u,\"graph_node\":%" PRIu64,
		op->corr, op->runtime_corr, op->driver_corr, op->tid, op->device_id,
		op->context_id, op->stream_id, op->start, op->end, op->graph_id,
		op->graph_node_id);
	if (op->kind == GPSIM_OP_KERNEL) {
		bprintf(line, sizeof(line), &pos, ",\"name\":");
		bjson_str(line, sizeof(line), &pos, op->name);
		bprintf(line, sizeof(line), &pos,
			",\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d],\"shmem\":%d,\"grid_id\":%" PRId64
			",\"launch_type\":%d",
			op->grid[0], op->grid[1], op->grid[2], op->block[0], op->block[1],
			op->block[2], op->dyn_shmem, op->grid_id, op->launch_type);
	} else if (op->kind == GPSIM_OP_MEMCPY) {
		bprintf(line, sizeof(line), &pos,
			",\"copy\":\"%s\",\"src_kind\":\"%s\",\"dst_kind\":\"%s\",\"bytes\":%" PRIu64
			",\"async\":%d",
			copy_kind_str(op->copy_kind), mem_kind_str(op->src_kind),
			mem_kind_str(op->dst_kind), op->bytes, op->async);
	} else {
		bprintf(line, sizeof(line), &pos, ",\"bytes\":%" PRIu64 ",\"value\":%u,\"async\":%d",
			op->bytes, op->value, op->async);
	}
	bprintf(line, sizeof(line), &pos, "}");
	gpsim_log_line(line);
}

/* Puts op (duration dur) on stream s's timeline and reports it. */
static void issue(struct CUstream_st *s, struct gpsim_op *op, uint64_t dur)
{
	const struct gpsim_hooks *h;
	uint64_t now = gpsim_now();

	current_corr(&op->corr, &op->runtime_corr, &op->driver_corr);
	op->tid = gpsim_gettid();
	op->device_id = GPSIM_DEVICE_ID;
	op->context_id = GPSIM_CONTEXT_ID;
	pthread_mutex_lock(&S.lock);
	/*
	 * A full queue: the work issued queue_depth pieces ago on this stream
	 * has not finished. The driver blocks the call until it has, as a real
	 * one does when a channel's push buffer is full, so a program launching
	 * faster than the device runs is held to the device's pace.
	 */
	if (!s->qend && S.queue_depth)
		s->qend = calloc(S.queue_depth, sizeof(*s->qend));
	while (s->qend && s->qend[s->qpos] > now) {
		uint64_t until = s->qend[s->qpos];

		pthread_mutex_unlock(&S.lock);
		wait_until(until);
		now = gpsim_now();
		pthread_mutex_lock(&S.lock);
	}
	op->issued = now;
	op->stream_id = s->id;
	op->start = max_u64(now + LAUNCH_LATENCY_NS, stream_dep(s));
	op->end = op->start + dur;
	s->ready = op->end;
	if (s->qend) {
		s->qend[s->qpos] = op->end;
		s->qpos = (s->qpos + 1) % S.queue_depth;
	}
	if (op->kind == GPSIM_OP_KERNEL)
		op->grid_id = S.next_grid_id++;
	pthread_mutex_unlock(&S.lock);
	h = hooks();
	if (h && h->gpu_op)
		h->gpu_op(op);
	log_op(op);
}

/* A CPU-side instant on both clocks: the simulator's and the tracer's own. */
struct sync_stamp {
	uint64_t mono, own;
};

static struct sync_stamp sync_now(void)
{
	const struct gpsim_hooks *h = hooks();
	struct sync_stamp t;

	t.own = h && h->clock ? h->clock() : 0;
	t.mono = gpsim_now();
	return t;
}

static void report_sync(int type, uint32_t stream_id, uint32_t event_id, struct sync_stamp start)
{
	const struct gpsim_hooks *h = hooks();
	struct sync_stamp end = sync_now();
	struct gpsim_sync sy = { .type = type, .context_id = GPSIM_CONTEXT_ID,
				 .stream_id = stream_id, .event_id = event_id,
				 .start = start.mono, .end = end.mono,
				 .own_start = start.own, .own_end = end.own };
	uint32_t rt, drv;
	char line[384];
	size_t pos = 0;

	current_corr(&sy.corr, &rt, &drv);
	if (h && h->sync)
		h->sync(&sy);
	bprintf(line, sizeof(line), &pos,
		"{\"type\":\"sync\",\"sync\":\"%s\",\"corr\":%u,\"tid\":%u,\"stream\":%d,\"event\":%d"
		",\"start\":%" PRIu64 ",\"end\":%" PRIu64 "}",
		type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE ? "context" :
		type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE ? "stream" :
		type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE ? "event" :
		"stream_wait_event",
		sy.corr, gpsim_gettid(), stream_id == UINT32_MAX ? -1 : (int)stream_id,
		event_id == UINT32_MAX ? -1 : (int)event_id, sy.start, sy.end);
	gpsim_log_line(line);
}

static uint64_t device_ready(void)
{
	uint64_t t;
	struct CUstream_st *o;

	pthread_mutex_lock(&S.lock);
	t = max_u64(S.legacy.ready, S.orphan_ready);
	for (o = S.streams; o; o = o->next)
		t = max_u64(t, o->ready);
	pthread_mutex_unlock(&S.lock);
	return t;
}

/* ---- memory registry ---------------------------------------------------- */

static struct alloc *alloc_find(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	struct alloc *m;

	for (m = S.allocs; m; m = m->next)
		if (a >= m->base && a < m->base + (m->size ? m->size : 1))
			return m;
	return NULL;
}

static int mem_kind(const void *p)
{
	struct alloc *m;
	int kind;

	pthread_mutex_lock(&S.lock);
	m = alloc_find(p);
	kind = !m ? CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE :
	       m->pinned ? CUPTI_ACTIVITY_MEMORY_KIND_PINNED : CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	pthread_mutex_unlock(&S.lock);
	return kind;
}

static int mem_add(size_t size, int pinned, void **out)
{
	struct alloc *m = calloc(1, sizeof(*m));
	void *p = NULL;

	/* 256-byte alignment like cudaMalloc; at least one byte so pointers are unique. */
	if (!m || posix_memalign(&p, 256, size ? size : 1)) {
		free(m);
		return -ENOMEM;
	}
	m->base = (uintptr_t)p;
	m->size = size;
	m->pinned = pinned;
	pthread_mutex_lock(&S.lock);
	m->next = S.allocs;
	S.allocs = m;
	pthread_mutex_unlock(&S.lock);
	*out = p;
	return 0;
}

static int mem_del(const void *p, int pinned)
{
	struct alloc **pp, *m;
	int err = -EINVAL;

	pthread_mutex_lock(&S.lock);
	for (pp = &S.allocs; (m = *pp); pp = &m->next) {
		if (m->base == (uintptr_t)p && m->pinned == pinned) {
			*pp = m->next;
			free((void *)m->base);
			free(m);
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&S.lock);
	return err;
}

#pragma GCC visibility push(default)

int gpsim_is_pinned(const void *p)
{
	return mem_kind(p) == CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
}

int gpsim_is_device(const void *p)
{
	return mem_kind(p) == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
}

CUfunction gpsim_func_register(const char *name)
{
	struct CUfunc_st *f;

	pthread_mutex_lock(&S.lock);
	for (f = S.funcs; f; f = f->next)
		if (!strcmp(f->name, name))
			break;
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (f) {
			f->name = strdup(name);
			if (!f->name) {
				free(f);
				f = NULL;
			} else {
				f->next = S.funcs;
				S.funcs = f;
			}
		}
	}
	pthread_mutex_unlock(&S.lock);
	return f;
}

const char *gpsim_func_name(CUfunction f)
{
	return f ? f->name : NULL;
}

CUstream gpsim_stream_per_thread(void)
{
	struct CUstream_st *s = tls_pts;

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return &S.legacy;
	pthread_mutex_lock(&S.lock);
	s->id = S.next_stream_id++;
	/* Kept on the stream list so the device and its stream set outlive the thread. */
	s->next = S.streams;
	S.streams = s;
	pthread_mutex_unlock(&S.lock);
	tls_pts = s;
	return s;
}

uint32_t gpsim_stream_id(CUstream s)
{
	return stream_of(s)->id;
}

CUcontext gpsim_primary_ctx(void)
{
	pthread_mutex_lock(&S.lock);
	S.ctx_alive = 1;
	pthread_mutex_unlock(&S.lock);
	tls_ctx = &S.ctx;
	return &S.ctx;
}

CUcontext gpsim_ctx_current(void)
{
	return S.ctx_alive ? tls_ctx : NULL;
}

#pragma GCC visibility pop

/* ---- injection ------------------------------------------------------ */

static void inject(void)
{
	const char *path = getenv("CUDA_INJECTION64_PATH");
	const char *status = "ok";
	char line[1024];
	size_t pos = 0;
	uint64_t start = gpsim_now();
	int ret = 0;
	void *dl;

	if (!path || !*path)
		return;
	dl = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!dl) {
		status = "dlopen_failed";
	} else {
		int (*init)(void);

		*(void **)&init = dlsym(dl, "InitializeInjection");
		if (!init)
			status = "no_symbol";
		else
			ret = init();
	}
	bprintf(line, sizeof(line), &pos, "{\"type\":\"injection\",\"path\":");
	bjson_str(line, sizeof(line), &pos, path);
	bprintf(line, sizeof(line), &pos,
		",\"status\":\"%s\",\"ret\":%d,\"tid\":%u,\"start\":%" PRIu64 ",\"end\":%" PRIu64 "}",
		status, ret, gpsim_gettid(), start, gpsim_now());
	gpsim_log_line(line);
}

/* ---- driver API ----------------------------------------------------- */

#define NEED_INIT()                                   \
	do {                                          \
		if (!atomic_load(&S.inited))          \
			DRV_RETURN(CUDA_ERROR_NOT_INITIALIZED); \
	} while (0)
#define NEED_CTX()                                    \
	do {                                          \
		NEED_INIT();                          \
		if (!tls_ctx || !S.ctx_alive)         \
			DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT); \
	} while (0)

#pragma GCC visibility push(default)

CUresult CUDAAPI cuInit(unsigned int flags)
{
	cuInit_params p = { flags };
	DRV_ENTER(cuInit, &p, NULL);

	if (flags)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	atomic_store(&S.inited, 1);
	/* Before the first cuInit returns; pthread_once makes it once per process. */
	pthread_once(&S.inject_once, inject);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDriverGetVersion(int *v)
{
	DRV_ENTER(cuDriverGetVersion, NULL, NULL);
	if (!v)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*v = GPSIM_DRIVER_VERSION;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
	DRV_ENTER(cuDeviceGetCount, NULL, NULL);
	NEED_INIT();
	if (!count)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*count = 1;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGet(CUdevice *dev, int ordinal)
{
	DRV_ENTER(cuDeviceGet, NULL, NULL);
	NEED_INIT();
	if (!dev)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (ordinal != 0)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	*dev = 0;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
	DRV_ENTER(cuDeviceGetName, NULL, NULL);
	NEED_INIT();
	if (!name || len <= 0)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (dev != 0)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	snprintf(name, (size_t)len, "%s", GPSIM_DEVICE_NAME);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	DRV_ENTER(cuDeviceTotalMem_v2, NULL, NULL);
	NEED_INIT();
	if (!bytes)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (dev != 0)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	*bytes = (size_t)GPSIM_GLOBAL_MEM;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	DRV_ENTER(cuDeviceGetAttribute, NULL, NULL);
	NEED_INIT();
	if (!pi)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (dev != 0)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	switch (attrib) {
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *pi = GPSIM_CC_MAJOR; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *pi = GPSIM_CC_MINOR; break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *pi = GPSIM_SM_COUNT; break;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
	case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *pi = 32; break;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *pi = 1024; break;
	case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *pi = 1500000; break;
	case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *pi = 5000000; break;
	case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *pi = 256; break;
	case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: *pi = 1; break;
	case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: *pi = 2; break;
	case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *pi = 1; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *pi = 49152; break;
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *pi = 65536; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *pi = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *pi = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *pi = 64; break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *pi = 2147483647; break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *pi = 65535; break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *pi = 65535; break;
	case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: *pi = 1; break;
	default: *pi = 0;
	}
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	DRV_ENTER(cuDevicePrimaryCtxRetain, NULL, NULL);
	NEED_INIT();
	if (!pctx)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (dev != 0)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	pthread_mutex_lock(&S.lock);
	S.ctx_alive = 1;
	pthread_mutex_unlock(&S.lock);
	*pctx = &S.ctx;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	DRV_ENTER(cuDevicePrimaryCtxRelease_v2, NULL, NULL);
	NEED_INIT();
	DRV_RETURN(dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE);
}

CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
	const struct gpsim_hooks *h;
	DRV_ENTER(cuDevicePrimaryCtxReset_v2, NULL, NULL);

	NEED_INIT();
	if (dev != 0)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	/* Outstanding work finishes first; CUPTI flushes the context's records. */
	wait_until(device_ready());
	h = hooks();
	if (h && h->ctx_reset)
		h->ctx_reset();
	pthread_mutex_lock(&S.lock);
	S.ctx_alive = 0;
	pthread_mutex_unlock(&S.lock);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
	DRV_ENTER(cuCtxGetCurrent, NULL, NULL);
	NEED_INIT();
	if (!pctx)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*pctx = tls_ctx;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
	DRV_ENTER(cuCtxSetCurrent, NULL, NULL);
	NEED_INIT();
	if (ctx && ctx != &S.ctx)
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	tls_ctx = ctx;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *dev)
{
	DRV_ENTER(cuCtxGetDevice, NULL, NULL);
	NEED_CTX();
	if (!dev)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*dev = 0;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxSynchronize(void)
{
	struct sync_stamp start;
	uint64_t t;
	DRV_ENTER(cuCtxSynchronize, NULL, NULL);

	NEED_CTX();
	start = sync_now();
	t = device_ready();
	wait_until(t);
	report_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, UINT32_MAX,
		    UINT32_MAX, start);
	DRV_RETURN(CUDA_SUCCESS);
}

static const struct {
	CUresult r;
	const char *name, *str;
} errtab[] = {
	{ CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
	{ CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
	{ CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
	{ CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
	{ CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid" },
	{ CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
	{ CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
	{ CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
	{ CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready" },
	{ CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported" },
	{ CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
	  "operation not permitted when stream is capturing" },
	{ CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE", "the operation cannot be performed in the present state" },
	{ CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **str)
{
	size_t i;
	DRV_ENTER(cuGetErrorString, NULL, NULL);

	if (!str)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	for (i = 0; i < sizeof(errtab) / sizeof(errtab[0]); i++) {
		if (errtab[i].r == error) {
			*str = errtab[i].str;
			DRV_RETURN(CUDA_SUCCESS);
		}
	}
	*str = NULL;
	DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **str)
{
	size_t i;
	DRV_ENTER(cuGetErrorName, NULL, NULL);

	if (!str)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	for (i = 0; i < sizeof(errtab) / sizeof(errtab[0]); i++) {
		if (errtab[i].r == error) {
			*str = errtab[i].name;
			DRV_RETURN(CUDA_SUCCESS);
		}
	}
	*str = NULL;
	DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
}

/* ---- memory --------------------------------------------------------- */

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	cuMemAlloc_v2_params p = { dptr, bytesize };
	void *mem;
	DRV_ENTER(cuMemAlloc_v2, &p, NULL);

	NEED_CTX();
	if (!dptr || !bytesize)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (mem_add(bytesize, 0, &mem))
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	*dptr = (CUdeviceptr)(uintptr_t)mem;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
	cuMemFree_v2_params p = { dptr };
	DRV_ENTER(cuMemFree_v2, &p, NULL);

	NEED_CTX();
	if (!dptr)
		DRV_RETURN(CUDA_SUCCESS);
	DRV_RETURN(mem_del((void *)(uintptr_t)dptr, 0) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int flags)
{
	cuMemHostAlloc_params p = { pp, bytesize, flags };
	DRV_ENTER(cuMemHostAlloc, &p, NULL);

	NEED_CTX();
	if (!pp)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (mem_add(bytesize, 1, pp))
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize)
{
	cuMemAllocHost_v2_params p = { pp, bytesize };
	DRV_ENTER(cuMemAllocHost_v2, &p, NULL);

	NEED_CTX();
	if (!pp)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (mem_add(bytesize, 1, pp))
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemFreeHost(void *ptr)
{
	cuMemFreeHost_params p = { ptr };
	DRV_ENTER(cuMemFreeHost, &p, NULL);

	NEED_CTX();
	if (!ptr)
		DRV_RETURN(CUDA_SUCCESS);
	DRV_RETURN(mem_del(ptr, 1) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS);
}

/*
 * One copy. copy_kind < 0 infers the direction from the pointers (cuMemcpy*).
 * Synchronous copies and copies from/to pageable host memory block the
 * caller until the copy's end, as the real driver's staging does.
 */
static CUresult do_copy(void *dst, const void *src, size_t bytes, int copy_kind,
			CUstream hstream, int async)
{
	struct CUstream_st *s = stream_of(hstream);
	struct gpsim_op op = { .kind = GPSIM_OP_MEMCPY, .bytes = bytes, .async = async };
	int src_kind = mem_kind(src), dst_kind = mem_kind(dst);
	int dev_src = src_kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	int dev_dst = dst_kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	int pinned;

	if (copy_kind < 0)
		copy_kind = dev_src ? (dev_dst ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOD :
					CUPTI_ACTIVITY_MEMCPY_KIND_DTOH) :
			(dev_dst ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOD : CUPTI_ACTIVITY_MEMCPY_KIND_HTOH);
	pinned = copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ?
			 src_kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED :
			 dst_kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
	if (s->capture) {
		struct gnode n = { .kind = GPSIM_OP_MEMCPY, .dst = dst, .src = src,
				   .bytes = bytes, .copy_kind = copy_kind };
		struct CUgraph_st *g = s->capture;
		struct gnode *nn;

		if (!async)
			return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
		if (g->n == g->cap) {
			nn = realloc(g->nodes, (g->cap * 2 + 4) * sizeof(*nn));
			if (!nn)
				return CUDA_ERROR_OUT_OF_MEMORY;
			g->nodes = nn;
			g->cap = g->cap * 2 + 4;
		}
		g->nodes[g->n++] = n;
		return CUDA_SUCCESS;
	}
	if (bytes && dst != src)
		memmove(dst, src, bytes);
	op.copy_kind = copy_kind;
	op.src_kind = src_kind;
	op.dst_kind = dst_kind;
	issue(s, &op, memcpy_ns(copy_kind, pinned, bytes));
	if (!async || (!pinned && copy_kind != CUPTI_ACTIVITY_MEMCPY_KIND_DTOD))
		wait_until(op.end);
	return CUDA_SUCCESS;
}

#define PTR(d) ((void *)(uintptr_t)(d))

CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
	cuMemcpyHtoD_v2_params p = { dst, src, n };
	DRV_ENTER(cuMemcpyHtoD_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(do_copy(PTR(dst), src, n, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, NULL, 0));
}

CUresult CUDAAPI cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
	cuMemcpyDtoH_v2_params p = { dst, src, n };
	DRV_ENTER(cuMemcpyDtoH_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(do_copy(dst, PTR(src), n, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, NULL, 0));
}

CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
	cuMemcpyDtoD_v2_params p = { dst, src, n };
	DRV_ENTER(cuMemcpyDtoD_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(do_copy(PTR(dst), PTR(src), n, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, NULL, 0));
}

CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
	cuMemcpy_params p = { dst, src, n };
	DRV_ENTER(cuMemcpy, &p, NULL);
	NEED_CTX();
	DRV_RETURN(do_copy(PTR(dst), PTR(src), n, -1, NULL, 0));
}

CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
	cuMemcpyHtoDAsync_v2_params p = { dst, src, n, s };
	DRV_ENTER(cuMemcpyHtoDAsync_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(do_copy(PTR(dst), src, n, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, s, 1));
}

CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
	cuMemcpyDtoHAsync_v2_params p = { dst, src, n, s };
	DRV_ENTER(cuMemcpyDtoHAsync_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(do_copy(dst, PTR(src), n, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, s, 1));
}

CUresult CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
	cuMemcpyDtoDAsync_v2_params p = { dst, src, n, s };
	DRV_ENTER(cuMemcpyDtoDAsync_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(do_copy(PTR(dst), PTR(src), n, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, s, 1));
}

CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
	cuMemcpyAsync_params p = { dst, src, n, s };
	DRV_ENTER(cuMemcpyAsync, &p, NULL);
	NEED_CTX();
	DRV_RETURN(do_copy(PTR(dst), PTR(src), n, -1, s, 1));
}

static CUresult do_memset(void *dst, uint32_t value, unsigned int elem, size_t count,
			  CUstream hstream, int async)
{
	struct CUstream_st *s = stream_of(hstream);
	struct gpsim_op op = { .kind = GPSIM_OP_MEMSET, .bytes = count * elem, .value = value,
			       .async = async };
	size_t i;

	if (s->capture) {
		struct CUgraph_st *g = s->capture;
		struct gnode *nn;

		if (!async)
			return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
		if (g->n == g->cap) {
			nn = realloc(g->nodes, (g->cap * 2 + 4) * sizeof(*nn));
			if (!nn)
				return CUDA_ERROR_OUT_OF_MEMORY;
			g->nodes = nn;
			g->cap = g->cap * 2 + 4;
		}
		g->nodes[g->n++] = (struct gnode){ .kind = GPSIM_OP_MEMSET, .dst = dst,
						   .bytes = count, .value = value, .elem = elem };
		return CUDA_SUCCESS;
	}
	if (elem == 1)
		memset(dst, (int)(value & 0xff), count);
	else
		for (i = 0; i < count; i++)
			memcpy((char *)dst + i * 4, &value, 4);
	issue(s, &op, memset_ns(op.bytes));
	if (!async)
		wait_until(op.end);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dst, unsigned char uc, size_t n)
{
	cuMemsetD8_v2_params p = { dst, uc, n };
	DRV_ENTER(cuMemsetD8_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(do_memset(PTR(dst), uc, 1, n, NULL, 0));
}

CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dst, unsigned char uc, size_t n, CUstream s)
{
	cuMemsetD8Async_params p = { dst, uc, n, s };
	DRV_ENTER(cuMemsetD8Async, &p, NULL);
	NEED_CTX();
	DRV_RETURN(do_memset(PTR(dst), uc, 1, n, s, 1));
}

CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dst, unsigned int ui, size_t n)
{
	cuMemsetD32_v2_params p = { dst, ui, n };
	DRV_ENTER(cuMemsetD32_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(do_memset(PTR(dst), ui, 4, n, NULL, 0));
}

CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dst, unsigned int ui, size_t n, CUstream s)
{
	cuMemsetD32Async_params p = { dst, ui, n, s };
	DRV_ENTER(cuMemsetD32Async, &p, NULL);
	NEED_CTX();
	DRV_RETURN(do_memset(PTR(dst), ui, 4, n, s, 1));
}

/* ---- streams and events --------------------------------------------- */

static CUresult stream_new(CUstream *out, unsigned int flags, int priority)
{
	struct CUstream_st *s;

	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	s = calloc(1, sizeof(*s));
	if (!s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	s->flags = flags;
	s->priority = priority;
	pthread_mutex_lock(&S.lock);
	s->id = S.next_stream_id++;
	s->next = S.streams;
	S.streams = s;
	pthread_mutex_unlock(&S.lock);
	*out = s;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamCreate(CUstream *ph, unsigned int flags)
{
	cuStreamCreate_params p = { ph, flags };
	DRV_ENTER(cuStreamCreate, &p, NULL);
	NEED_CTX();
	DRV_RETURN(stream_new(ph, flags, 0));
}

CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *ph, unsigned int flags, int priority)
{
	cuStreamCreateWithPriority_params p = { ph, flags, priority };
	DRV_ENTER(cuStreamCreateWithPriority, &p, NULL);
	NEED_CTX();
	DRV_RETURN(stream_new(ph, flags, priority));
}

CUresult CUDAAPI cuStreamDestroy_v2(CUstream h)
{
	struct CUstream_st **pp, *s;
	CUresult r = CUDA_ERROR_INVALID_HANDLE;
	cuStreamDestroy_v2_params p = { h };
	DRV_ENTER(cuStreamDestroy_v2, &p, NULL);

	NEED_CTX();
	pthread_mutex_lock(&S.lock);
	for (pp = &S.streams; (s = *pp); pp = &s->next) {
		if (s == h) {
			/* Its work still completes after the handle is gone. */
			*pp = s->next;
			S.orphan_ready = max_u64(S.orphan_ready, s->ready);
			free(s->qend);
			free(s);
			r = CUDA_SUCCESS;
			break;
		}
	}
	pthread_mutex_unlock(&S.lock);
	DRV_RETURN(r);
}

CUresult CUDAAPI cuStreamSynchronize(CUstream h)
{
	cuStreamSynchronize_params p = { h };
	struct CUstream_st *s;
	struct sync_stamp start;
	uint64_t t;
	DRV_ENTER(cuStreamSynchronize, &p, NULL);

	NEED_CTX();
	s = stream_of(h);
	start = sync_now();
	pthread_mutex_lock(&S.lock);
	t = s->ready;
	pthread_mutex_unlock(&S.lock);
	wait_until(t);
	report_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, s->id, UINT32_MAX,
		    start);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamQuery(CUstream h)
{
	struct CUstream_st *s;
	uint64_t t;
	DRV_ENTER(cuStreamQuery, NULL, NULL);

	NEED_CTX();
	s = stream_of(h);
	pthread_mutex_lock(&S.lock);
	t = s->ready;
	pthread_mutex_unlock(&S.lock);
	DRV_RETURN(gpsim_now() >= t ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY);
}

CUresult CUDAAPI cuEventCreate(CUevent *ph, unsigned int flags)
{
	struct CUevent_st *e;
	cuEventCreate_params p = { ph, flags };
	DRV_ENTER(cuEventCreate, &p, NULL);

	NEED_CTX();
	if (!ph)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	e = calloc(1, sizeof(*e));
	if (!e)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	e->flags = flags;
	pthread_mutex_lock(&S.lock);
	e->id = S.next_event_id++;
	pthread_mutex_unlock(&S.lock);
	*ph = e;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuEventDestroy_v2(CUevent e)
{
	DRV_ENTER(cuEventDestroy_v2, NULL, NULL);
	NEED_CTX();
	if (!e)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	free(e);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuEventRecord(CUevent e, CUstream h)
{
	struct CUstream_st *s;
	cuEventRecord_params p = { e, h };
	DRV_ENTER(cuEventRecord, &p, NULL);

	NEED_CTX();
	if (!e)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	s = stream_of(h);
	if (s->capture)
		DRV_RETURN(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	pthread_mutex_lock(&S.lock);
	/* The event completes when all work issued to the stream so far has. */
	e->ts = max_u64(gpsim_now(), stream_dep(s));
	e->recorded = 1;
	pthread_mutex_unlock(&S.lock);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuEventQuery(CUevent e)
{
	DRV_ENTER(cuEventQuery, NULL, NULL);
	NEED_CTX();
	if (!e)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	DRV_RETURN(!e->recorded || gpsim_now() >= e->ts ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY);
}

CUresult CUDAAPI cuEventSynchronize(CUevent e)
{
	struct sync_stamp start;
	cuEventSynchronize_params p = { e };
	DRV_ENTER(cuEventSynchronize, &p, NULL);

	NEED_CTX();
	if (!e)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	start = sync_now();
	if (e->recorded)
		wait_until(e->ts);
	report_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, UINT32_MAX, e->id,
		    start);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b)
{
	uint64_t now;
	DRV_ENTER(cuEventElapsedTime_v2, NULL, NULL);

	NEED_CTX();
	if (!ms || !a || !b)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!a->recorded || !b->recorded)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	now = gpsim_now();
	if (now < a->ts || now < b->ts)
		DRV_RETURN(CUDA_ERROR_NOT_READY);
	*ms = (float)((double)((int64_t)(b->ts - a->ts)) / 1e6);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream h, CUevent e, unsigned int flags)
{
	struct CUstream_st *s;
	struct sync_stamp now;
	cuStreamWaitEvent_params p = { h, e, flags };
	DRV_ENTER(cuStreamWaitEvent, &p, NULL);

	NEED_CTX();
	if (!e)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	s = stream_of(h);
	now = sync_now();
	pthread_mutex_lock(&S.lock);
	if (e->recorded)
		s->ready = max_u64(s->ready, e->ts);
	pthread_mutex_unlock(&S.lock);
	report_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, s->id, e->id, now);
	DRV_RETURN(CUDA_SUCCESS);
}

/* ---- modules and launches ------------------------------------------- */

CUresult CUDAAPI cuModuleLoadData(CUmodule *mod, const void *image)
{
	const char *p;
	struct CUmod_st *m;
	DRV_ENTER(cuModuleLoadData, NULL, NULL);

	NEED_CTX();
	if (!mod || !image)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	m = calloc(1, sizeof(*m));
	if (!m)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	/* Only PTX text is understood: every ".entry <name>" becomes a function. */
	for (p = strstr(image, ".entry"); p; p = strstr(p, ".entry")) {
		const char *b, *e;
		char name[512];
		struct CUfunc_st **nf;

		p += 6;
		if (*p != ' ' && *p != '\t' && *p != '\n')
			continue;
		for (b = p; *b == ' ' || *b == '\t' || *b == '\n'; b++)
			;
		for (e = b; *e && *e != '(' && *e != ' ' && *e != '\t' && *e != '\n' && *e != '{';
		     e++)
			;
		if (e == b || (size_t)(e - b) >= sizeof(name))
			continue;
		memcpy(name, b, (size_t)(e - b));
		name[e - b] = '\0';
		nf = realloc(m->funcs, (m->n + 1) * sizeof(*nf));
		if (!nf)
			break;
		m->funcs = nf;
		m->funcs[m->n] = gpsim_func_register(name);
		if (m->funcs[m->n])
			m->n++;
	}
	if (!m->n) {
		free(m->funcs);
		free(m);
		DRV_RETURN(CUDA_ERROR_INVALID_IMAGE);
	}
	*mod = m;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	size_t i;
	DRV_ENTER(cuModuleGetFunction, NULL, NULL);

	NEED_CTX();
	if (!f || !m || !name)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	for (i = 0; i < m->n; i++) {
		if (!strcmp(m->funcs[i]->name, name)) {
			*f = m->funcs[i];
			DRV_RETURN(CUDA_SUCCESS);
		}
	}
	DRV_RETURN(CUDA_ERROR_NOT_FOUND);
}

CUresult CUDAAPI cuModuleUnload(CUmodule m)
{
	DRV_ENTER(cuModuleUnload, NULL, NULL);
	NEED_CTX();
	if (!m)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	free(m->funcs);
	free(m);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction f)
{
	DRV_ENTER(cuFuncGetName, NULL, NULL);
	if (!name || !f)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*name = f->name;
	DRV_RETURN(CUDA_SUCCESS);
}

static struct gnode *graph_add(struct CUgraph_st *g)
{
	struct gnode *nn;

	if (g->n == g->cap) {
		nn = realloc(g->nodes, (g->cap * 2 + 4) * sizeof(*nn));
		if (!nn)
			return NULL;
		g->nodes = nn;
		g->cap = g->cap * 2 + 4;
	}
	memset(&g->nodes[g->n], 0, sizeof(g->nodes[0]));
	return &g->nodes[g->n++];
}

static CUresult do_launch(CUfunction f, const unsigned int grid[3], const unsigned int block[3],
			  unsigned int shmem, CUstream hstream, int launch_type,
			  uint32_t graph_id, uint64_t node_id)
{
	struct CUstream_st *s = stream_of(hstream);
	struct gpsim_op op = { .kind = GPSIM_OP_KERNEL, .launch_type = launch_type,
			       .graph_id = graph_id, .graph_node_id = node_id };
	int i;

	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	for (i = 0; i < 3; i++)
		if (!grid[i] || !block[i])
			return CUDA_ERROR_INVALID_VALUE;
	if ((uint64_t)block[0] * block[1] * block[2] > 1024)
		return CUDA_ERROR_INVALID_VALUE;
	if (s->capture) {
		struct gnode *n = graph_add(s->capture);

		if (!n)
			return CUDA_ERROR_OUT_OF_MEMORY;
		n->kind = GPSIM_OP_KERNEL;
		n->f = f;
		memcpy(n->grid, grid, sizeof(n->grid));
		memcpy(n->block, block, sizeof(n->block));
		n->shmem = shmem;
		n->launch_type = launch_type;
		return CUDA_SUCCESS;
	}
	op.name = f->name;
	for (i = 0; i < 3; i++) {
		op.grid[i] = (int32_t)grid[i];
		op.block[i] = (int32_t)block[i];
	}
	op.dyn_shmem = (int32_t)shmem;
	issue(s, &op, kernel_ns(f->name, grid, block));
	return CUDA_SUCCESS;
}

static CUresult launch_entry(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
			     unsigned int bx, unsigned int by, unsigned int bz,
			     unsigned int shmem, CUstream h, int type)
{
	const unsigned int grid[3] = { gx, gy, gz }, block[3] = { bx, by, bz };

	return do_launch(f, grid, block, shmem, h, type, 0, 0);
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
				unsigned int bx, unsigned int by, unsigned int bz,
				unsigned int shmem, CUstream h, void **params, void **extra)
{
	cuLaunchKernel_params p = { f, gx, gy, gz, bx, by, bz, shmem, h, params, extra };
	DRV_ENTER(cuLaunchKernel, &p, f ? f->name : NULL);
	NEED_CTX();
	DRV_RETURN(launch_entry(f, gx, gy, gz, bx, by, bz, shmem, h,
				CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR));
}

CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy,
				     unsigned int gz, unsigned int bx, unsigned int by,
				     unsigned int bz, unsigned int shmem, CUstream h,
				     void **params, void **extra)
{
	cuLaunchKernel_ptsz_params p = { f, gx, gy, gz, bx, by, bz, shmem, h, params, extra };
	DRV_ENTER(cuLaunchKernel_ptsz, &p, f ? f->name : NULL);
	NEED_CTX();
	DRV_RETURN(launch_entry(f, gx, gy, gz, bx, by, bz, shmem,
				h ? h : gpsim_stream_per_thread(),
				CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR));
}

CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy,
					   unsigned int gz, unsigned int bx, unsigned int by,
					   unsigned int bz, unsigned int shmem, CUstream h,
					   void **params)
{
	cuLaunchCooperativeKernel_params p = { f, gx, gy, gz, bx, by, bz, shmem, h, params };
	DRV_ENTER(cuLaunchCooperativeKernel, &p, f ? f->name : NULL);
	NEED_CTX();
	DRV_RETURN(launch_entry(f, gx, gy, gz, bx, by, bz, shmem, h,
				CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE));
}

/* ---- stream capture and graphs ---------------------------------------- */

CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream h, CUstreamCaptureMode mode)
{
	struct CUstream_st *s;
	struct CUgraph_st *g;
	DRV_ENTER(cuStreamBeginCapture_v2, NULL, NULL);

	NEED_CTX();
	s = stream_of(h);
	if (s->legacy)
		DRV_RETURN(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	if (s->capture)
		DRV_RETURN(CUDA_ERROR_ILLEGAL_STATE);
	g = calloc(1, sizeof(*g));
	if (!g)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	pthread_mutex_lock(&S.lock);
	g->id = S.next_graph_id++;
	pthread_mutex_unlock(&S.lock);
	s->capture = g;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamEndCapture(CUstream h, CUgraph *out)
{
	struct CUstream_st *s;
	DRV_ENTER(cuStreamEndCapture, NULL, NULL);

	NEED_CTX();
	s = stream_of(h);
	if (!out)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!s->capture)
		DRV_RETURN(CUDA_ERROR_ILLEGAL_STATE);
	*out = s->capture;
	s->capture = NULL;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamIsCapturing(CUstream h, CUstreamCaptureStatus *status)
{
	DRV_ENTER(cuStreamIsCapturing, NULL, NULL);
	NEED_CTX();
	if (!status)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*status = stream_of(h)->capture ? CU_STREAM_CAPTURE_STATUS_ACTIVE :
					  CU_STREAM_CAPTURE_STATUS_NONE;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *out, CUgraph g, unsigned long long fl)
{
	struct CUgraphExec_st *x;
	DRV_ENTER(cuGraphInstantiateWithFlags, NULL, NULL);

	NEED_CTX();
	if (!out || !g)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	x = calloc(1, sizeof(*x));
	if (!x)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	x->nodes = calloc(g->n ? g->n : 1, sizeof(*x->nodes));
	if (!x->nodes) {
		free(x);
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	}
	if (g->n)
		memcpy(x->nodes, g->nodes, g->n * sizeof(*x->nodes));
	x->n = g->n;
	x->graph_id = g->id;
	pthread_mutex_lock(&S.lock);
	x->id = S.next_graph_id++;
	pthread_mutex_unlock(&S.lock);
	*out = x;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphLaunch(CUgraphExec x, CUstream h)
{
	struct CUstream_st *s;
	size_t i;
	cuGraphLaunch_params p = { x, h };
	DRV_ENTER(cuGraphLaunch, &p, NULL);

	NEED_CTX();
	if (!x)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	s = stream_of(h);
	if (s->capture)
		DRV_RETURN(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	/* Nodes captured from one stream form a chain; run them in order. */
	for (i = 0; i < x->n; i++) {
		struct gnode *n = &x->nodes[i];
		uint64_t node_id = ((uint64_t)x->graph_id << 32) | (uint64_t)(i + 1);
		struct gpsim_op op = { .graph_id = x->graph_id, .graph_node_id = node_id,
				       .async = 1 };

		if (n->kind == GPSIM_OP_KERNEL) {
			do_launch(n->f, n->grid, n->block, n->shmem, s, n->launch_type,
				  x->graph_id, node_id);
			continue;
		}
		if (n->kind == GPSIM_OP_MEMCPY) {
			int pinned;

			if (n->bytes && n->dst != n->src)
				memmove(n->dst, n->src, n->bytes);
			op.kind = GPSIM_OP_MEMCPY;
			op.bytes = n->bytes;
			op.copy_kind = n->copy_kind;
			op.src_kind = mem_kind(n->src);
			op.dst_kind = mem_kind(n->dst);
			pinned = op.src_kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED ||
				 op.dst_kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
			issue(s, &op, memcpy_ns(n->copy_kind, pinned, n->bytes));
		} else {
			size_t k;

			if (n->elem == 1)
				memset(n->dst, (int)(n->value & 0xff), n->bytes);
			else
				for (k = 0; k < n->bytes; k++)
					memcpy((char *)n->dst + k * 4, &n->value, 4);
			op.kind = GPSIM_OP_MEMSET;
			op.bytes = n->bytes * n->elem;
			op.value = n->value;
			issue(s, &op, memset_ns(op.bytes));
		}
	}
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphGetNodes(CUgraph g, CUgraphNode *nodes, size_t *num)
{
	size_t i;
	DRV_ENTER(cuGraphGetNodes, NULL, NULL);

	NEED_CTX();
	if (!g || !num)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* Node handles point into the graph; captured graphs are not edited afterwards. */
	if (nodes)
		for (i = 0; i < *num && i < g->n; i++)
			nodes[i] = (CUgraphNode)(void *)&g->nodes[i];
	if (!nodes || *num > g->n)
		*num = g->n;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphDestroy(CUgraph g)
{
	DRV_ENTER(cuGraphDestroy, NULL, NULL);
	NEED_CTX();
	if (!g)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	free(g->nodes);
	free(g);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec x)
{
	DRV_ENTER(cuGraphExecDestroy, NULL, NULL);
	NEED_CTX();
	if (!x)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	free(x->nodes);
	free(x);
	DRV_RETURN(CUDA_SUCCESS);
}

#pragma GCC visibility pop
