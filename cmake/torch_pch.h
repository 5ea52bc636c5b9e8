// The LibTorch headers that nearly every devcheck file includes; precompiled once.
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>
#include <c10/util/Exception.h>
#include <torch/nn/module.h>
#include <torch/types.h>
