# Install rules and the package config behind find_package(devcheck).
include(CMakePackageConfigHelpers)

install(TARGETS devcheck devcheck_format devcheck_core devcheck_checkpoint devcheck_sanitizer devcheck_train
                devcheck_distributed devcheck_launch
                devcheck_fake_device EXPORT devcheckTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The program and its LibTorch helper (docs/cli.md): `devcheck` finds the
# helper through the relative path compiled into it (tools/devcheck/).
install(TARGETS devcheck_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS devcheck_torch_cli RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/devcheck)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/devcheck
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/devcheck/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/devcheck)
install(EXPORT devcheckTargets NAMESPACE devcheck::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/devcheck)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/devcheckConfig.cmake.in
  ${PROJECT_BINARY_DIR}/devcheckConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/devcheck)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/devcheckConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/devcheckConfig.cmake
              ${PROJECT_BINARY_DIR}/devcheckConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/devcheck)
# The Python side of the fake device and of fake CUDA, and the sitecustomize
# `devcheck run` gives Python programs (docs/testing-without-a-gpu.md).
install(FILES ${PROJECT_SOURCE_DIR}/python/devcheck_fake.py
  DESTINATION ${CMAKE_INSTALL_DATADIR}/devcheck/python)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/devcheck_fake_cuda
  DESTINATION ${CMAKE_INSTALL_DATADIR}/devcheck/python FILES_MATCHING PATTERN "*.py")
install(FILES ${PROJECT_SOURCE_DIR}/python/site/sitecustomize.py
  DESTINATION ${CMAKE_INSTALL_DATADIR}/devcheck/python/site)

# What a reader of the installed tree needs: the manual page, the README and
# docs/, and the copyright and changelog a Debian package carries.
set(devcheck_man_page ${PROJECT_BINARY_DIR}/devcheck.1.gz)
add_custom_command(OUTPUT ${devcheck_man_page}
  COMMAND gzip -9n -c ${PROJECT_SOURCE_DIR}/docs/devcheck.1 > ${devcheck_man_page}
  DEPENDS ${PROJECT_SOURCE_DIR}/docs/devcheck.1 VERBATIM)
set(devcheck_changelog ${PROJECT_BINARY_DIR}/changelog.gz)
add_custom_command(OUTPUT ${devcheck_changelog}
  COMMAND gzip -9n -c ${PROJECT_SOURCE_DIR}/docs/changelog > ${devcheck_changelog}
  DEPENDS ${PROJECT_SOURCE_DIR}/docs/changelog VERBATIM)
add_custom_target(devcheck_docs ALL DEPENDS ${devcheck_man_page} ${devcheck_changelog})
install(FILES ${devcheck_man_page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
file(GLOB devcheck_doc_pages CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${devcheck_doc_pages} ${devcheck_changelog}
              ${PROJECT_SOURCE_DIR}/docs/copyright
  DESTINATION ${CMAKE_INSTALL_DOCDIR})

# What `make run` builds: everything installed, nothing else (no tests,
# benchmarks or examples).
add_custom_target(devcheck_runtime)
add_dependencies(devcheck_runtime devcheck_cli devcheck_torch_cli devcheck_format devcheck_core
  devcheck_checkpoint devcheck_sanitizer devcheck_train devcheck_distributed devcheck_launch
  devcheck_fake_device devcheck_preload devcheck_docs)

include(DevcheckPackage)
