# The sanitizer module's extra build pieces (included by src/CMakeLists.txt).

# LibTorch's header layouts (RecordFunction's) and debug-only asserts depend on NDEBUG, and
# LibTorch is built with it: the callback code must be too, whatever the
# build type (RelWithDebInfo and Release define it already).
if(NOT CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo|MinSizeRel)$")
  file(GLOB devcheck_sanitizer_sources ${CMAKE_CURRENT_LIST_DIR}/*.cc)
  set_source_files_properties(${devcheck_sanitizer_sources} PROPERTIES
    COMPILE_DEFINITIONS NDEBUG
    SKIP_PRECOMPILE_HEADERS ON)
endif()

# run_sanitized() compares a Python's torch with the LibTorch devcheck is built
# for before it starts the program (python_run.cc).
set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/python_run.cc APPEND PROPERTY
  COMPILE_DEFINITIONS DEVCHECK_TORCH_VERSION="${Torch_VERSION}")

# libdevcheck_preload.so for `devcheck run`: plain C/C++ with libdl only,
# built next to libdevcheck_sanitizer (the CLI finds it there, in the build tree and
# once installed). Never instrumented: it is preloaded into programs that are not.
add_library(devcheck_preload SHARED ${CMAKE_CURRENT_LIST_DIR}/preload/preload.cc)
target_compile_definitions(devcheck_preload PRIVATE NDEBUG
  DEVCHECK_LIBRARY_FILE="$<TARGET_SONAME_FILE_NAME:devcheck_sanitizer>"
  DEVCHECK_TORCH_VERSION="${Torch_VERSION}")
set_property(TARGET devcheck_preload PROPERTY COMPILE_OPTIONS "")
set_property(TARGET devcheck_preload PROPERTY LINK_OPTIONS "")
# -O2 makes the pass-through dlopen a tail call (see preload.cc).
target_compile_options(devcheck_preload PRIVATE -O2 -foptimize-sibling-calls -fvisibility=hidden)
target_link_libraries(devcheck_preload PRIVATE ${CMAKE_DL_LIBS})
# preload/torch_version.h, shared with run_sanitized (header-only: no LibTorch here).
target_include_directories(devcheck_preload PRIVATE ${PROJECT_SOURCE_DIR}/src)
set_target_properties(devcheck_preload PROPERTIES
  PREFIX "lib"
  OUTPUT_NAME devcheck_preload
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_dependencies(devcheck_sanitizer devcheck_preload)
install(TARGETS devcheck_preload LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
