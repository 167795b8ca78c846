# SPDX-License-Identifier: GPL-3.0-or-later
# Operator-form decomposition benchmark (docs/performance.md, "Sparse systems: the
# decomposition at one point in operator form"), included from the root CMakeLists.txt.
# Run: build/bench/bench_opdecomp [--quick] [--csv] [--case S:NC]...
add_executable(bench_opdecomp ${PROJECT_SOURCE_DIR}/bench/bench_opdecomp.c
               ${PROJECT_SOURCE_DIR}/apps/common/app_blas.c)
# the chain is a test fixture (tests/fixtures/opchain.h), shared with test_opdecomp
target_include_directories(bench_opdecomp PRIVATE ${PROJECT_SOURCE_DIR}/include
                           ${PROJECT_SOURCE_DIR}/bench ${PROJECT_SOURCE_DIR}/apps/common
                           ${PROJECT_SOURCE_DIR}/tests/fixtures ${LTH_DEP_INCLUDE_DIRS})
target_link_libraries(bench_opdecomp PRIVATE lth_static m)
target_compile_options(bench_opdecomp PRIVATE ${LTH_WARNINGS})
set_target_properties(bench_opdecomp PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
if(LTH_BUILD_TESTS)
  # smoke run (~1 s): s = 201 and 1001, one sample each; fails if the operator form and
  # lth_decomp_at disagree on G x beyond 64 eps times the point's amplification
  add_test(NAME bench_opdecomp_quick COMMAND bench_opdecomp --quick)
  set_tests_properties(bench_opdecomp_quick PROPERTIES TIMEOUT 120)
endif()
