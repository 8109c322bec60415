// SPDX-License-Identifier: Apache-2.0
/* ustack: unwind the agent's copied user stacks with per-file CFI tables. */
#include "ustack.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "cfi_cache.h"
#include "cfi_file.h"
#include "cfi_table.h"
#include "gp_util.h"
#include "remote.h"

/* a process's mappings rescanned for a pc in none of them at most this often */
#define USTACK_RESCAN_NS (20ull * 1000 * 1000)
/* a file that could not be read is tried again through this many later mappings */
#define FILE_TRIES 8

/* A file's table and the segments that turn a file offset into an ELF address. */
struct file_ent {
	struct file_ent *next;
	uint64_t dev, inode;
	struct cfi_table *table;	/* NULL: no CFI, or the file could not be read */
	uint32_t failed;		/* tries that could not read it: tried again, up to a limit */
	uint32_t nloads;
	struct {
		uint64_t offset, vaddr, filesz;
	} *loads;			/* every PT_LOAD segment, in program header order */
};

struct umap {
	uint64_t start, end, bias;
	const struct cfi_table *table;
};

struct uproc {
	pid_t pid;
	bool sorted;
	uint64_t gen;		/* mappings added so far */
	uint64_t rescan_ns;	/* the last rescan for a pc in no mapping */
	struct umap *m;
	size_t n, cap;
};

struct ustack {
	struct file_ent *files;
	struct cfi_cache *cache;	/* tables kept between runs; NULL: none */
	ustack_rescan_fn rescan;	/* NULL: a pc in no known mapping ends the stack */
	void *rescan_ctx;
	struct cfi_table *vdso;	/* the agent's own vdso's table */
	uint64_t vdso_delta;	/* its load bias - its base: a process's bias is its base + this */
	int vdso_state;		/* 0 not tried, 1 built, -errno */
	struct uproc *procs;
	size_t nprocs, pcap;
	struct ustack_stats st;
};

struct ustack *ustack__new(void)
{
	return calloc(1, sizeof(struct ustack));
}

void ustack__free(struct ustack *u)
{
	struct file_ent *f, *next;

	if (!u)
		return;
	for (f = u->files; f; f = next) {
		next = f->next;
		cfi_table__free(f->table);
		free(f->loads);
		free(f);
	}
	cfi_table__free(u->vdso);
	for (size_t i = 0; i < u->nprocs; i++)
		free(u->procs[i].m);
	free(u->procs);
	free(u);
}

/* The PT_LOAD segments of an x86-64 ELF file, all of them. 0 or -errno. */
static int read_loads(int fd, struct file_ent *f)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	size_t len;
	unsigned int i, n = 0;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64 || eh.e_phentsize != sizeof(*ph) || !eh.e_phnum)
		return -ENOEXEC;
	len = (size_t)eh.e_phnum * sizeof(*ph);
	ph = malloc(len);
	if (!ph)
		return -ENOMEM;
	if (pread(fd, ph, len, (off_t)eh.e_phoff) != (ssize_t)len) {
		free(ph);
		return -ENOEXEC;
	}
	for (i = 0; i < eh.e_phnum; i++)
		n += ph[i].p_type == PT_LOAD;
	f->loads = n ? calloc(n, sizeof(*f->loads)) : NULL;
	if (n && !f->loads) {
		free(ph);
		return -ENOMEM;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		f->loads[f->nloads].offset = ph[i].p_offset;
		f->loads[f->nloads].vaddr = ph[i].p_vaddr;
		f->loads[f->nloads].filesz = ph[i].p_filesz;
		f->nloads++;
	}
	free(ph);
	return f->nloads ? 0 : -ENOEXEC;
}

void ustack__set_cache(struct ustack *u, struct cfi_cache *c)
{
	u->cache = c;
}

void ustack__set_rescan(struct ustack *u, ustack_rescan_fn fn, void *ctx)
{
	u->rescan = fn;
	u->rescan_ctx = ctx;
}

/* The table of the file open at @fd: from the cache, else built (and cached). */
static int table_of(struct ustack *u, int fd, struct cfi_table **out)
{
	char key[CFI_FILE_KEY_MAX];
	bool keyed = u->cache && !cfi_file__key(fd, key);
	int err;

	if (keyed && !cfi_cache__get(u->cache, key, out))
		return 0;
	err = cfi_table__from_fd(fd, out);
	if (!err && keyed)
		cfi_cache__put(u->cache, key, *out); /* counted there when it fails */
	return err;
}

