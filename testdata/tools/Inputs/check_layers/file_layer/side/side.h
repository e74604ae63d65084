#pragma once
#include "low/base.h"
#include "low/low.h"
