#pragma once
/// The umbrella header: every public devcheck header.

#include "devcheck/amp.h"
#include "devcheck/check.h"
#include "devcheck/checkpoint.h"
#include "devcheck/device.h"
#include "devcheck/distributed.h"
#include "devcheck/doctor.h"
#include "devcheck/error.h"
#include "devcheck/move.h"
#include "devcheck/op.h"
#include "devcheck/optim.h"
#include "devcheck/prefetch.h"
#include "devcheck/sanitizer.h"
#include "devcheck/scope.h"
#include "devcheck/version.h"
