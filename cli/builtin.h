/* SPDX-License-Identifier: Apache-2.0 */
/* builtin.h - the subcommands of gpuperf, one cmd_<verb>() each (git's builtin table). */
#ifndef GPUPERF_BUILTIN_H
#define GPUPERF_BUILTIN_H

#include <stdio.h>

/* Exit statuses every subcommand keeps to. */
#define GP_EXIT_OK 0
#define GP_EXIT_DATA 1	/* bad or damaged input data */
#define GP_EXIT_USAGE 2 /* bad command line */

int cmd_diff(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
/* `report` with its text report on @text (cmd_report: stdout). */
int report_main(int argc, char **argv, FILE *text);
/* `gpuperf --cpu ARGS`: argv[0] is "--cpu"; record --cpu ARGS, then report the directory. */
int cmd_record_report(int argc, char **argv);

#endif /* GPUPERF_BUILTIN_H */
