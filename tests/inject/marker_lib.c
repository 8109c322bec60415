// SPDX-License-Identifier: Apache-2.0
/* A stand-in for a hostile GPUPERF_CUPTI_LIB: its constructor creates the file $GPINJ_MARKER. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void marker_ctor(void)
{
	const char *path = getenv("GPINJ_MARKER");
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}
