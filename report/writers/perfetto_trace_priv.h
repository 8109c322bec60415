/* SPDX-License-Identifier: Apache-2.0 */
/*
 * perfetto_trace_priv.h - what the Perfetto writer's files share: the
 * writer (struct pt) and its packet sequences (struct seq), the packet
 * buffer, and the calls between its files:
 *
 *   perfetto_trace.c        sequences, events, the document
 *   perfetto_tracks.c       track descriptors: processes, threads, GPUs, streams
 *   perfetto_callstacks.c   the samples' mappings, frames and callstacks, interned
 */
#ifndef GPUPERF_PERFETTO_TRACE_PRIV_H
#define GPUPERF_PERFETTO_TRACE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bulk_out.h"
#include "perfetto_proto.h"
#include "u64map.h"

struct timeline;
struct correlation;
struct chrome_trace_names;
struct chrome_trace_stacks;


/* Entries of a sequence's cache of interned names, and of the cache of sequences: powers of two. */
#define SEQ_CACHE 64
#define SEQ_FIND_CACHE 16

/* Bytes of a kernel's launch configuration arguments: five of at most 14. */
#define KC_ARGS_MAX 80

/* The sequence of the track descriptors; each event sequence has an id above it. */
#define SEQ_ID 1

/* Debug annotation names, interned in each event sequence's first packet as iid = index + 1. */
enum arg {
	ARG_CORRELATION_ID,
	ARG_RETURN,
	ARG_BYTES,
	ARG_BANDWIDTH,
	ARG_GRAPH_ID,
	ARG_STATE,
	ARG_TASK_STATE,
	ARG_CPU,
	ARG_GRID,
	ARG_BLOCK,
	ARG_REGS,
	ARG_SMEM,
	ARG_DYN_SMEM,
	NR_ARGS,
};
static const char *const arg_names[NR_ARGS] = {
	"correlation_id", "return", "bytes", "bandwidth_GBps", "graph_id", "state", "task_state",
	"cpu", "grid", "block", "registers_per_thread", "shared_memory", "dynamic_shared_memory",
};

/* Names are cut to this many bytes, so that any packet fits in the buffer. */
#define MAX_NAME (16u << 10)

enum key_kind {
	K_API_NAME = 1, /* a: timeline string id */
	K_KERNEL_NAME,	/* a: timeline string id */
	K_OFFCPU_LEAF,	/* a: stack pool offset, b: pid */
	K_COPY_NAME,	/* a: memcpy kind */
	K_MEMSET_NAME,
	K_PROC_TRACK, /* a: pid */
	K_THREAD_TRACK, /* a: pid, b: tid */
	K_OFFCPU_TRACK, /* a: pid, b: tid */
	K_GPU_TRACK,	/* a: device */
	K_STREAM_TRACK, /* a: device, b: stream */
	K_DIMS,		/* a: tl_gpu.kconfig, b: 0 grid, 1 block (an interned string value) */
	K_SAMPLE_SEQ,	/* the sequence of every sample */
	K_MEM_TRACK,	/* a: device: its "GPU memory" counter */
};

/* kind in the top 4 bits, a (28 bits), b (32 bits) */
static inline uint64_t key_of(enum key_kind kind, uint32_t a, uint32_t b)
{
	return (uint64_t)kind << 60 | (uint64_t)(a & 0x0fffffffu) << 32 | b;
}

struct pt {
	const struct timeline *tl;
	const struct chrome_trace_names *nm;
	struct bulk_out *bo;
	int err;
	uint8_t *out; /* BULK_OUT_CAP bytes, the output buffer */
	size_t out_len;
	uint8_t *pk_len_at; /* the length byte of the packet being built */
	struct u64map tracks; /* track uuids by what they show */
	uint32_t next_uuid;
	struct seq **seqs; /* event sequences, id SEQ_ID + 1 + index */
	size_t nr_seqs, seqs_alloc;
	struct u64map seq_of; /* by the key of what they hold: index + 1 in seqs */
	struct {
		uint64_t key;
		struct seq *sq;
	} seq_cache[SEQ_FIND_CACHE]; /* seq_of looked up, direct-mapped: samples and spans of a few threads alternate */
	struct seq **api_seq; /* by tl_api.thr */
	struct seq **lane_seq; /* by tl_gpu.lane: a lane's stream, looked up once */
	const struct correlation *c; /* which API calls start flows (correlation__flow()) */
	/* The samples: one sequence, its stacks interned on it (write_sample()). */
	struct chrome_trace_stacks *stacks;
	struct seq *sample_seq;
	uint64_t sample_thread; /* the thread of the previous sample, its track announced */
	uint64_t *cs_done;	/* a bit per stack node: its callstack is interned */
	size_t cs_done_words;
	uint32_t syms_done;	/* symbols up to this one are interned as frames */
	uint32_t *path;		/* scratch: a callstack's nodes */
	size_t path_cap;
	/*
	 * The device work of launches that issued several records (a graph),
	 * sorted by launch then record: each such record has a flow of its
	 * own, id nr_api + its index + 1, which its launch's slice starts.
	 */
	struct fan {
		uint32_t api;
		uint32_t pad;
		uint64_t gpu;
	} *fan;
	size_t nr_fan, fan_at; /* fan_at: the first entry of the next launch write_api() meets */
};

