// SPDX-License-Identifier: Apache-2.0
/* gp_writer.c - buffered, chunked, compressed trace writer. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zlib.h>

#include "gp_alloc.h"
#include "gp_codec.h"
#include "gp_file.h"
#include "gp_pack.h"
#include "gp_record.h"
#include "gp_util.h"
#include "gp_writer.h"

#define DEFAULT_CHUNK (256u << 10)
#define MAX_CHUNK (4u << 20)

struct str_entry {
	char *s;
	uint32_t len;
	uint32_t hash;
	uint32_t id;
	uint32_t gen; /* chunk generation in which it was last defined */
};

/* A stack of gp_writer__intern_stack(): its frames are in the writer's pool. */
struct stk_entry {
	uint64_t hash;
	uint32_t off; /* first frame in stk_frames */
	uint16_t nu, nk;
	uint32_t id;  /* 0: an empty slot */
	uint32_t gen; /* chunk generation in which it was last defined */
};

/*
 * At most this many stacks are kept (their table has twice the slots) and
 * this many frames: past either, the table starts again empty, with new
 * ids (an id never changes its frames), so a producer's memory stays
 * bounded however many distinct stacks it meets.
 */
#define STK_MAX_ENTRIES (1u << 16)
#define STK_MAX_FRAMES (1u << 21)

struct gp_writer {
	int fd;
	uint32_t chunk_size;
	int level;

	/* The chunk being built: string definitions first, then records. */
	uint8_t *rec;
	size_t rec_len, rec_cap;
	uint32_t rec_n;
	uint8_t *str;
	size_t str_len, str_cap;
	uint32_t str_n;
	size_t reserved; /* size of the record reserved at rec + rec_len; 0: none */

	uint8_t *pack; /* the chunk's records, zero-byte packed */
	size_t pack_cap;
	uint8_t *out;
	size_t out_cap;
	struct libdeflate_compressor *ld; /* raw deflate at `level`, chunk by chunk */
	struct libdeflate_compressor *ld0; /* stored blocks (level 0), made on first use */
	bool store;			   /* gp_writer__set_stored: chunks go out uncompressed */
	uint64_t chunks, stored_chunks;
	struct gp_codec codec;

	/* String table: open addressing, power-of-two size. */
	struct str_entry *tab;
	uint32_t tab_cap, tab_n;
	/*
	 * In front of it, by the caller's pointer: producers intern the same
	 * few strings from the same addresses (CUPTI shares one name string
	 * among all records of a kernel), so most calls are one strcmp instead
	 * of a hash of the whole name. Slot: table index + 1 (0: empty);
	 * cleared when the table grows.
	 */
	struct {
		const char *p;
		uint32_t slot;
	} pcache[64];
	uint32_t next_id;
	uint32_t gen;

	/* Stack table: open addressing, power-of-two size, frames in a pool. */
	struct stk_entry *stk;
	uint32_t stk_cap, stk_n;
	uint64_t *stk_frames;
	size_t stk_nframes, stk_frames_cap; /* frames */
	uint32_t next_stack_id;

	uint64_t records, lost, bytes;
	int lost_err;		  /* errno of the first loss */
	struct gp_file_header hdr; /* as written: rewritten in place to record losses */
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);

	memcpy(dst, src, n);
	memset(dst + n, 0, cap - n);
}

static uint32_t header_crc(const struct gp_file_header *h)
{
	return (uint32_t)crc32(0, (const Bytef *)h, offsetof(struct gp_file_header, header_crc));
}

/*
 * Put the loss count and cause into the header already on disk: a pwrite
 * of bytes the file holds needs no new block and does not grow the file,
 * so it works when nothing can be appended any more (full disk,
 * RLIMIT_FSIZE). Best effort: nothing else is left to tell.
 */
static void header_update(struct gp_writer *w)
{
	w->hdr.lost_records = w->lost;
	w->hdr.lost_cause = (uint32_t)w->lost_err;
	w->hdr.header_crc = header_crc(&w->hdr);
	if (pwrite(w->fd, &w->hdr, sizeof(w->hdr), 0) < 0) {
		/* nothing else is left to tell it with */
	}
}

