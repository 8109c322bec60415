// SPDX-License-Identifier: Apache-2.0
/* cuda_launch_prog: find CUDA launch/copy entry points in ELF files and put uprobes on them. */
#include "cuda_launch_prog.h"
#include "link_close.h"
#include "tgid_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <gelf.h>
#include <libelf.h>

#include "cuda_launch.h"
#include "cuda_launch.skel.h"
#include "gp_util.h"

#define CUDA_LAUNCH_DEF_RINGBUF_BYTES	(1024u * 1024)
#define CUDA_LAUNCH_DEF_MAX_PROBES	1024
#define CUDA_LAUNCH_MAX_FILES		256
#define CUDA_LAUNCH_MAX_LOADERS		8	/* ld.so files hooked */
#define CUDA_LAUNCH_STUB_MAX		16	/* bytes: a jump stub, not a function */

/*
 * uprobe_multi links (Linux 6.6) through the raw bpf(2) call: libbpf 1.1
 * and the uapi headers of Debian 12 predate them.
 */
#define GP_BPF_TRACE_UPROBE_MULTI	48	/* enum bpf_attach_type */

struct gp_uprobe_multi_attr {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__aligned_u64 path;
	__aligned_u64 offsets;
	__aligned_u64 ref_ctr_offsets;
	__aligned_u64 cookies;
	__u32 cnt;
	__u32 um_flags;
	__u32 pid;
	__u32 pad;
};

/*
 * The entry points, runtime then driver. The index is the uprobe's cookie
 * and so the event's probe_id: append only.
 */
static const char *const entry_points[] = {
	/* runtime: launches */
	"cudaLaunchKernel", "cudaLaunchKernel_ptsz", "__cudaLaunchKernel",
	"__cudaLaunchKernel_ptsz", "cudaLaunchKernelExC", "cudaLaunchKernelExC_ptsz",
	"cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernel_ptsz",
	"cudaLaunchCooperativeKernelMultiDevice", "cudaLaunchHostFunc", "cudaLaunchHostFunc_ptsz",
	"cudaGraphLaunch", "cudaGraphLaunch_ptsz",
	/* runtime: copies */
	"cudaMemcpy", "cudaMemcpy_ptds", "cudaMemcpyAsync", "cudaMemcpyAsync_ptsz",
	"cudaMemcpy2D", "cudaMemcpy2D_ptds", "cudaMemcpy2DAsync", "cudaMemcpy2DAsync_ptsz",
	"cudaMemcpy3D", "cudaMemcpy3D_ptds", "cudaMemcpy3DAsync", "cudaMemcpy3DAsync_ptsz",
	"cudaMemcpyPeer", "cudaMemcpyPeerAsync", "cudaMemcpyToSymbol", "cudaMemcpyToSymbol_ptds",
	"cudaMemcpyToSymbolAsync", "cudaMemcpyToSymbolAsync_ptsz", "cudaMemcpyFromSymbol",
	"cudaMemcpyFromSymbol_ptds", "cudaMemcpyFromSymbolAsync", "cudaMemcpyFromSymbolAsync_ptsz",
	"cudaMemcpyToArray", "cudaMemcpyFromArray", "cudaMemcpy2DToArray", "cudaMemcpy2DFromArray",
	"cudaMemcpyBatchAsync",
	/* runtime: memsets */
	"cudaMemset", "cudaMemset_ptds", "cudaMemsetAsync", "cudaMemsetAsync_ptsz", "cudaMemset2D",
	"cudaMemset2D_ptds", "cudaMemset2DAsync", "cudaMemset2DAsync_ptsz", "cudaMemset3D",
	"cudaMemset3D_ptds", "cudaMemset3DAsync", "cudaMemset3DAsync_ptsz",
	/* driver */
	"cuLaunchKernel", "cuLaunchKernel_ptsz", "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz",
	"cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel_ptsz", "cuLaunchHostFunc",
	"cuLaunchHostFunc_ptsz", "cuGraphLaunch", "cuGraphLaunch_ptsz", "cuMemcpy", "cuMemcpy_ptds",
	"cuMemcpyAsync", "cuMemcpyAsync_ptsz", "cuMemcpyHtoD_v2", "cuMemcpyHtoD_v2_ptds",
	"cuMemcpyDtoH_v2", "cuMemcpyDtoH_v2_ptds", "cuMemcpyDtoD_v2", "cuMemcpyDtoD_v2_ptds",
	"cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync_v2_ptsz", "cuMemcpyDtoHAsync_v2",
	"cuMemcpyDtoHAsync_v2_ptsz", "cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync_v2_ptsz",
	"cuMemcpy2D_v2", "cuMemcpy2DAsync_v2", "cuMemcpy3D_v2", "cuMemcpy3DAsync_v2",
	"cuMemcpyPeer", "cuMemcpyPeerAsync", "cuMemsetD8_v2", "cuMemsetD16_v2", "cuMemsetD32_v2",
	"cuMemsetD8Async", "cuMemsetD16Async", "cuMemsetD32Async", "cuMemsetD2D8_v2",
	"cuMemsetD2D32_v2",
};

