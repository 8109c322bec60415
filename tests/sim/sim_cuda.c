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
#include <cudaProfiler.h>
#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <generated_cuda_meta.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sim_deep.h"
#include "sim_drv.h"
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

struct CUfunc_st {
	const char *name; /* mangled; owned for the process lifetime */
	struct CUfunc_st *next;
};

/*
 * An array (cuArrayCreate, cuArray3DCreate): its elements row by row in
 * memory of its own (CUPTI's memory kind ARRAY), each row Width elements,
 * each slice (layer, cube face) Height rows. Kernels compute nothing, so
 * the layout the GPU would use (tiled, opaque) does not matter here.
 */
struct CUarray_st {
	char *mem;
	CUDA_ARRAY3D_DESCRIPTOR d;
	size_t pitch;  /* bytes of a row: Width * element size */
	size_t height; /* rows of a slice: Height, or 1 for a 1D array */
	size_t rows;   /* rows in all: height * max(Depth, 1) */
	struct CUarray_st *next;
};

struct CUstream_st {
	uint32_t id;
	unsigned int flags;
	int priority;
	CUcontext ctx; /* the one it was created in; NULL: the current one (legacy stream) */
	int legacy;
	uint64_t ready; /* end of the last work issued to it */
	uint64_t *qend; /* ends of its last S.queue_depth pieces of work (a ring); NULL: none yet */
	unsigned qpos;
	struct CUgraph_st *capture; /* the graph its work is captured into (cap->graph) */
	struct capture *cap;
	CUgraphNode *cdeps;	    /* capture: what the next node captured depends on */
	CUgraphEdgeData *cedges;    /* zeroed, beside cdeps (cuStreamGetCaptureInfo) */
	size_t ncdeps, cdcap;
	int host_busy; /* host functions (or the rest of a graph) enqueued and not done */
	/* cuStreamSetAttribute: kept and given back, no effect on the timeline */
	CUaccessPolicyWindow apw;
	CUsynchronizationPolicy sync_policy; /* 0: never set (CU_SYNC_POLICY_AUTO) */
	CUlaunchMemSyncDomainMap domain_map;
	CUlaunchMemSyncDomain domain;
	struct CUstream_st *next;
};

struct CUevent_st {
	uint32_t id;
	unsigned int flags;
	int recorded;
	uint64_t ts;
	/* recorded in a capture: the nodes a stream waiting for it depends on */
	uint64_t cap_id;
	CUgraphNode *cdeps;
	size_t ncdeps;
	/*
	 * An interprocess event (CU_EVENT_INTERPROCESS): its completion time,
	 * 0 until recorded, in a page every process that opened it maps
	 * (sim_ipc.c); shared_fd: the exporter's memfd of it, -1 in an
	 * importer.
	 */
	_Atomic uint64_t *shared;
	int shared_fd;
};

/* An event recorded to complete at ts: the interprocess page too. S.lock held. */
static void ev_set(struct CUevent_st *e, uint64_t ts)
{
	e->ts = ts;
	e->recorded = 1;
	if (e->shared)
		atomic_store(e->shared, ts);
}

/* Whether e was recorded, and when it completes (any process's record of an interprocess event). */
static int ev_get(const struct CUevent_st *e, uint64_t *ts)
{
	uint64_t t;

	if (e->shared) {
		t = atomic_load(e->shared);
		*ts = t;
		return t != 0;
	}
	*ts = e->ts;
	return e->recorded;
}

/*
 * A graph node (CUgraphNode). A graph holds its nodes in creation order;
 * dependencies are indices into that array. An executable graph holds
 * clones with ids of their own, as CUPTI reports them (graphNodeId).
 */
struct CUgraphNode_st {
	struct CUgraph_st *graph; /* NULL for a node of an executable graph */
	uint64_t id;		  /* cuptiGetGraphNodeId */
	uint64_t origin_id;	  /* executable graphs: the id of the node it was cloned from */
	CUgraphNodeType type;
	int dead;		  /* cuGraphDestroyNode */
	size_t *deps, ndeps;
	/* kernel */
	CUfunction f;
	unsigned int grid[3], block[3], shmem;
	int launch_type;
	/* cuGraphKernelNodeSetAttribute: kept by id, given back and copied; no effect on the timeline */
	CUkernelNodeAttrValue kattr[CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING + 1];
	/* memcpy: height rows of width bytes (copy3d: as the program gave them); memset: height rows of width elements */
	CUDA_MEMCPY3D copy3d;
	char *dst;
	const char *src;
	size_t width, height, dpitch, spitch;
	int copy_kind;
	uint32_t value;
	unsigned int elem;
	/* host */
	CUhostFn fn;
	void *user;
	/* event record / wait */
	CUevent event;
	/* child graph: the node's own copy of the graph it embeds */
	struct CUgraph_st *child;
	/* a node of a flattened graph (instantiation): the node it stands for */
	struct CUgraphNode_st *stands_for;
	/* memory allocation / free */
	struct galloc *ga;
	/*
	 * conditional: its handle, type and body graphs (owned by the node
	 * when own_bodies, else by the node it was copied from); a node of an
	 * executable graph has each body instantiated in subs instead
	 */
	CUgraphConditionalHandle handle;
	CUgraphConditionalNodeType cond_type;
	unsigned int nbodies;
	struct CUgraph_st **bodies;
	int own_bodies;
	struct CUgraphExec_st **subs;
	/* an executable graph's node: cuGraphNodeSetEnabled(0) makes it an empty one */
	int disabled;
	/* per launch: when it ends; the lane (stream) it runs on */
	uint64_t end;
	size_t lane;
};

struct CUgraph_st {
	uint32_t id;
	uint32_t clone_of; /* cuGraphClone: the id of the graph it was cloned from, else 0 */
	size_t n, cap;
	struct CUgraphNode_st **nodes;
	int has_mem; /* it holds allocation or free nodes */
};

struct CUgraphExec_st {
	uint32_t id;
	uint32_t graph_id; /* graphId in CUPTI's records: the graph it was instantiated from */
	size_t n;
	struct CUgraphNode_st **nodes;
	size_t *order;	   /* a topological order, host nodes as late as they can be */
	size_t nlanes;
	uint32_t *lane_stream; /* stream ids of lanes 1..; lane 0 is the launch stream */
	uint64_t last_end;     /* a launch waits for the previous launch of the graph */
	int busy;	       /* a launch's rest is with the host worker */
	int auto_free;	       /* CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH */
	cuuint64_t flags;      /* what it was instantiated with (cuGraphExecGetFlags) */
	uint32_t mem_graph;    /* the id of its graph when that holds memory nodes, else 0 */
	struct CUgraphExec_st *top; /* a conditional body's instance: the executable graph it is in */
};

/*
 * A graph allocation (cuGraphAddMemAllocNode). "The allocation's address
 * remains fixed across instantiations and launches": its memory is taken
 * when the node is made and kept for the process. A launch reaching the
 * node makes it live; a free node, cuMemFreeAsync/cuMemFree or the next
 * launch of an AUTO_FREE_ON_LAUNCH graph ends it.
 */
struct galloc {
	uintptr_t base;
	size_t size;
	int live;
	const struct CUgraph_st *free_graph; /* the graph with a free node for it, if any */
	struct galloc *next;
};

struct host_job;
struct capture;

struct alloc {
	uintptr_t base;
	size_t size;
	int kind; /* CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, _PINNED or _ARRAY (an array's elements) */
	unsigned int host_flags; /* cuMemHostAlloc's CU_MEMHOSTALLOC_* */
	int registered; /* cuMemHostRegister: the program's memory, not ours to free */
	int mapped;	/* device memory: pages of its own (munmap), shareable (IPC) */
	int shared_fd;	/* mapped and exported (cuIpcGetMemHandle): the memfd now there, else -1 */
	struct alloc *next;
};

static size_t page_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n ? n : 1) + pg - 1 - ((n ? n : 1) + pg - 1) % pg;
}

struct kernel_rule {
	char *name;
	uint64_t ns;
};

/* Graphs with memory nodes that may have an executable graph at once. */
#define MEM_EXEC_MAX 64

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
	int nested_corr_outer; /* GPUPERF_SIM_NESTED_CORR=outer */
	uint64_t next_node_id;
	struct galloc *gallocs;
	struct CUarray_st *arrays;
	uint64_t graph_used_high, graph_reserved_high; /* cuDeviceGetGraphMemAttribute's watermarks */
	uint32_t mem_exec_graphs[MEM_EXEC_MAX]; /* graphs with memory nodes that have an executable graph */
	/* host functions: one worker thread runs them, in start order */
	pthread_cond_t host_cond; /* a host job finished */
	pthread_cond_t job_cond;  /* a host job was enqueued, or stop */
	struct host_job *jobs;
	unsigned host_pending;	  /* enqueued and not finished */
	int host_running, host_stop;
} S = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.host_cond = PTHREAD_COND_INITIALIZER,
	.job_cond = PTHREAD_COND_INITIALIZER,
	.next_node_id = 1,
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

static struct CUgraphNode_st *capture_node(struct CUstream_st *s, CUgraphNodeType type);
static int capture_forbids_unsafe(void);
static int capture_refuses(struct CUstream_st *s);

static __thread struct gpsim_call *tls_top;
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
	/* The host worker is not in the child; the next host function starts one. */
	S.host_running = 0;
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

/* Names and paths are JSON-escaped here and nowhere else in the sim (gpsim_json_str). */
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
	const char *nested = getenv("GPUPERF_SIM_NESTED_CORR");
	char line[256];
	size_t pos = 0;

	S.nested_corr_outer = nested && !strcmp(nested, "outer");

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

void gpsim_log_open(void)
{
	env_once();
}

