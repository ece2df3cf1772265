# What `cmake --install BUILD --prefix P` and `cpack -G DEB` put in place:
#   P/bin/foxopt
#   P/share/man/man1/foxopt.1, foxopt-COMMAND.1     (foxopt gen man, at build time)
#   P/share/bash-completion/completions/foxopt      (foxopt gen bash)
#   P/share/zsh/site-functions/_foxopt              (foxopt gen zsh)
#   P/share/foxopt/configs/*.yaml, P/share/foxopt/slurm/* (the sbatch scripts find P by
#                                                   themselves: no checkout needed)
#   P/share/modulefiles/foxopt/VERSION              (Environment Modules and Lmod)
#   P/share/doc/foxopt/                             (README, LICENSE, CITATION.cff, docs/)
# The pages and completion come from the binary's own tables, so that they cannot name an
# option or key it does not know.
include(GNUInstallDirs)

set(FOX_GEN_DIR ${CMAKE_BINARY_DIR}/gen)
# Run at build time; LeakSanitizer is kept quiet in a sanitizer build (it is a build step, the
# tests check leaks).
set(_fox_run ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0 $<TARGET_FILE:foxopt>)
add_custom_command(
  OUTPUT ${FOX_GEN_DIR}/stamp
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${FOX_GEN_DIR}/man1
  COMMAND ${_fox_run} gen man ${FOX_GEN_DIR}/man1
  COMMAND ${_fox_run} gen bash ${FOX_GEN_DIR}/foxopt.bash
  COMMAND ${_fox_run} gen zsh ${FOX_GEN_DIR}/_foxopt
  COMMAND ${CMAKE_COMMAND} -E touch ${FOX_GEN_DIR}/stamp
  DEPENDS foxopt
  COMMENT "Writing foxopt's man pages and shell completion (foxopt gen)"
  VERBATIM)
add_custom_target(foxopt_gen ALL DEPENDS ${FOX_GEN_DIR}/stamp)

install(TARGETS foxopt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${FOX_GEN_DIR}/man1/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
        FILES_MATCHING PATTERN "*.1")
install(FILES ${FOX_GEN_DIR}/foxopt.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME foxopt)
install(FILES ${FOX_GEN_DIR}/_foxopt DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
install(DIRECTORY configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/foxopt/configs
        FILES_MATCHING PATTERN "*.yaml")
install(FILES README.md LICENSE CITATION.cff DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")
install(FILES cmake/foxopt.modulefile DESTINATION ${CMAKE_INSTALL_DATADIR}/modulefiles/foxopt
        RENAME ${PROJECT_VERSION})

# The sbatch scripts source slurm/foxopt-step.sh under ${FOXOPT_HOME:-$SLURM_SUBMIT_DIR} (a
# checkout); sbatch runs a copy of the script from its spool, which cannot look for its own
# directory. The installed copies name the prefix's share/foxopt instead (written at install
# time: --prefix, and the package's /usr, are only known then; FOXOPT_HOME, which the modulefile
# sets, still comes first, so a moved prefix is found through its module), and the installed
# foxopt-step.sh takes the binary beside itself.
file(GLOB _fox_sbatch ${CMAKE_SOURCE_DIR}/slurm/*.sbatch)
install(CODE "
  set(_share \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/foxopt\")
  set(_dest \"\$ENV{DESTDIR}\${_share}/slurm\")
  file(MAKE_DIRECTORY \"\${_dest}\")
  foreach(_f ${_fox_sbatch})
    get_filename_component(_n \"\${_f}\" NAME)
    file(READ \"\${_f}\" _text)
    string(REPLACE \"\\\${FOXOPT_HOME:-\\\$SLURM_SUBMIT_DIR}\" \"\\\${FOXOPT_HOME:-\${_share}}\"
           _text \"\${_text}\")
    message(STATUS \"Installing: \${_dest}/\${_n}\")
    file(WRITE \"\${_dest}/\${_n}\" \"\${_text}\")
    file(CHMOD \"\${_dest}/\${_n}\" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
         GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  endforeach()
  file(READ \"${CMAKE_SOURCE_DIR}/slurm/foxopt-step.sh\" _text)
  string(REPLACE \"FOXOPT_INSTALLED=0\" \"FOXOPT_INSTALLED=1\" _text \"\${_text}\")
  message(STATUS \"Installing: \${_dest}/foxopt-step.sh\")
  file(WRITE \"\${_dest}/foxopt-step.sh\" \"\${_text}\")
")

# cpack -G DEB in the build tree: a .deb installing under /usr.
set(CPACK_PACKAGE_NAME foxopt)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "the foxopt developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "hyperparameter optimisation for reinforcement-learning trading agents")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr) # the prefix CPack installs into under DESTDIR staging
# DESTDIR staging, so that the install-time prefix written into the sbatch scripts is /usr
# and not CPack's staging directory.
set(CPACK_SET_DESTDIR ON)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "the foxopt developers")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The runtime libraries' packages, found by dpkg-shlibdeps from the binary's own links.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openmpi-bin, man-db, bash-completion")
set(CPACK_GENERATOR DEB)
include(CPack)
