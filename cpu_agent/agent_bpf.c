// SPDX-License-Identifier: Apache-2.0
/* agent_bpf: the agent's one BPF object and its parts. */
#include "agent_bpf.h"

#include <errno.h>
#include <string.h>

#include <bpf/libbpf.h>

static bool in_part(const char *name, const char *prefix)
{
	return name && !strncmp(name, prefix, strlen(prefix));
}

void agent_bpf__only(struct agent_bpf *s, const char *prefix)
{
	struct bpf_program *prog;
	struct bpf_map *map;

	bpf_object__for_each_program(prog, s->obj)
		if (!in_part(bpf_program__name(prog), prefix))
			bpf_program__set_autoload(prog, false);
	bpf_object__for_each_map(map, s->obj)
		if (!bpf_map__is_internal(map) && !in_part(bpf_map__name(map), prefix))
			bpf_map__set_autocreate(map, false);
}

void agent_bpf__drop(struct agent_bpf *s, const char *prefix)
{
	struct bpf_program *prog;
	struct bpf_map *map;

	bpf_object__for_each_program(prog, s->obj)
		if (in_part(bpf_program__name(prog), prefix))
			bpf_program__set_autoload(prog, false);
	bpf_object__for_each_map(map, s->obj)
		if (in_part(bpf_map__name(map), prefix))
			bpf_map__set_autocreate(map, false);
}

struct agent_bpf *agent_bpf__open_part(const char *prefix)
{
	struct agent_bpf *s = agent_bpf__open();

	if (s)
		agent_bpf__only(s, prefix);
	return s;
}

int agent_bpf__attach_part(struct agent_bpf *s, const char *prefix)
{
	const struct bpf_object_skeleton *k = s->skeleton;

	for (int i = 0; i < k->prog_cnt; i++) {
		struct bpf_program *prog = *k->progs[i].prog;
		struct bpf_link **link = k->progs[i].link;

		if (!in_part(bpf_program__name(prog), prefix) || !bpf_program__autoload(prog) ||
		    !bpf_program__autoattach(prog) || *link)
			continue;
		*link = bpf_program__attach(prog);
		if (!*link) {
			int err = -errno;

			if (err == -EOPNOTSUPP)
				continue; /* attached by its loader (perf events) */
			agent_bpf__detach_part(s, prefix);
			return err;
		}
	}
	return 0;
}

void agent_bpf__detach_part(struct agent_bpf *s, const char *prefix)
{
	const struct bpf_object_skeleton *k = s->skeleton;

	for (int i = 0; i < k->prog_cnt; i++) {
		struct bpf_link **link = k->progs[i].link;

		if (*link && in_part(bpf_program__name(*k->progs[i].prog), prefix)) {
			bpf_link__destroy(*link);
			*link = NULL;
		}
	}
}
