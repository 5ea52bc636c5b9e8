# devcheck::launch's tests: a torch-free gtest program on the launcher's
# objects, and the launcher as a process of its own (programs/launcher.cc)
# for the tests where signals and process lifetimes are the point. The ranks
# are programs/*.py; two run Python DDP with DEVCHECK_PYTHON's torch.
add_executable(devcheck_test_launcher ${CMAKE_CURRENT_LIST_DIR}/programs/launcher.cc)
target_link_libraries(devcheck_test_launcher PRIVATE devcheck_launch_objects devcheck_warnings)

file(GLOB launch_test_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*_test.cc)
add_executable(devcheck_launch_tests ${launch_test_sources})
target_include_directories(devcheck_launch_tests PRIVATE ${PROJECT_SOURCE_DIR}/src
                                                         ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(devcheck_launch_tests PRIVATE devcheck_launch_objects GTest::gtest_main
                                                    GTest::gmock devcheck_warnings)
target_compile_definitions(devcheck_launch_tests PRIVATE
  DEVCHECK_PYTHON="${DEVCHECK_PYTHON}"
  DEVCHECK_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
  DEVCHECK_TEST_LAUNCHER="$<TARGET_FILE:devcheck_test_launcher>")
add_dependencies(devcheck_launch_tests devcheck_test_launcher)
gtest_discover_tests(devcheck_launch_tests
  DISCOVERY_MODE PRE_TEST
  DISCOVERY_TIMEOUT 60
  PROPERTIES TIMEOUT 300 LABELS launch)
