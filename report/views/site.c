// SPDX-License-Identifier: Apache-2.0
/* site.c - launch and allocation sites, by the text of their frames (site.h). */
#include "site.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "gp_alloc.h"
#include "symbolize.h"
#include "timeline.h"

/*
 * Launch sites: a site is the exact call, so its identity is the text of
 * its user frames each with the file:line of its call (what its return
 * address resolves to) and the API: two calls on two lines of one function
 * are two sites, and every process of a run and every run of a binary
 * still agree on it (addresses move with ASLR, lines do not).
 */
static int site_text_add(char **text, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (GP_ALLOC_GROW(*text, *len + n + 1, *cap))
		return -ENOMEM;
	memcpy(*text + *len, s, n);
	*len += n;
	(*text)[*len] = '\0';
	return 0;
}

int site__get(const struct frames *fr, struct frame_buf *fb, struct site **sites, size_t *nr,
	      size_t *cap_sites, const struct tl_api *a, const struct tl_stack *lst,
	      const char *kernel)
{
	char *text = NULL;
	size_t len = 0, i, cap = 0;

	fb->n = 0;
	if (frames__launch_site(fr, timeline__api_pid(fr->tl, a), lst, kernel, fb))
		return -ENOMEM;
	for (i = 0; i < fb->n; i++) {
		const struct sym_frame *sf = fb->src[i];
		char at[300] = "";
		int err;

		if (sf && sf->file && sf->line) {
			const char *base = strrchr(sf->file, '/');

			snprintf(at, sizeof(at), " (%s:%u)", base ? base + 1 : sf->file, sf->line);
		}
		err = site_text_add(&text, &len, &cap, ";", len ? 1 : 0);
		if (!err)
			err =
			    site_text_add(&text, &len, &cap, fb->f[i].name, strlen(fb->f[i].name));
		if (!err)
			err = site_text_add(&text, &len, &cap, at, strlen(at));
		if (err) {
			free(text);
			return err;
		}
	}
	if (!text && !(text = strdup("")))
		return -ENOMEM;
	for (i = 0; i < *nr; i++)
		if (!strcmp((*sites)[i].stack, text) &&
		    !strcmp((*sites)[i].api, frames__api_name(fr, a)))
			break;
	if (i == *nr) {
		struct site *st;

		if (GP_ALLOC_GROW(*sites, *nr + 1, *cap_sites)) {
			free(text);
			return -ENOMEM;
		}
		st = &(*sites)[(*nr)++];
		memset(st, 0, sizeof(*st));
		st->stack = text;
		text = NULL;
		st->api = frames__api_name(fr, a);
		st->function = fb->n ? fb->f[fb->n - 1].name : "[unknown]";
		if (fb->n && fb->src[fb->n - 1] && fb->src[fb->n - 1]->file &&
		    fb->src[fb->n - 1]->line) {
			/* the launching function's line: where the launch is written */
			const struct sym_frame *sf = fb->src[fb->n - 1];
			const char *base = strrchr(sf->file, '/');

			snprintf(st->location, sizeof(st->location), "%s:%u",
				 base ? base + 1 : sf->file, sf->line);
		}
	}
	free(text);
	return (int)i;
}
