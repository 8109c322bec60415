// SPDX-License-Identifier: Apache-2.0
/* cfi_file: a CFI table as a cache entry, and the key of the file it describes. */
#include "cfi_file.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cfi_table.h"

#define CFI_FILE_MAGIC "GPCFITB\n"
#define NOTE_MAX (64u << 10)	/* bytes of a PT_NOTE segment read for the build id */
#define BUILD_ID_MAX 64

struct cfi_file_hdr {
	char magic[8];
	uint32_t version;	/* CFI_FILE_VERSION */
	uint32_t row_size;	/* sizeof(struct gp_cfi_row) */
	uint32_t nrows;
	uint32_t fdes, fdes_bad, fdes_debug;
	char key[CFI_FILE_KEY_MAX]; /* NUL-padded */
	uint64_t checksum;	/* of this header with checksum 0, then the rows */
};
_Static_assert(sizeof(struct cfi_file_hdr) == 136, "cfi_file_hdr layout changed");

/* FNV-1a, 64 bits, a word at a time: catches truncation and torn writes, not forgery. */
static uint64_t hash(uint64_t h, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	for (; len; p++, len--)
		h = (h ^ *p) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static uint64_t entry_hash(const struct cfi_file_hdr *hdr, const void *rows, size_t len)
{
	struct cfi_file_hdr h = *hdr;

	h.checksum = 0;
	return hash(hash(0xcbf29ce484222325ull, &h, sizeof(h)), rows, len);
}

/* The GNU build id in the notes n[0, len): its length, or 0. */
static size_t notes_build_id(const uint8_t *n, size_t len, size_t align, uint8_t *id)
{
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_at, desc_at, next;

		memcpy(&namesz, n + off, 4);
		memcpy(&descsz, n + off + 4, 4);
		memcpy(&type, n + off + 8, 4);
		name_at = off + 12;
		desc_at = name_at + ((namesz + align - 1) & ~(align - 1));
		next = desc_at + ((descsz + align - 1) & ~(align - 1));
		if (namesz > len || descsz > len || desc_at > len || next > len || next <= off)
			return 0;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(n + name_at, "GNU", 4) &&
		    descsz && descsz <= BUILD_ID_MAX) {
			memcpy(id, n + desc_at, descsz);
			return descsz;
		}
		off = next;
	}
	return 0;
}

/* The build id from the file's PT_NOTE segments (what strip keeps): its length, or 0. */
static size_t file_build_id(int fd, uint8_t *id)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint8_t *buf;
	size_t n = 0;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph))
		return 0;
	buf = malloc(NOTE_MAX);
	if (!buf)
		return 0;
	for (unsigned int i = 0; i < eh.e_phnum && !n; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			break;
		if (ph.p_type != PT_NOTE || !ph.p_filesz || ph.p_filesz > NOTE_MAX ||
		    pread(fd, buf, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz)
			continue;
		n = notes_build_id(buf, ph.p_filesz, ph.p_align == 8 ? 8 : 4, id);
	}
	free(buf);
	return n;
}

int cfi_file__key(int fd, char key[CFI_FILE_KEY_MAX])
{
	uint8_t id[BUILD_ID_MAX];
	struct stat sb;
	size_t n, i;
	int len;

	if (fstat(fd, &sb))
		return -errno;
	if (!S_ISREG(sb.st_mode))
		return -EINVAL;
	n = file_build_id(fd, id);
	if (n) {
		memcpy(key, "b-", 2);
		for (i = 0; i < n; i++)
			snprintf(key + 2 + 2 * i, 3, "%02x", id[i]);
		len = snprintf(key + 2 + 2 * n, CFI_FILE_KEY_MAX - 2 - 2 * n, "-%llu",
			       (unsigned long long)sb.st_size);
		len += (int)(2 + 2 * n);
	} else {
		len = snprintf(key, CFI_FILE_KEY_MAX, "i-%llx-%llu-%llu-%lld.%09ld",
			       (unsigned long long)sb.st_dev, (unsigned long long)sb.st_ino,
			       (unsigned long long)sb.st_size, (long long)sb.st_mtim.tv_sec,
			       (long)sb.st_mtim.tv_nsec);
	}
	return len > 0 && len < CFI_FILE_KEY_MAX ? 0 : -ENAMETOOLONG;
}

int cfi_file__encode(const struct cfi_table *t, const char *key, void **buf, size_t *len)
{
	struct cfi_table_stats st;
	struct cfi_file_hdr hdr;
	const struct gp_cfi_row *rows;
	uint32_t nrows;
	size_t rows_len;
	uint8_t *out;

	*buf = NULL;
	*len = 0;
	if (strlen(key) >= CFI_FILE_KEY_MAX)
		return -EINVAL;
	rows = cfi_table__rows(t, &nrows);
	cfi_table__stats(t, &st);
	rows_len = (size_t)nrows * sizeof(*rows);
	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, CFI_FILE_MAGIC, sizeof(hdr.magic));
	hdr.version = CFI_FILE_VERSION;
	hdr.row_size = sizeof(*rows);
	hdr.nrows = nrows;
	hdr.fdes = st.fdes;
	hdr.fdes_bad = st.fdes_bad;
	hdr.fdes_debug = st.fdes_debug;
	strncpy(hdr.key, key, sizeof(hdr.key) - 1);
	hdr.checksum = entry_hash(&hdr, rows, rows_len);
	out = malloc(sizeof(hdr) + rows_len);
	if (!out)
		return -ENOMEM;
	memcpy(out, &hdr, sizeof(hdr));
	if (rows_len)
		memcpy(out + sizeof(hdr), rows, rows_len);
	*buf = out;
	*len = sizeof(hdr) + rows_len;
	return 0;
}

int cfi_file__decode(const void *buf, size_t len, const char *key, struct cfi_table **out)
{
	const uint8_t *p = buf;
	struct cfi_file_hdr hdr;
	struct cfi_table_stats fdes = { 0 };
	const struct gp_cfi_row *rows = NULL;
	struct gp_cfi_row *copy = NULL;
	size_t rows_len;
	int err;

	*out = NULL;
	if (len < sizeof(hdr))
		return -EBADMSG;
	memcpy(&hdr, p, sizeof(hdr));
	if (memcmp(hdr.magic, CFI_FILE_MAGIC, sizeof(hdr.magic)))
		return -EBADMSG;
	if (hdr.version != CFI_FILE_VERSION || hdr.row_size != sizeof(struct gp_cfi_row))
		return -ESTALE;
	rows_len = (size_t)hdr.nrows * sizeof(struct gp_cfi_row);
	if (len - sizeof(hdr) != rows_len || hdr.key[CFI_FILE_KEY_MAX - 1] ||
	    strcmp(hdr.key, key))
		return -EBADMSG;
	if (entry_hash(&hdr, p + sizeof(hdr), rows_len) != hdr.checksum)
		return -EBADMSG;
	rows = (const struct gp_cfi_row *)(p + sizeof(hdr));
	if (rows_len && ((uintptr_t)rows % _Alignof(struct gp_cfi_row))) {
		/* a buffer of any alignment */
		copy = malloc(rows_len);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, rows, rows_len);
		rows = copy;
	}
	fdes.fdes = hdr.fdes;
	fdes.fdes_bad = hdr.fdes_bad;
	fdes.fdes_debug = hdr.fdes_debug;
	err = cfi_table__from_rows(rows, hdr.nrows, &fdes, out);
	free(copy);
	return err == -EINVAL ? -EBADMSG : err;
}
