/* SPDX-License-Identifier: Apache-2.0 */
/*
 * summary.h - summary.json (docs/summary-json.md) and the short text report
 * printed at the end of `gpuperf report`, both from one pass of statistics
 * over the report's state (report_stats.h).
 */
#ifndef GPUPERF_SUMMARY_H
#define GPUPERF_SUMMARY_H

#include <stdio.h>

struct report_state;

/* Write summary.json to path: 0, -ENOMEM or -errno of the write. */
int summary__write_json(struct report_state *r, const char *path);
/* The text report; its warnings too unless r->warnings_apart. */
void summary__write_text(struct report_state *r, FILE *out);
/* What was lost and what loading found wrong, one "warning:" line each. */
void summary__write_warnings(struct report_state *r, FILE *out);

#endif /* GPUPERF_SUMMARY_H */