/* @n records not stored, for errno @err (the first cause is kept). */
static void lose(struct gp_writer *w, uint64_t n, int err)
{
	w->lost += n;
	if (!w->lost_err)
		w->lost_err = err;
}

/*
 * A chunk that would take the file past RLIMIT_FSIZE: -EFBIG without
 * writing, as the kernel would answer -- after a short write, and with a
 * SIGXFSZ that kills the process (a program the injection library is a
 * guest in) unless it handles the signal.
 */
static int over_fsize(const struct gp_writer *w, size_t len)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_FSIZE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	return w->bytes + len > (uint64_t)rl.rlim_cur ? -EFBIG : 0;
}

static int write_header(struct gp_writer *w, const struct gp_writer_opts *o)
{
	struct gp_file_header h;
	struct utsname u;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, GP_FILE_MAGIC, sizeof(h.magic));
	h.version_major = GP_FORMAT_MAJOR;
	h.version_minor = GP_FORMAT_MINOR;
	h.producer = o->producer;
	h.clock_id = o->clock_id ? o->clock_id : GP_CLOCK_MONOTONIC;
	h.header_size = sizeof(h);
	h.pid = o->pid ? o->pid : (uint32_t)getpid();
	h.start_monotonic_ns = now_ns(CLOCK_MONOTONIC);
	h.start_realtime_ns = now_ns(CLOCK_REALTIME);
	h.ncpus = ncpu > 0 ? (uint32_t)ncpu : 0;
	copy_str(h.producer_version, sizeof(h.producer_version),
		 o->producer_version ? o->producer_version : "gpuperf " GPUPERF_VERSION);
	if (gethostname(h.hostname, sizeof(h.hostname) - 1) != 0)
		h.hostname[0] = '\0';
	if (uname(&u) == 0) {
		copy_str(h.kernel_release, sizeof(h.kernel_release), u.release);
		copy_str(h.machine, sizeof(h.machine), u.machine);
	}
	h.header_crc = header_crc(&h);
	w->hdr = h;
	w->bytes += sizeof(h);
	return over_fsize(w, 0) ?: gp_file__write_full(w->fd, &h, sizeof(h));
}

struct gp_writer *gp_writer__fdopen(int fd, const struct gp_writer_opts *opts)
{
	struct gp_writer_opts defaults = { .producer = GP_PRODUCER_SYNTH };
	struct gp_writer *w;
	int err;

	if (!opts)
		opts = &defaults;
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	w->fd = fd;
	w->chunk_size = opts->chunk_size ? opts->chunk_size : DEFAULT_CHUNK;
	if (w->chunk_size < 4096)
		w->chunk_size = 4096;
	if (w->chunk_size > MAX_CHUNK)
		w->chunk_size = MAX_CHUNK;
	w->level = opts->level >= 1 && opts->level <= 9 ? opts->level : 3;
	w->next_id = 1;
	w->next_stack_id = 1;
	w->gen = 1;
	w->rec_cap = w->chunk_size + GP_REC_MAX_SIZE;
	w->rec = malloc(w->rec_cap);
	w->str_cap = 4096;
	w->str = malloc(w->str_cap);
	w->tab_cap = 256;
	w->tab = calloc(w->tab_cap, sizeof(*w->tab));
	if (!w->rec || !w->str || !w->tab) {
		err = -ENOMEM;
		goto fail;
	}
	/*
	 * Raw deflate (the chunk's CRC-32 covers the compressed bytes already)
	 * by libdeflate: a chunk is one whole buffer, which it compresses 1.6x
	 * as fast as zlib at the same level, and smaller (bench/RESULTS.md).
	 * Any inflate reads it.
	 */
	w->ld = libdeflate_alloc_compressor(w->level);
	if (!w->ld) {
		err = -ENOMEM;
		goto fail;
	}
	gp_codec__reset(&w->codec, GP_FORMAT_MAJOR);
	err = write_header(w, opts);
	if (err)
		goto fail;
	return w;
fail:
	gp_writer__abandon(w);
	errno = -err;
	return NULL;
}

