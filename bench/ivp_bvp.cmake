# SPDX-License-Identifier: GPL-3.0-or-later
# IVP and BVP benchmarks (bench/IVP_BVP.md), included from the root CMakeLists.txt
# at the root scope.  Built with the tree (they compile -Werror clean), never
# installed.  Run: build/bench/bench_ivp [--quick] [--csv], build/bench/bench_bvp [--quick] [--csv],
# build/bench/bench_colloc [--quick] [--csv] (docs/collocation.md)
foreach(lth_ib_name bench_ivp bench_bvp bench_colloc)
  add_executable(${lth_ib_name} ${PROJECT_SOURCE_DIR}/bench/${lth_ib_name}.c)
  target_include_directories(${lth_ib_name} PRIVATE ${PROJECT_SOURCE_DIR}/include
                             ${PROJECT_SOURCE_DIR}/bench ${LTH_DEP_INCLUDE_DIRS})
  # lth_static: the timings should not include PLT indirections of a shared lth
  target_link_libraries(${lth_ib_name} PRIVATE lth_static m)
  target_compile_options(${lth_ib_name} PRIVATE ${LTH_WARNINGS})
  set_target_properties(${lth_ib_name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                                                  ${PROJECT_BINARY_DIR}/bench)
endforeach()
target_compile_definitions(bench_colloc PRIVATE LTH_BENCH_DATA="${PROJECT_SOURCE_DIR}/data")
