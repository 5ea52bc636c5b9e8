# Finds devcheck's dependencies. Everything comes from Debian packages here
# (scripts/install-deps.sh); on a GPU machine Torch comes from the torch 2.x
# wheel (Torch_DIR from torch.utils.cmake_prefix_path).
#
# DEVCHECK_DEPS_DIR: a folder made by scripts/gpu-bundle.sh on a Debian
# machine (header-only libraries, googletest sources, zlib headers) for a
# machine without those packages and without network (the GPU machine).
set(DEVCHECK_DEPS_DIR "" CACHE PATH "Bundled dependencies for machines without Debian's packages")
find_package(Torch REQUIRED)
find_package(Threads REQUIRED)

# The language level follows the torch found: C++17 where its headers allow
# it, C++20 where they require it (LibTorch 2.10 on: ATen/ATen.h stops with
# "C++20 or later compatible compiler is required"). Decided by preprocessing
# <ATen/ATen.h> at C++17 with this torch's include folders and flags, never
# from its version number. DEVCHECK_CXX_STANDARD set by hand skips the probe.
# Every devcheck library carries the level to its consumers (cxx_std_NN).
set(DEVCHECK_CXX_STANDARD "" CACHE STRING "C++ level (17 or 20); empty: what the torch found needs")
function(devcheck_torch_preprocesses standard result_var output_var)
  set(_flags ${TORCH_CXX_FLAGS})
  separate_arguments(_flags UNIX_COMMAND "${_flags}")
  set(_includes "")
  foreach(dir IN LISTS TORCH_INCLUDE_DIRS)
    list(APPEND _includes -I${dir})
  endforeach()
  file(WRITE ${CMAKE_BINARY_DIR}/devcheck_cxx_probe.cc "#include <ATen/ATen.h>\n")
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} -std=c++${standard} -E ${_flags} ${_includes}
            ${CMAKE_BINARY_DIR}/devcheck_cxx_probe.cc -o ${CMAKE_BINARY_DIR}/devcheck_cxx_probe.ii
    RESULT_VARIABLE _status ERROR_VARIABLE _error OUTPUT_QUIET)
  file(REMOVE ${CMAKE_BINARY_DIR}/devcheck_cxx_probe.ii)
  if(_status EQUAL 0)
    set(${result_var} TRUE PARENT_SCOPE)
  else()
    set(${result_var} FALSE PARENT_SCOPE)
  endif()
  set(${output_var} "${_error}" PARENT_SCOPE)
endfunction()
if(NOT DEVCHECK_CXX_STANDARD)
  devcheck_torch_preprocesses(17 _cxx17 _cxx17_error)
  if(_cxx17)
    set(_standard 17)
  else()
    devcheck_torch_preprocesses(20 _cxx20 _cxx20_error)
    if(NOT _cxx20)
      message(FATAL_ERROR "[devcheck] <ATen/ATen.h> of the LibTorch in ${Torch_DIR} does not "
        "preprocess at C++17 or C++20 with ${CMAKE_CXX_COMPILER}:\n${_cxx20_error}")
    endif()
    set(_standard 20)
  endif()
  set(DEVCHECK_CXX_STANDARD ${_standard} CACHE STRING
      "C++ level (17 or 20); empty: what the torch found needs" FORCE)
  if(_standard EQUAL 17)
    message(STATUS "devcheck: C++17 (LibTorch ${Torch_VERSION}'s headers allow it)")
  else()
    message(STATUS "devcheck: C++20 (LibTorch ${Torch_VERSION}'s headers require it)")
  endif()
endif()
set(CMAKE_CXX_STANDARD ${DEVCHECK_CXX_STANDARD})

if(DEVCHECK_DEPS_DIR)
  set(_deps_include ${DEVCHECK_DEPS_DIR}/include)
  add_library(fmt::fmt INTERFACE IMPORTED)
  set_target_properties(fmt::fmt PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${_deps_include}
                                            INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)
  add_library(fmt::fmt-header-only INTERFACE IMPORTED)  # the torch-free CLI's
  set_target_properties(fmt::fmt-header-only PROPERTIES
                        INTERFACE_INCLUDE_DIRECTORIES ${_deps_include}
                        INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES
                        INTERFACE_INCLUDE_DIRECTORIES ${_deps_include})
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${_deps_include})
  find_package(ZLIB QUIET)
  if(NOT ZLIB_FOUND)
    find_library(_zlib NAMES z libz.so.1 REQUIRED)
    add_library(ZLIB::ZLIB UNKNOWN IMPORTED)
    set_target_properties(ZLIB::ZLIB PROPERTIES IMPORTED_LOCATION ${_zlib}
                                                INTERFACE_INCLUDE_DIRECTORIES ${_deps_include})
  endif()
else()
  find_package(fmt REQUIRED)
  find_package(nlohmann_json 3.2 REQUIRED)
  find_package(CLI11 REQUIRED CONFIG)
  find_package(ZLIB REQUIRED)
endif()

if(DEVCHECK_SANITIZE)
  add_compile_options(-fsanitize=${DEVCHECK_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${DEVCHECK_SANITIZE})
endif()

# The python3 that has PyTorch: Debian's own, not the first on PATH.
find_program(DEVCHECK_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT DEVCHECK_PYTHON)
  find_program(DEVCHECK_PYTHON python3)
endif()

# Compile flags shared by devcheck's own targets (never pushed to consumers).
add_library(devcheck_warnings INTERFACE)
target_compile_options(devcheck_warnings INTERFACE -Wall -Wextra -Wno-unused-parameter)

# One precompiled header of the heavy LibTorch includes, built once and
# reused by every target of ours (the 2-core machine pays for it once).
add_library(devcheck_pch OBJECT ${CMAKE_CURRENT_LIST_DIR}/pch_anchor.cc)
target_link_libraries(devcheck_pch PUBLIC torch devcheck_warnings)
target_precompile_headers(devcheck_pch PRIVATE ${CMAKE_CURRENT_LIST_DIR}/torch_pch.h)

function(devcheck_use_pch target)
  # Executables would get -fPIE, which GCC refuses to mix with the -fPIC
  # header; -fPIC code links into an executable just as well.
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE OFF)
    target_compile_options(${target} PRIVATE -fPIC)
  endif()
  target_precompile_headers(${target} REUSE_FROM devcheck_pch)
endfunction()
