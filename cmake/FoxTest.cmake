# fox_add_test: the one helper behind every CTest test.
#   fox_add_test(NAME cmd args... [RANKS n] [LABELS l...] [TIMEOUT s] [ENV K=V...])
# RANKS runs the command under ${MPIEXEC_EXECUTABLE}; label `gpu` tests skip with 77 on no device
# (except on the CUDA emulation, which always has one).
set(FOX_PYTHON "" CACHE FILEPATH "Python with numpy, h5py and TA-Lib for the reference tests")
if(NOT FOX_PYTHON AND EXISTS ${CMAKE_SOURCE_DIR}/.venv/bin/python)
  set(FOX_PYTHON ${CMAKE_SOURCE_DIR}/.venv/bin/python CACHE FILEPATH "" FORCE)
endif()
set(FOX_SHARED_DATA ${CMAKE_SOURCE_DIR}/../shared/data CACHE PATH "Shared real data (tests skip when absent)")

function(fox_add_test name)
  cmake_parse_arguments(T "ASYNC_DONE" "RANKS;TIMEOUT" "COMMAND;LABELS;ENV" ${ARGN})
  if(NOT T_COMMAND)
    message(FATAL_ERROR "fox_add_test(${name}): COMMAND is required")
  endif()
  set(cmd ${T_COMMAND})
  if(T_RANKS)
    set(cmd ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_RANKS} ${MPIEXEC_PREFLAGS}
        ${T_COMMAND} ${MPIEXEC_POSTFLAGS})
  endif()
  add_test(NAME ${name} COMMAND ${cmd})
  set(env FOXOPT=$<TARGET_FILE:foxopt> FOX_SRC=${CMAKE_SOURCE_DIR} FOX_BUILD=${CMAKE_BINARY_DIR}
      FOX_PYTHON=${FOX_PYTHON} FOX_SHARED_DATA=${FOX_SHARED_DATA} FOX_MPIEXEC=${MPIEXEC_EXECUTABLE}
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      OMPI_MCA_rmaps_base_oversubscribe=1 ${T_ENV})
  if(NOT T_LABELS)
    set(T_LABELS unit)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" ENVIRONMENT "${env}"
                       TIMEOUT ${T_TIMEOUT})
  # On the CUDA emulation a gpu test always has its device: there, 77 is a failure, not a skip.
  if(NOT (FOXOPT_CUDA_EMU AND "gpu" IN_LIST T_LABELS))
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
  if(T_RANKS)
    set_tests_properties(${name} PROPERTIES PROCESSORS ${T_RANKS})
  endif()
  # On the CUDA emulation every gpu test runs again on the asynchronous engine (each stream on a
  # thread of its own, the sanitizer on) under three delay seeds: labels async and asyncN, not
  # gpu, so that the cuda-emu and cuda-emu-async test presets split them (and cuda-emu-asan
  # takes seed 1 besides the synchronous ones).
  if(FOXOPT_CUDA_EMU AND "gpu" IN_LIST T_LABELS AND NOT T_ASYNC_DONE)
    set(async_labels ${T_LABELS})
    list(REMOVE_ITEM async_labels gpu)
    list(APPEND async_labels async)
    foreach(seed 1 2 3)
      set(extra)
      if(T_RANKS)
        set(extra RANKS ${T_RANKS})
      endif()
      fox_add_test(${name}_async${seed} COMMAND ${T_COMMAND} ${extra}
                   LABELS ${async_labels} async${seed}
                   TIMEOUT ${T_TIMEOUT} ASYNC_DONE
                   ENV ${T_ENV} FOX_CUDA_EMU_ASYNC=1 FOX_CUDA_EMU_SEED=${seed})
    endforeach()
  endif()
endfunction()

# A C test program from tests/<dir>/<name>.c linked against foxcore.
function(fox_add_c_test name src)
  add_executable(${name} ${src} ${CMAKE_SOURCE_DIR}/tests/fox_check.c)
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE foxcore)
  fox_add_test(${name} COMMAND $<TARGET_FILE:${name}> ${ARGN})
endfunction()
