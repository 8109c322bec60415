/* SPDX-License-Identifier: Apache-2.0 */
/*
 * act_parse.h - one CUPTI activity record -> one gpuperf trace record.
 *
 * Pure conversion: it reads the record, reserves/interns/commits on the
 * writer it is given (and the graph_mem table it is given: a read), and
 * touches nothing else (no CUPTI call, no global),
 * so it is used from the writer thread only, like the writer itself.
 * API records whose call is not in api_filter's list are skipped.
 */
#ifndef GPUPERF_ACT_PARSE_H
#define GPUPERF_ACT_PARSE_H

#include <stdint.h>

#include <cupti.h>

struct gp_writer;
struct graph_mem;

struct act_parse_stats {
	uint64_t api, api_skipped, kernel, memcpy, memset, sync, device, memory, unknown, failed;
};

/*
 * Append the record for `a` to `w`. 1 if a record was written, 0 if the
 * activity was skipped (kind not converted, API not in the list), -errno
 * when the writer refused it (counted in st->failed). gm: where a graph
 * allocation's node is looked up (graph_mem.h), or NULL.
 */
int act_parse__record(struct gp_writer *w, const CUpti_Activity *a, uint32_t pid,
		      struct graph_mem *gm, struct act_parse_stats *st);

#endif /* GPUPERF_ACT_PARSE_H */
