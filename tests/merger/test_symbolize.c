// SPDX-License-Identifier: Apache-2.0
/*
 * test_symbolize.c - the symbolizer against a real, exited process: the
 * symfix fixture (PIE + shared library, see symfix/) is run once, prints its
 * functions' addresses, lines and executable mappings, and every test
 * resolves those addresses as the merger would, long after the process died.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symbolize.h"

extern char **environ;

#define MAX_MAPS 16

struct fix_map {
	uint64_t start, end, pgoff;
	char path[4096];
};

struct fix {
	uint32_t pid;
	uint64_t plain, local, outer, twice, lib, ret_inl;
	int line_plain, line_local, line_inl, line_outer, line_twice, line_lib;
	struct fix_map maps[MAX_MAPS];
	int nmaps;
	const struct fix_map *exe, *libmap;
	uint8_t exe_bid[64], lib_bid[64];
	size_t exe_bid_size, lib_bid_size;
	char tmpdir[64];
};

/* The GNU build id of an ELF file, read the way nothing in the symbolizer does. */
static size_t read_build_id(const char *path, uint8_t *out, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t got = 0;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	while (!got && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + name_off, "GNU", 4) &&
			    nh.n_descsz <= cap) {
				memcpy(out, (char *)data->d_buf + desc_off, nh.n_descsz);
				got = nh.n_descsz;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	assert_true(got > 0);
	return got;
}

