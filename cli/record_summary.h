/* SPDX-License-Identifier: Apache-2.0 */
/*
 * record_summary.h - what `gpuperf record` says about a recording when it
 * ends: DIR/record.json for the report and for tools, and a few lines on
 * stderr for the user.
 *
 * record.json is a contract with the report (docs/architecture.md): the
 * command line (for -p, the attached process's, read while it ran), the
 * recording's window on CLOCK_REALTIME and CLOCK_MONOTONIC as exact
 * integers, the options, the program's exit, the agent's counters, and one
 * entry per GPU trace with the records its writer could not store and why.
 * Every loss counted by a recorder is in record.json and, as a warning
 * with its cause, in the summary.
 */
#ifndef GPUPERF_RECORD_SUMMARY_H
#define GPUPERF_RECORD_SUMMARY_H

struct cpu_agent_stats;
struct record;

/* -p: keep the first attached process's command line (it may exit while recorded). */
void record_summary__read_cmdline(struct record *r);

/*
 * Write DIR/record.json (@st: the agent's counters, NULL without --cpu): 0
 * or -errno (printed; r->write_failed set).
 */
int record_summary__json(struct record *r, const struct cpu_agent_stats *st);

/* Print the summary: how the program ended, the files written, and every loss. */
void record_summary__print(struct record *r, const struct cpu_agent_stats *st);

#endif /* GPUPERF_RECORD_SUMMARY_H */
