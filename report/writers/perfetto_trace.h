/* SPDX-License-Identifier: Apache-2.0 */
/*
 * perfetto_trace.h - the timeline in Perfetto's own protobuf trace format
 * (trace.pftrace), which ui.perfetto.dev and trace_processor open.
 *
 * The same picture as trace.json (chrome_trace.h), at a fraction of its
 * size and cost: no text numbers, each name written once (interned) and
 * referred to by a small id afterwards. report writes it instead of a JSON
 * trace past REPORT_GZIP_AUTO_BYTES, where JSON stops being loadable.
 *
 * Layout: one process track per traced process, a thread track per host
 * thread (CUDA API calls as slices) with a child track "off-CPU" for its off-CPU spans
 * (they can overlap an API call without nesting, which one track of
 * begin/end slices cannot show); one process track per GPU device
 * ("GPU 0 (name)", pid CHROME_TRACE_GPU_PID_BASE + device) with a child
 * track per stream (kernels, memcpys, memsets). Each launch has a flow to
 * the GPU work it issued; a graph launch one to each of its kernels, as in
 * trace.json (flows of their own: ids past the API calls'). Arguments as
 * in trace.json: correlation_id, return, bytes, bandwidth_GBps, graph_id,
 * state, cpu.
 *
 * On-CPU samples are PerfSamples (profiling/profile_packet.proto: cpu, pid,
 * tid, callstack_iid), which ui.perfetto.dev draws under their thread as
 * "Perf callstacks" (a flame graph of a selected range) and
 * trace_processor reads into perf_sample: their stacks are cpu.folded's,
 * root first, interned (callstacks, frames, function_names) once each for
 * the whole trace on the samples' one sequence. Frames are symbolized
 * already: each is in a mapping named by its kind ("cpu", "kernel",
 * "inline", "jit", as the folded files mark them), with Frame.kind
 * (KIND_NATIVE, KIND_KERNEL, KIND_JIT; kind_str "inlined").
 *
 * Encoding (what Perfetto's own SDK writes; the reader's rules are in
 * tests/merger/check_pftrace.py): the track descriptors on sequence 1, and
 * the events in a packet sequence per track and kind: a thread's API
 * calls, its off-CPU spans, a stream's GPU work; and every sample on one. A sequence's
 * first packet clears its incremental state, sets its track and clock as
 * the defaults of its packets, interns the argument names and relates its
 * clock to CLOCK_MONOTONIC; names are interned in the packet that first
 * uses them. The clock is incremental: an event's timestamp is the time
 * since the sequence's previous one, in ns (events are written in time
 * order per sequence). An event earlier than that (a driver call nested in
 * a runtime call starts before its parent's end, written first) gives its
 * CLOCK_MONOTONIC time instead. The trace's clock is CLOCK_MONOTONIC
 * (primary_trace_clock), so times are the timeline's as they are. A slice
 * is a SLICE_BEGIN and a SLICE_END packet: the reader sorts events by time,
 * and for equal times keeps the order of the file, so back-to-back slices
 * nest right. Flow ids are varints (flow_ids_old, which the reader takes
 * as flow_ids).
 */
#ifndef GPUPERF_PERFETTO_TRACE_H
#define GPUPERF_PERFETTO_TRACE_H

#include <stdint.h>

#include "chrome_trace.h"

struct timeline;
struct correlation;

/*
 * Write the whole trace to the file at path (created or truncated; written
 * with bulk_out.h's O_DIRECT where the file system allows). Names as for
 * chrome_trace__write(); names may be NULL. Returns 0, -EINVAL, -ENOMEM or
 * the -errno of a failure to create or write the file (what was written is
 * then not a whole trace).
 */
int perfetto_trace__write(const struct timeline *tl, const struct correlation *c,
			  const struct chrome_trace_names *names, const char *path);

#endif /* GPUPERF_PERFETTO_TRACE_H */
