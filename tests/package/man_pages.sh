#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every man page is built, renders without a single groff warning, and has
# the sections of a git or perf page and a NAME line whatis can index.
# usage: man_pages.sh MAN1_DIR
set -u
dir=$1
fail=0
pages="gpuperf gpuperf-record gpuperf-report gpuperf-diff gpuperf-flamegraph gpuperf-dump"

for p in $pages; do
	f=$dir/$p.1.gz
	if [ ! -s "$f" ]; then
		echo "FAIL: $f was not built"; fail=1; continue
	fi
	# man --warnings is groff -ww through man-db's pipeline (preconv, tbl).
	if command -v man >/dev/null; then
		warn=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
		text=$(MANWIDTH=80 man -l "$f" 2>/dev/null)
	else
		warn=$(zcat "$f" | groff -ww -man -Tutf8 -z 2>&1)
		text=$(zcat "$f" | groff -man -Tutf8 -rLL=80n 2>/dev/null | col -b)
	fi
	if [ -n "$warn" ]; then
		echo "FAIL: $p.1 renders with warnings:"; echo "$warn" | head -5; fail=1
	fi
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" "SEE ALSO"; do
		if ! grep -q "^$s\$" <<<"$text"; then
			echo "FAIL: $p.1 has no $s section"; fail=1
		fi
	done
	if command -v lexgrog >/dev/null && ! lexgrog "$f" | grep -q "\"$p - "; then
		echo "FAIL: whatis cannot parse the NAME of $p.1: $(lexgrog "$f")"; fail=1
	fi
done
[ "$fail" -eq 0 ] && echo "man pages: $pages render cleanly"
exit "$fail"
