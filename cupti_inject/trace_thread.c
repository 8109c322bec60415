// SPDX-License-Identifier: Apache-2.0
/* The writer thread: completed CUPTI buffers -> gp_record -> gpu-<pid>.trace, periodic flush, final flush. */

#include "trace_thread.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "act_buf.h"
#include "cupti_call.h"
#include "cupti_clock.h"
#include "gp_record.h"
#include "gp_writer.h"
#include "launch_stack.h"
#include "vmm_mem.h"

static void read_small(const char *path, char *buf, size_t size, int is_link)
{
	ssize_t n;
	int fd;

	buf[0] = '\0';
	if (is_link) {
		n = readlink(path, buf, size - 1);
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		n = read(fd, buf, size - 1);
		close(fd);
	}
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (!is_link && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
}

static void write_process(struct gp_writer *w, uint32_t pid, uint32_t ppid, uint32_t event)
{
	struct gp_rec_process *p;
	char comm[64], exe[PATH_MAX];

	read_small("/proc/self/comm", comm, sizeof(comm), 0);
	read_small("/proc/self/exe", exe, sizeof(exe), 1);
	p = gp_writer__reserve(w, GP_REC_PROCESS, sizeof(*p));
	if (!p)
		return;
	p->comm_str = gp_writer__intern(w, comm);
	p->exe_str = gp_writer__intern(w, exe);
	p->ts = cupti_clock__monotonic_ns();
	p->pid = pid;
	p->ppid = ppid;
	p->event = event;
	gp_writer__commit(w);
}

/*
 * The first free name of gpu-<pid>.trace, gpu-<pid>.1.trace, ... Never an
 * existing file, never through a link: a name already taken is an earlier
 * image of this pid (the program exec'd; its trace must survive) or a file
 * someone else put there.
 */
#define MAX_IMAGES 1000u

static int open_writer(struct trace_thread *t, const struct trace_thread_opts *o)
{
	struct gp_writer_opts wo;
	char name[64];
	int dfd, err = -EEXIST;
	unsigned n;

	snprintf(t->path, sizeof(t->path), "%s/gpu-%u.trace", o->dir, t->pid);
	memset(&wo, 0, sizeof(wo));
	wo.producer = GP_PRODUCER_INJECT;
	wo.clock_id = o->clock_id;
	wo.pid = t->pid;
	wo.level = o->zlevel ? o->zlevel : 1;
	dfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	for (n = 0; n < MAX_IMAGES && err == -EEXIST; n++) {
		if (n)
			snprintf(name, sizeof(name), "gpu-%u.%u.trace", t->pid, n);
		else
			snprintf(name, sizeof(name), "gpu-%u.trace", t->pid);
		snprintf(t->path, sizeof(t->path), "%s/%s", o->dir, name);
		t->w = gp_writer__openat(dfd, name, &wo);
		err = t->w ? 0 : -errno;
		t->image = n;
	}
	close(dfd);
	if (err)
		return err;
	/* GPUPERF_ZLEVEL=0: every chunk as deflate's stored blocks (least CPU, most bytes) */
	t->uncompressed = !o->zlevel;
	gp_writer__set_stored(t->w, t->uncompressed);
	return 0;
}

int trace_thread__open(struct trace_thread *t, const struct trace_thread_opts *o,
		       struct act_buf *pool)
{
	int err;

	memset(t, 0, sizeof(*t));
	t->pool = pool;
	t->pid = (uint32_t)getpid();
	t->flush_ms = o->flush_ms;
	t->nice = o->nice;
	t->cupti_ok = 1;
	t->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->efd < 0)
		return -errno;
	err = open_writer(t, o);
	if (err) {
		close(t->efd);
		t->efd = -1;
		return err;
	}
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	/* a later image of this pid: the program exec'd (docs/trace-format.md) */
	write_process(t->w, t->pid, (uint32_t)getppid(), t->image ? GP_PROC_EXEC : GP_PROC_INFO);
	cupti_clock__write_pair(t->w, 1);
	gp_writer__flush(t->w);
	return 0;
}

/* Launch stacks, and the modules their frames need, while the program runs. */
static void drain_stacks(struct trace_thread *t)
{
	if (!t->ls)
		return;
	/* modules first: a library loaded since is recorded before it can go again */
	launch_stack__modules(t->ls, t->w, cupti_clock__monotonic_ns());
	launch_stack__drain(t->ls, t->w);
}

