/* SPDX-License-Identifier: Apache-2.0 */
/*
 * perfetto_proto.h - the protobuf wire format as trace.pftrace needs it:
 * the field numbers of Perfetto's messages we write, and inline encoders
 * that write at a cursor into a buffer with room for what is written.
 */
#ifndef GPUPERF_PERFETTO_PROTO_H
#define GPUPERF_PERFETTO_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>


/*
 * A hand-written encoder, for the reasons pprof.c gives: a trace is one
 * repeated field of small messages, written as they come, and the per-event
 * path is a few varints. Field numbers: Perfetto's protos/perfetto/trace/
 * (trace_packet.proto, track_event/track_event.proto, track_descriptor.proto,
 * process_descriptor.proto, thread_descriptor.proto, debug_annotation.proto,
 * interned_data/interned_data.proto).
 */
enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

#define TAG(field, wt) (((field) << 3) | (wt))

/* Trace */
#define TRACE_PACKET 1
/* TracePacket */
#define PKT_CLOCK_SNAPSHOT    6
#define PKT_TIMESTAMP	      8
#define PKT_SEQUENCE_ID	      10 /* trusted_packet_sequence_id */
#define PKT_TRACK_EVENT	      11
#define PKT_INTERNED_DATA     12
#define PKT_SEQUENCE_FLAGS    13
#define PKT_TIMESTAMP_CLOCK_ID 58
#define PKT_DEFAULTS	      59 /* trace_packet_defaults */
#define PKT_TRACK_DESCRIPTOR  60
#define PKT_PERF_SAMPLE	      66
#define SEQ_INCREMENTAL_STATE_CLEARED 1
/* TracePacketDefaults */
#define DEF_TIMESTAMP_CLOCK_ID 58
#define DEF_TRACK_EVENT	       11 /* track_event_defaults */
/* TrackEventDefaults */
#define TED_TRACK_UUID 11
/* ClockSnapshot, ClockSnapshot.Clock */
#define CS_CLOCKS	       1
#define CS_PRIMARY_TRACE_CLOCK 2
#define CLK_ID		       1
#define CLK_TIMESTAMP	       2
#define CLK_IS_INCREMENTAL     3
#define CLOCK_MONOTONIC_ID     3  /* BuiltinClock BUILTIN_CLOCK_MONOTONIC */
#define CLOCK_BOOTTIME_ID      6  /* BUILTIN_CLOCK_BOOTTIME */
#define CLOCK_INCREMENTAL_ID   64 /* the first sequence-scoped clock id */
/* TrackEvent */
#define TE_DEBUG_ANNOTATIONS 4
#define TE_TYPE		     9
#define TE_NAME_IID	     10
#define TE_FLOW_IDS	     36 /* flow_ids_old: varint; the reader takes it as flow_ids (47, fixed64) */
#define TE_TERMINATING_FLOW_IDS 42 /* terminating_flow_ids_old, likewise (48) */
#define TYPE_SLICE_BEGIN 1
#define TYPE_SLICE_END	 2
#define TYPE_INSTANT	 3
#define TYPE_COUNTER	 4
#define TE_COUNTER_VALUE 30
/* TrackDescriptor */
#define TD_UUID	       1
#define TD_NAME	       2
#define TD_PROCESS     3
#define TD_THREAD      4
#define TD_PARENT_UUID 5
#define TD_COUNTER     8 /* CounterDescriptor */
#define CD_UNIT	       3
#define UNIT_SIZE_BYTES 3
/* PerfSample (profiling/profile_packet.proto) */
#define PS_CPU		 1
#define PS_PID		 2
#define PS_TID		 3
#define PS_CALLSTACK_IID 4
#define PS_CPU_MODE	 5
#define CPU_MODE_KERNEL	 1 /* Profiling.CpuMode */
#define CPU_MODE_USER	 2
/* Mapping, Frame, Callstack (profiling/profile_common.proto) */
#define MAP_IID		     1
#define MAP_PATH_STRING_IDS  7
#define FR_IID		     1
#define FR_FUNCTION_NAME_ID  2
#define FR_MAPPING_ID	     3
#define FR_REL_PC	     4
#define FR_KIND		     7
#define FR_KIND_STR	     8
#define FRAME_KIND_NATIVE    1 /* Frame.Kind */
#define FRAME_KIND_KERNEL    2
#define FRAME_KIND_JIT	     4
#define CS_IID		     1
#define CS_FRAME_IDS	     2
/* ProcessDescriptor */
#define PD_PID		1
#define PD_PROCESS_NAME 6
/* ThreadDescriptor */
#define THD_PID		1
#define THD_TID		2
#define THD_THREAD_NAME 5
/* InternedData */
#define ID_EVENT_NAMES		   2
#define ID_DEBUG_ANNOTATION_NAMES 3
#define ID_DEBUG_ANNOTATION_STRING_VALUES 29
#define ID_FUNCTION_NAMES	   5
#define ID_FRAMES		   6
#define ID_CALLSTACKS		   7
#define ID_MAPPING_PATHS	   17
#define ID_MAPPINGS		   19
/* EventName, DebugAnnotationName; InternedString (its text: field 2, "str") */
#define IN_IID	1
#define IN_NAME 2
/* DebugAnnotation */
#define DA_NAME_IID	1
#define DA_UINT_VALUE	3
#define DA_INT_VALUE	4
#define DA_DOUBLE_VALUE 5
#define DA_STRING_VALUE 6
#define DA_STRING_VALUE_IID 17

/* ---- encoding: a cursor into the packet buffer, which has room for what is written ---- */

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint8_t *put_uint(uint8_t *p, unsigned field, uint64_t v)
{
	return put_varint(put_varint(p, TAG(field, WT_VARINT)), v);
}

static inline uint8_t *put_fixed64(uint8_t *p, unsigned field, uint64_t v)
{
	p = put_varint(p, TAG(field, WT_I64));
	for (int i = 0; i < 8; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static inline uint8_t *put_bytes(uint8_t *p, unsigned field, const char *s, size_t n)
{
	p = put_varint(put_varint(p, TAG(field, WT_LEN)), n);
	memcpy(p, s, n);
	return p + n;
}

/*
 * A nested message: open() writes the tag and one byte for the length,
 * close() fills it in, moving the body along when the length needs more
 * bytes (long names only). Returns the cursor after the message.
 */
static inline uint8_t *msg_open(uint8_t *p, unsigned field, uint8_t **len_at)
{
	p = put_varint(p, TAG(field, WT_LEN));
	*len_at = p;
	return p + 1;
}

static inline uint8_t *msg_close(uint8_t *len_at, uint8_t *end)
{
	size_t n = (size_t)(end - len_at - 1);
	uint8_t tmp[10], *q;
	size_t k;

	if (n < 0x80) {
		*len_at = (uint8_t)n;
		return end;
	}
	q = put_varint(tmp, n);
	k = (size_t)(q - tmp);
	memmove(len_at + k, len_at + 1, n);
	memcpy(len_at, tmp, k);
	return end + k - 1;
}


#endif /* GPUPERF_PERFETTO_PROTO_H */
