// SPDX-License-Identifier: Apache-2.0
/* gp_reader.c - validating iterator over a gpuperf trace. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zlib.h>

#include "gp_alloc.h"
#include "gp_codec.h"
#include "gp_pack.h"
#include "gp_reader.h"
#include "u64map.h"

/*
 * Caps on what a (possibly hostile) file can make us keep. The entry cap
 * keeps the id table itself within GP_CHUNK_MAX_RAW (2^20 slots of 16
 * bytes at most); strings past either cap are not remembered and are
 * counted in gp_reader_stats.strings_dropped.
 */
#define STRTAB_MAX_ENTRIES (1u << 19)
#define STRTAB_MAX_BYTES (128u << 20)


struct gp_reader {
	const uint8_t *data;
	size_t size;
	size_t map_len; /* > 0 when data is our mmap */
	char name[256];

	struct gp_file_header hdr;
	size_t off; /* next chunk header */
	int done;   /* no further chunk will be read */

	uint8_t *raw;
	size_t raw_cap, raw_len, raw_pos;
	size_t known_left; /* records of known types in raw past raw_pos */
	uint8_t *pack; /* format 2: the inflated, still packed chunk */
	size_t pack_cap;
	struct gp_codec codec;
	struct libdeflate_decompressor *ld; /* raw inflate, reused chunk after chunk */

	struct u64map str_of; /* string id -> index + 1 in strs */
	char **strs;
	size_t strs_n, strs_alloc;
	uint64_t strs_bytes;

	struct gp_reader_stats st;
	char err[512];

	/* gp_rec_min_size() and gp_rec_stack_layout() by type, looked up once:
	 * check_record() runs for every record */
	struct rec_layout {
		uint32_t min_size;
		uint32_t fixed;	 /* 0: no stack */
		uint32_t nr_off;
	} layout[GP_REC_TYPE_COUNT];
};

static void set_err(struct gp_reader *r, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(struct gp_reader *r, size_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->err, sizeof(r->err), "'%s': offset %zu: ", r->name, off);
	if (n < 0 || (size_t)n >= sizeof(r->err))
		return;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
}

static int check_header(struct gp_reader *r, char *errbuf, size_t errlen)
{
	const struct gp_file_header *h = (const void *)r->data;
	uint32_t crc;
	const char *why = NULL;
	char tmp[128];

	if (r->size == 0) {
		why = "empty file (the producer never wrote its header)";
	} else if (r->size < sizeof(*h)) {
		why = "file too short for a gpuperf trace header (truncated)";
	} else if (memcmp(h->magic, GP_FILE_MAGIC, sizeof(h->magic)) != 0) {
		why = "not a gpuperf trace (bad magic)";
	} else {
		memcpy(&r->hdr, h, sizeof(r->hdr));
		crc = (uint32_t)crc32(0, (const Bytef *)h, offsetof(struct gp_file_header, header_crc));
		if (crc != r->hdr.header_crc) {
			why = "trace header checksum mismatch (corrupt header)";
		} else if (r->hdr.version_major < GP_FORMAT_MAJOR_OLDEST ||
			   r->hdr.version_major > GP_FORMAT_MAJOR) {
			snprintf(tmp, sizeof(tmp),
				 "trace format version %u.%u, this gpuperf reads %u.x to %u.x: use a matching gpuperf",
				 r->hdr.version_major, r->hdr.version_minor, GP_FORMAT_MAJOR_OLDEST,
				 GP_FORMAT_MAJOR);
			why = tmp;
		} else if (r->hdr.clock_id != GP_CLOCK_MONOTONIC && r->hdr.clock_id != GP_CLOCK_REALTIME) {
			why = "unknown clock id in the trace header (corrupt header?)";
		} else if (r->hdr.header_size < sizeof(*h) || r->hdr.header_size > r->size) {
			why = "trace header size out of range (corrupt header)";
		}
	}
	if (why) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "cannot read '%s': %s", r->name, why);
		return -EINVAL;
	}
	r->off = r->hdr.header_size;
	return 0;
}

