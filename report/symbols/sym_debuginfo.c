// SPDX-License-Identifier: Apache-2.0
/*
 * sym_debuginfo.c - a module's separate debug file, for elfutils: by build
 * id, then by .gnu_debuglink (its CRC checked), and a dwz file by its
 * .gnu_debugaltlink; only regular files that are not links are opened.
 */
#include <elfutils/libdwfl.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <dwarf.h>
#include <gelf.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "gp_file.h"
#include "gp_util.h"
#include "symbolize_priv.h"

/* ---- separate debug files ---------------------------------------------- */

/*
 * A candidate debug file, opened as gp_file__input() opens: a regular file
 * that is not a link, never blocking on a FIFO, never a device. In the
 * directories of whoever runs the report (--debuginfo, /usr/lib/debug) a
 * link is resolved first (a .build-id entry is one on many distributions)
 * and the file it names opened the same way; next to a recorded module, in
 * directories the recorded program's owner controls, a link is refused.
 */
static int debug_open(const char *path, bool follow)
{
	char real[PATH_MAX];
	int fd = gp_file__input(AT_FDCWD, path);

	if (fd == -ELOOP && follow && realpath(path, real))
		fd = gp_file__input(AT_FDCWD, real);
	return fd;
}

/* The GNU build id of an open ELF file: its length (0: none) and *bits (malloc'd). */
static ssize_t fd_build_id(int fd, void **bits)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id = NULL;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;

	*bits = NULL;
	if (n > 0 && (*bits = malloc((size_t)n)))
		memcpy(*bits, id, (size_t)n);
	else
		n = 0;
	elf_end(elf);
	return n;
}

/* The .gnu_debugaltlink build id of an open ELF file (a dwz user): length, 0 none. */
static ssize_t fd_altlink_id(int fd, void **bits)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Dwarf *dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	const char *name;
	const void *id = NULL;
	ssize_t n = dw ? dwelf_dwarf_gnu_debugaltlink(dw, &name, &id) : -1;

	*bits = NULL;
	if (n > 0 && (*bits = malloc((size_t)n)))
		memcpy(*bits, id, (size_t)n);
	else
		n = 0;
	dwarf_end(dw);
	elf_end(elf);
	return n;
}

/* CRC-32 of a whole file, as .gnu_debuglink records it (zlib's polynomial). */
static bool crc_matches(int fd, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, NULL, 0);
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET))
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	lseek(fd, 0, SEEK_SET);
	return n == 0 && (uint32_t)crc == want;
}

struct debug_want {
	const void *id; /* build id the file must carry, or NULL */
	ssize_t id_len;
	bool crc;	/* else: the debuglink's CRC-32 */
	uint32_t crc32;
	const struct stat *main; /* the module's own file: not its own debug file */
};

