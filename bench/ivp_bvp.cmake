# SPDX-License-Identifier: GPL-3.0-or-later
# IVP and BVP benchmarks (bench/IVP_BVP.md), included from the root CMakeLists.txt
# at the root scope.  Built with the tree (they compile -Werror clean), never
# installed.  Run: build/bench/bench_ivp [--quick] [--csv], build/bench/bench_bvp [--quick] [--csv],
# build/bench/bench_table [--quick] [--csv] (coefficient tables, docs/performance.md)
# build/bench/bench_colloc [--quick] [--csv] (docs/collocation.md)
foreach(lth_ib_name bench_ivp bench_bvp bench_table bench_colloc)
  # front ends like the tools: BLAS threads set as they set them (apps/common/app_blas.c)
  add_executable(${lth_ib_name} ${PROJECT_SOURCE_DIR}/bench/${lth_ib_name}.c
                 ${PROJECT_SOURCE_DIR}/apps/common/app_blas.c)
  # the manufactured systems are the tests' fixture (tests/fixtures/testsys.h)
  target_include_directories(${lth_ib_name} PRIVATE ${PROJECT_SOURCE_DIR}/include
                             ${PROJECT_SOURCE_DIR}/bench ${PROJECT_SOURCE_DIR}/apps/common
                             ${PROJECT_SOURCE_DIR}/tests/fixtures ${LTH_DEP_INCLUDE_DIRS})
  # lth_static: the timings should not include PLT indirections of a shared lth
  target_link_libraries(${lth_ib_name} PRIVATE lth_static m)
  target_compile_options(${lth_ib_name} PRIVATE ${LTH_WARNINGS})
  set_target_properties(${lth_ib_name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                                                  ${PROJECT_BINARY_DIR}/bench)
endforeach()
target_compile_definitions(bench_colloc PRIVATE LTH_BENCH_DATA="${PROJECT_SOURCE_DIR}/data")

# Peer comparison with SUNDIALS IDA (docs/performance.md): built only when Debian's
# libsundials-dev is installed; an optional dependency of this benchmark, never of the
# library.  Run: build/bench/bench_ida [--quick] [--csv]
find_path(LTH_IDA_INCLUDE_DIR ida/ida.h)
find_library(LTH_IDA_LIB sundials_ida)
find_library(LTH_IDA_NVEC sundials_nvecserial)
find_library(LTH_IDA_SUNMAT sundials_sunmatrixdense)
find_library(LTH_IDA_SUNLS sundials_sunlinsoldense)
if(LTH_IDA_INCLUDE_DIR AND LTH_IDA_LIB AND LTH_IDA_NVEC AND LTH_IDA_SUNMAT AND LTH_IDA_SUNLS)
  add_executable(bench_ida ${PROJECT_SOURCE_DIR}/bench/bench_ida.c
                 ${PROJECT_SOURCE_DIR}/apps/common/app_blas.c)
  target_include_directories(bench_ida PRIVATE ${PROJECT_SOURCE_DIR}/include
                             ${PROJECT_SOURCE_DIR}/bench ${PROJECT_SOURCE_DIR}/apps/common
                             ${PROJECT_SOURCE_DIR}/tests/fixtures ${LTH_IDA_INCLUDE_DIR}
                             ${LTH_DEP_INCLUDE_DIRS})
  target_link_libraries(bench_ida PRIVATE lth_static ${LTH_IDA_LIB} ${LTH_IDA_NVEC}
                        ${LTH_IDA_SUNMAT} ${LTH_IDA_SUNLS} m)
  target_compile_options(bench_ida PRIVATE ${LTH_WARNINGS})
  set_target_properties(bench_ida PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
else()
  message(STATUS "SUNDIALS IDA not found: bench_ida is not built (apt-get install libsundials-dev)")
endif()
