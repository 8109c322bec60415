/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kallsyms: the kernel symbols a recording needs, resolved while the agent
 * is root (a user reads zeros in /proc/kallsyms) and written as a small
 * DIR/kallsyms in /proc/kallsyms's own format, not a 5 MB copy of it.
 */
#ifndef GPUPERF_CPU_AGENT_KALLSYMS_H
#define GPUPERF_CPU_AGENT_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The distinct kernel addresses of a recording. Zeroed: empty. */
struct kip_set {
	uint64_t *slots; /* open addressing; 0 is an empty slot (no kernel text there) */
	size_t cap, n;
	bool full;	 /* an address was not kept (cap or memory): write every symbol */
};

/* Remember @ip. At KIP_MAX addresses, or out of memory, the set is full. */
void kip_set__add(struct kip_set *s, uint64_t ip);
void kip_set__free(struct kip_set *s);

#define KIP_MAX (1u << 20)

/*
 * Write to @fd, in /proc/kallsyms's format and address order, the text
 * symbols of @src (/proc/kallsyms) that cover the addresses of @s -- the
 * last one at or below each -- and the symbol after each (where its range
 * ends), so that a reader that names an address by the last symbol at or
 * below it names every recorded address as the whole table would. Every
 * text symbol when @s is full. *@nsyms: the symbols to write. 0 or -errno.
 */
int kallsyms__write_needed(const char *src, const struct kip_set *s, int fd, uint64_t *nsyms);

/*
 * The same in two halves: _start reads and sorts @src on a thread of its
 * own while the caller goes on, _write_needed waits for it and writes as
 * kallsyms__write_needed(). NULL: no memory. With @background the thread
 * runs at SCHED_IDLE (only on CPU time nothing else wants) until waited for.
 */
struct ksym_snap;

struct ksym_snap *kallsyms__snap_start(const char *src, bool background);
/*
 * Does the table name every address of @s as a read now would? The
 * kernel's own text ([_stext, _etext)) does not change while it runs;
 * modules, BPF programs and trampolines come and go, so an address
 * outside it is not covered (nor are any when the table has no such
 * bounds or @s is full). Waits for the read first.
 */
/*
 * kallsyms__snap_start() with a cache of the kernel's own text symbols
 * ([_stext, _etext]: they do not change while the kernel runs; the rest of
 * the table does, and is never taken from a read at start anyway) kept in
 * @cache_dfd's file KSYM_CACHE_FILE for the boot named @boot_id
 * (/proc/sys/kernel/random/boot_id: addresses move at each boot). The
 * table comes from the cache when it holds this boot's, else from @src,
 * whose text part then replaces the cache. The addresses are what KASLR
 * hides from users: @cache_dfd must be a directory only root can read and
 * write. @cache_dfd < 0 or no @boot_id: no cache.
 */
#define KSYM_CACHE_FILE "kallsyms"
#define KSYM_BOOT_ID_MAX 64
struct ksym_snap *kallsyms__snap_start_cached(const char *src, int cache_dfd, const char *boot_id,
					      bool background);

/* How the table was had: KSYM_CACHE_* or the -errno of a cache write that failed. Waits. */
#define KSYM_CACHE_NONE 0	/* no cache, or nothing to keep in it */
#define KSYM_CACHE_HIT 1	/* read from the cache */
#define KSYM_CACHE_WRITTEN 2	/* read from the source, then cached */
int kallsyms__snap_cache_state(struct ksym_snap *k);

bool kallsyms__snap_covers(struct ksym_snap *k, const struct kip_set *s);
int kallsyms__snap_write_needed(struct ksym_snap *k, const struct kip_set *s, int fd,
				uint64_t *nsyms);
void kallsyms__snap_free(struct ksym_snap *k);

#endif /* GPUPERF_CPU_AGENT_KALLSYMS_H */
