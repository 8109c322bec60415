/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gp_reader.h - a validating iterator over a gpuperf trace.
 *
 * Every length, count and id is checked before use: a truncated, corrupt or
 * wrong-version file gives an error naming the file and the byte offset,
 * never a crash, a hang or an allocation larger than GP_CHUNK_MAX_RAW.
 * Memory: one chunk buffer, plus the string table (at most 2^19 strings and
 * 128 MiB of string data; strings beyond that are counted, not kept).
 *
 * A corrupt chunk is skipped: gp_reader__next() reports it once (GP_READ_ERROR
 * with the message in gp_reader__error()), and the next call goes on with the
 * following chunk that is intact. A truncated tail ends the iteration
 * (GP_READ_ERROR, then GP_READ_EOF). So a caller that keeps calling next()
 * until GP_READ_EOF gets every record of every intact chunk.
 *
 * Records handed out point into the reader's chunk buffer and stay valid
 * until the next call. They are at least gp_rec_min_size(type) bytes (the
 * size of the 1.0 struct), stack counts match their size and string records
 * are NUL-terminated. Records of types this build does not know are skipped
 * (counted in skipped_records). After GP_READ_EOF, next() keeps returning
 * GP_READ_EOF.
 *
 * One reader is used by one thread.
 */
#ifndef GPUPERF_GP_READER_H
#define GPUPERF_GP_READER_H

#include <stdint.h>
#include <stddef.h>

#include "gp_record.h"

struct gp_reader;

enum gp_read_status {
	GP_READ_ERROR = -1, /* see gp_reader__error(); calling next() again continues */
	GP_READ_EOF = 0,
	GP_READ_RECORD = 1,
};

/*
 * Open `path` and validate its header. On failure returns NULL, sets errno
 * and, when errbuf is given, writes "cannot read 'path': why" into it.
 */
struct gp_reader *gp_reader__open(const char *path, char *errbuf, size_t errlen);
/* Same over a caller-owned buffer (fuzzing, tests); `name` is used in messages. */
struct gp_reader *gp_reader__open_mem(const void *data, size_t size, const char *name,
				      char *errbuf, size_t errlen);
void gp_reader__free(struct gp_reader *r);

const struct gp_file_header *gp_reader__header(const struct gp_reader *r);

/* Next record: GP_READ_RECORD and *rec set, GP_READ_EOF, or GP_READ_ERROR. */
int gp_reader__next(struct gp_reader *r, const struct gp_rec_hdr **rec);

/*
 * The records next() would hand out up to the end of their chunk, all at
 * once (for loops over millions of records): GP_READ_RECORD with *recs
 * and *len (> 0) set, GP_READ_EOF or GP_READ_ERROR, as next() gives them.
 * Each record is a struct gp_rec_hdr followed by its body, hdr.size bytes
 * in all, checked as next()'s are; records of types this build does not
 * know are among them (hdr.type >= GP_REC_TYPE_COUNT): skip those.
 */
int gp_reader__next_chunk(struct gp_reader *r, const uint8_t **recs, size_t *len);

/* Last error: "'path': offset N: what is wrong". Empty string if none. */
const char *gp_reader__error(const struct gp_reader *r);

/* Counts for reports. */
struct gp_reader_stats {
	uint64_t records;	 /* records handed out (by next(), or in chunks by next_chunk()) */
	uint64_t chunks;	 /* intact chunks read */
	uint64_t bad_chunks;	 /* chunks skipped as corrupt */
	uint64_t skipped_records; /* records of unknown type skipped */
	uint64_t bad_records;	 /* records rejected by validation */
	uint64_t strings_dropped; /* string definitions not kept (table caps) */
	int truncated;		 /* the file ends inside a chunk */
	int clean_end;		 /* GP_REC_END was seen */
};
void gp_reader__stats(const struct gp_reader *r, struct gp_reader_stats *st);

/* String id -> string, from the GP_REC_STRING records seen so far; NULL if unknown. */
const char *gp_reader__string(const struct gp_reader *r, uint32_t id);

#endif /* GPUPERF_GP_READER_H */