void gpsim_json_str(char *buf, size_t size, size_t *pos, const char *s)
{
	bjson_str(buf, size, pos, s);
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

/* A copy between device memory and arrays: no host side. */
static int copy_on_device(int copy_kind)
{
	return copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOD ||
	       copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_ATOD ||
	       copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOA ||
	       copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_ATOA;
}

/* The host side of a copy to or from the host is pinned memory. */
static int copy_pinned(int copy_kind, int src_kind, int dst_kind)
{
	int host_src = copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ||
		       copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOA;

	return (host_src ? src_kind : dst_kind) == CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
}

static uint64_t memcpy_ns(int copy_kind, int pinned, size_t bytes)
{
	uint64_t bw;

	if (copy_on_device(copy_kind))
		return MEMCPY_BASE_NS + (uint64_t)bytes * 1000ULL / BW_DTOD;
	switch (copy_kind) {
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
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
	default: return "unknown";
	}
}

static const char *mem_kind_str(int k)
{
	switch (k) {
	case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "pageable";
	case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "pinned";
	case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "device";
	case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return "array";
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
	/*
	 * "Each function invocation is assigned a unique correlation ID"
	 * (CUpti_ActivityAPI::correlationId). Real CUPTI (CUDA 13.0, driver
	 * 580, H200) gives a driver call made inside a runtime call the
	 * runtime call's id: GPUPERF_SIM_NESTED_CORR=outer does the same.
	 */
	if (S.nested_corr_outer && domain == CUPTI_CB_DOMAIN_DRIVER_API && tls_top &&
	    tls_top->domain == CUPTI_CB_DOMAIN_RUNTIME_API)
		c->corr = tls_top->corr;
	else
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

/* Reports op, whose stream, context and times are set, to CUPTI and the log. */
static void op_report(struct gpsim_op *op)
{
	const struct gpsim_hooks *h;

	op->device_id = GPSIM_DEVICE_ID;
	if (op->kind == GPSIM_OP_KERNEL) {
		pthread_mutex_lock(&S.lock);
		op->grid_id = S.next_grid_id++;
		pthread_mutex_unlock(&S.lock);
	}
	h = hooks();
	if (h && h->gpu_op)
		h->gpu_op(op);
	log_op(op);
}

/*
 * Whether work issued to s now has to wait for a host function: one on s,
 * or on a stream s waits for by the legacy stream's rules. Lock held.
 */
static int host_blocked(const struct CUstream_st *s)
{
	const struct CUstream_st *o;

	if (s->host_busy)
		return 1;
	if (s->legacy) {
		for (o = S.streams; o; o = o->next)
			if (!(o->flags & CU_STREAM_NON_BLOCKING) && o->host_busy)
				return 1;
		return 0;
	}
	return !(s->flags & CU_STREAM_NON_BLOCKING) && S.legacy.host_busy;
}

/*
 * The simulator computes every time when the work is issued, and the end
 * of a host function is known only once it has returned: work issued
 * behind one waits here until it has (README.md). Lock held.
 */
static void wait_host_locked(const struct CUstream_st *s)
{
	while (host_blocked(s))
		pthread_cond_wait(&S.host_cond, &S.lock);
}

/* Puts op (duration dur) on stream s's timeline and reports it. */
static void issue(struct CUstream_st *s, struct gpsim_op *op, uint64_t dur)
{
	uint64_t now = gpsim_now();

	current_corr(&op->corr, &op->runtime_corr, &op->driver_corr);
	op->tid = gpsim_gettid();
	op->context_id = gpsim__ctx_id(s->ctx ? s->ctx : gpsim__ctx_top());
	pthread_mutex_lock(&S.lock);
	/*
	 * A full queue: the work issued queue_depth pieces ago on this stream
	 * has not finished. The driver blocks the call until it has, as a real
	 * one does when a channel's push buffer is full, so a program launching
	 * faster than the device runs is held to the device's pace.
	 */
	if (!s->qend && S.queue_depth)
		s->qend = calloc(S.queue_depth, sizeof(*s->qend));
	for (;;) {
		uint64_t until;

		wait_host_locked(s);
		now = gpsim_now();
		if (!s->qend || s->qend[s->qpos] <= now)
			break;
		until = s->qend[s->qpos];
		pthread_mutex_unlock(&S.lock);
		wait_until(until);
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
	pthread_mutex_unlock(&S.lock);
	op_report(op);
}

/* A CPU-side instant on both clocks: the simulator's and the tracer's own. */
struct sync_stamp {
	uint64_t mono, own;
};

uint64_t gpsim_bracket(uint64_t (*clock)(void), unsigned tries, uint64_t width,
		       uint64_t *other)
{
	uint64_t best = UINT64_MAX, mono = 0;

	*other = 0;
	for (unsigned i = 0; i < tries && best > width; i++) {
		uint64_t m0 = gpsim_now(), c = clock(), m1 = gpsim_now();

		if (m1 - m0 < best) {
			best = m1 - m0;
			mono = m0 + (m1 - m0) / 2;
			*other = c;
		}
	}
	return mono;
}

/*
 * The tracer's clock is read between two reads of the simulator's, and the
 * instant logged is their midpoint (gpsim_bracket), so that the log and the
 * record agree.
 */
uint64_t gpsim__stamp(uint64_t *own)
{
	const struct gpsim_hooks *h = hooks();

	*own = 0;
	if (!h || !h->clock)
		return gpsim_now();
	return gpsim_bracket(h->clock, 5, 1000, own);
}

static struct sync_stamp sync_now(void)
{
	struct sync_stamp t;

	t.mono = gpsim__stamp(&t.own);
	return t;
}

static void report_sync(int type, uint32_t stream_id, uint32_t event_id, struct sync_stamp start)
{
	const struct gpsim_hooks *h = hooks();
	struct sync_stamp end = sync_now();
	struct gpsim_sync sy = { .type = type, .context_id = gpsim__ctx_id(gpsim__ctx_top()),
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
	while (S.host_pending)
		pthread_cond_wait(&S.host_cond, &S.lock);
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

/* Bytes of graph allocations live (used) and held (reserved); the watermarks follow. Lock held. */
static void graph_mem_locked(uint64_t *used, uint64_t *reserved)
{
	struct galloc *g;

	*used = *reserved = 0;
	for (g = S.gallocs; g; g = g->next) {
		*reserved += g->size;
		*used += g->live ? g->size : 0;
	}
	if (*used > S.graph_used_high)
		S.graph_used_high = *used;
	if (*reserved > S.graph_reserved_high)
		S.graph_reserved_high = *reserved;
}

/* A graph allocation's memory was taken or became live: the watermarks may rise. Lock held. */
static void graph_mem_note_locked(void)
{
	uint64_t used, reserved;

	graph_mem_locked(&used, &reserved);
}

/* The graph allocation holding p, under S.lock. */
static struct galloc *galloc_find_locked(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	struct galloc *g;

	for (g = S.gallocs; g; g = g->next)
		if (a >= g->base && a < g->base + (g->size ? g->size : 1))
			return g;
	return NULL;
}

/*
 * cuMemFreeAsync / cuMemFree of a live graph allocation ("Allocations which
 * are not freed in the same graph can be freed by passing the allocation
 * to cuMemFreeAsync or cuMemFree"): 0, or -EINVAL when ptr is not one.
 */
int gpsim__graph_mem_free(const void *ptr, uint32_t stream_id)
{
	struct galloc *g;
	size_t size = 0;

	pthread_mutex_lock(&S.lock);
	g = galloc_find_locked(ptr);
	if (g && g->base == (uintptr_t)ptr && g->live && !g->free_graph) {
		g->live = 0;
		size = g->size;
	} else {
		g = NULL;
	}
	pthread_mutex_unlock(&S.lock);
	if (!g)
		return -EINVAL;
	gpsim__graph_mem_event(GPSIM_MEM_FREE, ptr, size, stream_id, 0, 0, 0);
	return 0;
}

static int mem_kind(const void *p)
{
	struct alloc *m;
	int kind;

	pthread_mutex_lock(&S.lock);
	m = alloc_find(p);
	kind = m ? m->kind : CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN;
	if (!m && galloc_find_locked(p))
		kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	pthread_mutex_unlock(&S.lock);
	if (kind == CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN)
		kind = gpsim__mem_kind(p); /* pools and managed memory (sim_mem.c) */
	return kind == CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN ? CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE :
							    kind;
}

/* An allocation of kind (CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, _PINNED or _ARRAY). */
static int mem_add(size_t size, int kind, void **out)
{
	struct alloc *m = calloc(1, sizeof(*m));
	void *p = NULL;

	if (!m)
		return -ENOMEM;
	m->shared_fd = -1;
	if (kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE) {
		/* pages of its own, which an export shares in place (cuIpcGetMemHandle) */
		p = mmap(NULL, page_round(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		m->mapped = p != MAP_FAILED;
		if (!m->mapped)
			p = NULL;
	} else if (posix_memalign(&p, 256, size ? size : 1)) {
		/* 256-byte alignment like cudaMalloc; at least one byte so pointers are unique. */
		p = NULL;
	}
	if (!p) {
		free(m);
		return -ENOMEM;
	}
	m->base = (uintptr_t)p;
	m->size = size;
	m->kind = kind;
	pthread_mutex_lock(&S.lock);
	m->next = S.allocs;
	S.allocs = m;
	pthread_mutex_unlock(&S.lock);
	*out = p;
	gpsim__mem_event(GPSIM_MEM_ALLOC, p, size, kind);
	return 0;
}

static int mem_del(const void *p, int kind)
{
	struct alloc **pp, *m;
	int err = -EINVAL;
	uint64_t size = 0;

	pthread_mutex_lock(&S.lock);
	for (pp = &S.allocs; (m = *pp); pp = &m->next) {
		if (m->base == (uintptr_t)p && m->kind == kind && !m->registered) {
			*pp = m->next;
			size = m->size;
			if (m->mapped) {
				munmap((void *)m->base, page_round(m->size));
				if (m->shared_fd >= 0)
					close(m->shared_fd);
			} else {
				free((void *)m->base);
			}
			free(m);
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&S.lock);
	if (!err)
		gpsim__mem_event(GPSIM_MEM_FREE, p, size, kind);
	return err;
}

/* cuMemHostRegister: the program's range [p, p + size) becomes pinned host memory. */
/* The program's range [p, p + size) becomes memory of kind (host registered, a VMM mapping). */
static CUresult mem_register(void *p, size_t size, int kind)
{
	uintptr_t a = (uintptr_t)p;
	struct alloc *m;
	CUresult r = CUDA_SUCCESS;

	pthread_mutex_lock(&S.lock);
	for (m = S.allocs; m; m = m->next) {
		if (a < m->base + (m->size ? m->size : 1) && m->base < a + size) {
			r = m->registered ? CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED :
					    CUDA_ERROR_INVALID_VALUE;
			break;
		}
	}
	if (r == CUDA_SUCCESS) {
		m = calloc(1, sizeof(*m));
		if (!m) {
			r = CUDA_ERROR_OUT_OF_MEMORY;
		} else {
			*m = (struct alloc){ .base = a, .size = size, .kind = kind, .registered = 1,
					     .next = S.allocs };
			S.allocs = m;
		}
	}
	pthread_mutex_unlock(&S.lock);
	return r;
}

static CUresult mem_unregister(const void *p, int kind)
{
	struct alloc **pp, *m;
	CUresult r = CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;

	pthread_mutex_lock(&S.lock);
	for (pp = &S.allocs; (m = *pp); pp = &m->next) {
		if (m->registered && m->kind == kind && m->base == (uintptr_t)p) {
			*pp = m->next;
			free(m);
			r = CUDA_SUCCESS;
			break;
		}
	}
	pthread_mutex_unlock(&S.lock);
	return r;
}

CUresult gpsim__mem_export(CUdeviceptr p, int *fd, size_t *size)
{
	struct alloc *m;
	CUresult r = CUDA_ERROR_INVALID_VALUE;
	size_t len;
	int f;

	pthread_mutex_lock(&S.lock);
	for (m = S.allocs; m && !(m->base == p && m->mapped && !m->registered); m = m->next)
		;
	if (m && m->shared_fd < 0) {
		/*
		 * The allocation's pages become a memfd's, mapped over them with
		 * their bytes: the same address, now shared with whoever maps
		 * the memfd.
		 */
		len = page_round(m->size);
		f = memfd_create("gpsim-ipc-mem", MFD_CLOEXEC);
		if (f < 0 || ftruncate(f, (off_t)len) || pwrite(f, (void *)m->base, len, 0) != (ssize_t)len ||
		    mmap((void *)m->base, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, f, 0) ==
			    MAP_FAILED) {
			if (f >= 0)
				close(f);
			m = NULL;
			r = CUDA_ERROR_MAP_FAILED;
		} else {
			m->shared_fd = f;
		}
	}
	if (m) {
		*fd = m->shared_fd;
		*size = page_round(m->size);
		r = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&S.lock);
	return r;
}

int gpsim__mem_track(void *p, size_t size)
{
	return mem_register(p, size, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE) == CUDA_SUCCESS ? 0 : -EINVAL;
}

void gpsim__mem_untrack(const void *p)
{
	mem_unregister(p, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
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

/* The primary context comes to life: "A new context has been created" for CUPTI. */
static void primary_alive(void)
{
	struct gpsim_res_ev ev = { .ctx = &S.ctx };
	int was;

	pthread_mutex_lock(&S.lock);
	was = S.ctx_alive;
	S.ctx_alive = 1;
	pthread_mutex_unlock(&S.lock);
	if (!was)
		gpsim__resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &ev);
}

CUcontext gpsim_primary_ctx(void)
{
	primary_alive();
	/* The runtime uses the context current to the thread, the primary one if none is. */
	gpsim__ctx_bind_primary();
	return &S.ctx;
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
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *pi = 65536; break;
	case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: *pi = 32; break;
	case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: *pi = 512; break;
	case CU_DEVICE_ATTRIBUTE_MAX_PITCH: *pi = 2147483647; break;
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *pi = 65536; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *pi = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *pi = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *pi = 64; break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *pi = 2147483647; break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *pi = 65535; break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *pi = 65535; break;
	case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: *pi = 1; break;
	/* Managed memory and memory pools (sim_mem.c). */
	case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: *pi = 1; break;
	case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: *pi = 1; break;
	case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: *pi = 1; break;
	/* Virtual memory management (sim_vmm.c), shared through POSIX file descriptors. */
	case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: *pi = 1; break;
	case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: *pi = 1; break;
	/* Interprocess memory and events (sim_ipc.c). */
	case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED: *pi = 1; break;
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
	primary_alive();
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
	if (gpsim__primary_alive()) {
		struct gpsim_res_ev ev = { .ctx = &S.ctx };

		gpsim__resource(CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, &ev);
	}
	pthread_mutex_lock(&S.lock);
	S.ctx_alive = 0;
	pthread_mutex_unlock(&S.lock);
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
	gpsim__pools_on_sync();
	report_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, UINT32_MAX,
		    UINT32_MAX, start);
	DRV_RETURN(CUDA_SUCCESS);
}

/* "Enables profile collection by the active profiling tool": CUPTI's activity API is not one it gates. */
CUresult CUDAAPI cuProfilerStart(void)
{
	DRV_ENTER(cuProfilerStart, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuProfilerStop(void)
{
	DRV_ENTER(cuProfilerStop, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * Occupancy of the simulated SM (the limits cuDeviceGetAttribute and
 * CUPTI's DEVICE record give): 1024 threads, 16 blocks, 65536 registers
 * (every kernel uses 32 a thread, as cudaFuncGetAttributes says) and
 * 65536 bytes of shared memory.
 */
static int occupancy_blocks(int block_size, size_t dyn_smem)
{
	int warps, blocks;

	if (block_size <= 0 || block_size > 1024 || dyn_smem > 49152)
		return 0;
	warps = (block_size + 31) / 32;
	blocks = 1024 / (warps * 32);
	if (blocks > 16)
		blocks = 16;
	if (65536 / (warps * 32 * 32) < blocks)
		blocks = 65536 / (warps * 32 * 32);
	if (dyn_smem && (int)(65536 / dyn_smem) < blocks)
		blocks = (int)(65536 / dyn_smem);
	return blocks;
}

/*
 * "Returns in *dynamicSmemSize the maximum size of dynamic shared memory
 * to allow numBlocks blocks per SM": the SM's 65536 bytes shared by them,
 * at most a block's 49152; 0 when that many blocks of blockSize threads
 * do not fit an SM at all.
 */
CUresult CUDAAPI cuOccupancyAvailableDynamicSMemPerBlock(size_t *smem, CUfunction f, int nblocks,
							 int bs)
{
	cuOccupancyAvailableDynamicSMemPerBlock_params p = { smem, f, nblocks, bs };
	size_t per;
	DRV_ENTER(cuOccupancyAvailableDynamicSMemPerBlock, &p, NULL);

	NEED_CTX();
	if (!smem || !f || nblocks <= 0 || bs <= 0)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	per = 65536 / (size_t)nblocks;
	*smem = occupancy_blocks(bs, 0) < nblocks ? 0 : per < 49152 ? per : 49152;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *num, CUfunction f, int bs,
							     size_t smem)
{
	DRV_ENTER(cuOccupancyMaxActiveBlocksPerMultiprocessor, NULL, NULL);
	NEED_CTX();
	if (!num || !f)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*num = occupancy_blocks(bs, smem);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *num, CUfunction f,
								      int bs, size_t smem,
								      unsigned int flags)
{
	DRV_ENTER(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, NULL, NULL);
	NEED_CTX();
	if (!num || !f || (flags & ~(unsigned)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*num = occupancy_blocks(bs, smem);
	DRV_RETURN(CUDA_SUCCESS);
}

/* "Returns in *blockSize a reasonable block size that can achieve the maximum occupancy" */
static CUresult max_potential_block(int *min_grid, int *block_size, CUfunction f,
				    CUoccupancyB2DSize smem_of, size_t smem, int limit)
{
	int best = 0, best_blocks = 0, bs;

	if (!min_grid || !block_size || !f)
		return CUDA_ERROR_INVALID_VALUE;
	if (limit <= 0 || limit > 1024)
		limit = 1024;
	for (bs = limit >= 32 ? limit - limit % 32 : limit; bs > 0; bs -= 32) {
		int blocks = occupancy_blocks(bs, smem_of ? smem_of(bs) : smem);

		if (blocks * bs > best_blocks * best) {
			best = bs;
			best_blocks = blocks;
		}
	}
	*block_size = best;
	*min_grid = best_blocks * GPSIM_SM_COUNT;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block_size, CUfunction f,
						  CUoccupancyB2DSize smem_of, size_t smem,
						  int limit)
{
	DRV_ENTER(cuOccupancyMaxPotentialBlockSize, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(max_potential_block(min_grid, block_size, f, smem_of, smem, limit));
}

CUresult CUDAAPI cuOccupancyMaxPotentialBlockSizeWithFlags(int *min_grid, int *block_size,
							   CUfunction f,
							   CUoccupancyB2DSize smem_of,
							   size_t smem, int limit,
							   unsigned int flags)
{
	DRV_ENTER(cuOccupancyMaxPotentialBlockSizeWithFlags, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(max_potential_block(min_grid, block_size, f, smem_of, smem, limit));
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
	{ CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
	  "part or all of the requested memory range is already mapped" },
	{ CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
	  "pointer does not correspond to a registered memory region" },
	{ CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE",
	  "the graph update was not performed because it included changes which violated "
	  "constraints specific to instantiated graph update" },
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

#define PTR(d) ((void *)(uintptr_t)(d))

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	cuMemAlloc_v2_params p = { dptr, bytesize };
	void *mem;
	DRV_ENTER(cuMemAlloc_v2, &p, NULL);

	NEED_CTX();
	if (!dptr || !bytesize)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* "In the case of cudaMalloc, the operation is not enqueued asynchronously to a stream, and is not observed by stream capture." */
	if (capture_forbids_unsafe())
		DRV_RETURN(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	if (mem_add(bytesize, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, &mem))
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
	if (!mem_del(PTR(dptr), CUPTI_ACTIVITY_MEMORY_KIND_DEVICE) || !gpsim__managed_free(PTR(dptr)) ||
	    !gpsim__pool_free(PTR(dptr)) || !gpsim__graph_mem_free(PTR(dptr), UINT32_MAX))
		DRV_RETURN(CUDA_SUCCESS);
	DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
}

CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int flags)
{
	cuMemHostAlloc_params p = { pp, bytesize, flags };
	DRV_ENTER(cuMemHostAlloc, &p, NULL);

	NEED_CTX();
	if (!pp)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (flags & ~(unsigned int)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
				    CU_MEMHOSTALLOC_WRITECOMBINED))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (mem_add(bytesize, CUPTI_ACTIVITY_MEMORY_KIND_PINNED, pp))
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	pthread_mutex_lock(&S.lock);
	alloc_find(*pp)->host_flags = flags;
	pthread_mutex_unlock(&S.lock);
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * "Passes back the flags pFlags that were specified when allocating the
 * pinned host buffer p allocated by cuMemHostAlloc." "cuMemHostGetFlags()
 * will fail if the pointer does not reside in an allocation performed by
 * cuMemAllocHost() or cuMemHostAlloc()."
 */
CUresult CUDAAPI cuMemHostGetFlags(unsigned int *flags, void *p)
{
	cuMemHostGetFlags_params prm = { flags, p };
	struct alloc *m;
	CUresult r = CUDA_ERROR_INVALID_VALUE;
	DRV_ENTER(cuMemHostGetFlags, &prm, NULL);

	NEED_CTX();
	if (!flags)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&S.lock);
	m = alloc_find(p);
	if (m && m->kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED && !m->registered) {
		*flags = m->host_flags;
		r = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&S.lock);
	DRV_RETURN(r);
}

CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize)
{
	cuMemAllocHost_v2_params p = { pp, bytesize };
	DRV_ENTER(cuMemAllocHost_v2, &p, NULL);

	NEED_CTX();
	if (!pp)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (mem_add(bytesize, CUPTI_ACTIVITY_MEMORY_KIND_PINNED, pp))
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
	DRV_RETURN(mem_del(ptr, CUPTI_ACTIVITY_MEMORY_KIND_PINNED) ? CUDA_ERROR_INVALID_VALUE :
									 CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int flags)
{
	cuMemHostRegister_v2_params prm = { p, bytesize, flags };
	DRV_ENTER(cuMemHostRegister_v2, &prm, NULL);

	NEED_CTX();
	if (!p || !bytesize)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* "Page-locks the memory range specified by p and bytesize": copies from and to it are pinned ones. */
	DRV_RETURN(mem_register(p, bytesize, CUPTI_ACTIVITY_MEMORY_KIND_PINNED));
}

CUresult CUDAAPI cuMemHostUnregister(void *p)
{
	cuMemHostUnregister_params prm = { p };
	DRV_ENTER(cuMemHostUnregister, &prm, NULL);

	NEED_CTX();
	/* "The base address must be the same one specified to cuMemHostRegister()." */
	DRV_RETURN(mem_unregister(p, CUPTI_ACTIVITY_MEMORY_KIND_PINNED));
}

/*
 * One copy of `height` rows of `width` bytes, the rows spitch (dpitch)
 * bytes apart in src (dst); one row is a plain copy. copy_kind < 0 infers
 * the direction from the pointers (cuMemcpy*). Synchronous copies and
 * copies from/to pageable host memory block the caller until the copy's
 * end, as the real driver's staging does.
 */
static CUresult do_copy_rows(void *dst, size_t dpitch, const void *src, size_t spitch,
			     size_t width, size_t height, int copy_kind, CUstream hstream,
			     int async)
{
	struct CUstream_st *s = stream_of(hstream);
	size_t bytes = width * height, r;
	struct gpsim_op op = { .kind = GPSIM_OP_MEMCPY, .bytes = bytes, .async = async };
	int src_kind = mem_kind(src), dst_kind = mem_kind(dst);
	int dev_src = src_kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	int dev_dst = dst_kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	int pinned;

	if (copy_kind < 0)
		copy_kind = dev_src ? (dev_dst ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOD :
					CUPTI_ACTIVITY_MEMCPY_KIND_DTOH) :
			(dev_dst ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOD : CUPTI_ACTIVITY_MEMCPY_KIND_HTOH);
	pinned = copy_pinned(copy_kind, src_kind, dst_kind);
	if (s->capture) {
		struct CUgraphNode_st *n;

		if (!async)
			return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
		n = capture_node(s, CU_GRAPH_NODE_TYPE_MEMCPY);
		if (!n)
			return CUDA_ERROR_OUT_OF_MEMORY;
		n->dst = dst;
		n->src = src;
		n->width = width;
		n->dpitch = dpitch;
		n->spitch = spitch;
		n->height = height;
		n->copy_kind = copy_kind;
		return CUDA_SUCCESS;
	}
	for (r = 0; bytes && dst != src && r < height; r++)
		memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
	op.copy_kind = copy_kind;
	op.src_kind = src_kind;
	op.dst_kind = dst_kind;
	issue(s, &op, memcpy_ns(copy_kind, pinned, bytes));
	if (!async || (!pinned && !copy_on_device(copy_kind)))
		wait_until(op.end);
	return CUDA_SUCCESS;
}

static CUresult do_copy(void *dst, const void *src, size_t bytes, int copy_kind,
			CUstream hstream, int async)
{
	return do_copy_rows(dst, bytes, src, bytes, bytes, 1, copy_kind, hstream, async);
}

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

/*
 * "Copies from device memory in one context to device memory in another
 * context." Every context is on the one device: a device-to-device copy.
 */
CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx,
			      size_t n)
{
	cuMemcpyPeer_params p = { dst, dctx, src, sctx, n };
	DRV_ENTER(cuMemcpyPeer, &p, NULL);
	NEED_CTX();
	if (!gpsim__ctx_usable(dctx) || !gpsim__ctx_usable(sctx))
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	DRV_RETURN(do_copy(PTR(dst), PTR(src), n, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, NULL, 0));
}

CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
				   CUcontext sctx, size_t n, CUstream s)
{
	cuMemcpyPeerAsync_params p = { dst, dctx, src, sctx, n, s };
	DRV_ENTER(cuMemcpyPeerAsync, &p, NULL);
	NEED_CTX();
	if (!gpsim__ctx_usable(dctx) || !gpsim__ctx_usable(sctx))
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	DRV_RETURN(do_copy(PTR(dst), PTR(src), n, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, s, 1));
}

CUresult CUDAAPI cuMemcpyPeerAsync_ptsz(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
					CUcontext sctx, size_t n, CUstream s)
{
	cuMemcpyPeerAsync_ptsz_params p = { dst, dctx, src, sctx, n, s };
	DRV_ENTER(cuMemcpyPeerAsync_ptsz, &p, NULL);
	NEED_CTX();
	if (!gpsim__ctx_usable(dctx) || !gpsim__ctx_usable(sctx))
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	DRV_RETURN(do_copy(PTR(dst), PTR(src), n, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD,
			   s ? s : gpsim_stream_per_thread(), 1));
}

/*
 * "Performs a batch of memory copies asynchronously", "in stream order"
 * as a whole; each copy is a copy of its own (a record each, under the
 * call's correlation id), its direction inferred from its pointers.
 * "Every copy in the batch has to be associated with a set of attributes
 * [...] the first entry in attrsIdxs must always be 0. Also, each entry
 * must be greater than the previous entry and the last entry should be
 * less than count. Furthermore, numAttrs must be lesser than or equal to
 * count." "Each memcpy operation in the batch must have a valid
 * CUmemcpyAttributes corresponding to it including the appropriate
 * srcAccessOrder setting". "hStream [...] Must not be legacy NULL stream."
 */
static CUresult copy_batch(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
			   CUmemcpyAttributes *attrs, size_t *idxs, size_t nattrs, CUstream h)
{
	size_t i;
	CUresult r = CUDA_SUCCESS;

	if (!dsts || !srcs || !sizes || !count || !attrs || !idxs || !nattrs || nattrs > count ||
	    idxs[0] || !h || h == CU_STREAM_LEGACY)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < nattrs; i++)
		if ((i && idxs[i] <= idxs[i - 1]) || idxs[i] >= count ||
		    attrs[i].srcAccessOrder < CU_MEMCPY_SRC_ACCESS_ORDER_STREAM ||
		    attrs[i].srcAccessOrder > CU_MEMCPY_SRC_ACCESS_ORDER_ANY)
			return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < count; i++)
		if (!dsts[i] || !srcs[i])
			return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < count && r == CUDA_SUCCESS; i++)
		r = do_copy(PTR(dsts[i]), PTR(srcs[i]), sizes[i], -1, h, 1);
	return r;
}

CUresult CUDAAPI cuMemcpyBatchAsync_v2(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
				       size_t count, CUmemcpyAttributes *attrs, size_t *idxs,
				       size_t nattrs, CUstream h)
{
	cuMemcpyBatchAsync_v2_params p = { dsts, srcs, sizes, count, attrs, idxs, nattrs, h };
	DRV_ENTER(cuMemcpyBatchAsync_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(copy_batch(dsts, srcs, sizes, count, attrs, idxs, nattrs, h));
}

CUresult CUDAAPI cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
					    size_t count, CUmemcpyAttributes *attrs, size_t *idxs,
					    size_t nattrs, CUstream h)
{
	cuMemcpyBatchAsync_v2_ptsz_params p = { dsts, srcs, sizes, count, attrs, idxs, nattrs, h };
	DRV_ENTER(cuMemcpyBatchAsync_v2_ptsz, &p, NULL);
	NEED_CTX();
	DRV_RETURN(copy_batch(dsts, srcs, sizes, count, attrs, idxs, nattrs,
			      h ? h : gpsim_stream_per_thread()));
}

/* "Copies attributes from source stream src to destination stream dst." */
CUresult CUDAAPI cuStreamCopyAttributes(CUstream dst, CUstream src)
{
	cuStreamCopyAttributes_params p = { dst, src };
	struct CUstream_st *d, *sp;
	DRV_ENTER(cuStreamCopyAttributes, &p, NULL);

	NEED_CTX();
	d = stream_of(dst);
	sp = stream_of(src);
	pthread_mutex_lock(&S.lock);
	d->apw = sp->apw;
	d->sync_policy = sp->sync_policy;
	d->priority = sp->priority;
	d->domain_map = sp->domain_map;
	d->domain = sp->domain;
	pthread_mutex_unlock(&S.lock);
	DRV_RETURN(CUDA_SUCCESS);
}

static void fill_rows(char *dst, size_t pitch, size_t rows, size_t width, uint32_t value,
		      unsigned int elem);

/* A memset of `height` rows of `count` elements of elem bytes, the rows pitch bytes apart. */
static CUresult do_memset_rows(void *dst, size_t pitch, uint32_t value, unsigned int elem,
			       size_t count, size_t height, CUstream hstream, int async)
{
	struct CUstream_st *s = stream_of(hstream);
	struct gpsim_op op = { .kind = GPSIM_OP_MEMSET, .bytes = count * elem * height,
			       .value = value, .async = async };

	if (s->capture) {
		struct CUgraphNode_st *n;

		if (!async)
			return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
		n = capture_node(s, CU_GRAPH_NODE_TYPE_MEMSET);
		if (!n)
			return CUDA_ERROR_OUT_OF_MEMORY;
		n->dst = dst;
		n->value = value;
		n->elem = elem;
		n->width = count;
		n->height = height;
		n->dpitch = pitch;
		return CUDA_SUCCESS;
	}
	fill_rows(dst, pitch, height, count, value, elem);
	issue(s, &op, memset_ns(op.bytes));
	if (!async)
		wait_until(op.end);
	return CUDA_SUCCESS;
}

static CUresult do_memset(void *dst, uint32_t value, unsigned int elem, size_t count,
			  CUstream hstream, int async)
{
	return do_memset_rows(dst, count * elem, value, elem, count, 1, hstream, async);
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

/* ---- pitched memory: 2D and 3D copies and memsets ---- */

/*
 * "The pitch returned in *pPitch by cuMemAllocPitch() is the width in
 * bytes of the allocation", rows padded to keep each aligned; 512 bytes
 * here (more than CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT asks).
 * "ElementSizeBytes - Size of largest reads/writes for range": 4, 8 or 16.
 */
#define PITCH_ALIGN 512

CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
				    unsigned int elem)
{
	cuMemAllocPitch_v2_params p = { dptr, pitch, width, height, elem };
	size_t row;
	void *mem;
	DRV_ENTER(cuMemAllocPitch_v2, &p, NULL);

	NEED_CTX();
	if (!dptr || !pitch || !width || !height || (elem != 4 && elem != 8 && elem != 16) ||
	    width > SIZE_MAX - PITCH_ALIGN)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	row = (width + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
	if (height > SIZE_MAX / row)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	if (capture_forbids_unsafe())
		DRV_RETURN(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	if (mem_add(row * height, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, &mem))
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	*dptr = (CUdeviceptr)(uintptr_t)mem;
	*pitch = row;
	DRV_RETURN(CUDA_SUCCESS);
}

/* The array a handle names; NULL if none (cuArrayDestroy'ed or never made). */
static struct CUarray_st *array_of(CUarray h)
{
	struct CUarray_st *a;

	pthread_mutex_lock(&S.lock);
	for (a = S.arrays; a && a != h; a = a->next)
		;
	pthread_mutex_unlock(&S.lock);
	return a;
}

/* One side of a copy: its first row's first byte, and how far apart its rows are. */
struct copy_side {
	char *p;
	size_t pitch;
	CUmemorytype type;
};

/*
 * A side of a 2D or 3D copy: host, device or unified memory at (x, y) in
 * rows `pitch` apart ("ignored if Height is 1"), or an array's element
 * bytes, rows Width elements apart, which the copy must fit in ("srcArray
 * is ignored" unless the type is ARRAY). `rows` is how many the copy takes.
 */
static CUresult side_at(CUmemorytype type, const void *host, CUdeviceptr dev, CUarray arr,
			size_t x, size_t y, size_t pitch, size_t width, size_t rows,
			struct copy_side *out)
{
	struct CUarray_st *a;

	out->type = type;
	switch (type) {
	case CU_MEMORYTYPE_HOST:
		out->p = (char *)(uintptr_t)host;
		break;
	case CU_MEMORYTYPE_DEVICE:
	case CU_MEMORYTYPE_UNIFIED:
		out->p = (char *)(uintptr_t)dev;
		break;
	case CU_MEMORYTYPE_ARRAY:
		a = array_of(arr);
		if (!a || x > a->pitch || width > a->pitch - x || y > a->rows || rows > a->rows - y)
			return CUDA_ERROR_INVALID_VALUE;
		out->p = a->mem + y * a->pitch + x;
		out->pitch = a->pitch;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (!out->p || (rows > 1 && pitch < width))
		return CUDA_ERROR_INVALID_VALUE;
	out->pitch = rows > 1 || pitch >= width ? pitch : width;
	out->p += x + y * out->pitch;
	return CUDA_SUCCESS;
}

/* A side's direction for CUPTI's copy kind: device memory, named or found. */
static int side_on_device(const struct copy_side *c)
{
	return c->type == CU_MEMORYTYPE_DEVICE ||
	       (c->type == CU_MEMORYTYPE_UNIFIED && gpsim_is_device(c->p));
}

/* CUPTI's copy kind (CUpti_ActivityMemcpyKind) from src to dst. */
static int copy_kind_of(const struct copy_side *src, const struct copy_side *dst)
{
	int sa = src->type == CU_MEMORYTYPE_ARRAY, da = dst->type == CU_MEMORYTYPE_ARRAY;
	int sd = side_on_device(src), dd = side_on_device(dst);

	if (sa)
		return da ? CUPTI_ACTIVITY_MEMCPY_KIND_ATOA :
		       dd ? CUPTI_ACTIVITY_MEMCPY_KIND_ATOD :
			    CUPTI_ACTIVITY_MEMCPY_KIND_ATOH;
	if (da)
		return sd ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOA : CUPTI_ACTIVITY_MEMCPY_KIND_HTOA;
	return sd ? (dd ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOD : CUPTI_ACTIVITY_MEMCPY_KIND_DTOH) :
		    (dd ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOD : CUPTI_ACTIVITY_MEMCPY_KIND_HTOH);
}

/*
 * The rows of a 3D copy's side: Depth slices of Height rows, a side's
 * slices srcHeight (dstHeight; an array's Height) rows apart. Slices with
 * gaps between them (a slice height other than Height) are not simulated.
 */
static CUresult side_3d(CUmemorytype type, const void *host, CUdeviceptr dev, CUarray arr,
			size_t x, size_t y, size_t z, size_t pitch, size_t slice_h,
			const CUDA_MEMCPY3D *p, struct copy_side *out)
{
	struct CUarray_st *a = type == CU_MEMORYTYPE_ARRAY ? array_of(arr) : NULL;

	if (a)
		slice_h = a->height;
	else if (!slice_h)
		slice_h = p->Height;
	if (p->Depth > 1 && slice_h != p->Height)
		return CUDA_ERROR_NOT_SUPPORTED;
	return side_at(type, host, dev, arr, x, y + z * slice_h, pitch, p->WidthInBytes,
		       p->Height * p->Depth, out);
}

/* The two sides of a 3D copy. */
static CUresult sides_3d(const CUDA_MEMCPY3D *p, struct copy_side *src, struct copy_side *dst)
{
	CUresult r;

	if (!p->WidthInBytes || !p->Height || !p->Depth || p->srcLOD || p->dstLOD)
		return CUDA_ERROR_INVALID_VALUE;
	r = side_3d(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes,
		    p->srcY, p->srcZ, p->srcPitch, p->srcHeight, p, src);
	if (r == CUDA_SUCCESS)
		r = side_3d(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstXInBytes,
			    p->dstY, p->dstZ, p->dstPitch, p->dstHeight, p, dst);
	return r;
}

/*
 * "Perform a 2D memory copy according to the parameters specified in
 * pCopy": Height rows of WidthInBytes, each side from (XInBytes, Y).
 */
static CUresult copy_2d(const CUDA_MEMCPY2D *p, CUstream h, int async)
{
	struct copy_side src, dst;
	CUresult r;

	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	if (!p->WidthInBytes || !p->Height)
		return CUDA_SUCCESS; /* nothing to copy */
	r = side_at(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes,
		    p->srcY, p->srcPitch, p->WidthInBytes, p->Height, &src);
	if (r == CUDA_SUCCESS)
		r = side_at(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray,
			    p->dstXInBytes, p->dstY, p->dstPitch, p->WidthInBytes, p->Height, &dst);
	if (r != CUDA_SUCCESS)
		return r;
	return do_copy_rows(dst.p, dst.pitch, src.p, src.pitch, p->WidthInBytes, p->Height,
			    copy_kind_of(&src, &dst), h, async);
}

/* "Perform a 3D memory copy according to the parameters specified in pCopy" */
static CUresult copy_3d(const CUDA_MEMCPY3D *p, CUstream h, int async)
{
	struct copy_side src, dst;
	CUresult r;

	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	r = sides_3d(p, &src, &dst);
	if (r != CUDA_SUCCESS)
		return r;
	return do_copy_rows(dst.p, dst.pitch, src.p, src.pitch, p->WidthInBytes,
			    p->Height * p->Depth, copy_kind_of(&src, &dst), h, async);
}

CUresult CUDAAPI cuMemcpy2D_v2(const CUDA_MEMCPY2D *c)
{
	cuMemcpy2D_v2_params p = { c };
	DRV_ENTER(cuMemcpy2D_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(copy_2d(c, NULL, 0));
}

/* "cuMemcpy2DUnaligned() does not have these restrictions": none applies here. */
CUresult CUDAAPI cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *c)
{
	cuMemcpy2DUnaligned_v2_params p = { c };
	DRV_ENTER(cuMemcpy2DUnaligned_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(copy_2d(c, NULL, 0));
}

CUresult CUDAAPI cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *c, CUstream s)
{
	cuMemcpy2DAsync_v2_params p = { c, s };
	DRV_ENTER(cuMemcpy2DAsync_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(copy_2d(c, s, 1));
}

CUresult CUDAAPI cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *c, CUstream s)
{
	cuMemcpy2DAsync_v2_ptsz_params p = { c, s };
	DRV_ENTER(cuMemcpy2DAsync_v2_ptsz, &p, NULL);
	NEED_CTX();
	DRV_RETURN(copy_2d(c, s ? s : gpsim_stream_per_thread(), 1));
}

CUresult CUDAAPI cuMemcpy3D_v2(const CUDA_MEMCPY3D *c)
{
	cuMemcpy3D_v2_params p = { c };
	DRV_ENTER(cuMemcpy3D_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(copy_3d(c, NULL, 0));
}

CUresult CUDAAPI cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *c, CUstream s)
{
	cuMemcpy3DAsync_v2_params p = { c, s };
	DRV_ENTER(cuMemcpy3DAsync_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(copy_3d(c, s, 1));
}

CUresult CUDAAPI cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *c, CUstream s)
{
	cuMemcpy3DAsync_v2_ptsz_params p = { c, s };
	DRV_ENTER(cuMemcpy3DAsync_v2_ptsz, &p, NULL);
	NEED_CTX();
	DRV_RETURN(copy_3d(c, s ? s : gpsim_stream_per_thread(), 1));
}

CUresult CUDAAPI cuMemsetD16_v2(CUdeviceptr dst, unsigned short us, size_t n)
{
	cuMemsetD16_v2_params p = { dst, us, n };
	DRV_ENTER(cuMemsetD16_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(do_memset(PTR(dst), us, 2, n, NULL, 0));
}

CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dst, unsigned short us, size_t n, CUstream s)
{
	cuMemsetD16Async_params p = { dst, us, n, s };
	DRV_ENTER(cuMemsetD16Async, &p, NULL);
	NEED_CTX();
	DRV_RETURN(do_memset(PTR(dst), us, 2, n, s, 1));
}

/* "Sets the 2D memory range of Width elements by Height rows"; "dstPitch - Pitch of destination device pointer (Unused if Height is 1)". */
static CUresult memset_2d(CUdeviceptr dst, size_t pitch, uint32_t value, unsigned int elem,
			  size_t width, size_t height, CUstream s, int async)
{
	if (!dst || (height > 1 && pitch < width * elem))
		return CUDA_ERROR_INVALID_VALUE;
	return do_memset_rows(PTR(dst), height > 1 ? pitch : width * elem, value, elem, width,
			      height, s, async);
}

CUresult CUDAAPI cuMemsetD2D8_v2(CUdeviceptr dst, size_t pitch, unsigned char uc, size_t w,
				 size_t h)
{
	cuMemsetD2D8_v2_params p = { dst, pitch, uc, w, h };
	DRV_ENTER(cuMemsetD2D8_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(memset_2d(dst, pitch, uc, 1, w, h, NULL, 0));
}

CUresult CUDAAPI cuMemsetD2D16_v2(CUdeviceptr dst, size_t pitch, unsigned short us, size_t w,
				  size_t h)
{
	cuMemsetD2D16_v2_params p = { dst, pitch, us, w, h };
	DRV_ENTER(cuMemsetD2D16_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(memset_2d(dst, pitch, us, 2, w, h, NULL, 0));
}

CUresult CUDAAPI cuMemsetD2D32_v2(CUdeviceptr dst, size_t pitch, unsigned int ui, size_t w,
				  size_t h)
{
	cuMemsetD2D32_v2_params p = { dst, pitch, ui, w, h };
	DRV_ENTER(cuMemsetD2D32_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(memset_2d(dst, pitch, ui, 4, w, h, NULL, 0));
}

CUresult CUDAAPI cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch, unsigned char uc, size_t w,
				   size_t h, CUstream s)
{
	cuMemsetD2D8Async_params p = { dst, pitch, uc, w, h, s };
	DRV_ENTER(cuMemsetD2D8Async, &p, NULL);
	NEED_CTX();
	DRV_RETURN(memset_2d(dst, pitch, uc, 1, w, h, s, 1));
}

CUresult CUDAAPI cuMemsetD2D8Async_ptsz(CUdeviceptr dst, size_t pitch, unsigned char uc,
					size_t w, size_t h, CUstream s)
{
	cuMemsetD2D8Async_ptsz_params p = { dst, pitch, uc, w, h, s };
	DRV_ENTER(cuMemsetD2D8Async_ptsz, &p, NULL);
	NEED_CTX();
	DRV_RETURN(memset_2d(dst, pitch, uc, 1, w, h, s ? s : gpsim_stream_per_thread(), 1));
}

CUresult CUDAAPI cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch, unsigned short us, size_t w,
				    size_t h, CUstream s)
{
	cuMemsetD2D16Async_params p = { dst, pitch, us, w, h, s };
	DRV_ENTER(cuMemsetD2D16Async, &p, NULL);
	NEED_CTX();
	DRV_RETURN(memset_2d(dst, pitch, us, 2, w, h, s, 1));
}

CUresult CUDAAPI cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned int ui, size_t w,
				    size_t h, CUstream s)
{
	cuMemsetD2D32Async_params p = { dst, pitch, ui, w, h, s };
	DRV_ENTER(cuMemsetD2D32Async, &p, NULL);
	NEED_CTX();
	DRV_RETURN(memset_2d(dst, pitch, ui, 4, w, h, s, 1));
}

/* ---- arrays ---- */

/* Bytes of one component of format f; 0 for formats not simulated (block-compressed, video). */
static size_t format_bytes(CUarray_format f)
{
	switch (f) {
	case CU_AD_FORMAT_UNSIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT8: return 1;
	case CU_AD_FORMAT_UNSIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_HALF: return 2;
	case CU_AD_FORMAT_UNSIGNED_INT32:
	case CU_AD_FORMAT_SIGNED_INT32:
	case CU_AD_FORMAT_FLOAT: return 4;
	default: return 0;
	}
}

/*
 * "Width, Height, and Depth are the width, height, and depth of the CUDA
 * array (in elements)"; "NumChannels specifies the number of packed
 * components per CUDA array element; it may be 1, 2, or 4". Height 0 is a
 * 1D array, Depth 0 a 2D one; a layered array has Depth layers, a cubemap
 * ("Width must be equal to Height, and Depth must be six") six faces.
 */
static CUresult array_new(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	struct CUarray_st *a;
	size_t eb;
	void *mem;

	if (!out || !d || !d->Width ||
	    (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4))
		return CUDA_ERROR_INVALID_VALUE;
	if ((d->Flags & CUDA_ARRAY3D_CUBEMAP) &&
	    (d->Width != d->Height ||
	     ((d->Flags & CUDA_ARRAY3D_LAYERED) ? d->Depth % 6 : d->Depth != 6)))
		return CUDA_ERROR_INVALID_VALUE;
	eb = format_bytes(d->Format) * d->NumChannels;
	if (!eb)
		return CUDA_ERROR_NOT_SUPPORTED;
	a = calloc(1, sizeof(*a));
	if (!a)
		return CUDA_ERROR_OUT_OF_MEMORY;
	a->d = *d;
	a->height = d->Height ? d->Height : 1;
	a->rows = a->height * (d->Depth ? d->Depth : 1);
	if (d->Width > SIZE_MAX / eb || a->rows / a->height != (d->Depth ? d->Depth : 1) ||
	    a->rows > SIZE_MAX / (d->Width * eb) ||
	    mem_add(d->Width * eb * a->rows, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY, &mem)) {
		free(a);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	a->mem = mem;
	a->pitch = d->Width * eb;
	pthread_mutex_lock(&S.lock);
	a->next = S.arrays;
	S.arrays = a;
	pthread_mutex_unlock(&S.lock);
	*out = a;
	return CUDA_SUCCESS;
}

/* The array h, taken off the list; NULL if none. */
static struct CUarray_st *array_take(CUarray h)
{
	struct CUarray_st **pa, *a;

	pthread_mutex_lock(&S.lock);
	for (pa = &S.arrays; (a = *pa) && a != h; pa = &a->next)
		;
	if (a)
		*pa = a->next;
	pthread_mutex_unlock(&S.lock);
	return a;
}

size_t gpsim_array_pitch(CUarray h)
{
	struct CUarray_st *a = array_of(h);

	return a ? a->pitch : 0;
}

size_t gpsim_array_elem(CUarray h)
{
	struct CUarray_st *a = array_of(h);

	return a ? a->pitch / a->d.Width : 0;
}

int gpsim__array_ok(CUarray h, unsigned int *flags)
{
	struct CUarray_st *a = array_of(h);

	if (a && flags)
		*flags = a->d.Flags;
	return !!a;
}

/* [off, off + n) of an array's bytes, row after row; NULL if past its end. */
static char *array_bytes(CUarray h, size_t off, size_t n)
{
	struct CUarray_st *a = array_of(h);
	size_t size = a ? a->pitch * a->rows : 0;

	return a && off <= size && n <= size - off ? a->mem + off : NULL;
}

CUresult CUDAAPI cuArrayCreate_v2(CUarray *out, const CUDA_ARRAY_DESCRIPTOR *d)
{
	cuArrayCreate_v2_params p = { out, d };
	CUDA_ARRAY3D_DESCRIPTOR d3;
	DRV_ENTER(cuArrayCreate_v2, &p, NULL);

	NEED_CTX();
	if (!d)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	d3 = (CUDA_ARRAY3D_DESCRIPTOR){ .Width = d->Width, .Height = d->Height,
					.Format = d->Format, .NumChannels = d->NumChannels };
	DRV_RETURN(array_new(out, &d3));
}

CUresult CUDAAPI cuArray3DCreate_v2(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	cuArray3DCreate_v2_params p = { out, d };
	DRV_ENTER(cuArray3DCreate_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(array_new(out, d));
}

CUresult CUDAAPI cuArrayDestroy(CUarray h)
{
	cuArrayDestroy_params p = { h };
	struct CUarray_st *a;
	DRV_ENTER(cuArrayDestroy, &p, NULL);

	NEED_CTX();
	a = array_take(h);
	if (!a)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	mem_del(a->mem, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY);
	free(a);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *out, CUarray h)
{
	cuArrayGetDescriptor_v2_params p = { out, h };
	struct CUarray_st *a = array_of(h);
	DRV_ENTER(cuArrayGetDescriptor_v2, &p, NULL);

	NEED_CTX();
	if (!out)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!a)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	*out = (CUDA_ARRAY_DESCRIPTOR){ a->d.Width, a->d.Height, a->d.Format, a->d.NumChannels };
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *out, CUarray h)
{
	cuArray3DGetDescriptor_v2_params p = { out, h };
	struct CUarray_st *a = array_of(h);
	DRV_ENTER(cuArray3DGetDescriptor_v2, &p, NULL);

	NEED_CTX();
	if (!out)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!a)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	*out = a->d;
	DRV_RETURN(CUDA_SUCCESS);
}

/* The linear copies to and from arrays: an array's bytes taken row after row from the offset. */
CUresult CUDAAPI cuMemcpyHtoA_v2(CUarray dst, size_t off, const void *src, size_t n)
{
	cuMemcpyHtoA_v2_params p = { dst, off, src, n };
	char *a = array_bytes(dst, off, n);
	DRV_ENTER(cuMemcpyHtoA_v2, &p, NULL);

	NEED_CTX();
	if (!a || !src)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(do_copy(a, src, n, CUPTI_ACTIVITY_MEMCPY_KIND_HTOA, NULL, 0));
}

CUresult CUDAAPI cuMemcpyHtoAAsync_v2(CUarray dst, size_t off, const void *src, size_t n,
				      CUstream s)
{
	cuMemcpyHtoAAsync_v2_params p = { dst, off, src, n, s };
	char *a = array_bytes(dst, off, n);
	DRV_ENTER(cuMemcpyHtoAAsync_v2, &p, NULL);

	NEED_CTX();
	if (!a || !src)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(do_copy(a, src, n, CUPTI_ACTIVITY_MEMCPY_KIND_HTOA, s, 1));
}

CUresult CUDAAPI cuMemcpyAtoH_v2(void *dst, CUarray src, size_t off, size_t n)
{
	cuMemcpyAtoH_v2_params p = { dst, src, off, n };
	char *a = array_bytes(src, off, n);
	DRV_ENTER(cuMemcpyAtoH_v2, &p, NULL);

	NEED_CTX();
	if (!a || !dst)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(do_copy(dst, a, n, CUPTI_ACTIVITY_MEMCPY_KIND_ATOH, NULL, 0));
}

CUresult CUDAAPI cuMemcpyAtoHAsync_v2(void *dst, CUarray src, size_t off, size_t n, CUstream s)
{
	cuMemcpyAtoHAsync_v2_params p = { dst, src, off, n, s };
	char *a = array_bytes(src, off, n);
	DRV_ENTER(cuMemcpyAtoHAsync_v2, &p, NULL);

	NEED_CTX();
	if (!a || !dst)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(do_copy(dst, a, n, CUPTI_ACTIVITY_MEMCPY_KIND_ATOH, s, 1));
}

CUresult CUDAAPI cuMemcpyDtoA_v2(CUarray dst, size_t off, CUdeviceptr src, size_t n)
{
	cuMemcpyDtoA_v2_params p = { dst, off, src, n };
	char *a = array_bytes(dst, off, n);
	DRV_ENTER(cuMemcpyDtoA_v2, &p, NULL);

	NEED_CTX();
	if (!a || !src)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(do_copy(a, PTR(src), n, CUPTI_ACTIVITY_MEMCPY_KIND_DTOA, NULL, 0));
}

CUresult CUDAAPI cuMemcpyAtoD_v2(CUdeviceptr dst, CUarray src, size_t off, size_t n)
{
	cuMemcpyAtoD_v2_params p = { dst, src, off, n };
	char *a = array_bytes(src, off, n);
	DRV_ENTER(cuMemcpyAtoD_v2, &p, NULL);

	NEED_CTX();
	if (!a || !dst)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(do_copy(PTR(dst), a, n, CUPTI_ACTIVITY_MEMCPY_KIND_ATOD, NULL, 0));
}

CUresult CUDAAPI cuMemcpyAtoA_v2(CUarray dst, size_t doff, CUarray src, size_t soff, size_t n)
{
	cuMemcpyAtoA_v2_params p = { dst, doff, src, soff, n };
	char *d = array_bytes(dst, doff, n), *sp = array_bytes(src, soff, n);
	DRV_ENTER(cuMemcpyAtoA_v2, &p, NULL);

	NEED_CTX();
	if (!d || !sp)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(do_copy(d, sp, n, CUPTI_ACTIVITY_MEMCPY_KIND_ATOA, NULL, 0));
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
	s->ctx = gpsim__ctx_top();
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
			/* A host job still names the stream; the handle goes once it is done. */
			while (s->host_busy)
				pthread_cond_wait(&S.host_cond, &S.lock);
			/* Its work still completes after the handle is gone. */
			*pp = s->next;
			S.orphan_ready = max_u64(S.orphan_ready, s->ready);
			free(s->qend);
			free(s->cdeps);
			free(s->cedges);
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
	if (capture_refuses(s))
		DRV_RETURN(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	start = sync_now();
	pthread_mutex_lock(&S.lock);
	while (s->host_busy)
		pthread_cond_wait(&S.host_cond, &S.lock);
	t = s->ready;
	pthread_mutex_unlock(&S.lock);
	wait_until(t);
	gpsim__pools_on_sync();
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
	if (capture_refuses(s))
		DRV_RETURN(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	pthread_mutex_lock(&S.lock);
	t = s->host_busy ? UINT64_MAX : s->ready;
	pthread_mutex_unlock(&S.lock);
	DRV_RETURN(gpsim_now() >= t ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY);
}

/*
 * "Sets attribute attr on hStream from corresponding attribute of value.
 * The updated attribute will be applied to subsequent work submitted to
 * the stream." Nothing here depends on them (no L2, no SM scheduling), so
 * they are checked, kept and given back by cuStreamGetAttribute; the
 * access policy window is a hint ("CUDA driver may restrict the maximum
 * size and alignment"), kept as given.
 */
static CUresult stream_attr(struct CUstream_st *s, CUstreamAttrID attr, CUstreamAttrValue *v,
			    int set)
{
	CUresult r = CUDA_SUCCESS;

	if (!v)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&S.lock);
	switch (attr) {
	case CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW: {
		const CUaccessPolicyWindow *w = &v->accessPolicyWindow;

		if (!set) {
			v->accessPolicyWindow = s->apw;
			break;
		}
		/* "hitRatio specifies percentage of lines assigned hitProp"; missProp "Must be either NORMAL or STREAMING" */
		if (!(w->hitRatio >= 0.0f && w->hitRatio <= 1.0f) ||
		    (unsigned)w->hitProp > CU_ACCESS_PROPERTY_PERSISTING ||
		    (w->missProp != CU_ACCESS_PROPERTY_NORMAL &&
		     w->missProp != CU_ACCESS_PROPERTY_STREAMING))
			r = CUDA_ERROR_INVALID_VALUE;
		else
			s->apw = *w;
		break;
	}
	case CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY:
		if (!set)
			v->syncPolicy = s->sync_policy ? s->sync_policy : CU_SYNC_POLICY_AUTO;
		else if (v->syncPolicy < CU_SYNC_POLICY_AUTO ||
			 v->syncPolicy > CU_SYNC_POLICY_BLOCKING_SYNC)
			r = CUDA_ERROR_INVALID_VALUE;
		else
			s->sync_policy = v->syncPolicy;
		break;
	case CU_STREAM_ATTRIBUTE_PRIORITY:
		if (set)
			s->priority = v->priority;
		else
			v->priority = s->priority;
		break;
	case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
		if (set)
			s->domain_map = v->memSyncDomainMap;
		else
			v->memSyncDomainMap = s->domain_map;
		break;
	case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN:
		/* "By default, kernels are launched in domain 0." */
		if (!set)
			v->memSyncDomain = s->domain;
		else if (v->memSyncDomain != CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT &&
			 v->memSyncDomain != CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE)
			r = CUDA_ERROR_INVALID_VALUE;
		else
			s->domain = v->memSyncDomain;
		break;
	default:
		r = CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_unlock(&S.lock);
	return r;
}

CUresult CUDAAPI cuStreamSetAttribute(CUstream h, CUstreamAttrID attr, const CUstreamAttrValue *v)
{
	CUstreamAttrValue copy;
	DRV_ENTER(cuStreamSetAttribute, NULL, NULL);

	NEED_CTX();
	if (!v)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	copy = *v;
	DRV_RETURN(stream_attr(stream_of(h), attr, &copy, 1));
}

CUresult CUDAAPI cuStreamSetAttribute_ptsz(CUstream h, CUstreamAttrID attr,
					   const CUstreamAttrValue *v)
{
	CUstreamAttrValue copy;
	DRV_ENTER(cuStreamSetAttribute_ptsz, NULL, NULL);

	NEED_CTX();
	if (!v)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	copy = *v;
	DRV_RETURN(stream_attr(stream_of(h ? h : gpsim_stream_per_thread()), attr, &copy, 1));
}

/* ---- pointer attributes ---- */

/* What p is part of: its memory kind (UNKNOWN: none), the allocation's start and size. */
static int pointer_of(const void *p, uintptr_t *base, size_t *size)
{
	struct alloc *m;
	struct galloc *g;
	int kind = CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN;

	pthread_mutex_lock(&S.lock);
	if ((m = alloc_find(p)) && m->kind != CUPTI_ACTIVITY_MEMORY_KIND_ARRAY) {
		*base = m->base;
		*size = m->size;
		kind = m->kind;
	} else if ((g = galloc_find_locked(p))) {
		*base = g->base;
		*size = g->size;
		kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	}
	pthread_mutex_unlock(&S.lock);
	return kind != CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN ? kind : gpsim__mem_range(p, base, size);
}

/*
 * One attribute of ptr. "If ptr was not allocated by, mapped by, or
 * registered with a CUcontext which uses unified virtual addressing then
 * CUDA_ERROR_INVALID_VALUE is returned." Pinned host memory is mapped
 * (its device pointer is itself, as under unified addressing); device
 * memory has no host pointer; managed memory has both. A boolean is one
 * byte.
 */
static CUresult pointer_attr(void *data, CUpointer_attribute attr, CUdeviceptr ptr)
{
	uintptr_t base = 0;
	size_t size = 0;
	int kind = pointer_of((const void *)(uintptr_t)ptr, &base, &size);
	int host = kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
	int managed = kind == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
	CUcontext ctx = gpsim__primary();
	unsigned int type = host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
	unsigned long long id = base;
	CUdeviceptr start = base;
	int ordinal = GPSIM_DEVICE_ID;
	bool b;

	if (!data)
		return CUDA_ERROR_INVALID_VALUE;
	if (kind == CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN)
		return CUDA_ERROR_INVALID_VALUE;
	switch (attr) {
	case CU_POINTER_ATTRIBUTE_CONTEXT: memcpy(data, &ctx, sizeof(ctx)); break;
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: memcpy(data, &type, sizeof(type)); break;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: memcpy(data, &ptr, sizeof(ptr)); break;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		if (!host && !managed)
			return CUDA_ERROR_INVALID_VALUE;
		memcpy(data, &ptr, sizeof(ptr));
		break;
	case CU_POINTER_ATTRIBUTE_BUFFER_ID: memcpy(data, &id, sizeof(id)); break;
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
		b = managed;
		memcpy(data, &b, sizeof(b));
		break;
	case CU_POINTER_ATTRIBUTE_MAPPED:
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
		b = true;
		memcpy(data, &b, sizeof(b));
		break;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: memcpy(data, &ordinal, sizeof(ordinal)); break;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: memcpy(data, &start, sizeof(start)); break;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE: memcpy(data, &size, sizeof(size)); break;
	default: return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attr, CUdeviceptr ptr)
{
	cuPointerGetAttribute_params p = { data, attr, ptr };
	DRV_ENTER(cuPointerGetAttribute, &p, NULL);
	NEED_INIT();
	DRV_RETURN(pointer_attr(data, attr, ptr));
}

/*
 * "Unlike cuPointerGetAttribute, this function will not return an error
 * when the ptr encountered is not a valid CUDA pointer. Instead, the
 * attributes are assigned default NULL values and CUDA_SUCCESS is
 * returned."
 */
CUresult CUDAAPI cuPointerGetAttributes(unsigned int n, CUpointer_attribute *attrs, void **data,
					CUdeviceptr ptr)
{
	cuPointerGetAttributes_params p = { n, attrs, data, ptr };
	unsigned int i;
	DRV_ENTER(cuPointerGetAttributes, &p, NULL);

	NEED_INIT();
	if (!n || !attrs || !data)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	for (i = 0; i < n; i++) {
		if (!data[i])
			DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
		if (pointer_attr(data[i], attrs[i], ptr) == CUDA_SUCCESS)
			continue;
		/* zero, in the attribute's own size */
		switch (attrs[i]) {
		case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: memset(data[i], 0, sizeof(int)); break;
		case CU_POINTER_ATTRIBUTE_IS_MANAGED:
		case CU_POINTER_ATTRIBUTE_MAPPED:
		case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: memset(data[i], 0, sizeof(bool)); break;
		default: memset(data[i], 0, sizeof(void *));
		}
	}
	DRV_RETURN(CUDA_SUCCESS);
}

/* ---- stream queries ---- */

/* A handle cuStreamCreate made, or one of the special ones; NULL if destroyed or never made. */
static struct CUstream_st *stream_known(CUstream h)
{
	struct CUstream_st *s, *o;

	s = stream_of(h);
	if (s == &S.legacy || s == gpsim_stream_per_thread())
		return s;
	pthread_mutex_lock(&S.lock);
	for (o = S.streams; o && o != s; o = o->next)
		;
	pthread_mutex_unlock(&S.lock);
	return o;
}

/* "Query the flags of a given stream": what it was created with (the legacy stream's are 0). */
CUresult CUDAAPI cuStreamGetFlags(CUstream h, unsigned int *flags)
{
	cuStreamGetFlags_params p = { h, flags };
	struct CUstream_st *s;
	DRV_ENTER(cuStreamGetFlags, &p, NULL);

	NEED_CTX();
	s = stream_known(h);
	if (!flags)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!s)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	*flags = s->flags;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamGetPriority(CUstream h, int *priority)
{
	cuStreamGetPriority_params p = { h, priority };
	struct CUstream_st *s;
	DRV_ENTER(cuStreamGetPriority, &p, NULL);

	NEED_CTX();
	s = stream_known(h);
	if (!priority)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!s)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	*priority = s->priority;
	DRV_RETURN(CUDA_SUCCESS);
}

/* "Returns in streamId the unique Id of the stream": CUPTI's stream id (cuptiGetStreamId). */
CUresult CUDAAPI cuStreamGetId(CUstream h, unsigned long long *id)
{
	cuStreamGetId_params p = { h, id };
	struct CUstream_st *s;
	DRV_ENTER(cuStreamGetId, &p, NULL);

	NEED_CTX();
	s = stream_known(h);
	if (!id)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!s)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	*id = s->id;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamGetDevice(CUstream h, CUdevice *dev)
{
	cuStreamGetDevice_params p = { h, dev };
	DRV_ENTER(cuStreamGetDevice, &p, NULL);

	NEED_CTX();
	if (!dev)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!stream_known(h))
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	*dev = GPSIM_DEVICE_ID;
	DRV_RETURN(CUDA_SUCCESS);
}

/* "Returns the CUDA context that the stream is associated with": the legacy stream's is the current one. */
CUresult CUDAAPI cuStreamGetCtx(CUstream h, CUcontext *ctx)
{
	cuStreamGetCtx_params p = { h, ctx };
	struct CUstream_st *s;
	DRV_ENTER(cuStreamGetCtx, &p, NULL);

	NEED_CTX();
	s = stream_known(h);
	if (!ctx)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!s)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	*ctx = s->ctx ? s->ctx : gpsim__ctx_top();
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamGetAttribute(CUstream h, CUstreamAttrID attr, CUstreamAttrValue *v)
{
	DRV_ENTER(cuStreamGetAttribute, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(stream_attr(stream_of(h), attr, v, 0));
}

CUresult CUDAAPI cuStreamGetAttribute_ptsz(CUstream h, CUstreamAttrID attr, CUstreamAttrValue *v)
{
	DRV_ENTER(cuStreamGetAttribute_ptsz, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(stream_attr(stream_of(h ? h : gpsim_stream_per_thread()), attr, v, 0));
}

CUresult CUDAAPI cuEventCreate(CUevent *ph, unsigned int flags)
{
	struct CUevent_st *e;
	cuEventCreate_params p = { ph, flags };
	DRV_ENTER(cuEventCreate, &p, NULL);

	NEED_CTX();
	if (!ph)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* "CU_EVENT_INTERPROCESS ... CU_EVENT_DISABLE_TIMING must be set" */
	if ((flags & CU_EVENT_INTERPROCESS) && !(flags & CU_EVENT_DISABLE_TIMING))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	e = calloc(1, sizeof(*e));
	if (!e)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	e->flags = flags;
	e->shared_fd = -1;
	if ((flags & CU_EVENT_INTERPROCESS) && !(e->shared = gpsim__ipc_page(&e->shared_fd))) {
		free(e);
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	}
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
	gpsim__ipc_page_put(e->shared, e->shared_fd);
	free(e->cdeps);
	free(e);
	DRV_RETURN(CUDA_SUCCESS);
}

static CUresult capture_event_record(CUevent e, struct CUstream_st *s, unsigned int flags);
static int capture_wait_event(struct CUstream_st *s, CUevent e, unsigned int flags, CUresult *r);

static CUresult event_record(CUevent e, struct CUstream_st *s, unsigned int flags)
{
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	if (flags & ~(unsigned int)CU_EVENT_RECORD_EXTERNAL)
		return CUDA_ERROR_INVALID_VALUE;
	if (s->cap)
		return capture_event_record(e, s, flags);
	pthread_mutex_lock(&S.lock);
	wait_host_locked(s);
	/* The event completes when all work issued to the stream so far has. */
	ev_set(e, max_u64(gpsim_now(), stream_dep(s)));
	e->cap_id = 0;
	pthread_mutex_unlock(&S.lock);
	return CUDA_SUCCESS;
}

/* The interprocess page of event e, for a handle (sim_ipc.c): -1 unless e is interprocess. */
int gpsim__event_shared_fd(CUevent e)
{
	return e && (e->flags & CU_EVENT_INTERPROCESS) && (e->flags & CU_EVENT_DISABLE_TIMING) ?
		       e->shared_fd :
		       -1;
}

/* An event over page, another process's (cuIpcOpenEventHandle): it behaves as DISABLE_TIMING. */
CUresult gpsim__event_import(CUevent *pe, _Atomic uint64_t *page)
{
	struct CUevent_st *e = calloc(1, sizeof(*e));

	if (!e)
		return CUDA_ERROR_OUT_OF_MEMORY;
	e->flags = CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
	e->shared = page;
	e->shared_fd = -1;
	pthread_mutex_lock(&S.lock);
	e->id = S.next_event_id++;
	pthread_mutex_unlock(&S.lock);
	*pe = e;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventRecord(CUevent e, CUstream h)
{
	cuEventRecord_params p = { e, h };
	DRV_ENTER(cuEventRecord, &p, NULL);
	NEED_CTX();
	DRV_RETURN(event_record(e, stream_of(h), 0));
}

CUresult CUDAAPI cuEventRecordWithFlags(CUevent e, CUstream h, unsigned int flags)
{
	cuEventRecordWithFlags_params p = { e, h, flags };
	DRV_ENTER(cuEventRecordWithFlags, &p, NULL);
	NEED_CTX();
	DRV_RETURN(event_record(e, stream_of(h), flags));
}

CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent e, CUstream h, unsigned int flags)
{
	cuEventRecordWithFlags_ptsz_params p = { e, h, flags };
	DRV_ENTER(cuEventRecordWithFlags_ptsz, &p, NULL);
	NEED_CTX();
	DRV_RETURN(event_record(e, stream_of(h ? h : gpsim_stream_per_thread()), flags));
}

CUresult CUDAAPI cuEventQuery(CUevent e)
{
	uint64_t ts;
	DRV_ENTER(cuEventQuery, NULL, NULL);
	NEED_CTX();
	if (!e)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	DRV_RETURN(!ev_get(e, &ts) || gpsim_now() >= ts ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY);
}

CUresult CUDAAPI cuEventSynchronize(CUevent e)
{
	struct sync_stamp start;
	uint64_t ts;
	cuEventSynchronize_params p = { e };
	DRV_ENTER(cuEventSynchronize, &p, NULL);

	NEED_CTX();
	if (!e)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	start = sync_now();
	if (ev_get(e, &ts))
		wait_until(ts);
	gpsim__pools_on_sync();
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
	uint64_t ts;
	CUresult r;
	cuStreamWaitEvent_params p = { h, e, flags };
	DRV_ENTER(cuStreamWaitEvent, &p, NULL);

	NEED_CTX();
	if (!e)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	s = stream_of(h);
	if (capture_wait_event(s, e, flags, &r))
		DRV_RETURN(r);
	now = sync_now();
	pthread_mutex_lock(&S.lock);
	if (ev_get(e, &ts))
		s->ready = max_u64(s->ready, ts);
	pthread_mutex_unlock(&S.lock);
	report_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, s->id, e->id, now);
	DRV_RETURN(CUDA_SUCCESS);
}

/* ---- modules and launches ------------------------------------------- */

CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction f)
{
	DRV_ENTER(cuFuncGetName, NULL, NULL);
	if (!name || !f)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*name = f->name;
	DRV_RETURN(CUDA_SUCCESS);
}

static CUresult do_launch(CUfunction f, const unsigned int grid[3], const unsigned int block[3],
			  unsigned int shmem, CUstream hstream, int launch_type)
{
	struct CUstream_st *s = stream_of(hstream);
	struct gpsim_op op = { .kind = GPSIM_OP_KERNEL, .launch_type = launch_type };
	int i;

	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	for (i = 0; i < 3; i++)
		if (!grid[i] || !block[i])
			return CUDA_ERROR_INVALID_VALUE;
	if ((uint64_t)block[0] * block[1] * block[2] > 1024)
		return CUDA_ERROR_INVALID_VALUE;
	if (s->capture) {
		struct CUgraphNode_st *n = capture_node(s, CU_GRAPH_NODE_TYPE_KERNEL);

		if (!n)
			return CUDA_ERROR_OUT_OF_MEMORY;
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

	return do_launch(f, grid, block, shmem, h, type);
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

/*
 * "Invokes the function CUfunction or the kernel CUkernel f with the
 * specified launch-time configuration config."
 * "Setting CU_LAUNCH_ATTRIBUTE_COOPERATIVE to a non-zero value causes the
 * kernel launch to be a cooperative launch, with exactly the same usage
 * and semantics of cuLaunchCooperativeKernel." The other attributes valid
 * for launches are hints the simulated timeline does not follow; one valid
 * for streams only (the synchronization policy) is
 * CUDA_ERROR_INVALID_VALUE.
 */
static CUresult launch_ex(const CUlaunchConfig *c, CUfunction f, CUstream h)
{
	int type = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
	unsigned int i;

	if (!c || (c->numAttrs && !c->attrs))
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < c->numAttrs; i++) {
		if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY ||
		    c->attrs[i].id > CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING)
			return CUDA_ERROR_INVALID_VALUE;
		if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && c->attrs[i].value.cooperative)
			type = CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE;
	}
	return launch_entry(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY,
			    c->blockDimZ, c->sharedMemBytes, h, type);
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params,
				  void **extra)
{
	cuLaunchKernelEx_params p = { config, f, params, extra };
	DRV_ENTER(cuLaunchKernelEx, &p, f ? f->name : NULL);
	NEED_CTX();
	DRV_RETURN(launch_ex(config, f, config ? config->hStream : NULL));
}

CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **params,
				       void **extra)
{
	cuLaunchKernelEx_ptsz_params p = { config, f, params, extra };
	DRV_ENTER(cuLaunchKernelEx_ptsz, &p, f ? f->name : NULL);
	NEED_CTX();
	DRV_RETURN(launch_ex(config, f,
			     config && config->hStream ? config->hStream : gpsim_stream_per_thread()));
}

/* ---- host functions ------------------------------------------------------ */

/*
 * A host function (cuLaunchHostFunc, cuStreamAddCallback), or the rest of a
 * graph launch from a host node on: run by the host worker at `start`,
 * when the work before it on its stream is done.
 */
struct host_job {
	struct host_job *next;
	uint64_t start;
	struct CUstream_st *s;
	CUstream handle; /* the stream as the program named it, for a stream callback */
	CUhostFn fn;
	CUstreamCallback cb;
	void *user;
	struct glaunch *gl;
	uint32_t corr, tid; /* the call that enqueued it */
};

static void log_host_fn(uint32_t corr, uint32_t issuer, uint32_t stream_id, uint64_t start,
			uint64_t end)
{
	char line[256];
	size_t pos = 0;

	if (S.log_fd < 0)
		return;
	bprintf(line, sizeof(line), &pos,
		"{\"type\":\"host_fn\",\"corr\":%u,\"issuer_tid\":%u,\"tid\":%u,\"stream\":%u"
		",\"start\":%" PRIu64 ",\"end\":%" PRIu64 "}",
		corr, issuer, gpsim_gettid(), stream_id, start, end);
	gpsim_log_line(line);
}

static int glaunch_run(struct glaunch *gl, int on_worker);

static void host_run(struct host_job *j)
{
	uint64_t start, end;

	wait_until(j->start);
	if (j->gl) {
		glaunch_run(j->gl, 1);
		free(j->gl);
		pthread_mutex_lock(&S.lock);
	} else {
		start = gpsim_now();
		if (j->fn)
			j->fn(j->user);
		else
			j->cb(j->handle, CUDA_SUCCESS, j->user);
		end = gpsim_now();
		log_host_fn(j->corr, j->tid, j->s->id, start, end);
		pthread_mutex_lock(&S.lock);
		/* "will block work added after it": that work starts when it has returned. */
		j->s->ready = max_u64(j->s->ready, end);
	}
	j->s->host_busy--;
	S.host_pending--;
	pthread_cond_broadcast(&S.host_cond);
	pthread_mutex_unlock(&S.lock);
	free(j);
}

/*
 * One thread runs every host function, the earliest start first ("Host
 * functions without a mandated order (such as in independent streams)
 * execute in undefined order and may be serialized."). It leaves after a
 * while without work and the next host function starts it again.
 */
static void *host_main(void *arg)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "gpsim-hostfn");
	pthread_mutex_lock(&S.lock);
	for (;;) {
		struct host_job **pj, **best = NULL, *j;

		if (!S.jobs && !S.host_stop) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 50 * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&S.job_cond, &S.lock, &ts);
		}
		if (!S.jobs)
			break;
		for (pj = &S.jobs; *pj; pj = &(*pj)->next)
			if (!best || (*pj)->start < (*best)->start)
				best = pj;
		j = *best;
		*best = j->next;
		pthread_mutex_unlock(&S.lock);
		host_run(j);
		pthread_mutex_lock(&S.lock);
	}
	S.host_running = 0;
	pthread_cond_broadcast(&S.host_cond);
	pthread_mutex_unlock(&S.lock);
	return NULL;
}

/* At exit: the worker finishes what is enqueued and leaves, so no thread of ours outlives main. */
static void host_worker_stop(void)
{
	pthread_mutex_lock(&S.lock);
	S.host_stop = 1;
	pthread_cond_broadcast(&S.job_cond);
	while (S.host_running)
		pthread_cond_wait(&S.host_cond, &S.lock);
	S.host_stop = 0;
	pthread_mutex_unlock(&S.lock);
}

/* Enqueues j to start at j->start, holding back work issued to its stream until it is done. Lock held. */
static CUresult host_enqueue_locked(struct host_job *j)
{
	static int exit_hook;
	pthread_attr_t attr;
	pthread_t t;

	if (!S.host_running) {
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &attr, host_main, NULL)) {
			pthread_attr_destroy(&attr);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		pthread_attr_destroy(&attr);
		S.host_running = 1;
		if (!exit_hook) {
			exit_hook = 1;
			atexit(host_worker_stop);
		}
	}
	j->s->host_busy++;
	S.host_pending++;
	j->next = S.jobs;
	S.jobs = j;
	pthread_cond_signal(&S.job_cond);
	return CUDA_SUCCESS;
}

static CUresult host_fn_enqueue(CUstream h, CUhostFn fn, CUstreamCallback cb, void *user)
{
	struct CUstream_st *s = stream_of(h);
	struct host_job *j;
	uint32_t rt, drv;
	CUresult r;

	if (s->capture) {
		struct CUgraphNode_st *n;

		/* "this function is not supported with ::cuStreamBeginCapture and ::cuStreamEndCapture, unlike ::cuLaunchHostFunc" */
		if (cb)
			return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
		n = capture_node(s, CU_GRAPH_NODE_TYPE_HOST);
		if (!n)
			return CUDA_ERROR_OUT_OF_MEMORY;
		n->fn = fn;
		n->user = user;
		return CUDA_SUCCESS;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return CUDA_ERROR_OUT_OF_MEMORY;
	j->s = s;
	j->handle = h;
	j->fn = fn;
	j->cb = cb;
	j->user = user;
	j->tid = gpsim_gettid();
	current_corr(&j->corr, &rt, &drv);
	pthread_mutex_lock(&S.lock);
	wait_host_locked(s);
	/* "The function will be called after currently enqueued work" */
	j->start = max_u64(gpsim_now() + LAUNCH_LATENCY_NS, stream_dep(s));
	r = host_enqueue_locked(j);
	pthread_mutex_unlock(&S.lock);
	if (r)
		free(j);
	return r;
}

CUresult CUDAAPI cuLaunchHostFunc(CUstream h, CUhostFn fn, void *user)
{
	cuLaunchHostFunc_params p = { h, fn, user };
	DRV_ENTER(cuLaunchHostFunc, &p, NULL);
	NEED_CTX();
	if (!fn)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(host_fn_enqueue(h, fn, NULL, user));
}

CUresult CUDAAPI cuLaunchHostFunc_ptsz(CUstream h, CUhostFn fn, void *user)
{
	cuLaunchHostFunc_ptsz_params p = { h, fn, user };
	DRV_ENTER(cuLaunchHostFunc_ptsz, &p, NULL);
	NEED_CTX();
	if (!fn)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(host_fn_enqueue(h ? h : gpsim_stream_per_thread(), fn, NULL, user));
}

CUresult CUDAAPI cuStreamAddCallback(CUstream h, CUstreamCallback cb, void *user,
				     unsigned int flags)
{
	cuStreamAddCallback_params p = { h, cb, user, flags };
	DRV_ENTER(cuStreamAddCallback, &p, NULL);
	NEED_CTX();
	/* "flags - Reserved for future use, must be 0" */
	if (!cb || flags)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(host_fn_enqueue(h, NULL, cb, user));
}

CUresult CUDAAPI cuStreamAddCallback_ptsz(CUstream h, CUstreamCallback cb, void *user,
					  unsigned int flags)
{
	cuStreamAddCallback_ptsz_params p = { h, cb, user, flags };
	DRV_ENTER(cuStreamAddCallback_ptsz, &p, NULL);
	NEED_CTX();
	if (!cb || flags)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(host_fn_enqueue(h ? h : gpsim_stream_per_thread(), NULL, cb, user));
}

/* ---- graphs ----------------------------------------------------------------- */

/* CUPTI's resource-domain graph callbacks (CUPTI_CBID_RESOURCE_GRAPH*). */
static void graph_event(uint32_t cbid, CUgraph g, CUgraph orig_g, CUgraphNode n,
			CUgraphNode orig_n, CUgraphNode dep, CUgraphExec x)
{
	const struct gpsim_hooks *h = hooks();
	struct gpsim_graph_ev ev = { .graph = g, .original_graph = orig_g, .node = n,
				     .original_node = orig_n, .dependency = dep, .exec = x,
				     .node_type = n ? (int)n->type : 0 };

	if (h && h->graph)
		h->graph(cbid, &ev);
}

static struct CUgraph_st *graph_new(void)
{
	struct CUgraph_st *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	pthread_mutex_lock(&S.lock);
	g->id = S.next_graph_id++;
	pthread_mutex_unlock(&S.lock);
	return g;
}

static void graph_free(struct CUgraph_st *g);

static void exec_free(struct CUgraphExec_st *x);

static void node_free(struct CUgraphNode_st *n)
{
	unsigned int i;

	if (!n)
		return;
	graph_free(n->child);
	for (i = 0; i < n->nbodies; i++) {
		if (n->own_bodies)
			graph_free(n->bodies[i]);
		if (n->subs)
			exec_free(n->subs[i]);
	}
	if (n->own_bodies)
		free(n->bodies);
	free(n->subs);
	free(n->deps);
	free(n);
}

/* A node of type `type` at the end of g, depending on nodes deps[0..ndeps) of g. */
static struct CUgraphNode_st *node_add(struct CUgraph_st *g, CUgraphNodeType type,
				       const CUgraphNode *deps, size_t ndeps, CUresult *err)
{
	struct CUgraphNode_st *n, **nn;
	size_t i, k;

	*err = CUDA_ERROR_INVALID_VALUE;
	if (!g || (ndeps && !deps))
		return NULL;
	for (i = 0; i < ndeps; i++)
		if (!deps[i] || deps[i]->graph != g || deps[i]->dead)
			return NULL;
	*err = CUDA_ERROR_OUT_OF_MEMORY;
	n = calloc(1, sizeof(*n));
	if (!n || (ndeps && !(n->deps = calloc(ndeps, sizeof(*n->deps))))) {
		node_free(n);
		return NULL;
	}
	if (g->n == g->cap) {
		nn = realloc(g->nodes, (g->cap * 2 + 4) * sizeof(*nn));
		if (!nn) {
			node_free(n);
			return NULL;
		}
		g->nodes = nn;
		g->cap = g->cap * 2 + 4;
	}
	for (i = 0; i < ndeps; i++)
		for (k = 0; k < g->n; k++)
			if (g->nodes[k] == deps[i])
				n->deps[n->ndeps++] = k;
	n->graph = g;
	n->type = type;
	n->height = 1;
	pthread_mutex_lock(&S.lock);
	n->id = S.next_node_id++;
	pthread_mutex_unlock(&S.lock);
	g->nodes[g->n++] = n;
	*err = CUDA_SUCCESS;
	return n;
}

static int capture_deps_reserve(struct CUstream_st *s, size_t n);
static size_t node_index(const struct CUgraph_st *g, const struct CUgraphNode_st *n);

/*
 * The next node of a stream capture: it depends on the stream's capture
 * dependencies ("The next node to be captured in the stream will depend on
 * this set of nodes"), and becomes the only one.
 */
static struct CUgraphNode_st *capture_node(struct CUstream_st *s, CUgraphNodeType type)
{
	struct CUgraph_st *g = s->capture;
	struct CUgraphNode_st *n;
	CUresult err;

	if (capture_deps_reserve(s, 1))
		return NULL;
	n = node_add(g, type, s->cdeps, s->ncdeps, &err);
	if (!n)
		return NULL;
	graph_event(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, g, NULL, n, NULL, NULL, NULL);
	s->cdeps[0] = n;
	s->ncdeps = 1;
	return n;
}

static struct CUgraph_st *graph_dup(const struct CUgraph_st *orig);

/* A copy of n's parameters and dependencies (the same indices), with an id of its own. */
static struct CUgraphNode_st *node_clone(const struct CUgraphNode_st *n, struct CUgraph_st *g)
{
	struct CUgraphNode_st *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *n;
	c->graph = g;
	c->deps = NULL;
	c->child = NULL;
	c->own_bodies = 0; /* graph_dup() copies them */
	c->subs = NULL;
	if ((n->ndeps && !(c->deps = malloc(n->ndeps * sizeof(*c->deps)))) ||
	    (n->child && !(c->child = graph_dup(n->child)))) {
		node_free(c);
		return NULL;
	}
	if (n->ndeps)
		memcpy(c->deps, n->deps, n->ndeps * sizeof(*c->deps));
	pthread_mutex_lock(&S.lock);
	c->id = S.next_node_id++;
	pthread_mutex_unlock(&S.lock);
	return c;
}

/*
 * A capture sequence: begun on one stream (its origin), joined by every
 * stream that waits for an event recorded in it, ended on its origin.
 * Graphs are not internally synchronized ("graph objects are not
 * thread-safe"), so neither is the capture's graph; the list of captures,
 * which other threads read for the capture mode rules, is under S.lock.
 */
struct capture {
	uint64_t id; /* "an id for the capture sequence, which is unique over the lifetime of the process" */
	struct CUgraph_st *graph;
	struct CUstream_st *origin;
	CUstreamCaptureMode mode;
	uint32_t tid; /* the thread that began it */
	int invalid;  /* an error invalidated it: cuStreamEndCapture returns no graph */
	int to_graph; /* cuStreamBeginCaptureToGraph: the graph is the program's */
	struct capture *next;
};

static struct capture *captures; /* under S.lock */
static uint64_t next_capture_id = 1;
static __thread CUstreamCaptureMode tls_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

static int capture_deps_reserve(struct CUstream_st *s, size_t n)
{
	CUgraphNode *d;
	CUgraphEdgeData *e;
	size_t cap = s->cdcap;

	if (n <= cap)
		return 0;
	while (cap < n)
		cap = cap * 2 + 4;
	d = realloc(s->cdeps, cap * sizeof(*d));
	if (!d)
		return -ENOMEM;
	s->cdeps = d;
	e = realloc(s->cedges, cap * sizeof(*e));
	if (!e)
		return -ENOMEM;
	memset(e, 0, cap * sizeof(*e));
	s->cedges = e;
	s->cdcap = cap;
	return 0;
}

/* The stream's capture dependencies become deps[0..n) (add: join them), without duplicates. */
static int capture_deps_set(struct CUstream_st *s, const CUgraphNode *deps, size_t n, int add)
{
	size_t i, k, have = add ? s->ncdeps : 0;

	if (capture_deps_reserve(s, have + n))
		return -ENOMEM;
	s->ncdeps = have;
	for (i = 0; i < n; i++) {
		for (k = 0; k < s->ncdeps && s->cdeps[k] != deps[i]; k++)
			;
		if (k == s->ncdeps)
			s->cdeps[s->ncdeps++] = deps[i];
	}
	return 0;
}

static int deps_in_graph(const struct CUgraph_st *g, const CUgraphNode *deps, size_t n)
{
	size_t i;

	if (n && !deps)
		return 0;
	for (i = 0; i < n; i++)
		if (!deps[i] || deps[i]->graph != g || deps[i]->dead)
			return 0;
	return 1;
}

/* s joins capture c with dependencies deps (a fork: cuStreamWaitEvent on an event of c). */
static int capture_join(struct CUstream_st *s, struct capture *c, const CUgraphNode *deps,
			size_t n)
{
	if (capture_deps_set(s, deps, n, 0))
		return -ENOMEM;
	s->cap = c;
	s->capture = c->graph;
	return 0;
}

static void capture_leave(struct CUstream_st *s)
{
	s->cap = NULL;
	s->capture = NULL;
	s->ncdeps = 0;
}

static struct capture *capture_by_id(uint64_t id)
{
	struct capture *c;

	for (c = captures; c; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

/* A blocking stream captures: the legacy stream is "in an unusable state" meanwhile. Lock held. */
static int legacy_implicit_locked(void)
{
	struct CUstream_st *o;

	for (o = S.streams; o; o = o->next)
		if (o->cap && !(o->flags & CU_STREAM_NON_BLOCKING))
			return 1;
	return 0;
}

/*
 * "It is invalid to synchronize or query the execution status of a stream
 * which is being captured" (the CUDA Programming Guide on stream capture):
 * the call fails and invalidates the capture.
 */
static int capture_refuses(struct CUstream_st *s)
{
	if (!s->cap)
		return 0;
	s->cap->invalid = 1;
	return 1;
}

/*
 * "this thread is prohibited from potentially unsafe API calls" (cuThreadExchangeStreamCaptureMode):
 * 1 if the calling thread's mode and the captures under way forbid such a
 * call now. The captures concerned are invalidated, as the call fails.
 */
static int capture_forbids_unsafe(void)
{
	uint32_t me = gpsim_gettid();
	struct capture *c;
	int forbid = 0;

	if (tls_capture_mode == CU_STREAM_CAPTURE_MODE_RELAXED)
		return 0;
	pthread_mutex_lock(&S.lock);
	for (c = captures; c; c = c->next) {
		int mine = c->tid == me && c->mode != CU_STREAM_CAPTURE_MODE_RELAXED;
		int other = c->tid != me && c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL &&
			    tls_capture_mode == CU_STREAM_CAPTURE_MODE_GLOBAL;

		if (mine || other) {
			c->invalid = 1;
			forbid = 1;
		}
	}
	pthread_mutex_unlock(&S.lock);
	return forbid;
}

static CUresult capture_begin(struct CUstream_st *s, struct CUgraph_st *into,
			      const CUgraphNode *deps, size_t ndeps, CUstreamCaptureMode mode)
{
	struct capture *c;

	/* "Capture may not be initiated if stream is CU_STREAM_LEGACY." */
	if (s->legacy)
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	/* "it may only be initiated if the stream is not already in capture mode" */
	if (s->cap)
		return CUDA_ERROR_ILLEGAL_STATE;
	if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
	    mode != CU_STREAM_CAPTURE_MODE_RELAXED)
		return CUDA_ERROR_INVALID_VALUE;
	if (into && !deps_in_graph(into, deps, ndeps))
		return CUDA_ERROR_INVALID_VALUE;
	c = calloc(1, sizeof(*c));
	if (!c)
		return CUDA_ERROR_OUT_OF_MEMORY;
	c->graph = into ? into : graph_new();
	if (!c->graph || capture_join(s, c, deps, ndeps)) {
		if (!into)
			free(c->graph);
		free(c);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	c->to_graph = into != NULL;
	c->origin = s;
	c->mode = mode;
	c->tid = gpsim_gettid();
	if (!into)
		graph_event(CUPTI_CBID_RESOURCE_GRAPH_CREATED, c->graph, NULL, NULL, NULL, NULL,
			    NULL);
	pthread_mutex_lock(&S.lock);
	c->id = next_capture_id++;
	c->next = captures;
	captures = c;
	pthread_mutex_unlock(&S.lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream h, CUstreamCaptureMode mode)
{
	DRV_ENTER(cuStreamBeginCapture_v2, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(capture_begin(stream_of(h), NULL, NULL, 0, mode));
}

CUresult CUDAAPI cuStreamBeginCaptureToGraph(CUstream h, CUgraph g, const CUgraphNode *deps,
					     const CUgraphEdgeData *edges, size_t ndeps,
					     CUstreamCaptureMode mode)
{
	DRV_ENTER(cuStreamBeginCaptureToGraph, NULL, NULL);
	NEED_CTX();
	if (!g)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* "Dependencies of the first node captured in the stream." */
	DRV_RETURN(capture_begin(stream_of(h), g, deps, ndeps, mode));
}

CUresult CUDAAPI cuStreamBeginCaptureToGraph_ptsz(CUstream h, CUgraph g, const CUgraphNode *deps,
						  const CUgraphEdgeData *edges, size_t ndeps,
						  CUstreamCaptureMode mode)
{
	DRV_ENTER(cuStreamBeginCaptureToGraph_ptsz, NULL, NULL);
	NEED_CTX();
	if (!g)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(capture_begin(stream_of(h ? h : gpsim_stream_per_thread()), g, deps, ndeps,
				 mode));
}

/* Marks in seen[] every node of g that the node at index i depends on, directly or not, and i. */
static void mark_ancestors(const struct CUgraph_st *g, size_t i, unsigned char *seen)
{
	size_t d;

	if (i >= g->n || seen[i])
		return;
	seen[i] = 1;
	for (d = 0; d < g->nodes[i]->ndeps; d++)
		mark_ancestors(g, g->nodes[i]->deps[d], seen);
}

/*
 * "the capture sequence contains a fork that was not joined to the primary
 * stream" (CUDA_ERROR_STREAM_CAPTURE_UNJOINED): 0 if some stream of c
 * depends on a node that the origin stream's dependencies do not reach.
 */
static int capture_joined(const struct capture *c)
{
	const struct CUgraph_st *g = c->graph;
	unsigned char *seen = calloc(g->n ? g->n : 1, 1);
	struct CUstream_st *o;
	int joined = 1;
	size_t i;

	if (!seen)
		return 1;
	for (i = 0; i < c->origin->ncdeps; i++)
		mark_ancestors(g, node_index(g, c->origin->cdeps[i]), seen);
	pthread_mutex_lock(&S.lock);
	for (o = S.streams; o && joined; o = o->next) {
		if (o->cap != c || o == c->origin)
			continue;
		for (i = 0; i < o->ncdeps; i++) {
			size_t k = node_index(g, o->cdeps[i]);

			if (k < g->n && !seen[k])
				joined = 0;
		}
	}
	pthread_mutex_unlock(&S.lock);
	free(seen);
	return joined;
}

CUresult CUDAAPI cuStreamEndCapture(CUstream h, CUgraph *out)
{
	struct CUstream_st *s, *o;
	struct capture *c, **pc;
	CUresult r;
	DRV_ENTER(cuStreamEndCapture, NULL, NULL);

	NEED_CTX();
	s = stream_of(h);
	c = s->cap;
	/*
	 * A capture into the program's graph (cuStreamBeginCaptureToGraph) may
	 * be ended without asking for it: the nodes are in it already, and
	 * NVIDIA's graphConditionalNodes sample passes NULL.
	 */
	if (!out && !(c && c->to_graph))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!c)
		DRV_RETURN(CUDA_ERROR_ILLEGAL_STATE);
	/* "Capture must be ended on the same stream in which it was initiated" */
	if (c->origin != s)
		DRV_RETURN(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
	/* "this call must be from the same thread as cuStreamBeginCapture" */
	if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED && c->tid != gpsim_gettid())
		DRV_RETURN(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
	r = c->invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED :
	    !capture_joined(c) ? CUDA_ERROR_STREAM_CAPTURE_UNJOINED : CUDA_SUCCESS;
	/* "If capture was invalidated, due to a violation of the rules of stream capture, then a NULL graph will be returned." */
	if (out)
		*out = r == CUDA_SUCCESS ? c->graph : NULL;
	pthread_mutex_lock(&S.lock);
	for (o = S.streams; o; o = o->next)
		if (o->cap == c)
			capture_leave(o);
	capture_leave(s);
	for (pc = &captures; *pc; pc = &(*pc)->next) {
		if (*pc == c) {
			*pc = c->next;
			break;
		}
	}
	pthread_mutex_unlock(&S.lock);
	if (r != CUDA_SUCCESS && !c->to_graph)
		graph_free(c->graph);
	free(c);
	DRV_RETURN(r);
}

CUresult CUDAAPI cuStreamIsCapturing(CUstream h, CUstreamCaptureStatus *status)
{
	struct CUstream_st *s;
	int implicit;
	DRV_ENTER(cuStreamIsCapturing, NULL, NULL);

	NEED_CTX();
	if (!status)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	s = stream_of(h);
	pthread_mutex_lock(&S.lock);
	implicit = s->legacy && legacy_implicit_locked();
	pthread_mutex_unlock(&S.lock);
	/* "if this is called on CU_STREAM_LEGACY (the "null stream") while a blocking stream in the same context is capturing, it will return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT" */
	if (implicit)
		DRV_RETURN(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
	*status = !s->cap ? CU_STREAM_CAPTURE_STATUS_NONE :
		  s->cap->invalid ? CU_STREAM_CAPTURE_STATUS_INVALIDATED :
				    CU_STREAM_CAPTURE_STATUS_ACTIVE;
	DRV_RETURN(CUDA_SUCCESS);
}

static CUresult capture_info(struct CUstream_st *s, CUstreamCaptureStatus *status, cuuint64_t *id,
			     CUgraph *graph, const CUgraphNode **deps,
			     const CUgraphEdgeData **edges, size_t *ndeps)
{
	int implicit;

	/* "captureStatus_out - ...; required"; "If edgeData_out is non-NULL then dependencies_out must be as well." */
	if (!status || (edges && !deps))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&S.lock);
	implicit = s->legacy && legacy_implicit_locked();
	pthread_mutex_unlock(&S.lock);
	if (implicit)
		return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
	*status = !s->cap ? CU_STREAM_CAPTURE_STATUS_NONE :
		  s->cap->invalid ? CU_STREAM_CAPTURE_STATUS_INVALIDATED :
				    CU_STREAM_CAPTURE_STATUS_ACTIVE;
	/* "Valid data (other than capture status) is returned only if ... the returned capture status is CU_STREAM_CAPTURE_STATUS_ACTIVE" */
	if (*status != CU_STREAM_CAPTURE_STATUS_ACTIVE)
		return CUDA_SUCCESS;
	if (id)
		*id = s->cap->id;
	if (graph)
		*graph = s->capture;
	if (deps)
		*deps = s->cdeps;
	if (edges)
		*edges = s->cedges;
	if (ndeps)
		*ndeps = s->ncdeps;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamGetCaptureInfo_v3(CUstream h, CUstreamCaptureStatus *status,
					   cuuint64_t *id, CUgraph *graph, const CUgraphNode **deps,
					   const CUgraphEdgeData **edges, size_t *ndeps)
{
	DRV_ENTER(cuStreamGetCaptureInfo_v3, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(capture_info(stream_of(h), status, id, graph, deps, edges, ndeps));
}

CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream h, CUstreamCaptureStatus *status,
						cuuint64_t *id, CUgraph *graph,
						const CUgraphNode **deps,
						const CUgraphEdgeData **edges, size_t *ndeps)
{
	DRV_ENTER(cuStreamGetCaptureInfo_v3_ptsz, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(capture_info(stream_of(h ? h : gpsim_stream_per_thread()), status, id, graph,
				deps, edges, ndeps));
}

static CUresult capture_update(struct CUstream_st *s, CUgraphNode *deps, size_t n,
			       unsigned int flags)
{
	/* "Returns CUDA_ERROR_ILLEGAL_STATE if the stream is not capturing." */
	if (!s->cap)
		return CUDA_ERROR_ILLEGAL_STATE;
	/* "A flags value of 0 defaults to CU_STREAM_ADD_CAPTURE_DEPENDENCIES." */
	if ((flags != CU_STREAM_ADD_CAPTURE_DEPENDENCIES &&
	     flags != CU_STREAM_SET_CAPTURE_DEPENDENCIES) ||
	    !deps_in_graph(s->capture, deps, n))
		return CUDA_ERROR_INVALID_VALUE;
	if (capture_deps_set(s, deps, n, flags == CU_STREAM_ADD_CAPTURE_DEPENDENCIES))
		return CUDA_ERROR_OUT_OF_MEMORY;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v2(CUstream h, CUgraphNode *deps,
						      const CUgraphEdgeData *edges, size_t n,
						      unsigned int flags)
{
	DRV_ENTER(cuStreamUpdateCaptureDependencies_v2, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(capture_update(stream_of(h), deps, n, flags));
}

CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream h, CUgraphNode *deps,
							   const CUgraphEdgeData *edges, size_t n,
							   unsigned int flags)
{
	DRV_ENTER(cuStreamUpdateCaptureDependencies_v2_ptsz, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(capture_update(stream_of(h ? h : gpsim_stream_per_thread()), deps, n, flags));
}

CUresult CUDAAPI cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
	CUstreamCaptureMode prev;
	DRV_ENTER(cuThreadExchangeStreamCaptureMode, NULL, NULL);

	NEED_INIT();
	if (!mode || (*mode != CU_STREAM_CAPTURE_MODE_GLOBAL &&
		      *mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
		      *mode != CU_STREAM_CAPTURE_MODE_RELAXED))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* "Sets the calling thread's stream capture interaction mode to the value contained in *mode, and overwrites *mode with the previous mode for the thread." */
	prev = tls_capture_mode;
	tls_capture_mode = *mode;
	*mode = prev;
	DRV_RETURN(CUDA_SUCCESS);
}

/* cuEventRecord in a capture: the event stands for the stream's capture dependencies. */
static CUresult capture_event_record(CUevent e, struct CUstream_st *s, unsigned int flags)
{
	CUgraphNode *d;

	/* CU_EVENT_RECORD_EXTERNAL: "Event is captured in the graph as an external event node when performing stream capture" */
	if (flags & CU_EVENT_RECORD_EXTERNAL) {
		struct CUgraphNode_st *n = capture_node(s, CU_GRAPH_NODE_TYPE_EVENT_RECORD);

		if (!n)
			return CUDA_ERROR_OUT_OF_MEMORY;
		n->event = e;
		return CUDA_SUCCESS;
	}
	d = malloc((s->ncdeps ? s->ncdeps : 1) * sizeof(*d));
	if (!d)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (s->ncdeps)
		memcpy(d, s->cdeps, s->ncdeps * sizeof(*d));
	pthread_mutex_lock(&S.lock);
	free(e->cdeps);
	e->cdeps = d;
	e->ncdeps = s->ncdeps;
	e->cap_id = s->cap->id;
	pthread_mutex_unlock(&S.lock);
	return CUDA_SUCCESS;
}

/*
 * cuStreamWaitEvent on an event recorded in a capture, or by a capturing
 * stream: a stream not capturing joins the event's capture ("cross-stream
 * dependencies"), one in the same capture adds the event's nodes to its
 * dependencies. 1 if handled here, with *r the result.
 */
static int capture_wait_event(struct CUstream_st *s, CUevent e, unsigned int flags, CUresult *r)
{
	struct capture *c;
	CUgraphNode *d = NULL;
	size_t n = 0;

	pthread_mutex_lock(&S.lock);
	c = e->cap_id ? capture_by_id(e->cap_id) : NULL;
	if (c && e->ncdeps && (d = malloc(e->ncdeps * sizeof(*d)))) {
		memcpy(d, e->cdeps, e->ncdeps * sizeof(*d));
		n = e->ncdeps;
	}
	pthread_mutex_unlock(&S.lock);
	if (!c && !s->cap) {
		free(d);
		return 0;
	}
	*r = CUDA_SUCCESS;
	if (c && e->ncdeps && !d) {
		*r = CUDA_ERROR_OUT_OF_MEMORY;
	} else if (!c) {
		/* CU_EVENT_WAIT_EXTERNAL: "Event is captured in the graph as an external event node when performing stream capture" */
		struct CUgraphNode_st *node;

		if (!(flags & CU_EVENT_WAIT_EXTERNAL)) {
			/* Waiting for work that is not part of the capture: the sequence is invalid. */
			s->cap->invalid = 1;
			*r = CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
		} else if (!(node = capture_node(s, CU_GRAPH_NODE_TYPE_WAIT_EVENT))) {
			*r = CUDA_ERROR_OUT_OF_MEMORY;
		} else {
			node->event = e;
		}
	} else if (!s->cap) {
		if (s->legacy)
			*r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
		else if (capture_join(s, c, d, n))
			*r = CUDA_ERROR_OUT_OF_MEMORY;
	} else if (s->cap != c) {
		/* Two capture sequences would merge. */
		s->cap->invalid = c->invalid = 1;
		*r = CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
	} else if (capture_deps_set(s, d, n, 1)) {
		*r = CUDA_ERROR_OUT_OF_MEMORY;
	}
	free(d);
	return 1;
}

CUresult CUDAAPI cuGraphCreate(CUgraph *out, unsigned int flags)
{
	struct CUgraph_st *g;
	DRV_ENTER(cuGraphCreate, NULL, NULL);

	NEED_CTX();
	/* "flags - Graph creation flags, must be 0" */
	if (!out || flags)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	g = graph_new();
	if (!g)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	graph_event(CUPTI_CBID_RESOURCE_GRAPH_CREATED, g, NULL, NULL, NULL, NULL, NULL);
	*out = g;
	DRV_RETURN(CUDA_SUCCESS);
}

/* In an add_*() of a cuGraphAdd*Node call: the node n, or the call returns why not. */
#define NODE_ADD(type)                              \
	struct CUgraphNode_st *n;                   \
	CUresult err__;                             \
	if (!out)                                   \
		return CUDA_ERROR_INVALID_VALUE;    \
	n = node_add(g, type, deps, ndeps, &err__); \
	if (!n)                                     \
		return err__

static CUresult node_added(struct CUgraphNode_st *n, CUgraphNode *out)
{
	graph_event(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, n->graph, NULL, n, NULL, NULL, NULL);
	*out = n;
	return CUDA_SUCCESS;
}

static int kernel_params_ok(const CUDA_KERNEL_NODE_PARAMS *p)
{
	return p && p->func && p->gridDimX && p->gridDimY && p->gridDimZ && p->blockDimX &&
	       p->blockDimY && p->blockDimZ &&
	       (uint64_t)p->blockDimX * p->blockDimY * p->blockDimZ <= 1024;
}

static void kernel_params_set(struct CUgraphNode_st *n, const CUDA_KERNEL_NODE_PARAMS *p)
{
	n->f = p->func;
	n->grid[0] = p->gridDimX;
	n->grid[1] = p->gridDimY;
	n->grid[2] = p->gridDimZ;
	n->block[0] = p->blockDimX;
	n->block[1] = p->blockDimY;
	n->block[2] = p->blockDimZ;
	n->shmem = p->sharedMemBytes;
	n->launch_type = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
}

static CUresult add_kernel(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
			 size_t ndeps, const CUDA_KERNEL_NODE_PARAMS *p)
{
	if (!kernel_params_ok(p))
		return CUDA_ERROR_INVALID_VALUE;
	NODE_ADD(CU_GRAPH_NODE_TYPE_KERNEL);
	kernel_params_set(n, p);
	return node_added(n, out);
}

CUresult CUDAAPI cuGraphAddKernelNode_v2(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
					 size_t ndeps, const CUDA_KERNEL_NODE_PARAMS *p)
{
	DRV_ENTER(cuGraphAddKernelNode_v2, NULL, p && p->func ? p->func->name : NULL);
	NEED_CTX();
	DRV_RETURN(add_kernel(out, g, deps, ndeps, p));
}

CUresult CUDAAPI cuGraphExecKernelNodeSetParams_v2(CUgraphExec x, CUgraphNode node,
						   const CUDA_KERNEL_NODE_PARAMS *p)
{
	size_t i;
	DRV_ENTER(cuGraphExecKernelNodeSetParams_v2, NULL, NULL);

	NEED_CTX();
	if (!x || !node || node->type != CU_GRAPH_NODE_TYPE_KERNEL || !kernel_params_ok(p))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* "node - kernel node from the graph from which graphExec was instantiated" */
	for (i = 0; i < x->n; i++) {
		if (x->nodes[i]->origin_id == node->id) {
			pthread_mutex_lock(&S.lock);
			while (x->busy)
				pthread_cond_wait(&S.host_cond, &S.lock);
			kernel_params_set(x->nodes[i], p);
			pthread_mutex_unlock(&S.lock);
			graph_event(CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS, NULL, NULL,
				    x->nodes[i], node, NULL, x);
			DRV_RETURN(CUDA_SUCCESS);
		}
	}
	DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
}

/* A memcpy node's parameters from p, checked first (n NULL: only checked). */
static CUresult memcpy_fill(struct CUgraphNode_st *n, const CUDA_MEMCPY3D *p)
{
	struct copy_side src, dst;
	CUresult r;

	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	r = sides_3d(p, &src, &dst);
	if (r != CUDA_SUCCESS || !n)
		return r;
	/* Depth slices of Height rows, contiguous: one list of rows. */
	n->copy3d = *p;
	n->src = src.p;
	n->dst = dst.p;
	n->spitch = src.pitch;
	n->dpitch = dst.pitch;
	n->width = p->WidthInBytes;
	n->height = p->Height * p->Depth;
	n->copy_kind = copy_kind_of(&src, &dst);
	return CUDA_SUCCESS;
}

/* "Size of each element in bytes. Must be 1, 2, or 4." */
static CUresult memset_fill(struct CUgraphNode_st *n, const CUDA_MEMSET_NODE_PARAMS *p)
{
	if (!p || !p->dst || !p->width || !p->height ||
	    (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) ||
	    (p->height > 1 && p->pitch < p->width * p->elementSize))
		return CUDA_ERROR_INVALID_VALUE;
	if (n) {
		n->dst = (char *)(uintptr_t)p->dst;
		n->value = p->value;
		n->elem = p->elementSize;
		n->width = p->width;
		n->height = p->height;
		n->dpitch = p->height > 1 ? p->pitch : p->width * p->elementSize;
	}
	return CUDA_SUCCESS;
}

static CUresult host_fill(struct CUgraphNode_st *n, const CUDA_HOST_NODE_PARAMS *p)
{
	if (!p || !p->fn)
		return CUDA_ERROR_INVALID_VALUE;
	if (n) {
		n->fn = p->fn;
		n->user = p->userData;
	}
	return CUDA_SUCCESS;
}

static CUresult add_memcpy(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
			   const CUDA_MEMCPY3D *p, CUcontext ctx)
{
	CUresult r = memcpy_fill(NULL, p);

	if (r != CUDA_SUCCESS)
		return r;
	NODE_ADD(CU_GRAPH_NODE_TYPE_MEMCPY);
	memcpy_fill(n, p);
	return node_added(n, out);
}

CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				      size_t ndeps, const CUDA_MEMCPY3D *p, CUcontext ctx)
{
	DRV_ENTER(cuGraphAddMemcpyNode, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(add_memcpy(out, g, deps, ndeps, p, ctx));
}

static CUresult add_memset(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				      size_t ndeps, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
	if (memset_fill(NULL, p) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	NODE_ADD(CU_GRAPH_NODE_TYPE_MEMSET);
	memset_fill(n, p);
	return node_added(n, out);
}

CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				      size_t ndeps, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
	DRV_ENTER(cuGraphAddMemsetNode, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(add_memset(out, g, deps, ndeps, p, ctx));
}

static CUresult add_host(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				    size_t ndeps, const CUDA_HOST_NODE_PARAMS *p)
{
	if (host_fill(NULL, p) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	NODE_ADD(CU_GRAPH_NODE_TYPE_HOST);
	host_fill(n, p);
	return node_added(n, out);
}

CUresult CUDAAPI cuGraphAddHostNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				    size_t ndeps, const CUDA_HOST_NODE_PARAMS *p)
{
	DRV_ENTER(cuGraphAddHostNode, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(add_host(out, g, deps, ndeps, p));
}

static CUresult add_empty(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				     size_t ndeps)
{
	NODE_ADD(CU_GRAPH_NODE_TYPE_EMPTY);
	return node_added(n, out);
}

CUresult CUDAAPI cuGraphAddEmptyNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				     size_t ndeps)
{
	DRV_ENTER(cuGraphAddEmptyNode, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(add_empty(out, g, deps, ndeps));
}

static CUresult add_event_record(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
			   size_t ndeps, CUevent e)
{
	if (!e)
		return CUDA_ERROR_INVALID_VALUE;
	NODE_ADD(CU_GRAPH_NODE_TYPE_EVENT_RECORD);
	n->event = e;
	return node_added(n, out);
}

CUresult CUDAAPI cuGraphAddEventRecordNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
					   size_t ndeps, CUevent e)
{
	DRV_ENTER(cuGraphAddEventRecordNode, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(add_event_record(out, g, deps, ndeps, e));
}

static CUresult add_event_wait(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
			 size_t ndeps, CUevent e)
{
	if (!e)
		return CUDA_ERROR_INVALID_VALUE;
	NODE_ADD(CU_GRAPH_NODE_TYPE_WAIT_EVENT);
	n->event = e;
	return node_added(n, out);
}

CUresult CUDAAPI cuGraphAddEventWaitNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
					 size_t ndeps, CUevent e)
{
	DRV_ENTER(cuGraphAddEventWaitNode, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(add_event_wait(out, g, deps, ndeps, e));
}

/* The event of an event node of type t (a graph's node), given back or replaced. */
static CUresult event_node(CUgraphNode node, CUgraphNodeType t, CUevent *get, CUevent set)
{
	if (!node || !node->graph || node->type != t || (get ? 0 : !set))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&S.lock);
	if (get)
		*get = node->event;
	else
		node->event = set;
	pthread_mutex_unlock(&S.lock);
	return CUDA_SUCCESS;
}

/*
 * "Sets the event of an event record node in an executable graph
 * hGraphExec. The node is identified by the corresponding node hNode in
 * the non-executable graph" [...] "The modifications only affect future
 * launches of hGraphExec": the change waits for a launch in progress.
 */
static CUresult exec_event_node(CUgraphExec x, CUgraphNode node, CUgraphNodeType t, CUevent e)
{
	size_t i;

	if (!x || !node || node->type != t || !e)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < x->n; i++) {
		if (x->nodes[i]->origin_id == node->id) {
			pthread_mutex_lock(&S.lock);
			while (x->busy)
				pthread_cond_wait(&S.host_cond, &S.lock);
			x->nodes[i]->event = e;
			pthread_mutex_unlock(&S.lock);
			return CUDA_SUCCESS;
		}
	}
	return CUDA_ERROR_INVALID_VALUE;
}

/* "Returns the event of event record node hNode in event_out." */
CUresult CUDAAPI cuGraphEventRecordNodeGetEvent(CUgraphNode node, CUevent *e)
{
	DRV_ENTER(cuGraphEventRecordNodeGetEvent, NULL, NULL);
	NEED_CTX();
	if (!e)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(event_node(node, CU_GRAPH_NODE_TYPE_EVENT_RECORD, e, NULL));
}

/* "Sets the event of event record node hNode to event." */
CUresult CUDAAPI cuGraphEventRecordNodeSetEvent(CUgraphNode node, CUevent e)
{
	DRV_ENTER(cuGraphEventRecordNodeSetEvent, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(event_node(node, CU_GRAPH_NODE_TYPE_EVENT_RECORD, NULL, e));
}

/* "Returns the event of event wait node hNode in event_out." */
CUresult CUDAAPI cuGraphEventWaitNodeGetEvent(CUgraphNode node, CUevent *e)
{
	DRV_ENTER(cuGraphEventWaitNodeGetEvent, NULL, NULL);
	NEED_CTX();
	if (!e)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(event_node(node, CU_GRAPH_NODE_TYPE_WAIT_EVENT, e, NULL));
}

/* "Sets the event of event wait node hNode to event." */
CUresult CUDAAPI cuGraphEventWaitNodeSetEvent(CUgraphNode node, CUevent e)
{
	DRV_ENTER(cuGraphEventWaitNodeSetEvent, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(event_node(node, CU_GRAPH_NODE_TYPE_WAIT_EVENT, NULL, e));
}

CUresult CUDAAPI cuGraphExecEventRecordNodeSetEvent(CUgraphExec x, CUgraphNode node, CUevent e)
{
	DRV_ENTER(cuGraphExecEventRecordNodeSetEvent, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(exec_event_node(x, node, CU_GRAPH_NODE_TYPE_EVENT_RECORD, e));
}

CUresult CUDAAPI cuGraphExecEventWaitNodeSetEvent(CUgraphExec x, CUgraphNode node, CUevent e)
{
	DRV_ENTER(cuGraphExecEventWaitNodeSetEvent, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(exec_event_node(x, node, CU_GRAPH_NODE_TYPE_WAIT_EVENT, e));
}

/* A graph allocation of size bytes, its memory taken now; NULL (*err why) if none. */
static struct galloc *galloc_new(size_t size, CUresult *err)
{
	struct galloc *ga = calloc(1, sizeof(*ga));
	void *mem = NULL;

	gpsim__graph_pool_used();
	*err = CUDA_ERROR_OUT_OF_MEMORY;
	if (!ga || posix_memalign(&mem, 256, size)) {
		free(ga);
		return NULL;
	}
	ga->base = (uintptr_t)mem;
	ga->size = size;
	*err = CUDA_SUCCESS;
	return ga;
}

/* ga becomes a graph allocation the process knows (its node was made). */
static void galloc_publish(struct galloc *ga)
{
	pthread_mutex_lock(&S.lock);
	ga->next = S.gallocs;
	S.gallocs = ga;
	graph_mem_note_locked();
	pthread_mutex_unlock(&S.lock);
}

/*
 * The graph allocation that a free node of g may free at dptr, now claimed
 * by g; NULL if none: "an allocation twice in the same graph; an address
 * that was not returned by an allocation node; an invalid address", and
 * one free node per allocation ("It is not possible to free an allocation
 * in both the owning graph and another graph").
 */
static struct galloc *galloc_claim_free(CUdeviceptr dptr, const struct CUgraph_st *g)
{
	struct galloc *ga;

	pthread_mutex_lock(&S.lock);
	ga = galloc_find_locked(PTR(dptr));
	if (ga && (ga->base != dptr || ga->free_graph))
		ga = NULL;
	if (ga)
		ga->free_graph = g;
	pthread_mutex_unlock(&S.lock);
	return ga;
}

static void galloc_unclaim(struct galloc *ga)
{
	pthread_mutex_lock(&S.lock);
	ga->free_graph = NULL;
	pthread_mutex_unlock(&S.lock);
}

/*
 * "Creates a new allocation node and adds it to graph ... When
 * cuGraphAddMemAllocNode creates an allocation node, it returns the address
 * of the allocation in nodeParams.dptr." Device memory of this device only
 * ("location where the allocation should reside"; "handleTypes must be
 * CU_MEM_HANDLE_TYPE_NONE").
 */
static CUresult add_mem_alloc(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
			size_t ndeps, CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
	struct galloc *ga;
	CUresult r;
	struct CUgraphNode_st *n;

	if (!out || !p || !p->bytesize || p->poolProps.allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
	    p->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    p->poolProps.location.id != GPSIM_DEVICE_ID ||
	    p->poolProps.handleTypes != CU_MEM_HANDLE_TYPE_NONE)
		return CUDA_ERROR_INVALID_VALUE;
	ga = galloc_new(p->bytesize, &r);
	if (!ga)
		return r;
	n = node_add(g, CU_GRAPH_NODE_TYPE_MEM_ALLOC, deps, ndeps, &r);
	if (!n) {
		free((void *)ga->base);
		free(ga);
		return r;
	}
	galloc_publish(ga);
	n->ga = ga;
	g->has_mem = 1;
	p->dptr = (CUdeviceptr)ga->base;
	return node_added(n, out);
}

CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
					size_t ndeps, CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
	DRV_ENTER(cuGraphAddMemAllocNode, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(add_mem_alloc(out, g, deps, ndeps, p));
}

/*
 * "cuGraphAddMemFreeNode will return CUDA_ERROR_INVALID_VALUE if the user
 * attempts to free: an allocation twice in the same graph; an address that
 * was not returned by an allocation node; an invalid address."
 */
static CUresult add_mem_free(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				       size_t ndeps, CUdeviceptr dptr)
{
	struct galloc *ga;
	struct CUgraphNode_st *n;
	CUresult r;

	if (!out || !g || !(ga = galloc_claim_free(dptr, g)))
		return CUDA_ERROR_INVALID_VALUE;
	n = node_add(g, CU_GRAPH_NODE_TYPE_MEM_FREE, deps, ndeps, &r);
	if (!n) {
		galloc_unclaim(ga);
		return r;
	}
	n->ga = ga;
	g->has_mem = 1;
	return node_added(n, out);
}

CUresult CUDAAPI cuGraphAddMemFreeNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				       size_t ndeps, CUdeviceptr dptr)
{
	DRV_ENTER(cuGraphAddMemFreeNode, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(add_mem_free(out, g, deps, ndeps, dptr));
}

/*
 * cuMemAllocAsync on a capturing stream: "During stream capture, this
 * function results in the creation of an allocation node. In this case,
 * the allocation is owned by the graph instead of the memory pool." The
 * node is the one cuGraphAddMemAllocNode makes: its memory taken now, its
 * address returned now ("The allocation's address remains fixed across
 * instantiations and launches"), made live by each launch reaching it.
 */
CUresult gpsim__capture_mem_alloc(struct CUstream_st *s, size_t size, CUdeviceptr *dptr)
{
	struct CUgraphNode_st *n;
	struct galloc *ga;
	CUresult r;

	ga = galloc_new(size, &r);
	if (!ga)
		return r;
	n = capture_node(s, CU_GRAPH_NODE_TYPE_MEM_ALLOC);
	if (!n) {
		free((void *)ga->base);
		free(ga);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	galloc_publish(ga);
	n->ga = ga;
	s->capture->has_mem = 1;
	*dptr = (CUdeviceptr)ga->base;
	return CUDA_SUCCESS;
}

/*
 * cuMemFreeAsync on a capturing stream: "During stream capture, this
 * function results in the creation of a free node and must therefore be
 * passed the address of a graph allocation" (cuGraphAddMemFreeNode's rules).
 */
CUresult gpsim__capture_mem_free(struct CUstream_st *s, CUdeviceptr dptr)
{
	struct CUgraphNode_st *n;
	struct galloc *ga;

	ga = galloc_claim_free(dptr, s->capture);
	if (!ga)
		return CUDA_ERROR_INVALID_VALUE;
	n = capture_node(s, CU_GRAPH_NODE_TYPE_MEM_FREE);
	if (!n) {
		galloc_unclaim(ga);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	n->ga = ga;
	s->capture->has_mem = 1;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphMemAllocNodeGetParams(CUgraphNode node, CUDA_MEM_ALLOC_NODE_PARAMS *out)
{
	DRV_ENTER(cuGraphMemAllocNodeGetParams, NULL, NULL);
	NEED_CTX();
	if (!node || !out || node->type != CU_GRAPH_NODE_TYPE_MEM_ALLOC)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	memset(out, 0, sizeof(*out));
	out->poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	out->poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	out->poolProps.location.id = GPSIM_DEVICE_ID;
	out->bytesize = node->ga->size;
	out->dptr = (CUdeviceptr)node->ga->base;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphMemFreeNodeGetParams(CUgraphNode node, CUdeviceptr *out)
{
	DRV_ENTER(cuGraphMemFreeNodeGetParams, NULL, NULL);
	NEED_CTX();
	if (!node || !out || node->type != CU_GRAPH_NODE_TYPE_MEM_FREE)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*out = (CUdeviceptr)node->ga->base;
	DRV_RETURN(CUDA_SUCCESS);
}

/* "Free unused memory that was cached on the specified device for use with graphs": none is cached here. */
CUresult CUDAAPI cuDeviceGraphMemTrim(CUdevice dev)
{
	DRV_ENTER(cuDeviceGraphMemTrim, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(dev == GPSIM_DEVICE_ID ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE);
}

/*
 * "CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT: Amount of memory, in bytes, currently
 * associated with graphs" (live graph allocations); "RESERVED_MEM_CURRENT:
 * Amount of memory, in bytes, currently allocated for use by the CUDA
 * graphs asynchronous allocator" (every graph allocation's memory, taken
 * when its node is made and kept, see cuGraphAddMemAllocNode); the HIGH
 * ones are their watermarks "since the last time it was reset".
 */
CUresult CUDAAPI cuDeviceGetGraphMemAttribute(CUdevice dev, CUgraphMem_attribute attr, void *value)
{
	cuDeviceGetGraphMemAttribute_params p = { dev, attr, value };
	uint64_t used, reserved, v;
	DRV_ENTER(cuDeviceGetGraphMemAttribute, &p, NULL);

	NEED_CTX();
	if (dev != GPSIM_DEVICE_ID)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	if (!value)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&S.lock);
	graph_mem_locked(&used, &reserved);
	switch (attr) {
	case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT: v = used; break;
	case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH: v = S.graph_used_high; break;
	case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT: v = reserved; break;
	case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH: v = S.graph_reserved_high; break;
	default:
		pthread_mutex_unlock(&S.lock);
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	}
	pthread_mutex_unlock(&S.lock);
	memcpy(value, &v, sizeof(v)); /* "value - Pointer to a cuuint64_t" */
	DRV_RETURN(CUDA_SUCCESS);
}

/* "High watermark can only be reset to zero": to the current value, the least it can be. */
CUresult CUDAAPI cuDeviceSetGraphMemAttribute(CUdevice dev, CUgraphMem_attribute attr, void *value)
{
	cuDeviceSetGraphMemAttribute_params p = { dev, attr, value };
	uint64_t used, reserved, v;
	DRV_ENTER(cuDeviceSetGraphMemAttribute, &p, NULL);

	NEED_CTX();
	if (dev != GPSIM_DEVICE_ID)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	if (!value)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	memcpy(&v, value, sizeof(v));
	if (v || (attr != CU_GRAPH_MEM_ATTR_USED_MEM_HIGH &&
		  attr != CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&S.lock);
	if (attr == CU_GRAPH_MEM_ATTR_USED_MEM_HIGH)
		S.graph_used_high = 0;
	else
		S.graph_reserved_high = 0;
	graph_mem_locked(&used, &reserved);
	pthread_mutex_unlock(&S.lock);
	DRV_RETURN(CUDA_SUCCESS);
}

static size_t node_index(const struct CUgraph_st *g, const struct CUgraphNode_st *n)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->nodes[i] == n)
			return i;
	return SIZE_MAX;
}

CUresult CUDAAPI cuGraphAddDependencies_v2(CUgraph g, const CUgraphNode *from,
					   const CUgraphNode *to, const CUgraphEdgeData *edges,
					   size_t num)
{
	size_t i;
	DRV_ENTER(cuGraphAddDependencies_v2, NULL, NULL);

	NEED_CTX();
	if (!g || (num && (!from || !to)))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	for (i = 0; i < num; i++)
		if (!from[i] || !to[i] || from[i]->graph != g || to[i]->graph != g ||
		    from[i]->dead || to[i]->dead || from[i] == to[i])
			DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	for (i = 0; i < num; i++) {
		struct CUgraphNode_st *t = to[i];
		size_t *d = realloc(t->deps, (t->ndeps + 1) * sizeof(*d));

		if (!d)
			DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
		t->deps = d;
		t->deps[t->ndeps++] = node_index(g, from[i]);
		graph_event(CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED, g, NULL, t, NULL,
			    from[i], NULL);
	}
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphDestroyNode(CUgraphNode node)
{
	struct CUgraph_st *g;
	size_t i, k, idx;
	DRV_ENTER(cuGraphDestroyNode, NULL, NULL);

	NEED_CTX();
	if (!node || !node->graph || node->dead)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	g = node->graph;
	/* Graphs with allocation or free nodes: "Nodes and edges of the graph cannot be deleted." */
	if (g->has_mem)
		DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED);
	graph_event(CUPTI_CBID_RESOURCE_GRAPHNODE_DESTROY_STARTING, g, NULL, node, NULL, NULL,
		    NULL);
	/* "Removes node from its graph. This operation also severs any dependencies of other nodes on node and vice versa." */
	idx = node_index(g, node);
	for (i = 0; i < g->n; i++) {
		struct CUgraphNode_st *o = g->nodes[i];

		for (k = 0; k < o->ndeps;)
			if (o->deps[k] == idx)
				o->deps[k] = o->deps[--o->ndeps];
			else
				k++;
	}
	node->ndeps = 0;
	node->dead = 1; /* kept in place: dependencies are indices */
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphClone(CUgraph *out, CUgraph orig)
{
	struct CUgraph_st *g;
	size_t i;
	DRV_ENTER(cuGraphClone, NULL, NULL);

	NEED_CTX();
	if (!out || !orig)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* Graphs with allocation or free nodes: "The graph cannot be cloned." */
	if (orig->has_mem)
		DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED);
	g = graph_dup(orig);
	if (!g)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	g->clone_of = orig->id;
	graph_event(CUPTI_CBID_RESOURCE_GRAPH_CLONED, g, orig, NULL, NULL, NULL, NULL);
	for (i = 0; i < g->n; i++)
		if (!g->nodes[i]->dead)
			graph_event(CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, g, orig, g->nodes[i],
				    orig->nodes[i], NULL, NULL);
	*out = g;
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * The executable form of g's live nodes in x: clones, a topological order
 * that puts host nodes as late as it can (what follows one in it waits for
 * the host worker), and lanes. Independent branches run on lanes of their
 * own, each reported as a stream, as a GPU runs a graph's branches on
 * streams of the driver's; a node continues the lane of one dependency
 * whose lane no other node continues, so a lane's work never overlaps.
 */
static CUresult cond_subs(struct CUgraphNode_st *c, const struct CUgraphNode_st *src,
			  struct CUgraphExec_st *top);

static CUresult exec_build(struct CUgraphExec_st *x, const struct CUgraph_st *g)
{
	size_t *map = calloc(g->n ? g->n : 1, sizeof(*map)), *indeg = NULL, i, k, done = 0;
	unsigned char *lane_taken = NULL;
	CUresult r = CUDA_ERROR_OUT_OF_MEMORY;

	if (!map)
		return r;
	for (i = 0; i < g->n; i++)
		map[i] = g->nodes[i]->dead ? SIZE_MAX : x->n++;
	x->nodes = calloc(x->n ? x->n : 1, sizeof(*x->nodes));
	x->order = calloc(x->n ? x->n : 1, sizeof(*x->order));
	indeg = calloc(x->n ? x->n : 1, sizeof(*indeg));
	lane_taken = calloc(x->n ? x->n : 1, 1);
	x->lane_stream = calloc(x->n ? x->n : 1, sizeof(*x->lane_stream));
	if (!x->nodes || !x->order || !indeg || !lane_taken || !x->lane_stream)
		goto out;
	for (i = 0, k = 0; i < g->n; i++) {
		struct CUgraphNode_st *c;
		size_t d;

		if (map[i] == SIZE_MAX)
			continue;
		c = node_clone(g->nodes[i], NULL);
		if (!c)
			goto out;
		c->origin_id = g->nodes[i]->id;
		for (d = 0; d < c->ndeps; d++)
			c->deps[d] = map[c->deps[d]];
		x->nodes[k++] = c;
		if (c->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
			r = cond_subs(c, g->nodes[i], x->top ? x->top : x);
			if (r)
				goto out;
			r = CUDA_ERROR_OUT_OF_MEMORY;
		}
	}
	/* Kahn's algorithm; among the ready nodes, any but a host node first. */
	for (i = 0; i < x->n; i++)
		indeg[i] = x->nodes[i]->ndeps;
	while (done < x->n) {
		size_t pick = SIZE_MAX;

		for (i = 0; i < x->n; i++) {
			if (indeg[i])
				continue;
			if (pick == SIZE_MAX ||
			    (x->nodes[pick]->type == CU_GRAPH_NODE_TYPE_HOST &&
			     x->nodes[i]->type != CU_GRAPH_NODE_TYPE_HOST))
				pick = i;
		}
		if (pick == SIZE_MAX) {
			r = CUDA_ERROR_INVALID_VALUE; /* a cycle */
			goto out;
		}
		indeg[pick] = SIZE_MAX;
		x->order[done++] = pick;
		for (i = 0; i < x->n; i++)
			for (k = 0; k < x->nodes[i]->ndeps; k++)
				if (x->nodes[i]->deps[k] == pick && indeg[i] != SIZE_MAX)
					indeg[i]--;
	}
	for (i = 0; i < x->n; i++) {
		struct CUgraphNode_st *n = x->nodes[x->order[i]];
		size_t d;

		n->lane = SIZE_MAX;
		for (d = 0; d < n->ndeps && n->lane == SIZE_MAX; d++) {
			struct CUgraphNode_st *p = x->nodes[n->deps[d]];

			if (!lane_taken[n->deps[d]]) {
				lane_taken[n->deps[d]] = 1;
				n->lane = p->lane;
			}
		}
		if (n->lane == SIZE_MAX)
			n->lane = x->nlanes++;
	}
	pthread_mutex_lock(&S.lock);
	for (i = 1; i < x->nlanes; i++)
		x->lane_stream[i] = S.next_stream_id++;
	pthread_mutex_unlock(&S.lock);
	r = CUDA_SUCCESS;
out:
	free(map);
	free(indeg);
	free(lane_taken);
	return r;
}

static void exec_free(struct CUgraphExec_st *x)
{
	size_t i;

	if (!x)
		return;
	pthread_mutex_lock(&S.lock);
	for (i = 0; x->mem_graph && i < MEM_EXEC_MAX; i++)
		if (S.mem_exec_graphs[i] == x->mem_graph)
			S.mem_exec_graphs[i] = 0;
	pthread_mutex_unlock(&S.lock);
	for (i = 0; x->nodes && i < x->n; i++)
		node_free(x->nodes[i]);
	free(x->nodes);
	free(x->order);
	free(x->lane_stream);
	free(x);
}

static struct CUgraph_st *graph_flatten(struct CUgraph_st *g, CUresult *err);
static void graph_unflatten(struct CUgraph_st *flat, struct CUgraph_st *g);

/* res: why not (CUgraphInstantiateResult), or NULL. */
static CUresult graph_instantiate(CUgraphExec *out, CUgraph g, unsigned long long fl,
				  CUgraphInstantiateResult *res)
{
	const unsigned long long known = CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH |
					 CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD |
					 CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH |
					 CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
	struct CUgraphExec_st *x;
	struct CUgraph_st *flat;
	CUresult r;
	size_t i;

	if (res)
		*res = CUDA_GRAPH_INSTANTIATE_ERROR;
	if (!out || !g || (fl & ~known))
		return CUDA_ERROR_INVALID_VALUE;
	/* A child graph's nodes take its node's place. */
	flat = graph_flatten(g, &r);
	if (!flat)
		return r;
	x = calloc(1, sizeof(*x));
	if (!x) {
		graph_unflatten(flat, g);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	x->graph_id = g->id;
	x->auto_free = !!(fl & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH);
	x->flags = fl;
	pthread_mutex_lock(&S.lock);
	x->id = S.next_graph_id++;
	/*
	 * "If hGraph contains any allocation or free nodes, there can be at most
	 * one executable graph in existence for that graph at a time. An attempt
	 * to instantiate a second executable graph before destroying the first
	 * with cuGraphExecDestroy will result in an error."
	 */
	if (g->has_mem) {
		size_t k, slot = SIZE_MAX;

		for (k = 0; k < MEM_EXEC_MAX; k++) {
			if (S.mem_exec_graphs[k] == g->id)
				break;
			if (!S.mem_exec_graphs[k] && slot == SIZE_MAX)
				slot = k;
		}
		if (k < MEM_EXEC_MAX || slot == SIZE_MAX) {
			pthread_mutex_unlock(&S.lock);
			free(x);
			graph_unflatten(flat, g);
			return k < MEM_EXEC_MAX ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_OUT_OF_MEMORY;
		}
		S.mem_exec_graphs[slot] = g->id;
		x->mem_graph = g->id;
	}
	pthread_mutex_unlock(&S.lock);
	graph_event(CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATE_STARTING, g, NULL, NULL, NULL, NULL, x);
	r = exec_build(x, flat);
	if (r) {
		/* "Instantiation failed due to invalid structure, such as cycles" */
		if (res && r == CUDA_ERROR_INVALID_VALUE)
			*res = CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE;
		graph_unflatten(flat, g);
		exec_free(x);
		return r;
	}
	/* The activity records of its work carry the ids of these clones. */
	for (i = 0; i < x->n; i++) {
		size_t k;

		for (k = 0; k < flat->n; k++)
			if (flat->nodes[k]->id == x->nodes[i]->origin_id)
				graph_event(CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, g, g,
					    x->nodes[i],
					    flat == g ? flat->nodes[k] : flat->nodes[k]->stands_for,
					    NULL, x);
	}
	graph_unflatten(flat, g);
	graph_event(CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED, g, NULL, NULL, NULL, NULL, x);
	if (res)
		*res = CUDA_GRAPH_INSTANTIATE_SUCCESS;
	*out = x;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *out, CUgraph g, unsigned long long fl)
{
	DRV_ENTER(cuGraphInstantiateWithFlags, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(graph_instantiate(out, g, fl, NULL));
}

/* What an update copies from n to the executable graph's node e: the node, its id, lane and place in the order stay. */
static void exec_node_take_params(struct CUgraphNode_st *e, const struct CUgraphNode_st *n)
{
	e->f = n->f;
	memcpy(e->grid, n->grid, sizeof(e->grid));
	memcpy(e->block, n->block, sizeof(e->block));
	e->shmem = n->shmem;
	e->dst = n->dst;
	e->src = n->src;
	e->width = n->width;
	e->height = n->height;
	e->dpitch = n->dpitch;
	e->spitch = n->spitch;
	e->copy_kind = n->copy_kind;
	e->value = n->value;
	e->elem = n->elem;
	e->fn = n->fn;
	e->user = n->user;
	e->event = n->event;
}

CUresult CUDAAPI cuGraphExecUpdate_v2(CUgraphExec x, CUgraph g, CUgraphExecUpdateResultInfo *info)
{
	size_t i, k, live = 0;
	CUgraphExecUpdateResult res = CU_GRAPH_EXEC_UPDATE_SUCCESS;
	CUgraphNode bad = NULL;
	DRV_ENTER(cuGraphExecUpdate_v2, NULL, NULL);

	NEED_CTX();
	if (!x || !g)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* Paired in creation order: the same number of nodes, of the same types, with the same edges. */
	for (i = 0; i < g->n; i++) {
		struct CUgraphNode_st *n = g->nodes[i], *e;

		if (n->dead)
			continue;
		if (live >= x->n) {
			res = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
			bad = n;
			break;
		}
		e = x->nodes[live++];
		if (e->type != n->type) {
			res = CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
			bad = n;
			break;
		}
		/* A conditional node's bodies are not compared, nor updated: not simulated. */
		if (n->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
			res = CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED;
			bad = n;
			break;
		}
		if (e->ndeps != n->ndeps) {
			res = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
			bad = n;
			break;
		}
	}
	if (res == CU_GRAPH_EXEC_UPDATE_SUCCESS && live != x->n)
		res = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
	if (info) {
		info->result = res;
		info->errorNode = bad;
		info->errorFromNode = NULL;
	}
	if (res != CU_GRAPH_EXEC_UPDATE_SUCCESS)
		DRV_RETURN(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
	pthread_mutex_lock(&S.lock);
	while (x->busy)
		pthread_cond_wait(&S.host_cond, &S.lock);
	for (i = 0, k = 0; i < g->n; i++) {
		struct CUgraphNode_st *n = g->nodes[i], *e;

		if (n->dead)
			continue;
		e = x->nodes[k++];
		exec_node_take_params(e, n);
	}
	pthread_mutex_unlock(&S.lock);
	for (i = 0; i < x->n; i++)
		graph_event(CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED, g, NULL, x->nodes[i], NULL,
			    NULL, x);
	DRV_RETURN(CUDA_SUCCESS);
}

/* One launch of an executable graph, processed node by node in x->order. */
struct glaunch {
	struct CUgraphExec_st *x;
	struct CUstream_st *s;
	uint64_t base;	/* no node starts earlier: stream order and launch latency */
	uint64_t issued;
	uint64_t end;	/* the latest end so far */
	size_t next;	/* position in x->order */
	uint32_t corr, runtime_corr, driver_corr, tid;
	uint32_t stream_id;
	uint32_t context_id; /* the launching thread's: the nodes may run on the host worker */
};

static void fill_rows(char *dst, size_t pitch, size_t rows, size_t width, uint32_t value,
		      unsigned int elem)
{
	size_t r, i;

	for (r = 0; r < rows; r++) {
		char *row = dst + r * pitch;

		if (elem == 1) {
			memset(row, (int)(value & 0xff), width);
			continue;
		}
		for (i = 0; i < width; i++) {
			if (elem == 2) {
				uint16_t v = (uint16_t)value;

				memcpy(row + i * 2, &v, 2);
			} else {
				memcpy(row + i * 4, &value, 4);
			}
		}
	}
}

/* A kernel, copy or memset node: its work starts at t on its lane. */
static void node_issue(struct glaunch *gl, struct CUgraphNode_st *n, uint64_t t)
{
	struct CUgraphExec_st *x = gl->x;
	struct gpsim_op op = { .graph_id = x->graph_id, .graph_node_id = n->id, .async = 1,
			       .corr = gl->corr, .runtime_corr = gl->runtime_corr,
			       .driver_corr = gl->driver_corr, .tid = gl->tid,
			       .context_id = gl->context_id, .issued = gl->issued,
			       .stream_id = n->lane ? x->lane_stream[n->lane] : gl->stream_id };
	uint64_t dur;
	size_t r;
	int i;

	switch (n->type) {
	case CU_GRAPH_NODE_TYPE_KERNEL:
		op.kind = GPSIM_OP_KERNEL;
		op.name = n->f->name;
		for (i = 0; i < 3; i++) {
			op.grid[i] = (int32_t)n->grid[i];
			op.block[i] = (int32_t)n->block[i];
		}
		op.dyn_shmem = (int32_t)n->shmem;
		op.launch_type = n->launch_type;
		dur = kernel_ns(n->f->name, n->grid, n->block);
		break;
	case CU_GRAPH_NODE_TYPE_MEMCPY:
		for (r = 0; r < n->height; r++)
			if (n->dst + r * n->dpitch != n->src + r * n->spitch)
				memmove(n->dst + r * n->dpitch, n->src + r * n->spitch, n->width);
		op.kind = GPSIM_OP_MEMCPY;
		op.bytes = n->width * n->height;
		op.copy_kind = n->copy_kind;
		op.src_kind = mem_kind(n->src);
		op.dst_kind = mem_kind(n->dst);
		dur = memcpy_ns(n->copy_kind, copy_pinned(n->copy_kind, op.src_kind, op.dst_kind),
				op.bytes);
		break;
	default:
		fill_rows(n->dst, n->dpitch, n->height, n->width, n->value, n->elem);
		op.kind = GPSIM_OP_MEMSET;
		op.bytes = n->width * n->height * n->elem;
		op.value = n->value;
		dur = memset_ns(op.bytes);
		break;
	}
	op.start = t;
	op.end = t + dur;
	n->end = op.end;
	op_report(&op);
}

/*
 * An allocation or free node reached by a launch: the allocation is made or
 * freed, reported like a stream-ordered one on the node's lane, with the
 * launch's correlation id (from the host worker too, after a host node).
 */
static void node_mem(struct glaunch *gl, struct CUgraphNode_st *n)
{
	int alloc = n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC, change;

	pthread_mutex_lock(&S.lock);
	change = n->ga->live != alloc;
	n->ga->live = alloc;
	graph_mem_note_locked();
	pthread_mutex_unlock(&S.lock);
	if (change)
		gpsim__graph_mem_event(alloc ? GPSIM_MEM_ALLOC : GPSIM_MEM_FREE,
				       (const void *)n->ga->base, n->ga->size,
				       n->lane ? gl->x->lane_stream[n->lane] : gl->stream_id, gl->corr,
				       gl->context_id, n->id);
}

/*
 * Before a launch: "If any allocations created by hGraphExec remain unfreed
 * (from a previous launch) and hGraphExec was not instantiated with
 * CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH, the launch will fail with
 * CUDA_ERROR_INVALID_VALUE"; with it, "each launch behave[s] as though it
 * called cuMemFreeAsync for every unfreed allocation".
 */
static CUresult launch_frees(struct glaunch *gl)
{
	struct CUgraphExec_st *x = gl->x;
	size_t i;

	for (i = 0; x->mem_graph && i < x->n; i++) {
		struct CUgraphNode_st *n = x->nodes[i];
		int live;

		if (n->type != CU_GRAPH_NODE_TYPE_MEM_ALLOC)
			continue;
		pthread_mutex_lock(&S.lock);
		live = n->ga->live;
		if (live && x->auto_free)
			n->ga->live = 0;
		pthread_mutex_unlock(&S.lock);
		if (live && !x->auto_free)
			return CUDA_ERROR_INVALID_VALUE;
		if (live)
			gpsim__graph_mem_event(GPSIM_MEM_FREE, (const void *)n->ga->base,
					       n->ga->size, gl->stream_id, gl->corr, gl->context_id,
					       0);
	}
	return CUDA_SUCCESS;
}

/* Hands the rest of gl, from a host node on, to the host worker: it starts at t. */
static int glaunch_defer(struct glaunch *gl, uint64_t t)
{
	struct host_job *j = calloc(1, sizeof(*j));
	struct glaunch *copy = malloc(sizeof(*copy));

	if (!j || !copy) {
		/* Not deferred: the host nodes run on this thread, the program waits for them. */
		free(j);
		free(copy);
		return 0;
	}
	*copy = *gl;
	j->gl = copy;
	j->start = t;
	j->s = gl->s;
	j->corr = gl->corr;
	j->tid = gl->tid;
	pthread_mutex_lock(&S.lock);
	gl->x->busy = 1;
	if (host_enqueue_locked(j)) {
		gl->x->busy = 0;
		pthread_mutex_unlock(&S.lock);
		free(j);
		free(copy);
		return 0;
	}
	pthread_mutex_unlock(&S.lock);
	return 1;
}

static uint64_t cond_run(struct glaunch *gl, struct CUgraphNode_st *n, uint64_t t);

/*
 * Runs the launch's nodes from gl->next on: each starts when its
 * dependencies have ended. A host node met on the program's thread hands
 * the rest to the host worker (1 returned); on the worker it runs there.
 */

static int glaunch_nodes(struct glaunch *gl, int on_worker)
{
	struct CUgraphExec_st *x = gl->x;

	for (; gl->next < x->n; gl->next++) {
		struct CUgraphNode_st *n = x->nodes[x->order[gl->next]];
		uint64_t t = gl->base, start, ts;
		size_t d;

		for (d = 0; d < n->ndeps; d++)
			t = max_u64(t, x->nodes[n->deps[d]]->end);
		/* "Disabled nodes are functionally equivalent to empty nodes until they are reenabled." */
		switch (n->disabled ? CU_GRAPH_NODE_TYPE_EMPTY : n->type) {
		case CU_GRAPH_NODE_TYPE_HOST:
			if (!on_worker && glaunch_defer(gl, t))
				return 1;
			wait_until(t);
			start = gpsim_now();
			n->fn(n->user);
			n->end = gpsim_now();
			log_host_fn(gl->corr, gl->tid,
				    n->lane ? x->lane_stream[n->lane] : gl->stream_id, start,
				    n->end);
			break;
		case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
			pthread_mutex_lock(&S.lock);
			ev_set(n->event, t);
			pthread_mutex_unlock(&S.lock);
			n->end = t;
			break;
		case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
			pthread_mutex_lock(&S.lock);
			n->end = ev_get(n->event, &ts) ? max_u64(t, ts) : t;
			pthread_mutex_unlock(&S.lock);
			break;
		case CU_GRAPH_NODE_TYPE_KERNEL:
		case CU_GRAPH_NODE_TYPE_MEMCPY:
		case CU_GRAPH_NODE_TYPE_MEMSET:
			node_issue(gl, n, t);
			break;
		case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
		case CU_GRAPH_NODE_TYPE_MEM_FREE:
			node_mem(gl, n);
			n->end = t;
			break;
		case CU_GRAPH_NODE_TYPE_CONDITIONAL:
			n->end = cond_run(gl, n, t);
			break;
		default:
			n->end = t;
		}
		gl->end = max_u64(gl->end, n->end);
	}
	return 0;
}

/* glaunch_nodes(), then the launch is over: its stream and its next launch wait for its end. */
static int glaunch_run(struct glaunch *gl, int on_worker)
{
	struct CUgraphExec_st *x = gl->x;

	if (glaunch_nodes(gl, on_worker))
		return 1;
	/* The stream's next work waits for the whole graph. */
	pthread_mutex_lock(&S.lock);
	gl->s->ready = max_u64(gl->s->ready, gl->end);
	x->last_end = gl->end;
	x->busy = 0;
	pthread_cond_broadcast(&S.host_cond);
	pthread_mutex_unlock(&S.lock);
	return 0;
}

/*
 * cuGraphLaunch into a capturing stream: captured, not run. cuGraphLaunch's
 * header entry says nothing of capture; the driver records the launch as
 * a child graph node (CU_GRAPH_NODE_TYPE_GRAPH, "Node which executes an
 * embedded graph") whose graph is a copy of x as it stands ("The child
 * graph is cloned in this call", cuGraphAddChildGraphNode), so later
 * changes to x (cuGraphExecKernelNodeSetParams) do not reach it. A graph
 * with memory nodes cannot be embedded: "The graph can only be used in a
 * child node if the ownership is moved to the parent".
 */
static CUresult capture_graph_launch(struct CUstream_st *s, struct CUgraphExec_st *x)
{
	struct CUgraph_st *child;
	struct CUgraphNode_st *n;
	size_t i;

	if (x->mem_graph)
		return CUDA_ERROR_NOT_SUPPORTED;
	/* Its conditional nodes keep their bodies instantiated only: not simulated. */
	for (i = 0; i < x->n; i++)
		if (x->nodes[i]->type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
			return CUDA_ERROR_NOT_SUPPORTED;
	child = graph_new();
	if (!child || !(child->nodes = calloc(x->n ? x->n : 1, sizeof(*child->nodes)))) {
		free(child);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	child->cap = x->n ? x->n : 1;
	pthread_mutex_lock(&S.lock);
	while (x->busy)
		pthread_cond_wait(&S.host_cond, &S.lock);
	pthread_mutex_unlock(&S.lock);
	/* x's nodes are in its graph's order, dependencies indices among them: the same here. */
	for (i = 0; i < x->n; i++) {
		struct CUgraphNode_st *c = node_clone(x->nodes[i], child);

		if (!c) {
			graph_free(child);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		c->origin_id = 0;
		c->stands_for = NULL;
		child->nodes[child->n++] = c;
	}
	n = capture_node(s, CU_GRAPH_NODE_TYPE_GRAPH);
	if (!n) {
		graph_free(child);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	n->child = child;
	return CUDA_SUCCESS;
}

static CUresult graph_launch(CUgraphExec x, CUstream h)
{
	struct CUstream_st *s;
	struct glaunch gl = { .x = x };
	uint64_t now;
	CUresult r;

	if (!x)
		return CUDA_ERROR_INVALID_HANDLE;
	s = stream_of(h);
	if (s->capture)
		return capture_graph_launch(s, x);
	gl.s = s;
	gl.stream_id = s->id;
	gl.context_id = gpsim__ctx_id(s->ctx ? s->ctx : gpsim__ctx_top());
	gl.tid = gpsim_gettid();
	current_corr(&gl.corr, &gl.runtime_corr, &gl.driver_corr);
	r = launch_frees(&gl);
	if (r)
		return r;
	pthread_mutex_lock(&S.lock);
	/* "Each launch is ordered behind both any previous work in hStream and any previous launches of hGraphExec." */
	for (;;) {
		wait_host_locked(s);
		if (!x->busy)
			break;
		pthread_cond_wait(&S.host_cond, &S.lock);
	}
	now = gpsim_now();
	gl.issued = now;
	gl.base = max_u64(max_u64(now + LAUNCH_LATENCY_NS, stream_dep(s)), x->last_end);
	gl.end = gl.base;
	pthread_mutex_unlock(&S.lock);
	glaunch_run(&gl, 0);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphLaunch(CUgraphExec x, CUstream h)
{
	cuGraphLaunch_params p = { x, h };
	DRV_ENTER(cuGraphLaunch, &p, NULL);
	NEED_CTX();
	DRV_RETURN(graph_launch(x, h));
}

CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec x, CUstream h)
{
	cuGraphLaunch_ptsz_params p = { x, h };
	DRV_ENTER(cuGraphLaunch_ptsz, &p, NULL);
	NEED_CTX();
	DRV_RETURN(graph_launch(x, h ? h : gpsim_stream_per_thread()));
}

/* "Uploads hGraphExec to the device in hStream without executing it": nothing to upload here. */
CUresult CUDAAPI cuGraphUpload(CUgraphExec x, CUstream h)
{
	DRV_ENTER(cuGraphUpload, NULL, NULL);
	NEED_CTX();
	if (!x)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (stream_of(h)->capture)
		DRV_RETURN(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * The graph queries' list contract: "[the list] may be NULL, in which case
 * this function will return the number of nodes in numNodes. Otherwise,
 * numNodes entries will be filled in. If numNodes is higher than the actual
 * number of nodes, the remaining entries in nodes will be set to NULL, and
 * the number of nodes actually obtained will be returned in numNodes."
 * list_put offers the k-th entry, list_end settles *num once k are offered.
 */
static void list_put(CUgraphNode *out, size_t cap, size_t *k, struct CUgraphNode_st *n)
{
	if (out && *k < cap)
		out[*k] = n;
	(*k)++;
}

static void list_end(CUgraphNode *out, size_t *num, size_t k)
{
	size_t i;

	if (!out) {
		*num = k;
		return;
	}
	for (i = k; i < *num; i++)
		out[i] = NULL;
	if (*num > k)
		*num = k;
}

/* Edge data is never set here: every edge has the default (zeroed) data. */
static void edges_zero(CUgraphEdgeData *e, size_t n)
{
	if (e && n)
		memset(e, 0, n * sizeof(*e));
}

CUresult CUDAAPI cuGraphGetNodes(CUgraph g, CUgraphNode *nodes, size_t *num)
{
	size_t i, k = 0;
	DRV_ENTER(cuGraphGetNodes, NULL, NULL);

	NEED_CTX();
	if (!g || !num)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	for (i = 0; i < g->n; i++)
		if (!g->nodes[i]->dead)
			list_put(nodes, *num, &k, g->nodes[i]);
	list_end(nodes, num, k);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphNodeGetType(CUgraphNode n, CUgraphNodeType *type)
{
	DRV_ENTER(cuGraphNodeGetType, NULL, NULL);
	NEED_CTX();
	if (!n || !type)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*type = n->type;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphGetRootNodes(CUgraph g, CUgraphNode *roots, size_t *num)
{
	size_t i, k = 0;
	DRV_ENTER(cuGraphGetRootNodes, NULL, NULL);

	NEED_CTX();
	if (!g || !num)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	for (i = 0; i < g->n; i++)
		if (!g->nodes[i]->dead && !g->nodes[i]->ndeps)
			list_put(roots, *num, &k, g->nodes[i]);
	list_end(roots, num, k);
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * "the node in to[i] has a dependency on the node in from[i] with data
 * edgeData[i]. from and to may both be NULL, in which case this function
 * only returns the number of edges in numEdges."
 */
CUresult CUDAAPI cuGraphGetEdges_v2(CUgraph g, CUgraphNode *from, CUgraphNode *to,
				    CUgraphEdgeData *edges, size_t *num)
{
	size_t i, d, k = 0, cap;
	DRV_ENTER(cuGraphGetEdges_v2, NULL, NULL);

	NEED_CTX();
	if (!g || !num || !from != !to || (edges && !from))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	cap = *num;
	for (i = 0; i < g->n; i++) {
		struct CUgraphNode_st *t = g->nodes[i];

		for (d = 0; !t->dead && d < t->ndeps; d++, k++) {
			if (from && k < cap) {
				from[k] = g->nodes[t->deps[d]];
				to[k] = t;
			}
		}
	}
	if (from)
		for (i = k; i < cap; i++)
			from[i] = to[i] = NULL;
	if (!from || cap > k)
		*num = k;
	edges_zero(edges, *num);
	DRV_RETURN(CUDA_SUCCESS);
}

/* "If edgeData is non-NULL, then dependencies must be as well." */
CUresult CUDAAPI cuGraphNodeGetDependencies_v2(CUgraphNode node, CUgraphNode *deps,
					       CUgraphEdgeData *edges, size_t *num)
{
	size_t d, k = 0;
	DRV_ENTER(cuGraphNodeGetDependencies_v2, NULL, NULL);

	NEED_CTX();
	if (!node || !node->graph || node->dead || !num || (edges && !deps))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	for (d = 0; d < node->ndeps; d++)
		list_put(deps, *num, &k, node->graph->nodes[node->deps[d]]);
	list_end(deps, num, k);
	edges_zero(edges, *num);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphNodeGetDependentNodes_v2(CUgraphNode node, CUgraphNode *out,
						 CUgraphEdgeData *edges, size_t *num)
{
	struct CUgraph_st *g;
	size_t i, d, k = 0, idx;
	DRV_ENTER(cuGraphNodeGetDependentNodes_v2, NULL, NULL);

	NEED_CTX();
	if (!node || !node->graph || node->dead || !num || (edges && !out))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	g = node->graph;
	idx = node_index(g, node);
	for (i = 0; i < g->n; i++)
		for (d = 0; !g->nodes[i]->dead && d < g->nodes[i]->ndeps; d++)
			if (g->nodes[i]->deps[d] == idx)
				list_put(out, *num, &k, g->nodes[i]);
	list_end(out, num, k);
	edges_zero(edges, *num);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphDestroy(CUgraph g)
{
	DRV_ENTER(cuGraphDestroy, NULL, NULL);

	NEED_CTX();
	if (!g)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	graph_event(CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING, g, NULL, NULL, NULL, NULL, NULL);
	graph_free(g);
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * "Returns the flags that were passed to instantiation for the given
 * executable graph. CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD will not be
 * returned by this API as it does not affect the resulting executable
 * graph."
 */
CUresult CUDAAPI cuGraphExecGetFlags(CUgraphExec x, cuuint64_t *flags)
{
	cuGraphExecGetFlags_params p = { x, flags };
	DRV_ENTER(cuGraphExecGetFlags, &p, NULL);

	NEED_CTX();
	if (!x || !flags)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*flags = x->flags & ~(cuuint64_t)CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec x)
{
	DRV_ENTER(cuGraphExecDestroy, NULL, NULL);
	NEED_CTX();
	if (!x)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* A launch whose rest is with the host worker still uses it. */
	pthread_mutex_lock(&S.lock);
	while (x->busy)
		pthread_cond_wait(&S.host_cond, &S.lock);
	pthread_mutex_unlock(&S.lock);
	graph_event(CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING, NULL, NULL, NULL, NULL, NULL, x);
	exec_free(x);
	DRV_RETURN(CUDA_SUCCESS);
}

/* ---- child graphs, node parameters, instantiation parameters ----------------- */

static void graph_free(struct CUgraph_st *g)
{
	size_t i;

	if (!g)
		return;
	for (i = 0; i < g->n; i++)
		node_free(g->nodes[i]);
	free(g->nodes);
	free(g);
}

/* A conditional node's copies of the bodies it shares with the node it was cloned from. */
static int node_own_bodies(struct CUgraphNode_st *c)
{
	struct CUgraph_st **b;
	unsigned int i;

	if (c->type != CU_GRAPH_NODE_TYPE_CONDITIONAL || c->own_bodies)
		return 0;
	b = calloc(c->nbodies, sizeof(*b));
	if (!b) {
		c->nbodies = 0;
		return -ENOMEM;
	}
	for (i = 0; i < c->nbodies; i++) {
		b[i] = graph_dup(c->bodies[i]);
		if (!b[i])
			break;
	}
	c->bodies = b;
	c->own_bodies = 1;
	if (i < c->nbodies) {
		c->nbodies = i;
		return -ENOMEM;
	}
	return 0;
}

/* A clone of orig: its nodes' clones (child graphs and conditional bodies cloned too), in the same order, with new ids. */
static struct CUgraph_st *graph_dup(const struct CUgraph_st *orig)
{
	struct CUgraph_st *g = graph_new();
	size_t i;

	if (!g || !(g->nodes = calloc(orig->n ? orig->n : 1, sizeof(*g->nodes)))) {
		free(g);
		return NULL;
	}
	g->cap = orig->n ? orig->n : 1;
	for (i = 0; i < orig->n; i++) {
		g->nodes[i] = node_clone(orig->nodes[i], g);
		if (!g->nodes[i] || node_own_bodies(g->nodes[i])) {
			g->n += !!g->nodes[i];
			graph_free(g);
			return NULL;
		}
		g->n++;
	}
	return g;
}

/* The nodes of one graph as placed in a flattened one: indices in it. */
struct flat_part {
	size_t *roots, nroots; /* where the graph's work starts: they take the graph node's dependencies */
	size_t *exits, nexits; /* where it ends: what depends on the graph node depends on these */
};

static int idx_push(size_t **v, size_t *n, size_t x)
{
	size_t *nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = x;
	*v = nv;
	return 0;
}

static int dep_push(struct CUgraphNode_st *n, size_t dep)
{
	size_t i;

	for (i = 0; i < n->ndeps; i++)
		if (n->deps[i] == dep)
			return 0;
	return idx_push(&n->deps, &n->ndeps, dep);
}

/* Appends to flat a node standing for n (an empty node for an empty child graph), without dependencies. */
static int flat_append(struct CUgraph_st *flat, struct CUgraphNode_st *n, size_t *idx)
{
	struct CUgraphNode_st *c, **nn;

	if (flat->n == flat->cap) {
		nn = realloc(flat->nodes, (flat->cap * 2 + 8) * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		flat->nodes = nn;
		flat->cap = flat->cap * 2 + 8;
	}
	c = malloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	*c = *n;
	c->graph = flat;
	c->deps = NULL;
	c->ndeps = 0;
	c->child = NULL;
	c->own_bodies = 0;
	c->subs = NULL;
	c->stands_for = n;
	if (n->type == CU_GRAPH_NODE_TYPE_GRAPH)
		c->type = CU_GRAPH_NODE_TYPE_EMPTY;
	*idx = flat->n;
	flat->nodes[flat->n++] = c;
	return 0;
}

/*
 * Appends g's live nodes to flat, each child graph node replaced by its
 * graph's nodes ("The node executes an embedded child graph"), so that a
 * child's first nodes wait for the child node's dependencies and what
 * depends on the child node waits for the child's last nodes.
 */
static int flatten_into(struct CUgraph_st *flat, struct CUgraph_st *g, struct flat_part *out,
			unsigned depth)
{
	struct flat_part *part = calloc(g->n ? g->n : 1, sizeof(*part));
	unsigned char *needed = calloc(g->n ? g->n : 1, 1);
	size_t i, d, r, e;
	int err = -ENOMEM;

	if (!part || !needed || depth > 64)
		goto out;
	for (i = 0; i < g->n; i++) {
		struct CUgraphNode_st *n = g->nodes[i];
		size_t live = 0, k, idx;

		if (n->dead)
			continue;
		for (k = 0; n->child && k < n->child->n; k++)
			live += !n->child->nodes[k]->dead;
		if (live) {
			err = flatten_into(flat, n->child, &part[i], depth + 1);
			if (err)
				goto out;
			continue;
		}
		if (flat_append(flat, n, &idx) || idx_push(&part[i].roots, &part[i].nroots, idx) ||
		    idx_push(&part[i].exits, &part[i].nexits, idx))
			goto out;
	}
	for (i = 0; i < g->n; i++) {
		struct CUgraphNode_st *n = g->nodes[i];

		if (n->dead)
			continue;
		for (d = 0; d < n->ndeps; d++) {
			needed[n->deps[d]] = 1;
			for (r = 0; r < part[i].nroots; r++)
				for (e = 0; e < part[n->deps[d]].nexits; e++)
					if (dep_push(flat->nodes[part[i].roots[r]],
						     part[n->deps[d]].exits[e]))
						goto out;
		}
	}
	for (i = 0; i < g->n; i++) {
		if (g->nodes[i]->dead)
			continue;
		for (r = 0; !g->nodes[i]->ndeps && r < part[i].nroots; r++)
			if (idx_push(&out->roots, &out->nroots, part[i].roots[r]))
				goto out;
		for (e = 0; !needed[i] && e < part[i].nexits; e++)
			if (idx_push(&out->exits, &out->nexits, part[i].exits[e]))
				goto out;
	}
	err = 0;
out:
	for (i = 0; part && i < g->n; i++) {
		free(part[i].roots);
		free(part[i].exits);
	}
	free(part);
	free(needed);
	return err;
}

/* g, or when it has child graph nodes a flattened copy of it (graph_unflatten releases it). */
static struct CUgraph_st *graph_flatten(struct CUgraph_st *g, CUresult *err)
{
	struct flat_part top = { 0 };
	struct CUgraph_st *flat;
	size_t i;

	for (i = 0; i < g->n; i++)
		if (!g->nodes[i]->dead && g->nodes[i]->type == CU_GRAPH_NODE_TYPE_GRAPH)
			break;
	if (i == g->n)
		return g;
	*err = CUDA_ERROR_OUT_OF_MEMORY;
	flat = calloc(1, sizeof(*flat));
	if (!flat)
		return NULL;
	flat->id = g->id;
	if (flatten_into(flat, g, &top, 0)) {
		graph_free(flat);
		flat = NULL;
	}
	free(top.roots);
	free(top.exits);
	return flat;
}

static void graph_unflatten(struct CUgraph_st *flat, struct CUgraph_st *g)
{
	if (flat != g)
		graph_free(flat);
}

static CUresult add_child(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
			  size_t ndeps, CUgraph child)
{
	if (!child || child == g)
		return CUDA_ERROR_INVALID_VALUE;
	/* "The graph can only be used in a child node if the ownership is moved to the parent", which this call does not do. */
	if (child->has_mem)
		return CUDA_ERROR_NOT_SUPPORTED;
	NODE_ADD(CU_GRAPH_NODE_TYPE_GRAPH);
	/* "The node executes an embedded child graph. The child graph is cloned in this call." */
	n->child = graph_dup(child);
	if (!n->child) {
		g->n--;
		node_free(n);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	return node_added(n, out);
}

CUresult CUDAAPI cuGraphAddChildGraphNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
					  size_t ndeps, CUgraph child)
{
	DRV_ENTER(cuGraphAddChildGraphNode, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(add_child(out, g, deps, ndeps, child));
}

/* ---- conditional nodes and cuGraphAddNode ---- */

/*
 * Conditional handles. "defaultLaunchValue - Optional initial value for
 * the conditional variable. Applied at the beginning of each graph
 * execution if CU_GRAPH_COND_ASSIGN_DEFAULT is set in flags." Device code
 * changes the value (cudaGraphSetConditional), and kernels compute nothing
 * here: a node sees its handle's default value, or 0 without the flag.
 * A handle is its index + 1 in this table (under S.lock), kept for the
 * process: handles are few and small.
 */
struct cond_handle {
	uint32_t graph_id;
	unsigned int value;
};

static struct cond_handle *cond_handles;
static size_t ncond_handles, cond_handles_cap;

static unsigned int cond_value(CUgraphConditionalHandle h)
{
	unsigned int v = 0;

	pthread_mutex_lock(&S.lock);
	if (h && h <= ncond_handles)
		v = cond_handles[h - 1].value;
	pthread_mutex_unlock(&S.lock);
	return v;
}

CUresult CUDAAPI cuGraphConditionalHandleCreate(CUgraphConditionalHandle *out, CUgraph g,
						CUcontext ctx, unsigned int def, unsigned int flags)
{
	cuGraphConditionalHandleCreate_params p = { out, g, ctx, def, flags };
	CUresult r = CUDA_SUCCESS;
	DRV_ENTER(cuGraphConditionalHandleCreate, &p, NULL);

	NEED_CTX();
	/* "flags - Currently must be CU_GRAPH_COND_ASSIGN_DEFAULT or 0." */
	if (!out || !g || (flags & ~(unsigned int)CU_GRAPH_COND_ASSIGN_DEFAULT))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&S.lock);
	if (ncond_handles == cond_handles_cap) {
		size_t cap = cond_handles_cap * 2 + 16;
		struct cond_handle *v = realloc(cond_handles, cap * sizeof(*v));

		if (v) {
			cond_handles = v;
			cond_handles_cap = cap;
		} else {
			r = CUDA_ERROR_OUT_OF_MEMORY;
		}
	}
	if (r == CUDA_SUCCESS) {
		cond_handles[ncond_handles++] = (struct cond_handle){
			g->id, flags & CU_GRAPH_COND_ASSIGN_DEFAULT ? def : 0
		};
		*out = ncond_handles;
	}
	pthread_mutex_unlock(&S.lock);
	DRV_RETURN(r);
}

/*
 * "Size of graph output array. Allowed values are 1 for
 * CU_GRAPH_COND_TYPE_WHILE, 1 or 2 for CU_GRAPH_COND_TYPE_IF, or any value
 * greater than zero for CU_GRAPH_COND_TYPE_SWITCH." "phGraph_out -
 * CUDA-owned array populated with conditional node child graphs during
 * creation of the node. Valid for the lifetime of the conditional node."
 */
static CUresult add_conditional(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
				CUDA_CONDITIONAL_NODE_PARAMS *p)
{
	unsigned int i;
	int known;

	if (!p || !p->size || (p->type == CU_GRAPH_COND_TYPE_WHILE && p->size != 1) ||
	    (p->type == CU_GRAPH_COND_TYPE_IF && p->size > 2) ||
	    (p->type != CU_GRAPH_COND_TYPE_IF && p->type != CU_GRAPH_COND_TYPE_WHILE &&
	     p->type != CU_GRAPH_COND_TYPE_SWITCH))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&S.lock);
	known = p->handle && p->handle <= ncond_handles;
	pthread_mutex_unlock(&S.lock);
	if (!known)
		return CUDA_ERROR_INVALID_VALUE;
	NODE_ADD(CU_GRAPH_NODE_TYPE_CONDITIONAL);
	n->handle = p->handle;
	n->cond_type = p->type;
	n->own_bodies = 1;
	n->bodies = calloc(p->size, sizeof(*n->bodies));
	for (i = 0; n->bodies && i < p->size; i++, n->nbodies++)
		if (!(n->bodies[i] = graph_new()))
			break;
	if (!n->bodies || n->nbodies < p->size) {
		g->n--;
		node_free(n);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	for (i = 0; i < n->nbodies; i++)
		graph_event(CUPTI_CBID_RESOURCE_GRAPH_CREATED, n->bodies[i], NULL, NULL, NULL, NULL,
			    NULL);
	p->phGraph_out = n->bodies;
	return node_added(n, out);
}

/*
 * An executable graph's conditional node: each body instantiated (c
 * shares the bodies of src, its graph's node, which the program may
 * destroy). "Allowed node types are kernel nodes, empty nodes, child
 * graphs, memsets, memcopies, and conditionals. This applies recursively
 * to child graphs and conditional bodies." Their work carries the
 * executable graph's id, and the ids of the bodies' instantiated nodes.
 */
static CUresult cond_subs(struct CUgraphNode_st *c, const struct CUgraphNode_st *src,
			  struct CUgraphExec_st *top)
{
	CUresult r = CUDA_SUCCESS;
	unsigned int b;

	c->bodies = NULL;
	c->subs = calloc(src->nbodies ? src->nbodies : 1, sizeof(*c->subs));
	if (!c->subs) {
		c->nbodies = 0;
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	for (b = 0; b < src->nbodies && r == CUDA_SUCCESS; b++) {
		struct CUgraph_st *body = src->bodies[b], *flat = graph_flatten(body, &r);
		struct CUgraphExec_st *x;
		size_t i, k;

		if (!flat)
			break;
		for (i = 0; i < flat->n; i++) {
			CUgraphNodeType t = flat->nodes[i]->type;

			if (!flat->nodes[i]->dead && t != CU_GRAPH_NODE_TYPE_KERNEL &&
			    t != CU_GRAPH_NODE_TYPE_EMPTY && t != CU_GRAPH_NODE_TYPE_MEMSET &&
			    t != CU_GRAPH_NODE_TYPE_MEMCPY && t != CU_GRAPH_NODE_TYPE_CONDITIONAL)
				r = CUDA_ERROR_INVALID_VALUE;
		}
		x = r == CUDA_SUCCESS ? calloc(1, sizeof(*x)) : NULL;
		if (r == CUDA_SUCCESS && !x)
			r = CUDA_ERROR_OUT_OF_MEMORY;
		if (x) {
			x->graph_id = top->graph_id;
			x->top = top;
			c->subs[b] = x;
			r = exec_build(x, flat);
		}
		for (i = 0; r == CUDA_SUCCESS && i < x->n; i++)
			for (k = 0; k < flat->n; k++)
				if (flat->nodes[k]->id == x->nodes[i]->origin_id)
					graph_event(CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, body, body,
						    x->nodes[i],
						    flat == body ? flat->nodes[k] :
								   flat->nodes[k]->stands_for,
						    NULL, top);
		graph_unflatten(flat, body);
	}
	return r;
}

/*
 * A launch reaching a conditional node runs the body its value selects,
 * on the node's stream, from t; returns when that ends. "IF: phGraph_out[0]
 * is executed when the condition is non-zero. If size == 2, phGraph_out[1]
 * will be executed when the condition is zero." "SWITCH: phGraph_out[n] is
 * executed when the condition is equal to n. If the condition >= size, no
 * body graph is executed." "WHILE: phGraph_out[0] is executed as long as
 * the condition is non-zero": no kernel here sets it to zero, so a WHILE
 * whose value is non-zero runs its body once, as if the body's last kernel
 * ended the loop (README.md).
 */
static uint64_t cond_run(struct glaunch *gl, struct CUgraphNode_st *n, uint64_t t)
{
	unsigned int v = cond_value(n->handle), body;
	struct glaunch sub;

	switch (n->cond_type) {
	case CU_GRAPH_COND_TYPE_IF:
		if (!v && n->nbodies < 2)
			return t;
		body = v ? 0 : 1;
		break;
	case CU_GRAPH_COND_TYPE_WHILE:
		if (!v)
			return t;
		body = 0;
		break;
	default:
		if (v >= n->nbodies)
			return t;
		body = v;
	}
	sub = *gl;
	sub.x = n->subs[body];
	sub.next = 0;
	sub.base = t;
	sub.end = t;
	sub.stream_id = n->lane ? gl->x->lane_stream[n->lane] : gl->stream_id;
	glaunch_nodes(&sub, 1);
	return sub.end;
}

/* g or a graph of one of its child graph nodes holds a conditional node. */
static int graph_has_conditional(const struct CUgraph_st *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		const struct CUgraphNode_st *n = g->nodes[i];

		if (!n->dead && (n->type == CU_GRAPH_NODE_TYPE_CONDITIONAL ||
				 (n->child && graph_has_conditional(n->child))))
			return 1;
	}
	return 0;
}

/* cuGraphAddNode: each kind as its own cuGraphAdd*Node adds it. */
static CUresult add_node(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
			 CUgraphNodeParams *p)
{
	CUresult r;

	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	switch (p->type) {
	case CU_GRAPH_NODE_TYPE_KERNEL: {
		const CUDA_KERNEL_NODE_PARAMS_v3 *k = &p->kernel;
		CUDA_KERNEL_NODE_PARAMS d = { .func = k->func, .gridDimX = k->gridDimX,
					      .gridDimY = k->gridDimY, .gridDimZ = k->gridDimZ,
					      .blockDimX = k->blockDimX, .blockDimY = k->blockDimY,
					      .blockDimZ = k->blockDimZ,
					      .sharedMemBytes = k->sharedMemBytes,
					      .kernelParams = k->kernelParams, .extra = k->extra };

		return add_kernel(out, g, deps, ndeps, &d);
	}
	case CU_GRAPH_NODE_TYPE_MEMCPY:
		/* "flags - Must be zero" */
		if (p->memcpy.flags)
			return CUDA_ERROR_INVALID_VALUE;
		return add_memcpy(out, g, deps, ndeps, &p->memcpy.copyParams, p->memcpy.copyCtx);
	case CU_GRAPH_NODE_TYPE_MEMSET: {
		const CUDA_MEMSET_NODE_PARAMS_v2 *m = &p->memset;
		CUDA_MEMSET_NODE_PARAMS d = { m->dst, m->pitch, m->value, m->elementSize, m->width,
					      m->height };

		return add_memset(out, g, deps, ndeps, &d, m->ctx);
	}
	case CU_GRAPH_NODE_TYPE_HOST: {
		CUDA_HOST_NODE_PARAMS d = { p->host.fn, p->host.userData };

		return add_host(out, g, deps, ndeps, &d);
	}
	case CU_GRAPH_NODE_TYPE_GRAPH:
		/* "The graph must not contain conditional nodes"; moving it in is not simulated. */
		if (p->graph.ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE)
			return CUDA_ERROR_NOT_SUPPORTED;
		if (p->graph.graph && graph_has_conditional(p->graph.graph))
			return CUDA_ERROR_INVALID_VALUE;
		return add_child(out, g, deps, ndeps, p->graph.graph);
	case CU_GRAPH_NODE_TYPE_EMPTY:
		return add_empty(out, g, deps, ndeps);
	case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
		return add_event_record(out, g, deps, ndeps, p->eventRecord.event);
	case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
		return add_event_wait(out, g, deps, ndeps, p->eventWait.event);
	case CU_GRAPH_NODE_TYPE_MEM_ALLOC: {
		CUDA_MEM_ALLOC_NODE_PARAMS d = { .poolProps = p->alloc.poolProps,
						 .accessDescs = p->alloc.accessDescs,
						 .accessDescCount = p->alloc.accessDescCount,
						 .bytesize = p->alloc.bytesize };

		r = add_mem_alloc(out, g, deps, ndeps, &d);
		if (r == CUDA_SUCCESS)
			p->alloc.dptr = d.dptr;
		return r;
	}
	case CU_GRAPH_NODE_TYPE_MEM_FREE:
		return add_mem_free(out, g, deps, ndeps, p->free.dptr);
	case CU_GRAPH_NODE_TYPE_CONDITIONAL:
		return add_conditional(out, g, deps, ndeps, &p->conditional);
	default:
		/* external semaphores and batched memory operations are not simulated */
		return CUDA_ERROR_NOT_SUPPORTED;
	}
}

/* Edge data is never set here (every edge is a default one): dependencyData is not read. */
CUresult CUDAAPI cuGraphAddNode_v2(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				   const CUgraphEdgeData *edges, size_t ndeps,
				   CUgraphNodeParams *params)
{
	cuGraphAddNode_v2_params p = { out, g, deps, edges, ndeps, params };
	DRV_ENTER(cuGraphAddNode_v2, &p,
		  params && params->type == CU_GRAPH_NODE_TYPE_KERNEL && params->kernel.func ?
			  params->kernel.func->name :
			  NULL);
	NEED_CTX();
	DRV_RETURN(add_node(out, g, deps, ndeps, params));
}

/* CUDA 12.2's form, without edge data, for programs built then. */
CUresult CUDAAPI cuGraphAddNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
				CUgraphNodeParams *params)
{
	cuGraphAddNode_params p = { out, g, deps, ndeps, params };
	DRV_ENTER(cuGraphAddNode, &p,
		  params && params->type == CU_GRAPH_NODE_TYPE_KERNEL && params->kernel.func ?
			  params->kernel.func->name :
			  NULL);
	NEED_CTX();
	DRV_RETURN(add_node(out, g, deps, ndeps, params));
}

CUresult CUDAAPI cuGraphChildGraphNodeGetGraph(CUgraphNode node, CUgraph *out)
{
	DRV_ENTER(cuGraphChildGraphNodeGetGraph, NULL, NULL);

	NEED_CTX();
	if (!node || !out || node->type != CU_GRAPH_NODE_TYPE_GRAPH || !node->child)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* "This call does not clone the graph. Changes to the graph will be reflected in the node, and the node retains ownership of the graph." */
	*out = node->child;
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * Pairs the live nodes of have (a child graph node's own graph, as
 * instantiated in x) with those of want in creation order, child graphs
 * recursively ("The update is recursive"): 0 if "The topology of
 * childGraph, as well as the node insertion order, must match that of the
 * graph contained in node", else -EINVAL. apply: x's nodes standing for
 * have's take want's parameters.
 */
static int child_params(struct CUgraphExec_st *x, const struct CUgraph_st *have,
			const struct CUgraph_st *want, int apply, unsigned depth)
{
	size_t i = 0, j = 0, e;

	if (depth > 64)
		return -EINVAL;
	for (;;) {
		const struct CUgraphNode_st *h, *w;

		while (i < have->n && have->nodes[i]->dead)
			i++;
		while (j < want->n && want->nodes[j]->dead)
			j++;
		if (i == have->n || j == want->n)
			return i == have->n && j == want->n ? 0 : -EINVAL;
		h = have->nodes[i++];
		w = want->nodes[j++];
		if (h->type != w->type || h->ndeps != w->ndeps)
			return -EINVAL;
		if (h->type == CU_GRAPH_NODE_TYPE_GRAPH) {
			if (child_params(x, h->child, w->child, apply, depth + 1))
				return -EINVAL;
			continue;
		}
		for (e = 0; apply && e < x->n; e++) {
			if (x->nodes[e]->origin_id == h->id) {
				exec_node_take_params(x->nodes[e], w);
				graph_event(CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS, NULL, NULL,
					    x->nodes[e], (CUgraphNode)h, NULL, x);
			}
		}
	}
}

/*
 * "Updates the work represented by hNode in hGraphExec as though the nodes
 * contained in hNode's graph had the parameters contained in childGraph's
 * nodes at instantiation. hNode must remain in the graph which was used to
 * instantiate hGraphExec." "The modifications only affect future launches
 * of hGraphExec."
 */
CUresult CUDAAPI cuGraphExecChildGraphNodeSetParams(CUgraphExec x, CUgraphNode node,
						    CUgraph child)
{
	CUresult r = CUDA_SUCCESS;
	DRV_ENTER(cuGraphExecChildGraphNodeSetParams, NULL, NULL);

	NEED_CTX();
	if (!x || !node || !child || !node->graph || node->dead ||
	    node->type != CU_GRAPH_NODE_TYPE_GRAPH || node->graph->id != x->graph_id)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&S.lock);
	while (x->busy)
		pthread_cond_wait(&S.host_cond, &S.lock);
	pthread_mutex_unlock(&S.lock);
	if (child_params(x, node->child, child, 0, 0))
		r = CUDA_ERROR_INVALID_VALUE;
	else
		child_params(x, node->child, child, 1, 0);
	DRV_RETURN(r);
}

/*
 * The attributes "Valid for graph nodes" (CUlaunchAttributeID): kept as
 * set, as a stream keeps its own (stream_attr), with the same checks of
 * the access policy window and the memory synchronization domain; the
 * others are CUDA_ERROR_INVALID_VALUE. A node never set gives zeros,
 * which is each one's default ("By default, kernels are launched in
 * domain 0").
 */
static CUresult kernel_node_attr(CUgraphNode node, CUkernelNodeAttrID attr, CUkernelNodeAttrValue *v,
				 int set)
{
	const CUaccessPolicyWindow *w;

	if (!node || !v || node->type != CU_GRAPH_NODE_TYPE_KERNEL)
		return CUDA_ERROR_INVALID_VALUE;
	switch (attr) {
	case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
		w = &v->accessPolicyWindow;
		/* "hitRatio specifies percentage of lines assigned hitProp"; missProp "Must be either NORMAL or STREAMING" */
		if (set && (!(w->hitRatio >= 0.0f && w->hitRatio <= 1.0f) ||
			    (unsigned)w->hitProp > CU_ACCESS_PROPERTY_PERSISTING ||
			    (w->missProp != CU_ACCESS_PROPERTY_NORMAL &&
			     w->missProp != CU_ACCESS_PROPERTY_STREAMING)))
			return CUDA_ERROR_INVALID_VALUE;
		break;
	case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
		if (set && v->memSyncDomain != CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT &&
		    v->memSyncDomain != CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE)
			return CUDA_ERROR_INVALID_VALUE;
		break;
	case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
	case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
	case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
	case CU_LAUNCH_ATTRIBUTE_PRIORITY:
	case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
	case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
	case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
	case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
		break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&S.lock);
	if (set)
		node->kattr[attr] = *v;
	else
		*v = node->kattr[attr];
	pthread_mutex_unlock(&S.lock);
	return CUDA_SUCCESS;
}

/* "Sets attribute attr on node hNode from corresponding attribute of value." */
CUresult CUDAAPI cuGraphKernelNodeSetAttribute(CUgraphNode node, CUkernelNodeAttrID attr,
					       const CUkernelNodeAttrValue *v)
{
	cuGraphKernelNodeSetAttribute_params p = { node, attr, v };
	CUkernelNodeAttrValue copy;
	DRV_ENTER(cuGraphKernelNodeSetAttribute, &p, NULL);

	NEED_CTX();
	if (!v)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	copy = *v;
	DRV_RETURN(kernel_node_attr(node, attr, &copy, 1));
}

/* "Queries attribute attr from node hNode and stores it in corresponding member of value_out." */
CUresult CUDAAPI cuGraphKernelNodeGetAttribute(CUgraphNode node, CUkernelNodeAttrID attr,
					       CUkernelNodeAttrValue *v)
{
	cuGraphKernelNodeGetAttribute_params p = { node, attr, v };
	DRV_ENTER(cuGraphKernelNodeGetAttribute, &p, NULL);

	NEED_CTX();
	DRV_RETURN(kernel_node_attr(node, attr, v, 0));
}

/* "Copies attributes from source node src to destination node dst." */
CUresult CUDAAPI cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src)
{
	cuGraphKernelNodeCopyAttributes_params p = { dst, src };
	DRV_ENTER(cuGraphKernelNodeCopyAttributes, &p, NULL);

	NEED_CTX();
	if (!dst || !src || dst->type != CU_GRAPH_NODE_TYPE_KERNEL ||
	    src->type != CU_GRAPH_NODE_TYPE_KERNEL)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&S.lock);
	memcpy(dst->kattr, src->kattr, sizeof(dst->kattr));
	pthread_mutex_unlock(&S.lock);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphKernelNodeGetParams_v2(CUgraphNode node, CUDA_KERNEL_NODE_PARAMS *p)
{
	DRV_ENTER(cuGraphKernelNodeGetParams_v2, NULL, NULL);

	NEED_CTX();
	if (!node || !p || !node->graph || node->type != CU_GRAPH_NODE_TYPE_KERNEL)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* Kernel arguments are not simulated: kernelParams and extra come back NULL. */
	*p = (CUDA_KERNEL_NODE_PARAMS){ .func = node->f,
					.gridDimX = node->grid[0], .gridDimY = node->grid[1],
					.gridDimZ = node->grid[2], .blockDimX = node->block[0],
					.blockDimY = node->block[1], .blockDimZ = node->block[2],
					.sharedMemBytes = node->shmem };
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphKernelNodeSetParams_v2(CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS *p)
{
	DRV_ENTER(cuGraphKernelNodeSetParams_v2, NULL, p && p->func ? p->func->name : NULL);

	NEED_CTX();
	if (!node || !node->graph || node->type != CU_GRAPH_NODE_TYPE_KERNEL ||
	    !kernel_params_ok(p))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* "Sets the parameters of kernel node hNode to nodeParams": the graph's node, not an executable graph's. */
	kernel_params_set(node, p);
	DRV_RETURN(CUDA_SUCCESS);
}

/* ---- node parameters after the node is made ---- */

/* The graph's node n, of type (-1: any); NULL if it is not one (an executable graph's, destroyed). */
static struct CUgraphNode_st *graph_node(CUgraphNode n, int type)
{
	return n && n->graph && !n->dead && (type < 0 || (int)n->type == type) ? n : NULL;
}

/*
 * The executable graph x's node for node n of the graph it came from, x's
 * launch in progress (on the host worker) finished; NULL if none. S.lock
 * is held on return when the node is found.
 */
static struct CUgraphNode_st *exec_node_lock(CUgraphExec x, CUgraphNode n, int type)
{
	size_t i;

	if (!x || !graph_node(n, type))
		return NULL;
	for (i = 0; i < x->n; i++) {
		if (x->nodes[i]->origin_id == n->id) {
			pthread_mutex_lock(&S.lock);
			while (x->busy)
				pthread_cond_wait(&S.host_cond, &S.lock);
			return x->nodes[i];
		}
	}
	return NULL;
}

/* The copy a node makes, as a CUDA_MEMCPY3D: the program's, or its rows (a captured copy). */
static void memcpy_params_of(const struct CUgraphNode_st *n, CUDA_MEMCPY3D *p)
{
	if (n->copy3d.WidthInBytes) {
		*p = n->copy3d;
		return;
	}
	*p = (CUDA_MEMCPY3D){ .srcMemoryType = CU_MEMORYTYPE_UNIFIED,
			      .srcDevice = (CUdeviceptr)(uintptr_t)n->src,
			      .srcPitch = n->spitch,
			      .dstMemoryType = CU_MEMORYTYPE_UNIFIED,
			      .dstDevice = (CUdeviceptr)(uintptr_t)n->dst,
			      .dstPitch = n->dpitch,
			      .WidthInBytes = n->width,
			      .Height = n->height,
			      .Depth = 1 };
}

CUresult CUDAAPI cuGraphMemcpyNodeGetParams(CUgraphNode node, CUDA_MEMCPY3D *p)
{
	struct CUgraphNode_st *n = graph_node(node, CU_GRAPH_NODE_TYPE_MEMCPY);
	DRV_ENTER(cuGraphMemcpyNodeGetParams, NULL, NULL);

	NEED_CTX();
	if (!n || !p)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	memcpy_params_of(n, p);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphMemcpyNodeSetParams(CUgraphNode node, const CUDA_MEMCPY3D *p)
{
	struct CUgraphNode_st *n = graph_node(node, CU_GRAPH_NODE_TYPE_MEMCPY);
	DRV_ENTER(cuGraphMemcpyNodeSetParams, NULL, NULL);

	NEED_CTX();
	DRV_RETURN(n ? memcpy_fill(n, p) : CUDA_ERROR_INVALID_VALUE);
}

CUresult CUDAAPI cuGraphMemsetNodeGetParams(CUgraphNode node, CUDA_MEMSET_NODE_PARAMS *p)
{
	struct CUgraphNode_st *n = graph_node(node, CU_GRAPH_NODE_TYPE_MEMSET);
	DRV_ENTER(cuGraphMemsetNodeGetParams, NULL, NULL);

	NEED_CTX();
	if (!n || !p)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*p = (CUDA_MEMSET_NODE_PARAMS){ .dst = (CUdeviceptr)(uintptr_t)n->dst,
					.pitch = n->dpitch,
					.value = n->value,
					.elementSize = n->elem,
					.width = n->width,
					.height = n->height };
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphMemsetNodeSetParams(CUgraphNode node, const CUDA_MEMSET_NODE_PARAMS *p)
{
	struct CUgraphNode_st *n = graph_node(node, CU_GRAPH_NODE_TYPE_MEMSET);
	DRV_ENTER(cuGraphMemsetNodeSetParams, NULL, NULL);

	NEED_CTX();
	DRV_RETURN(n ? memset_fill(n, p) : CUDA_ERROR_INVALID_VALUE);
}

CUresult CUDAAPI cuGraphHostNodeGetParams(CUgraphNode node, CUDA_HOST_NODE_PARAMS *p)
{
	struct CUgraphNode_st *n = graph_node(node, CU_GRAPH_NODE_TYPE_HOST);
	DRV_ENTER(cuGraphHostNodeGetParams, NULL, NULL);

	NEED_CTX();
	if (!n || !p)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*p = (CUDA_HOST_NODE_PARAMS){ n->fn, n->user };
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphHostNodeSetParams(CUgraphNode node, const CUDA_HOST_NODE_PARAMS *p)
{
	struct CUgraphNode_st *n = graph_node(node, CU_GRAPH_NODE_TYPE_HOST);
	DRV_ENTER(cuGraphHostNodeSetParams, NULL, NULL);

	NEED_CTX();
	DRV_RETURN(n ? host_fill(n, p) : CUDA_ERROR_INVALID_VALUE);
}

/*
 * The executable graph's copy of node takes new parameters: "The
 * modifications only affect future launches of hGraphExec. Already
 * enqueued or running launches of hGraphExec are not affected by this
 * call. hNode is also not modified by this call."
 */
static CUresult exec_set(CUgraphExec x, CUgraphNode node, int type, const void *p)
{
	struct CUgraphNode_st *e;
	CUresult r;

	if ((type == CU_GRAPH_NODE_TYPE_MEMCPY ? memcpy_fill(NULL, p) :
	     type == CU_GRAPH_NODE_TYPE_MEMSET ? memset_fill(NULL, p) :
						 host_fill(NULL, p)) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	e = exec_node_lock(x, node, type);
	if (!e)
		return CUDA_ERROR_INVALID_VALUE;
	r = type == CU_GRAPH_NODE_TYPE_MEMCPY ? memcpy_fill(e, p) :
	    type == CU_GRAPH_NODE_TYPE_MEMSET ? memset_fill(e, p) :
						host_fill(e, p);
	pthread_mutex_unlock(&S.lock);
	graph_event(CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS, NULL, NULL, e, node, NULL, x);
	return r;
}

CUresult CUDAAPI cuGraphExecMemcpyNodeSetParams(CUgraphExec x, CUgraphNode node,
						const CUDA_MEMCPY3D *p, CUcontext ctx)
{
	DRV_ENTER(cuGraphExecMemcpyNodeSetParams, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(exec_set(x, node, CU_GRAPH_NODE_TYPE_MEMCPY, p));
}

CUresult CUDAAPI cuGraphExecMemsetNodeSetParams(CUgraphExec x, CUgraphNode node,
						const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
	DRV_ENTER(cuGraphExecMemsetNodeSetParams, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(exec_set(x, node, CU_GRAPH_NODE_TYPE_MEMSET, p));
}

CUresult CUDAAPI cuGraphExecHostNodeSetParams(CUgraphExec x, CUgraphNode node,
					      const CUDA_HOST_NODE_PARAMS *p)
{
	DRV_ENTER(cuGraphExecHostNodeSetParams, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(exec_set(x, node, CU_GRAPH_NODE_TYPE_HOST, p));
}

/*
 * "Sets hNode to be either enabled or disabled. Disabled nodes are
 * functionally equivalent to empty nodes until they are reenabled."
 * "Currently only kernel, memset and memcpy nodes are supported."
 */
static CUresult node_enabled(CUgraphExec x, CUgraphNode node, unsigned int *get, unsigned int set)
{
	struct CUgraphNode_st *e;

	if (!graph_node(node, -1) || (node->type != CU_GRAPH_NODE_TYPE_KERNEL &&
				      node->type != CU_GRAPH_NODE_TYPE_MEMCPY &&
				      node->type != CU_GRAPH_NODE_TYPE_MEMSET))
		return CUDA_ERROR_INVALID_VALUE;
	e = exec_node_lock(x, node, -1);
	if (!e)
		return CUDA_ERROR_INVALID_VALUE;
	if (get)
		*get = !e->disabled;
	else
		e->disabled = !set;
	pthread_mutex_unlock(&S.lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphNodeSetEnabled(CUgraphExec x, CUgraphNode node, unsigned int enabled)
{
	DRV_ENTER(cuGraphNodeSetEnabled, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(node_enabled(x, node, NULL, enabled));
}

CUresult CUDAAPI cuGraphNodeGetEnabled(CUgraphExec x, CUgraphNode node, unsigned int *enabled)
{
	DRV_ENTER(cuGraphNodeGetEnabled, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(enabled ? node_enabled(x, node, enabled, 0) : CUDA_ERROR_INVALID_VALUE);
}

/*
 * "The number of dependencies to be removed is defined by numDependencies.
 * Elements in from and to at corresponding indices define a dependency."
 * "Specifying a non-existing dependency will return an error." Edge data
 * is never set here.
 */
static CUresult remove_deps(CUgraph g, const CUgraphNode *from, const CUgraphNode *to, size_t n)
{
	size_t i, k, idx;

	if (!g || (n && (!from || !to)))
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < n; i++) {
		struct CUgraphNode_st *t = to[i];

		if (!graph_node(from[i], -1) || !graph_node(t, -1) || from[i]->graph != g ||
		    t->graph != g)
			return CUDA_ERROR_INVALID_VALUE;
		idx = node_index(g, from[i]);
		for (k = 0; k < t->ndeps && t->deps[k] != idx; k++)
			;
		if (k == t->ndeps)
			return CUDA_ERROR_INVALID_VALUE;
		t->deps[k] = t->deps[--t->ndeps];
		graph_event(CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_DESTROY_STARTING, g, NULL, t,
			    NULL, from[i], NULL);
	}
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphRemoveDependencies_v2(CUgraph g, const CUgraphNode *from,
					      const CUgraphNode *to, const CUgraphEdgeData *edges,
					      size_t n)
{
	DRV_ENTER(cuGraphRemoveDependencies_v2, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(remove_deps(g, from, to, n));
}

CUresult CUDAAPI cuGraphRemoveDependencies(CUgraph g, const CUgraphNode *from,
					   const CUgraphNode *to, size_t n)
{
	DRV_ENTER(cuGraphRemoveDependencies, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(remove_deps(g, from, to, n));
}

/* "This function returns the node in hClonedGraph corresponding to hOriginalNode in the original graph." */
CUresult CUDAAPI cuGraphNodeFindInClone(CUgraphNode *out, CUgraphNode orig, CUgraph clone)
{
	size_t idx;
	DRV_ENTER(cuGraphNodeFindInClone, NULL, NULL);

	NEED_CTX();
	if (!out || !clone || !graph_node(orig, -1) || clone->clone_of != orig->graph->id)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	idx = node_index(orig->graph, orig);
	if (idx >= clone->n || clone->nodes[idx]->dead)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*out = clone->nodes[idx];
	DRV_RETURN(CUDA_SUCCESS);
}

/* cuGraphNodeSetParams / cuGraphExecNodeSetParams: the kinds whose parameters can change. */
static CUresult set_params(CUgraphExec x, CUgraphNode node, CUgraphNodeParams *p)
{
	CUDA_KERNEL_NODE_PARAMS k;
	CUDA_MEMSET_NODE_PARAMS m;
	CUDA_HOST_NODE_PARAMS h;
	struct CUgraphNode_st *e;

	if (!p || !graph_node(node, -1) || (int)node->type != (int)p->type)
		return CUDA_ERROR_INVALID_VALUE;
	switch (p->type) {
	case CU_GRAPH_NODE_TYPE_KERNEL:
		k = (CUDA_KERNEL_NODE_PARAMS){ .func = p->kernel.func,
					       .gridDimX = p->kernel.gridDimX,
					       .gridDimY = p->kernel.gridDimY,
					       .gridDimZ = p->kernel.gridDimZ,
					       .blockDimX = p->kernel.blockDimX,
					       .blockDimY = p->kernel.blockDimY,
					       .blockDimZ = p->kernel.blockDimZ,
					       .sharedMemBytes = p->kernel.sharedMemBytes };
		if (!kernel_params_ok(&k))
			return CUDA_ERROR_INVALID_VALUE;
		if (!x) {
			kernel_params_set(node, &k);
			return CUDA_SUCCESS;
		}
		e = exec_node_lock(x, node, CU_GRAPH_NODE_TYPE_KERNEL);
		if (!e)
			return CUDA_ERROR_INVALID_VALUE;
		kernel_params_set(e, &k);
		pthread_mutex_unlock(&S.lock);
		return CUDA_SUCCESS;
	case CU_GRAPH_NODE_TYPE_MEMCPY:
		return x ? exec_set(x, node, CU_GRAPH_NODE_TYPE_MEMCPY, &p->memcpy.copyParams) :
			   memcpy_fill(node, &p->memcpy.copyParams);
	case CU_GRAPH_NODE_TYPE_MEMSET:
		m = (CUDA_MEMSET_NODE_PARAMS){ p->memset.dst,	      p->memset.pitch,
					       p->memset.value,       p->memset.elementSize,
					       p->memset.width,       p->memset.height };
		return x ? exec_set(x, node, CU_GRAPH_NODE_TYPE_MEMSET, &m) : memset_fill(node, &m);
	case CU_GRAPH_NODE_TYPE_HOST:
		h = (CUDA_HOST_NODE_PARAMS){ p->host.fn, p->host.userData };
		return x ? exec_set(x, node, CU_GRAPH_NODE_TYPE_HOST, &h) : host_fill(node, &h);
	default:
		return CUDA_ERROR_NOT_SUPPORTED;
	}
}

CUresult CUDAAPI cuGraphNodeSetParams(CUgraphNode node, CUgraphNodeParams *p)
{
	DRV_ENTER(cuGraphNodeSetParams, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(set_params(NULL, node, p));
}

CUresult CUDAAPI cuGraphExecNodeSetParams(CUgraphExec x, CUgraphNode node, CUgraphNodeParams *p)
{
	DRV_ENTER(cuGraphExecNodeSetParams, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(x ? set_params(x, node, p) : CUDA_ERROR_INVALID_VALUE);
}

static CUresult instantiate_with_params(CUgraphExec *out, CUgraph g,
					CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	CUresult r;

	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	/* "In the event of an error, the result_out and hErrNode_out fields will contain more information about the nature of the error." */
	p->hErrNode_out = NULL;
	r = graph_instantiate(out, g, p->flags, &p->result_out);
	/* With CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD "The upload will be performed using the stream provided in instantiateParams": nothing to upload here. */
	return r;
}

CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec *out, CUgraph g,
					      CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	DRV_ENTER(cuGraphInstantiateWithParams, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(instantiate_with_params(out, g, p));
}

CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec *out, CUgraph g,
						   CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	DRV_ENTER(cuGraphInstantiateWithParams_ptsz, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(instantiate_with_params(out, g, p));
}

uint64_t gpsim_graph_node_id(CUgraphNode n)
{
	return n ? n->id : 0;
}

uint32_t gpsim_graph_id(CUgraph g)
{
	return g ? g->id : 0;
}

uint32_t gpsim_graph_exec_id(CUgraphExec x)
{
	return x ? x->id : 0;
}

#pragma GCC visibility pop

/* ---- for the other parts of libcuda (sim_drv.h) ------------------------- */

struct CUstream_st *gpsim__stream(CUstream h)
{
	return stream_of(h);
}

uint64_t gpsim__stream_dep(struct CUstream_st *s)
{
	uint64_t t;

	pthread_mutex_lock(&S.lock);
	t = stream_dep(s);
	pthread_mutex_unlock(&S.lock);
	return t;
}

void gpsim__stream_after(struct CUstream_st *s, uint64_t t)
{
	pthread_mutex_lock(&S.lock);
	s->ready = max_u64(s->ready, t);
	pthread_mutex_unlock(&S.lock);
}

void *gpsim__static_alloc(size_t size)
{
	struct alloc *m = calloc(1, sizeof(*m));
	void *p = NULL;

	if (!m || posix_memalign(&p, 256, size ? size : 1)) {
		free(m);
		return NULL;
	}
	memset(p, 0, size ? size : 1);
	m->base = (uintptr_t)p;
	m->size = size;
	m->kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	pthread_mutex_lock(&S.lock);
	m->next = S.allocs;
	S.allocs = m;
	pthread_mutex_unlock(&S.lock);
	return p;
}

void gpsim__static_free(void *p)
{
	struct alloc **pp, *m;

	pthread_mutex_lock(&S.lock);
	for (pp = &S.allocs; (m = *pp); pp = &m->next) {
		if (m->base == (uintptr_t)p && m->kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE &&
		    !m->registered) {
			*pp = m->next;
			free(p);
			free(m);
			break;
		}
	}
	pthread_mutex_unlock(&S.lock);
}

uint32_t gpsim__stream_id(struct CUstream_st *s)
{
	return s->id;
}

int gpsim__stream_capturing(struct CUstream_st *s)
{
	return s->capture != NULL;
}

uint32_t gpsim__corr(void)
{
	uint32_t corr, rt, drv;

	current_corr(&corr, &rt, &drv);
	return corr;
}

int gpsim__inited(void)
{
	return atomic_load(&S.inited);
}

void gpsim__wait_until(uint64_t t)
{
	wait_until(t);
}

uint64_t gpsim__device_ready(void)
{
	return device_ready();
}

CUcontext gpsim__primary(void)
{
	return &S.ctx;
}

int gpsim__primary_alive(void)
{
	int alive;

	pthread_mutex_lock(&S.lock);
	alive = S.ctx_alive;
	pthread_mutex_unlock(&S.lock);
	return alive;
}

void gpsim__resource(uint32_t cbid, const struct gpsim_res_ev *ev)
{
	const struct gpsim_hooks *h = hooks();

	if (h && h->resource)
		h->resource(cbid, ev);
}

void gpsim__ctx_going(void)
{
	const struct gpsim_hooks *h = hooks();

	if (h && h->ctx_reset)
		h->ctx_reset();
}
