# devcheck_distributed is built on c10d, which LibTorch compiles in but whose
# headers guard Gloo and NCCL behind the macros LibTorch itself is built with.
# Gloo's headers come from libgloo-dev. NCCL (ProcessGroupNCCL, in
# libtorch_cuda) only when the Torch found has CUDA, as examples/custom_op
# decides for its CUDA kernel; its headers need the CUDA toolkit's and NCCL's.
#
# Gloo (the CPU and fake-device backend) is built where its headers are: a
# torch pip wheel ships none, and devcheck::distributed then builds without
# it (ProcessGroup says which backend it lacks and how to get it).
# DEVCHECK_GLOO: ON (must have it), OFF (never), AUTO (where the headers are).
set(DEVCHECK_GLOO AUTO CACHE STRING "Build c10d's Gloo backend into devcheck::distributed: AUTO, ON or OFF")
set_property(CACHE DEVCHECK_GLOO PROPERTY STRINGS AUTO ON OFF)
set(_devcheck_with_gloo OFF)
if(NOT DEVCHECK_GLOO STREQUAL "OFF")
  find_path(DEVCHECK_GLOO_INCLUDE_DIR gloo/algorithm.h HINTS ${TORCH_INCLUDE_DIRS})
  if(DEVCHECK_GLOO_INCLUDE_DIR)
    set(_devcheck_with_gloo ON)
  elseif(DEVCHECK_GLOO STREQUAL "ON")
    message(FATAL_ERROR "[devcheck] DEVCHECK_GLOO=ON, but no gloo/algorithm.h is found beside "
      "the LibTorch (${TORCH_INCLUDE_DIRS}) or in the system's include folders: install gloo's "
      "headers (Debian: libgloo-dev) or set DEVCHECK_GLOO_INCLUDE_DIR")
  endif()
endif()
# DEVCHECK_HAS_GLOO, not USE_C10D_GLOO: a wheel's TorchConfig defines the
# latter for every consumer (torch was built with Gloo) without its headers.
if(_devcheck_with_gloo)
  target_compile_definitions(devcheck_distributed_objects PRIVATE USE_C10D_GLOO DEVCHECK_HAS_GLOO=1)
  target_include_directories(devcheck_distributed_objects SYSTEM PRIVATE ${DEVCHECK_GLOO_INCLUDE_DIR})
  message(STATUS "devcheck::distributed: Gloo backend built (headers in ${DEVCHECK_GLOO_INCLUDE_DIR})")
else()
  message(STATUS "devcheck::distributed: no Gloo backend (no gloo headers; DEVCHECK_GLOO=${DEVCHECK_GLOO}): "
    "CPU and fake-device groups will say so")
endif()
set(DEVCHECK_DISTRIBUTED_HAS_GLOO ${_devcheck_with_gloo})
# (Checked: the sources compile against Debian 13's LibTorch 2.6 with
# USE_C10D_NCCL; ProcessGroupNCCL is in libtorch_cuda.)
# nccl.h: Debian's libnccl-dev, or a pip wheel's nvidia-nccl package beside
# torch (site-packages/nvidia/nccl/include); without it no NCCL backend.
if(C10_CUDA_LIBRARY)
  get_filename_component(_devcheck_site_packages "${Torch_DIR}/../../../.." ABSOLUTE)
  find_path(DEVCHECK_NCCL_INCLUDE_DIR nccl.h
            HINTS ${TORCH_INCLUDE_DIRS} ${_devcheck_site_packages}/nvidia/nccl/include
                  ${CUDAToolkit_INCLUDE_DIRS})
  if(NOT DEVCHECK_NCCL_INCLUDE_DIR)
    message(STATUS "devcheck::distributed: no NCCL backend (no nccl.h beside the LibTorch, in "
      "${_devcheck_site_packages}/nvidia/nccl/include or the system's include folders)")
  endif()
endif()
if(C10_CUDA_LIBRARY AND DEVCHECK_NCCL_INCLUDE_DIR)
  target_compile_definitions(devcheck_distributed_objects PRIVATE USE_C10D_NCCL)
  target_include_directories(devcheck_distributed_objects SYSTEM PRIVATE ${DEVCHECK_NCCL_INCLUDE_DIR})
  set(_devcheck_nccl_libraries ${C10_CUDA_LIBRARY})
  if(TARGET torch_cuda)
    list(APPEND _devcheck_nccl_libraries torch_cuda)
  endif()
  find_package(CUDAToolkit QUIET)
  if(TARGET CUDA::cudart)
    list(APPEND _devcheck_nccl_libraries CUDA::cudart)
    target_link_libraries(devcheck_distributed_objects PRIVATE CUDA::cudart)
  endif()
  # The shared library, and the programs that link the objects themselves.
  target_link_libraries(devcheck_distributed PRIVATE ${_devcheck_nccl_libraries})
  set(DEVCHECK_INTERNAL_LIBRARIES ${_devcheck_nccl_libraries})
  message(STATUS "devcheck::distributed: NCCL backend built")
endif()

# Debian's LibTorch 1.13 lacks the distributed-autograd header reducer.hpp
# includes; torch_1_13/ declares the two names reducer.hpp takes from it.
set(_devcheck_torch_include "")
foreach(dir IN LISTS TORCH_INCLUDE_DIRS)
  if(EXISTS ${dir}/torch/csrc/distributed/c10d/reducer.hpp)
    set(_devcheck_torch_include ${dir})
  endif()
endforeach()
if(_devcheck_torch_include AND
   NOT EXISTS ${_devcheck_torch_include}/torch/csrc/distributed/autograd/context/context.h)
  target_include_directories(devcheck_distributed_objects PRIVATE
                             ${CMAKE_CURRENT_SOURCE_DIR}/distributed/torch_1_13)
endif()

