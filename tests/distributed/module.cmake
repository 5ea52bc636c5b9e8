# The workers the distributed tests start as ranks: worker.cc uses the public
# API (the shared libraries), local_all_reduce_worker.cc an internal class
# (every part's objects). The process helper (ranks.cc) the test binary and the
# classifier's tests share.
add_executable(devcheck_distributed_worker ${CMAKE_CURRENT_LIST_DIR}/worker.cc)
target_include_directories(devcheck_distributed_worker PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..)
target_link_libraries(devcheck_distributed_worker PRIVATE devcheck devcheck_fake_device devcheck_warnings)
target_link_options(devcheck_distributed_worker PRIVATE "LINKER:--no-as-needed")
devcheck_use_pch(devcheck_distributed_worker)

add_executable(devcheck_local_all_reduce_worker
  ${CMAKE_CURRENT_LIST_DIR}/local_all_reduce_worker.cc)
target_include_directories(devcheck_local_all_reduce_worker PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..
                                                                    ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(devcheck_local_all_reduce_worker PRIVATE devcheck_internal_objects
                                                               devcheck_warnings)
devcheck_use_pch(devcheck_local_all_reduce_worker)

add_library(devcheck_test_ranks OBJECT ${CMAKE_CURRENT_LIST_DIR}/ranks.cc)
target_link_libraries(devcheck_test_ranks PUBLIC devcheck_test_support)
target_compile_definitions(devcheck_test_ranks PRIVATE
  DEVCHECK_DISTRIBUTED_WORKER="$<TARGET_FILE:devcheck_distributed_worker>"
  DEVCHECK_LOCAL_ALL_REDUCE_WORKER="$<TARGET_FILE:devcheck_local_all_reduce_worker>")
devcheck_use_pch(devcheck_test_ranks)

target_link_libraries(devcheck_distributed_tests PRIVATE devcheck_test_ranks)
add_dependencies(devcheck_distributed_tests devcheck_distributed_worker
                 devcheck_local_all_reduce_worker)

# The wheel's layout: no gloo headers (tests/distributed/without_gloo.sh).
if(NOT DEVCHECK_SANITIZE)
  add_test(NAME distributed.BuildsWithoutGlooHeadersAndSaysWhichBackendItLacks
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/without_gloo.sh ${PROJECT_SOURCE_DIR}
            ${PROJECT_BINARY_DIR} ${Torch_DIR} ${DEVCHECK_PYTHON})
  set_tests_properties(distributed.BuildsWithoutGlooHeadersAndSaysWhichBackendItLacks
    PROPERTIES TIMEOUT 1800 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
endif()
