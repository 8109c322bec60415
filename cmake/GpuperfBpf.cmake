# SPDX-License-Identifier: Apache-2.0
# gpuperf_bpf_object(): compile a .bpf.c with clang; gpuperf_bpf_link(): link
# such objects into one and generate its libbpf skeleton.
#
# gpuperf_bpf_object(<stem> SRC <file.bpf.c> [HEADERS <h>...])
#   -> ${CMAKE_CURRENT_BINARY_DIR}/<stem>.bpf.o  (clang -g -O2 -target bpf, CO-RE)
# gpuperf_bpf_link(<name> OBJECTS <stem>...)
#   -> ${CMAKE_CURRENT_BINARY_DIR}/<name>.bpf.o  (bpftool gen object)
#   -> ${CMAKE_CURRENT_BINARY_DIR}/<name>.skel.h (bpftool gen skeleton, name <name>_bpf)
#   -> INTERFACE target <name>_skel: include dir of the skeleton and of bpf/
#      (for the shared headers), a build dependency on the skeleton, libbpf.
# One object for all the programs: libbpf parses the kernel's BTF once per
# object it loads, which was most of the agent's start-up.
# Generated files live only in the build tree. The BPF side gets -Wall (plus
# -Werror under GPUPERF_WERROR), not the host warning set: it is another
# compiler for another target.
#
# This file is also its own helper script: run with -P it writes the skeleton
# to a temporary file and renames it, so a failed bpftool never leaves a
# truncated <stem>.skel.h that make would consider up to date.

if(CMAKE_SCRIPT_MODE_FILE)
	execute_process(COMMAND "${BPFTOOL}" gen skeleton "${OBJ}" name "${NAME}"
		OUTPUT_FILE "${OUT}.tmp" RESULT_VARIABLE rc)
	if(NOT rc EQUAL 0)
		file(REMOVE "${OUT}.tmp")
		message(FATAL_ERROR "bpftool gen skeleton ${OBJ} failed (${rc})")
	endif()
	file(RENAME "${OUT}.tmp" "${OUT}")
	return()
endif()

include_guard(GLOBAL)

# --- tools ------------------------------------------------------------------
find_program(GPUPERF_BPF_CLANG NAMES clang clang-18 clang-17 clang-16 clang-15 clang-14 clang-13
	DOC "clang used to compile the BPF programs")
if(NOT GPUPERF_BPF_CLANG)
	message(FATAL_ERROR "gpuperf: clang not found; it compiles the eBPF programs "
		"(Debian/Ubuntu: apt install clang). Or configure with -DGPUPERF_BUILD_BPF=OFF.")
endif()
execute_process(COMMAND "${GPUPERF_BPF_CLANG}" --version
	OUTPUT_VARIABLE _clang_ver ERROR_QUIET)
if(_clang_ver MATCHES "clang version ([0-9]+)")
	if(CMAKE_MATCH_1 LESS 11)
		message(FATAL_ERROR "gpuperf: ${GPUPERF_BPF_CLANG} is clang ${CMAKE_MATCH_1}; "
			"BPF CO-RE needs clang >= 11 (Debian/Ubuntu: apt install clang).")
	endif()
endif()

# Debian and Ubuntu install bpftool in /usr/sbin, often not in a user's PATH.
find_program(GPUPERF_BPFTOOL NAMES bpftool PATHS /usr/sbin /usr/local/sbin /sbin
	DOC "bpftool used to generate the libbpf skeletons")
if(NOT GPUPERF_BPFTOOL)
	message(FATAL_ERROR "gpuperf: bpftool not found; it generates the BPF skeletons "
		"(Debian: apt install bpftool; Ubuntu: linux-tools-common; Fedora: bpftool). "
		"Or set -DGPUPERF_BPFTOOL=/path/to/bpftool.")
endif()

find_package(LibBpf REQUIRED)

# --- target arch -> __TARGET_ARCH_* and the pinned vmlinux.h ------------------
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
	set(GPUPERF_BPF_ARCH x86)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
	set(GPUPERF_BPF_ARCH arm64)
else()
	message(FATAL_ERROR "gpuperf: no BPF support for CPU '${CMAKE_SYSTEM_PROCESSOR}'. "
		"Configure with -DGPUPERF_BUILD_BPF=OFF.")
