/* SPDX-License-Identifier: Apache-2.0 */
/* summary_read.h - load and validate a summary.json (docs/summary-json.md) for `gpuperf diff`. */
#ifndef GPUPERF_SUMMARY_READ_H
#define GPUPERF_SUMMARY_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The major version this reader understands; any minor of it is read. */
#define SUMMARY_SCHEMA_NAME  "gpuperf-summary"
#define SUMMARY_SCHEMA_MAJOR 1
#define SUMMARY_SCHEMA_MINOR 0

/*
 * Only the fields `gpuperf diff` compares are kept. Fields of a newer minor
 * are ignored; a field a document leaves out reads as 0 / empty. All times
 * are ns. Plain data; everything is owned by the struct summary.
 */
struct summary_device {
	int64_t id;
	char *name; /* "" when absent */
	uint64_t busy_ns, idle_ns;
};

struct summary_kernel {
	char *name; /* demangled; the key */
	uint64_t count, total_ns, mean_ns;
	/* its main launch configuration (launch_configs[0], schema 1.2) as
	 * "<<<grid, block>>> R regs, S B shared"; "" when absent */
	char *config;
};

struct summary_memcpy {
	char *kind; /* "HtoD", ...; the key */
	uint64_t count, bytes, total_ns;
};

struct summary_site {
	char *function, *location, *api, *stack; /* key: stack + api */
	uint64_t gpu_ns, launches;
};

struct summary {
	char *path; /* the summary.json read */
	char *dir;  /* its directory (where gpu.folded lives) */
	unsigned major, minor;
	bool has_cpu; /* "cpu" present */
	uint64_t cpu_on_ns, cpu_off_ns;
	uint64_t gpu_busy_ns, gpu_idle_ns;
	struct summary_device *devices;
	size_t n_devices;
	struct summary_kernel *kernels;
	size_t n_kernels;
	struct summary_memcpy *memcpys;
	size_t n_memcpys;
	struct summary_site *sites;
	size_t n_sites;
};

/*
 * Parse a summary.json held in text[0..len). `name` names the document in
 * error messages. On error returns -EINVAL (not JSON, wrong schema, a field
 * of the wrong type) or -EPROTO (another major version) or -ENOMEM, and
 * writes one line saying what is wrong into errbuf (never printed here).
 */
int summary_read__parse(const char *text, size_t len, const char *name, struct summary **out,
			char *errbuf, size_t errsize);

/*
 * Load `path`: a summary.json file, or a report directory holding one.
 * Errors as summary_read__parse(), plus -ENOENT (missing file, or a directory
 * without summary.json) and other -errno from reading; errbuf says which.
 */
int summary_read__load(const char *path, struct summary **out, char *errbuf, size_t errsize);

/* Accepts NULL. */
void summary_read__free(struct summary *s);

#endif /* GPUPERF_SUMMARY_READ_H */
