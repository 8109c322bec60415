// SPDX-License-Identifier: Apache-2.0
/* tgid_filter.c - share proc_track's followed-tgid map with the other programs. */
#include <bpf/libbpf.h>

#include "tgid_filter.h"

int tgid_filter__share(struct bpf_map *map, int fd, uint32_t max_entries)
{
	int err;

	if (fd < 0)
		return bpf_map__set_max_entries(map, 1);
	err = bpf_map__set_max_entries(map, max_entries);
	return err ? err : bpf_map__reuse_fd(map, fd);
}
