/* SPDX-License-Identifier: Apache-2.0 */
/* diff.h - compare summaries of a base and a new recording: the logic behind `gpuperf diff`. */
#ifndef GPUPERF_DIFF_H
#define GPUPERF_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct summary;

/* What a row measures; each metric has its own threshold (diff_opts). All are ns. */
enum diff_metric {
	DIFF_GPU_BUSY = 0, /* "all devices", and each device when a run has several */
	DIFF_GPU_IDLE,
	DIFF_KERNEL, /* total_ns per kernel name (count and mean shown beside) */
	DIFF_MEMCPY, /* total_ns per copy kind (bytes shown beside) */
	DIFF_SITE,   /* gpu_ns per launch site (stack + api); with by_site only */
	DIFF_CPU_ON,
	DIFF_CPU_OFF,
	DIFF_METRIC_COUNT
};

/* The metric's name in options, config files and output ("kernel", "gpu_busy", ...). */
const char *diff_metric__name(enum diff_metric m);
/* Returns the metric for a name, or -1. */
int diff_metric__parse(const char *name);

enum diff_status {
	DIFF_OK = 0,	  /* changed less than the threshold */
	DIFF_REGRESSION,  /* slower beyond the threshold and beyond the noise */
	DIFF_IMPROVEMENT, /* faster beyond the threshold and beyond the noise */
	DIFF_NOISE,	  /* changed, but no more than the runs' spread: never a regression */
	DIFF_NEW,	  /* absent from every base run */
	DIFF_GONE,	  /* absent from every new run */
	DIFF_BELOW_MIN,	  /* base and new both under min_time_ns */
	DIFF_STATUS_COUNT
};

/* "regression", "improvement", "ok", "noise", "new", "gone", "below-min". */
const char *diff_status__name(enum diff_status s);

/* A per-name rule from a config file: first matching rule wins. */
struct diff_rule {
	char *pattern;	  /* POSIX extended regex over the row's item */
	double threshold; /* percent; < 0: the metric's */
	bool ignore;	  /* leave matching rows out */
	void *re;	  /* compiled (regex_t *), owned */
};

/*
 * Settings. Initialize with diff_opts__init(), release with
 * diff_opts__release(). Thresholds are percentages; a metric's threshold < 0
 * means "use `threshold`".
 */
struct diff_opts {
	double threshold;			    /* [5] */
	double metric_threshold[DIFF_METRIC_COUNT]; /* [-1] */
	uint64_t min_time_ns;			    /* [10000] */
	bool by_site;				    /* compare launch sites */
	bool fail_on_new;			    /* a new item above min_time is a regression */
	struct diff_rule *rules;		    /* owned */
	size_t n_rules, rules_alloc;
};

void diff_opts__init(struct diff_opts *o);
void diff_opts__release(struct diff_opts *o);

/*
 * Apply "--threshold" text: "5", "kernel=3,memcpy=10" or both ("4,kernel=3").
 * Returns 0 or -EINVAL with a message in errbuf.
 */
int diff_opts__parse_thresholds(struct diff_opts *o, const char *text, char *errbuf,
				size_t errsize);

/* Add a rule (a copy of pattern is compiled). Returns 0, -EINVAL (bad regex, message in
 * errbuf) or -ENOMEM. */
int diff_opts__add_rule(struct diff_opts *o, const char *pattern, double threshold, bool ignore,
			char *errbuf, size_t errsize);

/*
 * Apply a JSON config (docs/diff.md): {"threshold": 5, "thresholds": {"kernel": 3},
 * "min_time_ns": 10000, "by_site": false, "fail_on_new": false, "ignore": ["re", ...],
 * "rules": [{"match": "re", "threshold": 10}]}. Unknown keys are refused (a typo
 * in a CI gate must not pass silently). Returns 0 or -EINVAL with errbuf set.
 */
int diff_opts__parse_config(struct diff_opts *o, const char *text, size_t len, char *errbuf,
			    size_t errsize);

/* One compared item. Values are the median over each side's runs. */
struct diff_row {
	enum diff_metric metric;
	enum diff_status status;
	char *item;	     /* kernel name, copy kind, "device 0 (name)", site stack */
	char *detail;	     /* site: "api @ function (location)"; else NULL */
	uint64_t base, new_; /* medians, ns */
	uint64_t base_min, base_max, new_min, new_max;
	int64_t delta;	  /* new_ - base */
	double delta_pct; /* 100 * delta / base; 0 when base is 0 */
	double noise_pct; /* half the base spread plus half the new spread, % of base */
	double threshold; /* the threshold applied, % */
	bool has_count;	  /* kernels and memcpys: count (and mean/bytes) below are set */
	uint64_t base_count, new_count;
	uint64_t base_mean, new_mean;	/* kernels */
	uint64_t base_bytes, new_bytes; /* memcpys */
};

struct diff_result {
	struct diff_row *rows; /* by impact: |delta| descending, then metric, then item */
	size_t n_rows;
	size_t n_base, n_new; /* runs per side */
	size_t count[DIFF_STATUS_COUNT];
	size_t ignored;	       /* rows left out by ignore rules */
	struct diff_opts opts; /* a copy of the settings' numbers (rules not owned) */
};

/*
 * Compare n_base base summaries with n_new new ones (n >= 1 each). Pure: reads
 * the summaries, allocates the result. Returns 0, -EINVAL or -ENOMEM.
 */
int diff__compare(const struct summary *const *base, size_t n_base,
		  const struct summary *const *new_, size_t n_new, const struct diff_opts *o,
		  struct diff_result **out);
void diff_result__free(struct diff_result *r);

/* 1 when the result holds a regression (the exit status `gpuperf diff` gives), else 0. */
int diff_result__failed(const struct diff_result *r);

/* Writers: return 0 or -EIO. The text table uses ANSI colors when `color`. */
int diff__write_text(const struct diff_result *r, FILE *out, bool color);
int diff__write_json(const struct diff_result *r, FILE *out);
int diff__write_markdown(const struct diff_result *r, FILE *out);

#endif /* GPUPERF_DIFF_H */
