# Planted-bug programs the sanitizer and `devcheck run` tests run as child
# processes (included by tests/CMakeLists.txt after devcheck_sanitizer_tests).
add_executable(devcheck_san_planted ${CMAKE_CURRENT_LIST_DIR}/programs/planted.cc)
target_link_libraries(devcheck_san_planted PRIVATE torch devcheck_warnings)
devcheck_use_pch(devcheck_san_planted)

add_executable(devcheck_san_linked ${CMAKE_CURRENT_LIST_DIR}/programs/linked.cc)
target_link_libraries(devcheck_san_linked PRIVATE devcheck devcheck_warnings)
devcheck_use_pch(devcheck_san_linked)

set(devcheck_san_programs devcheck_san_planted devcheck_san_linked)
add_dependencies(devcheck_sanitizer_tests ${devcheck_san_programs})
target_compile_definitions(devcheck_sanitizer_tests PRIVATE
  DEVCHECK_SAN_PROGRAMS_DIR="${CMAKE_CURRENT_BINARY_DIR}")

# The CLI tests run them too; their target is made after this file is read.
function(devcheck_sanitizer_cli_deps)
  if(TARGET devcheck_cli_tests)
    add_dependencies(devcheck_cli_tests devcheck_san_planted devcheck_san_linked)
  endif()
endfunction()
if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.19)
  cmake_language(DEFER CALL devcheck_sanitizer_cli_deps)
endif()  # older CMake: build devcheck_sanitizer_tests before the CLI tests
