# In fuzz builds, instrument the checkpoint parsers for libFuzzer's coverage
# guidance (the harness alone is instrumented by fuzz/CMakeLists.txt).
if(DEVCHECK_BUILD_FUZZ AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  file(GLOB checkpoint_fuzzed_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cc)
  set_source_files_properties(${checkpoint_fuzzed_sources} TARGET_DIRECTORY devcheck_checkpoint
    PROPERTIES COMPILE_OPTIONS -fsanitize=fuzzer-no-link
               # clang refuses a precompiled header built without the flag.
               SKIP_PRECOMPILE_HEADERS ON)
endif()
