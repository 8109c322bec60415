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
 * thread (CUDA API calls as slices, on-CPU samples as instants named by
 * their leaf frame) with a child track "off-CPU" for its off-CPU spans
 * (they can overlap an API call without nesting, which one track of
 * begin/end slices cannot show); one process track per GPU device
 * ("GPU 0 (name)", pid CHROME_TRACE_GPU_PID_BASE + device) with a child
 * track per stream (kernels, memcpys, memsets). Each launch has a flow to
 * the GPU work it issued (a graph launch's flow goes on from kernel to
 * kernel). Arguments as in trace.json: correlation_id, return, bytes,
 * bandwidth_GBps, graph_id, state, cpu.
 *
 * Encoding: one packet sequence (id 1) whose first packet clears the
 * incremental state; every packet that names something by an interned id
 * says it needs that state; names are interned in the packet that first
 * uses them. A slice is a SLICE_BEGIN and a SLICE_END packet, written one
 * after the other: the reader sorts packets by time, and for equal times
 * keeps the order of the file, so back-to-back slices nest right.
 * Timestamps are the timeline's CLOCK_MONOTONIC ns as they are.
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
