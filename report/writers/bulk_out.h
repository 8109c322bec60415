/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bulk_out.h - a large output file written around the page cache.
 *
 * A timeline of 10M GPU records is over a gigabyte. Written the usual way,
 * the kernel copies every byte into page cache pages it first has to find
 * and map, on the writing core: more CPU time than encoding the bytes, and
 * a gigabyte of cache the user did not ask to keep. bulk_out writes with
 * O_DIRECT instead, from four aligned buffers in turn: the device takes the
 * full ones (POSIX AIO, two or more writes in flight) while the caller
 * fills the next, and the CPU cost per byte is about a tenth. Where the file system refuses O_DIRECT (at open or at
 * the first write) it falls back to plain write(2); the file is the same.
 *
 * The caller encodes straight into the buffer it is given:
 *
 *	buf = bulk_out__buf(o);                 BULK_OUT_CAP bytes, len 0
 *	... write len bytes at buf ...
 *	buf = bulk_out__flush(o, len, &len);    a buffer again, len bytes
 *	                                        carried over at its start
 *	err = bulk_out__close(o, len);          the last len bytes; frees o
 */
#ifndef GPUPERF_BULK_OUT_H
#define GPUPERF_BULK_OUT_H

#include <stddef.h>
#include <stdint.h>

/* Bytes in each buffer; flush() carries over fewer than 4096 of them. */
#define BULK_OUT_CAP (4u << 20)

struct bulk_out;

/*
 * Create (truncate) path for writing, with O_DIRECT if direct and the file
 * system allows: NULL with errno set on failure. A link, FIFO, device or
 * hard-linked file at path is refused (gp_file__output()).
 */
struct bulk_out *bulk_out__new(const char *path, int direct);

/* The same on an open descriptor, which the bulk_out then owns (closed on failure too). */
struct bulk_out *bulk_out__new_fd(int fd, int direct);

/* The first buffer to fill. */
uint8_t *bulk_out__buf(struct bulk_out *o);

/*
 * The current buffer holds len bytes: write them out (all but an unaligned
 * tail, which moves to the start of the next buffer) and return the next
 * buffer, with *carried set to the bytes already at its start. NULL on a
 * write error (errno set); later calls keep failing.
 */
uint8_t *bulk_out__flush(struct bulk_out *o, size_t len, size_t *carried);

/* Whether the file is being written with O_DIRECT. */
int bulk_out__direct(const struct bulk_out *o);

/*
 * Write the current buffer's len bytes, wait for every write, close and
 * free o (NULL is fine). 0, or -errno of the first failure.
 */
int bulk_out__close(struct bulk_out *o, size_t len);

#endif /* GPUPERF_BULK_OUT_H */
