# Planted-bug programs the sanitizer and `devcheck run` tests run as child
# processes (included by tests/CMakeLists.txt after devcheck_sanitizer_tests).
add_executable(devcheck_san_planted ${CMAKE_CURRENT_LIST_DIR}/programs/planted.cc)
target_link_libraries(devcheck_san_planted PRIVATE torch devcheck_warnings)
devcheck_use_pch(devcheck_san_planted)

# Claims the TESTING_ONLY dispatch keys itself, as LibTorch's backend_fallback_test does.
add_executable(devcheck_san_fallbacks ${CMAKE_CURRENT_LIST_DIR}/programs/fallbacks.cc)
target_link_libraries(devcheck_san_fallbacks PRIVATE torch devcheck_warnings)
devcheck_use_pch(devcheck_san_fallbacks)

# A library with its own SIGSEGV handler (programs/handler.cc): linked into
# the programs below, and a second copy they dlopen.
add_library(devcheck_san_handler SHARED ${CMAKE_CURRENT_LIST_DIR}/programs/handler.cc)
target_link_libraries(devcheck_san_handler PRIVATE devcheck_warnings ${CMAKE_DL_LIBS})
add_library(devcheck_san_lazy_handler MODULE ${CMAKE_CURRENT_LIST_DIR}/programs/handler.cc)
target_compile_definitions(devcheck_san_lazy_handler PRIVATE PLANTED_AT="dlopen")
target_link_libraries(devcheck_san_lazy_handler PRIVATE devcheck_warnings ${CMAKE_DL_LIBS})

# A library whose initializer never returns (programs/stuck.cc), dlopened by
# `handled stuck-term`.
add_library(devcheck_san_stuck MODULE ${CMAKE_CURRENT_LIST_DIR}/programs/stuck.cc)
target_link_libraries(devcheck_san_stuck PRIVATE devcheck_warnings)

add_executable(devcheck_san_handled ${CMAKE_CURRENT_LIST_DIR}/programs/handled.cc)
target_link_libraries(devcheck_san_handled PRIVATE torch devcheck_san_handler devcheck_warnings
  Threads::Threads ${CMAKE_DL_LIBS})
target_compile_definitions(devcheck_san_handled PRIVATE
  PLANTED_LAZY_LIBRARY="$<TARGET_FILE:devcheck_san_lazy_handler>"
  PLANTED_STUCK_LIBRARY="$<TARGET_FILE:devcheck_san_stuck>")
add_dependencies(devcheck_san_handled devcheck_san_lazy_handler devcheck_san_stuck)
devcheck_use_pch(devcheck_san_handled)

# linked.cc twice: with the opt-in process hooks (the preload library, linked
# instead of preloaded: DEVCHECK_SANITIZE starts the sanitizer), and with
# libdevcheck only, where nothing starts from the environment.
add_executable(devcheck_san_linked ${CMAKE_CURRENT_LIST_DIR}/programs/linked.cc)
target_link_options(devcheck_san_linked PRIVATE "LINKER:--no-as-needed")
target_link_libraries(devcheck_san_linked PRIVATE devcheck_preload devcheck devcheck_san_handler
  devcheck_warnings)
devcheck_use_pch(devcheck_san_linked)
add_executable(devcheck_san_core_only ${CMAKE_CURRENT_LIST_DIR}/programs/linked.cc)
target_link_libraries(devcheck_san_core_only PRIVATE devcheck devcheck_san_handler
  devcheck_warnings)
devcheck_use_pch(devcheck_san_core_only)

set(devcheck_san_programs devcheck_san_planted devcheck_san_fallbacks devcheck_san_handled devcheck_san_linked
  devcheck_san_core_only)
add_dependencies(devcheck_sanitizer_tests ${devcheck_san_programs})
target_compile_definitions(devcheck_sanitizer_tests PRIVATE
  DEVCHECK_SAN_PROGRAMS_DIR="${CMAKE_CURRENT_BINARY_DIR}")

# The CLI tests run them too; their target is made after this file is read.
function(devcheck_sanitizer_cli_deps)
  if(TARGET devcheck_cli_tests)
    add_dependencies(devcheck_cli_tests devcheck_san_planted devcheck_san_handled
      devcheck_san_linked)
  endif()
endfunction()
if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.19)
  cmake_language(DEFER CALL devcheck_sanitizer_cli_deps)
endif()  # older CMake: build devcheck_sanitizer_tests before the CLI tests

# The preload library's LibTorch-version guard (preload_guard.sh), through
# the preload itself and through `devcheck run`.
if(NOT DEVCHECK_SANITIZE)
  add_test(NAME sanitizer.PreloadRefusesAnotherLibTorchWithExitStatus2
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/preload_guard.sh $<TARGET_FILE:devcheck_preload>
            $<TARGET_FILE:devcheck_cli> ${DEVCHECK_PYTHON} ${CMAKE_CXX_COMPILER} ${Torch_VERSION})
endif()

# A LibTorch program written for CUDA (it picks its device with
# torch::cuda::is_available()): run under `devcheck run --fake-cuda`.
add_executable(devcheck_san_for_cuda ${CMAKE_CURRENT_LIST_DIR}/programs/for_cuda.cc)
target_link_libraries(devcheck_san_for_cuda PRIVATE torch devcheck_warnings)
devcheck_use_pch(devcheck_san_for_cuda)
add_dependencies(devcheck_sanitizer_tests devcheck_san_for_cuda)
