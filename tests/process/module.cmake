# src/process's tests: a torch-free gtest program (it builds in seconds,
# without LibTorch) that starts real children.
file(GLOB process_test_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*_test.cc)
add_executable(devcheck_process_tests ${process_test_sources})
target_include_directories(devcheck_process_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(devcheck_process_tests PRIVATE devcheck_process GTest::gtest_main
                                                     GTest::gmock Threads::Threads
                                                     devcheck_warnings)
gtest_discover_tests(devcheck_process_tests
  DISCOVERY_MODE PRE_TEST
  DISCOVERY_TIMEOUT 60
  PROPERTIES TIMEOUT 120 LABELS process)
