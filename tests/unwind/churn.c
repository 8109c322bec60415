// SPDX-License-Identifier: Apache-2.0
/* A library dlopen'ed and dlclose'd over and over by test_unwind while other threads unwind. */
#include "chain.h"

int churn_call(chain_cb cb, void *arg);

__attribute__((noinline)) int churn_call(chain_cb cb, void *arg)
{
	int r = cb(arg);

	__asm__ volatile("" : "+r"(r));
	return r + 1;
}
