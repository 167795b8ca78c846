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

# Benchmarks against SUNDIALS IDA (docs/performance.md), built only when Debian's
# libsundials-dev is found and LTH_BENCH_SUNDIALS is on (-DLTH_BENCH_SUNDIALS=OFF builds the
# tree as on a machine without it); an optional dependency of these benchmarks, never of the
# library.
#   bench_ida [--quick] [--csv]: integrators, not tools -- IDA on lth's reduced ODE
#   bench_peer [--quick] [--csv]: tools -- IDA on the index-1 form its users write, lth on the DAE
option(LTH_BENCH_SUNDIALS "Build bench_ida and bench_peer when SUNDIALS IDA is found" ON)
if(LTH_BENCH_SUNDIALS)
  find_path(LTH_IDA_INCLUDE_DIR ida/ida.h)
  find_library(LTH_IDA_LIB sundials_ida)
  find_library(LTH_IDA_NVEC sundials_nvecserial)
  find_library(LTH_IDA_SUNMAT sundials_sunmatrixdense)
  find_library(LTH_IDA_SUNLS sundials_sunlinsoldense)
endif()
if(LTH_BENCH_SUNDIALS AND LTH_IDA_INCLUDE_DIR AND LTH_IDA_LIB AND LTH_IDA_NVEC AND LTH_IDA_SUNMAT
   AND LTH_IDA_SUNLS)
  foreach(lth_ida_name bench_ida bench_peer)
    add_executable(${lth_ida_name} ${PROJECT_SOURCE_DIR}/bench/${lth_ida_name}.c
                   ${PROJECT_SOURCE_DIR}/apps/common/app_blas.c)
    target_include_directories(${lth_ida_name} PRIVATE ${PROJECT_SOURCE_DIR}/include
                               ${PROJECT_SOURCE_DIR}/bench ${PROJECT_SOURCE_DIR}/apps/common
                               ${PROJECT_SOURCE_DIR}/tests/fixtures ${LTH_IDA_INCLUDE_DIR}
                               ${LTH_DEP_INCLUDE_DIRS})
    target_link_libraries(${lth_ida_name} PRIVATE lth_static ${LTH_IDA_LIB} ${LTH_IDA_NVEC}
                          ${LTH_IDA_SUNMAT} ${LTH_IDA_SUNLS} m)
    target_compile_options(${lth_ida_name} PRIVATE ${LTH_WARNINGS})
    set_target_properties(${lth_ida_name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                                                     ${PROJECT_BINARY_DIR}/bench)
  endforeach()
  target_compile_definitions(bench_peer PRIVATE LTH_BENCH_DATA="${PROJECT_SOURCE_DIR}/data")
  if(LTH_BUILD_TESTS)
    # smoke run, untimed (< 1 s): fails if a hand-written index-1 residual is not zero at the
    # exact solution or, at rtol 1e-8, lth misses 1e-6 or IDA 1e-4
    add_test(NAME bench_peer_quick COMMAND bench_peer --quick)
    set_tests_properties(bench_peer_quick PROPERTIES TIMEOUT 120)
    # (bench/README.md's options for lth's method and coefficients)
    add_test(NAME bench_peer_quick_cheb COMMAND bench_peer --quick --only lth --lth-method cheb
                                                --lth-coefficients direct)
    set_tests_properties(bench_peer_quick_cheb PROPERTIES TIMEOUT 120)
  endif()
  # bench_scale: IDA with the KLU sparse solver (SuiteSparse) against lth at size
  find_library(LTH_IDA_SPMAT sundials_sunmatrixsparse)
  find_library(LTH_IDA_KLU sundials_sunlinsolklu)
  find_library(LTH_KLU klu)
  if(LTH_IDA_SPMAT AND LTH_IDA_KLU AND LTH_KLU)
    add_executable(bench_scale ${PROJECT_SOURCE_DIR}/bench/bench_scale.c
                   ${PROJECT_SOURCE_DIR}/bench/scale_stokes.c
                   ${PROJECT_SOURCE_DIR}/apps/common/app_blas.c)
    target_include_directories(bench_scale PRIVATE ${PROJECT_SOURCE_DIR}/include
                               ${PROJECT_SOURCE_DIR}/apps/common
                               ${LTH_IDA_INCLUDE_DIR} /usr/include/suitesparse
                               ${LTH_DEP_INCLUDE_DIRS})
    target_link_libraries(bench_scale PRIVATE lth_static ${LTH_IDA_LIB} ${LTH_IDA_NVEC}
                          ${LTH_IDA_SPMAT} ${LTH_IDA_KLU} ${LTH_KLU} m)
    target_compile_options(bench_scale PRIVATE ${LTH_WARNINGS})
    set_target_properties(bench_scale PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                                                 ${PROJECT_BINARY_DIR}/bench)
    if(LTH_BUILD_TESTS)
      # smoke run, untimed: n = 50, both tools below 1e-5 at rtol 1e-8; the Stokes-type
      # case on an 8 x 8 grid (sparse and dense Pi) the same
      add_test(NAME bench_scale_quick COMMAND bench_scale --quick)
      set_tests_properties(bench_scale_quick PROPERTIES TIMEOUT 120)
    endif()
  endif()
elseif(LTH_BENCH_SUNDIALS)
  message(STATUS "SUNDIALS IDA not found: bench_ida and bench_peer are not built "
                 "(apt-get install libsundials-dev)")
endif()
