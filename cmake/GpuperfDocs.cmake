# SPDX-License-Identifier: Apache-2.0
# Man pages and bash completion, both generated from docs/man/*.md by
# scripts/gen-man.py, and installed by `cmake --install`:
#   share/man/man1/gpuperf*.1.gz, share/bash-completion/completions/gpuperf

set(GPUPERF_MAN_PAGES gpuperf gpuperf-record gpuperf-report gpuperf-diff
	gpuperf-flamegraph gpuperf-dump)

find_package(Python3 COMPONENTS Interpreter QUIET)
find_program(GPUPERF_GZIP gzip)
if(NOT Python3_Interpreter_FOUND OR NOT GPUPERF_GZIP)
	list(APPEND GPUPERF_LEFT_OUT "man pages and bash completion: need python3 and gzip")
	return()
endif()

set(gpuperf_gen ${PROJECT_SOURCE_DIR}/scripts/gen-man.py)
set(gpuperf_man_dir ${PROJECT_BINARY_DIR}/man/man1)
set(gpuperf_man_sources "")
set(gpuperf_man_outputs "")
foreach(page IN LISTS GPUPERF_MAN_PAGES)
	set(src ${PROJECT_SOURCE_DIR}/docs/man/${page}.md)
	set(out ${gpuperf_man_dir}/${page}.1)
	# gzip -n: no name or time stamp in the archive, so builds reproduce.
	add_custom_command(OUTPUT ${out} ${out}.gz
		COMMAND ${CMAKE_COMMAND} -E make_directory ${gpuperf_man_dir}
		COMMAND ${Python3_EXECUTABLE} ${gpuperf_gen} roff ${src} ${out}
			--version ${PROJECT_VERSION}
		COMMAND ${GPUPERF_GZIP} -9nkf ${out}
		DEPENDS ${src} ${gpuperf_gen}
		COMMENT "man page ${page}.1"
		VERBATIM)
	list(APPEND gpuperf_man_sources ${src})
	list(APPEND gpuperf_man_outputs ${out} ${out}.gz)
	install(FILES ${out}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endforeach()

set(gpuperf_completion ${PROJECT_BINARY_DIR}/completion/gpuperf)
add_custom_command(OUTPUT ${gpuperf_completion}
	COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/completion
	COMMAND ${Python3_EXECUTABLE} ${gpuperf_gen} completion
		${PROJECT_SOURCE_DIR}/completion/gpuperf.bash.in ${gpuperf_completion}
		${gpuperf_man_sources}
	DEPENDS ${gpuperf_man_sources} ${gpuperf_gen}
		${PROJECT_SOURCE_DIR}/completion/gpuperf.bash.in
	COMMENT "bash completion"
	VERBATIM)
add_custom_target(gpuperf_docs ALL DEPENDS ${gpuperf_man_outputs} ${gpuperf_completion})
install(FILES ${gpuperf_completion}
	DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

# For the tests (tests/package/).
set(GPUPERF_MAN_DIR ${gpuperf_man_dir})
set(GPUPERF_COMPLETION ${gpuperf_completion})
