/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cfi_cache.h - CFI tables kept on disk between runs, one file per ELF
 * file (KEY.cfi, KEY from cfi_file__key(): build id, else identity), in a
 * directory given as an open descriptor ($XDG_CACHE_HOME/gpuperf, made and
 * opened by its owner's side: see cli/record_agent.c).
 *
 * The directory belongs to a user, and the process using it may be root
 * acting for that user: so every name is opened relative to the directory
 * descriptor and never through a link (common/gp_file.h); an entry is read
 * only when it is a regular file, and whatever it holds is checked
 * (cfi_file__decode) before it is used: a corrupt, truncated or foreign
 * entry is counted and rebuilt, never trusted. An entry is written to a
 * new temporary name (O_EXCL|O_NOFOLLOW, handed to the owner by its
 * descriptor) and renamed over KEY.cfi, so a reader sees a whole entry or
 * none, and a link planted under either name is replaced, not followed.
 * After each write the oldest entries (by last use) go until the directory
 * holds at most max_bytes of them.
 *
 * A descriptor rather than a helper process that becomes the user and
 * serves the cache: the agent would pass tables through a socket and wait
 * on a process the user can stop, for no right the descriptor does not
 * already confine.
 *
 * One thread at a time per cache; several processes may share a directory.
 */
#ifndef GPUPERF_UNWIND_CFI_CACHE_H
#define GPUPERF_UNWIND_CFI_CACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct cfi_cache;
struct cfi_table;

#define CFI_CACHE_DEF_MAX_BYTES (256ull << 20)

struct cfi_cache_opts {
	uint64_t max_bytes;	/* entries kept at most; 0: CFI_CACHE_DEF_MAX_BYTES */
	bool set_owner;		/* hand each file written to owner_uid/gid; the directory must be theirs */
	uid_t owner_uid;
	gid_t owner_gid;
};

struct cfi_cache_stats {
	uint64_t hits;		/* tables read from an entry */
	uint64_t misses;	/* no entry: built from the file */
	uint64_t bad;		/* entries ignored: corrupt, truncated, another version, not a file */
	uint64_t written;	/* entries written */
	uint64_t write_errors;	/* entries that could not be written (first errno in write_error) */
	int write_error;
	uint64_t evicted;	/* entries removed to stay under max_bytes */
};

/*
 * A cache over the directory @dir_fd (duplicated: the caller keeps its
 * own), which must belong to opts->owner_uid when set_owner, else to our
 * euid (-EPERM otherwise; -ENOTDIR). NULL opts: the defaults. 0 or -errno.
 */
int cfi_cache__open(int dir_fd, const struct cfi_cache_opts *opts, struct cfi_cache **out);
void cfi_cache__free(struct cfi_cache *c);

/*
 * The table cached under @key: 0 with *out (the caller frees it),
 * -ENOENT when there is none, -EBADMSG when the entry was not usable
 * (counted in stats.bad; a cfi_cache__put() replaces it), -ENOMEM.
 */
int cfi_cache__get(struct cfi_cache *c, const char *key, struct cfi_table **out);

/* Store @t under @key, then evict. 0 or -errno (counted in stats.write_errors). */
int cfi_cache__put(struct cfi_cache *c, const char *key, const struct cfi_table *t);

void cfi_cache__stats(const struct cfi_cache *c, struct cfi_cache_stats *st);

#endif /* GPUPERF_UNWIND_CFI_CACHE_H */
