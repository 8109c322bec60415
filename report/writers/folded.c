// SPDX-License-Identifier: Apache-2.0
/* folded.c - the folded stack writer and a forgiving reader of flamegraph.pl's input. */
#include "folded.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"
#include "stack_agg.h"

struct line_buf {
	char *s;
	size_t len, cap;
};

static int buf_reserve(struct line_buf *b, size_t extra)
{
	return GP_ALLOC_GROW(b->s, b->len + extra, b->cap);
}

static const char *annotation(enum gp_frame_kind kind)
{
	switch (kind) {
	case GP_FRAME_KERNEL_CPU:
		return "_[k]";
	case GP_FRAME_INLINE:
		return "_[i]";
	case GP_FRAME_JIT:
		return "_[j]";
	case GP_FRAME_WAKER:
		return "_[w]";
	default:
		return NULL;
	}
}

struct write_ctx {
	FILE *out;
	unsigned flags;
	struct line_buf buf;
	size_t *path_len; /* buf.len after frame d, indexed by depth */
};

static int write_enter(void *arg, const struct stack_agg_node *node)
{
	struct write_ctx *w = arg;
	const char *name = node->name[0] ? node->name : "[unknown]";
	const char *ann = (w->flags & FOLDED_ANNOTATE) ? annotation(node->kind) : NULL;
	size_t nlen = strlen(name), alen = ann ? strlen(ann) : 0, i;
	char *dst;
	char num[24];
	int numlen;

	if (node->depth == 0) {
		w->path_len[0] = 0;
		return 0;
	}
	if (!node->total)
		return 1; /* nothing below carries weight */
	w->buf.len = w->path_len[node->depth - 1];
	if (buf_reserve(&w->buf, nlen + alen + 1))
		return -ENOMEM;
	dst = w->buf.s + w->buf.len;
	if (node->depth > 1)
		*dst++ = ';';
	for (i = 0; i < nlen; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == ';')
			c = ':';
		else if (c == '\t')
			c = ' ';
		else if (c < 0x20 || c == 0x7f)
			c = '?';
		*dst++ = (char)c;
	}
	if (ann) {
		memcpy(dst, ann, alen);
		dst += alen;
	}
	w->buf.len = (size_t)(dst - w->buf.s);
	w->path_len[node->depth] = w->buf.len;
	if (!node->self)
		return 0;
	numlen = snprintf(num, sizeof(num), " %llu\n", (unsigned long long)node->self);
	if (fwrite(w->buf.s, 1, w->buf.len, w->out) != w->buf.len ||
	    fwrite(num, 1, (size_t)numlen, w->out) != (size_t)numlen)
		return -EIO;
	return 0;
}