static struct gp_reader *reader_new(const char *name)
{
	struct gp_reader *r = calloc(1, sizeof(*r));
	uint16_t t;

	if (!r)
		return NULL;
	snprintf(r->name, sizeof(r->name), "%s", name ? name : "(memory)");
	for (t = 0; t < GP_REC_TYPE_COUNT; t++) {
		struct rec_layout *l = &r->layout[t];

		l->min_size = gp_rec_min_size(t);
		if (!gp_rec_stack_layout(t, &l->fixed, &l->nr_off))
			l->fixed = 0;
	}
	return r;
}

struct gp_reader *gp_reader__open_mem(const void *data, size_t size, const char *name,
				      char *errbuf, size_t errlen)
{
	struct gp_reader *r = reader_new(name);

	if (!r) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "cannot read '%s': out of memory", name);
		errno = ENOMEM;
		return NULL;
	}
	r->data = data;
	r->size = size;
	if (check_header(r, errbuf, errlen)) {
		gp_reader__free(r);
		errno = EINVAL;
		return NULL;
	}
	return r;
}

struct gp_reader *gp_reader__open(const char *path, char *errbuf, size_t errlen)
{
	struct gp_reader *r;
	struct stat sb;
	void *map;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "cannot open '%s': %s", path, strerror(err));
		errno = err;
		return NULL;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		err = S_ISDIR(sb.st_mode) ? EISDIR : EINVAL;
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "cannot read '%s': %s", path,
				 err == EISDIR ? "is a directory" : "not a regular file");
		close(fd);
		errno = err;
		return NULL;
	}
	map = NULL;
	if (sb.st_size > 0) {
		map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			err = errno;
			if (errbuf && errlen)
				snprintf(errbuf, errlen, "cannot map '%s': %s", path, strerror(err));
			close(fd);
			errno = err;
			return NULL;
		}
	}
	close(fd);
	r = gp_reader__open_mem(map, (size_t)sb.st_size, path, errbuf, errlen);
	if (!r) {
		err = errno;
		if (map)
			munmap(map, (size_t)sb.st_size);
		errno = err;
		return NULL;
	}
	r->map_len = (size_t)sb.st_size;
	return r;
}

void gp_reader__free(struct gp_reader *r)
{
	uint32_t i;

	if (!r)
		return;
	if (r->map_len)
		munmap((void *)r->data, r->map_len);
	for (i = 0; i < r->strs_n; i++)
		free(r->strs[i]);
	free(r->strs);
	u64map_free(&r->str_of);
	free(r->raw);
	free(r->pack);
	libdeflate_free_decompressor(r->ld);
	free(r);
}

/*
 * Inflates a chunk's deflate data into at most out_cap bytes; returns the
 * length or -1. libdeflate, 8% faster than zlib's inflate over a whole
 * trace (bench/RESULTS.md). Format 1 wraps it in a zlib stream, which is
 * inflated raw, without the Adler-32 of the output: the chunk's CRC-32
 * already covers the compressed bytes, and the checksum pass over every
 * decompressed byte cost a third of reading a trace (the stream still has
 * to be well-formed and end with its 4-byte trailer). Format 2 writes raw
 * deflate, nothing after it.
 */
static long inflate_chunk(struct gp_reader *r, uint8_t *out, size_t out_cap, const uint8_t *in,
			  size_t in_len)
{
	int zlib_wrapped = r->hdr.version_major == 1;
	size_t skip = zlib_wrapped ? 2 : 0, used = 0, made = 0;

	/* zlib header: CM 8 (deflate), window <= 32K, no preset dictionary, FCHECK. */
	if (zlib_wrapped && (in_len < 2 + 4 || (in[0] & 0x0f) != 8 || (in[0] >> 4) > 7 ||
			     (in[1] & 0x20) || ((unsigned)in[0] << 8 | in[1]) % 31))
		return -1;
	if (!r->ld) {
		r->ld = libdeflate_alloc_decompressor();
		if (!r->ld)
			return -1;
	}
	/* a whole chunk at once, which is libdeflate's model: damaged data is
	 * refused (BAD_DATA), never read or written past the buffers */
	if (libdeflate_deflate_decompress_ex(r->ld, in + skip, in_len - skip, out, out_cap, &used,
					    &made) != LIBDEFLATE_SUCCESS)
		return -1;
	if (zlib_wrapped ? in_len - skip - used < 4 : used != in_len)
		return -1;
	return (long)made;
}


