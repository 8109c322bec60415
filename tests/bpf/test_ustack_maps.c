// SPDX-License-Identifier: Apache-2.0
/*
 * test_ustack_maps: the agent's unwinder keeps every mapping of a process
 * and every PT_LOAD segment of a file, however many, and a mapping whose
 * offset no segment holds is walked by frame pointers and counted, never
 * looked up in its file's table at a wrong address. This test's own
 * executable is the mapped file (a copy with 17 more segments for the
 * segment limit); mappings are declared, not made, so no root is needed.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ustack.h"

#define PID 4242
#define RET 0x1234ull /* the caller's pc: in no mapping */

static char copy[] = "/tmp/test_ustack_maps.XXXXXX";
static uint64_t fn_vaddr;		/* target_fn's ELF address */
static uint64_t text_off, text_vaddr, text_size; /* the PT_LOAD that holds it */

/* A leaf: at its first instruction the CFA is rsp + 8 and the return address is at rsp. */
__attribute__((noinline)) int target_fn(int x);
__attribute__((noinline)) int target_fn(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

static int first_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr;
	return 1; /* the executable comes first */
}

static int read_phdrs(const char *path, Elf64_Ehdr *eh, Elf64_Phdr **ph)
{
	int fd = open(path, O_RDONLY);
	size_t len;

	if (fd < 0 || pread(fd, eh, sizeof(*eh), 0) != (ssize_t)sizeof(*eh))
		return -1;
	len = (size_t)eh->e_phnum * sizeof(**ph);
	*ph = malloc(len);
	if (!*ph || pread(fd, *ph, len, (off_t)eh->e_phoff) != (ssize_t)len)
		return -1;
	close(fd);
	return 0;
}

/* Unwind at target_fn's entry in a mapping of bias @bias: the pcs found. */
static int unwind_at(struct ustack *u, uint64_t bias, uint64_t *pcs, int *end)
{
	uint64_t stack[4] = { RET, 0, 0, 0 };

	return ustack__unwind(u, PID, fn_vaddr + bias, 0x7ffc00000000ull, 0, 0, stack,
			      sizeof(stack), 0, pcs, 16, end);
}

/* target_fn's text mapped at @start (from page offset @pgoff): unwound by CFI to its caller. */
static void assert_unwound(struct ustack *u, uint64_t start, uint64_t pgoff)
{
	uint64_t bias = start - pgoff + text_off - text_vaddr, pcs[16];
	int end, n = unwind_at(u, bias, pcs, &end);

	assert_int_equal(n, 2);
	assert_true(pcs[0] == fn_vaddr + bias);
	assert_true(pcs[1] == RET);
}

static void add(struct ustack *u, const char *path, uint64_t start, uint64_t end, uint64_t pgoff)
{
	struct stat sb;

	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(ustack__add_mapping(u, PID, start, end, pgoff, sb.st_dev, sb.st_ino, path),
			 0);
}

/* The text of a file whose text segment is its 18th or later PT_LOAD: found, unwound by CFI. */
static void test_many_segments(void **state)
{
	struct ustack *u = ustack__new();
	struct ustack_stats st;
	uint64_t start = 0x500000000000ull, pgoff = text_off & ~4095ull;

	assert_non_null(u);
	add(u, copy, start, start + text_size + 8192, pgoff);
	assert_unwound(u, start, pgoff);
	ustack__stats(u, &st);
	assert_int_equal(st.mappings_no_segment, 0);
	assert_int_equal(st.tables, 1);
	ustack__free(u);
}

/*
 * A mapping at an offset that no segment holds: its table would be looked
 * up at a wrong address (here one where the file's CFI does name a
 * function, and would give a frame that is not there). Frame pointers
 * instead (none here: the stack ends at its first frame), and counted.
 */
static void test_offset_in_no_segment(void **state)
{
	struct ustack *u = ustack__new();
	struct ustack_stats st;
	uint64_t start = fn_vaddr & ~4095ull, pcs[16];
	int end, n;

	assert_non_null(u);
	add(u, "/proc/self/exe", start, start + 8192, 0x7fff0000ull);
	n = unwind_at(u, 0, pcs, &end);
	assert_int_equal(n, 1);
	ustack__stats(u, &st);
	assert_int_equal(st.mappings_no_segment, 1);
	ustack__free(u);
}

