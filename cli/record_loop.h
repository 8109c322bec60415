/* SPDX-License-Identifier: Apache-2.0 */
/*
 * record_loop.h - `gpuperf record` while it records: the program started
 * under the recorders, then the wait for the end of the recording.
 *
 * The contract: nothing the program does is missed and nothing runs
 * half-traced. It is forked held before exec (child.h), the agent attaches
 * to its pid, and only then is it let go, with the injection library in
 * its environment. The wait ends when the program exits (or, with
 * -p/-t/-a, when what was attached has exited or the user stops it), at
 * --duration, or at a second Ctrl-C; the program then gets --kill's
 * signal. The first Ctrl-C is the program's: the terminal sent it there
 * too. The agent is stopped on the way out.
 */
#ifndef GPUPERF_RECORD_LOOP_H
#define GPUPERF_RECORD_LOOP_H

struct record;

/*
 * Fork the program held, start the agent on it (with --cpu), release it
 * and set the start times: 0, or an exit status (printed) with the agent
 * freed and DIR unmade (except when no process could be made: DIR stays).
 */
int record_loop__launch(struct record *r);

/*
 * Poll the agent, reap the program, follow signals and the clock until
 * the recording ends; the live status line on a terminal. Sets
 * r->end_mono_ns and stops the agent.
 */
void record_loop__wait(struct record *r);

#endif /* GPUPERF_RECORD_LOOP_H */
