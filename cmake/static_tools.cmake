# SPDX-License-Identifier: GPL-3.0-or-later
# Start-up of the command-line tools (docs/performance.md, "Start-up"): most of a small
# run is loading and relocating the shared OpenBLAS (36 MB), LAPACK and LAPACKE.  Linked
# statically into the tools (archives of the same Debian packages, libgfortran stays
# shared) a 3-component lth-solve needs a third of the CPU time.  The library itself
# (liblth.so, the pkg-config and CMake packages) is unchanged.  OpenBLAS's idle thread
# pool is stopped by the tools themselves, in main (apps/common/app_blas.c).
# Included from the root CMakeLists.txt after the tools are defined.
option(LTH_STATIC_TOOLS "Link OpenBLAS, LAPACKE and GSL statically into the tools" ON)
if(LTH_STATIC_TOOLS AND LTH_BUILD_APPS)
  find_library(LTH_OPENBLAS_ARCHIVE NAMES libopenblas.a HINTS ${LTH_OPENBLAS_LIBRARY_DIRS})
  find_library(LTH_LAPACKE_ARCHIVE NAMES liblapacke.a HINTS ${LTH_LAPACKE_LIBRARY_DIRS})
  find_library(LTH_GSL_ARCHIVE NAMES libgsl.a HINTS ${LTH_GSL_LIBRARY_DIRS})
  find_library(LTH_GFORTRAN_LIBRARY NAMES gfortran libgfortran.so.5)
  if(LTH_OPENBLAS_ARCHIVE AND LTH_LAPACKE_ARCHIVE AND LTH_GSL_ARCHIVE AND LTH_GFORTRAN_LIBRARY)
    get_property(lth_st_targets DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(lth_st_t ${lth_st_targets})
      get_target_property(lth_st_type ${lth_st_t} TYPE)
      get_target_property(lth_st_dir ${lth_st_t} RUNTIME_OUTPUT_DIRECTORY)
      if(lth_st_type STREQUAL "EXECUTABLE" AND lth_st_dir STREQUAL "${PROJECT_BINARY_DIR}/apps")
        # the archives right after liblth.a; --as-needed drops the shared copies
        target_link_libraries(${lth_st_t} PRIVATE lth_static ${LTH_LAPACKE_ARCHIVE}
                              ${LTH_GSL_ARCHIVE} ${LTH_OPENBLAS_ARCHIVE} ${LTH_GFORTRAN_LIBRARY}
                              m)
        # not position-independent: no 12600 relative relocations of OpenBLAS to apply at start
        target_link_options(${lth_st_t} PRIVATE "LINKER:--as-needed" -no-pie)
      endif()
    endforeach()
    message(STATUS "lth tools: OpenBLAS, LAPACKE and GSL linked statically (LTH_STATIC_TOOLS)")
  else()
    message(STATUS "lth tools: static OpenBLAS/LAPACKE/GSL archives not found, tools link the shared libraries")
  endif()
endif()
