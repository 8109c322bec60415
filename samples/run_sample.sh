#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run_sample.sh BINARY [ARGS...]: runs a sample and says so when it exits non-zero,
# because CTest ignores the exit status of a test that has PASS_REGULAR_EXPRESSION.
"$@"
rc=$?
if [ $rc -ne 0 ]; then
	echo "run_sample: $1 exited with status $rc" >&2
fi
exit $rc