static void run_fixture(struct fix *f)
{
	char *argv[] = {(char *)SYMFIX_EXE, NULL};
	posix_spawn_file_actions_t fa;
	int pipefd[2], status;
	char line[4200];
	pid_t pid;
	FILE *out;

	assert_int_equal(pipe(pipefd), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	assert_int_equal(posix_spawn(&pid, SYMFIX_EXE, &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	assert_non_null(out);
	f->pid = (uint32_t)pid;
	while (fgets(line, sizeof(line), out)) {
		char what[32], path[4096];
		unsigned long v, a, b, c;
		int n;

		if (sscanf(line, "fn %31s %lx", what, &v) == 2) {
			uint64_t *dst = !strcmp(what, "plain")	 ? &f->plain
					: !strcmp(what, "local") ? &f->local
					: !strcmp(what, "outer") ? &f->outer
					: !strcmp(what, "twice") ? &f->twice
					: !strcmp(what, "lib")	 ? &f->lib
								 : &f->ret_inl;
			*dst = v;
		} else if (sscanf(line, "line %31s %d", what, &n) == 2) {
			int *dst = !strcmp(what, "plain")   ? &f->line_plain
				   : !strcmp(what, "local") ? &f->line_local
				   : !strcmp(what, "inl")   ? &f->line_inl
				   : !strcmp(what, "outer") ? &f->line_outer
				   : !strcmp(what, "twice") ? &f->line_twice
							    : &f->line_lib;
			*dst = n;
		} else if (sscanf(line, "map %lx %lx %lx %4095s", &a, &b, &c, path) == 4 &&
			   f->nmaps < MAX_MAPS) {
			struct fix_map *m = &f->maps[f->nmaps++];

			*m = (struct fix_map){.start = a, .end = b, .pgoff = c};
			snprintf(m->path, sizeof(m->path), "%s", path);
		}
	}
	fclose(out);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* From here on the process is gone: only what it printed is left. */
	for (int i = 0; i < f->nmaps; i++) {
		const char *base = strrchr(f->maps[i].path, '/') + 1;

		if (!strcmp(base, "symfix"))
			f->exe = &f->maps[i];
		else if (!strcmp(base, "libsymfix.so"))
			f->libmap = &f->maps[i];
	}
	assert_non_null(f->exe);
	assert_non_null(f->libmap);
	assert_true(f->plain && f->local && f->outer && f->twice && f->lib && f->ret_inl);
	assert_true(f->line_plain && f->line_inl && f->line_outer && f->line_twice && f->line_lib);
	f->exe_bid_size = read_build_id(f->exe->path, f->exe_bid, sizeof(f->exe_bid));
	f->lib_bid_size = read_build_id(f->libmap->path, f->lib_bid, sizeof(f->lib_bid));
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	run_fixture(f);
	snprintf(f->tmpdir, sizeof(f->tmpdir), "/tmp/gpuperf-symtest-XXXXXX");
	if (!mkdtemp(f->tmpdir))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->tmpdir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* Every executable mapping of the fixture, as GP_REC_MODULE records give them. */
static void add_maps(struct symbolizer *s, const struct fix *f, uint32_t pid)
{
	for (int i = 0; i < f->nmaps; i++) {
		const struct fix_map *m = &f->maps[i];
		const uint8_t *bid = m == f->exe ? f->exe_bid : m == f->libmap ? f->lib_bid : NULL;
		size_t bsz = m == f->exe ? f->exe_bid_size : m == f->libmap ? f->lib_bid_size : 0;

		assert_int_equal(symbolizer__add_module(s, pid, m->path, m->start, m->end, m->pgoff,
							bid, bsz),
				 0);
	}
}

static struct symbolizer *new_sym(const struct fix *f, const char *debuginfo_path)
{
	struct symbolizer_opts o = {.debuginfo_path = debuginfo_path};
	struct symbolizer *s = symbolizer__new(&o);

	assert_non_null(s);
	add_maps(s, f, f->pid);
	return s;
}

static const char *base(const char *path)
{
	const char *slash;

	assert_non_null(path);
	slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static void check_frame(const struct sym_frame *fr, const char *name, const char *file, int line,
			bool inlined)
{
	assert_string_equal(fr->name, name);
	assert_true(fr->resolved);
	assert_false(fr->jit);
	assert_int_equal(fr->inlined, inlined);
	if (file) {
		assert_string_equal(base(fr->file), file);
		assert_int_equal(fr->line, line);
	}
}

static void test_plain_local_cxx(void **state)
{
	struct fix *f = *state;
	struct symbolizer *s = new_sym(f, NULL);
	const struct sym_frame *fr;

	assert_int_equal(symbolizer__user(s, f->pid, f->plain, false, &fr), 1);
	check_frame(&fr[0], "symfix_plain", "symfix_main.cpp", f->line_plain, false);
	/* A static function: a LOCAL symbol, found all the same. */
	assert_int_equal(symbolizer__user(s, f->pid, f->local + 2, false, &fr), 1);
	check_frame(&fr[0], "symfix_local", "symfix_main.cpp", f->line_local, false);
	/* Namespaced template: mangled in the symbol table, demangled here. */
	assert_int_equal(symbolizer__user(s, f->pid, f->twice, false, &fr), 1);
	check_frame(&fr[0], "int symfix::twice<int>(int)", "symfix_main.cpp", f->line_twice, false);
	symbolizer__free(s);
}

static void test_inline_chain(void **state)
{
	struct fix *f = *state;
	struct symbolizer *s = new_sym(f, NULL);
	const struct sym_frame *fr;

	/* ret_inl is the return address of the call made inside the
	 * always-inlined symfix_inl, which lives in symfix_outer's code. */
	assert_int_equal(symbolizer__user(s, f->pid, f->ret_inl, true, &fr), 2);
	check_frame(&fr[0], "symfix_inl", "symfix_main.cpp", f->line_inl, true);
	check_frame(&fr[1], "symfix_outer", "symfix_main.cpp", f->line_outer, false);
	symbolizer__free(s);
}

static void test_no_dwarf(void **state)
{
	struct fix *f = *state;
	struct symbolizer_opts o = {.no_dwarf = true};
	struct symbolizer *s = symbolizer__new(&o);
	const struct sym_frame *fr;

	assert_non_null(s);
	add_maps(s, f, f->pid);
	assert_int_equal(symbolizer__user(s, f->pid, f->ret_inl, true, &fr), 1);
	assert_string_equal(fr[0].name, "symfix_outer");
	assert_null(fr[0].file);
	symbolizer__free(s);
}

static void test_return_addr(void **state)
{
	struct fix *f = *state;
	struct symbolizer *s = new_sym(f, NULL);
	const struct sym_frame *fr;
	size_t n;

	/* As a return address, plain+1 means the instruction at plain ... */
	assert_int_equal(symbolizer__user(s, f->pid, f->plain + 1, true, &fr), 1);
	assert_string_equal(fr[0].name, "symfix_plain");
	/* ... and plain itself means the byte before it: not symfix_plain. */
	n = symbolizer__user(s, f->pid, f->plain, true, &fr);
	assert_string_not_equal(fr[n - 1].name, "symfix_plain");
	/* The same address, not a return address: symfix_plain again. */
	assert_int_equal(symbolizer__user(s, f->pid, f->plain, false, &fr), 1);
	assert_string_equal(fr[0].name, "symfix_plain");
	symbolizer__free(s);
}

static void test_shared_lib_two_pids(void **state)
{
	struct fix *f = *state;
	struct symbolizer *s = new_sym(f, NULL);
	const struct sym_frame *fr;
	struct symbolizer_stats st;
	const uint64_t shift = 0x10000000000ull;
	uint32_t pid2 = f->pid + 100000;

	assert_true(f->libmap->start != 0);
	assert_int_equal(symbolizer__user(s, f->pid, f->lib, false, &fr), 1);
	check_frame(&fr[0], "symfix_lib_func", "symfix_lib.c", f->line_lib, false);
	symbolizer__stats(s, &st);
	assert_int_equal(st.images, 1);

	/* Another process with the library somewhere else: same names, and
	 * the file already opened for the first one is reused. */
	assert_int_equal(symbolizer__add_module(s, pid2, f->libmap->path, f->libmap->start + shift,
						f->libmap->end + shift, f->libmap->pgoff,
						f->lib_bid, f->lib_bid_size),
			 0);
	assert_int_equal(symbolizer__user(s, pid2, f->lib + shift, false, &fr), 1);
	check_frame(&fr[0], "symfix_lib_func", "symfix_lib.c", f->line_lib, false);
	/* The first pid's address means nothing in the second. */
	assert_int_equal(symbolizer__user(s, pid2, f->lib, false, &fr), 1);
	assert_string_equal(fr[0].name, "[unknown]");
	assert_false(fr[0].resolved);
	symbolizer__stats(s, &st);
	assert_int_equal(st.images, 1);
	assert_int_equal(st.modules_missing, 0);
	symbolizer__free(s);
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	size_t n;

	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

static void test_deleted_module(void **state)
{
	struct fix *f = *state;
	struct symbolizer *s = symbolizer__new(NULL);
	const struct sym_frame *fr;
	struct symbolizer_stats st;
	char path[128], want[160];

	assert_non_null(s);
	snprintf(path, sizeof(path), "%s/symfix_gone", f->tmpdir);
	copy_file(f->exe->path, path);
	assert_int_equal(symbolizer__add_module(s, 7, path, f->exe->start, f->exe->end,
						f->exe->pgoff, f->exe_bid, f->exe_bid_size),
			 0);
	/* Deleted between the recording and the report. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symbolizer__user(s, 7, f->plain, false, &fr), 1);
	snprintf(want, sizeof(want), "[symfix_gone+0x%llx]",
		 (unsigned long long)(f->plain - f->exe->start + f->exe->pgoff));
	assert_string_equal(fr[0].name, want);
	assert_false(fr[0].resolved);
	assert_null(fr[0].file);
	symbolizer__stats(s, &st);
	assert_int_equal(st.modules_missing, 1);
	assert_int_equal(st.unresolved, 1);
	symbolizer__free(s);
}

static void test_corrupt_module(void **state)
{
	struct fix *f = *state;
	struct symbolizer *s = symbolizer__new(NULL);
	const struct sym_frame *fr;
	struct symbolizer_stats st;
	char path[128];
	FILE *g;

	assert_non_null(s);
	snprintf(path, sizeof(path), "%s/garbage.so", f->tmpdir);
	g = fopen(path, "wb");
	assert_non_null(g);
	fputs("\177ELF this is not an ELF file at all", g);
	fclose(g);
	assert_int_equal(symbolizer__add_module(s, 8, path, 0x400000, 0x500000, 0, NULL, 0), 0);
	assert_int_equal(symbolizer__user(s, 8, 0x400123, false, &fr), 1);
	assert_string_equal(fr[0].name, "[garbage.so+0x123]");
	symbolizer__stats(s, &st);
	assert_int_equal(st.modules_missing, 1);
	symbolizer__free(s);
}

static void test_build_id_mismatch(void **state)
{
	struct fix *f = *state;
	struct symbolizer *s = symbolizer__new(NULL);
	const struct sym_frame *fr;
	struct symbolizer_stats st;
	uint8_t bid[64];
	char want[160];

	assert_non_null(s);
	memcpy(bid, f->exe_bid, f->exe_bid_size);
	bid[0] ^= 0xff; /* the file was rebuilt since */
	assert_int_equal(symbolizer__add_module(s, 9, f->exe->path, f->exe->start, f->exe->end,
						f->exe->pgoff, bid, f->exe_bid_size),
			 0);
	assert_int_equal(symbolizer__user(s, 9, f->plain, false, &fr), 1);
	snprintf(want, sizeof(want), "[symfix+0x%llx]",
		 (unsigned long long)(f->plain - f->exe->start + f->exe->pgoff));
	assert_string_equal(fr[0].name, want);
	assert_false(fr[0].resolved);
	symbolizer__stats(s, &st);
	assert_int_equal(st.build_id_mismatch, 1);
	symbolizer__free(s);
}

static void test_separate_debug(void **state)
{
	struct fix *f = *state;
	char dir[256], link[512];
	struct symbolizer *s;
	const struct sym_frame *fr;
	int k = 0;

	/* DIR/.build-id/xx/rest.debug, as distributions lay debug files out. */
	snprintf(dir, sizeof(dir), "%s/debug/.build-id/%02x", f->tmpdir, f->exe_bid[0]);
	snprintf(link, sizeof(link), "mkdir -p '%s'", dir);
	assert_int_equal(system(link), 0);
	k = snprintf(link, sizeof(link), "%s/", dir);
	for (size_t i = 1; i < f->exe_bid_size; i++)
		k += snprintf(link + k, sizeof(link) - (size_t)k, "%02x", f->exe_bid[i]);
	snprintf(link + k, sizeof(link) - (size_t)k, ".debug");
	assert_int_equal(symlink(SYMFIX_DEBUG, link), 0);

	/* Without the directory: the stripped copy still has its symbol table
	 * but no lines and no inline frames. */
	s = symbolizer__new(NULL);
	assert_non_null(s);
	assert_int_equal(symbolizer__add_module(s, 10, SYMFIX_STRIPPED, f->exe->start, f->exe->end,
						f->exe->pgoff, f->exe_bid, f->exe_bid_size),
			 0);
	assert_int_equal(symbolizer__user(s, 10, f->ret_inl, true, &fr), 1);
	assert_string_equal(fr[0].name, "symfix_outer");
	assert_null(fr[0].file);
	symbolizer__free(s);

	/* With it: DWARF from the debug file. */
	snprintf(dir, sizeof(dir), "%s/debug", f->tmpdir);
	{
		struct symbolizer_opts o = {.debuginfo_path = dir};

		s = symbolizer__new(&o);
	}
	assert_non_null(s);
	assert_int_equal(symbolizer__add_module(s, 10, SYMFIX_STRIPPED, f->exe->start, f->exe->end,
						f->exe->pgoff, f->exe_bid, f->exe_bid_size),
			 0);
	assert_int_equal(symbolizer__user(s, 10, f->ret_inl, true, &fr), 2);
	check_frame(&fr[0], "symfix_inl", "symfix_main.cpp", f->line_inl, true);
	check_frame(&fr[1], "symfix_outer", "symfix_main.cpp", f->line_outer, false);
	assert_int_equal(symbolizer__user(s, 10, f->plain, false, &fr), 1);
	check_frame(&fr[0], "symfix_plain", "symfix_main.cpp", f->line_plain, false);
	symbolizer__free(s);
}

/*
 * A FIFO planted where a separate debug file may be (next to the module,
 * in its .debug/, under a --debuginfo directory by build id and by path)
 * is skipped without blocking; a regular debug file there is still found.
 */
static void test_debuglink_fifo(void **state)
{
	struct fix *f = *state;
	char app[256], cmd[4096], dbg[512], dir[512], path[1024];
	struct symbolizer_opts o = {.debuginfo_path = dir};
	struct symbolizer *s;
	const struct sym_frame *fr;
	int k;

	/* the stripped copy, with a .gnu_debuglink naming symfix.debug */
	snprintf(app, sizeof(app), "%s/app", f->tmpdir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/app/.debug' && cp '%s' '%s/app/symfix' && "
		 "'%s' --add-gnu-debuglink='%s' '%s/app/symfix'",
		 f->tmpdir, SYMFIX_STRIPPED, f->tmpdir, SYMFIX_OBJCOPY, SYMFIX_DEBUG, f->tmpdir);
	assert_int_equal(system(cmd), 0);
	snprintf(dbg, sizeof(dbg), "%s/symfix", app);
	snprintf(dir, sizeof(dir), "%s/fifodebug", f->tmpdir);
	k = snprintf(path, sizeof(path), "%s/.build-id/%02x/", dir, f->exe_bid[0]);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' '%s%s'", path, dir, app);
	assert_int_equal(system(cmd), 0);
	for (size_t i = 1; i < f->exe_bid_size; i++)
		k += snprintf(path + k, sizeof(path) - (size_t)k, "%02x", f->exe_bid[i]);
	snprintf(path + k, sizeof(path) - (size_t)k, ".debug");
	assert_int_equal(mkfifo(path, 0644), 0);
	snprintf(path, sizeof(path), "%s%s/symfix.debug", dir, app);
	assert_int_equal(mkfifo(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/symfix.debug", app);
	assert_int_equal(mkfifo(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/.debug/symfix.debug", app);
	assert_int_equal(mkfifo(path, 0644), 0);

	/* a blocking open of any of them would hang here: the alarm fails the test */
	alarm(20);
	s = symbolizer__new(&o);
	assert_non_null(s);
	assert_int_equal(symbolizer__add_module(s, 11, dbg, f->exe->start, f->exe->end,
						f->exe->pgoff, f->exe_bid, f->exe_bid_size),
			 0);
	assert_int_equal(symbolizer__user(s, 11, f->ret_inl, true, &fr), 1);
	assert_string_equal(fr[0].name, "symfix_outer");
	assert_null(fr[0].file);
	symbolizer__free(s);

	/* the debug file itself in .debug/: found by its debuglink, lines and all */
	snprintf(cmd, sizeof(cmd), "rm '%s' && cp '%s' '%s'", path, SYMFIX_DEBUG, path);
	assert_int_equal(system(cmd), 0);
	s = symbolizer__new(&o);
	assert_non_null(s);
	assert_int_equal(symbolizer__add_module(s, 11, dbg, f->exe->start, f->exe->end,
						f->exe->pgoff, f->exe_bid, f->exe_bid_size),
			 0);
	assert_int_equal(symbolizer__user(s, 11, f->ret_inl, true, &fr), 2);
	check_frame(&fr[0], "symfix_inl", "symfix_main.cpp", f->line_inl, true);
	check_frame(&fr[1], "symfix_outer", "symfix_main.cpp", f->line_outer, false);
	symbolizer__free(s);
	alarm(0);
}

static void write_file(const char *path, const char *text)
{
	FILE *g = fopen(path, "w");

	assert_non_null(g);
	fputs(text, g);
	assert_int_equal(fclose(g), 0);
}

static void test_kallsyms(void **state)
{
	struct fix *f = *state;
	struct symbolizer *s = symbolizer__new(NULL);
	const struct sym_frame *fr;
	char path[128];

	assert_non_null(s);
	snprintf(path, sizeof(path), "%s/kallsyms", f->tmpdir);
	write_file(path, "ffffffff81003000 T do_sys_open\n"
			 "ffffffff81000000 T _stext\n"
			 "ffffffff81001000 t local_fn\n"
			 "ffffffff81002000 D some_data\n"
			 "ffffffffc0000000 t nv_isr\t[nvidia]\n"
			 "garbage line\n");
	assert_int_equal(symbolizer__load_kallsyms(s, "/nonexistent/kallsyms"), -ENOENT);
	assert_int_equal(symbolizer__load_kallsyms(s, path), 0);
	fr = symbolizer__kernel(s, 0xffffffff81001010ull);
	assert_string_equal(fr->name, "local_fn");
	assert_true(fr->resolved);
	/* Data symbols are not functions: an address past one is still local_fn. */
	assert_string_equal(symbolizer__kernel(s, 0xffffffff81002500ull)->name, "local_fn");
	assert_string_equal(symbolizer__kernel(s, 0xffffffff81003005ull)->name, "do_sys_open");
	assert_string_equal(symbolizer__kernel(s, 0xffffffffc0000010ull)->name, "nv_isr [nvidia]");
	fr = symbolizer__kernel(s, 0x1000);
	assert_string_equal(fr->name, "[kernel+0x1000]");
	assert_false(fr->resolved);
	/* kptr_restrict: every address 0, nothing usable. */
	write_file(path, "0000000000000000 T _stext\n");
	assert_int_equal(symbolizer__load_kallsyms(s, path), -ENODATA);
	symbolizer__free(s);
}

static void test_perf_map(void **state)
{
	struct fix *f = *state;
	struct symbolizer *s = new_sym(f, NULL);
	const struct sym_frame *fr;
	char path[128];

	snprintf(path, sizeof(path), "%s/perf-1234.map", f->tmpdir);
	/* Python 3.12's trampolines, and a name with spaces. */
	write_file(path, "7f0000001000 40 py::compute:/app/model.py\n"
			 "7f0000001040 40 py::<lambda>:/app/model.py\n"
			 "0x7f0000002000 0x100 JIT compiled fn with spaces\n");
	assert_int_equal(symbolizer__load_perf_map(s, f->pid, path), 0);
	assert_int_equal(symbolizer__user(s, f->pid, 0x7f0000001010ull, true, &fr), 1);
	assert_string_equal(fr[0].name, "py::compute:/app/model.py");
	assert_true(fr[0].jit);
	assert_true(fr[0].resolved);
	assert_string_equal((symbolizer__user(s, f->pid, 0x7f0000001041ull, true, &fr), fr[0].name),
			    "py::<lambda>:/app/model.py");
	symbolizer__user(s, f->pid, 0x7f00000020ffull, false, &fr);
	assert_string_equal(fr[0].name, "JIT compiled fn with spaces");
	symbolizer__user(s, f->pid, 0x7f0000003000ull, false, &fr);
	assert_string_equal(fr[0].name, "[unknown]");
	assert_false(fr[0].jit);
	/* Modules still name their own addresses. */
	assert_int_equal(symbolizer__user(s, f->pid, f->plain, false, &fr), 1);
	assert_string_equal(fr[0].name, "symfix_plain");
	assert_int_equal(symbolizer__load_perf_map(s, f->pid, "/nonexistent/perf-1.map"), -ENOENT);
	symbolizer__free(s);
}

static void test_fork_parent(void **state)
{
	struct fix *f = *state;
	struct symbolizer *s = new_sym(f, NULL);
	const struct sym_frame *fr;
	uint32_t child = f->pid + 1;

	/* Before the fork is known the child maps nothing ... */
	symbolizer__user(s, child, f->plain, false, &fr);
	assert_string_equal(fr[0].name, "[unknown]");
	/* ... after it, the parent's image answers (and the cached
	 * "[unknown]" is not returned again). */
	symbolizer__set_parent(s, child, f->pid);
	assert_int_equal(symbolizer__user(s, child, f->plain, false, &fr), 1);
	assert_string_equal(fr[0].name, "symfix_plain");
	/* The child maps something of its own over part of that range
	 * (an exec, say): its own mapping wins there, the rest falls back. */
	assert_int_equal(symbolizer__add_module(s, child, f->libmap->path, f->plain & ~0xfffull,
						(f->plain & ~0xfffull) + 0x1000, f->libmap->pgoff,
						f->lib_bid, f->lib_bid_size),
			 0);
	symbolizer__user(s, child, f->plain, false, &fr);
	assert_string_not_equal(fr[0].name, "symfix_plain");
	symbolizer__free(s);
}

static void test_overlap_replaces(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	const struct sym_frame *fr;
	struct symbolizer_stats st;

	assert_non_null(s);
	assert_int_equal(symbolizer__add_module(s, 11, "/gone/a.so", 0x10000, 0x20000, 0, NULL, 0),
			 0);
	/* dlclose + dlopen of another library over the middle of it. */
	assert_int_equal(
		symbolizer__add_module(s, 11, "/gone/b.so", 0x14000, 0x18000, 0x2000, NULL, 0), 0);
	symbolizer__user(s, 11, 0x12000, false, &fr);
	assert_string_equal(fr[0].name, "[a.so+0x2000]");
	symbolizer__user(s, 11, 0x15000, false, &fr);
	assert_string_equal(fr[0].name, "[b.so+0x3000]");
	/* The part of a.so after b.so keeps its own file offsets. */
	symbolizer__user(s, 11, 0x19000, false, &fr);
	assert_string_equal(fr[0].name, "[a.so+0x9000]");
	symbolizer__user(s, 11, 0x20000, false, &fr);
	assert_string_equal(fr[0].name, "[unknown]");
	assert_int_equal(symbolizer__add_module(s, 11, "/gone/c.so", 0x30000, 0x30000, 0, NULL, 0),
			 -EINVAL);
	/* A pseudo path is no file to miss, and reads without doubled brackets. */
	assert_int_equal(symbolizer__add_module(s, 11, "[vdso]", 0x40000, 0x42000, 0, NULL, 0), 0);
	symbolizer__user(s, 11, 0x40010, false, &fr);
	assert_string_equal(fr[0].name, "[vdso+0x10]");
	symbolizer__stats(s, &st);
	assert_int_equal(st.modules_missing, 2); /* a.so and b.so */
	symbolizer__free(s);
}

static void test_cache(void **state)
{
	struct fix *f = *state;
	struct symbolizer *s = new_sym(f, NULL);
	const struct sym_frame *a, *b;
	struct symbolizer_stats st1, st2;

	symbolizer__user(s, f->pid, f->outer, true, &a);
	symbolizer__stats(s, &st1);
	symbolizer__user(s, f->pid, f->outer, true, &b);
	symbolizer__stats(s, &st2);
	assert_ptr_equal(a, b);
	assert_int_equal(st2.distinct, st1.distinct);
	assert_int_equal(st2.lookups, st1.lookups + 1);
	/* Not a return address: a different key. */
	symbolizer__user(s, f->pid, f->outer, false, &b);
	symbolizer__stats(s, &st2);
	assert_int_equal(st2.distinct, st1.distinct + 1);
	symbolizer__free(s);
}

static void test_many_lookups(void **state)
{
	struct fix *f = *state;
	struct symbolizer *s = new_sym(f, NULL);
	const struct sym_frame *fr;
	struct symbolizer_stats st;
	uint64_t span = f->exe->end - f->exe->start;

	for (int round = 0; round < 100; round++) {
		for (uint64_t i = 0; i < 1000; i++) {
			uint64_t addr = f->exe->start + (i * 7) % span;

			assert_true(symbolizer__user(s, f->pid, addr, true, &fr) >= 1);
			assert_non_null(fr[0].name);
		}
	}
	symbolizer__stats(s, &st);
	assert_int_equal(st.lookups, 100000);
	assert_int_equal(st.distinct, 1000);
	assert_int_equal(st.images, 1);
	symbolizer__free(s);
}

static void test_demangle(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);

	(void)state;
	assert_non_null(s);
	assert_string_equal(symbolizer__demangle(s, "_ZN2ns3fooEi"), "ns::foo(int)");
	/* A CUDA kernel's name as CUPTI reports it. */
	assert_string_equal(symbolizer__demangle(s, "_Z6vecAddPKfS0_Pfi"),
			    "vecAdd(float const*, float const*, float*, int)");
	assert_ptr_equal(symbolizer__demangle(s, "_Z6vecAddPKfS0_Pfi"),
			 symbolizer__demangle(s, "_Z6vecAddPKfS0_Pfi"));
	assert_string_equal(symbolizer__demangle(s, "main"), "main");
	/* nvcc -rdc=true: a static kernel's name (as nvcc 12 and 13 spell it) */
	assert_string_equal(
	    symbolizer__demangle(s, "__nv_static_25__6041ec19_4_k_cu_61214189__Z5skernPf"),
	    "skern(float*)");
	assert_string_equal(symbolizer__demangle(s, "__nv_static_25__6041ec19_4_k_cu_61214189_kern"),
			    "kern");
	/* not spelled so: kept as it is */
	assert_string_equal(symbolizer__demangle(s, "__nv_static_99__6041ec19__Z5skernPf"),
			    "__nv_static_99__6041ec19__Z5skernPf");
	assert_string_equal(symbolizer__demangle(s, "__nv_static_x"), "__nv_static_x");
	assert_string_equal(symbolizer__demangle(s, "_Znot a mangled name"),
			    "_Znot a mangled name");
	symbolizer__free(s);
	symbolizer__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_local_cxx),
		cmocka_unit_test(test_inline_chain),
		cmocka_unit_test(test_no_dwarf),
		cmocka_unit_test(test_return_addr),
		cmocka_unit_test(test_shared_lib_two_pids),
		cmocka_unit_test(test_deleted_module),
		cmocka_unit_test(test_corrupt_module),
		cmocka_unit_test(test_build_id_mismatch),
		cmocka_unit_test(test_separate_debug),
		cmocka_unit_test(test_debuglink_fifo),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_perf_map),
		cmocka_unit_test(test_fork_parent),
		cmocka_unit_test(test_overlap_replaces),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_many_lookups),
		cmocka_unit_test(test_demangle),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
