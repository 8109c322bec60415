// SPDX-License-Identifier: Apache-2.0
/* bpf_print: send libbpf's own messages to a sink the caller chooses. */
#include "bpf_print.h"

#include <bpf/libbpf.h>

_Static_assert((int)BPF_PRINT_WARN == (int)LIBBPF_WARN && (int)BPF_PRINT_INFO == (int)LIBBPF_INFO &&
		       (int)BPF_PRINT_DEBUG == (int)LIBBPF_DEBUG,
	       "bpf_print levels must mirror libbpf's");

/* The one slot libbpf_set_print() forces on us: its callback has no user data. */
static struct {
	bpf_print_fn fn;
	void *ctx;
	enum bpf_print_level max_level;
} route;

static int bpf_print_trampoline(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (route.fn && (int)level <= (int)route.max_level)
		route.fn(route.ctx, (enum bpf_print_level)level, fmt, ap);
	return 0;
}

void bpf_print__route(bpf_print_fn fn, void *ctx, enum bpf_print_level max_level)
{
	route.fn = fn;
	route.ctx = ctx;
	route.max_level = max_level;
	libbpf_set_print(bpf_print_trampoline);
}