struct gp_writer *gp_writer__open(const char *path, const struct gp_writer_opts *opts)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC;
	int fd;

	flags |= opts && opts->truncate ? O_TRUNC : O_EXCL;
	fd = open(path, flags, 0644);
	if (fd < 0)
		return NULL;
	return gp_writer__fdopen(fd, opts);
}

struct gp_writer *gp_writer__openat(int dir_fd, const char *name, const struct gp_writer_opts *opts)
{
	int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC;
	int fd;

	flags |= opts && opts->truncate ? O_TRUNC : O_EXCL;
	fd = openat(dir_fd, name, flags, 0644);
	if (fd < 0)
		return NULL;
	return gp_writer__fdopen(fd, opts);
}


int gp_writer__flush(struct gp_writer *w)
{
	struct gp_chunk_header ch;
	size_t raw = w->str_len + w->rec_len;
	size_t off = 0, packed, csize;
	uint32_t n = w->str_n + w->rec_n;
	uint8_t *p;
	int err;

	if (!w || w->reserved)
		return -EINVAL;
	if (!n)
		return 0;

	/* Delta-code the records, in order, with state reset per chunk. */
	gp_codec__reset(&w->codec, GP_FORMAT_MAJOR);
	while (off < w->rec_len) {
		struct gp_rec_hdr *h = (struct gp_rec_hdr *)(w->rec + off);

		gp_codec__encode(&w->codec, h);
		off += h->size;
	}

	err = GP_ALLOC_GROW(w->pack, GP_PACK_BOUND(raw), w->pack_cap);
	if (err)
		goto lost;
	packed = gp_pack2(w->str, w->str_len, w->rec, w->rec_len, w->pack);
	err = GP_ALLOC_GROW(w->out, libdeflate_deflate_compress_bound(w->ld, packed) + sizeof(ch),
			    w->out_cap);
	if (err)
		goto lost;
	p = w->out + sizeof(ch);
	if (w->store && !w->ld0)
		w->ld0 = libdeflate_alloc_compressor(0);
	/* A stored block is still raw deflate: readers see no difference. */
	csize = libdeflate_deflate_compress(w->store && w->ld0 ? w->ld0 : w->ld, w->pack, packed, p,
					    w->out_cap - sizeof(ch));
	if (!csize || csize > UINT32_MAX) {
		err = -EIO; /* cannot happen with a buffer of the bound's size */
		goto lost;
	}

	ch.magic = GP_CHUNK_MAGIC;
	ch.csize = (uint32_t)csize;
	ch.rsize = (uint32_t)raw;
	ch.nrecords = n;
	ch.payload_crc = (uint32_t)crc32(0, p, ch.csize);
	ch.header_crc = (uint32_t)crc32(0, (const Bytef *)&ch, offsetof(struct gp_chunk_header, header_crc));
	memcpy(w->out, &ch, sizeof(ch));
	err = over_fsize(w, sizeof(ch) + ch.csize) ?:
		      gp_file__write_full(w->fd, w->out, sizeof(ch) + ch.csize);
	if (err) {
		/*
		 * Take back what part of the chunk went out (a full disk takes
		 * some of it), so that the next chunk, if the disk has room by
		 * then, follows the last whole one; then say in the header
		 * what was lost and why.
		 */
		if (ftruncate(w->fd, (off_t)w->bytes) == 0)
			lseek(w->fd, (off_t)w->bytes, SEEK_SET);
		lose(w, w->rec_n, -err);
		w->records -= w->rec_n;
		header_update(w);
		goto reset;
	}
	w->bytes += sizeof(ch) + ch.csize;
	w->chunks++;
	w->stored_chunks += w->store && w->ld0;
	goto reset;
lost:
	lose(w, w->rec_n, -err);
	w->records -= w->rec_n;
reset:
	w->rec_len = w->str_len = 0;
	w->rec_n = w->str_n = 0;
	w->gen++;
	return err;
}

