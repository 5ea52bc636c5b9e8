# The sanitizer module's extra build pieces (included by src/CMakeLists.txt).

# LibTorch's header layouts (RecordFunction's) and debug-only asserts depend on NDEBUG, and
# LibTorch is built with it: the sanitizer's code must be too, whatever the
# build type (RelWithDebInfo and Release define it already).
if(NOT CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo|MinSizeRel)$")
  file(GLOB devcheck_sanitizer_sources ${CMAKE_CURRENT_LIST_DIR}/*.cc)
  set_source_files_properties(${devcheck_sanitizer_sources} PROPERTIES
    COMPILE_DEFINITIONS NDEBUG
    SKIP_PRECOMPILE_HEADERS ON)
endif()

# run_sanitized() compares a Python's torch with the LibTorch devcheck is built
# for before it starts the program, and finds devcheck's Python helpers
# (share/devcheck/python) from libdevcheck_sanitizer's folder, installed or
# in the build tree (python_run.cc).
file(RELATIVE_PATH devcheck_python_from_libdir
  ${CMAKE_INSTALL_FULL_LIBDIR} ${CMAKE_INSTALL_FULL_DATADIR}/devcheck/python)
file(RELATIVE_PATH devcheck_python_from_build
  ${CMAKE_CURRENT_BINARY_DIR} ${PROJECT_BINARY_DIR}/share/devcheck/python)
set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/python_run.cc APPEND PROPERTY
  COMPILE_DEFINITIONS DEVCHECK_TORCH_VERSION="${Torch_VERSION}"
  DEVCHECK_PYTHON_DIR_FROM_LIBDIR="${devcheck_python_from_libdir}"
  DEVCHECK_PYTHON_DIR_FROM_BUILD="${devcheck_python_from_build}")

# devcheck's Python helpers for programs `devcheck run` starts (fake CUDA's
# torch.cuda, the sitecustomize that loads it), copied where the build tree's
# libraries find them as the installed ones do (cmake/DevcheckInstall.cmake).
file(GLOB devcheck_fake_cuda_python CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/devcheck_fake_cuda/*.py)
set(devcheck_python_helpers
  ${PROJECT_SOURCE_DIR}/python/devcheck_fake.py
  ${devcheck_fake_cuda_python}
  ${PROJECT_SOURCE_DIR}/python/site/sitecustomize.py)
set(devcheck_python_helpers_out
  ${PROJECT_BINARY_DIR}/share/devcheck/python/devcheck_fake.py
  ${PROJECT_BINARY_DIR}/share/devcheck/python/site/sitecustomize.py)
foreach(helper IN LISTS devcheck_fake_cuda_python)
  get_filename_component(helper_name ${helper} NAME)
  list(APPEND devcheck_python_helpers_out
    ${PROJECT_BINARY_DIR}/share/devcheck/python/devcheck_fake_cuda/${helper_name})
endforeach()
add_custom_command(OUTPUT ${devcheck_python_helpers_out}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/share/devcheck/python/site
          ${PROJECT_BINARY_DIR}/share/devcheck/python/devcheck_fake_cuda
  COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_SOURCE_DIR}/python/devcheck_fake.py
          ${PROJECT_BINARY_DIR}/share/devcheck/python/
  COMMAND ${CMAKE_COMMAND} -E copy ${devcheck_fake_cuda_python}
          ${PROJECT_BINARY_DIR}/share/devcheck/python/devcheck_fake_cuda/
  COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_SOURCE_DIR}/python/site/sitecustomize.py
          ${PROJECT_BINARY_DIR}/share/devcheck/python/site/
  DEPENDS ${devcheck_python_helpers}
  COMMENT "devcheck's Python helpers in share/devcheck/python" VERBATIM)
add_custom_target(devcheck_python_helpers ALL DEPENDS ${devcheck_python_helpers_out})
add_dependencies(devcheck_sanitizer devcheck_python_helpers)

# libdevcheck_preload.so for `devcheck run`: plain C/C++ with libdl only,
# built next to libdevcheck_sanitizer (the CLI finds it there, in the build tree and
# once installed). Never instrumented: it is preloaded into programs that are not.
add_library(devcheck_preload SHARED ${CMAKE_CURRENT_LIST_DIR}/preload/preload.cc)
target_compile_definitions(devcheck_preload PRIVATE NDEBUG
  DEVCHECK_LIBRARY_FILE="$<TARGET_SONAME_FILE_NAME:devcheck_sanitizer>"
  DEVCHECK_FAKE_DEVICE_LIBRARY_FILE="$<TARGET_SONAME_FILE_NAME:devcheck_fake_device>"
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