endif()
set(GPUPERF_BPF_DIR ${PROJECT_SOURCE_DIR}/bpf)
set(GPUPERF_VMLINUX_DIR ${GPUPERF_BPF_DIR}/vmlinux/${GPUPERF_BPF_ARCH})
if(NOT EXISTS ${GPUPERF_VMLINUX_DIR}/vmlinux.h)
	message(FATAL_ERROR "gpuperf: ${GPUPERF_VMLINUX_DIR}/vmlinux.h is missing; generate it "
		"on a ${GPUPERF_BPF_ARCH} machine as bpf/vmlinux/README.md says, or configure "
		"with -DGPUPERF_BUILD_BPF=OFF.")
endif()
message(STATUS "gpuperf: BPF with ${GPUPERF_BPF_CLANG}, ${GPUPERF_BPFTOOL}, "
	"libbpf ${LibBpf_VERSION}, vmlinux.h for ${GPUPERF_BPF_ARCH}")

function(gpuperf_bpf_object stem)
	cmake_parse_arguments(B "" "SRC" "HEADERS" ${ARGN})
	if(NOT B_SRC)
		message(FATAL_ERROR "gpuperf_bpf_object(${stem}): SRC is required")
	endif()
	get_filename_component(src ${B_SRC} ABSOLUTE)
	set(headers "")
	foreach(h IN LISTS B_HEADERS)
		get_filename_component(h ${h} ABSOLUTE)
		list(APPEND headers ${h})
	endforeach()

	set(obj ${CMAKE_CURRENT_BINARY_DIR}/${stem}.bpf.o)
	set(werror "")
	if(GPUPERF_WERROR)
		set(werror -Werror)
	endif()

	add_custom_command(OUTPUT ${obj}
		COMMAND ${GPUPERF_BPF_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_${GPUPERF_BPF_ARCH}
			-Wall ${werror}
			-I${GPUPERF_BPF_DIR} -I${GPUPERF_VMLINUX_DIR} -idirafter ${LibBpf_INCLUDE_DIR}
			-MD -MF ${obj}.d
			-c ${src} -o ${obj}
		DEPENDS ${src} ${headers} ${GPUPERF_VMLINUX_DIR}/vmlinux.h
		DEPFILE ${obj}.d
		COMMENT "BPF ${stem}.bpf.o"
		VERBATIM)
endfunction()

function(gpuperf_bpf_link name)
	cmake_parse_arguments(B "" "" "OBJECTS" ${ARGN})
	set(objs "")
	foreach(stem IN LISTS B_OBJECTS)
		list(APPEND objs ${CMAKE_CURRENT_BINARY_DIR}/${stem}.bpf.o)
	endforeach()
	set(obj ${CMAKE_CURRENT_BINARY_DIR}/${name}.bpf.o)
	set(skel ${CMAKE_CURRENT_BINARY_DIR}/${name}.skel.h)

	add_custom_command(OUTPUT ${obj}
		COMMAND ${GPUPERF_BPFTOOL} gen object ${obj} ${objs}
		DEPENDS ${objs}
		COMMENT "BPF ${name}.bpf.o (linked)"
		VERBATIM)
	add_custom_command(OUTPUT ${skel}
		COMMAND ${CMAKE_COMMAND} -DBPFTOOL=${GPUPERF_BPFTOOL} -DOBJ=${obj}
			-DNAME=${name}_bpf -DOUT=${skel} -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
		DEPENDS ${obj} ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
		COMMENT "BPF skeleton ${name}.skel.h"
		VERBATIM)
	add_custom_target(${name}_skel_gen DEPENDS ${skel})

	add_library(${name}_skel INTERFACE)
	# SYSTEM: the generated skeleton is not held to our host warning set.
	target_include_directories(${name}_skel SYSTEM INTERFACE ${CMAKE_CURRENT_BINARY_DIR})
	target_include_directories(${name}_skel INTERFACE ${GPUPERF_BPF_DIR})
	target_link_libraries(${name}_skel INTERFACE LibBpf::LibBpf)
	add_dependencies(${name}_skel ${name}_skel_gen)
endfunction()
