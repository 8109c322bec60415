# SPDX-License-Identifier: Apache-2.0
# Test helpers. Labels: unit | golden | bpf | sim | gpu | fuzz | e2e.
# A test that lacks root, eBPF or a GPU exits 77 and CTest marks it skipped.

pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)

# gpuperf_add_unit_test(<name> SOURCES ... [LIBS ...] [LABELS ...])
function(gpuperf_add_unit_test name)
	cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
	add_executable(${name} ${T_SOURCES})
	target_link_libraries(${name} PRIVATE PkgConfig::CMOCKA ${T_LIBS})
	gpuperf_target_warnings(${name})
	add_test(NAME ${name} COMMAND ${name})
	if(NOT T_LABELS)
		set(T_LABELS unit)
	endif()
	set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}"
		SKIP_RETURN_CODE 77 TIMEOUT 120)
endfunction()

# gpuperf_add_script_test(<name> COMMAND ... [LABELS ...] [ENV ...])
function(gpuperf_add_script_test name)
	cmake_parse_arguments(T "" "" "COMMAND;LABELS;ENV" ${ARGN})
	add_test(NAME ${name} COMMAND ${T_COMMAND})
	set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}"
		SKIP_RETURN_CODE 77 TIMEOUT 300)
	if(T_ENV)
		set_tests_properties(${name} PROPERTIES ENVIRONMENT "${T_ENV}")
	endif()
endfunction()
