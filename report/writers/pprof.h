/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pprof.h - a gzip'd pprof profile (profile.pb.gz), the format `go tool
 * pprof`, pprof's web UI, speedscope, Parca and Pyroscope read
 * (github.com/google/pprof, proto/profile.proto).
 *
 * A streaming encoder: the caller adds samples, each a list of locations
 * (innermost first) with one value in one sample type's column and labels.
 * A location is an address in a mapping with its lines, innermost inlined
 * function first; mappings, functions and locations are made once per
 * distinct content and named by id. What to put in them (addresses,
 * symbolized frames, labels) is the caller's: pprof_report.c for
 * `gpuperf report`.
 */
#ifndef GPUPERF_PPROF_H
#define GPUPERF_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PPROF_MAX_VIEWS 8

/* One sample type, e.g. { "cpu", "nanoseconds" }. */
struct pprof_view {
	const char *type; /* "cpu", "off_cpu", "gpu" */
	const char *unit; /* "nanoseconds" */
};

struct pprof_opts {
	uint64_t time_nanos;	 /* start of the recording, ns since the epoch; 0 unknown */
	uint64_t duration_nanos; /* length of the recording; 0 unknown */
	uint64_t period;	 /* ns between on-CPU samples; 0 unknown */
	/*
	 * The sample type pprof shows first. NULL: "gpu" when a view of that
	 * type has weight (the question gpuperf answers first: which host code
	 * is responsible for the GPU time), else the first view with weight.
	 */
	const char *default_sample_type;
};

/*
 * A mapping: a file mapped at [start, limit) from file offset `offset`,
 * or a made-up one named in brackets ("[kernel.kallsyms]", "[gpu]").
 * Identical mappings (all fields) are one. Whether its functions, files,
 * lines and inline frames are known is worked out from its locations.
 */
struct pprof_mapping {
	uint64_t start, limit, offset;
	const char *file;	 /* never NULL */
	const uint8_t *build_id; /* written as lowercase hex; NULL: none */
	size_t build_id_size;
	/* start/limit are widened to cover every address located in it (made-up mappings) */
	bool cover;
};

/* One function of a location's inline chain. Strings are copied. */
struct pprof_line {
	const char *name;	 /* never NULL */
	const char *system_name; /* the mangled name; NULL: name */
	const char *file;	 /* NULL: unknown */
	uint32_t line, start_line; /* 0: unknown */
	bool resolved;		 /* false: a placeholder name, the mapping is not symbolized */
};

/* A sample label: a string (str != NULL) or a number. */
struct pprof_label {
	const char *key;
	const char *str;
	int64_t num;
};

struct pprof;

/*
 * Start writing `path` (created or truncated, gzip'd) with sample types
 * views[0..n), 1 <= n <= PPROF_MAX_VIEWS. Returns NULL and sets errno
 * (EINVAL: bad arguments; ENOMEM; or the errno of creating the file).
 */
struct pprof *pprof__open(const char *path, const struct pprof_view *views, size_t n);

/* The id of a mapping (made when new); 0 after an error. */
uint64_t pprof__mapping(struct pprof *p, const struct pprof_mapping *m);

/*
 * The id of the location at `address` of mapping `mapping` (an id from
 * pprof__mapping()) with lines[0..n), innermost first (n >= 1), made when
 * new; 0 after an error.
 */
uint64_t pprof__location(struct pprof *p, uint64_t mapping, uint64_t address,
			 const struct pprof_line *lines, size_t n);

/*
 * A sample: locations loc[0..n) (ids, innermost first), `value` in sample
 * type `col` and 0 in the others, labels[0..nl). A value of 0 writes
 * nothing. 0, -EINVAL (col out of range), -EOVERFLOW (a value past
 * INT64_MAX, pprof's type) or an earlier error.
 */
int pprof__sample(struct pprof *p, const uint64_t *loc, size_t n, size_t col, uint64_t value,
		  const struct pprof_label *labels, size_t nl);

/*
 * Write the mappings and the profile's scalars and close the file; o may
 * be NULL. Returns 0, or the first error met since pprof__open() (-ENOMEM,
 * -EOVERFLOW, -EINVAL, the -errno of writing, -EIO when zlib does not say),
 * and then removes the file. With `abandon` the file is removed and 0 or
 * the earlier error returned. Frees p either way.
 */
int pprof__close(struct pprof *p, const struct pprof_opts *o, bool abandon);

#endif /* GPUPERF_PPROF_H */
