/* SPDX-License-Identifier: Apache-2.0 */
/* agent_harness: run a program under the CPU agent, read back cpu.trace, symbolize addresses (tests only). */
#ifndef GPUPERF_TESTS_BPF_AGENT_HARNESS_H
#define GPUPERF_TESTS_BPF_AGENT_HARNESS_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "cpu_agent.h"
#include "gp_alloc.h"
#include "gp_reader.h"
#include "gp_record.h"

/*
 * The longest wait of harness__run_ru()'s polls, in ms: the agent reads
 * the sample rings at least this often (it is woken for process events,
 * not for samples). A test may lengthen it, to read them late, after the
 * program is gone.
 */
static int harness_poll_ms = 50;

/*
 * Fork @argv held at a barrier, start the agent on it, release it, poll
 * until it exits, stop the agent. The child's stdout goes to DIR/stdout.
 * @env: extra "NAME=value" strings (NULL-terminated list) or NULL.
 * Returns 0 or -errno from the agent; *status gets the wait status.
 */
static inline int harness__run_ru(const struct cpu_agent_opts *base, char *const argv[],
				  char *const env[], int *status, struct cpu_agent_stats *st,
				  struct rusage *ru)
{
	struct cpu_agent_opts o = *base;
	struct cpu_agent *a = NULL;
	int barrier[2], err = 0;
	char out[4200];
	pid_t pid;
	char c = 1;

	if (pipe2(barrier, O_CLOEXEC))
		return -errno;
	snprintf(out, sizeof(out), "%s/stdout", base->dir);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		close(barrier[1]);
		if (fd >= 0)
			dup2(fd, 1);
		if (read(barrier[0], &c, 1) != 1)
			_exit(126); /* the agent failed: never run untraced */
		for (int i = 0; env && env[i]; i++)
			putenv(env[i]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(barrier[0]);
	o.pids = &pid;
	o.nr_pids = 1;
	a = cpu_agent__new(&o);
	if (!a) {
		err = -errno;
		goto out;
	}
	err = cpu_agent__start(a);
	if (err)
		goto out;
	if (write(barrier[1], &c, 1) != 1) {
		err = -errno;
		goto out;
	}
	close(barrier[1]);
	barrier[1] = -1;
	for (;;) {
		int r = cpu_agent__poll(a, harness_poll_ms);

		if (r < 0 && r != -EINTR) {
			err = r;
			break;
		}
		if (wait4(pid, status, WNOHANG, ru) == pid) {
			pid = 0;
			break;
		}
	}
	if (!err)
		err = cpu_agent__stop(a);
	if (st)
		cpu_agent__stats(a, st);
out:
	if (barrier[1] >= 0)
		close(barrier[1]); /* a held child reads EOF and exits 126 */
	if (pid > 0)
		waitpid(pid, status, 0);
	cpu_agent__free(a);
	return err;
}

/* harness__run_ru() without the child's resource usage. */
static inline int harness__run(const struct cpu_agent_opts *base, char *const argv[],
			       char *const env[], int *status, struct cpu_agent_stats *st)
{
	struct rusage ru;

	return harness__run_ru(base, argv, env, status, st, &ru);
}

/* ---- the records of a trace, copied out --------------------------------- */

struct harness_rec {
	uint16_t type;
	uint32_t pid, tid;
	uint64_t t0, t1;	/* sample: ts; off-CPU: start, end */
	uint32_t event;		/* process/thread event */
	uint16_t nr_user, nr_kernel;
	uint16_t flags;		/* hdr.flags */
	uint32_t cpu;		/* sample, off-CPU */
	uint32_t state;		/* off-CPU: task state at switch-out (0: preempted) */
	uint32_t nr_spans;	/* off-CPU aggregate (GP_OFFCPU_AGGREGATE): pad */
	char comm[32];		/* process, thread */
	uint64_t ips[2 * GP_STACK_MAX_DEPTH + 2];
	char path[256];		/* module */
	uint64_t start, end, pgoff;
	uint32_t build_id_size;
	uint64_t count, source;	/* dropped */
};

struct harness_trace {
	struct harness_rec *r;
	size_t n;
	int clean_end;
};

static inline int harness__load(const char *dir, struct harness_trace *t)
{
	char path[4200], err[512];
	const struct gp_rec_hdr *h;
	struct gp_reader_stats rs;
	struct gp_reader *rd;
	size_t cap = 0;
	int s;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/cpu.trace", dir);
	rd = gp_reader__open(path, err, sizeof(err));
	if (!rd) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	while ((s = gp_reader__next(rd, &h)) != GP_READ_EOF) {
		struct harness_rec *x;

		if (s == GP_READ_ERROR) {
			fprintf(stderr, "%s\n", gp_reader__error(rd));
			gp_reader__free(rd);
			return -1;
		}
		if (h->type == GP_REC_STRING)
			continue;
		if (GP_ALLOC_GROW(t->r, t->n + 1, cap))
			abort();
		x = &t->r[t->n++];
		memset(x, 0, offsetof(struct harness_rec, ips));
		x->path[0] = '\0';
		x->type = h->type;
		x->flags = h->flags;
		switch (h->type) {
		case GP_REC_CPU_SAMPLE: {
			const struct gp_rec_cpu_sample *c = (const void *)h;

			x->pid = c->pid, x->tid = c->tid, x->t0 = c->ts, x->cpu = c->cpu;
			x->nr_user = c->nr_user, x->nr_kernel = c->nr_kernel;
			memcpy(x->ips, c->ips, 8 * ((size_t)c->nr_user + c->nr_kernel));
			break;
		}
		case GP_REC_OFFCPU: {
			const struct gp_rec_offcpu *c = (const void *)h;

			x->pid = c->pid, x->tid = c->tid, x->t0 = c->start, x->t1 = c->end;
			x->cpu = c->cpu, x->nr_spans = c->pad, x->state = c->state;
			x->nr_user = c->nr_user, x->nr_kernel = c->nr_kernel;
			memcpy(x->ips, c->ips, 8 * ((size_t)c->nr_user + c->nr_kernel));
			break;
		}
		case GP_REC_PROCESS: {
			const struct gp_rec_process *c = (const void *)h;

			const char *n = gp_reader__string(rd, c->comm_str);

			x->pid = c->pid, x->tid = c->ppid, x->event = c->event, x->t0 = c->ts;
			snprintf(x->comm, sizeof(x->comm), "%s", n ? n : "");
			break;
		}
		case GP_REC_THREAD: {
			const struct gp_rec_thread *c = (const void *)h;

			const char *n = gp_reader__string(rd, c->name_str);

			x->pid = c->pid, x->tid = c->tid, x->event = c->event, x->t0 = c->ts;
			snprintf(x->comm, sizeof(x->comm), "%s", n ? n : "");
			break;
		}
		case GP_REC_MODULE: {
			const struct gp_rec_module *c = (const void *)h;
			const char *n = gp_reader__string(rd, c->path_str);

			x->pid = c->pid, x->start = c->start, x->end = c->end, x->pgoff = c->pgoff;
			x->build_id_size = c->build_id_size;
			snprintf(x->path, sizeof(x->path), "%s", n ? n : "");
			break;
		}
		case GP_REC_DROPPED: {
			const struct gp_rec_dropped *c = (const void *)h;

			x->count = c->count, x->source = c->source;
			break;
		}
		default:
			break;
		}
	}
	gp_reader__stats(rd, &rs);
	t->clean_end = rs.clean_end;
	gp_reader__free(rd);
	return 0;
}

static inline void harness__free(struct harness_trace *t)
{
	free(t->r);
	memset(t, 0, sizeof(*t));
}

/* ---- a minimal symbolizer: one ELF file's .symtab ------------------------- */

struct harness_sym {
	uint64_t addr, size;
	char *name;
};

struct harness_syms {
	char path[4096];
	struct harness_sym *s;
	size_t n, alloc;
	struct {
		uint64_t vaddr, offset, filesz;
	} load[16];
	int nload;
};

static inline int harness__syms_load(struct harness_syms *y, const char *path)
{
	Elf_Scn *scn = NULL;
	size_t nph = 0;
	Elf *elf;
	int fd;

	memset(y, 0, sizeof(*y));
	snprintf(y->path, sizeof(y->path), "%s", path);
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		close(fd);
		return -ENOEXEC;
	}
	elf_getphdrnum(elf, &nph);
	for (size_t i = 0; i < nph && y->nload < 16; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			y->load[y->nload].vaddr = ph.p_vaddr;
			y->load[y->nload].offset = ph.p_offset;
			y->load[y->nload].filesz = ph.p_filesz;
			y->nload++;
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *nm;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_value)
				continue;
			nm = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!nm)
				continue;
			if (GP_ALLOC_GROW(y->s, y->n + 1, y->alloc))
				abort();
			y->s[y->n].addr = sym.st_value;
			y->s[y->n].size = sym.st_size ? sym.st_size : 1;
			y->s[y->n].name = strdup(nm);
			y->n++;
		}
	}
	elf_end(elf);
	close(fd);
	return 0;
}

