// SPDX-License-Identifier: Apache-2.0
/*
 * perfetto_tracks.c - trace.pftrace's tracks: a uuid for each process,
 * thread, off-CPU lane, GPU, stream and memory counter, its descriptor
 * packet written the first time an event needs it; and the flush of the
 * output buffer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bulk_out.h"
#include "chrome_trace.h"
#include "correlate.h"
#include "gp_alloc.h"
#include "gp_record.h"
#include "gp_util.h"
#include "perfetto_trace_priv.h"
#include "stack_agg.h"
#include "timeline.h"
#include "u64map.h"

void pt_out_flush(struct pt *pt)
{
	uint8_t *next;

	if (pt->err)
		return;
	next = bulk_out__flush(pt->bo, pt->out_len, &pt->out_len);
	if (next)
		pt->out = next;
	else
		pt->err = -errno;
}


static uint32_t new_uuid(struct pt *pt, uint64_t key)
{
	uint32_t uuid = ++pt->next_uuid;

	if (u64map_put(&pt->tracks, key, uuid)) {
		pt->err = -ENOMEM;
		return 0;
	}
	return uuid;
}

/*
 * Start a TrackDescriptor packet for track uuid, with room for n bytes of
 * names: the cursor for its other fields (NULL on error), *td for
 * track_close().
 */
static uint8_t *track_open(struct pt *pt, uint32_t uuid, size_t n, uint8_t **td)
{
	uint8_t *p = pk_room(pt, 64 + n);

	if (!p)
		return NULL;
	p = put_uint(p, PKT_SEQUENCE_ID, SEQ_ID);
	p = msg_open(p, PKT_TRACK_DESCRIPTOR, td);
	return put_uint(p, TD_UUID, uuid);
}

static void track_close(struct pt *pt, uint8_t *td, uint8_t *p)
{
	pk_emit(pt, msg_close(td, p));
}

/* A process track (ProcessDescriptor) named name. */
static void process_track(struct pt *pt, uint32_t uuid, uint32_t pid, const char *name)
{
	size_t n = name_len(name);
	uint8_t *td, *pd, *p = track_open(pt, uuid, n, &td);

	if (!p)
		return;
	p = msg_open(p, TD_PROCESS, &pd);
	p = put_uint(p, PD_PID, pid);
	p = put_bytes(p, PD_PROCESS_NAME, name, n);
	track_close(pt, td, msg_close(pd, p));
}

/* A track named name (a short name of ours) under track parent. */
static void child_track(struct pt *pt, uint32_t uuid, uint32_t parent, const char *name)
{
	size_t n = strlen(name);
	uint8_t *td, *p = track_open(pt, uuid, n, &td);

	if (!p)
		return;
	p = put_uint(p, TD_PARENT_UUID, parent);
	track_close(pt, td, put_bytes(p, TD_NAME, name, n));
}

/* The uuid of a host thread's track, announcing it (and its process) the first time. */
uint32_t pt_host_track(struct pt *pt, uint32_t pid, uint32_t tid)
{
	const struct chrome_trace_names *nm = pt->nm;
	uint64_t key = key_of(K_THREAD_TRACK, pid, tid);
	uint32_t uuid;
	const char *name;
	char tmp[64];
	uint8_t *p, *td, *th;
	size_t n;

	uuid = u64map_get(&pt->tracks, key);
	if (!uuid) {
		uint64_t pkey = key_of(K_PROC_TRACK, pid, 0);

		if (!u64map_get(&pt->tracks, pkey)) {
			uint32_t puuid = new_uuid(pt, pkey);

			name = nm && nm->process_name ? nm->process_name(nm->ctx, pid) : NULL;
			if (!name) {
				snprintf(tmp, sizeof(tmp), "pid %" PRIu32, pid);
				name = tmp;
			}
			process_track(pt, puuid, pid, name);
		}
		uuid = new_uuid(pt, key);
		name = nm && nm->thread_name ? nm->thread_name(nm->ctx, pid, tid) : NULL;
		if (!name) {
			snprintf(tmp, sizeof(tmp), "thread %" PRIu32, tid);
			name = tmp;
		}
		n = name_len(name);
		p = track_open(pt, uuid, n, &td);
		if (!p)
			return 0;
		p = msg_open(p, TD_THREAD, &th);
		p = put_uint(p, THD_PID, pid);
		p = put_uint(p, THD_TID, tid);
		p = put_bytes(p, THD_THREAD_NAME, name, n);
		track_close(pt, td, msg_close(th, p));
	}
	return uuid;
}

