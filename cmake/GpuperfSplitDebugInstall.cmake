# SPDX-License-Identifier: Apache-2.0
# Run by `cmake --install` (and CPack) for one file, from
# gpuperf_install_split_debug(): GPSD_MODE is "strip" (the installed copy
# loses its symbols and debug sections and gets a .gnu_debuglink) or
# "debug" (the debug file is installed under lib/debug/.build-id/).
# Both derive the debug file from the build tree's binary, so the two
# components can be installed in either order, or alone.

execute_process(COMMAND "${GPSD_READELF}" -n "${GPSD_BUILT}"
	OUTPUT_VARIABLE gpsd_notes RESULT_VARIABLE gpsd_rc)
if(NOT gpsd_rc EQUAL 0 OR NOT gpsd_notes MATCHES "Build ID: ([0-9a-f][0-9a-f])([0-9a-f]+)")
	message(FATAL_ERROR "gpuperf: ${GPSD_BUILT} has no build id: cannot split its debug information")
endif()
set(gpsd_dir "lib/debug/.build-id/${CMAKE_MATCH_1}")
set(gpsd_name "${CMAKE_MATCH_2}.debug")
set(gpsd_debug "${GPSD_SCRATCH}/${gpsd_name}")

# The debug file's name is what .gnu_debuglink records: make it in a
# scratch directory of the build tree under its final name.
if(NOT EXISTS "${gpsd_debug}" OR "${GPSD_BUILT}" IS_NEWER_THAN "${gpsd_debug}")
	# Two installs at once (the tests) each write their own and rename.
	string(RANDOM LENGTH 8 gpsd_tmp)
	file(MAKE_DIRECTORY "${GPSD_SCRATCH}")
	execute_process(COMMAND "${GPSD_OBJCOPY}" --only-keep-debug --compress-debug-sections
			"${GPSD_BUILT}" "${gpsd_debug}.${gpsd_tmp}"
		RESULT_VARIABLE gpsd_rc)
	if(NOT gpsd_rc EQUAL 0)
		message(FATAL_ERROR "gpuperf: objcopy --only-keep-debug ${GPSD_BUILT} failed")
	endif()
	file(RENAME "${gpsd_debug}.${gpsd_tmp}" "${gpsd_debug}")
endif()

if(GPSD_MODE STREQUAL "strip")
	set(gpsd_file "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${GPSD_INSTALLED}")
	# --strip-unneeded keeps a shared library's dynamic symbols; removing
	# an older debuglink first makes a reinstall over the same file work.
	execute_process(COMMAND "${GPSD_OBJCOPY}" --strip-unneeded --remove-section=.comment
			--remove-section=.gnu_debuglink "--add-gnu-debuglink=${gpsd_debug}"
			"${gpsd_file}"
		RESULT_VARIABLE gpsd_rc)
	if(NOT gpsd_rc EQUAL 0)
		message(FATAL_ERROR "gpuperf: cannot strip ${gpsd_file}")
	endif()
	message(STATUS "Stripped: ${gpsd_file}")
else()
	file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/${gpsd_dir}" TYPE FILE
		PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
		FILES "${gpsd_debug}")
endif()
