# Install rules and the package config behind find_package(devcheck).
include(CMakePackageConfigHelpers)

install(TARGETS devcheck devcheck_format devcheck_core devcheck_checkpoint devcheck_sanitizer devcheck_train
                devcheck_distributed
                devcheck_fake_device EXPORT devcheckTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS devcheck_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
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
# The Python side of the fake device (docs/testing-without-a-gpu.md).
install(FILES ${PROJECT_SOURCE_DIR}/python/devcheck_fake.py
  DESTINATION ${CMAKE_INSTALL_DATADIR}/devcheck/python)
