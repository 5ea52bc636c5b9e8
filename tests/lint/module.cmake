# devcheck lint's tests: a torch-free gtest program for the library (it
# builds in seconds, without LibTorch), one for the CLI through the built
# `devcheck`, and the whole Python tree of the installed torch linted without
# a crash or a hang.
file(GLOB_RECURSE lint_test_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*_test.cc)
list(REMOVE_ITEM lint_test_sources ${CMAKE_CURRENT_LIST_DIR}/cli_test.cc)
add_executable(devcheck_lint_tests ${lint_test_sources})
target_include_directories(devcheck_lint_tests PRIVATE ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(devcheck_lint_tests PRIVATE devcheck_lint devcheck_format GTest::gtest_main
                                                  nlohmann_json::nlohmann_json devcheck_warnings)
# Real code nobody here wrote: every file of the installed torch's Python
# tree (lint.TorchTree below; grammar_test.cc parses it with both grammars).
set(DEVCHECK_LINT_CORPUS "/usr/lib/python3/dist-packages/torch" CACHE PATH
    "A Python tree `devcheck lint` must get through (the lint.TorchTree test)")
# The parser as published, beside the one devcheck builds (grammar_test.cc).
target_link_libraries(devcheck_lint_tests PRIVATE devcheck_tree_sitter_upstream)
target_compile_definitions(devcheck_lint_tests PRIVATE DEVCHECK_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                                       DEVCHECK_LINT_CORPUS="${DEVCHECK_LINT_CORPUS}")
gtest_discover_tests(devcheck_lint_tests
  DISCOVERY_MODE PRE_TEST
  DISCOVERY_TIMEOUT 60
  PROPERTIES TIMEOUT 120 LABELS lint)

add_executable(devcheck_lint_cli_tests ${CMAKE_CURRENT_LIST_DIR}/cli_test.cc)
target_link_libraries(devcheck_lint_cli_tests PRIVATE GTest::gtest_main
                                                      nlohmann_json::nlohmann_json devcheck_warnings)
target_compile_definitions(devcheck_lint_cli_tests PRIVATE
  DEVCHECK_CLI="$<TARGET_FILE:devcheck_cli>")
add_dependencies(devcheck_lint_cli_tests devcheck_cli)
gtest_discover_tests(devcheck_lint_cli_tests
  DISCOVERY_MODE PRE_TEST
  DISCOVERY_TIMEOUT 60
  PROPERTIES TIMEOUT 120 LABELS lint)

# The torch tree linted whole, under a time limit (a hang fails), exit 0 or
# 1 (2 or a crash fails).
add_test(NAME lint.TorchTreeLintsWithoutCrashOrHang
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/corpus.sh $<TARGET_FILE:devcheck_cli>
          ${DEVCHECK_LINT_CORPUS})
set_tests_properties(lint.TorchTreeLintsWithoutCrashOrHang PROPERTIES
  TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS lint)

# Files nested or chained deeper than any stack, where the flow and the rules
# read (stress.py): linted without a crash or a hang.
add_test(NAME lint.DeepAndLongFilesLintWithoutCrashOrHang
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/stress.py $<TARGET_FILE:devcheck_cli>)
set_tests_properties(lint.DeepAndLongFilesLintWithoutCrashOrHang PROPERTIES
  TIMEOUT 300 LABELS lint)

# Public PyTorch code (scripts/fetch-lint-corpus.sh puts it in the cache):
# torchvision's source with its training scripts, skorch, torchaudio. Each
# is linted under a time limit; skipped when not fetched.
set(DEVCHECK_LINT_PUBLIC_CORPUS "/var/cache/devcheck/lint-corpus" CACHE PATH
    "Where scripts/fetch-lint-corpus.sh unpacked the public corpus (the lint.PublicCorpus tests)")
foreach(tree pytorch-vision-0.14.1-2 python3-skorch-0.12.1-2 python3-torchaudio-0.13.1-1)
  add_test(NAME lint.PublicCorpus.${tree}
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/corpus.sh $<TARGET_FILE:devcheck_cli>
            ${DEVCHECK_LINT_PUBLIC_CORPUS}/${tree} --lint-only)
  set_tests_properties(lint.PublicCorpus.${tree} PROPERTIES
    TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS lint)
endforeach()

# SARIF output checked against the SARIF 2.1.0 schema (install-deps.sh puts
# it in the cache; skipped without it or python3-jsonschema).
add_test(NAME lint.SarifValidatesAgainstTheSchema
  COMMAND ${DEVCHECK_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/sarif_check.py $<TARGET_FILE:devcheck_cli>
          /var/cache/devcheck/sarif-2.1.0/sarif-2.1.0.json)
set_tests_properties(lint.SarifValidatesAgainstTheSchema PROPERTIES
  TIMEOUT 60 SKIP_RETURN_CODE 77 LABELS lint)
