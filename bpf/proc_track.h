/* SPDX-License-Identifier: Apache-2.0 */
/* proc_track: the fork/exec/exit event record shared by proc_track.bpf.c and its loader. */
#ifndef GPUPERF_BPF_PROC_TRACK_H
#define GPUPERF_BPF_PROC_TRACK_H

/* The BPF side gets __u32 & co. from vmlinux.h; user space from the uapi header. */
#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define PROC_TRACK_COMM_LEN	16
#define PROC_TRACK_FILENAME_LEN	256

/* proc_track_event.type */
#define PROC_TRACK_FORK	1	/* pid = new process, ppid = the forking process */
#define PROC_TRACK_EXEC	2	/* pid = process, tid = old tid (differs if a non-leader thread exec'd) */
#define PROC_TRACK_EXIT	3	/* pid = process whose last thread exited */
#define PROC_TRACK_THREAD_EXIT	4	/* tid = an exiting thread, not the process's last */
/* tid = a thread about to map a file executable (ld.so, dlopen), when the loader asks */
#define PROC_TRACK_MMAP_EXEC	5

/*
 * One record per ring-buffer sample. Thread creation is not reported; the
 * exit of a non-last thread only when the loader asks (THREAD_EXIT).
 */
struct proc_track_event {
	__u64 ts_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 type;		/* PROC_TRACK_* */
	__u32 pid;		/* tgid the event is about */
	__u32 tid;		/* FORK: child tid; EXEC: old tid; EXIT, THREAD_EXIT: exiting tid */
	__u32 ppid;		/* FORK: tgid of the forking process; EXEC/EXIT: real parent's tgid */
	__s32 exit_status;	/* EXIT: wait(2) status word (WIFEXITED etc. apply); else 0 */
	__u32 flags;		/* reserved, 0 */
	char comm[PROC_TRACK_COMM_LEN];		/* FORK: child's (= parent's); EXEC: new; EXIT: last */
	char filename[PROC_TRACK_FILENAME_LEN];	/* EXEC: path as given to execve, NUL-terminated */
};

_Static_assert(sizeof(struct proc_track_event) == 304, "proc_track_event layout changed");

#endif /* GPUPERF_BPF_PROC_TRACK_H */
