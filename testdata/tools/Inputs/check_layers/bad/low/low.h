#pragma once
#include "top/main.h"
