#pragma once
/// The umbrella header: every public devcheck header.

#include "devcheck/check.h"
#include "devcheck/device.h"
#include "devcheck/doctor.h"
#include "devcheck/error.h"
#include "devcheck/move.h"
#include "devcheck/scope.h"
#include "devcheck/version.h"