/* Read @f's segments and table from @path. 0, -ENOEXEC (no CFI, for good) or -errno. */
static int file_load(struct ustack *u, struct file_ent *f, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = read_loads(fd, f);
	if (!err)
		err = table_of(u, fd, &f->table);
	close(fd);
	if (err && f->table) {
		cfi_table__free(f->table);
		f->table = NULL;
	}
	if (err && err != -ENOEXEC) {
		free(f->loads);
		f->loads = NULL;
		f->nloads = 0;
	}
	return err;
}

/*
 * The file (dev, inode), read through @path the first time. A file that
 * could not be read (its /proc/PID/map_files entry gone: a process that
 * exec'd between the scan and the open, as the recorder's own child does)
 * is read again through the next mapping's path, up to FILE_TRIES times:
 * else one lost race left every process mapping it without a table.
 */
static struct file_ent *file_get(struct ustack *u, uint64_t dev, uint64_t inode, const char *path)
{
	struct file_ent *f;
	struct cfi_table_stats ts;
	int err;

	for (f = u->files; f; f = f->next)
		if (f->dev == dev && f->inode == inode)
			break;
	if (f && (!f->failed || f->failed >= FILE_TRIES))
		return f;
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f)
			return NULL;
		f->dev = dev;
		f->inode = inode;
		f->next = u->files;
		u->files = f;
	}
	err = file_load(u, f, path);
	if (err && err != -ENOEXEC) {
		if (!f->failed++)
			u->st.files_failed++; /* counted once, however many tries */
		return f;
	}
	if (f->failed)
		u->st.files_failed--; /* read at last */
	f->failed = 0;
	if (f->table) {
		cfi_table__stats(f->table, &ts);
		u->st.tables++;
		u->st.table_bytes += (uint64_t)ts.rows * sizeof(struct gp_cfi_row);
	} else {
		u->st.files_no_cfi++;
	}
	return f;
}

static struct uproc *proc_of(struct ustack *u, pid_t pid, bool create)
{
	struct uproc *p;

	for (size_t i = 0; i < u->nprocs; i++)
		if (u->procs[i].pid == pid)
			return &u->procs[i];
	if (!create)
		return NULL;
	if (u->nprocs == u->pcap) {
		size_t cap = u->pcap ? 2 * u->pcap : 16;

		p = realloc(u->procs, cap * sizeof(*p));
		if (!p)
			return NULL;
		u->procs = p;
		u->pcap = cap;
	}
	p = &u->procs[u->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

int ustack__add_mapping(struct ustack *u, pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
			uint64_t dev, uint64_t inode, const char *file)
{
	struct uproc *p = proc_of(u, pid, true);
	struct file_ent *f;
	const struct cfi_table *table = NULL;
	uint64_t bias = 0;
	size_t i, k;

	if (!p || start >= end) {
		u->st.mappings_dropped++;
		return -ENOMEM;
	}
	f = file_get(u, dev, inode, file);
	if (!f) {
		u->st.mappings_dropped++;
		return -ENOMEM;
	}
	/* ELF address = file offset - p_offset + p_vaddr, in the segment holding pgoff */
	for (i = 0; i < f->nloads; i++) {
		if (pgoff >= (f->loads[i].offset & ~4095ull) &&
		    pgoff < f->loads[i].offset + f->loads[i].filesz) {
			bias = start - pgoff + f->loads[i].offset - f->loads[i].vaddr;
			table = f->table;
			break;
		}
	}
	/*
	 * No segment holds the offset (a file mapped at an offset it does not
	 * load, or changed since): no bias to look its pcs up with, so frame
	 * pointers there rather than the table at a wrong address.
	 */
	if (f->table && !table)
		u->st.mappings_no_segment++;
	/* a mapping replaces what it overlaps (munmap + mmap of another file) */
	for (i = k = 0; i < p->n; i++)
		if (p->m[i].end <= start || p->m[i].start >= end)
			p->m[k++] = p->m[i];
	p->n = k;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 32;
		struct umap *m;

		if (!(m = realloc(p->m, cap * sizeof(*m)))) {
			u->st.mappings_dropped++;
			return -ENOMEM;
		}
		p->m = m;
		p->cap = cap;
	}
	p->m[p->n++] = (struct umap){ start, end, bias, table };
	p->sorted = false;
	p->gen++;
	return 0;
}

static int vdso_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct ustack *u = arg;
	uint64_t base = getauxval(AT_SYSINFO_EHDR);

