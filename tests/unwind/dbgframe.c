// SPDX-License-Identifier: Apache-2.0
/* Built with -g -fno-asynchronous-unwind-tables: its CFI is in .debug_frame only. */
int dbgframe_work(int x);

__attribute__((noinline)) int dbgframe_work(int x)
{
	volatile int pad[64];

	pad[0] = x;
	pad[63] = x * 2;
	return pad[0] + pad[63];
}