void *gp_writer__reserve(struct gp_writer *w, uint16_t type, uint32_t size)
{
	struct gp_rec_hdr *h;
	size_t sz = round8(size);

	if (!w || w->reserved || type == 0 || size < sizeof(*h) || sz > GP_REC_MAX_SIZE ||
	    (type < GP_REC_TYPE_COUNT && size < gp_rec_min_size(type))) {
		errno = EINVAL;
		return NULL;
	}
	if (w->rec_len + sz > w->chunk_size && w->rec_len + w->str_len > 0)
		gp_writer__flush(w); /* a failed write is counted in lost */
	h = (struct gp_rec_hdr *)(w->rec + w->rec_len);
	memset(h, 0, sz);
	h->type = type;
	h->size = (uint32_t)sz;
	w->reserved = sz;
	return h;
}

/* A stacked record whose frame counts disagree with its size would make
 * the reader reject its whole chunk: drop it here instead. */
static int stack_ok(const struct gp_rec_hdr *h)
{
	uint32_t fixed, nr_off;
	uint16_t nr[2];

	if (!gp_rec_stack_layout(h->type, &fixed, &nr_off))
		return 1;
	memcpy(nr, (const char *)h + nr_off, sizeof(nr));
	return nr[0] <= GP_STACK_MAX_DEPTH && nr[1] <= GP_STACK_MAX_DEPTH &&
	       h->size == fixed + 8u * (nr[0] + nr[1]);
}

void gp_writer__commit(struct gp_writer *w)
{
	struct gp_rec_hdr *h;

	if (!w || !w->reserved)
		return;
	h = (struct gp_rec_hdr *)(w->rec + w->rec_len);
	w->reserved = 0;
	if (!stack_ok(h)) {
		lose(w, 1, EINVAL);
		return;
	}
	w->rec_len += h->size;
	w->rec_n++;
	w->records++;
	/* Many new strings and few records: keep the string section bounded too. */
	if (w->str_len > w->chunk_size)
		gp_writer__flush(w);
}

int gp_writer__append(struct gp_writer *w, uint16_t type, const void *rec, uint32_t size)
{
	struct gp_rec_hdr *h = gp_writer__reserve(w, type, size);

	if (!h)
		return -errno;
	/* reserve() wrote type and size; the body and the flags are the caller's */
	memcpy((char *)h + sizeof(*h), (const char *)rec + sizeof(*h), size - sizeof(*h));
	h->flags = ((const struct gp_rec_hdr *)rec)->flags;
	gp_writer__commit(w);
	return 0;
}

static int tab_grow(struct gp_writer *w)
{
	uint32_t ncap = w->tab_cap * 2, i;
	struct str_entry *nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (i = 0; i < w->tab_cap; i++) {
		struct str_entry *e = &w->tab[i];
		uint32_t j;

		if (!e->s)
			continue;
		for (j = e->hash & (ncap - 1); nt[j].s; j = (j + 1) & (ncap - 1))
			;
		nt[j] = *e;
	}
	free(w->tab);
	w->tab = nt;
	w->tab_cap = ncap;
	memset(w->pcache, 0, sizeof(w->pcache));
	return 0;
}

/*
 * The id of a string or stack table entry, defined in the current chunk
 * (define(w, entry)) unless it was already (*gen: the chunk it last was);
 * 0, counted lost, when the definition cannot be written.
 */
static uint32_t chunk_id(struct gp_writer *w, uint32_t *gen, uint32_t id,
			 int (*define)(struct gp_writer *, const void *), const void *entry)
{
	if (*gen != w->gen) {
		if (define(w, entry)) {
			lose(w, 1, ENOMEM);
			return 0;
		}
		*gen = w->gen;
	}
	return id;
}

