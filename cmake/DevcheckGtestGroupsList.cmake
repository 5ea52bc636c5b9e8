# Run by ctest (DevcheckGtestGroups.cmake): lists a gtest program's tests and
# writes the ctest tests that run them, a suite's tests in one process.
# Inputs: devcheck_gtest_program, devcheck_gtest_directory,
# devcheck_gtest_prefix, devcheck_gtest_timeout, devcheck_gtest_group_size,
# devcheck_gtest_discovery_timeout, devcheck_gtest_tests_file.
execute_process(
  COMMAND "${devcheck_gtest_program}" --gtest_list_tests
  WORKING_DIRECTORY "${devcheck_gtest_directory}"
  TIMEOUT ${devcheck_gtest_discovery_timeout}
  OUTPUT_VARIABLE listing
  ERROR_VARIABLE listing_errors
  RESULT_VARIABLE listing_status)
if(NOT listing_status EQUAL 0)
  message(FATAL_ERROR "${devcheck_gtest_program} --gtest_list_tests failed (${listing_status}):\n"
                      "${listing}${listing_errors}")
endif()

# gtest writes "Suite." and "  Test", each maybe followed by "  # GetParam() =
# ..." (any text): only the names are kept.
string(REGEX REPLACE "[ \t]*#[^\n]*" "" listing "${listing}")
string(REPLACE ";" "" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")

set(out "# Written by ${CMAKE_CURRENT_LIST_FILE} from ${devcheck_gtest_program}\n")
set(suite "")
set(suites "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ \t].*)\\.$")
    set(suite "${CMAKE_MATCH_1}")
    string(MAKE_C_IDENTIFIER "${suite}" key)
    list(APPEND suites "${suite}")
    set(tests_${key} "")
  elseif(suite AND line MATCHES "^[ \t]+([^ \t]+)$")
    set(test "${CMAKE_MATCH_1}")
    if(suite MATCHES "^DISABLED_" OR test MATCHES "^DISABLED_")
      continue()
    endif()
    if(test MATCHES "_CUDA$")
      # Its own ctest test: gpu-check.sh selects these by name, and a skip
      # (no GPU) shows as Skipped.
      string(APPEND out
        "add_test([==[${suite}.${test}]==] [==[${devcheck_gtest_program}]==] "
        "[==[--gtest_filter=${suite}.${test}]==])\n"
        "set_tests_properties([==[${suite}.${test}]==] PROPERTIES "
        "WORKING_DIRECTORY [==[${devcheck_gtest_directory}]==] TIMEOUT ${devcheck_gtest_timeout} "
        "ENVIRONMENT OMP_NUM_THREADS=1 SKIP_REGULAR_EXPRESSION [==[\\[  SKIPPED \\]]==])\n")
    else()
      list(APPEND tests_${key} "${suite}.${test}")
    endif()
  endif()
endforeach()

list(REMOVE_DUPLICATES suites)
foreach(suite IN LISTS suites)
  string(MAKE_C_IDENTIFIER "${suite}" key)
  list(LENGTH tests_${key} count)
  if(count EQUAL 0)
    continue()
  endif()
  math(EXPR groups "(${count} + ${devcheck_gtest_group_size} - 1) / ${devcheck_gtest_group_size}")
  set(group 0)
  while(group LESS groups)
    math(EXPR first "${group} * ${devcheck_gtest_group_size}")
    math(EXPR group "${group} + 1")
    list(SUBLIST tests_${key} ${first} ${devcheck_gtest_group_size} members)
    list(LENGTH members size)
    list(JOIN members ":" filter)
    if(devcheck_gtest_group_size EQUAL 1)
      set(name "${filter}")  # a test of its own keeps its gtest name
    elseif(groups EQUAL 1)
      set(name "${devcheck_gtest_prefix}${suite}")
    else()
      set(name "${devcheck_gtest_prefix}${suite}#${group}")
    endif()
    math(EXPR timeout "${devcheck_gtest_timeout} * ${size}")
    if(timeout GREATER 1800)
      set(timeout 1800)
    endif()
    if(timeout LESS devcheck_gtest_timeout)
      set(timeout ${devcheck_gtest_timeout})
    endif()
    string(APPEND out
      "add_test([==[${name}]==] [==[${devcheck_gtest_program}]==] [==[--gtest_filter=${filter}]==])\n"
      "set_tests_properties([==[${name}]==] PROPERTIES "
      "WORKING_DIRECTORY [==[${devcheck_gtest_directory}]==] TIMEOUT ${timeout} "
      "ENVIRONMENT OMP_NUM_THREADS=1)\n")
  endwhile()
endforeach()
file(WRITE "${devcheck_gtest_tests_file}" "${out}")
