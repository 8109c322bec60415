/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_reader.c - libFuzzer harness for gp_reader: any byte string must open
 * or be refused cleanly, and iterate to GP_READ_EOF without crashing,
 * hanging or reading outside a record.
 *
 * How it works: an input that starts with the file magic is read as it is
 * and then again with every checksum repaired (else almost every mutation
 * stops at a CRC); any other input is taken as the raw payload of a chunk
 * and wrapped in a valid header and two checksummed chunks, so mutations
 * reach record validation, delta decoding and the string table directly;
 * and once more as the zero-byte packed form of a chunk, for the unpacker.
 * Each image is drained with gp_reader__next() until GP_READ_EOF, and
 * again with next() and gp_reader__next_chunk() in turn. Every
 * record handed out is touched over its whole size (so ASan sees a lie about
 * a length), its string ids are looked up, stack counts are checked against
 * the size, and the error text and stats are read after every step. The
 * loop is capped by a bound derived from the image size: zlib inflates at
 * most ~1032:1 and a record is at least 8 bytes, so a reader that returns
 * more records than that, or more errors than records plus input bytes, is
 * looping, and we trap.
 *
 * Built two ways (tests/fuzz/CMakeLists.txt): with clang's
 * -fsanitize=fuzzer as `fuzz_reader`, and with replay_main.c as
 * `fuzz_reader_replay`, which runs the seed corpus under any compiler.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gp_pack.h"
#include "gp_reader.h"
#include "gp_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Keeps the reads of the record bytes from being optimized away. */
static volatile uint8_t sink;

static void touch(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc ^= b[i];
	sink = acc;
}

static void check_string(const struct gp_reader *r, uint32_t id)
{
	const char *s = gp_reader__string(r, id);

	if (!s)
		return;
	/* The reader promises NUL-terminated strings of bounded length. */
	size_t n = strnlen(s, GP_STR_MAX_LEN + 1);
	if (n > GP_STR_MAX_LEN)
		__builtin_trap();
	touch(s, n + 1);
}

static void check_stack(const struct gp_rec_hdr *h, size_t fixed, uint16_t nr_user,
			uint16_t nr_kernel)
{
	/* Contract: size is exactly the fixed part plus 8 bytes per frame. */
	if ((uint64_t)h->size != fixed + 8u * ((uint64_t)nr_user + nr_kernel))
		__builtin_trap();
}

static void check_record(const struct gp_reader *r, const struct gp_rec_hdr *h)
{
	if (h->size < sizeof(*h) || h->size > GP_REC_MAX_SIZE || (h->size & 7u))
		__builtin_trap();
	if (h->type < GP_REC_TYPE_COUNT && h->size < gp_rec_min_size(h->type))
		__builtin_trap();
	/*
	 * The reader zero-extends records shorter than this build's struct, so
	 * the whole struct is readable even when hdr.size says less.
	 */
	touch(h, h->size);
	(void)gp_rec_type_name(h->type);

	switch (h->type) {
	case GP_REC_STRING: {
		const struct gp_rec_string *s = (const void *)h;
		if ((uint64_t)s->len + 1 > h->size - sizeof(*s) || s->data[s->len] != '\0')
			__builtin_trap();
		check_string(r, s->id);
		break;
	}
	case GP_REC_PROCESS: {
		const struct gp_rec_process *p = (const void *)h;
		check_string(r, p->comm_str);
		check_string(r, p->exe_str);
		break;
	}
	case GP_REC_THREAD:
		check_string(r, ((const struct gp_rec_thread *)(const void *)h)->name_str);
		break;
	case GP_REC_MODULE: {
		const struct gp_rec_module *m = (const void *)h;
		check_string(r, m->path_str);
		touch(m->build_id, m->build_id_size < sizeof(m->build_id) ?
					   m->build_id_size : sizeof(m->build_id));
		break;
	}
	case GP_REC_DEVICE:
		check_string(r, ((const struct gp_rec_device *)(const void *)h)->name_str);
		break;
	case GP_REC_API:
		check_string(r, ((const struct gp_rec_api *)(const void *)h)->name_str);
		break;
	case GP_REC_KERNEL:
		check_string(r, ((const struct gp_rec_kernel *)(const void *)h)->name_str);
		break;
	case GP_REC_CPU_SAMPLE: {
		const struct gp_rec_cpu_sample *c = (const void *)h;
		check_stack(h, sizeof(*c), c->nr_user, c->nr_kernel);
		break;
	}
	case GP_REC_OFFCPU: {
		const struct gp_rec_offcpu *o = (const void *)h;
		check_stack(h, sizeof(*o), o->nr_user, o->nr_kernel);
		break;
	}
	case GP_REC_LAUNCH_SITE: {
		const struct gp_rec_launch_site *l = (const void *)h;
		check_stack(h, sizeof(*l), l->nr_user, l->nr_kernel);
		check_string(r, l->probe_str);
		break;
	}
	case GP_REC_STACK: {
		const struct gp_rec_stack *k = (const void *)h;
		check_stack(h, sizeof(*k), k->nr_user, k->nr_kernel);
		break;
	}
	case GP_REC_LAUNCH_SITE_ID:
		check_string(r, ((const struct gp_rec_launch_site_id *)(const void *)h)->probe_str);
		break;
	default:
		break;
	}
}

