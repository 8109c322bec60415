/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_require: the capability policy every BPF test shares, and a leak check for BPF objects. */
#ifndef GPUPERF_TESTS_BPF_REQUIRE_H
#define GPUPERF_TESTS_BPF_REQUIRE_H

/*
 * Policy (style.md, Tests): a test that lacks root or a working BPF exits 77
 * so CTest marks it skipped -- unless GPUPERF_REQUIRE_BPF=1 (CI), where the
 * same lack is a failure with a message saying what was missing.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define BPF_REQUIRE_SKIP 77

static inline int bpf_require__strict(void)
{
	const char *v = getenv("GPUPERF_REQUIRE_BPF");

	return v && strcmp(v, "1") == 0;
}

/* @what is missing: exit 77, or 1 under GPUPERF_REQUIRE_BPF=1. Never returns. */
static inline void bpf_require__missing(const char *test, const char *what)
{
	if (bpf_require__strict()) {
		fprintf(stderr, "%s: FAILED: %s, and GPUPERF_REQUIRE_BPF=1 requires BPF\n", test,
			what);
		exit(1);
	}
	fprintf(stderr, "%s: skipped: %s (GPUPERF_REQUIRE_BPF=1 makes this a failure)\n", test,
		what);
	exit(BPF_REQUIRE_SKIP);
}

/* Call first thing in main(): returns only when the test can load BPF. */
static inline void bpf_require(const char *test)
{
	int ret;

	if (geteuid() != 0)
		bpf_require__missing(test, "not running as root");
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		bpf_require__missing(test, "the kernel exposes no BTF (/sys/kernel/btf/vmlinux)");
	ret = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACEPOINT, NULL);
	if (ret == -EPERM)
		bpf_require__missing(test, "loading BPF programs is not permitted (no CAP_BPF?)");
	if (ret != 1)
		bpf_require__missing(test, "the kernel cannot load BPF tracing programs");
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) != 1)
		bpf_require__missing(test, "the kernel has no BPF ring buffer (needs >= 5.8)");
}

/*
 * For a loader's -errno inside a test: the errors that mean "this machine
 * cannot do BPF" go through the policy; anything else returns so the test
 * fails on its own assertion.
 */
static inline void bpf_require__errno(const char *test, int err)
{
	if (err == -EPERM || err == -EOPNOTSUPP || err == -ENOSYS) {
		char what[128];

		snprintf(what, sizeof(what), "loading failed: %s", strerror(-err));
		bpf_require__missing(test, what);
	}
}

/* BPF_OBJ_* kinds for bpf_objects__count(). */
#define BPF_OBJECTS_PROG 0
#define BPF_OBJECTS_MAP	 1
#define BPF_OBJECTS_LINK 2

/*
 * The highest id of a program, map or link in the kernel right now (0 when
 * none); -errno on failure. The kernel hands out ids in increasing order, so
 * objects created later have higher ids than this.
 */
static inline long bpf_objects__last_id(int kind)
{
	__u32 id = 0, last = 0;
	int err;

	for (;;) {
		err = kind == BPF_OBJECTS_PROG ? bpf_prog_get_next_id(id, &id)
		      : kind == BPF_OBJECTS_MAP ? bpf_map_get_next_id(id, &id)
						 : bpf_link_get_next_id(id, &id);
		if (err == -ENOENT)
			return last;
		if (err)
			return err;
		last = id;
	}
}

/* bpf_objects__last_id() of each kind (PROG, MAP, LINK) into @last; 0 or -errno. */
static inline int bpf_objects__mark(__u32 last[3])
{
	for (int k = 0; k < 3; k++) {
		long id = bpf_objects__last_id(k);

		if (id < 0)
			return (int)id;
		last[k] = (__u32)id;
	}
	return 0;
}

/*
 * How many programs, maps or links (by their program's name) with an id
 * above @after and a name starting with @prefix exist in the kernel right
 * now; -errno on failure. Name BPF objects with a per-program prefix so
 * tests can check that a loader left nothing behind without being fooled by
 * other users of BPF; pass bpf_objects__last_id() from before the loader ran
 * as @after so that objects an earlier test is still freeing do not count.
 */
static inline int bpf_objects__count(int kind, const char *prefix, __u32 after)
{
	__u32 id = after, prog_id;
	int n = 0, fd, err;

	for (;;) {
		char name[BPF_OBJ_NAME_LEN] = "";

		err = kind == BPF_OBJECTS_PROG ? bpf_prog_get_next_id(id, &id)
		      : kind == BPF_OBJECTS_MAP ? bpf_map_get_next_id(id, &id)
						 : bpf_link_get_next_id(id, &id);
		if (err == -ENOENT)
			return n;
		if (err)
			return err;

		fd = kind == BPF_OBJECTS_PROG ? bpf_prog_get_fd_by_id(id)
		     : kind == BPF_OBJECTS_MAP ? bpf_map_get_fd_by_id(id)
						: bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue; /* gone in between */
		if (kind == BPF_OBJECTS_MAP) {
			struct bpf_map_info info = { 0 };
			__u32 len = sizeof(info);

			if (!bpf_obj_get_info_by_fd(fd, &info, &len))
				memcpy(name, info.name, sizeof(name));
		} else {
			struct bpf_prog_info info = { 0 };
			__u32 len = sizeof(info);

			prog_id = id;
			if (kind == BPF_OBJECTS_LINK) {
				struct bpf_link_info linfo = { 0 };
				__u32 llen = sizeof(linfo);

				prog_id = 0;
				if (!bpf_obj_get_info_by_fd(fd, &linfo, &llen))
					prog_id = linfo.prog_id;
				close(fd);
				fd = prog_id ? bpf_prog_get_fd_by_id(prog_id) : -1;
			}
			if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
				memcpy(name, info.name, sizeof(name));
		}
		if (fd >= 0)
			close(fd);
		name[sizeof(name) - 1] = '\0';
		if (strncmp(name, prefix, strlen(prefix)) == 0)
			n++;
	}
}

#endif /* GPUPERF_TESTS_BPF_REQUIRE_H */
