// SPDX-License-Identifier: Apache-2.0
/* chrome_trace.c - stream the timeline out as Chrome Trace Event Format JSON (trace.json). */
#include "chrome_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "correlate.h"
#include "timeline.h"

/*
 * Output goes through our own buffer and leaves in large gzwrite()s: the
 * document is millions of small pieces, and gzwrite() per piece costs more
 * than the formatting.
 */
#define JW_BUF 16384

struct jw {
	gzFile gz;
	size_t len;
	int err;
	char buf[JW_BUF];
};

static void jw_flush(struct jw *w)
{
	if (w->len && !w->err && gzwrite(w->gz, w->buf, (unsigned)w->len) != (int)w->len)
		w->err = -EIO;
	w->len = 0;
}

static void jw_put(struct jw *w, const char *s, size_t n)
{
	while (n) {
		size_t room = JW_BUF - w->len, k = n < room ? n : room;

		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
		if (w->len == JW_BUF)
			jw_flush(w);
	}
}

static void jw_puts(struct jw *w, const char *s)
{
	jw_put(w, s, strlen(s));
}

static void jw_u64(struct jw *w, uint64_t v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "%" PRIu64, v);

	jw_put(w, tmp, (size_t)n);
}

static void jw_i64(struct jw *w, int64_t v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "%" PRId64, v);

	jw_put(w, tmp, (size_t)n);
}

/* ns as µs with exactly three decimals: integer math, so no rounding drift at any magnitude. */
static void jw_us(struct jw *w, uint64_t ns)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));

	jw_put(w, tmp, (size_t)n);
}

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlongs, no surrogates), 0 if none. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0))
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

/* A JSON string: `prefix` (a literal of ours, written as is) then str escaped. */
static void jw_str_prefixed(struct jw *w, const char *prefix, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	const unsigned char *run = s;

	jw_put(w, "\"", 1);
	jw_puts(w, prefix);
	while (*s) {
		const char *esc = NULL;
		char tmp[8];
		size_t n;

		if (*s >= 0x20 && *s < 0x80 && *s != '"' && *s != '\\') {
			s++;
			continue;
		}
		if (*s >= 0x80) {
			/* The continuation-byte checks stop at the NUL, so no overread. */
			n = utf8_len(s);
			if (n) {
				s += n;
				continue;
			}
			esc = "?";
		} else if (*s == '"') {
			esc = "\\\"";
		} else if (*s == '\\') {
			esc = "\\\\";
		} else if (*s == '\n') {
			esc = "\\n";
		} else if (*s == '\t') {
			esc = "\\t";
		} else if (*s == '\r') {
			esc = "\\r";
		} else if (*s == '\b') {
			esc = "\\b";
		} else if (*s == '\f') {
			esc = "\\f";
		} else {
			snprintf(tmp, sizeof(tmp), "\\u%04x", *s);
			esc = tmp;
		}
		jw_put(w, (const char *)run, (size_t)(s - run));
		jw_puts(w, esc);
		s++;
		run = s;
	}
	jw_put(w, (const char *)run, (size_t)(s - run));
	jw_put(w, "\"", 1);
}

static void jw_str(struct jw *w, const char *str)
{
	jw_str_prefixed(w, "", str);
}

int chrome_trace__write_string(gzFile out, const char *s)
{
	struct jw *w;
	int err;

	if (!out)
		return -EINVAL;
	w = malloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->gz = out;
	w->len = 0;
	w->err = 0;
	jw_str(w, s);
	jw_flush(w);
	err = w->err;
	free(w);
	return err;
}

/*
 * The tracks (pid, tid) and processes already announced with metadata:
 * an open-addressing set of 64-bit keys, UINT64_MAX marking a free slot.
 */
