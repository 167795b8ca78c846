# SPDX-License-Identifier: GPL-3.0-or-later
# Man pages and bash completion, generated at build time from each tool's
# --help by scripts/helpdoc.py (so they follow --help), into
#   <build>/share/man/man1/lth-*.1 and <build>/share/bash-completion/completions/lth-*,
# and the install rules for them, the documentation and the example data:
#   share/man/man1/lth-*.1                      man pages
#   share/bash-completion/completions/lth-*     bash completion (loaded on demand)
#   share/doc/lth/README.md, docs/*.md, figures  documentation
#   share/lth/data/                             the example data files
option(LTH_BUILD_MAN "Generate man pages and bash completion from the tools' --help" ON)
set(LTH_TOOLS lth-decompose lth-ic lth-solve lth-bvp lth-lqr lth-ss lth-plot)

if(LTH_BUILD_MAN AND LTH_BUILD_APPS)
  find_package(Python3 COMPONENTS Interpreter)
  if(NOT Python3_Interpreter_FOUND)
    message(STATUS "lth: no python3, so no man pages or bash completion")
  else()
    set(_lth_gen)
    set(_lth_man_dir ${PROJECT_BINARY_DIR}/share/man/man1)
    set(_lth_bc_dir ${PROJECT_BINARY_DIR}/share/bash-completion/completions)
    file(MAKE_DIRECTORY ${_lth_man_dir} ${_lth_bc_dir})
    foreach(tool ${LTH_TOOLS})
      if(NOT TARGET ${tool})
        continue()
      endif()
      string(REPLACE ";" "," _lth_tools "${LTH_TOOLS}")
      add_custom_command(
        OUTPUT ${_lth_man_dir}/${tool}.1 ${_lth_bc_dir}/${tool}
        COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/helpdoc.py
                --tool $<TARGET_FILE:${tool}> --name ${tool} --version ${PROJECT_VERSION}
                --docdir ${CMAKE_INSTALL_DOCDIR} --tools ${_lth_tools}
                --man ${_lth_man_dir}/${tool}.1 --completion ${_lth_bc_dir}/${tool}
        DEPENDS ${tool} ${PROJECT_SOURCE_DIR}/scripts/helpdoc.py
        COMMENT "man page and bash completion of ${tool} from its --help"
        VERBATIM)
      list(APPEND _lth_gen ${_lth_man_dir}/${tool}.1 ${_lth_bc_dir}/${tool})
      install(FILES ${_lth_man_dir}/${tool}.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
      install(FILES ${_lth_bc_dir}/${tool}
              DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
    endforeach()
    add_custom_target(lth_man ALL DEPENDS ${_lth_gen})
    unset(_lth_gen)
    unset(_lth_tools)
  endif()
endif()

install(FILES README.md LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "*.svg")
install(DIRECTORY data/ DESTINATION ${CMAKE_INSTALL_DATADIR}/lth/data
        FILES_MATCHING PATTERN "*.lth" PATTERN "*.csv" PATTERN "*.py"
        PATTERN "expected" EXCLUDE)
