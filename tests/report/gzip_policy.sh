#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gzip_policy.sh - trace.json or trace.json.gz: --gzip=always/never/auto, auto by
# size (a trace past 256 MiB is gzip'd), and never both files in one directory;
# -f trace (in the default all) writes trace.pftrace instead where -f chrome
# would gzip for size, and removes the JSON names then (and trace.pftrace when
# it writes JSON).
# usage: gzip_policy.sh GPUPERF GEN_RECORDING PYTHON CHECK_TRACE_JSON
set -u
GPUPERF=$1
GEN=$2
PYTHON=$3
CHECK=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect DIR NAME [quick]: DIR holds trace NAME (trace.json or trace.json.gz) and not
# the other; it reads back (quick: only as gzip, for traces too large to check fast).
expect() {
	other=trace.json.gz
	[ "$2" = trace.json.gz ] && other=trace.json
	if [ ! -f "$1/$2" ] || [ -e "$1/$other" ]; then
		echo "FAIL: want $2 only, have: $(cd "$1" && ls trace.json* 2>/dev/null | tr '\n' ' ')"
		fail=1
	elif [ $# -gt 2 ] && [ "$2" = trace.json.gz ] && ! gzip -t "$1/$2"; then
		echo "FAIL: $2 is not gzip"; fail=1
	elif [ $# -eq 2 ] && ! "$PYTHON" "$CHECK" "$1/$2" >/dev/null; then
		echo "FAIL: $2 does not check"; fail=1
	else
		echo "ok: $2"
	fi
}

mkdir "$tmp/small" && "$GEN" -n 20 "$tmp/small" || exit 1
"$GPUPERF" report -q -f chrome "$tmp/small" && expect "$tmp/small" trace.json
"$GPUPERF" report -q -f chrome -z "$tmp/small" && expect "$tmp/small" trace.json.gz
"$GPUPERF" report -q -f chrome --gzip=never "$tmp/small" && expect "$tmp/small" trace.json
"$GPUPERF" report -q -f chrome --gzip=always "$tmp/small" && expect "$tmp/small" trace.json.gz
"$GPUPERF" report -q -f chrome --gzip=auto "$tmp/small" && expect "$tmp/small" trace.json
if "$GPUPERF" report -q -f chrome --gzip=sometimes "$tmp/small" 2>/dev/null; then
	echo "FAIL: --gzip=sometimes accepted"; fail=1
fi

# only DIR NAME...: of trace.json, trace.json.gz and trace.pftrace, DIR holds just NAME...
only() {
	d=$1
	shift
	have=$(cd "$d" && ls trace.json trace.json.gz trace.pftrace 2>/dev/null | tr '\n' ' ')
	if [ "$have" != "$* " ]; then
		echo "FAIL: want $*, have: $have"; fail=1
	else
		echo "ok: $*"
	fi
}

"$GPUPERF" report -q -f trace "$tmp/small" && only "$tmp/small" trace.json
"$GPUPERF" report -q -f perfetto "$tmp/small" && only "$tmp/small" trace.json trace.pftrace
"$GPUPERF" report -q -f trace "$tmp/small" && only "$tmp/small" trace.json

# ~1.1M events: about 380 MB of JSON, so auto writes trace.json.gz ...
mkdir "$tmp/big" && "$GEN" -n 200000 "$tmp/big" || exit 1
"$GPUPERF" report -q -f chrome "$tmp/big" && expect "$tmp/big" trace.json.gz quick
# ... and the default timeline is trace.pftrace, unless gzip is asked for or refused
"$GPUPERF" report -q -f trace "$tmp/big" && only "$tmp/big" trace.pftrace
if [ "$(head -c 1 "$tmp/big/trace.pftrace" | od -An -tx1 | tr -d ' ')" != 0a ]; then
	echo "FAIL: trace.pftrace does not start with a Trace.packet"; fail=1
fi
"$GPUPERF" report -q -f trace -z "$tmp/big" && only "$tmp/big" trace.json.gz
"$GPUPERF" report -q -f trace "$tmp/big" && only "$tmp/big" trace.pftrace
# ... and a sixth of it stays plain.
mkdir "$tmp/mid" && "$GEN" -n 30000 "$tmp/mid" || exit 1
"$GPUPERF" report -q -f chrome "$tmp/mid" && expect "$tmp/mid" trace.json quick

# A plain trace.json is written around the page cache (bulk_out.h) in 4 MiB pieces: one
# of ~10 MB, parsed whole; and a full disk is an error that names the file.
mkdir "$tmp/ten" && "$GEN" -n 5000 "$tmp/ten" || exit 1
"$GPUPERF" report -q -f chrome "$tmp/ten" && expect "$tmp/ten" trace.json
if [ "$(stat -c %s "$tmp/ten/trace.json")" -lt 9000000 ]; then
	echo "FAIL: trace.json of $(stat -c %s "$tmp/ten/trace.json") bytes, want over 9 MB"; fail=1
fi
if [ -w /dev/full ]; then
	rm -f "$tmp/ten/trace.json"
	ln -s /dev/full "$tmp/ten/trace.json"
	"$GPUPERF" report -q -f chrome --gzip=never "$tmp/ten" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 1 ] || ! grep -q "cannot write '.*trace.json'" "$tmp/err"; then
		echo "FAIL: full disk: exit $rc, $(cat "$tmp/err")"; fail=1
	else
		echo "ok: full disk: $(cat "$tmp/err")"
	fi
fi
exit $fail
