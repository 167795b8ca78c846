# SPDX-License-Identifier: GPL-3.0-or-later
# Sampled-data benchmark (bench/SAMPLES.md), included from the root CMakeLists.txt.
# Run: build/bench/bench_samples [--quick] [--points N] [--repeat N]
# a front end like the tools: BLAS threads set as they set them (apps/common/app_blas.c)
add_executable(bench_samples ${PROJECT_SOURCE_DIR}/bench/bench_samples.c
               ${PROJECT_SOURCE_DIR}/apps/common/app_blas.c)
target_include_directories(bench_samples PRIVATE ${PROJECT_SOURCE_DIR}/include
                           ${PROJECT_SOURCE_DIR}/apps/common ${LTH_DEP_INCLUDE_DIRS})
target_compile_definitions(bench_samples PRIVATE
                           LTH_SAMPLING_DATA="${PROJECT_SOURCE_DIR}/tests/data/sampling")
target_link_libraries(bench_samples PRIVATE lth_static m)
target_compile_options(bench_samples PRIVATE ${LTH_WARNINGS})
set_target_properties(bench_samples PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                                               ${PROJECT_BINARY_DIR}/bench)
if(LTH_BUILD_TESTS)
  # smoke run: both modes on every case, a short grid; fails if a run fails
  add_test(NAME bench_samples_quick COMMAND bench_samples --quick)
  set_tests_properties(bench_samples_quick PROPERTIES TIMEOUT 300)
endif()
