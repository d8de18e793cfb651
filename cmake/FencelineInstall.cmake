# `cmake --install` and the CMake package (find_package(fenceline)).
# Installs the checker, the doc pages `fenceline explain` reads
# (<prefix>/share/fenceline/docs/checks/, found relative to the binary), the
# header-only device primitives (<prefix>/include/fenceline/), and a package
# config exporting fenceline::fenceline (the checker, an imported executable)
# and fenceline::primitives (an INTERFACE target for the headers), with the
# fenceline_check() function (FencelineCheck.cmake). Inside a pip build
# (scikit-build-core sets SKBUILD) the same files go under the Python
# package folder `fenceline/` of the wheel, where python/fenceline/__main__.py
# finds the binary.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(SKBUILD)
  set(FENCELINE_INSTALL_ROOT fenceline/)
else()
  set(FENCELINE_INSTALL_ROOT "")
endif()
# explain looks for <bin>/../share/fenceline: keep bin/ and share/ side by side.
set(FENCELINE_INSTALL_BINDIR ${FENCELINE_INSTALL_ROOT}bin)
set(FENCELINE_INSTALL_DATADIR ${FENCELINE_INSTALL_ROOT}share/fenceline)
set(FENCELINE_INSTALL_INCLUDEDIR ${FENCELINE_INSTALL_ROOT}${CMAKE_INSTALL_INCLUDEDIR})
set(FENCELINE_INSTALL_CMAKEDIR ${FENCELINE_INSTALL_ROOT}${CMAKE_INSTALL_LIBDIR}/cmake/fenceline)

add_library(fenceline_primitives INTERFACE)
set_target_properties(fenceline_primitives PROPERTIES EXPORT_NAME primitives)
target_include_directories(fenceline_primitives INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${FENCELINE_INSTALL_INCLUDEDIR}>)
add_library(fenceline::primitives ALIAS fenceline_primitives)

install(TARGETS fenceline EXPORT fencelineTargets RUNTIME DESTINATION ${FENCELINE_INSTALL_BINDIR})
install(TARGETS fenceline_primitives EXPORT fencelineTargets)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/checks DESTINATION ${FENCELINE_INSTALL_DATADIR}/docs
        FILES_MATCHING PATTERN "*.md")
install(FILES ${PROJECT_SOURCE_DIR}/docs/cli.md DESTINATION ${FENCELINE_INSTALL_DATADIR}/docs)
if(SKBUILD)
  # At the root of site-packages: FENCELINE=1 in the environment enables the
  # compile-time hooks of python/fenceline/ at interpreter start (docs/python.md).
  install(FILES ${PROJECT_SOURCE_DIR}/python/fenceline-autoload.pth DESTINATION .)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/fenceline DESTINATION ${FENCELINE_INSTALL_INCLUDEDIR})

install(EXPORT fencelineTargets NAMESPACE fenceline:: DESTINATION ${FENCELINE_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/fencelineConfig.cmake.in
  ${PROJECT_BINARY_DIR}/fencelineConfig.cmake INSTALL_DESTINATION ${FENCELINE_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/fencelineConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/fencelineConfig.cmake ${PROJECT_BINARY_DIR}/fencelineConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FencelineCheck.cmake
        DESTINATION ${FENCELINE_INSTALL_CMAKEDIR})
