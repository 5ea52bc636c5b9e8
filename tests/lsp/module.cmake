# devcheck lsp's tests: a torch-free gtest program for the server library
# (framing, documents, diagnostics, the server in-process and over pipes),
# one for `devcheck lsp` as a process, and real clients: neovim's built-in
# LSP client, headless (nvim_test.sh).
file(GLOB lsp_test_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*_test.cc)
list(REMOVE_ITEM lsp_test_sources ${CMAKE_CURRENT_LIST_DIR}/lsp_cli_test.cc)
add_executable(devcheck_lsp_tests ${lsp_test_sources})
target_include_directories(devcheck_lsp_tests PRIVATE ${PROJECT_SOURCE_DIR}/src/lsp
                                                      ${PROJECT_SOURCE_DIR}/tests/lint)
target_link_libraries(devcheck_lsp_tests PRIVATE devcheck_lsp devcheck_format GTest::gtest_main
                                                 devcheck_warnings)
gtest_discover_tests(devcheck_lsp_tests
  DISCOVERY_MODE PRE_TEST
  DISCOVERY_TIMEOUT 60
  PROPERTIES TIMEOUT 120 LABELS lsp)

add_executable(devcheck_lsp_cli_tests ${CMAKE_CURRENT_LIST_DIR}/lsp_cli_test.cc)
target_include_directories(devcheck_lsp_cli_tests PRIVATE ${PROJECT_SOURCE_DIR}/src
                                                          ${PROJECT_SOURCE_DIR}/tests/lint)
target_link_libraries(devcheck_lsp_cli_tests PRIVATE devcheck_lsp GTest::gtest_main
                                                     devcheck_warnings)
target_compile_definitions(devcheck_lsp_cli_tests PRIVATE DEVCHECK_CLI="$<TARGET_FILE:devcheck_cli>")
add_dependencies(devcheck_lsp_cli_tests devcheck_cli)
gtest_discover_tests(devcheck_lsp_cli_tests
  DISCOVERY_MODE PRE_TEST
  DISCOVERY_TIMEOUT 60
  PROPERTIES TIMEOUT 120 LABELS lsp)

# Debian's neovim (0.7) headless, its built-in LSP client started on
# `devcheck lsp`: the diagnostics it received and a code action applied to
# the buffer (skipped, exit 77, without nvim).
add_test(NAME lsp.NeovimReceivesDiagnosticsAndAppliesTheFix
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/nvim_test.sh $<TARGET_FILE:devcheck_cli>)
set_tests_properties(lsp.NeovimReceivesDiagnosticsAndAppliesTheFix PROPERTIES
  TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS lsp)
