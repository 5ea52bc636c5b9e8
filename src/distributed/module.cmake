# devcheck_distributed is built on c10d, which LibTorch compiles in but whose
# headers guard Gloo and NCCL behind the macros LibTorch itself is built with.
# Gloo's headers come from libgloo-dev. NCCL (ProcessGroupNCCL, in
# libtorch_cuda) only when the Torch found has CUDA, as examples/custom_op
# decides for its CUDA kernel; its headers need the CUDA toolkit's and NCCL's.
target_compile_definitions(devcheck_distributed_objects PRIVATE USE_C10D_GLOO)
# (Checked: the sources compile against Debian 13's LibTorch 2.6 with
# USE_C10D_NCCL; ProcessGroupNCCL is in libtorch_cuda.)
if(C10_CUDA_LIBRARY)
  target_compile_definitions(devcheck_distributed_objects PRIVATE USE_C10D_NCCL)
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

