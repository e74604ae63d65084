// The one source of the targets that only make a shared precompiled header (HLOSCOPE_PCH,
// cmake/HloscopePch.cmake). An executable host must link: its main is weak so that one linking
// GTest::gtest_main takes that library's instead.
__attribute__((weak)) int main() { return 0; }
