/* SPDX-License-Identifier: Apache-2.0 */
/* tgid_filter.h - every BPF program filters on proc_track's map of followed processes. */
#ifndef GPUPERF_CPU_AGENT_TGID_FILTER_H
#define GPUPERF_CPU_AGENT_TGID_FILTER_H

#include <stdint.h>

struct bpf_map;

/*
 * Before load: make @map (a program's own declaration of the followed-tgid
 * hash) the very map proc_track fills, so a child forked by a followed
 * process is seen by every program before it runs. @fd < 0 means no filter
 * (system-wide): the unused map is shrunk to one entry. 0 or -errno.
 */
int tgid_filter__share(struct bpf_map *map, int fd, uint32_t max_entries);

#endif /* GPUPERF_CPU_AGENT_TGID_FILTER_H */