#define NR_ENTRY_POINTS (sizeof(entry_points) / sizeof(entry_points[0]))

#define CUDA_LAUNCH_MAX_RANGES	4
#define CUDA_LAUNCH_MIN_RUN	8	/* adjacent runtime functions that make a range */

struct file_id {
	dev_t dev;
	ino_t ino;
	int nr_ranges;
	struct cuda_launch_range ranges[CUDA_LAUNCH_MAX_RANGES];
};

struct cuda_launch_prog {
	struct cuda_launch_bpf *skel;
	bool multi;		/* cl_entry_multi loaded: one uprobe_multi link per file */
	int *multi_fds;		/* those links */
	int nr_multi;
	struct ring_buffer *rb;
	struct bpf_link **links;
	int *link_idx;		/* entry_points index of links[i] */
	int nr_links, max_links;
	struct file_id files[CUDA_LAUNCH_MAX_FILES];
	int nr_files;
	struct file_id loaders[CUDA_LAUNCH_MAX_LOADERS];
	struct bpf_link *loader_links[CUDA_LAUNCH_MAX_LOADERS];
	int nr_loaders;
	struct link_close *closing; /* __detach_begin's, until __detach_end */
	cuda_launch_event_fn on_event;
	void *ctx;
};

/* A resolved entry point in one file. */
struct hit {
	int idx;		/* into entry_points */
	uint64_t vaddr;
	uint64_t size;
	uint64_t offset;	/* file offset: what a uprobe takes */
};

static int cuda_launch_rb_event(void *ctx, void *data, size_t size)
{
	struct cuda_launch_prog *p = ctx;
	const struct cuda_launch_event *ev = data;

	if (size < offsetof(struct cuda_launch_event, ips) ||
	    size < offsetof(struct cuda_launch_event, ips) + 8 * (size_t)ev->nr_user)
		return -EPROTO;
	return p->on_event(p->ctx, ev);
}

/* Open, configure and load; cl_entry_multi only when p->multi. 0 or -errno. */
static int load(struct cuda_launch_prog *p, const struct cuda_launch_opts *opts, uint32_t rb)
{
	struct cuda_launch_bpf *skel;
	int err;

	p->skel = skel = cuda_launch_bpf__open();
	if (!skel)
		return -errno;
	skel->rodata->filter_tgids = opts->tgids_fd >= 0;
	skel->rodata->stop_on_load = !opts->no_stop_on_load;
	err = bpf_map__set_max_entries(skel->maps.cl_events, rb);
	if (err)
		return err;
	err = tgid_filter__share(skel->maps.cl_tgids, opts->tgids_fd, opts->tgids_max);
	if (err)
		return err;
	bpf_program__set_autoload(skel->progs.cl_entry_multi, p->multi);
	bpf_program__set_autoload(skel->progs.cl_dl_state_multi, p->multi);
	if (p->multi) {
		bpf_program__set_expected_attach_type(skel->progs.cl_entry_multi,
						      (enum bpf_attach_type)GP_BPF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.cl_dl_state_multi,
						      (enum bpf_attach_type)GP_BPF_TRACE_UPROBE_MULTI);
	}
	/* the programs are attached per file, never by the skeleton */
	return cuda_launch_bpf__load(skel);
}

