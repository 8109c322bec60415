/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gp_writer.h - writes a gpuperf trace: the file header, then records
 * batched into independently zlib-compressed, checksummed chunks.
 *
 * Ownership and threads: a gp_writer is used by one thread at a time (the
 * producer's writer thread); it takes no locks. Memory is bounded by about
 * twice the chunk size plus the string table (one entry per distinct
 * string).
 *
 * Writing a record:
 *	struct gp_rec_kernel *k = gp_writer__reserve(w, GP_REC_KERNEL, sizeof(*k));
 *	k->name_str = gp_writer__intern(w, name);   // after reserve, never before
 *	k->start = ...;
 *	gp_writer__commit(w);
 * reserve() may flush a full chunk; intern() never does, so the string's
 * definition and the record that uses it always land in the same chunk.
 *
 * Errors: int functions return 0 or -errno; reserve returns NULL with errno
 * set. After a write error the writer stays usable and counts what it could
 * not store (gp_writer__lost(), gp_writer__lost_cause()); it also keeps
 * that count and cause in the file's header (rewritten in place, which
 * works on a full disk), so readers learn of a loss no record could carry.
 * A chunk that would take the file past RLIMIT_FSIZE is not written (lost
 * with EFBIG): the kernel would send SIGXFSZ.
 */
#ifndef GPUPERF_GP_WRITER_H
#define GPUPERF_GP_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gp_writer;

struct gp_writer_opts {
	uint16_t producer;     /* GP_PRODUCER_* */
	uint16_t clock_id;     /* GP_CLOCK_*; 0 (unset) means GP_CLOCK_MONOTONIC */
	uint32_t pid;	       /* 0: getpid() */
	uint32_t chunk_size;   /* raw bytes per chunk; 0: 256 KiB; clamped to [4 KiB, 4 MiB] */
	int level;	       /* zlib level 1..9; 0: 3 (bench/RESULTS.md: size vs speed) */
	const char *producer_version; /* NULL: "gpuperf <version>" */
	int truncate;	       /* gp_writer__open: replace an existing file */
};

/* Create the file (O_EXCL unless opts->truncate) and write its header. */
struct gp_writer *gp_writer__open(const char *path, const struct gp_writer_opts *opts);
/*
 * Create `name` relative to the directory fd `dir_fd` (O_EXCL unless
 * opts->truncate; never through a symbolic link: O_NOFOLLOW), and write its
 * header. For a directory someone else can write to.
 */
struct gp_writer *gp_writer__openat(int dir_fd, const char *name, const struct gp_writer_opts *opts);
/* Same on an already open fd; the writer owns it from here and closes it. */
struct gp_writer *gp_writer__fdopen(int fd, const struct gp_writer_opts *opts);

/*
 * Space for one record of `size` bytes (header included; rounded up to 8),
 * zeroed, with its header filled in. Valid until commit. NULL and errno
 * EINVAL when size is out of range for `type`. Types this build does not
 * know (>= GP_REC_TYPE_COUNT) are accepted, for forward-compatibility tests.
 */
void *gp_writer__reserve(struct gp_writer *w, uint16_t type, uint32_t size);
/* Finish the reserved record. */
void gp_writer__commit(struct gp_writer *w);
/* reserve + copy + commit of a complete record (its hdr is rewritten). */
int gp_writer__append(struct gp_writer *w, uint16_t type, const void *rec, uint32_t size);

/*
 * The id of string `s` (truncated to GP_STR_MAX_LEN), defined in the
 * current chunk. NULL or "" gives 0. Returns 0 only on allocation failure
 * (counted as lost).
 */
uint32_t gp_writer__intern(struct gp_writer *w, const char *s);

/*
 * The id of the stack of nr_user user then nr_kernel kernel addresses at
 * ips (innermost first), defined in the current chunk (a GP_REC_STACK
 * ahead of its records), for a GP_REC_LAUNCH_SITE_ID: like intern(), after
 * reserve, never before. The same frames get the same id while the
 * writer's table keeps them (65536 stacks, 2M frames; then it starts
 * again, with new ids). 0 for an empty or too deep stack, or on allocation
 * failure (counted as lost).
 */
uint32_t gp_writer__intern_stack(struct gp_writer *w, const uint64_t *ips, uint16_t nr_user,
				 uint16_t nr_kernel);

/* Compress and write the current chunk now (a no-op when it is empty). */
int gp_writer__flush(struct gp_writer *w);
/* Write GP_REC_END (stamped CLOCK_MONOTONIC now), flush, close, free. Accepts NULL. */
int gp_writer__close(struct gp_writer *w);
/* Close the fd without GP_REC_END (what a killed producer leaves). */
void gp_writer__abandon(struct gp_writer *w);

/*
 * While on, chunks are written as deflate's stored blocks, without
 * compression: the injection library's writer spends 25-35% less CPU per
 * record, and the chunks take 3 to 10 times the bytes. For a producer that
 * has fallen behind (that writer with a backlog of CUPTI buffers), or is
 * told to spend the least CPU; readers see no difference.
 */
void gp_writer__set_stored(struct gp_writer *w, bool on);
uint64_t gp_writer__chunks(const struct gp_writer *w, uint64_t *stored); /* written so far */
uint64_t gp_writer__records(const struct gp_writer *w); /* committed so far */
uint64_t gp_writer__lost(const struct gp_writer *w);	/* not stored (I/O or memory) */
/* errno of the first record not stored (ENOSPC, EFBIG, EIO, ENOMEM, ...); 0: none. */
int gp_writer__lost_cause(const struct gp_writer *w);
uint64_t gp_writer__bytes(const struct gp_writer *w);	/* written to the file */

#endif /* GPUPERF_GP_WRITER_H */