static inline void harness__syms_free(struct harness_syms *y)
{
	for (size_t i = 0; i < y->n; i++)
		free(y->s[i].name);
	free(y->s);
	memset(y, 0, sizeof(*y));
}

/*
 * Name of runtime address @ip of process @pid, using the module records of
 * @t to map it to this file; NULL when it is not in this file. Return
 * addresses point after the call, so callers pass ip - 1 for frames >= 1.
 */
static inline const char *harness__sym(const struct harness_syms *y,
				       const struct harness_trace *t, uint32_t pid, uint64_t ip)
{
	const char *base = strrchr(y->path, '/');

	base = base ? base + 1 : y->path;
	for (size_t i = 0; i < t->n; i++) {
		const struct harness_rec *m = &t->r[i];
		const char *mb;
		uint64_t off;

		if (m->type != GP_REC_MODULE || m->pid != pid || ip < m->start || ip >= m->end)
			continue;
		mb = strrchr(m->path, '/');
		mb = mb ? mb + 1 : m->path;
		if (strcmp(mb, base) != 0)
			return NULL;
		off = ip - m->start + m->pgoff;
		for (int k = 0; k < y->nload; k++) {
			uint64_t v;

			if (off < y->load[k].offset || off >= y->load[k].offset + y->load[k].filesz)
				continue;
			v = off - y->load[k].offset + y->load[k].vaddr;
			for (size_t j = 0; j < y->n; j++)
				if (v >= y->s[j].addr && v < y->s[j].addr + y->s[j].size)
					return y->s[j].name;
		}
		return NULL;
	}
	return NULL;
}

/* Does the user stack of @r contain a function whose name contains @needle? */
static inline int harness__stack_has(const struct harness_syms *y, const struct harness_trace *t,
				     const struct harness_rec *r, const char *needle)
{
	for (int i = 0; i < r->nr_user; i++) {
		const char *n = harness__sym(y, t, r->pid, r->ips[i] - (i ? 1 : 0));

		if (n && strstr(n, needle))
			return 1;
	}
	return 0;
}

/* A fresh directory under TMPDIR (or /tmp). */
static inline void harness__mkdtemp(char *buf, size_t len, const char *tag)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, len, "%s/gpuperf-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
	if (!mkdtemp(buf))
		abort();
}

static inline void harness__rmrf(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

#endif /* GPUPERF_TESTS_BPF_AGENT_HARNESS_H */