/* A uprobe_multi link of @prog on @cnt offsets of @path: its fd or -errno. */
static int link_multi(const struct bpf_program *prog, const char *path,
		      const unsigned long *offsets, const __u64 *cookies, __u32 cnt)
{
	struct gp_uprobe_multi_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = (__u32)bpf_program__fd(prog);
	attr.attach_type = GP_BPF_TRACE_UPROBE_MULTI;
	attr.path = (__u64)(unsigned long)path;
	attr.offsets = (__u64)(unsigned long)offsets;
	attr.cookies = (__u64)(unsigned long)cookies;
	attr.cnt = cnt;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : (int)fd;
}

/* One uprobe_multi link for @n entry points of @path: its fd or -errno. */
static int attach_multi(struct cuda_launch_prog *p, const char *path, const struct hit *hits,
			const bool *skip, int n)
{
	unsigned long offsets[NR_ENTRY_POINTS * 2];
	__u64 cookies[NR_ENTRY_POINTS * 2];
	__u32 cnt = 0;

	for (int i = 0; i < n; i++) {
		if (skip[i])
			continue;
		offsets[cnt] = (unsigned long)hits[i].offset;
		cookies[cnt] = (__u64)hits[i].idx;
		cnt++;
	}
	if (!cnt)
		return -ENOENT;
	return link_multi(p->skel->progs.cl_entry_multi, path, offsets, cookies, cnt);
}

struct cuda_launch_prog *cuda_launch_prog__new(const struct cuda_launch_opts *opts)
{
	struct cuda_launch_prog *p = NULL;
	struct cuda_launch_bpf *skel;
	uint32_t rb;
	int err;

	if (!opts || !opts->on_event) {
		err = -EINVAL;
		goto fail;
	}
	rb = opts->ringbuf_bytes ? opts->ringbuf_bytes : CUDA_LAUNCH_DEF_RINGBUF_BYTES;
	if (rb & (rb - 1)) {
		err = -EINVAL;
		goto fail;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		err = -ENOSYS;
		goto fail;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		err = -ENOMEM;
		goto fail;
	}
	p->on_event = opts->on_event;
	p->ctx = opts->ctx;
	p->max_links = opts->max_probes ? (int)opts->max_probes : CUDA_LAUNCH_DEF_MAX_PROBES;
	p->links = calloc((size_t)p->max_links, sizeof(*p->links));
	p->link_idx = calloc((size_t)p->max_links, sizeof(*p->link_idx));
	if (!p->links || !p->link_idx) {
		err = -ENOMEM;
		goto fail;
	}
	/* a multi link per file, and one per loader (ld.so) */
	p->multi_fds = calloc(CUDA_LAUNCH_MAX_FILES + CUDA_LAUNCH_MAX_LOADERS, sizeof(*p->multi_fds));
	if (!p->multi_fds) {
		err = -ENOMEM;
		goto fail;
	}
	/* uprobe_multi where the kernel has it, else one perf-event uprobe per entry point */
	p->multi = !opts->no_multi;
	err = load(p, opts, rb);
	if (err && err != -EPERM && p->multi) {
		cuda_launch_bpf__destroy(p->skel);
		p->multi = false;
		err = load(p, opts, rb);
	}
	if (err)
		goto fail;
	skel = p->skel;
	p->rb = ring_buffer__new(bpf_map__fd(skel->maps.cl_events), cuda_launch_rb_event, p, NULL);
	if (!p->rb) {
		err = -errno;
		goto fail;
	}
	return p;

fail:
	cuda_launch_prog__free(p);
	errno = -err;
	return NULL;
}

bool cuda_launch_prog__candidate(const char *path, bool is_main_exe)
{
	const char *base = strrchr(path, '/');

	if (is_main_exe)
		return true;
	base = base ? base + 1 : path;
	return strncmp(base, "libcudart.so", 12) == 0 || strncmp(base, "libcuda.so", 10) == 0;
}

static int entry_index(const char *name)
{
	const char *at = strchr(name, '@');
	size_t len = at ? (size_t)(at - name) : strlen(name);

	/* cheap reject: every entry point starts with "cu" or "__cu" */
	if (name[0] != 'c' && name[0] != '_')
		return -1;
	for (size_t i = 0; i < NR_ENTRY_POINTS; i++)
		if (strlen(entry_points[i]) == len && memcmp(entry_points[i], name, len) == 0)
			return (int)i;
	return -1;
}

