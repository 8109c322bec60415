/* SPDX-License-Identifier: Apache-2.0 */
/*
 * record_json.h - what `gpuperf record` wrote about a recording in its
 * record.json: the sampling frequency, the command line, whether it
 * attached to running processes (-p/-t) and the window it recorded.
 */
#ifndef GPUPERF_RECORD_JSON_H
#define GPUPERF_RECORD_JSON_H

#include <stdbool.h>
#include <stdint.h>

struct record_json {
	uint32_t freq_hz;	 /* options.freq_hz, 0 when unknown */
	char *command_line_json; /* "command_line", printed JSON, or NULL; owned */
	bool attached;		 /* "attached": a recording of running processes */
	/*
	 * The window the recorder was recording, CLOCK_MONOTONIC ns; both 0
	 * unless record.json has a valid pair. The first record may come long
	 * after its start (a program's first sample) or long before it (a span
	 * that began before the recorder attached).
	 */
	uint64_t start_ns, end_ns;
};

/*
 * Read DIR/record.json into rj. A recording without one (or with one that
 * cannot be read or parsed) reads as all zeros: every field is optional.
 */
void record_json__read(struct record_json *rj, const char *dir);
void record_json__release(struct record_json *rj);

#endif /* GPUPERF_RECORD_JSON_H */
