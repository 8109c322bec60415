#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# static_cudart.sh RANGES_TOOL NM STATIC_SAMPLE SHARED_SAMPLE: the injection library finds nvcc's
# static cudart in an executable (launch stacks drop its frames as libcudart.so's): the
# range covers __cudaLaunchKernel and cudaLaunchKernel and not the sample's own launch_vector_add;
# the shared-cudart build of the same sample has no such range.
set -u
TOOL=$1 NM=$2 STATIC=$3 SHARED=$4
for f in "$STATIC" "$SHARED"; do [ -e "$f" ] || { echo "SKIP: $f not built"; exit 77; }; done
ranges=$("$TOOL" "$STATIC") || { echo "FAIL: $TOOL $STATIC"; exit 1; }
[ -n "$ranges" ] || { echo "FAIL: no static cudart range in $STATIC"; exit 1; }
addr() { "$NM" "$STATIC" | awk -v s="$1" '$3 == s && ($2 == "t" || $2 == "T") { print $1; exit }'; }
inside() { # inside HEXADDR: 0 when some range holds it
	n=$((0x$1))
	echo "$ranges" | while read -r lo hi; do
		[ "$n" -ge $((0x$lo)) ] && [ "$n" -lt $((0x$hi)) ] && echo yes
	done | grep -q yes
}
fail=0
for s in __cudaLaunchKernel cudaLaunchKernel; do
	a=$(addr "$s")
	[ -n "$a" ] || { echo "FAIL: no $s in $STATIC"; fail=1; continue; }
	inside "$a" || { echo "FAIL: $s at $a is outside $(echo $ranges)"; fail=1; }
done
a=$(addr _Z17launch_vector_addPKfS0_Pfm)
[ -n "$a" ] || a=$("$NM" "$STATIC" | awk '$3 ~ /launch_vector_add/ { print $1; exit }')
[ -n "$a" ] && inside "$a" && { echo "FAIL: the program's own launch_vector_add at $a is in a range"; fail=1; }
[ -n "$("$TOOL" "$SHARED")" ] && { echo "FAIL: a range in the shared-cudart build"; fail=1; }
[ $fail -eq 0 ] && echo "ok: static cudart at $(echo $ranges)"
exit $fail