/* The chunk's records, decompressed (and unpacked) into r->raw: 0 or -1. */
static int expand_chunk(struct gp_reader *r, const struct gp_chunk_header *ch, const uint8_t *payload)
{
	size_t packed_max = ch->rsize + ch->rsize / 8;
	long n;

	if (r->hdr.version_major == 1) {
		n = inflate_chunk(r, r->raw, ch->rsize, payload, ch->csize);
		return n == (long)ch->rsize ? 0 : -1;
	}
	n = inflate_chunk(r, r->pack, packed_max, payload, ch->csize);
	if (n < 0)
		return -1;
	return gp_unpack(r->pack, (size_t)n, r->raw, ch->rsize);
}

const struct gp_file_header *gp_reader__header(const struct gp_reader *r)
{
	return &r->hdr;
}

const char *gp_reader__error(const struct gp_reader *r)
{
	return r->err;
}

void gp_reader__stats(const struct gp_reader *r, struct gp_reader_stats *st)
{
	*st = r->st;
}


const char *gp_reader__string(const struct gp_reader *r, uint32_t id)
{
	uint32_t i = id ? u64map_get(&r->str_of, id) : 0;

	return i ? r->strs[i - 1] : NULL;
}

/* Keep the first definition of each id; a full table just stops growing. */
static void remember_string(struct gp_reader *r, const struct gp_rec_string *s)
{
	char *copy;

	if (gp_reader__string(r, s->id))
		return;
	if (r->strs_n >= STRTAB_MAX_ENTRIES || r->strs_bytes + s->len > STRTAB_MAX_BYTES) {
		r->st.strings_dropped++;
		return;
	}
	if (GP_ALLOC_GROW(r->strs, r->strs_n + 1, r->strs_alloc))
		return;
	copy = malloc(s->len + 1);
	if (!copy)
		return;
	if (u64map_put(&r->str_of, s->id, (uint32_t)r->strs_n + 1)) {
		free(copy);
		return;
	}
	memcpy(copy, s->data, s->len + 1);
	r->strs[r->strs_n++] = copy;
	r->strs_bytes += s->len;
}

/* Check one record of a decompressed chunk; NULL if it is sound. */
static const char *check_record(const struct gp_reader *r, const uint8_t *p, size_t left,
				uint32_t *size)
{
	const struct rec_layout *l;
	struct gp_rec_hdr h;

	if (left < sizeof(h))
		return "record header runs past the chunk";
	memcpy(&h, p, sizeof(h));
	*size = h.size;
	if (h.size < sizeof(h) || h.size % 8 || h.size > left || h.size > GP_REC_MAX_SIZE)
		return "record size out of range";
	if (h.type == 0)
		return "record type 0";
	if (h.type >= GP_REC_TYPE_COUNT)
		return NULL; /* a newer minor version's type: skipped by size */
	l = &r->layout[h.type];
	if (h.size < l->min_size)
		return "record shorter than its type";
	if (l->fixed) {
		uint16_t nr[2];

		memcpy(nr, p + l->nr_off, sizeof(nr));
		if (nr[0] > GP_STACK_MAX_DEPTH || nr[1] > GP_STACK_MAX_DEPTH)
			return "stack deeper than the format allows";
		if (h.size != l->fixed + 8u * (nr[0] + nr[1]))
			return "stack frame count does not match record size";
		if (h.type == GP_REC_STACK && !((const struct gp_rec_stack *)(const void *)p)->id)
			return "stack record with id 0";
	} else if (h.type == GP_REC_STRING) {
		struct gp_rec_string s;

		memcpy(&s, p, sizeof(s));
		if (s.id == 0 || s.len > GP_STR_MAX_LEN ||
		    sizeof(s) + (size_t)s.len + 1 > h.size ||
		    p[sizeof(s) + s.len] != '\0' || memchr(p + sizeof(s), '\0', s.len))
			return "malformed string record";
	}
	return NULL;
}

