/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cupti_call.h - CUPTI, loaded at run time, and GP_CUPTI_CALL().
 *
 * libcupti is dlopen()ed rather than linked so that a machine without it
 * (or with a CUPTI too old for a symbol we need) runs the application
 * untraced instead of failing to load it. The table is the library's one
 * process-wide instance (CUPTI itself is process-wide); it is filled once by
 * cupti_call__open() before any other thread uses it and read-only after.
 */
#ifndef GPUPERF_CUPTI_CALL_H
#define GPUPERF_CUPTI_CALL_H

#include <stddef.h>

#include <cupti.h>

#include "inject_log.h"

struct cupti_fns {
	void *handle;
	__typeof__(&cuptiSubscribe) Subscribe;
	__typeof__(&cuptiUnsubscribe) Unsubscribe;
	__typeof__(&cuptiEnableCallback) EnableCallback;
	__typeof__(&cuptiSetThreadIdType) SetThreadIdType;
	__typeof__(&cuptiGetTimestamp) GetTimestamp;
	__typeof__(&cuptiGetResultString) GetResultString;
	__typeof__(&cuptiActivityRegisterTimestampCallback) ActivityRegisterTimestampCallback;
	__typeof__(&cuptiActivityRegisterCallbacks) ActivityRegisterCallbacks;
	__typeof__(&cuptiActivityEnable) ActivityEnable;
	__typeof__(&cuptiActivityDisable) ActivityDisable;
	__typeof__(&cuptiActivityFlushAll) ActivityFlushAll;
	__typeof__(&cuptiActivityGetNextRecord) ActivityGetNextRecord;
	__typeof__(&cuptiActivityGetNumDroppedRecords) ActivityGetNumDroppedRecords;
	/* optional: NULL when this CUPTI lacks them */
	__typeof__(&cuptiActivityEnableRuntimeApi) ActivityEnableRuntimeApi;
	__typeof__(&cuptiActivityEnableDriverApi) ActivityEnableDriverApi;
	__typeof__(&cuptiGetGraphNodeId) GetGraphNodeId;
};

extern struct cupti_fns gp_cupti;

/*
 * Load libcupti: `path` when given, else libcupti.so.13 / libcupti.so on the
 * loader's search path, then next to the libcudart/libcuda already mapped,
 * then the toolkit's usual places. 0, or -errno with a reason in `why`.
 */
int cupti_call__open(const char *path, char *why, size_t whylen);

/* "CUPTI_ERROR_...": never NULL. */
const char *cupti_call__strerror(CUptiResult r);

/* Log a failed CUPTI call ("cuptiX failed: CUPTI_ERROR_Y") and pass its status on. */
static inline CUptiResult cupti_call__check(CUptiResult r, const char *what, int level)
{
	if (r != CUPTI_SUCCESS)
		inject_log(level, "%s failed: %s", what, cupti_call__strerror(r));
	return r;
}

/* GP_CUPTI_CALL(ActivityEnable, (kind)): call through the table, log a failure as a warning. */
#define GP_CUPTI_CALL(fn, args) \
	cupti_call__check(gp_cupti.fn args, "cupti" #fn, INJECT_LOG_WARN)

#endif /* GPUPERF_CUPTI_CALL_H */
