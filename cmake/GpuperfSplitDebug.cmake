# SPDX-License-Identifier: Apache-2.0
# Installed binaries are stripped; their debug information is installed
# beside them by build id, where gdb, elfutils and `gpuperf report
# --debuginfo` look: PREFIX/lib/debug/.build-id/xx/yyyy.debug.
#
# Two install components, so that a package can ship them apart (CPack:
# gpuperf and gpuperf-dbg): "runtime", the default of every install() in
# the tree, and "debug".

set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME runtime)
set(GPUPERF_SPLIT_DEBUG_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/GpuperfSplitDebugInstall.cmake)

# gpuperf_install_split_debug(<target> <destination>): after the target's
# own install(TARGETS ... DESTINATION <destination>), strip the installed
# file and install its debug information.
function(gpuperf_install_split_debug tgt dest)
	if(NOT CMAKE_OBJCOPY OR NOT CMAKE_READELF)
		message(WARNING "gpuperf: objcopy or readelf not found: ${tgt} is installed unstripped")
		return()
	endif()
	# The debug file is found by build id: make sure there is one.
	target_link_options(${tgt} PRIVATE -Wl,--build-id=sha1)
	set(vars "set(GPSD_BUILT \"$<TARGET_FILE:${tgt}>\")
		set(GPSD_INSTALLED \"${dest}/$<TARGET_FILE_NAME:${tgt}>\")
		set(GPSD_SCRATCH \"${CMAKE_CURRENT_BINARY_DIR}/split-debug\")
		set(GPSD_OBJCOPY \"${CMAKE_OBJCOPY}\")
		set(GPSD_READELF \"${CMAKE_READELF}\")")
	install(CODE "${vars}
		set(GPSD_MODE strip)
		include(\"${GPUPERF_SPLIT_DEBUG_SCRIPT}\")" COMPONENT runtime)
	install(CODE "${vars}
		set(GPSD_MODE debug)
		include(\"${GPUPERF_SPLIT_DEBUG_SCRIPT}\")" COMPONENT debug)
endfunction()