static int define_str(struct gp_writer *w, const void *entry)
{
	const struct str_entry *e = entry;
	size_t sz = round8(sizeof(struct gp_rec_string) + e->len + 1);
	struct gp_rec_string *r;

	if (GP_ALLOC_GROW(w->str, w->str_len + sz, w->str_cap))
		return -ENOMEM;
	r = (struct gp_rec_string *)(w->str + w->str_len);
	memset(r, 0, sz);
	r->hdr.type = GP_REC_STRING;
	r->hdr.size = (uint32_t)sz;
	r->id = e->id;
	r->len = e->len;
	memcpy(r->data, e->s, e->len);
	w->str_len += sz;
	w->str_n++;
	return 0;
}

uint32_t gp_writer__intern(struct gp_writer *w, const char *s)
{
	struct str_entry *e;
	__typeof__(w->pcache[0]) *pc;
	size_t len;
	uint32_t h, i;

	if (!w || !s || !*s)
		return 0;
	pc = &w->pcache[((uintptr_t)s >> 3) & 63];
	if (pc->p == s && pc->slot) {
		/* the same address: the same string only if it still reads the same
		 * (up to GP_STR_MAX_LEN, where the table cuts strings too) */
		e = &w->tab[pc->slot - 1];
		if (!strncmp(e->s, s, GP_STR_MAX_LEN))
			goto found;
	}
	len = strnlen(s, GP_STR_MAX_LEN);
	h = gp_hash_bytes(s, len);
	for (i = h & (w->tab_cap - 1);; i = (i + 1) & (w->tab_cap - 1)) {
		e = &w->tab[i];
		if (!e->s)
			break;
		if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
			goto found;
	}
	if ((w->tab_n + 1) * 10 > w->tab_cap * 7) {
		if (tab_grow(w))
			goto fail;
		for (i = h & (w->tab_cap - 1); w->tab[i].s; i = (i + 1) & (w->tab_cap - 1))
			;
		e = &w->tab[i];
	}
	e->s = malloc(len + 1);
	if (!e->s)
		goto fail;
	memcpy(e->s, s, len);
	e->s[len] = '\0';
	e->len = (uint32_t)len;
	e->hash = h;
	e->id = w->next_id++;
	e->gen = 0;
	w->tab_n++;
found:
	pc->p = s;
	pc->slot = (uint32_t)(e - w->tab) + 1;
	return chunk_id(w, &e->gen, e->id, define_str, e);
fail:
	lose(w, 1, ENOMEM);
	return 0;
}

static int define_stack(struct gp_writer *w, const void *entry)
{
	const struct stk_entry *e = entry;
	size_t n = (size_t)e->nu + e->nk, sz = sizeof(struct gp_rec_stack) + 8 * n;
	struct gp_rec_stack *r;

	if (GP_ALLOC_GROW(w->str, w->str_len + sz, w->str_cap))
		return -ENOMEM;
	r = (struct gp_rec_stack *)(w->str + w->str_len);
	memset(r, 0, sizeof(*r));
	r->hdr.type = GP_REC_STACK;
	r->hdr.size = (uint32_t)sz;
	r->id = e->id;
	r->nr_user = e->nu;
	r->nr_kernel = e->nk;
	memcpy(r->ips, w->stk_frames + e->off, 8 * n);
	w->str_len += sz;
	w->str_n++;
	return 0;
}

/* Empty the stack table (ids go on counting), or make it the first time: 0 or -ENOMEM. */
static int stk_reset(struct gp_writer *w)
{
	if (!w->stk) {
		w->stk = calloc(2 * STK_MAX_ENTRIES, sizeof(*w->stk));
		if (!w->stk)
			return -ENOMEM;
		w->stk_cap = 2 * STK_MAX_ENTRIES;
	} else {
		memset(w->stk, 0, w->stk_cap * sizeof(*w->stk));
	}
	w->stk_n = 0;
	w->stk_nframes = 0;
	return 0;
}

