// SPDX-License-Identifier: Apache-2.0
/* Test library: another CUPTI client that subscribes from its constructor, so gpuperf's subscribe fails. */

#include <cupti.h>

static void CUPTIAPI on_cb(void *ud, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *data)
{
}

__attribute__((constructor)) static void other_profiler_init(void)
{
	static CUpti_SubscriberHandle sub;

	cuptiSubscribe(&sub, on_cb, NULL);
}