/*
 * The records of one gp_reader__next_chunk() answer: each header within
 * the run, each record of a known type checked as next()'s are. Returns
 * how many of them are of known types.
 */
static uint64_t check_run(const struct gp_reader *r, const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	uint64_t known = 0;

	if (!p || !len)
		__builtin_trap();
	while (p < end) {
		struct gp_rec_hdr h;

		if ((size_t)(end - p) < sizeof(h))
			__builtin_trap();
		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h) || h.size > (size_t)(end - p))
			__builtin_trap();
		if (h.type < GP_REC_TYPE_COUNT) {
			check_record(r, (const struct gp_rec_hdr *)p);
			known++;
		} else {
			touch(p, h.size);
		}
		p += h.size;
	}
	return known;
}

/*
 * Drain one trace image, checking every promise of gp_reader.h; with
 * `chunks`, every other call is gp_reader__next_chunk() instead of
 * gp_reader__next(), so runs start part way into a chunk too.
 */
static void read_image(const uint8_t *data, size_t size, int chunks)
{
	char errbuf[256];
	struct gp_reader *r;
	struct gp_reader_stats st;
	const struct gp_rec_hdr *rec;
	/*
	 * Upper bounds for an honest reader. Records: every raw byte comes out
	 * of a zlib stream (at most ~1032x its input) and a record is >= 8
	 * bytes. Errors: at most one per corrupt chunk, per rejected record or
	 * for the tail, so no more than records plus input bytes.
	 */
	const uint64_t max_records = (uint64_t)size * 1040u / 8u + 64u;
	const uint64_t max_errors = max_records + size + 16u;
	uint64_t nrec = 0, nerr = 0;
	int rc;

	errbuf[0] = '\0';
	r = gp_reader__open_mem(data, size, "fuzz", errbuf, sizeof(errbuf));
	if (!r) {
		/* A refusal must say why, in a bounded, terminated string. */
		if (strnlen(errbuf, sizeof(errbuf)) == sizeof(errbuf))
			__builtin_trap();
		return;
	}
	touch(gp_reader__header(r), sizeof(struct gp_file_header));

	for (uint64_t call = 0;; call++) {
		const uint8_t *run = NULL;
		size_t len = 0;

		rec = NULL;
		if (chunks && call % 2)
			rc = gp_reader__next_chunk(r, &run, &len);
		else
			rc = gp_reader__next(r, &rec);
		if (rc == GP_READ_EOF)
			break;
		if (rc == GP_READ_RECORD && run) {
			nrec += check_run(r, run, len);
			if (nrec > max_records)
				__builtin_trap();
		} else if (rc == GP_READ_RECORD) {
			if (!rec || ++nrec > max_records)
				__builtin_trap();
			check_record(r, rec);
		} else if (rc == GP_READ_ERROR) {
			if (++nerr > max_errors)
				__builtin_trap(); /* the reader loops on an error */
			const char *e = gp_reader__error(r);
			if (!e || !*e)
				__builtin_trap(); /* an error must come with a message */
			touch(e, strlen(e));
		} else {
			__builtin_trap(); /* not a gp_read_status */
		}
		gp_reader__stats(r, &st);
		if (st.records != nrec)
			__builtin_trap();
	}
	/* EOF is sticky: a caller that asks again must not restart or crash. */
	if (gp_reader__next(r, &rec) != GP_READ_EOF)
		__builtin_trap();
	gp_reader__stats(r, &st);
	touch(&st, sizeof(st));
	(void)gp_reader__error(r);
	gp_reader__free(r);
}