static void drain(struct trace_thread *t)
{
	struct act_buf_done d;
	unsigned waiting;

	drain_stacks(t);
	if (t->vm)
		vmm_mem__drain(t->vm, t->w, t->pid);
	while (act_buf__take(t->pool, &d, &waiting)) {
		CUpti_Activity *r = NULL;

		t->behind = act_buf__behind(t->behind, waiting);
		if (waiting > t->max_waiting)
			t->max_waiting = waiting;
		gp_writer__set_stored(t->w, t->uncompressed || t->behind);
		while (d.valid &&
		       gp_cupti.ActivityGetNextRecord(d.buf, d.valid, &r) == CUPTI_SUCCESS)
			act_parse__record(t->w, r, t->pid, t->gm, &t->st);
		act_buf__put(t->pool, d.buf);
		/*
		 * Between buffers too: a backlog of them must not leave the launch
		 * rings full, nor miss a library dlopen'ed and dlclose'd while the
		 * writer works through it (its module record is what names the
		 * frames in it; one dl_iterate_phdr step when nothing changed).
		 */
		drain_stacks(t);
	}
}

static void write_dropped(struct gp_writer *w, uint32_t source, uint64_t count, uint32_t cause)
{
	struct gp_rec_dropped *d;

	if (!count)
		return;
	d = gp_writer__reserve(w, GP_REC_DROPPED, sizeof(*d));
	if (!d)
		return;
	d->ts = cupti_clock__monotonic_ns();
	d->count = count;
	d->source = source;
	d->cause = cause;
	gp_writer__commit(w);
}

static void write_counters(struct trace_thread *t)
{
	size_t n = 0;

	if (GP_CUPTI_CALL(ActivityGetNumDroppedRecords, (NULL, 0, &n)) == CUPTI_SUCCESS)
		write_dropped(t->w, GP_DROP_CUPTI, n, 0);
	write_dropped(t->w, GP_DROP_INJECT_BUFFERS, act_buf__take_declined(t->pool), 0);
	if (t->vm)
		write_dropped(t->w, GP_DROP_VMM, vmm_mem__take_lost(t->vm), ENOBUFS);
	if (t->ls)
		launch_stack__counters(t->ls, t->w, cupti_clock__monotonic_ns());
	cupti_clock__write_pair(t->w, 1);
}

/* Everything CUPTI holds for completed work goes to disk. */
static void periodic(struct trace_thread *t)
{
	drain(t);
	GP_CUPTI_CALL(ActivityFlushAll, (0));
	drain(t);
	drain_stacks(t);
	write_counters(t);
	gp_writer__flush(t->w);
}

static void finish(struct trace_thread *t)
{
	struct timespec cpu;
	int err;

	drain(t);
	/* Completed work first, so its records keep their timestamps ... */
	GP_CUPTI_CALL(ActivityFlushAll, (0));
	drain(t);
	/* ... then whatever is still running (start = end = 0, per CUPTI). */
	GP_CUPTI_CALL(ActivityFlushAll, (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
	drain(t);
	drain_stacks(t);
	write_counters(t);
	inj_dbg("trace %s: api %llu (skipped %llu) kernel %llu memcpy %llu memset %llu sync %llu "
		"memory %llu",
		t->path, (unsigned long long)t->st.api, (unsigned long long)t->st.api_skipped,
		(unsigned long long)t->st.kernel, (unsigned long long)t->st.memcpy,
		(unsigned long long)t->st.memset, (unsigned long long)t->st.sync,
		(unsigned long long)t->st.memory);
	{
		uint64_t stored, chunks = gp_writer__chunks(t->w, &stored);

		/* the last chunk goes out with GP_REC_END at close, uncounted here */
		inj_dbg("trace %s: at most %u CUPTI buffers waited for the writer; %llu of %llu "
			"chunks stored uncompressed (all but the last)", t->path, t->max_waiting,
			(unsigned long long)stored, (unsigned long long)chunks);
	}
	if (t->ls)
		inj_dbg("trace %s: launch stacks: %llu calls, %zu distinct stacks, %llu truncated",
			t->path, (unsigned long long)t->ls->written, launch_stack__nr_stacks(t->ls),
			(unsigned long long)t->ls->truncated);
	if (gp_writer__lost(t->w))
		inj_warn("%llu records could not be written to '%s'",
			 (unsigned long long)gp_writer__lost(t->w), t->path);
	err = gp_writer__close(t->w); /* -errno: errno may be anything by now */
	if (err)
		inj_warn("cannot finish '%s': %s", t->path, strerror(-err));
	t->w = NULL;
	/* What the library cost the process off its launch path (bench/inject reads it). */
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu))
		inj_dbg("writer thread: cpu_ns=%llu",
			(unsigned long long)cpu.tv_sec * 1000000000ull + (unsigned long long)cpu.tv_nsec);
}

static uint64_t now_ms(void)
{
	return cupti_clock__monotonic_ns() / 1000000u;
}

