// SPDX-License-Identifier: Apache-2.0
/*
 * perfetto_callstacks.c - the samples' call stacks on their sequence: one
 * mapping per kind of frame, each frame and each callstack interned the
 * first time a sample needs it (a bit per stack node says which are).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bulk_out.h"
#include "chrome_trace.h"
#include "correlate.h"
#include "gp_alloc.h"
#include "gp_record.h"
#include "gp_util.h"
#include "perfetto_trace_priv.h"
#include "stack_agg.h"
#include "timeline.h"
#include "u64map.h"

/* The mapping a frame of kind k is in: by kind, as the folded files mark frames (pt_sample_header()). */
static const char *const map_names[] = { "cpu", "kernel", "inline", "jit" };

static inline unsigned mapping_of(unsigned kind)
{
	switch (kind) {
	case GP_FRAME_KERNEL_CPU:
		return 2;
	case GP_FRAME_INLINE:
		return 3;
	case GP_FRAME_JIT:
		return 4;
	default:
		return 1;
	}
}

/*
 * The samples' sequence's mappings, one per kind of frame, named as their
 * kinds ("/kernel" is the kernel's, as Perfetto's own profiler names it):
 * frames are symbolized already, so a mapping only says what the code is.
 */
void pt_sample_header(struct pt *pt, struct seq *sq)
{
	uint8_t *p = pk_room(pt, 256), *idata, *m;
	unsigned i;

	if (!p)
		return;
	p = put_uint(p, PKT_SEQUENCE_ID, sq->id);
	p = msg_open(p, PKT_INTERNED_DATA, &idata);
	for (i = 0; i < 4; i++) {
		p = msg_open(p, ID_MAPPING_PATHS, &m);
		p = put_uint(p, IN_IID, i + 1);
		p = msg_close(m, put_bytes(p, IN_NAME, map_names[i], strlen(map_names[i])));
	}
	for (i = 0; i < 4; i++) {
		p = msg_open(p, ID_MAPPINGS, &m);
		p = put_uint(p, MAP_IID, i + 1);
		p = msg_close(m, put_uint(p, MAP_PATH_STRING_IDS, i + 1));
	}
	pk_emit(pt, msg_close(idata, p));
}

/* Intern frame f (symbol f->sym) on sq: its function name and the frame, a packet of their own. */
static void intern_frame(struct pt *pt, struct seq *sq, const struct chrome_trace_frame *f)
{
	size_t n = f->len < MAX_NAME ? f->len : name_len(f->name);
	uint8_t *p = pk_room(pt, 64 + n), *idata, *m;

	if (!p)
		return;
	p = put_uint(p, PKT_SEQUENCE_ID, sq->id);
	p = msg_open(p, PKT_INTERNED_DATA, &idata);
	p = msg_open(p, ID_FUNCTION_NAMES, &m);
	p = put_uint(p, IN_IID, f->sym);
	p = msg_close(m, put_bytes(p, IN_NAME, f->name, n));
	p = msg_open(p, ID_FRAMES, &m);
	p = put_uint(p, FR_IID, f->sym);
	p = put_uint(p, FR_FUNCTION_NAME_ID, f->sym);
	p = put_uint(p, FR_MAPPING_ID, mapping_of(f->kind));
	p = put_uint(p, FR_REL_PC, 0); /* symbolized: no address (a mapping wants one) */
	switch (f->kind) {
	case GP_FRAME_KERNEL_CPU:
		p = put_uint(p, FR_KIND, FRAME_KIND_KERNEL);
		break;
	case GP_FRAME_JIT:
		p = put_uint(p, FR_KIND, FRAME_KIND_JIT);
		break;
	case GP_FRAME_INLINE:
		p = put_bytes(p, FR_KIND_STR, "inlined", 7);
		break;
	default:
		p = put_uint(p, FR_KIND, FRAME_KIND_NATIVE);
		break;
	}
	p = msg_close(m, p);
	pk_emit(pt, msg_close(idata, p));
}

/*
 * Intern the callstack whose innermost node is leaf on sq (iid: leaf),
 * and before it the frames that are new: those of symbols past
 * pt->syms_done, which only the nodes of the newest stack can have,
 * numbered root first.
 */
void pt_intern_callstack(struct pt *pt, struct seq *sq, uint32_t leaf)
{
	struct chrome_trace_frame f;
	uint32_t id, hi = pt->syms_done;
	size_t n = 0, i;
	uint8_t *p, *idata, *m;

	for (id = leaf; id; id = f.parent) {
		if (GP_ALLOC_GROW(pt->path, n + 1, pt->path_cap)) {
			pt->err = -ENOMEM;
			return;
		}
		pt->path[n++] = id;
		chrome_trace__stack_node(pt->stacks, id, &f);
	}
	for (i = n; i-- > 0 && !pt->err;) {
		chrome_trace__stack_node(pt->stacks, pt->path[i], &f);
		if (f.sym > hi) { /* a recursion's second frame of a new symbol: not again */
			intern_frame(pt, sq, &f);
			hi = f.sym;
		}
	}
	pt->syms_done = (uint32_t)chrome_trace__nr_syms(pt->stacks);
	p = pk_room(pt, 64 + 12 * n);
	if (!p)
		return;
	p = put_uint(p, PKT_SEQUENCE_ID, sq->id);
	p = msg_open(p, PKT_INTERNED_DATA, &idata);
	p = msg_open(p, ID_CALLSTACKS, &m);
	p = put_uint(p, CS_IID, leaf);
	for (i = n; i-- > 0;) { /* root first */
		chrome_trace__stack_node(pt->stacks, pt->path[i], &f);
		p = put_uint(p, CS_FRAME_IDS, f.sym);
	}
	p = msg_close(m, p);
	pk_emit(pt, msg_close(idata, p));
}

/*
 * An on-CPU sample: a PerfSample (what ui.perfetto.dev draws under its
 * thread as "Perf callstacks", a flame graph for a selected range) with
 * its cpu, pid, tid and callstack. All samples are on one sequence, so
 * that each distinct stack and frame is interned once for the whole trace.
 */