/* Scan forward for the next chunk header whose own checksum holds. */
static size_t resync(const struct gp_reader *r, size_t from)
{
	const uint32_t magic = GP_CHUNK_MAGIC; /* searched as the bytes on disk */
	size_t pos = from;

	while (pos + sizeof(struct gp_chunk_header) <= r->size) {
		const uint8_t *m = memmem(r->data + pos, r->size - pos, &magic, sizeof(magic));
		struct gp_chunk_header ch;

		if (!m)
			break;
		pos = (size_t)(m - r->data);
		if (pos + sizeof(ch) > r->size)
			break;
		memcpy(&ch, m, sizeof(ch));
		if (ch.header_crc == (uint32_t)crc32(0, m, offsetof(struct gp_chunk_header, header_crc)))
			return pos;
		pos++;
	}
	return r->size;
}

/* Skip a corrupt chunk whose extent cannot be trusted. */
static int bad_chunk_resync(struct gp_reader *r, size_t at)
{
	r->st.bad_chunks++;
	r->off = resync(r, at + 1);
	return GP_READ_ERROR;
}

static int load_chunk(struct gp_reader *r)
{
	struct gp_chunk_header ch;
	size_t at = r->off, pos;
	const uint8_t *payload;
	uint32_t i, sz = 0, unknown = 0, strings = 0;
	const char *why;
	int end = 0;

	if (r->size - at < sizeof(ch)) {
		set_err(r, at, "file ends inside a chunk header (truncated: the producer stopped "
			       "before it finished writing; earlier data is intact)");
		r->st.truncated = 1;
		r->done = 1;
		return GP_READ_ERROR;
	}
	memcpy(&ch, r->data + at, sizeof(ch));
	if (ch.magic != GP_CHUNK_MAGIC ||
	    ch.header_crc != (uint32_t)crc32(0, (const Bytef *)&ch, offsetof(struct gp_chunk_header, header_crc))) {
		set_err(r, at, "corrupt chunk header; skipping to the next intact chunk");
		return bad_chunk_resync(r, at);
	}
	if (ch.rsize > GP_CHUNK_MAX_RAW || ch.csize == 0 || ch.nrecords == 0 ||
	    ch.nrecords > ch.rsize / sizeof(struct gp_rec_hdr) ||
	    ch.rsize % 8 || ch.csize > compressBound(ch.rsize + ch.rsize / 8) + 64) {
		set_err(r, at, "chunk header with impossible sizes (csize %u, rsize %u, %u records); "
			       "skipping to the next intact chunk", ch.csize, ch.rsize, ch.nrecords);
		return bad_chunk_resync(r, at);
	}
	if (ch.csize > r->size - at - sizeof(ch)) {
		set_err(r, at, "file ends inside a chunk (%zu of %u bytes present; truncated: the "
			       "producer stopped before it finished writing; earlier data is intact)",
			r->size - at - sizeof(ch), ch.csize);
		r->st.truncated = 1;
		r->done = 1;
		return GP_READ_ERROR;
	}
	payload = r->data + at + sizeof(ch);
	r->off = at + sizeof(ch) + ch.csize;
	if (ch.payload_crc != (uint32_t)crc32(0, payload, ch.csize)) {
		set_err(r, at, "chunk checksum mismatch (corrupt data); skipping this chunk of %u records",
			ch.nrecords);
		r->st.bad_chunks++;
		return GP_READ_ERROR;
	}
	if (GP_ALLOC_GROW(r->raw, ch.rsize, r->raw_cap) ||
	    (r->hdr.version_major > 1 &&
	     GP_ALLOC_GROW(r->pack, ch.rsize + (size_t)ch.rsize / 8, r->pack_cap))) {
		set_err(r, at, "out of memory for a chunk of %u bytes", ch.rsize);
		r->st.bad_chunks++;
		return GP_READ_ERROR;
	}
	if (expand_chunk(r, &ch, payload)) {
		set_err(r, at, "chunk does not decompress to its stated size (corrupt data); skipping it");
		r->st.bad_chunks++;
		return GP_READ_ERROR;
	}
	/*
	 * One pass checks and decodes each record (a record is sound before the
	 * codec reads it); a chunk that fails half way is dropped whole, its
	 * decoded part with it.
	 */
	gp_codec__reset(&r->codec, r->hdr.version_major);
	for (pos = 0, i = 0; pos < ch.rsize; pos += sz, i++) {
		const struct gp_rec_hdr *h = (const struct gp_rec_hdr *)(r->raw + pos);

		why = check_record(r, r->raw + pos, ch.rsize - pos, &sz);
		if (why) {
			set_err(r, at, "record %u at chunk byte %zu: %s; skipping this chunk", i, pos, why);
			r->st.bad_chunks++;
			return GP_READ_ERROR;
		}
		gp_codec__decode(&r->codec, (struct gp_rec_hdr *)(r->raw + pos));
		unknown += h->type >= GP_REC_TYPE_COUNT;
		strings += h->type == GP_REC_STRING;
		end |= h->type == GP_REC_END;
	}
	if (i != ch.nrecords) {
		set_err(r, at, "chunk holds %u records, its header says %u; skipping it", i, ch.nrecords);
		r->st.bad_chunks++;
		return GP_READ_ERROR;
	}
	/* The chunk is sound: what the caller will be handed is accounted for now. */
	for (pos = 0; strings && pos < ch.rsize; pos += ((const struct gp_rec_hdr *)(r->raw + pos))->size) {
		const struct gp_rec_hdr *h = (const struct gp_rec_hdr *)(r->raw + pos);

		if (h->type == GP_REC_STRING) {
			remember_string(r, (const struct gp_rec_string *)h);
			strings--;
		}
	}
	r->known_left = i - unknown; /* counted in st.records as they are handed out */
	r->st.skipped_records += unknown;
	r->st.clean_end |= end;
	r->raw_len = ch.rsize;
	r->raw_pos = 0;
	r->st.chunks++;
	return GP_READ_RECORD;
}