static void *thread_main(void *arg)
{
	struct trace_thread *t = arg;
	uint64_t next = now_ms() + t->flush_ms, now, req;

	/*
	 * Below the application's threads: on a machine with no idle core the
	 * writer takes what they leave (at nice 10, about a tenth of a core
	 * against each busy thread) instead of taking turns with them, and the
	 * pool absorbs the backlog (inject_config.h, bench/RESULTS.md). This
	 * thread only: the nice value of a Linux thread is its own.
	 */
	if (t->nice && setpriority(PRIO_PROCESS, (id_t)gettid(), t->nice))
		inj_dbg("writer thread: cannot set nice %d: %s", t->nice, strerror(errno));
	drain_stacks(t);

	while (!atomic_load(&t->stop)) {
		struct pollfd pfd = { .fd = t->efd, .events = POLLIN };
		uint64_t junk;

		now = now_ms();
		if (now < next && poll(&pfd, 1, (int)(next - now)) > 0 &&
		    read(t->efd, &junk, sizeof(junk)) < 0) {
			/* EAGAIN: another wake-up consumed it; harmless. */
		}
		drain(t);
		if (atomic_load(&t->stop))
			break;
		pthread_mutex_lock(&t->lock);
		req = t->sync_req;
		pthread_mutex_unlock(&t->lock);
		if (req != t->sync_done) {
			gp_writer__flush(t->w);
			pthread_mutex_lock(&t->lock);
			t->sync_done = req;
			pthread_cond_broadcast(&t->cond);
			pthread_mutex_unlock(&t->lock);
		}
		if (now_ms() >= next) {
			periodic(t);
			next = now_ms() + t->flush_ms;
		}
	}
	finish(t);
	atomic_store(&t->finished, 1);
	pthread_mutex_lock(&t->lock);
	t->sync_done = t->sync_req;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int trace_thread__start(struct trace_thread *t)
{
	sigset_t all, old;
	int err;

	/* Signals meant for the application must never land on our thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t->thread, NULL, thread_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	pthread_setname_np(t->thread, "gpuperf-writer");
	t->running = 1;
	return 0;
}

static void wake(struct trace_thread *t)
{
	uint64_t one = 1;

	if (t->efd >= 0 && write(t->efd, &one, sizeof(one)) < 0) {
		/* Counter saturated: the thread is awake anyway. */
	}
}

int trace_thread__sync(struct trace_thread *t, unsigned timeout_ms)
{
	struct timespec dl;
	uint64_t my;
	int err = 0;

	if (!t->running || atomic_load(&t->finished))
		return 0;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&t->lock);
	my = ++t->sync_req;
	wake(t);
	while (t->sync_done < my && !err)
		err = pthread_cond_timedwait(&t->cond, &t->lock, &dl);
	pthread_mutex_unlock(&t->lock);
	return err ? -err : 0;
}

void trace_thread__stop_async(struct trace_thread *t)
{
	atomic_store(&t->stop, 1);
	wake(t);
}

int trace_thread__wait_finished(struct trace_thread *t, unsigned timeout_ms)
{
	const struct timespec tick = { 0, 5 * 1000000L };
	unsigned waited;

	for (waited = 0; !atomic_load(&t->finished) && waited < timeout_ms; waited += 5)
		nanosleep(&tick, NULL);
	return atomic_load(&t->finished);
}

void trace_thread__stop(struct trace_thread *t)
{
	if (!t->running)
		return;
	trace_thread__stop_async(t);
	pthread_join(t->thread, NULL);
	t->running = 0;
}

void trace_thread__fork_child(struct trace_thread *t, const struct trace_thread_opts *o,
			      uint32_t ppid)
{
	int err;

	/* The parent's writer thread does not exist here; its file stays the parent's. */
	if (t->w)
		gp_writer__abandon(t->w);
	t->w = NULL;
	t->running = 0;
	t->cupti_ok = 0;
	if (t->efd >= 0)
		close(t->efd);
	t->efd = -1;
	atomic_store(&t->stop, 1);
	atomic_store(&t->finished, 0);
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	t->pid = (uint32_t)getpid();
	err = open_writer(t, o);
	if (err) {
		inj_warn("cannot create '%s': %s; the child of fork() is not traced", t->path,
			 strerror(-err));
		return;
	}
	write_process(t->w, t->pid, ppid, GP_PROC_FORK);
	cupti_clock__write_pair(t->w, 0);
	gp_writer__flush(t->w);
}

void trace_thread__child_close(struct trace_thread *t)
{
	if (!t->w)
		return;
	cupti_clock__write_pair(t->w, 0);
	gp_writer__close(t->w);
	t->w = NULL;
	atomic_store(&t->finished, 1);
}