/* Open path (debug_open()) and keep it when it is the wanted file: fd, or -1. */
static int debug_try(const char *path, bool follow, const struct debug_want *w, char **name)
{
	struct stat st;
	void *id;
	ssize_t n;
	bool ok;
	int fd = debug_open(path, follow);

	if (fd < 0)
		return -1;
	if (w->main && !fstat(fd, &st) && st.st_dev == w->main->st_dev &&
	    st.st_ino == w->main->st_ino) {
		close(fd);
		return -1;
	}
	if (w->id) {
		n = fd_build_id(fd, &id);
		ok = n == w->id_len && !memcmp(id, w->id, (size_t)n);
		free(id);
	} else {
		ok = !w->crc || crc_matches(fd, w->crc32);
	}
	if (!ok || !(*name = strdup(path))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* dir/.build-id/xx/rest.debug */
static int debug_by_id(const char *dir, const unsigned char *id, ssize_t len,
		       const struct debug_want *w, char **name)
{
	char path[PATH_MAX];
	int off, i;

	if (len < 2 || len > 64)
		return -1;
	off = snprintf(path, sizeof(path), "%s/.build-id/%02x/", dir, id[0]);
	for (i = 1; i < len && off > 0 && off < (int)sizeof(path) - 8; i++)
		off += snprintf(path + off, sizeof(path) - (size_t)off, "%02x", id[i]);
	if (off <= 0 || off >= (int)sizeof(path) - 8)
		return -1;
	strcpy(path + off, ".debug");
	return debug_try(path, true, w, name);
}

/*
 * Dwfl's sym_find_debuginfo: elfutils' own search (dwfl_standard_find_debuginfo)
 * opens every candidate by name, so a FIFO planted where a debug file could
 * be (DIR/.debug/<debuglink>, a --debuginfo directory) hung the report.
 * The same places, in elfutils' order, each opened with debug_open():
 * by build id under the --debuginfo directories and /usr/lib/debug, then
 * the .gnu_debuglink name next to the file, in its .debug/, and under each
 * of those directories followed by the file's own directory. A file is
 * taken when its build id is the module's (the CRC of .gnu_debuglink when
 * the module has none); a dwz file (.gnu_debugaltlink, asked for once the
 * debug file is open) when its build id is the one the link names.
 */
int sym_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name)
{
	const struct symbolizer *s = *userdata;
	const char *debugfile = NULL, *slash;
	const unsigned char *mod_id = NULL;
	char *dirs = NULL, *d, *save = NULL, dir[PATH_MAX], path[PATH_MAX];
	struct stat main_st;
	struct debug_want w = { 0 };
	void *alt_id = NULL;
	GElf_Addr id_vaddr;
	ssize_t len;
	int fd = -1, i;

	(void)modname;
	(void)base;
	if (!s)
		return -1;
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (debugfile && file_name) {
		/* the dwz file of the debug file already open: its id is in the link */
		int dfd = debug_open(file_name, true); /* the debug file we opened */

		len = dfd >= 0 ? fd_altlink_id(dfd, &alt_id) : 0;
		if (dfd >= 0)
			close(dfd);
		if (len <= 0)
			return -1;
		w.id = alt_id;
		w.id_len = len;
	} else {
		len = dwfl_module_build_id(mod, &mod_id, &id_vaddr);
		if (len > 0) {
			w.id = mod_id;
			w.id_len = len;
		} else {
			w.crc = debuglink != NULL;
			w.crc32 = crc;
		}
		if (file_name && !stat(file_name, &main_st))
			w.main = &main_st;
	}
	dirs = strdup(s->debug_dirs);
	if (!dirs)
		goto out;
	for (d = strtok_r(dirs, ":", &save); d && fd < 0 && w.id; d = strtok_r(NULL, ":", &save))
		if (d[0] == '/')
			fd = debug_by_id(d, w.id, w.id_len, &w, debuginfo_file_name);
	if (fd >= 0 || !debuglink || !file_name)
		goto out;
	if (debuglink[0] == '/') { /* a dwz link may be absolute */
		fd = debug_try(debuglink, false, &w, debuginfo_file_name);
		goto out;
	}
	slash = strrchr(file_name, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file_name) : 1,
		 slash ? file_name : ".");
	for (i = 0; i < 2 && fd < 0; i++) {
		if (snprintf(path, sizeof(path), "%s%s/%s", dir, i ? "/.debug" : "", debuglink) <
		    (int)sizeof(path))
			fd = debug_try(path, false, &w, debuginfo_file_name);
	}
	/* DIR + the file's own directory, for each absolute directory of the list */
	strcpy(dirs, s->debug_dirs); /* strtok_r cut it */
	save = NULL;
	for (d = strtok_r(dirs, ":", &save); d && fd < 0; d = strtok_r(NULL, ":", &save))
		if (d[0] == '/' && dir[0] == '/' &&
		    snprintf(path, sizeof(path), "%s%s/%s", d, dir, debuglink) < (int)sizeof(path))
			fd = debug_try(path, true, &w, debuginfo_file_name);
out:
	free(dirs);
	free(alt_id);
	return fd;
}

