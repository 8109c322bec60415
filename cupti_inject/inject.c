// SPDX-License-Identifier: Apache-2.0
/* libgpuperf_inject.so entry points: InitializeInjection, the LD_PRELOAD constructor, exit/fork/signal handling. */

/*
 * How it works.
 *
 * Loading. The CUDA driver dlopen()s this library from CUDA_INJECTION64_PATH
 * and calls InitializeInjection() during the first cuInit(); with LD_PRELOAD
 * our constructor runs before main() instead, but only in a process that
 * has libcudart/libcuda mapped (LD_PRELOAD reaches every child, shells
 * included). Both paths end in one pthread_once, so a library loaded both
 * ways records once.
 *
 * Setup (init_once): read GPUPERF_* (inject_config), dlopen libcupti
 * (cupti_call), subscribe (refused when another profiler holds CUPTI),
 * SYSTEM thread ids, the MONOTONIC timestamp callback (before any kind is
 * enabled), create gpu-<pid>.trace, register the bounded buffer pool
 * (act_buf), enable the activity kinds and narrow the API kinds to the
 * recorded calls (cupti_cb/api_filter), start the writer thread
 * (trace_thread). Any failure is logged in one line and leaves the program
 * running untraced; so does secure execution (setuid), where GPUPERF_* is
 * not read at all.
 *
 * Hot path: CUPTI records API calls and GPU work into our buffers by
 * itself; its worker hands full buffers to bufferCompleted, which queues
 * them for the writer thread (convert, compress, write). Ours on the
 * launching thread, with launch stacks on (GPUPERF_STACKS, the default):
 * the API-enter callback of each call that issues GPU work walks the stack
 * and appends it to the thread's ring (launch_stack.h); the writer thread
 * writes (correlation id -> stack) and the module mappings.
 *
 * Ending: atexit (normal exit, exit() from any thread, return from main)
 * flushes CUPTI and closes the trace. cudaDeviceReset: its callback flushes
 * CUPTI on entry and waits (bounded) for the writer to put everything on
 * disk on exit. SIGINT/SIGTERM: only where the program left the default
 * action in place, a one-shot handler has the writer finish the trace
 * (bounded wait), then re-raises the signal, so the program still dies of
 * it with the same status; a program's own handlers are never replaced.
 * fork(): the child drops the parent's writer untouched and writes its own
 * gpu-<childpid>.trace. exec: the new image gets a file of its own
 * (gpu-<pid>.<n>.trace) beside the old image's. SIGKILL/crash/exec: the
 * writer's periodic flush (GPUPERF_FLUSH_MS) has put everything older than
 * one period on disk.
 */

#include <cupti.h>

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "act_buf.h"
#include "cupti_call.h"
#include "cupti_cb.h"
#include "cupti_clock.h"
#include "gp_record.h"
#include "gp_util.h"
#include "graph_mem.h"
#include "inject_config.h"
#include "inject_log.h"
#include "launch_stack.h"
#include "trace_thread.h"
#include "vmm_mem.h"

/* Free CUPTI buffers kept resident after a burst (act_buf.h). */
#define RESIDENT_FREE_BUFFERS 4u

#define EXPORT __attribute__((visibility("default")))
#define SIGNAL_WAIT_MS 3000u
#define RESET_WAIT_MS 2000u

/* The library's one state struct: CUPTI's buffer callbacks carry no user data. */
static struct inject {
	pthread_once_t once;
	struct inject_config cfg;
	struct trace_thread_opts topts;
	atomic_int active;	/* tracing in this process */
	pid_t pid;		/* process the state belongs to */
	int forked_child;	/* a fork child: own trace file, no CUPTI */
	CUpti_SubscriberHandle sub;
	struct act_buf pool;
	struct trace_thread tt;
	struct launch_stack ls;	/* GPUPERF_STACKS */
	struct graph_mem gm;	/* graph memory nodes by address (memory records) */
	struct vmm_mem vm;	/* virtual memory's allocations (memory records of our own) */
} G = { .once = PTHREAD_ONCE_INIT };

EXPORT int InitializeInjection(void);

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	act_buf__requested(&G.pool, buffer, size, max_records);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
				      size_t size, size_t valid)
{
	act_buf__completed(&G.pool, buffer, valid, stream);
}

/*
 * Around cudaDeviceReset (and the driver calls it makes, or a program makes
 * itself): hand CUPTI's records over before the context goes, and have them
 * on disk before the call returns. Only the outermost call of a thread acts.
 */
