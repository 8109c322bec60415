/* SPDX-License-Identifier: Apache-2.0 */
/* parse: the one checked number parser of the CLI (numbers and comma lists from the command line). */
#ifndef GPUPERF_CLI_PARSE_H
#define GPUPERF_CLI_PARSE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Every parser here takes the command and option names only for its message:
 * on a bad value it prints one line to stderr,
 *   "gpuperf CMD: invalid OPT 'S': expected an integer in [LO, HI]"
 * and returns -EINVAL (-ENOMEM: out of memory, also printed); the caller
 * exits with GP_EXIT_USAGE. Nothing is written to *out on failure.
 */

/* A decimal integer in [lo, hi]: no sign, no spaces, no suffix. */
int parse_u64(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi,
	      uint64_t *out);

/*
 * A comma list of decimal integers in [lo, hi] ("1,2,3"), and with
 * PARSE_RANGES also ranges ("0-3,8"). Duplicates are kept once, in the
 * order first given. *out is malloc()ed (free() it), *nr its length >= 1.
 */
#define PARSE_RANGES 1u
int parse_u64_list(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi,
		   unsigned flags, uint64_t **out, size_t *nr);

#endif /* GPUPERF_CLI_PARSE_H */
