# SPDX-License-Identifier: GPL-3.0-or-later
# pkg-config files (docs/library.md, "Linking"):
#   lth.pc         the shared library; Libs carries -Wl,-rpath,${libdir} when
#                  the library directory is not one the linker searches by
#                  default (LTH_PC_RPATH=AUTO), so programs linked with
#                  `pkg-config --libs lth` run without LD_LIBRARY_PATH;
#                  Libs.private is complete (GSL, LAPACKE, OpenBLAS with their
#                  own static dependencies, libm, OpenMP), so `cc -static ...
#                  $(pkg-config --static --libs lth)` links a static program.
#   lth-static.pc  liblth.a by its path plus the same dependencies: lth linked
#                  statically, the system libraries shared.
# Both are installed to LIBDIR/pkgconfig; the build tree gets -uninstalled
# variants in <build>/pkgconfig for the documentation tests.
set(LTH_PC_RPATH AUTO CACHE STRING
    "rpath in lth.pc's Libs: AUTO (when LIBDIR is not a default link directory), ON or OFF")
set_property(CACHE LTH_PC_RPATH PROPERTY STRINGS AUTO ON OFF)

set(_lth_pc_libs -lgsl ${LTH_LAPACKE_STATIC_LDFLAGS} ${LTH_OPENBLAS_STATIC_LDFLAGS})
if(LTH_HAVE_KLU) # the operator form's sparse Pi (SuiteSparse KLU and its orderings)
  list(INSERT _lth_pc_libs 0 -lklu -lamd -lcolamd -lbtf -lsuitesparseconfig)
endif()
if(LTH_HAVE_CHOLMOD) # lth-lqr's sparse check of a large weight (lib/lqr/lqr_psd.c)
  list(INSERT _lth_pc_libs 0 -lcholmod -lsuitesparseconfig)
endif()
if(LTH_HAVE_CVODE) # lth_opivp_solve (libsundials_cvode.a is self-contained)
  list(INSERT _lth_pc_libs 0 -lsundials_cvode)
endif()
# keep the last occurrence of each library: a static link needs every
# library after the ones that use it
list(REVERSE _lth_pc_libs)
list(REMOVE_DUPLICATES _lth_pc_libs)
list(REVERSE _lth_pc_libs)
list(REMOVE_ITEM _lth_pc_libs -lm)
# libgfortran (OpenBLAS's LAPACK) needs libquadmath in a static link, which
# openblas.pc does not list
if("-lgfortran" IN_LIST _lth_pc_libs)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libquadmath.a
                  OUTPUT_VARIABLE _lth_qm OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(IS_ABSOLUTE "${_lth_qm}" AND EXISTS "${_lth_qm}")
    list(APPEND _lth_pc_libs -lquadmath)
  endif()
endif()
list(APPEND _lth_pc_libs -lm)
# OpenMP by its runtime library, not by the compiler's flag: gcc's -fopenmp and
# clang's -fopenmp=libomp are each refused by the other compiler, and a program
# linking liblth.a needs only the runtime liblth was compiled against (libgomp
# or libomp), whatever compiler it is built with
if(OpenMP_C_FOUND)
  foreach(_lth_n IN LISTS OpenMP_C_LIB_NAMES)
    set(_lth_path "${OpenMP_${_lth_n}_LIBRARY}")
    if(_lth_n STREQUAL "pthread" OR NOT _lth_path)
      continue()
    endif()
    get_filename_component(_lth_dir "${_lth_path}" DIRECTORY)
    list(FIND CMAKE_C_IMPLICIT_LINK_DIRECTORIES "${_lth_dir}" _lth_idx)
    if(_lth_idx EQUAL -1)
      list(APPEND _lth_pc_libs "-L${_lth_dir}" "-Wl,-rpath,${_lth_dir}")
    endif()
    list(APPEND _lth_pc_libs "-l${_lth_n}")
  endforeach()
  list(APPEND _lth_pc_libs -lpthread)
endif()
string(JOIN " " LTH_PC_LIBS_PRIVATE ${_lth_pc_libs})

set(LTH_PC_RPATH_FLAG "")
if(LTH_PC_RPATH STREQUAL "ON")
  set(LTH_PC_RPATH_FLAG " -Wl,-rpath,\${libdir}")
elseif(LTH_PC_RPATH STREQUAL "AUTO")
  list(FIND CMAKE_C_IMPLICIT_LINK_DIRECTORIES "${CMAKE_INSTALL_FULL_LIBDIR}" _lth_idx)
  if(_lth_idx EQUAL -1)
    set(LTH_PC_RPATH_FLAG " -Wl,-rpath,\${libdir}")
  endif()
endif()
set(LTH_PC_SANITIZE "")
if(LTH_SANITIZE)
  set(LTH_PC_SANITIZE "-fsanitize=address,undefined")
endif()

file(RELATIVE_PATH LTH_PC_RELPREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" LTH_PC_RELPREFIX "${LTH_PC_RELPREFIX}")
foreach(pc lth lth-static)
  configure_file(cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  configure_file(cmake/${pc}-uninstalled.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${pc}-uninstalled.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
unset(_lth_pc_libs)
unset(_lth_omp)
unset(_lth_idx)
unset(_lth_qm)
