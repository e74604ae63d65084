#include "mid/mid.h"
#include "mid2/mid2.h"
#include "low/low.h"
#include <vector>