static void on_reset(int enter)
{
	static __thread int depth;

	if (!enter && depth > 0 && --depth)
		return;
	if (enter && depth++)
		return;
	if (!atomic_load(&G.active) || getpid() != G.pid)
		return;
	if (enter)
		GP_CUPTI_CALL(ActivityFlushAll, (0));
	else
		trace_thread__sync(&G.tt, RESET_WAIT_MS);
}

static void on_exit_handler(void)
{
	if (G.forked_child) {
		trace_thread__child_close(&G.tt);
		return;
	}
	if (!atomic_exchange(&G.active, 0) || getpid() != G.pid)
		return;
	trace_thread__stop(&G.tt);
	inj_info("trace written to '%s'", G.tt.path);
}

static void on_fork_child(void)
{
	pid_t ppid = G.pid;

	if (!atomic_load(&G.active) && !G.forked_child)
		return;
	atomic_store(&G.active, 0);
	G.forked_child = 1;
	G.pid = getpid();
	trace_thread__fork_child(&G.tt, &G.topts, (uint32_t)ppid);
}

/*
 * SIGINT/SIGTERM where the program kept the default action. Called either by
 * the kernel (installed with SA_RESETHAND: SIG_DFL is back as we enter) or
 * by a handler the program installed later over ours, which chains to the
 * handler it replaced: for that program we stand in for SIG_DFL. Either
 * way we do what the default action does, after the trace is finished:
 * SIG_DFL in place, the signal unblocked (a second one during the wait
 * kills at once) and raised, so the process dies of it with the status it
 * would have had without us. Never a return into a raise() that would run
 * the program's handler again, which chains to us again. Only
 * async-signal-safe calls here: the writer thread does the work.
 */
static void on_term_signal(int sig)
{
	struct sigaction dfl;
	sigset_t set;
	int saved = errno;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	if (atomic_load(&G.active) && getpid() == G.pid && !G.forked_child) {
		trace_thread__stop_async(&G.tt);
		trace_thread__wait_finished(&G.tt, SIGNAL_WAIT_MS);
	}
	raise(sig);
	errno = saved;
}

static void install_signal_handlers(void)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	struct sigaction old, sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term_signal;
	sa.sa_flags = SA_RESETHAND | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		if (sigaction(sigs[i], NULL, &old) || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue; /* the program's own handler or SIG_IGN: not ours to touch */
		sigaction(sigs[i], &sa, NULL);
	}
}