/* vaddr -> file offset through the PT_LOAD segments; 0 when not in one. */
static uint64_t vaddr_to_offset(Elf *elf, uint64_t vaddr)
{
	size_t n = 0;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz)
			return vaddr - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}

/* Collect the entry points defined in @elf's .symtab and .dynsym, one per address. */
static int collect(Elf *elf, struct hit *hits, int max)
{
	Elf_Scn *scn = NULL;
	int n = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t cnt;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !sh.sh_entsize)
			continue;
		cnt = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < cnt; i++) {
			GElf_Sym sym;
			const char *name;
			bool dup = false;
			int idx;

			/* local symbols count: static cudart's entry points are LOCAL HIDDEN */
			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || (idx = entry_index(name)) < 0)
				continue;
			for (int k = 0; k < n && !dup; k++)
				dup = hits[k].vaddr == sym.st_value;
			if (dup || n == max)
				continue;
			hits[n].idx = idx;
			hits[n].vaddr = sym.st_value;
			hits[n].size = sym.st_size;
			hits[n].offset = vaddr_to_offset(elf, sym.st_value);
			if (hits[n].offset)
				n++;
		}
	}
	return n;
}

/*
 * Is hits[i] a small stub that ends in a jump to another entry point? The
 * static cudart's __cudaLaunchKernel is `push %rbp; mov; pop; jmp
 * cudaLaunchKernel`: probing both would report each launch twice, and the
 * jump target's probe sees the stub's caller just the same.
 */
static bool is_jump_stub(int fd, const struct hit *hits, int n, int i)
{
	const struct hit *h = &hits[i];
	unsigned char code[CUDA_LAUNCH_STUB_MAX];
	int32_t rel;
	uint64_t target;

	if (!h->size || h->size > CUDA_LAUNCH_STUB_MAX || h->size < 5)
		return false;
	if (pread(fd, code, h->size, (off_t)h->offset) != (ssize_t)h->size)
		return false;
	if (code[h->size - 5] != 0xe9) /* jmp rel32 */
		return false;
	memcpy(&rel, &code[h->size - 4], sizeof(rel));
	target = h->vaddr + h->size + (int64_t)rel;
	for (int k = 0; k < n; k++)
		if (k != i && hits[k].vaddr == target)
			return true;
	return false;
}

struct fsym {
	uint64_t addr, size;
	bool rt;
};

static int fsym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool runtime_name(const char *n)
{
	return strncmp(n, "libcudart_static_", 17) == 0 || strncmp(n, "cuda", 4) == 0 ||
	       strncmp(n, "__cuda", 6) == 0;
}

/* See cuda_launch_prog__runtime_ranges(). Returns the number of ranges found. */
static int runtime_runs(Elf *elf, struct cuda_launch_range *out, int max)
{
	struct fsym *v = NULL;
	size_t nv = 0, cap = 0;
	Elf_Scn *scn = NULL;
	int nout = 0;

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
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			nm = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!nm)
				continue;
			if (nv == cap) {
				struct fsym *nvv;

				cap = cap ? 2 * cap : 1024;
				nvv = realloc(v, cap * sizeof(*v));
				if (!nvv)
					goto out;
				v = nvv;
			}
			v[nv++] = (struct fsym){ sym.st_value, sym.st_size, runtime_name(nm) };
		}
	}
	gp_sort(v, nv, sizeof(*v), fsym_cmp); /* v is NULL for a stripped file */
	for (size_t i = 0; i < nv && nout < max;) {
		size_t j = i;

		while (j < nv && v[j].rt)
			j++;
		if (j - i >= CUDA_LAUNCH_MIN_RUN) {
			uint64_t lo = vaddr_to_offset(elf, v[i].addr);
			uint64_t hi = vaddr_to_offset(elf, v[j - 1].addr) + v[j - 1].size;

			if (lo && hi > lo)
				out[nout++] = (struct cuda_launch_range){ lo, hi };
		}
		i = j > i ? j : i + 1;
	}
out:
	free(v);
	return nout;
}

int cuda_launch_prog__runtime_ranges(const struct cuda_launch_prog *p, const char *path,
				     struct cuda_launch_range *out, int max)
{
	struct stat sb;
	int n = 0;

