# SPDX-License-Identifier: Apache-2.0
# Checks shared by the install and package tests (sourced). Each prints a
# FAIL line and sets fail=1.

# check_split ROOT FILE DEBUG_ROOT: FILE (relative to ROOT) is stripped and
# has a build id, and DEBUG_ROOT/lib/debug/.build-id/xx/yyyy.debug is its
# debug information, with the same build id.
check_split() {
	local f=$1/$2 id dbg
	if [ ! -f "$f" ]; then
		echo "FAIL: $2 is not installed"; fail=1; return
	fi
	case $(file -b "$f") in
	*", stripped"*) ;;
	*) echo "FAIL: $2 is not stripped: $(file -b "$f")"; fail=1 ;;
	esac
	id=$(readelf -n "$f" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
	if [ -z "$id" ]; then
		echo "FAIL: $2 has no build id"; fail=1; return
	fi
	dbg=$3/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	if [ ! -f "$dbg" ]; then
		echo "FAIL: no debug file for $2 (build id $id): $dbg"; fail=1; return
	fi
	case $(file -b "$dbg") in
	*"with debug_info"*) ;;
	*) echo "FAIL: ${dbg#"$3"/} has no debug_info: $(file -b "$dbg")"; fail=1 ;;
	esac
	if [ "$(readelf -n "$dbg" 2>/dev/null | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')" != "$id" ]; then
		echo "FAIL: ${dbg#"$3"/} has another build id than $2"; fail=1
	fi
}

# check_docs SHARE: the man pages and the bash completion under SHARE.
check_docs() {
	local p got
	for p in gpuperf gpuperf-record gpuperf-report gpuperf-diff gpuperf-flamegraph gpuperf-dump; do
		[ -s "$1/man/man1/$p.1.gz" ] || { echo "FAIL: man page $p.1.gz not installed"; fail=1; }
	done
	got=$(bash -c 'source "$1"; COMP_WORDS=(gpuperf rep); COMP_CWORD=1; _gpuperf;
		echo "${COMPREPLY[*]}"' bash "$1/bash-completion/completions/gpuperf" 2>&1)
	[ "$got" = report ] || { echo "FAIL: installed completion of 'gpuperf rep': '$got'"; fail=1; }
}

# check_no_simulator ROOT: the CUDA simulator's libraries are test equipment.
check_no_simulator() {
	if find "$1" -name 'libcuda*' -o -name 'libcupti*' | grep -q .; then
		echo "FAIL: the CUDA simulator was installed:"; find "$1" -name 'libcu*'; fail=1
	fi
}