struct keyset {
	uint64_t *slots;
	size_t cap, nr;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* 1 if key was new (and is now in), 0 if present, -ENOMEM. */
static int keyset_add(struct keyset *ks, uint64_t key)
{
	size_t i;

	if (key == UINT64_MAX)
		return 0;
	if (2 * (ks->nr + 1) > ks->cap) {
		size_t ncap = ks->cap ? 2 * ks->cap : 64, j;
		uint64_t *ns = malloc(ncap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		memset(ns, 0xff, ncap * sizeof(*ns));
		for (j = 0; j < ks->cap; j++) {
			if (ks->slots[j] == UINT64_MAX)
				continue;
			for (i = mix64(ks->slots[j]) & (ncap - 1); ns[i] != UINT64_MAX;
			     i = (i + 1) & (ncap - 1))
				;
			ns[i] = ks->slots[j];
		}
		free(ks->slots);
		ks->slots = ns;
		ks->cap = ncap;
	}
	for (i = mix64(key) & (ks->cap - 1); ks->slots[i] != UINT64_MAX;
	     i = (i + 1) & (ks->cap - 1))
		if (ks->slots[i] == key)
			return 0;
	ks->slots[i] = key;
	ks->nr++;
	return 1;
}

struct ct {
	struct jw w;
	const struct timeline *tl;
	const struct chrome_trace_names *nm;
	uint64_t base;
	int first;
	int err;
	struct keyset procs, threads;
};

/* Start one event object: the separator, then the fields every event has. */
static void ev_begin(struct ct *ct, const char *ph, const char *cat, uint32_t pid, uint32_t tid)
{
	struct jw *w = &ct->w;

	jw_puts(w, ct->first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
	ct->first = 0;
	jw_puts(w, ph);
	if (cat) {
		jw_puts(w, "\",\"cat\":\"");
		jw_puts(w, cat);
	}
	jw_puts(w, "\",\"pid\":");
	jw_u64(w, pid);
	jw_puts(w, ",\"tid\":");
	jw_u64(w, tid);
}

static void ev_ts(struct ct *ct, uint64_t t)
{
	jw_puts(&ct->w, ",\"ts\":");
	jw_us(&ct->w, t >= ct->base ? t - ct->base : 0);
}

static void ev_dur(struct ct *ct, uint64_t start, uint64_t end)
{
	jw_puts(&ct->w, ",\"dur\":");
	jw_us(&ct->w, end > start ? end - start : 0);
}

static void meta(struct ct *ct, const char *what, uint32_t pid, uint32_t tid, const char *name,
		 int64_t sort_index)
{
	struct jw *w = &ct->w;
	char key[32];

	ev_begin(ct, "M", NULL, pid, tid);
	jw_puts(w, ",\"name\":\"");
	jw_puts(w, what);
	jw_puts(w, "_name\",\"args\":{\"name\":");
	jw_str(w, name);
	jw_puts(w, "}}");
	snprintf(key, sizeof(key), "%s_sort_index", what);
	ev_begin(ct, "M", NULL, pid, tid);
	jw_puts(w, ",\"name\":\"");
	jw_puts(w, key);
	jw_puts(w, "\",\"args\":{\"sort_index\":");
	jw_i64(w, sort_index);
	jw_puts(w, "}}");
}

/* Announce a host process and thread the first time one of their events is written. */
static void host_track(struct ct *ct, uint32_t pid, uint32_t tid)
{
	const struct chrome_trace_names *nm = ct->nm;
	const char *name;
	char tmp[64];
	int r;

	r = keyset_add(&ct->procs, pid);
	if (r < 0)
		ct->err = r;
	if (r > 0) {
		name = nm && nm->process_name ? nm->process_name(nm->ctx, pid) : NULL;
		if (!name) {
			snprintf(tmp, sizeof(tmp), "pid %" PRIu32, pid);
			name = tmp;
		}
		/* Host processes first, by pid; GPUs after them (see gpu_track()). */
		meta(ct, "process", pid, 0, name, pid);
	}
	r = keyset_add(&ct->threads, (uint64_t)pid << 32 | tid);
	if (r < 0)
		ct->err = r;
	if (r > 0) {
		name = nm && nm->thread_name ? nm->thread_name(nm->ctx, pid, tid) : NULL;
		if (!name) {
			snprintf(tmp, sizeof(tmp), "thread %" PRIu32, tid);
			name = tmp;
		}
		meta(ct, "thread", pid, tid, name, tid);
	}
}

static void gpu_track(struct ct *ct, uint32_t device, uint32_t stream)
{
	const struct chrome_trace_names *nm = ct->nm;
	uint32_t pid = CHROME_TRACE_GPU_PID_BASE + device;
	const char *dev;
	char tmp[320];
	int r;

	r = keyset_add(&ct->procs, pid);
	if (r < 0)
		ct->err = r;
	if (r > 0) {
		dev = nm && nm->device_name ? nm->device_name(nm->ctx, device) : NULL;
		if (dev && *dev)
			snprintf(tmp, sizeof(tmp), "GPU %" PRIu32 " (%.256s)", device, dev);
		else
			snprintf(tmp, sizeof(tmp), "GPU %" PRIu32, device);
		meta(ct, "process", pid, 0, tmp, (int64_t)pid);
	}
	r = keyset_add(&ct->threads, (uint64_t)pid << 32 | stream);
	if (r < 0)
		ct->err = r;
	if (r > 0) {
		snprintf(tmp, sizeof(tmp), "stream %" PRIu32, stream);
		meta(ct, "thread", pid, stream, tmp, stream);
	}
}

/* The leaf frame's name; without a symbolizer the innermost address (user side first). */
static const char *leaf_name(struct ct *ct, uint32_t pid, const struct tl_stack *st, char *tmp,
			     size_t len)
{
	const struct chrome_trace_names *nm = ct->nm;
	const char *name = nm && nm->stack_leaf ? nm->stack_leaf(nm->ctx, pid, st) : NULL;
	const uint64_t *f;

	if (name)
		return name;
	if (!st->nr_user && !st->nr_kernel)
		return "[unknown]";
	f = timeline__frames(ct->tl, st);
	if (!f)
		return "[unknown]";
	snprintf(tmp, len, "0x%" PRIx64, f[0]);
	return tmp;
}

static const char *task_state(uint32_t state)
{
	/* The kernel's TASK_* bits at switch-out, as ps(1) letters. */
	switch (state) {
	case 0x0:
		return "R";
	case 0x1:
		return "S";
	case 0x2:
		return "D";
	case 0x4:
		return "T";
	case 0x8:
		return "t";
	case 0x40:
		return "P";
	case 0x402:
		return "I";
	default:
		return "?";
	}
}

static const char *memcpy_kind(unsigned k)
{
	/* CUpti_ActivityMemcpyKind, as the folded files' "[memcpy HtoD]" spell it. */
	static const char *const names[] = {
	    "unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
	    "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP",
	};

	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "unknown";
}

static uint64_t earliest(const struct timeline *tl)
{
	uint64_t t = UINT64_MAX;
	size_t i;

	/* gpu, samples and offcpu are sorted by time; api by thread first. */
	if (tl->nr_gpu)
		t = tl->gpu[0].start;
	if (tl->nr_samples && tl->samples[0].ts < t)
		t = tl->samples[0].ts;
	if (tl->nr_offcpu && tl->offcpu[0].start < t)
		t = tl->offcpu[0].start;
	for (i = 0; i < tl->nr_api; i++)
		if (tl->api[i].start < t)
			t = tl->api[i].start;
	return t == UINT64_MAX ? 0 : t;
}

static void write_api(struct ct *ct, size_t i, const uint64_t *flows)
{
	const struct tl_api *a = &ct->tl->api[i];
	struct jw *w = &ct->w;
	const char *name = timeline__str(ct->tl, a->name);

	host_track(ct, a->pid, a->tid);
	ev_begin(ct, "X", "cuda_api", a->pid, a->tid);
	jw_puts(w, ",\"name\":");
	jw_str(w, *name ? name : "[unknown API]");
	ev_ts(ct, a->start);
	ev_dur(ct, a->start, a->end);
	if (flows[i / 64] >> (i % 64) & 1) {
		/* bind_id: the API record's index + 1, unique across processes (correlation ids are
		 * not). */
		jw_puts(w, ",\"bind_id\":");
		jw_u64(w, (uint64_t)i + 1);
		jw_puts(w, ",\"flow_out\":true");
	}
	jw_puts(w, ",\"args\":{\"api\":");
	jw_str(w, name);
	jw_puts(w, ",\"correlation_id\":");
	jw_u64(w, a->corr);
	jw_puts(w, ",\"return\":");
	jw_i64(w, a->ret);
	jw_puts(w, a->domain == 2 ? ",\"domain\":\"driver\"}}" : ",\"domain\":\"runtime\"}}");
}

static void write_sample(struct ct *ct, const struct tl_sample *s)
{
	struct jw *w = &ct->w;
	char tmp[32];

	host_track(ct, s->pid, s->tid);
	/* An instant, not a slice: a sample is a point, and a slice of the
	 * period's width would overlap API slices and break their nesting. */
	ev_begin(ct, "i", "cpu_sample", s->pid, s->tid);
	jw_puts(w, ",\"s\":\"t\",\"name\":");
	jw_str(w, leaf_name(ct, s->pid, &s->stack, tmp, sizeof(tmp)));
	ev_ts(ct, s->ts);
	jw_puts(w, ",\"args\":{\"weight_ns\":");
	jw_u64(w, s->weight);
	jw_puts(w, ",\"cpu\":");
	jw_u64(w, s->cpu);
	jw_puts(w, "}}");
}

static void write_offcpu(struct ct *ct, const struct tl_offcpu *o)
{
	struct jw *w = &ct->w;
	const char *leaf;
	char tmp[32];

	host_track(ct, o->pid, o->tid);
	ev_begin(ct, "X", "off_cpu", o->pid, o->tid);
	leaf = leaf_name(ct, o->pid, &o->stack, tmp, sizeof(tmp));
	jw_puts(w, ",\"name\":");
	jw_str_prefixed(w, "[off-cpu] ", leaf);
	ev_ts(ct, o->start);
	ev_dur(ct, o->start, o->end);
	jw_puts(w, ",\"args\":{\"state\":\"");
	jw_puts(w, task_state(o->state));
	jw_puts(w, "\",\"task_state\":");
	jw_u64(w, o->state);
	jw_puts(w, ",\"cpu\":");
	jw_u64(w, o->cpu);
	jw_puts(w, "}}");
}

static void write_gpu(struct ct *ct, size_t i, const struct correlation *c)
{
	const struct tl_gpu *g = &ct->tl->gpu[i];
	const struct chrome_trace_names *nm = ct->nm;
	uint32_t pid = CHROME_TRACE_GPU_PID_BASE + g->device;
	struct jw *w = &ct->w;
	const char *mangled = timeline__str(ct->tl, g->name), *name = NULL, *cat;
	uint64_t dur = g->end > g->start ? g->end - g->start : 0;
	char tmp[48];

	switch (g->kind) {
	case TL_GPU_KERNEL:
		cat = "gpu_kernel";
		if (nm && nm->kernel_name && *mangled)
			name = nm->kernel_name(nm->ctx, mangled);
		if (!name)
			name = *mangled ? mangled : "[unknown kernel]";
		break;
	case TL_GPU_MEMCPY:
		cat = "gpu_memcpy";
		snprintf(tmp, sizeof(tmp), "[memcpy %s]", memcpy_kind(g->copy_kind));
		name = tmp;
		break;
	case TL_GPU_MEMSET:
		cat = "gpu_memset";
		name = "[memset]";
		break;
	default:
		return;
	}
	gpu_track(ct, g->device, g->stream);
	ev_begin(ct, "X", cat, pid, g->stream);
	jw_puts(w, ",\"name\":");
	jw_str(w, name);
	ev_ts(ct, g->start);
	ev_dur(ct, g->start, g->end);
	if (c->gpu_api[i] >= 0 && (size_t)c->gpu_api[i] < ct->tl->nr_api) {
		jw_puts(w, ",\"bind_id\":");
		jw_u64(w, (uint64_t)c->gpu_api[i] + 1);
		jw_puts(w, ",\"flow_in\":true");
	}
	jw_puts(w, ",\"args\":{\"kind\":\"");
	jw_puts(w, g->kind == TL_GPU_KERNEL   ? "kernel"
		   : g->kind == TL_GPU_MEMCPY ? "memcpy"
					      : "memset");
	jw_puts(w, "\"");
	if (g->kind == TL_GPU_KERNEL && name != mangled && *mangled) {
		jw_puts(w, ",\"mangled\":");
		jw_str(w, mangled);
	}
	if (g->kind == TL_GPU_MEMCPY) {
		jw_puts(w, ",\"copy_kind\":\"");
		jw_puts(w, memcpy_kind(g->copy_kind));
		jw_puts(w, "\"");
	}
	if (g->kind != TL_GPU_KERNEL) {
		jw_puts(w, ",\"bytes\":");
		jw_u64(w, g->bytes);
		if (dur) {
			/* bytes per ns is GB/s; milli-GB/s in 128 bits cannot overflow. */
			unsigned __int128 m = (unsigned __int128)g->bytes * 1000 / dur;

			jw_puts(w, ",\"bandwidth_GBps\":");
			jw_us(w, m > UINT64_MAX ? UINT64_MAX : (uint64_t)m);
		}
	}
	jw_puts(w, ",\"correlation_id\":");
	jw_u64(w, g->corr);
	jw_puts(w, ",\"device\":");
	jw_u64(w, g->device);
	jw_puts(w, ",\"stream\":");
	jw_u64(w, g->stream);
	if (g->graph_id) {
		jw_puts(w, ",\"graph_id\":");
		jw_u64(w, g->graph_id);
	}
	jw_puts(w, "}}");
}

int chrome_trace__write(const struct timeline *tl, const struct correlation *c,
			const struct chrome_trace_names *names, gzFile out)
{
	struct ct *ct = NULL;
	uint64_t *flows = NULL;
	size_t i, s, o;
	int err = 0;

	if (!tl || !c || !out || c->nr_gpu != tl->nr_gpu || (tl->nr_gpu && !c->gpu_api))
		return -EINVAL;
	ct = calloc(1, sizeof(*ct));
	/* One bit per API call: does any GPU work join to it (then it starts a flow)? */
	flows = calloc(tl->nr_api / 64 + 1, sizeof(*flows));
	if (!ct || !flows) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < tl->nr_gpu; i++) {
		int64_t a = c->gpu_api[i];

		if (tl->gpu[i].kind != TL_GPU_SYNC && a >= 0 && (size_t)a < tl->nr_api)
			flows[a / 64] |= 1ULL << (a % 64);
	}
	ct->w.gz = out;
	ct->tl = tl;
	ct->nm = names;
	ct->base = earliest(tl);
	ct->first = 1;

	jw_puts(&ct->w, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"gpuperf\"},"
			"\"traceEvents\":[");
	for (i = 0; i < tl->nr_api && !ct->err; i++)
		write_api(ct, i, flows);
	/* Samples and off-CPU spans in one time order, so each thread's events ascend. */
	for (s = 0, o = 0; (s < tl->nr_samples || o < tl->nr_offcpu) && !ct->err;) {
		if (o == tl->nr_offcpu ||
		    (s < tl->nr_samples && tl->samples[s].ts <= tl->offcpu[o].start))
			write_sample(ct, &tl->samples[s++]);
		else
			write_offcpu(ct, &tl->offcpu[o++]);
	}
	for (i = 0; i < tl->nr_gpu && !ct->err; i++)
		write_gpu(ct, i, c);
	jw_puts(&ct->w, "\n]}\n");
	jw_flush(&ct->w);
	/* Push zlib's own buffer out too, so that a full disk shows here, not only at gzclose(). */
	if (!ct->w.err && gzflush(out, Z_SYNC_FLUSH) != Z_OK)
		ct->w.err = -EIO;
	err = ct->err ? ct->err : ct->w.err;
cleanup:
	if (ct) {
		free(ct->procs.slots);
		free(ct->threads.slots);
	}
	free(ct);
	free(flows);
	return err;
}