int folded__write(struct stack_agg *agg, FILE *out, unsigned flags)
{
	struct write_ctx w = { .out = out, .flags = flags };
	int err;

	if (!agg || !out)
		return -EINVAL;
	w.path_len = calloc((size_t)stack_agg__max_depth(agg) + 1, sizeof(*w.path_len));
	if (!w.path_len)
		return -ENOMEM;
	err = stack_agg__walk(agg, write_enter, NULL, &w);
	if (!err && fflush(out))
		err = -EIO;
	free(w.path_len);
	free(w.buf.s);
	return err;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Parse "123" or "123.45" (rounded); false when not a number or too big. */
static bool parse_count(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (!len || s[0] < '0' || s[0] > '9')
		return false;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (i < len && s[i] == '.') {
		size_t j = i + 1;

		for (; j < len; j++)
			if (s[j] < '0' || s[j] > '9')
				return false;
		if (j > i + 1 && s[i + 1] >= '5') {
			if (v == UINT64_MAX)
				return false;
			v++;
		}
		i = j;
	}
	if (i != len)
		return false;
	*out = v;
	return true;
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Strip a trailing _[k]/_[i]/_[j]/_[w] in place and return the kind it names. */
static enum gp_frame_kind strip_annotation(char *name, size_t *len)
{
	size_t n = *len;

	if (n >= 4 && name[n - 4] == '_' && name[n - 3] == '[' && name[n - 1] == ']') {
		enum gp_frame_kind kind;

		switch (name[n - 2]) {
		case 'k':
			kind = GP_FRAME_KERNEL_CPU;
			break;
		case 'i':
			kind = GP_FRAME_INLINE;
			break;
		case 'j':
			kind = GP_FRAME_JIT;
			break;
		case 'w':
			kind = GP_FRAME_WAKER;
			break;
		default:
			return GP_FRAME_CPU;
		}
		name[n - 4] = '\0';
		*len = n - 4;
		return kind;
	}
	return GP_FRAME_CPU;
}

static enum gp_frame_kind marker_kind(const char *name)
{
	if (name[0] != '[')
		return GP_FRAME_CPU;
	if (starts_with(name, "[gpu] "))
		return GP_FRAME_GPU_KERNEL;
	if (starts_with(name, "[memcpy"))
		return GP_FRAME_GPU_MEMCPY;
	if (starts_with(name, "[memset"))
		return GP_FRAME_GPU_MEMSET;
	if (starts_with(name, "[sync"))
		return GP_FRAME_GPU_SYNC;
	if (!strcmp(name, "[off-cpu]"))
		return GP_FRAME_OFFCPU;
	if (!strcmp(name, "[no launch stack]") || !strcmp(name, "[unknown stack]"))
		return GP_FRAME_SYNTHETIC;
	return GP_FRAME_CPU;
}

#define FRAMES_ON_STACK 128

int folded__parse_line(struct stack_agg *agg, char *line, size_t len, unsigned flags)
{
	struct stack_frame local[FRAMES_ON_STACK], *frames = local, *heap = NULL;
	size_t heap_alloc = 0, n = 0, end, sep, i, start;
	bool offcpu = false;
	uint64_t count;
	int err;

	while (len && is_space(line[len - 1]))
		len--;
	if (!len)
		return 0;
	for (sep = len; sep && !is_space(line[sep - 1]); sep--)
		;
	if (!sep || !parse_count(line + sep, len - sep, &count))
		return -EINVAL;
	end = sep - 1;
	while (end && is_space(line[end - 1]))
		end--;
	if (!end)
		return -EINVAL;
	if (memchr(line, '\0', end))
		return -EINVAL; /* a NUL byte: not text */
	line[end] = '\0';

	for (start = 0, i = 0; i <= end; i++) {
		size_t flen;
		enum gp_frame_kind kind;

		if (i < end && line[i] != ';')
			continue;
		line[i] = '\0';
		flen = i - start;
		kind = strip_annotation(line + start, &flen);
		if (flags & FOLDED_READ_MARKERS) {
			if (kind == GP_FRAME_CPU)
				kind = marker_kind(line + start);
			if (kind == GP_FRAME_OFFCPU)
				offcpu = true;
			else if (offcpu && kind <= GP_FRAME_JIT)
				kind = GP_FRAME_OFFCPU;
		}
		if (n >= FRAMES_ON_STACK) { /* past the stack's array: on to the heap */
			if (GP_ALLOC_GROW(heap, n + 1, heap_alloc)) {
				err = -ENOMEM;
				goto cleanup;
			}
			if (frames == local)
				memcpy(heap, local, sizeof(local));
			frames = heap;
		}
		frames[n].name = line + start;
		frames[n].kind = kind;
		n++;
		start = i + 1;
	}
	err = stack_agg__add(agg, frames, n, count);
	if (err == -EOVERFLOW || err == -EINVAL)
		err = -EINVAL;
	else if (!err)
		err = 1;
cleanup:
	free(heap);
	return err;
}

int folded__read(struct stack_agg *agg, FILE *in, unsigned flags, struct folded_read_stats *stats)
{
	struct folded_read_stats st = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	int err = 0;

	if (!agg || !in)
		return -EINVAL;
	while ((got = getline(&line, &cap, in)) >= 0) {
		int r;

		st.lines++;
		r = folded__parse_line(agg, line, (size_t)got, flags);
		if (r == -ENOMEM) {
			err = r;
			break;
		}
		if (r == 1) {
			st.stacks++;
		} else if (r < 0) {
			if (!st.bad_lines)
				st.first_bad_line = st.lines;
			st.bad_lines++;
		}
	}
	if (!err && ferror(in))
		err = -EIO;
	free(line);
	if (stats)
		*stats = st;
	return err;
}
