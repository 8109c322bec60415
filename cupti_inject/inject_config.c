// SPDX-License-Identifier: Apache-2.0
/* GPUPERF_* environment variables of the injection library: parsing, validation, defaults. */

#include "inject_config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gp_util.h"
#include "inject_log.h"

/*
 * 256 KiB: a buffer being filled, one being converted and a few free ones
 * stay resident, so the buffer size sets the library's memory in steady
 * state (1M launches on the simulator: ~2.5 MiB less peak RSS than with
 * 1 MiB buffers, bench/RESULTS.md); the count keeps 64 MiB for bursts.
 */
#define DEF_BUFFER_SIZE (256u << 10)
#define MIN_BUFFER_SIZE (16u << 10)
#define MAX_BUFFER_SIZE (256u << 20)
/*
 * Room for bursts: CUPTI may hand over a backlog at once, and a declined
 * buffer loses records. Only pages CUPTI writes become resident, and all but
 * a few free buffers are given back after a burst (act_buf.h).
 */
#define DEF_BUFFER_COUNT 256u
#define MAX_BUFFER_COUNT 1024u
#define DEF_FLUSH_MS 1000u
#define MIN_FLUSH_MS 10u
#define MAX_FLUSH_MS 3600000u
/*
 * Level 1, not the writer's size-tuned default: on a launch-bound program the
 * writer's CPU competes with the application (bench/RESULTS.md); 2..9 trade
 * CPU for size, 0 stores chunks uncompressed (25-35% less of the writer's
 * CPU, 3-10 times the bytes).
 */
#define DEF_ZLEVEL 1
/*
 * The writer thread runs below the application's threads. At the same
 * priority, on a machine without an idle core, it takes turns with the
 * launching thread and with CUPTI's own worker, and the launching thread
 * slows: 1M launches on 2 cores cost ~200 ns more per launch than under a
 * client that discards its buffers, against about nothing at nice 10 or 19
 * (bench/RESULTS.md). 10 rather than 19: on a saturated machine the writer
 * still gets about a tenth of a core against each busy thread (19: 1.5%),
 * which keeps up with some 300k launches per second; past that the pool
 * holds the backlog, then records are dropped and counted.
 */
#define DEF_WRITER_NICE 10

static void warn(struct inject_config *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(struct inject_config *c, const char *fmt, ...)
{
	va_list ap;

	if (c->nwarnings >= INJ_CONFIG_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(c->warnings[c->nwarnings++], sizeof(c->warnings[0]), fmt, ap);
	va_end(ap);
}

/* Unsigned integer with an optional k/K/m/M suffix (binary units). */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	v = strtoull(s, &end, 10);
	if (errno)
		return -errno;
	if (*end == 'k' || *end == 'K') {
		v <<= 10;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		v <<= 20;
		end++;
	}
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

static uint32_t env_u32(struct inject_config *c, const char *name, uint32_t def, uint32_t min,
			uint32_t max)
{
	const char *s = getenv(name);
	uint64_t v;

	if (!s || !*s)
		return def;
	if (parse_size(s, &v) || v < min || v > max) {
		warn(c, "%s='%s' is not a number in [%u, %u]; using %u", name, s, min, max, def);
		return def;
	}
	return (uint32_t)v;
}

static void env_path(struct inject_config *c, const char *name, char *dst, size_t size,
		     const char *def)
{
	const char *s = getenv(name);

	if (!s || !*s)
		s = def;
	if (strlen(s) >= size) {
		warn(c, "%s is longer than %zu bytes; using '%s'", name, size - 1, def);
		s = def;
	}
	snprintf(dst, size, "%s", s);
}

static uint32_t parse_kinds(struct inject_config *c, const char *s)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} names[] = {
		{ "api", INJ_KIND_API },       { "kernel", INJ_KIND_KERNEL },
		{ "memcpy", INJ_KIND_MEMCPY }, { "memset", INJ_KIND_MEMSET },
		{ "sync", INJ_KIND_SYNC },     { "device", INJ_KIND_DEVICE },
		{ "memory", INJ_KIND_MEMORY },
		{ "all", INJ_KIND_ALL },
	};
	uint32_t kinds = 0;
	char buf[256], *tok, *save = NULL;
	size_t i;

	if (!s || !*s)
		return INJ_KIND_ALL;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (!strcasecmp(tok, names[i].name))
				break;
		if (i == ARRAY_SIZE(names))
			warn(c, "GPUPERF_ACTIVITY: unknown kind '%s' ignored "
				"(known: api,kernel,memcpy,memset,sync,device,memory,all)", tok);
		else
			kinds |= names[i].bit;
	}
	if (!kinds) {
		warn(c, "GPUPERF_ACTIVITY='%s' selects nothing; recording all kinds", s);
		kinds = INJ_KIND_ALL;
	}
	return kinds;
}

static int parse_level(struct inject_config *c, const char *s)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	int i;

	if (!s || !*s)
		return INJECT_LOG_WARN;
	for (i = 0; i < 4; i++)
		if (!strcasecmp(s, names[i]))
			return i;
	if (!strcasecmp(s, "warning"))
		return INJECT_LOG_WARN;
	warn(c, "GPUPERF_LOG='%s' is not one of error, warn, info, debug; using warn", s);
	return INJECT_LOG_WARN;
}

static int parse_bool(struct inject_config *c, const char *name, int def)
{
	const char *s = getenv(name);

	if (!s || !*s)
		return def;
	if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "on") ||
	    !strcasecmp(s, "true"))
		return 1;
	if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "off") ||
	    !strcasecmp(s, "false"))
		return 0;
	warn(c, "%s='%s' is not 0 or 1; using %d", name, s, def);
	return def;
}

void inject_config__load(struct inject_config *c)
{
	memset(c, 0, sizeof(*c));
	c->log_level = parse_level(c, getenv("GPUPERF_LOG"));
	env_path(c, "GPUPERF_LOG_FILE", c->log_file, sizeof(c->log_file), "");
	env_path(c, "GPUPERF_DIR", c->dir, sizeof(c->dir) - 32, ".");
	env_path(c, "GPUPERF_CUPTI_LIB", c->cupti_lib, sizeof(c->cupti_lib), "");
	c->buffer_size = env_u32(c, "GPUPERF_BUFFER_SIZE", DEF_BUFFER_SIZE, MIN_BUFFER_SIZE,
				 MAX_BUFFER_SIZE);
	/* CUPTI wants 8-byte aligned buffers of a size it can fill with whole records. */
	c->buffer_size &= ~7u;
	c->buffer_count = env_u32(c, "GPUPERF_BUFFER_COUNT", DEF_BUFFER_COUNT, 1, MAX_BUFFER_COUNT);
	c->flush_ms = env_u32(c, "GPUPERF_FLUSH_MS", DEF_FLUSH_MS, MIN_FLUSH_MS, MAX_FLUSH_MS);
	c->zlevel = (int)env_u32(c, "GPUPERF_ZLEVEL", DEF_ZLEVEL, 0, 9);
	c->writer_nice = (int)env_u32(c, "GPUPERF_WRITER_NICE", DEF_WRITER_NICE, 0, 19);
	c->kinds = parse_kinds(c, getenv("GPUPERF_ACTIVITY"));
	c->signals = parse_bool(c, "GPUPERF_SIGNALS", 1);
	c->stacks = parse_bool(c, "GPUPERF_STACKS", 1);
	c->stacks_fp = parse_bool(c, "GPUPERF_STACKS_FP", 0);
}
