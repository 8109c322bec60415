// SPDX-License-Identifier: Apache-2.0
/* Test helper: prints the static cudart ranges static_cudart__ranges() finds in FILE, one "lo hi" (hex) a line. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "static_cudart.h"

int main(int argc, char **argv)
{
	struct static_cudart_range r[8];
	int fd, n, i;

	if (argc != 2)
		return 2;
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	n = static_cudart__ranges(fd, r, 8);
	close(fd);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-n));
		return 1;
	}
	for (i = 0; i < n; i++)
		printf("%" PRIx64 " %" PRIx64 "\n", r[i].lo, r[i].hi);
	return 0;
}
