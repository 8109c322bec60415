/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memory_stats.h - the "memory" section of summary.json and its lines in the
 * text report, from tl->mem (joined by correlate__run()).
 */
#ifndef GPUPERF_MEMORY_STATS_H
#define GPUPERF_MEMORY_STATS_H

#include <stdio.h>

struct cJSON;
struct memory_stats;
struct report_state;

/*
 * Sets *out to NULL when the recording has no memory records (then the
 * others write nothing); 0 or -ENOMEM.
 */
int memory_stats__build(struct report_state *r, struct memory_stats **out);
/* Accepts NULL. */
void memory_stats__free(struct memory_stats *ms);
void memory_stats__add_json(const struct memory_stats *ms, struct cJSON *root);
void memory_stats__write_text(const struct memory_stats *ms, FILE *out);

#endif /* GPUPERF_MEMORY_STATS_H */