	if (stat(path, &sb))
		return 0;
	for (int i = 0; i < p->nr_files; i++) {
		const struct file_id *f = &p->files[i];

		if (f->dev != sb.st_dev || f->ino != sb.st_ino)
			continue;
		for (; n < f->nr_ranges && n < max; n++)
			out[n] = f->ranges[n];
		break;
	}
	return n;
}

int cuda_launch_prog__attach_file(struct cuda_launch_prog *p, const char *path)
{
	struct hit hits[NR_ENTRY_POINTS * 2];
	bool skip[NR_ENTRY_POINTS * 2];
	struct file_id *file;
	struct stat sb;
	Elf *elf = NULL;
	int fd, n, attached = 0, err = 0;

	if (stat(path, &sb))
		return -errno;
	for (int i = 0; i < p->nr_files; i++)
		if (p->files[i].dev == sb.st_dev && p->files[i].ino == sb.st_ino)
			return 0;
	if (p->nr_files == CUDA_LAUNCH_MAX_FILES)
		return -ENOSPC;
	p->files[p->nr_files] = (struct file_id){ .dev = sb.st_dev, .ino = sb.st_ino };
	file = &p->files[p->nr_files++];

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto out;
	}
	n = collect(elf, hits, (int)(sizeof(hits) / sizeof(hits[0])));
	for (int i = 0; i < n; i++)
		skip[i] = is_jump_stub(fd, hits, n, i);
	if (n)
		file->nr_ranges = runtime_runs(elf, file->ranges, CUDA_LAUNCH_MAX_RANGES);
	if (p->multi && n) {
		int lfd = attach_multi(p, path, hits, skip, n);

		if (lfd >= 0) {
			p->multi_fds[p->nr_multi++] = lfd;
			for (int i = 0; i < n && p->nr_links < p->max_links; i++)
				if (!skip[i])
					p->link_idx[p->nr_links++] = hits[i].idx, attached++;
			goto out;
		}
		if (lfd != -ENOENT) {
			err = lfd;
			goto out;
		}
	}
	for (int i = 0; i < n && !p->multi; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = (uint64_t)hits[i].idx);
		struct bpf_link *l;

		if (skip[i])
			continue;
		if (p->nr_links == p->max_links) {
			err = -ENOSPC;
			break;
		}
		l = bpf_program__attach_uprobe_opts(p->skel->progs.cl_entry, -1, path,
						    (size_t)hits[i].offset, &uo);
		if (!l) {
			err = -errno;
			break;
		}
		p->link_idx[p->nr_links] = hits[i].idx;
		p->links[p->nr_links++] = l;
		attached++;
	}
out:
	elf_end(elf);
	close(fd);
	return err ? err : attached;
}

/* File offset of function @name in @elf's symbol tables; 0 if absent. */
static uint64_t find_func(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *nm;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_value)
				continue;
			nm = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (nm && strcmp(nm, name) == 0)
				return vaddr_to_offset(elf, sym.st_value);
		}
	}
	return 0;
}

int cuda_launch_prog__attach_loader(struct cuda_launch_prog *p, const char *path)
{
	struct bpf_link *l;
	struct stat sb;
	uint64_t off = 0;
	Elf *elf;
	int fd;

	if (stat(path, &sb))
		return -errno;
	for (int i = 0; i < p->nr_loaders; i++)
		if (p->loaders[i].dev == sb.st_dev && p->loaders[i].ino == sb.st_ino)
			return 0;
	if (p->nr_loaders == (int)(sizeof(p->loaders) / sizeof(p->loaders[0])))
		return -ENOSPC;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		off = find_func(elf, "_dl_debug_state");
	elf_end(elf);
	close(fd);
	p->loaders[p->nr_loaders].dev = sb.st_dev;
	p->loaders[p->nr_loaders].ino = sb.st_ino;
	if (!off) {
		p->loader_links[p->nr_loaders++] = NULL;
		return 0;
	}
	if (p->multi) {
		unsigned long o = (unsigned long)off;
		__u64 cookie = 0;
		int lfd = link_multi(p->skel->progs.cl_dl_state_multi, path, &o, &cookie, 1);

		if (lfd >= 0) {
			/* closed with the entry points' multi links */
			p->multi_fds[p->nr_multi++] = lfd;
			p->loader_links[p->nr_loaders++] = NULL;
			return 1;
		}
	}
	l = bpf_program__attach_uprobe_opts(p->skel->progs.cl_dl_state, -1, path, (size_t)off,
					    NULL);
	if (!l)
		return -errno;
	p->loader_links[p->nr_loaders++] = l;
	return 1;
}

