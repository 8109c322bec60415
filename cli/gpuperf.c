// SPDX-License-Identifier: Apache-2.0
/*
 * gpuperf.c - main(): global options and the subcommand table.
 *
 * How it works: argv[1] names a subcommand, looked up in `commands`; each
 * cmd_<verb>() parses its own options and returns the process exit status.
 * Commands land here as the parts behind them land (record, report, diff).
 */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "builtin.h"
#include "gp_record.h"
#include "gp_util.h"

#if GPUPERF_HAVE_CPU_AGENT
#include <bpf/libbpf.h>
#endif

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct cmd commands[] = {
	{ "diff", cmd_diff, "compare two recordings; exit 1 on a performance regression (CI gate)" },
	{ "dump", cmd_dump, "print the records of a trace file (gpu-<pid>.trace, cpu.trace)" },
	{ "flamegraph", cmd_flamegraph, "render folded stacks as an interactive SVG flame graph" },
	{ "record", cmd_record, "run a CUDA program and record its GPU (and, --cpu, CPU) side" },
	{ "report", cmd_report, "write flame graphs, timeline, pprof and summary for a recording" },
	{ "help", cmd_help, "show this help, or a command's help" },
	{ "version", cmd_version, "show the version and what it was built with" },
};

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: gpuperf <command> [<args>]\n"
		   "       gpuperf --cpu [record options] PROGRAM [ARGS...]  (record --cpu + report)\n"
		   "\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'gpuperf help <command>' shows a command's options.\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct cmd *c;
	char *help_argv[] = { NULL, (char *)"--help", NULL };

	if (argc < 2) {
		usage(stdout);
		return GP_EXIT_OK;
	}
	c = find_cmd(argv[1]);
	if (!c || c->fn == cmd_help) {
		fprintf(stderr, "gpuperf: no help for '%s': not a gpuperf command\n", argv[1]);
		return GP_EXIT_USAGE;
	}
	help_argv[0] = argv[1];
	return c->fn(2, help_argv);
}

static int cmd_version(int argc, char **argv)
{
	printf("gpuperf %s (trace format %u.%u, zlib %s)\n", GPUPERF_VERSION, GP_FORMAT_MAJOR,
	       GP_FORMAT_MINOR, zlibVersion());
#ifdef GPUPERF_CUPTI_API_VERSION
	printf("GPU side: built with CUPTI API version %d (CUDA %s)\n", GPUPERF_CUPTI_API_VERSION,
	       GPUPERF_CUDA_VERSION);
#else
	printf("GPU side: built without CUDA: no injection library\n");
#endif
#if GPUPERF_HAVE_CPU_AGENT
	printf("CPU side (--cpu): built with libbpf %d.%d (running %s)\n", LIBBPF_MAJOR_VERSION,
	       LIBBPF_MINOR_VERSION, libbpf_version_string());
#else
	printf("CPU side (--cpu): not built (no eBPF agent in this build)\n");
#endif
	return GP_EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		usage(stderr);
		return GP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv);
	if (!strcmp(argv[1], "--version"))
		return cmd_version(1, argv);
	if (!strcmp(argv[1], "--cpu"))
		return cmd_record_report(argc - 1, argv + 1);
	c = find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr, "gpuperf: '%s' is not a gpuperf command; see 'gpuperf help'\n", argv[1]);
		return GP_EXIT_USAGE;
	}
	return c->fn(argc - 1, argv + 1);
}
