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
# Libs say it. The same in this tree (hwaccel::hwaccel below) as installed;
# static_link_test names the archive by its path and adds
# HWACCEL_STATIC_LIBS itself, so it checks that the .pc's Libs suffice.
#  - OpenSSL::Crypto: hwaccel_provider.h includes <openssl/core.h>, and a
#    program that calls OSSL_PROVIDER_add_builtin links libcrypto anyway.
#    (The archive's own objects need none of it: docs/DESIGN.md.)
#    Installed, hwaccelConfig.cmake finds it (find_dependency); in this
#    tree it is found here, with the cache a parent project's own
#    find_package(OpenSSL) shares, so the parent and hwaccel::hwaccel name
#    one libcrypto. Where FindOpenSSL finds nothing, the libcrypto the
#    module was built against (pkg-config) stands in.
#  - stdc++ by name. CMake exports IMPORTED_LINK_INTERFACE_LANGUAGES CXX
#    on its own (the objects are C++): a project that enables CXX links
#    with the C++ compiler, which brings the runtime. A C project
#    (project(app C)) links with cc, and CMake, knowing no C++ compiler
#    there, adds nothing for CXX: -lstdc++ must be named, as in hwaccel.pc.
#    In a C++ link it is a duplicate of what the driver adds.
#  - Threads::Threads: -pthread where libpthread is not part of libc
#    (glibc before 2.34), nothing where it is.
find_package(OpenSSL 3 QUIET COMPONENTS Crypto)
if(TARGET OpenSSL::Crypto)
  set(_hwaccel_crypto OpenSSL::Crypto)
else()
  set(_hwaccel_crypto PkgConfig::LIBCRYPTO)
endif()
target_link_libraries(hwaccel_static INTERFACE
  $<BUILD_INTERFACE:${_hwaccel_crypto}> $<INSTALL_INTERFACE:OpenSSL::Crypto>
  stdc++ Threads::Threads)
# A project that includes this tree (add_subdirectory) links the same name
# as one that finds the installed package.
add_library(hwaccel::hwaccel ALIAS hwaccel_static)

if(HWACCEL_INSTALL)
  install(EXPORT hwaccelTargets NAMESPACE hwaccel:: DESTINATION ${_hwaccel_cmakedir}
    COMPONENT dev)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hwaccelConfig.cmake.in
  ${PROJECT_BINARY_DIR}/hwaccelConfig.cmake INSTALL_DESTINATION ${_hwaccel_cmakedir})
# 0.x: a minor version may change what the package offers.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/hwaccelConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
if(HWACCEL_INSTALL)
  install(FILES ${PROJECT_BINARY_DIR}/hwaccelConfig.cmake
    ${PROJECT_BINARY_DIR}/hwaccelConfigVersion.cmake
    DESTINATION ${_hwaccel_cmakedir} COMPONENT dev)
endif()
