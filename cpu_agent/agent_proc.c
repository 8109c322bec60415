// SPDX-License-Identifier: Apache-2.0
/* agent_proc: the CPU agent's table of followed processes, and what it reads of them in /proc. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "agent_priv.h"
#include "gp_alloc.h"
#include "gp_file.h"
#include "gp_util.h"
#include "gp_writer.h"
#include "ustack.h"

/*
 * Rescans of a process after its exec, or after it maps a file executable
 * (ld.so, dlopen), in ms from the event seen: its libraries load.
 */
static const unsigned int AGENT_EARLY_SCANS[] = { 2, 10, 30, 60 };
#define AGENT_MAX_TIDS		65536	/* threads remembered per process */
#define AGENT_MAX_PERF_MAP	(256ull << 20)	/* bytes of a /tmp/perf-PID.map copied */

/* ---- small /proc readers ------------------------------------------------- */

int agent_proc__read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

void agent_proc__read_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (agent_proc__read_small(path, buf, len))
		buf[0] = '\0';
}

/* No live task has this id any more: /proc has no entry for it, or a zombie's. */
bool agent_proc__task_gone(pid_t id)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", id);
	if (agent_proc__read_small(path, buf, sizeof(buf)))
		return true;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

void agent_proc__read_exe(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/* Whether `pid` runs this process's own executable: a fork held before its exec. */
bool agent_proc__runs_own_image(pid_t pid)
{
	char path[64];
	struct stat self, st;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return !stat("/proc/self/exe", &self) && !stat(path, &st) && self.st_dev == st.st_dev &&
	       self.st_ino == st.st_ino;
}

/* Tgid of thread @tid (any thread, also a process's first), from /proc; -errno. */
int agent_proc__tgid_of(pid_t tid)
{
	char path[64], buf[2048], *t;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	err = agent_proc__read_small(path, buf, sizeof(buf));
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	t = strstr(buf, "\nTgid:");
	return t ? atoi(t + 6) : -ESRCH;
}

/* ---- process table ------------------------------------------------------- */

struct proc *agent_proc__find(struct cpu_agent *a, pid_t pid)
{
	for (size_t i = 0; i < a->nprocs; i++)
		if (a->procs[i].pid == pid)
			return &a->procs[i];
	return NULL;
}

struct proc *agent_proc__get(struct cpu_agent *a, pid_t pid)
{
	struct proc *p = agent_proc__find(a, pid);

	if (p && !p->alive) {
		/* the pid was reused: a new process */
		p->alive = true;
		p->nmods = 0;
		p->ntids = 0;
		p->pre_exec = false;
		a->alive++;
	}
	if (p)
		return p;
	if (a->nprocs == a->pcap) {
		size_t cap = a->pcap ? 2 * a->pcap : 16;
		struct proc *n;

		if (cap > a->opts.max_procs)
			cap = a->opts.max_procs;
		if (a->nprocs >= cap)
			return NULL;
		n = realloc(a->procs, cap * sizeof(*n));
		if (!n)
			return NULL;
		a->procs = n;
		a->pcap = cap;
	}
	p = &a->procs[a->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->alive = true;
	a->alive++;
	return p;
}

/* Its real and effective uid, from /proc/PID/status (kept as they were should it be gone). */
static void read_uids(struct proc *p)
{
	char path[64], buf[2048], *u;
	unsigned int ruid, euid;

	snprintf(path, sizeof(path), "/proc/%d/status", p->pid);
	if (agent_proc__read_small(path, buf, sizeof(buf)))
		return;
	u = strstr(buf, "\nUid:");
	if (!u || sscanf(u + 5, "%u %u", &ruid, &euid) != 2)
		return;
	p->uid = (uid_t)ruid;
	p->euid = (uid_t)euid;
	p->uid_known = true;
}

/* The process has exited (or vanished): no longer counted alive; kept a while for late events. */
void agent_proc__gone(struct cpu_agent *a, struct proc *p, uint64_t now)
{
	if (!p->alive)
		return;
	p->alive = false;
	p->exit_ts = now;
	a->alive--;
}

void agent_proc__drop(struct cpu_agent *a, struct proc *p)
{
	if (p->alive)
		a->alive--;
	if (a->us)
		ustack__forget(a->us, p->pid);
	free(p->mods);
	free(p->tids);
	*p = a->procs[--a->nprocs];
}

/* Insert @tid into the sorted set; 1 when new, 0 when known or the set is full. */
int agent_proc__add_tid(struct proc *p, uint32_t tid)
{
	size_t lo = 0, hi = p->ntids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->tids[mid] == tid)
			return 0;
		if (p->tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (p->ntids == p->tcap) {
		size_t cap = p->tcap ? 2 * p->tcap : 16;
		uint32_t *n;

		if (cap > AGENT_MAX_TIDS)
			return 0;
		n = realloc(p->tids, cap * sizeof(*n));
		if (!n)
			return 0;
		p->tids = n;
		p->tcap = cap;
	}
	memmove(&p->tids[lo + 1], &p->tids[lo], (p->ntids - lo) * sizeof(*p->tids));
	p->tids[lo] = tid;
	p->ntids++;
	return 1;
}

int agent_proc__cmp_tid(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* Is @tid one of opts.tids (always true without tids)? */
bool agent_proc__tid_followed(const struct cpu_agent *a, uint32_t tid)
{
	return !a->tids || bsearch(&tid, a->tids, a->ntids, sizeof(tid), agent_proc__cmp_tid);
}

/* Forget @tid of @p (it exited: a reused number is a new thread). */
void agent_proc__del_tid(struct proc *p, uint32_t tid)
{
	uint32_t *t = p->ntids ? bsearch(&tid, p->tids, p->ntids, sizeof(tid), agent_proc__cmp_tid)
			       : NULL;

	if (!t)
		return;
	memmove(t, t + 1, (size_t)(p->tids + p->ntids - (t + 1)) * sizeof(*t));
	p->ntids--;
}

/*
 * Schedule the rescans of a process that has just exec'ed or mapped a file
 * executable; one already due sooner stays (mappings made in a stream do not
 * put the first rescan off).
 */
void agent_proc__early_scan_from(struct cpu_agent *a, struct proc *p, uint64_t now)
{
	uint64_t first = now + AGENT_EARLY_SCANS[0] * 1000000ull;

	p->early_base = now;
	if (!p->early_ns || first < p->early_ns)
		p->early_ns = first;
	if (p->early_ns < a->next_early)
		a->next_early = p->early_ns;
}

/* The next rescan after `now` of a sequence started at `base`; 0: none left. */
static uint64_t early_after(uint64_t base, uint64_t now)
{
	for (size_t i = 0; i < ARRAY_SIZE(AGENT_EARLY_SCANS); i++)
		if (base + AGENT_EARLY_SCANS[i] * 1000000ull > now)
			return base + AGENT_EARLY_SCANS[i] * 1000000ull;
	return 0;
}

/* The early rescans that are due; the next one's time. */
void agent_proc__early_scans(struct cpu_agent *a, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	for (size_t i = 0; i < a->nprocs; i++) {
		struct proc *p = &a->procs[i];

		if (!p->early_ns)
			continue;
		if (!p->alive) {
			p->early_ns = 0;
			continue;
		}
		if (now >= p->early_ns) {
			agent_proc__scan_maps(a, p, now);
			p->early_ns = early_after(p->early_base, now);
		}
		if (p->early_ns && p->early_ns < next)
			next = p->early_ns;
	}
	a->next_early = next;
}

/* The process record of a process seen now (ppid, comm and exe from /proc). */
void agent_proc__write_info(struct cpu_agent *a, struct proc *p, uint64_t ts)
{
	char comm[32], exe[PATH_MAX], path[64], buf[512];
	uint32_t ppid = 0;
	char *s;

	agent_proc__read_comm(p->pid, 0, comm, sizeof(comm));
	agent_proc__read_exe(p->pid, exe, sizeof(exe));
	snprintf(path, sizeof(path), "/proc/%d/stat", p->pid);
	if (!agent_proc__read_small(path, buf, sizeof(buf)) && (s = strrchr(buf, ')')))
		sscanf(s + 2, "%*c %u", &ppid);
	agent_write__process(a, ts, (uint32_t)p->pid, ppid, GP_PROC_INFO, 0, comm, exe);
}

/*
 * The entry of the process an event names. system_wide: created (process
 * record, mappings) the first time; one already gone is entered as exited
 * so that it is not looked for again until it lingered out.
 */
static struct proc *proc_seen(struct cpu_agent *a, uint32_t pid, uint64_t ts)
{
	struct proc *p = agent_proc__find(a, (pid_t)pid);
	char path[64];

	if (p || !a->opts.system_wide) {
		if (p)
			p->active = true;
		return p;
	}
	p = agent_proc__get(a, (pid_t)pid);
	if (!p) {
		a->st.procs_dropped++;
		return NULL;
	}
	agent_proc__write_info(a, p, ts);
	snprintf(path, sizeof(path), "/proc/%d/maps", p->pid);
	if (access(path, R_OK)) {
		agent_proc__gone(a, p, agent_now_ns(CLOCK_MONOTONIC));
		return p;
	}
	agent_proc__scan_maps(a, p, ts);
	return p;
}

/* A thread seen for the first time in an event: name it while it (probably) lives. */
void agent_proc__note_thread(struct cpu_agent *a, uint32_t pid, uint32_t tid, uint64_t ts)
{
	struct proc *p = proc_seen(a, pid, ts);
	char comm[32];

	/* no entry, or exited: the thread can no longer be named */
	if (!p || !p->alive || !agent_proc__tid_followed(a, tid) || !agent_proc__add_tid(p, tid))
		return;
	agent_proc__read_comm((pid_t)pid, (pid_t)tid, comm, sizeof(comm));
	agent_write__thread(a, ts, pid, tid, GP_PROC_INFO, comm);
}

/* ---- mappings -------------------------------------------------------------- */

static const struct bid_entry *build_id_of(struct cpu_agent *a, const char *path, uint64_t dev,
					   uint64_t inode)
{
	struct bid_entry *e;

	for (size_t i = 0; i < a->nbids; i++)
		if (a->bids[i].dev == dev && a->bids[i].inode == inode)
			return &a->bids[i];
	/* a full cache recycles slots round-robin: bounded, and misses only cost a reread */
	e = &a->bids[a->nbids < AGENT_BUILD_ID_CACHE ? a->nbids++ : inode % AGENT_BUILD_ID_CACHE];
	memset(e, 0, sizeof(*e));
	e->dev = dev;
	e->inode = inode;
	e->err = build_id__read(path, e->id, &e->len);
	return e;
}

static int sig_cmp(const struct mod_sig *x, const struct mod_sig *y)
{
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->pgoff != y->pgoff)
		return x->pgoff < y->pgoff ? -1 : 1;
	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

/* Where @sig is, or goes, in p->mods (*known: it is there): a binary search, also among thousands. */
static size_t mod_find(const struct proc *p, const struct mod_sig *sig, bool *known)
{
	size_t lo = 0, hi = p->nmods;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = sig_cmp(&p->mods[mid], sig);

		if (!c) {
			*known = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*known = false;
	return lo;
}

/*
 * The whole of /proc/PID/maps at once, NUL-terminated (free() it); NULL when
 * the process is gone or memory ran out. The kernel reads a process's
 * mappings afresh for each read() and gives nothing once it has exited: a
 * scan that read a line at a time, loading each new library's tables in
 * between (tens of ms for a large one on a cold cache), lost the rest of
 * the file when a short program exited meanwhile, and every stack of it
 * ended at an unknown module. One pass of read()s takes microseconds.
 */
static char *read_maps(pid_t pid)
{
	char path[64], *buf = NULL, *nb;
	size_t len = 0, cap = 64 << 10;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL; /* gone already: its exit event is on the way */
	for (;;) {
		if (!buf || cap - len < 4096) {
			if (buf)
				cap *= 2;
			nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* An executable mapping of /proc/PID/maps not recorded before. */
struct mline {
	unsigned long long start, end, pgoff, inode;
	dev_t dev;
	char perms[8];
	const char *file;	/* in the maps buffer; "" for anonymous memory */
	int fd;			/* the file held open (hold_file()), or -1 */
};

/* A file of the scan held open: read through /proc/self/fd/FD once the process may be gone. */
struct held {
	dev_t dev;
	uint64_t inode;
	int fd;
};

#define AGENT_HELD_FILES 256 /* files held open per scan; past them, map_files as read */

/* One line of /proc/PID/maps; false for a line that is not an executable mapping. */
static bool maps_line(const char *line, struct mline *m)
{
	unsigned int maj, min;
	int n = -1;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &m->start, &m->end, m->perms,
		   &m->pgoff, &maj, &min, &m->inode, &n) < 7 ||
	    m->perms[2] != 'x')
		return false;
	m->dev = makedev(maj, min);
	m->file = n >= 0 ? line + n : "";
	m->fd = -1;
	return true;
}

/*
 * The fd of @m's file, opened through its map_files entry the first time
 * the scan meets the file, right after the maps were read: tables and
 * build ids are read later, one file at a time (tens of ms each when
 * cold), and by then a short program may have exited and taken its
 * map_files with it, leaving its libraries without tables. map_files
 * reaches the very file mapped, whatever mount namespace it is in; the fd
 * keeps it reachable. -1: not held (anonymous, full, or not opened).
 */
static int hold_file(pid_t pid, const struct mline *m, struct held *h, size_t *nh)
{
	char mf[96];
	int fd;

	if (!m->inode || m->file[0] != '/')
		return -1;
	for (size_t i = 0; i < *nh; i++)
		if (h[i].dev == m->dev && h[i].inode == m->inode)
			return h[i].fd;
	if (*nh == AGENT_HELD_FILES)
		return -1;
	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", pid, m->start, m->end);
	fd = open(mf, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		h[(*nh)++] = (struct held){ m->dev, m->inode, fd };
	return fd;
}

/* Record @m, a mapping of @p not known before. */
static void add_module(struct cpu_agent *a, struct proc *p, const struct mline *m, uint64_t ts)
{
	struct mod_sig sig = { m->start, m->end, m->pgoff, m->inode };
	const struct bid_entry *bid = NULL;
	bool file = m->inode && m->file[0] == '/', known;
	struct gp_rec_module *r;
	char mf[96];
	size_t at;

	at = mod_find(p, &sig, &known);
	if (p->nmods == p->mcap) {
		size_t cap = p->mcap ? 2 * p->mcap : 32;
		struct mod_sig *nm = realloc(p->mods, cap * sizeof(*nm));

		if (!nm) {
			/* left out, counted: a later scan tries again */
			a->st.modules_dropped++;
			return;
		}
		p->mods = nm;
		p->mcap = cap;
	}
	memmove(&p->mods[at + 1], &p->mods[at], (p->nmods - at) * sizeof(*p->mods));
	p->mods[at] = sig;
	p->nmods++;

	/* the file held open (hold_file()), else its map_files entry */
	if (m->fd >= 0)
		snprintf(mf, sizeof(mf), "/proc/self/fd/%d", m->fd);
	else
		snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", p->pid, m->start, m->end);
	if (file)
		bid = build_id_of(a, mf, m->dev, m->inode);
	if (a->us && file && !p->pre_exec)
		ustack__add_mapping(a->us, p->pid, m->start, m->end, m->pgoff, m->dev, m->inode, mf);

	r = gp_writer__reserve(a->w, GP_REC_MODULE, sizeof(*r));
	if (r) {
		r->ts = ts;
		r->start = m->start;
		r->end = m->end;
		r->pgoff = m->pgoff;
		r->inode = m->inode;
		r->pid = (uint32_t)p->pid;
		r->path_str = gp_writer__intern(a->w, m->file[0] ? m->file : "[anon]");
		r->dev = (uint32_t)m->dev;
		r->prot = PROT_EXEC | (m->perms[0] == 'r' ? PROT_READ : 0) |
			  (m->perms[1] == 'w' ? PROT_WRITE : 0);
		if (bid && !bid->err) {
			r->build_id_size = bid->len;
			memcpy(r->build_id, bid->id, bid->len);
		}
		gp_writer__commit(a->w);
		a->st.modules++;
	}
}

/*
 * Read /proc/PID/maps and write a module record for every executable
 * mapping not written before: as many as it has (a mapping that cannot be
 * remembered, out of memory, is counted in modules_dropped). The new ones
 * are found, and their files held open, before any is recorded.
 */
void agent_proc__scan_maps(struct cpu_agent *a, struct proc *p, uint64_t ts)
{
	char *maps = read_maps(p->pid), *line, *next;
	struct held held[AGENT_HELD_FILES];
	struct mline *v = NULL, m;
	size_t nheld = 0, nv = 0, cap = 0;

	if (!maps)
		return;
	for (line = maps; *line; line = next) {
		struct mod_sig sig;
		bool known;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (!maps_line(line, &m))
			continue;
		if (a->us && !m.inode && !strcmp(m.file, "[vdso]"))
			ustack__add_vdso(a->us, p->pid, m.start, m.end);
		sig = (struct mod_sig){ m.start, m.end, m.pgoff, m.inode };
		mod_find(p, &sig, &known);
		if (known)
			continue;
		if (GP_ALLOC_GROW(v, nv + 1, cap)) {
			a->st.modules_dropped++; /* a later scan tries again */
			continue;
		}
		m.fd = hold_file(p->pid, &m, held, &nheld);
		v[nv++] = m;
	}
	read_uids(p);
	for (size_t i = 0; i < nv; i++)
		add_module(a, p, &v[i], ts);
	for (size_t i = 0; i < nheld; i++)
		close(held[i].fd);
	free(v);
	free(maps);
}

void agent_proc__scan_threads(struct cpu_agent *a, struct proc *p, uint64_t ts)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", p->pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0)
			continue;
		agent_proc__note_thread(a, (uint32_t)p->pid, (uint32_t)tid, ts);
	}
	closedir(d);
}

_Static_assert(GP_PERF_MAP_LINK == ELOOP && GP_PERF_MAP_NOT_FILE == EINVAL &&
		       GP_PERF_MAP_OWNER == EPERM && GP_PERF_MAP_SIZE == EFBIG,
	       "perf map causes are errno numbers");

/*
 * A JIT's symbol map (/tmp/perf-PID.map) outlives nothing: keep a copy in
 * DIR. /tmp is anyone's and the pid predictable, so the agent (root) reads
 * only what the process itself could have written there: never through a
 * link, never blocking (a FIFO), only a regular file owned by the
 * process's uid, at most AGENT_MAX_PERF_MAP bytes. Anything else is
 * skipped and counted (stats.perf_maps_skipped, a GP_DROP_PERF_MAP record
 * whose cause says why).
 */
void agent_proc__copy_jit_map(struct cpu_agent *a, struct proc *p, uint32_t pid)
{
	char src[64], dst[64];
	struct stat sb;
	int fd, err;

	snprintf(src, sizeof(src), "/tmp/perf-%u.map", pid);
	/* a regular file only: a link (ELOOP), a FIFO or a device (EINVAL) is not opened */
	fd = gp_file__input(AT_FDCWD, src);
	if (fd < 0) {
		if (fd == -ENOENT)
			return; /* no JIT: the usual case */
		err = -fd;
		goto skip;
	}
	if (fstat(fd, &sb)) {
		err = errno;
	} else if (!p || !p->uid_known || (sb.st_uid != p->uid && sb.st_uid != p->euid)) {
		err = GP_PERF_MAP_OWNER;
	} else if ((uint64_t)sb.st_size > AGENT_MAX_PERF_MAP) {
		err = GP_PERF_MAP_SIZE;
	} else {
		snprintf(dst, sizeof(dst), "perf-%u.map", pid);
		err = -agent_write__copy_fd(a, fd, AGENT_MAX_PERF_MAP, dst);
		if (!err) {
			close(fd);
			a->st.perf_maps++;
			return;
		}
	}
	close(fd);
skip:
	a->st.perf_maps_skipped++;
	if (!a->perf_map_cause)
		a->perf_map_cause = (uint32_t)err;
}

/* ustack found a pc in none of the process's known mappings: read them again (dlopen). */
void agent_proc__late_rescan(void *ctx, pid_t pid)
{
	struct cpu_agent *a = ctx;
	struct proc *p = agent_proc__find(a, pid);

	if (!p || !p->alive)
		return;
	if (p->pre_exec) { /* its tables after all: every mapping again */
		p->pre_exec = false;
		p->nmods = 0;
	}
	agent_proc__scan_maps(a, p, agent_now_ns(CLOCK_MONOTONIC));
}
