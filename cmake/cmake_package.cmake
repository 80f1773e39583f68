# The CMake package of libhwaccel.a (component dev, so hwaccel-dev):
#
#   find_package(hwaccel REQUIRED)
#   target_link_libraries(app PRIVATE hwaccel::hwaccel)
#
# <libdir>/cmake/hwaccel/ gets hwaccelConfig.cmake, hwaccelConfigVersion.cmake
# and hwaccelTargets*.cmake (the imported target, relocatable: its paths are
# relative to where the files are found). Included from provider/, where
# hwaccel_static is installed into the export set hwaccelTargets.
include(CMakePackageConfigHelpers)

set(_hwaccel_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/hwaccel)

set_target_properties(hwaccel_static PROPERTIES EXPORT_NAME hwaccel)
# What a program linking the archive needs, as hwaccel.pc's Requires and
# Libs say it. Installed interface only: in this tree static_link_test names
# the archive by its path and adds HWACCEL_STATIC_LIBS itself.
#  - OpenSSL::Crypto: hwaccel_provider.h includes <openssl/core.h>, and a
#    program that calls OSSL_PROVIDER_add_builtin links libcrypto anyway.
#    (The archive's own objects need none of it: docs/DESIGN.md.)
#  - stdc++ by name. CMake exports IMPORTED_LINK_INTERFACE_LANGUAGES CXX
#    on its own (the objects are C++): a project that enables CXX links
#    with the C++ compiler, which brings the runtime. A C project
#    (project(app C)) links with cc, and CMake, knowing no C++ compiler
#    there, adds nothing for CXX: -lstdc++ must be named, as in hwaccel.pc.
#    In a C++ link it is a duplicate of what the driver adds.
#  - Threads::Threads: -pthread where libpthread is not part of libc
#    (glibc before 2.34), nothing where it is.
target_link_libraries(hwaccel_static INTERFACE
  $<INSTALL_INTERFACE:OpenSSL::Crypto> $<INSTALL_INTERFACE:stdc++>
  $<INSTALL_INTERFACE:Threads::Threads>)

install(EXPORT hwaccelTargets NAMESPACE hwaccel:: DESTINATION ${_hwaccel_cmakedir}
  COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hwaccelConfig.cmake.in
  ${PROJECT_BINARY_DIR}/hwaccelConfig.cmake INSTALL_DESTINATION ${_hwaccel_cmakedir})
# 0.x: a minor version may change what the package offers.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/hwaccelConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/hwaccelConfig.cmake
  ${PROJECT_BINARY_DIR}/hwaccelConfigVersion.cmake
  DESTINATION ${_hwaccel_cmakedir} COMPONENT dev)