const char *cuda_launch_prog__probe_name(const struct cuda_launch_prog *p, uint32_t probe_id)
{
	return probe_id < NR_ENTRY_POINTS ? entry_points[probe_id] : "?";
}

int cuda_launch_prog__nr_probes(const struct cuda_launch_prog *p)
{
	return p->nr_links;
}

const char *cuda_launch_prog__attached_name(const struct cuda_launch_prog *p, int i)
{
	return i >= 0 && i < p->nr_links ? entry_points[p->link_idx[i]] : NULL;
}

bool cuda_launch_prog__is_entry_point(const char *name)
{
	return entry_index(name) >= 0;
}

void cuda_launch_prog__detach_begin(struct cuda_launch_prog *p)
{
	struct bpf_link **all;
	int n = p->nr_links;

	if (!p->nr_links && !p->nr_multi && !p->nr_loaders)
		return;
	if (p->closing)
		cuda_launch_prog__detach_end(p); /* links attached since: the first closer first */
	/* the links array has room for the loader links only when they fit in it */
	all = p->nr_links + p->nr_loaders <= p->max_links ? p->links : NULL;
	for (int i = 0; all && i < p->nr_loaders; i++)
		all[n++] = p->loader_links[i];
	if (!all) {
		for (int i = 0; i < p->nr_loaders; i++)
			bpf_link__destroy(p->loader_links[i]);
		n = p->nr_links;
		all = p->links;
	}
	/* NULL entries (the multi links' places) are skipped; their fds are closed */
	p->closing = link_close__start(all, (size_t)n, p->multi_fds, (size_t)p->nr_multi);
	memset(all, 0, (size_t)n * sizeof(*all)); /* the closer's now; multi entries stay NULL */
	p->nr_links = 0;
	p->nr_multi = 0;
	p->nr_loaders = 0;
}

void cuda_launch_prog__detach_end(struct cuda_launch_prog *p)
{
	link_close__wait(p->closing);
	p->closing = NULL;
}

void cuda_launch_prog__detach(struct cuda_launch_prog *p)
{
	cuda_launch_prog__detach_begin(p);
	cuda_launch_prog__detach_end(p);
}

int cuda_launch_prog__consume(struct cuda_launch_prog *p)
{
	return ring_buffer__consume(p->rb);
}

int cuda_launch_prog__epoll_fd(const struct cuda_launch_prog *p)
{
	return ring_buffer__epoll_fd(p->rb);
}

int cuda_launch_prog__held_fd(const struct cuda_launch_prog *p)
{
	return bpf_map__fd(p->skel->maps.cl_held);
}

void cuda_launch_prog__released(struct cuda_launch_prog *p, uint32_t pid, uint64_t ts)
{
	const struct bpf_map *m = p->skel->maps.cl_held;
	uint64_t v;

	/* a newer stop of the same process (it loaded again meanwhile) stays */
	if (!bpf_map__lookup_elem(m, &pid, sizeof(pid), &v, sizeof(v), 0) && v == ts)
		bpf_map__delete_elem(m, &pid, sizeof(pid), 0);
}

void cuda_launch_prog__stats(const struct cuda_launch_prog *p, struct cuda_launch_stats *st)
{
	st->lost_events = __atomic_load_n(&p->skel->bss->lost_events, __ATOMIC_RELAXED);
	st->stack_errors = __atomic_load_n(&p->skel->bss->stack_errors, __ATOMIC_RELAXED);
}

void cuda_launch_prog__free(struct cuda_launch_prog *p)
{
	if (!p)
		return;
	if (p->links && p->multi_fds)
		cuda_launch_prog__detach(p);
	free(p->links);
	free(p->link_idx);
	free(p->multi_fds);
	ring_buffer__free(p->rb);
	cuda_launch_bpf__destroy(p->skel);
	free(p);
}
