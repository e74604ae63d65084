#include "side/side.h"
#include "low/low.h"