/*
 * A packet sequence of events, all on one track: the API calls of a thread,
 * its samples, its off-CPU spans, the work of a GPU stream. Its first
 * packet clears its incremental state, makes its track and the clock
 * below the defaults, interns the argument names and starts the clock. The
 * clock is incremental: an event's timestamp is the time since the
 * sequence's previous event (a varint of 1-3 bytes instead of 6-7). An
 * event earlier than that (a nested API call, which starts before its
 * parent's end was written) gives its time on CLOCK_MONOTONIC instead and
 * leaves the clock where it was.
 */
struct seq {
	uint32_t id;
	uint64_t last;	     /* the incremental clock: the time of its last event */
	struct u64map names; /* interned on this sequence: key -> iid */
	uint32_t next_iid, next_sval_iid;
	struct {
		uint64_t key;
		uint32_t iid;
	} cache[SEQ_CACHE]; /* names looked up, direct-mapped: a few alternate on a track */
	/* After its timestamp, a SLICE_END packet: the sequence id and the event, */
	uint8_t end_tail[16];
	uint8_t end_tail_len;
	/* and any other event's start: the sequence id and the event's tag. */
	uint8_t ev_head[8];
	uint8_t ev_head_len;
	uint16_t kc_kcfg;	/* the launch configuration whose arguments were last written */
	uint8_t kc_len;		/* and those arguments, encoded (kconfig_args()) */
	uint8_t kc_args[KC_ARGS_MAX];
};


/* Write the output buffer out (perfetto_tracks.c); an error stays in pt->err. */
void pt_out_flush(struct pt *pt);

/*
 * Start a packet of up to n bytes (names cut to MAX_NAME keep n far below
 * BULK_OUT_CAP) in the output buffer: the cursor for its body. Packets are
 * built in place; pk_emit() fills in the length.
 */
static inline uint8_t *pk_room(struct pt *pt, size_t n)
{
	uint8_t *p;

	if (BULK_OUT_CAP - pt->out_len < n + 16)
		pt_out_flush(pt);
	if (pt->err)
		return NULL;
	p = put_varint(pt->out + pt->out_len, TAG(TRACE_PACKET, WT_LEN));
	pt->pk_len_at = p;
	return p + 1;
}

/* The packet started by pk_room() ends at end. */
static inline void pk_emit(struct pt *pt, uint8_t *end)
{
	pt->out_len = (size_t)(msg_close(pt->pk_len_at, end) - pt->out);
}

/* Bytes of name to write: all of it, or up to MAX_NAME cut at a UTF-8 character's start. */
static inline size_t name_len(const char *name)
{
	size_t n = strnlen(name, MAX_NAME);

	if (n == MAX_NAME)
		while (n && ((unsigned char)name[n] & 0xc0) == 0x80)
			n--;
	return n;
}

/* ---- tracks ---- */

/* perfetto_tracks.c: each track's uuid, its descriptor written the first time */
uint32_t pt_host_track(struct pt *pt, uint32_t pid, uint32_t tid);
uint32_t pt_offcpu_track(struct pt *pt, uint32_t pid, uint32_t tid);
uint32_t pt_stream_track(struct pt *pt, uint32_t device, uint32_t stream);
uint32_t pt_mem_track(struct pt *pt, uint32_t device);

/* perfetto_callstacks.c */
void pt_sample_header(struct pt *pt, struct seq *sq);
void pt_intern_callstack(struct pt *pt, struct seq *sq, uint32_t leaf);

#endif /* GPUPERF_PERFETTO_TRACE_PRIV_H */