	(void)size;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && ph->p_offset == 0 && info->dlpi_addr + ph->p_vaddr == base) {
			u->vdso_state = cfi_table__from_phdrs(info->dlpi_addr, info->dlpi_phdr,
							      info->dlpi_phnum, &u->vdso);
			if (!u->vdso_state)
				u->vdso_state = 1;
			u->vdso_delta = info->dlpi_addr - base;
			return 1;
		}
	}
	return 0;
}

int ustack__add_vdso(struct ustack *u, pid_t pid, uint64_t start, uint64_t end)
{
	struct uproc *p;

	if (!u->vdso_state) {
		u->vdso_state = -ENOENT;
		if (getauxval(AT_SYSINFO_EHDR))
			dl_iterate_phdr(vdso_phdr, u);
		if (u->vdso_state == 1)
			u->st.tables++;
	}
	if (u->vdso_state != 1)
		return -ENOENT; /* its frames end stacks as an unknown module */
	p = proc_of(u, pid, true);
	if (!p) {
		u->st.mappings_dropped++;
		return -ENOMEM;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 32;
		struct umap *m = realloc(p->m, cap * sizeof(*m));

		if (!m) {
			u->st.mappings_dropped++;
			return -ENOMEM;
		}
		p->m = m;
		p->cap = cap;
	}
	for (size_t i = 0; i < p->n; i++)
		if (p->m[i].start == start && p->m[i].end == end)
			return 0;
	p->m[p->n++] = (struct umap){ start, end, start + u->vdso_delta, u->vdso };
	p->sorted = false;
	p->gen++;
	return 0;
}

void ustack__forget(struct ustack *u, pid_t pid)
{
	struct uproc *p = proc_of(u, pid, false);

	if (!p)
		return;
	free(p->m);
	*p = u->procs[--u->nprocs];
}

static int umap_cmp(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int lookup(void *ctx, uint64_t addr, struct gp_unwind_remote_mod *out)
{
	const struct uproc *p = ctx;
	size_t lo = 0, hi = p->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (addr < p->m[mid].start) {
			hi = mid;
		} else if (addr >= p->m[mid].end) {
			lo = mid + 1;
		} else {
			out->table = p->m[mid].table;
			out->bias = p->m[mid].bias;
			return 0;
		}
	}
	return -ENOENT;
}

/* Rate limit of the rescans for pcs in no mapping (JIT code never gets one). */
static bool rescan_due(struct uproc *p)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (p->rescan_ns && now - p->rescan_ns < USTACK_RESCAN_NS)
		return false;
	p->rescan_ns = now;
	return true;
}

int ustack__unwind(struct ustack *u, pid_t pid, uint64_t rip, uint64_t rsp, uint64_t rbp,
		   uint64_t rbx, const void *stack, uint32_t len, int cut, uint64_t *pcs, int max,
		   int *endp)
{
	struct uproc *p = proc_of(u, pid, false);
	struct gp_unwind_remote r = {
		.rip = rip, .rsp = rsp, .rbp = rbp, .rbx = rbx, .rbx_known = true,
		.stack = stack, .stack_base = rsp, .stack_len = len, .stack_cut = cut != 0,
		.lookup = p ? lookup : NULL, .ctx = p,
	};
	int end, n;

	if (p && !p->sorted) {
		gp_sort(p->m, p->n, sizeof(*p->m), umap_cmp);
		p->sorted = true;
	}
	n = gp_unwind__remote(&r, pcs, max, &end);
	if (end == GP_UNWIND_END_UNKNOWN_MODULE && p && u->rescan && rescan_due(p)) {
		/* mapped since the last scan (dlopen): scan again, and unwind again if it found any */
		uint64_t gen = p->gen;

		u->st.rescans++;
		u->rescan(u->rescan_ctx, pid);
		p = proc_of(u, pid, false); /* the scan may have moved the array */
		if (p && p->gen != gen) {
			u->st.rescans_found++;
			gp_sort(p->m, p->n, sizeof(*p->m), umap_cmp);
			p->sorted = true;
			r.ctx = p;
			n = gp_unwind__remote(&r, pcs, max, &end);
		}
	}
	u->st.unwinds++;
	u->st.ends[end]++;
	u->st.frames += (uint64_t)n;
	u->st.copy_bytes += len;
	if (endp)
		*endp = end;
	return n;
}

void ustack__stats(const struct ustack *u, struct ustack_stats *st)
{
	*st = u->st;
}
