// SPDX-License-Identifier: Apache-2.0
/* cmd_report.c - `gpuperf report DIR`: the merger's outputs for a recording. */
#include <stdio.h>

#include "builtin.h"

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "gpuperf report: not available in this build yet\n");
	return GP_EXIT_DATA;
}
