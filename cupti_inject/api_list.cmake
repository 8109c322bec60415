# SPDX-License-Identifier: Apache-2.0
# Generates api_list_runtime.inc / api_list_driver.inc: the API calls the
# injection library records, picked by name from the toolkit's own
# cupti_runtime_cbid.h / cupti_driver_cbid.h, so every variant a CUDA
# release adds (_ptsz, _v2, Ex, ...) is included without editing a list.
# The patterns are documented in README.md ("Which API calls are recorded").

set(GPINJ_RUNTIME_API_REGEX
	"^(__cudaLaunch|cudaLaunch|cudaMemcpy|cudaMemset|cudaGraphLaunch|cudaDeviceSynchronize|cudaThreadSynchronize|cudaStreamSynchronize|cudaEventSynchronize|cudaStreamWaitEvent|cudaEventRecord|cudaDeviceReset|cudaThreadExit|cudaMalloc|cudaFree|cudaHostAlloc|cudaMemPoolCreate|cudaMemPoolDestroy|cudaMemPoolTrimTo|cudaDeviceGetDefaultMemPool|cudaDeviceGetMemPool|cudaGraphAddMemAllocNode|cudaStreamAddCallback|cudaHostRegister|cudaHostUnregister|cudaGraphUpload|cudaProfilerStart|cudaProfilerStop|cudaIpc)")
set(GPINJ_DRIVER_API_REGEX
	"^(cuLaunch|cuMemcpy|cuMemset|cuGraphLaunch|cuCtxSynchronize|cuStreamSynchronize|cuEventSynchronize|cuStreamWaitEvent|cuEventRecord|cuMemAlloc|cuMemFree|cuMemHostAlloc|cuArrayCreate|cuArray3DCreate|cuArrayDestroy|cuMipmappedArrayCreate|cuMipmappedArrayDestroy|cuMemCreate|cuMemRelease|cuMemMap|cuMemUnmap|cuMemSetAccess|cuMemAddressReserve|cuMemAddressFree|cuMemRetainAllocationHandle|cuMemExportToShareableHandle|cuMemImportFromShareableHandle|cuMemPoolCreate|cuMemPoolDestroy|cuMemPoolTrimTo|cuDeviceGetDefaultMemPool|cuDeviceGetMemPool|cuGraphAddMemAllocNode|cuDevicePrimaryCtxReset|cuCtxDestroy|cuStreamAddCallback|cuMemHostRegister|cuMemHostUnregister|cuGraphUpload|cuProfilerStart|cuProfilerStop|cuIpc)")

# gpinj_api_list(<header> <enum prefix> <regex> <strip version suffix> <output>)
function(gpinj_api_list header prefix regex strip out)
	file(STRINGS ${header} lines REGEX "${prefix}[A-Za-z0-9_]+[ \t]*=[ \t]*[0-9]+")
	set(body "/* Generated from ${prefix}* of the CUPTI headers by api_list.cmake. Do not edit. */\n")
	set(n 0)
	foreach(line IN LISTS lines)
		if(NOT line MATCHES "${prefix}([A-Za-z0-9_]+)[ \t]*=[ \t]*([0-9]+)")
			continue()
		endif()
		set(name ${CMAKE_MATCH_1})
		set(id ${CMAKE_MATCH_2})
		if(strip)
			# Runtime cbids end in the CUDA version that added them (_v7000);
			# driver names keep their own _v2 (it is part of the symbol).
			string(REGEX REPLACE "_v[0-9][0-9][0-9][0-9]+$" "" name "${name}")
		endif()
		if(name MATCHES "${regex}")
			string(APPEND body "\t[${id}] = \"${name}\",\n")
			math(EXPR n "${n} + 1")
		endif()
	endforeach()
	if(n EQUAL 0)
		message(FATAL_ERROR "cupti_inject: no API matched in ${header}")
	endif()
	file(GENERATE OUTPUT ${out} CONTENT "${body}")
endfunction()
