/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cfi_file.h - a CFI table (cfi_table.h) as bytes, for the on-disk cache
 * of tables (cfi_cache.h): the name a file's table is kept under, and a
 * versioned, checksummed serialization of its rows.
 *
 * An entry is a fixed header (magic, version, row size, row count, the
 * FDE counts of cfi_table_stats, the key it was written under, a 64-bit
 * checksum of everything else) and the rows, little-endian as in memory
 * (x86-64 only, as the rows are). Decoding trusts nothing: a wrong magic,
 * version, size, key or checksum, or rows that are not a valid table
 * (cfi_table__from_rows) reject the entry.
 *
 * Pure functions (the key reads the file through pread/fstat only): any
 * thread, no state; libc only, so the injection library can use them.
 */
#ifndef GPUPERF_UNWIND_CFI_FILE_H
#define GPUPERF_UNWIND_CFI_FILE_H

#include <stddef.h>

struct cfi_table;

/*
 * 2: short gaps after an entry state continue it; 3: rbx's rules, GP_CFI_RBX
 * rows; 4: an END row at an ELF entry point no FDE covers; 5: rows for
 * _init and _fini, which have no FDE
 */
#define CFI_FILE_VERSION 5
#define CFI_FILE_KEY_MAX 96 /* with the NUL */

/*
 * The key of the ELF file open at @fd: "b-HEX-SIZE" (its GNU build id and
 * size: a stripped copy, whose .debug_frame is gone, is another key), or
 * where it has no build id "i-DEV-INODE-SIZE-MTIME" (its identity; any
 * change of the file changes the key). Usable as a file name. 0 or -errno.
 */
int cfi_file__key(int fd, char key[CFI_FILE_KEY_MAX]);

/* The entry of @t under @key: *buf is malloc'ed, *len its size. 0 or -ENOMEM/-EINVAL. */
int cfi_file__encode(const struct cfi_table *t, const char *key, void **buf, size_t *len);

/*
 * The table of an entry read back (@buf, @len: untrusted), which must have
 * been written under @key: 0 with *out, -ESTALE for another version of
 * this format (or another row layout), -EBADMSG for anything else that is
 * not a whole, intact entry of @key (truncated, corrupt, foreign), -ENOMEM.
 */
int cfi_file__decode(const void *buf, size_t len, const char *key, struct cfi_table **out);

#endif /* GPUPERF_UNWIND_CFI_FILE_H */