/* Make sure a chunk's records are at r->raw_pos: GP_READ_RECORD, GP_READ_EOF or GP_READ_ERROR. */
static int have_records(struct gp_reader *r)
{
	while (r->raw_pos >= r->raw_len) {
		r->raw_len = r->raw_pos = 0;
		if (r->done || r->off >= r->size) {
			r->done = 1;
			return GP_READ_EOF;
		}
		if (load_chunk(r) == GP_READ_ERROR)
			return GP_READ_ERROR;
	}
	return GP_READ_RECORD;
}

int gp_reader__next(struct gp_reader *r, const struct gp_rec_hdr **rec)
{
	int rc;

	while ((rc = have_records(r)) == GP_READ_RECORD) {
		const struct gp_rec_hdr *h = (const void *)(r->raw + r->raw_pos);

		r->raw_pos += h->size;
		if (h->type < GP_REC_TYPE_COUNT) { /* (newer types are skipped, and counted) */
			r->known_left--;
			r->st.records++;
			*rec = h;
			return GP_READ_RECORD;
		}
	}
	return rc;
}

int gp_reader__next_chunk(struct gp_reader *r, const uint8_t **recs, size_t *len)
{
	int rc = have_records(r);

	if (rc == GP_READ_RECORD) {
		*recs = r->raw + r->raw_pos;
		*len = r->raw_len - r->raw_pos;
		r->raw_pos = r->raw_len;
		r->st.records += r->known_left;
		r->known_left = 0;
	}
	return rc;
}
