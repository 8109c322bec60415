# SPDX-License-Identifier: Apache-2.0
# Locate libbpf (and libelf, which it needs) via pkg-config; defines LibBpf::LibBpf.
#
# Result variables: LibBpf_FOUND, LibBpf_VERSION, LibBpf_INCLUDE_DIR (the dir
# holding bpf/bpf_helpers.h, also used for the BPF-side compile).
# LibBpf::LibBpf is GLOBAL: bpf/ finds it, cpu_agent/ and tests/ link it.

find_package(PkgConfig REQUIRED)
find_package(ZLIB REQUIRED)

pkg_check_modules(_LIBBPF QUIET IMPORTED_TARGET GLOBAL libbpf)
pkg_check_modules(_LIBELF QUIET IMPORTED_TARGET GLOBAL libelf)

set(LibBpf_VERSION "${_LIBBPF_VERSION}")
if(_LIBBPF_FOUND)
	pkg_get_variable(LibBpf_INCLUDE_DIR libbpf includedir)
endif()

set(_libbpf_reason "")
if(NOT _LIBBPF_FOUND)
	string(APPEND _libbpf_reason
		"libbpf not found by pkg-config (Debian/Ubuntu: apt install libbpf-dev, Fedora: libbpf-devel). ")
endif()
if(NOT _LIBELF_FOUND)
	string(APPEND _libbpf_reason
		"libelf not found by pkg-config (Debian/Ubuntu: apt install libelf-dev, Fedora: elfutils-libelf-devel). ")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LibBpf
	REQUIRED_VARS _LIBBPF_LINK_LIBRARIES _LIBELF_LINK_LIBRARIES LibBpf_INCLUDE_DIR
	VERSION_VAR LibBpf_VERSION
	REASON_FAILURE_MESSAGE "${_libbpf_reason}")

if(LibBpf_FOUND AND NOT TARGET LibBpf::LibBpf)
	add_library(LibBpf::LibBpf INTERFACE IMPORTED GLOBAL)
	target_link_libraries(LibBpf::LibBpf INTERFACE
		PkgConfig::_LIBBPF PkgConfig::_LIBELF ZLIB::ZLIB)
endif()