static void read_all(const uint8_t *data, size_t size)
{
	read_image(data, size, 0);
	read_image(data, size, 1);
}

/*
 * A copy of a trace with every checksum made right: the header's, and for
 * each chunk found by walking the lengths, its payload's and its header's.
 * Without this nearly every mutation dies at a CRC check and the code behind
 * it (inflate, record validation, delta decoding, strings) is never reached.
 */
static uint8_t *fix_checksums(const uint8_t *data, size_t size)
{
	const size_t hcrc_off = offsetof(struct gp_file_header, header_crc);
	const size_t ccrc_off = offsetof(struct gp_chunk_header, header_crc);
	struct gp_file_header fh;
	uint8_t *buf;
	size_t off;

	if (size < sizeof(fh))
		return NULL;
	buf = malloc(size);
	if (!buf)
		return NULL;
	memcpy(buf, data, size);
	memcpy(&fh, buf, sizeof(fh));
	fh.header_crc = (uint32_t)crc32(0, buf, (uInt)hcrc_off);
	memcpy(buf + hcrc_off, &fh.header_crc, sizeof(fh.header_crc));

	off = fh.header_size >= sizeof(fh) && fh.header_size <= size ? fh.header_size : sizeof(fh);
	while (size - off >= sizeof(struct gp_chunk_header)) {
		struct gp_chunk_header ch;

		memcpy(&ch, buf + off, sizeof(ch));
		if (ch.magic != GP_CHUNK_MAGIC)
			break;
		if (ch.csize <= size - off - sizeof(ch))
			ch.payload_crc = (uint32_t)crc32(0, buf + off + sizeof(ch), ch.csize);
		ch.header_crc = (uint32_t)crc32(0, (const Bytef *)&ch, (uInt)ccrc_off);
		memcpy(buf + off, &ch, sizeof(ch));
		if (ch.csize > size - off - sizeof(ch))
			break;
		off += sizeof(ch) + ch.csize;
	}
	return buf;
}

/* Records a chunk of these raw bytes would hold, as the reader counts them. */
static uint32_t count_records(const uint8_t *raw, size_t size)
{
	size_t pos = 0;
	uint32_t n = 0;

	while (size - pos >= sizeof(struct gp_rec_hdr)) {
		struct gp_rec_hdr h;

		memcpy(&h, raw + pos, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > size - pos)
			return n + 1; /* the reader rejects the chunk either way */
		pos += h.size;
		n++;
	}
	return n ? n : 1;
}

/* Raw deflate of `in` into `out` (room for compressBound(len)): its length, or 0. */
static size_t deflate_raw(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
	z_stream z;
	size_t n = 0;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 1, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) == Z_STREAM_END)
		n = cap - z.avail_out;
	deflateEnd(&z);
	return n;
}

/*
 * The length a packed chunk unpacks to: the first W bytes are masks whose
 * bits count the data bytes after them, so the W with W + those bits ==
 * len (or, if none, the last W that does not overshoot: the reader refuses it).
 */
static size_t unpacked_size(const uint8_t *p, size_t len)
{
	size_t w, bits = 0;

	for (w = 0; w < len; w++) {
		if (w + bits == len)
			break;
		if (w + 1 + bits + (size_t)__builtin_popcount(p[w]) > len)
			break;
		bits += (size_t)__builtin_popcount(p[w]);
	}
	return 8 * w;
}

