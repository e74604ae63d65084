#pragma once
#include "low/low.h"
#include "mid2/mid2.h"