static void enable_kinds(uint32_t kinds)
{
	static const struct {
		uint32_t bit;
		CUpti_ActivityKind kind;
	} map[] = {
		{ INJ_KIND_DEVICE, CUPTI_ACTIVITY_KIND_DEVICE },
		{ INJ_KIND_API, CUPTI_ACTIVITY_KIND_RUNTIME },
		{ INJ_KIND_API, CUPTI_ACTIVITY_KIND_DRIVER },
		{ INJ_KIND_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL },
		{ INJ_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY },
		{ INJ_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMSET },
		{ INJ_KIND_SYNC, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION },
		{ INJ_KIND_MEMORY, CUPTI_ACTIVITY_KIND_MEMORY2 },
		{ INJ_KIND_MEMORY, CUPTI_ACTIVITY_KIND_MEMORY_POOL },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (kinds & map[i].bit)
			GP_CUPTI_CALL(ActivityEnable, (map[i].kind));
	if ((kinds & INJ_KIND_API) && !cupti_cb__filter_api())
		inj_info("this CUPTI cannot select API calls by cbid; unrecorded calls are skipped by the writer");
}

static void init_once(void)
{
	char why[512];
	struct stat st;
	uint16_t clock_id = GP_CLOCK_MONOTONIC;
	CUptiResult r;
	unsigned i;
	int err;

	/*
	 * setuid, setgid or file capabilities: the environment belongs to a less
	 * privileged user, and GPUPERF_CUPTI_LIB (dlopen), GPUPERF_LOG_FILE and
	 * GPUPERF_DIR (files created) would act with this process's privileges.
	 * There is no directory of our own to fall back to, so no tracing at all.
	 */
	if (getauxval(AT_SECURE)) {
		inject_log__init(INJECT_LOG_WARN, NULL);
		inj_err("secure execution (setuid, setgid or capabilities): GPUPERF_* not trusted; "
			"running untraced");
		return;
	}
	inject_config__load(&G.cfg);
	inject_log__init(G.cfg.log_level, G.cfg.log_file);
	for (i = 0; i < G.cfg.nwarnings; i++)
		inj_warn("%s", G.cfg.warnings[i]);
	G.pid = getpid();

	if (stat(G.cfg.dir, &st) || !S_ISDIR(st.st_mode)) {
		inj_err("GPUPERF_DIR '%s' is not a directory; running untraced", G.cfg.dir);
		return;
	}
	err = cupti_call__open(G.cfg.cupti_lib, why, sizeof(why));
	if (err) {
		inj_err("CUPTI is not available (%s); running untraced", why);
		return;
	}
	r = cupti_cb__subscribe(&G.sub, on_reset, G.cfg.stacks ? &G.ls : NULL);
	if (r != CUPTI_SUCCESS) {
		inj_err("cannot subscribe to CUPTI: %s%s; running untraced",
			cupti_call__strerror(r),
			r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ?
				" (another profiler or tool already uses CUPTI)" :
				"");
		return;
	}
	GP_CUPTI_CALL(SetThreadIdType, (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM));
	/* Before any kind is enabled, or early records would be in CUPTI's own clock. */
	if (cupti_clock__install()) {
		inj_warn("CUPTI timestamps stay in CUPTI's clock; the clock pairs align them");
		clock_id = GP_CLOCK_REALTIME;
	}

	G.topts.dir = G.cfg.dir;
	G.topts.flush_ms = G.cfg.flush_ms;
	G.topts.zlevel = G.cfg.zlevel;
	G.topts.nice = G.cfg.writer_nice;
	G.topts.clock_id = clock_id;
	err = act_buf__init(&G.pool, G.cfg.buffer_size, G.cfg.buffer_count, RESIDENT_FREE_BUFFERS, -1);
	if (err) {
		inj_err("cannot reserve %u activity buffers of %u bytes: %s; running untraced",
			G.cfg.buffer_count, G.cfg.buffer_size, strerror(-err));
		goto fail_sub;
	}
	err = trace_thread__open(&G.tt, &G.topts, &G.pool);
	if (err) {
		inj_err("cannot create '%s': %s; running untraced", G.tt.path, strerror(-err));
		goto fail_pool;
	}
	G.pool.wake_fd = trace_thread__wake_fd(&G.tt);
	if (G.cfg.stacks) {
		err = launch_stack__init(&G.ls, trace_thread__wake_fd(&G.tt), G.cfg.stacks_fp);
		if (err)
			inj_warn("no launch stacks: %s", strerror(-err));
		else
			G.tt.ls = &G.ls;
	}
	if ((G.cfg.kinds & INJ_KIND_MEMORY) && gp_cupti.GetGraphNodeId) {
		graph_mem__init(&G.gm);
		if (cupti_cb__enable_graph_mem(G.sub, &G.gm) == CUPTI_SUCCESS)
			G.tt.gm = &G.gm;
	}
	if (G.cfg.kinds & INJ_KIND_MEMORY) {
		vmm_mem__init(&G.vm);
		if (cupti_cb__enable_vmm_mem(G.sub, &G.vm) == CUPTI_SUCCESS)
			G.tt.vm = &G.vm;
	}
	if (GP_CUPTI_CALL(ActivityRegisterCallbacks, (buffer_requested, buffer_completed)) !=
	    CUPTI_SUCCESS) {
		inj_err("CUPTI refused the activity buffer callbacks; running untraced");
		goto fail_trace;
	}
	err = trace_thread__start(&G.tt);
	if (err) {
		inj_err("cannot start the writer thread: %s; running untraced", strerror(-err));
		goto fail_trace;
	}
	/* Registered after CUPTI's own exit hook (set up by RegisterCallbacks), so ours runs first. */
	atexit(on_exit_handler);
	pthread_atfork(NULL, NULL, on_fork_child);
	atomic_store(&G.active, 1);
	enable_kinds(G.cfg.kinds);
	if (G.tt.ls)
		inj_info("launch stacks: callbacks on %d API calls", cupti_cb__enable_launches(G.sub));
	if (G.cfg.signals)
		install_signal_handlers();
	inj_info("recording to '%s'", G.tt.path);
	return;

fail_trace:
	/* The writer thread never ran: close the file as a complete, empty trace. The
	 * pool stays: CUPTI may hold one of its buffers. */
	G.tt.running = 0;
	trace_thread__child_close(&G.tt);
	goto fail_sub;
fail_pool:
	act_buf__release(&G.pool);
fail_sub:
	gp_cupti.Unsubscribe(G.sub);
}

EXPORT int InitializeInjection(void)
{
	pthread_once(&G.once, init_once);
	/* The driver goes on either way; untraced is not an error for the application. */
	return 1;
}

static int find_cuda(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;

	base = base ? base + 1 : info->dlpi_name;
	return base && (!strncmp(base, "libcudart.so", 12) || !strncmp(base, "libcuda.so", 10));
}

/* The LD_PRELOAD route: start only in a process that uses CUDA. */
__attribute__((constructor)) static void inject_ctor(void)
{
	if (dl_iterate_phdr(find_cuda, NULL))
		InitializeInjection();
}
