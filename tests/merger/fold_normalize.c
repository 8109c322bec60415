// SPDX-License-Identifier: Apache-2.0
/* fold_normalize.c - test tool: read a folded file (kinds from markers) and write it back with the folded writer. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "folded.h"
#include "stack_agg.h"

int main(int argc, char **argv)
{
	struct folded_read_stats st;
	struct stack_agg *agg;
	FILE *in;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: fold_normalize FILE.folded > OUT.folded\n");
		return 2;
	}
	in = fopen(argv[1], "r");
	if (!in) {
		fprintf(stderr, "fold_normalize: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	agg = stack_agg__new();
	err = agg ? folded__read(agg, in, FOLDED_READ_MARKERS, &st) : -ENOMEM;
	fclose(in);
	if (!err)
		err = folded__write(agg, stdout, FOLDED_ANNOTATE);
	if (!err && st.bad_lines)
		fprintf(stderr, "fold_normalize: %llu bad lines\n", (unsigned long long)st.bad_lines);
	stack_agg__free(agg);
	if (err) {
		fprintf(stderr, "fold_normalize: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}
