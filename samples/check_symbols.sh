#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# check_symbols.sh NM BINARY SYMBOL...: each SYMBOL is code in BINARY's symbol
# table (any binding: the static cudart's hidden symbols end up local), by which
# a static cudart is found. U:SYMBOL must instead be imported from a shared
# library.
set -u
nm=$1 bin=$2
shift 2
if [ ! -x "$bin" ]; then
	echo "check_symbols: '$bin' is missing or not executable" >&2
	exit 1
fi
syms=$("$nm" "$bin") || { echo "check_symbols: $nm '$bin' failed" >&2; exit 1; }
missing=0
for want in "$@"; do
	case $want in
	U:*) sym=${want#U:} pattern=" +U ${want#U:}(@.*)?\$" what="imported" ;;
	*) sym=$want pattern="^[0-9a-f]+ [TtWi] ${want}\$" what="defined as code" ;;
	esac
	if printf '%s\n' "$syms" | grep -Eq "$pattern"; then
		echo "check_symbols: $sym $what"
	else
		echo "check_symbols: $sym is not $what in '$bin'" >&2
		missing=1
	fi
done
exit $missing