/*
 * A file first met through a path that is gone (the map_files entry of a
 * process that exec'd before the agent opened it): the next mapping of
 * the same file, through a path that works, gets its table.
 */
static void test_file_read_again(void **state)
{
	struct ustack *u = ustack__new();
	struct ustack_stats st;
	struct stat sb;
	uint64_t start = 0x500000000000ull, pgoff = text_off & ~4095ull;

	assert_non_null(u);
	assert_int_equal(stat(copy, &sb), 0);
	assert_int_equal(ustack__add_mapping(u, PID + 1, start, start + text_size + 8192, pgoff,
					     sb.st_dev, sb.st_ino, "/proc/self/map_files/gone"),
			 0);
	ustack__stats(u, &st);
	assert_int_equal(st.files_failed, 1);
	add(u, copy, start, start + text_size + 8192, pgoff);
	assert_unwound(u, start, pgoff);
	ustack__stats(u, &st);
	assert_int_equal(st.tables, 1);
	assert_int_equal(st.files_failed, 0);
	ustack__free(u);
}

/* Thousands of mappings (beyond the old 4096): all kept, the last one's pcs unwound. */
static void test_many_mappings(void **state)
{
	struct ustack *u = ustack__new();
	struct ustack_stats st;
	uint64_t pgoff = text_off & ~4095ull, step = 0x100000, base = 0x100000000000ull;
	uint64_t start = 0;
	int i, count = 6000;

	assert_non_null(u);
	assert_true(text_size + 8192 < step);
	for (i = 0; i < count; i++) {
		start = base + (uint64_t)i * step;
		add(u, "/proc/self/exe", start, start + text_size + 8192, pgoff);
	}
	assert_unwound(u, start, pgoff);
	ustack__stats(u, &st);
	assert_int_equal(st.mappings_dropped, 0);
	ustack__free(u);
}

/* A copy of the executable whose program headers start with 17 more PT_LOADs. */
static int setup(void **state)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph, *nph;
	uint64_t load_bias = 0;
	char buf[65536];
	ssize_t got;
	off_t size;
	int in, out;
	unsigned int i, extra = 17;

	(void)state;
	dl_iterate_phdr(first_bias, &load_bias);
	fn_vaddr = (uint64_t)(uintptr_t)&target_fn - load_bias;
	if (read_phdrs("/proc/self/exe", &eh, &ph))
		return -1;
	for (i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && fn_vaddr >= ph[i].p_vaddr &&
		    fn_vaddr < ph[i].p_vaddr + ph[i].p_filesz) {
			text_off = ph[i].p_offset;
			text_vaddr = ph[i].p_vaddr;
			text_size = ph[i].p_filesz;
		}
	if (!text_size)
		return -1;
	in = open("/proc/self/exe", O_RDONLY);
	out = mkstemp(copy);
	if (in < 0 || out < 0)
		return -1;
	while ((got = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)got) != got)
			return -1;
	close(in);
	size = (lseek(out, 0, SEEK_END) + 7) & ~(off_t)7;
	nph = calloc(eh.e_phnum + extra, sizeof(*nph));
	if (!nph)
		return -1;
	for (i = 0; i < extra; i++)
		nph[i] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = 0,
				       .p_vaddr = 0x70000000ull + i * 0x100000ull,
				       .p_filesz = 16, .p_memsz = 16, .p_align = 4096 };
	memcpy(nph + extra, ph, eh.e_phnum * sizeof(*ph));
	if (pwrite(out, nph, (eh.e_phnum + extra) * sizeof(*nph), size) < 0)
		return -1;
	eh.e_phoff = (uint64_t)size;
	eh.e_phnum = (uint16_t)(eh.e_phnum + extra);
	if (pwrite(out, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
		return -1;
	close(out);
	free(ph);
	free(nph);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(copy);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_segments),
		cmocka_unit_test(test_offset_in_no_segment),
		cmocka_unit_test(test_many_mappings),
		cmocka_unit_test(test_file_read_again),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
