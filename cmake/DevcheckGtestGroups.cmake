# devcheck_gtest_groups(TARGET PREFIX name TIMEOUT seconds [GROUP_SIZE n]
#                       [DISCOVERY_TIMEOUT seconds])
#
# A LibTorch test program's tests as ctest tests, a suite's tests together:
# each process that loads LibTorch spends about 0.5-0.8 s before its first
# test (1.13 and 2.14 alike), so one process per TEST cost each torch lane
# some 600 CPU-seconds of start-up alone. Here a suite's tests run in one
# process, GROUP_SIZE at most (default 12): ctest test `<PREFIX><Suite>`, or
# `<PREFIX><Suite>#k` when the suite is split (GROUP_SIZE 1: each test its own
# process, named `<Suite>.<Test>`). A test named *_CUDA stays a
# ctest test of its own, `<Suite>.<Test>` as gtest_discover_tests names it, and
# is reported Skipped when it skips (scripts/gpu-check.sh runs `ctest -R
# '_CUDA$'`). A failing group prints gtest's output: the failing test's name and
# its messages.
#
# Tests are listed when ctest starts (as gtest_discover_tests' PRE_TEST mode),
# on the machine that runs them, and listed again whenever the program or this
# file changed. Each group's TIMEOUT is TIMEOUT times its tests, 1800 s at most.
function(devcheck_gtest_groups target)
  cmake_parse_arguments(arg "" "PREFIX;TIMEOUT;GROUP_SIZE;DISCOVERY_TIMEOUT" "" ${ARGN})
  if(NOT arg_GROUP_SIZE)
    set(arg_GROUP_SIZE 12)
  endif()
  if(NOT arg_DISCOVERY_TIMEOUT)
    set(arg_DISCOVERY_TIMEOUT 120)
  endif()
  set(base "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  set(include_file "${base}_groups_include.cmake")
  set(tests_file "${base}_groups.cmake")
  set(script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/DevcheckGtestGroupsList.cmake")
  string(CONCAT content
    "if(EXISTS [==[$<TARGET_FILE:${target}>]==])\n"
    "  if(NOT EXISTS [==[${tests_file}]==] OR\n"
    "     NOT [==[${tests_file}]==] IS_NEWER_THAN [==[$<TARGET_FILE:${target}>]==] OR\n"
    "     NOT [==[${tests_file}]==] IS_NEWER_THAN [==[${script}]==] OR\n"
    "     NOT [==[${tests_file}]==] IS_NEWER_THAN \"\${CMAKE_CURRENT_LIST_FILE}\")\n"
    "    set(devcheck_gtest_program [==[$<TARGET_FILE:${target}>]==])\n"
    "    set(devcheck_gtest_directory [==[${CMAKE_CURRENT_BINARY_DIR}]==])\n"
    "    set(devcheck_gtest_prefix [==[${arg_PREFIX}]==])\n"
    "    set(devcheck_gtest_timeout ${arg_TIMEOUT})\n"
    "    set(devcheck_gtest_group_size ${arg_GROUP_SIZE})\n"
    "    set(devcheck_gtest_discovery_timeout ${arg_DISCOVERY_TIMEOUT})\n"
    "    set(devcheck_gtest_tests_file [==[${tests_file}]==])\n"
    "    include([==[${script}]==])\n"
    "  endif()\n"
    "  include([==[${tests_file}]==])\n"
    "else()\n"
    "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
    "endif()\n")
  file(GENERATE OUTPUT "${include_file}" CONTENT "${content}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
