# trainer_test.cc starts ranks of `devcheck-torch train --nproc 2` itself
# (tests/distributed/ranks.h), as the front `devcheck` would.
target_link_libraries(devcheck_classifier_tests PRIVATE devcheck_test_ranks)
target_compile_definitions(devcheck_classifier_tests PRIVATE
  DEVCHECK_TORCH_CLI="$<TARGET_FILE:devcheck_torch_cli>")
add_dependencies(devcheck_classifier_tests devcheck_torch_cli)
