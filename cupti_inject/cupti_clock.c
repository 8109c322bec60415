// SPDX-License-Identifier: Apache-2.0
/* CUPTI's timestamp callback (CLOCK_MONOTONIC) and clock-pair records. */

#include "cupti_clock.h"

#include <errno.h>
#include <time.h>

#include "cupti_call.h"
#include "gp_record.h"
#include "gp_writer.h"

static uint64_t read_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t cupti_clock__monotonic_ns(void)
{
	return read_clock(CLOCK_MONOTONIC);
}

uint64_t cupti_clock__realtime_ns(void)
{
	return read_clock(CLOCK_REALTIME);
}

/* Called by CUPTI for every timestamp it takes: vDSO clock_gettime, no syscall. */
static uint64_t CUPTIAPI monotonic_cb(void)
{
	return read_clock(CLOCK_MONOTONIC);
}

int cupti_clock__install(void)
{
	if (GP_CUPTI_CALL(ActivityRegisterTimestampCallback, (monotonic_cb)) != CUPTI_SUCCESS)
		return -EIO;
	return 0;
}

int cupti_clock__write_pair(struct gp_writer *w, int use_cupti)
{
	struct gp_rec_clock_pair *p;
	uint64_t cupti_ts = 0, mono0, mono1;

	/* Bracket the CUPTI read with two MONOTONIC reads and keep the midpoint. */
	mono0 = cupti_clock__monotonic_ns();
	if (!use_cupti || gp_cupti.GetTimestamp(&cupti_ts) != CUPTI_SUCCESS)
		cupti_ts = 0;
	mono1 = cupti_clock__monotonic_ns();
	p = gp_writer__reserve(w, GP_REC_CLOCK_PAIR, sizeof(*p));
	if (!p)
		return -errno;
	p->monotonic_ns = mono0 + (mono1 - mono0) / 2;
	p->producer_ts = cupti_ts ? cupti_ts : p->monotonic_ns;
	p->realtime_ns = cupti_clock__realtime_ns();
	p->source = GP_CLOCKSRC_CUPTI;
	gp_writer__commit(w);
	return 0;
}
