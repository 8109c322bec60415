/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_print: send libbpf's own messages to a sink the caller chooses. */
#ifndef GPUPERF_CPU_AGENT_BPF_PRINT_H
#define GPUPERF_CPU_AGENT_BPF_PRINT_H

#include <stdarg.h>

/* Same order and meaning as libbpf's LIBBPF_WARN/INFO/DEBUG. */
enum bpf_print_level {
	BPF_PRINT_WARN,
	BPF_PRINT_INFO,
	BPF_PRINT_DEBUG,
};

typedef void (*bpf_print_fn)(void *ctx, enum bpf_print_level level, const char *fmt,
			     va_list ap);

/*
 * Route every libbpf message up to @max_level to @fn(@ctx, ...); a NULL @fn
 * silences libbpf. Until this is called libbpf prints WARN and INFO to
 * stderr by itself, so a program that must keep stderr clean calls it first.
 *
 * libbpf_set_print() is process-global and its callback carries no user
 * data, so @fn and @ctx are kept in this module's one static slot: call it
 * from the boundary (main, a test) before any BPF object is opened, and not
 * concurrently with anything that uses libbpf. Library code never calls it.
 */
void bpf_print__route(bpf_print_fn fn, void *ctx, enum bpf_print_level max_level);

#endif /* GPUPERF_CPU_AGENT_BPF_PRINT_H */
