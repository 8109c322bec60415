# SPDX-License-Identifier: Apache-2.0
# `cpack -G DEB` in the build directory: gpuperf_VERSION_ARCH.deb (the
# command, the injection library, man pages, bash completion) and
# gpuperf-dbg_VERSION_ARCH.deb (their debug information by build id).
# Dependencies come from dpkg-shlibdeps; the CUDA Toolkit is not one:
# the injection library loads libcupti at run time, from the user's CUDA.

set(CPACK_PACKAGE_NAME gpuperf)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
	"CUDA profiler: GPU time under the CPU stack that launched it")
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
	"gpuperf records a CUDA program's GPU side with CUPTI and its CPU side with
eBPF, and joins them: each GPU kernel appears under the CPU stack that
launched it, beside on-CPU and off-CPU stacks, in flame graphs, a Perfetto
timeline and a pprof profile.")
set(CPACK_PACKAGE_CONTACT "gpuperf maintainers")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES OFF) # stripped by gpuperf_install_split_debug()

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime debug)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME gpuperf)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_DEBUG_PACKAGE_NAME gpuperf-dbg)
set(CPACK_DEBIAN_DEBUG_PACKAGE_SECTION debug)
set(CPACK_DEBIAN_DEBUG_PACKAGE_DEPENDS "gpuperf (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_DEBUG_DESCRIPTION
	"The debug information of gpuperf and libgpuperf_inject.so, by build id,
for gdb and for symbolizing gpuperf's own frames.")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

include(CPack)