uint32_t gp_writer__intern_stack(struct gp_writer *w, const uint64_t *ips, uint16_t nr_user,
				 uint16_t nr_kernel)
{
	size_t n = (size_t)nr_user + nr_kernel, i;
	struct stk_entry *e;
	uint64_t h;

	if (!w || !n || nr_user > GP_STACK_MAX_DEPTH || nr_kernel > GP_STACK_MAX_DEPTH)
		return 0;
	if (!w->stk && stk_reset(w))
		goto fail;
	h = gp_mix64(((uint64_t)nr_user << 16 | nr_kernel) ^ 0x9e3779b97f4a7c15ull);
	for (i = 0; i < n; i++)
		h = gp_mix64(h ^ ips[i]);
	for (i = h & (w->stk_cap - 1); w->stk[i].id; i = (i + 1) & (w->stk_cap - 1)) {
		e = &w->stk[i];
		if (e->hash == h && e->nu == nr_user && e->nk == nr_kernel &&
		    !memcmp(w->stk_frames + e->off, ips, 8 * n))
			goto found;
	}
	if (w->stk_n >= STK_MAX_ENTRIES || w->stk_nframes + n > STK_MAX_FRAMES) {
		stk_reset(w);
		for (i = h & (w->stk_cap - 1); w->stk[i].id; i = (i + 1) & (w->stk_cap - 1))
			;
	}
	if (GP_ALLOC_GROW(w->stk_frames, w->stk_nframes + n, w->stk_frames_cap))
		goto fail;
	e = &w->stk[i];
	memcpy(w->stk_frames + w->stk_nframes, ips, 8 * n);
	e->hash = h;
	e->off = (uint32_t)w->stk_nframes;
	e->nu = nr_user;
	e->nk = nr_kernel;
	e->id = w->next_stack_id++;
	if (!w->next_stack_id) /* 2^32 stacks later: 0 is no stack */
		w->next_stack_id = 1;
	e->gen = 0;
	w->stk_n++;
	w->stk_nframes += n;
found:
	return chunk_id(w, &e->gen, e->id, define_stack, e);
fail:
	lose(w, 1, ENOMEM);
	return 0;
}

static void writer_free(struct gp_writer *w)
{
	uint32_t i;

	libdeflate_free_compressor(w->ld);
	libdeflate_free_compressor(w->ld0);
	for (i = 0; w->tab && i < w->tab_cap; i++)
		free(w->tab[i].s);
	free(w->tab);
	free(w->stk);
	free(w->stk_frames);
	free(w->rec);
	free(w->str);
	free(w->pack);
	free(w->out);
	free(w);
}

int gp_writer__close(struct gp_writer *w)
{
	struct gp_rec_end *end;
	int err, cerr;

	if (!w)
		return 0;
	if (w->reserved)
		w->reserved = 0; /* an unfinished record is dropped */
	end = gp_writer__reserve(w, GP_REC_END, sizeof(*end));
	if (end) {
		end->ts = now_ns(CLOCK_MONOTONIC);
		end->records = w->records;
		gp_writer__commit(w);
	}
	err = gp_writer__flush(w);
	if (err)
		w->hdr.flags |= GP_FILE_END_LOST;
	if (w->lost)
		header_update(w); /* the final count, whatever the cause */
	cerr = close(w->fd) ? -errno : 0;
	writer_free(w);
	return err ? err : cerr;
}

void gp_writer__abandon(struct gp_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	writer_free(w);
}

void gp_writer__set_stored(struct gp_writer *w, bool on)
{
	if (w)
		w->store = on;
}

uint64_t gp_writer__chunks(const struct gp_writer *w, uint64_t *stored)
{
	if (stored)
		*stored = w ? w->stored_chunks : 0;
	return w ? w->chunks : 0;
}

uint64_t gp_writer__records(const struct gp_writer *w)
{
	return w ? w->records : 0;
}

uint64_t gp_writer__lost(const struct gp_writer *w)
{
	return w ? w->lost : 0;
}

int gp_writer__lost_cause(const struct gp_writer *w)
{
	return w ? w->lost_err : 0;
}

uint64_t gp_writer__bytes(const struct gp_writer *w)
{
	return w ? w->bytes : 0;
}
