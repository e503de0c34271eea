# cmake --install layout (docs/EMBEDDING.md):
#   include/webnn/*.h                     the C and C++ API, webnn/version.h
#   lib/libwebnn.so.<major> (+ links)     the runtime, exporting only that API
#   lib/libwebnn.a                        the same, static
#   bin/webnnc webnn-run webnn-opt         the CLIs (webnnc, webnn-opt: compiler builds)
#   lib/webnnc/webnnc-compile.so          webnnc's compile subcommand, loaded on use
#   lib/cmake/webnn/                      find_package(webnn): webnn::runtime,
#                                         webnn::runtime_static, webnn::webnnc,
#                                         webnn::compiler (compiler builds),
#                                         webnn_compile_model()
#   lib/pkgconfig/webnn.pc                pkg-config webnn
include(CMakePackageConfigHelpers)
set(WEBNN_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/webnn)

# Every header of runtime/include/webnn is public (a new one also needs the
# visibility pragmas to be exported from libwebnn.so: runtime/CMakeLists.txt).
install(DIRECTORY runtime/include/webnn DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/webnn/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/webnn)

install(TARGETS webnn EXPORT webnnTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS webnn_static EXPORT webnnStaticTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

# The CLIs link the runtime statically; webnnc and webnn-opt keep the path to
# MLIR/LLVM's shared libraries, which are outside the loader's default paths.
install(TARGETS webnn-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET webnn_compiler)
  # The compiler library (webnn::compiler) and its header.
  install(TARGETS webnn_compiler EXPORT webnnTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES compiler/api/include/webnn/compiler.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/webnn)
endif()
if(TARGET webnnc)
  set_target_properties(webnnc webnn-opt PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  # Exported so an app's build can compile its models (webnn::webnnc).
  install(TARGETS webnnc EXPORT webnnTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # webnnc finds it relative to itself (tools/webnnc/CMakeLists.txt).
  install(TARGETS webnnc_compile LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/webnnc)
  install(TARGETS webnn-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(EXPORT webnnTargets NAMESPACE webnn:: DESTINATION ${WEBNN_CMAKE_INSTALL_DIR})
install(EXPORT webnnStaticTargets NAMESPACE webnn:: DESTINATION ${WEBNN_CMAKE_INSTALL_DIR})
configure_package_config_file(cmake/webnnConfig.cmake.in ${PROJECT_BINARY_DIR}/webnnConfig.cmake
  INSTALL_DESTINATION ${WEBNN_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/webnnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/webnnConfig.cmake ${PROJECT_BINARY_DIR}/webnnConfigVersion.cmake
  cmake/WebNNCompileModel.cmake DESTINATION ${WEBNN_CMAKE_INSTALL_DIR})

# Relocatable: the prefix is found from the .pc file's own folder, so
# `cmake --install build --prefix DIR` works without reconfiguring.
file(RELATIVE_PATH WEBNN_PC_PREFIX_FROM_PCDIR
  ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" WEBNN_PC_PREFIX_FROM_PCDIR "${WEBNN_PC_PREFIX_FROM_PCDIR}")
configure_file(cmake/webnn.pc.in ${PROJECT_BINARY_DIR}/webnn.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/webnn.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
