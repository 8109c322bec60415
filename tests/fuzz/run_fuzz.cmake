# SPDX-License-Identifier: Apache-2.0
# Runs the libFuzzer harness for a fixed time on a fresh copy of the seed
# corpus (libFuzzer adds inputs to its first corpus directory, which must not
# be the source tree). Used by the fuzz_reader_short CTest:
#   cmake -DFUZZER=... -DSEEDS=... -DWORK=... -DARTIFACTS=... [-DSECONDS=20] -P run_fuzz.cmake
foreach(v FUZZER SEEDS WORK ARTIFACTS)
	if(NOT DEFINED ${v})
		message(FATAL_ERROR "run_fuzz.cmake: -D${v}=... is required")
	endif()
endforeach()
if(NOT DEFINED SECONDS)
	set(SECONDS 20)
endif()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK} ${ARTIFACTS})
file(GLOB _seeds LIST_DIRECTORIES false ${SEEDS}/*)
file(COPY ${_seeds} DESTINATION ${WORK})

# -malloc_limit_mb: the reader may hold a 16 MiB chunk (GP_CHUNK_MAX_RAW)
# and its compressed input, never one allocation of more than 40 MiB.
# -error_exitcode/-timeout_exitcode: libFuzzer's default, 77, means "skipped"
# to CTest elsewhere in this project.
execute_process(COMMAND ${FUZZER}
		-max_total_time=${SECONDS} -rss_limit_mb=1024 -malloc_limit_mb=40
		-timeout=5 -max_len=65536 -print_final_stats=1
		-error_exitcode=1 -timeout_exitcode=1
		-artifact_prefix=${ARTIFACTS}/
		${WORK}
	RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "fuzz_reader found a failure (exit ${rc}); the input that "
		"triggered it is in ${ARTIFACTS}/ - replay it with fuzz_reader_replay FILE")
endif()