/*
 * Raw mode: the input is the decompressed payload of a chunk (delta-coded
 * records; a trailing part word is dropped). Wrap it in a valid header and
 * two identical, correctly checksummed chunks, so mutations land on record
 * fields directly and the second chunk sees the string table and codec
 * state the first one left. With `packed`, the input is taken as the
 * zero-byte packed form instead, so mutations reach the unpacker.
 */
static uint8_t *wrap_raw(const uint8_t *data, size_t size, int packed, size_t *out_size)
{
	struct gp_file_header fh;
	struct gp_chunk_header ch;
	size_t total, plen, rsize, cap;
	uint8_t *buf, *pk = NULL;
	uint32_t nrecords = 1;
	size_t clen;

	if (packed) {
		plen = size;
		rsize = unpacked_size(data, size);
		if (rsize && rsize <= GP_CHUNK_MAX_RAW && (pk = malloc(rsize))) {
			if (gp_unpack(data, size, pk, rsize) == 0)
				nrecords = count_records(pk, rsize);
			free(pk);
			pk = NULL;
		}
	} else {
		rsize = size & ~(size_t)7;
		nrecords = count_records(data, rsize);
		pk = malloc(GP_PACK_BOUND(rsize));
		if (!pk)
			return NULL;
		plen = gp_pack(data, rsize, pk);
		data = pk;
	}
	if (plen == 0 || rsize == 0 || rsize > GP_CHUNK_MAX_RAW) {
		free(pk);
		return NULL;
	}
	cap = compressBound((uLong)plen);
	buf = malloc(sizeof(fh) + 2 * (sizeof(ch) + cap));
	if (!buf) {
		free(pk);
		return NULL;
	}
	memset(&fh, 0, sizeof(fh));
	memcpy(fh.magic, GP_FILE_MAGIC, sizeof(fh.magic));
	fh.version_major = GP_FORMAT_MAJOR;
	fh.version_minor = GP_FORMAT_MINOR;
	fh.producer = GP_PRODUCER_SYNTH;
	fh.clock_id = GP_CLOCK_MONOTONIC;
	fh.header_size = sizeof(fh);
	fh.header_crc = (uint32_t)crc32(0, (const Bytef *)&fh, offsetof(struct gp_file_header, header_crc));
	memcpy(buf, &fh, sizeof(fh));

	clen = deflate_raw(data, plen, buf + sizeof(fh) + sizeof(ch), cap);
	if (!clen) {
		free(pk);
		free(buf);
		return NULL;
	}
	ch.magic = GP_CHUNK_MAGIC;
	ch.csize = (uint32_t)clen;
	ch.rsize = (uint32_t)rsize;
	ch.nrecords = nrecords;
	free(pk);
	ch.payload_crc = (uint32_t)crc32(0, buf + sizeof(fh) + sizeof(ch), (uInt)clen);
	ch.header_crc = (uint32_t)crc32(0, (const Bytef *)&ch, offsetof(struct gp_chunk_header, header_crc));
	memcpy(buf + sizeof(fh), &ch, sizeof(ch));
	total = sizeof(fh) + sizeof(ch) + clen;
	memcpy(buf + total, buf + sizeof(fh), sizeof(ch) + clen);
	*out_size = total + sizeof(ch) + clen;
	return buf;
}

/*
 * An input that starts with the file magic is a trace: read it as it is,
 * then once more with its checksums repaired. Anything else is raw chunk
 * payload (the corpus has raw-*.bin seeds of that kind).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;
	size_t n = 0;

	if (size >= sizeof(GP_FILE_MAGIC) - 1 &&
	    memcmp(data, GP_FILE_MAGIC, sizeof(GP_FILE_MAGIC) - 1) == 0) {
		read_all(data, size);
		buf = fix_checksums(data, size);
		if (buf) {
			if (memcmp(buf, data, size) != 0)
				read_all(buf, size);
			free(buf);
		}
		return 0;
	}
	buf = wrap_raw(data, size, 0, &n);
	if (buf) {
		read_all(buf, n);
		free(buf);
	} else {
		read_all(data, size); /* refused at open: not a trace */
	}
	buf = wrap_raw(data, size, 1, &n);
	if (buf) {
		read_all(buf, n);
		free(buf);
	}
	return 0;
}