/*
 * The uuid of a host thread's off-CPU track: a child of its thread track.
 * Off-CPU spans and CUDA API calls come from different clocks' sources
 * (the scheduler, CUPTI) and can overlap without nesting by a few
 * microseconds; on one track a SLICE_END closes the innermost open slice,
 * so such a pair would cut each other short.
 */
uint32_t pt_offcpu_track(struct pt *pt, uint32_t pid, uint32_t tid)
{
	uint64_t key = key_of(K_OFFCPU_TRACK, pid, tid);
	uint32_t uuid = u64map_get(&pt->tracks, key), parent;

	if (uuid)
		return uuid;
	parent = pt_host_track(pt, pid, tid);
	uuid = new_uuid(pt, key);
	child_track(pt, uuid, parent, "off-CPU");
	return uuid;
}

/* The uuid of a GPU's process track, announcing it the first time. */
static uint32_t gpu_track(struct pt *pt, uint32_t device)
{
	const struct chrome_trace_names *nm = pt->nm;
	uint64_t dkey = key_of(K_GPU_TRACK, device, 0);
	uint32_t duuid = u64map_get(&pt->tracks, dkey);
	char tmp[320];

	if (!duuid) {
		const char *dev = nm && nm->device_name ? nm->device_name(nm->ctx, device) : NULL;

		duuid = new_uuid(pt, dkey);
		if (dev && *dev)
			snprintf(tmp, sizeof(tmp), "GPU %" PRIu32 " (%.256s)", device, dev);
		else
			snprintf(tmp, sizeof(tmp), "GPU %" PRIu32, device);
		process_track(pt, duuid, CHROME_TRACE_GPU_PID_BASE + device, tmp);
	}
	return duuid;
}

/* The uuid of a GPU stream's track: a child of the device's process track. */
uint32_t pt_stream_track(struct pt *pt, uint32_t device, uint32_t stream)
{
	uint64_t key = key_of(K_STREAM_TRACK, device, stream);
	uint32_t uuid, duuid;
	char tmp[32];

	uuid = u64map_get(&pt->tracks, key);
	if (!uuid) {
		duuid = gpu_track(pt, device);
		uuid = new_uuid(pt, key);
		snprintf(tmp, sizeof(tmp), "stream %" PRIu32, stream);
		child_track(pt, uuid, duuid, tmp);
	}
	return uuid;
}

/* The uuid of a GPU's "GPU memory" counter track (bytes), under its process track. */
uint32_t pt_mem_track(struct pt *pt, uint32_t device)
{
	static const char name[] = "GPU memory";
	uint64_t key = key_of(K_MEM_TRACK, device, 0);
	uint32_t uuid = u64map_get(&pt->tracks, key), parent;
	uint8_t *td, *cd, *p;

	if (uuid)
		return uuid;
	parent = gpu_track(pt, device);
	uuid = new_uuid(pt, key);
	p = track_open(pt, uuid, sizeof(name), &td);
	if (!p)
		return 0;
	p = put_uint(p, TD_PARENT_UUID, parent);
	p = put_bytes(p, TD_NAME, name, sizeof(name) - 1);
	p = msg_open(p, TD_COUNTER, &cd);
	p = put_uint(p, CD_UNIT, UNIT_SIZE_BYTES);
	track_close(pt, td, msg_close(cd, p));
	return uuid;
}

