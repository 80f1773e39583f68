# Debian packages with CPack (scripts/package.sh runs `cpack -G DEB`), one
# per install component, as Debian splits a library:
#   hwaccel (component runtime): hwaccel.so into the modules directory of the
#     OpenSSL it was built against (HWACCEL_MODULESDIR, the multiarch
#     ossl-modules directory that `openssl version -m` names),
#     hwaccel-engines into /usr/bin, the man pages hwaccel-engines(1) and
#     hwaccel(7) (man/, gzipped) into /usr/share/man, the example config and
#     the docs under /usr/share/doc/hwaccel;
#   hwaccel-dev (component dev): libhwaccel.a, hwaccel/hwaccel_provider.h,
#     hwaccel.pc and the CMake package (<libdir>/cmake/hwaccel,
#     cmake/cmake_package.cmake), for linking the provider into a program
#     (README). Only those who build such programs want a static library
#     and a header in /usr/lib and /usr/include, and the module's users
#     need neither, so they are not in hwaccel (Debian keeps them in -dev
#     packages too).
# The module links no
# libcrypto (docs/DESIGN.md) and loads into any OpenSSL from 3.0 to 4.0, all
# of which Debian builds with the same multiarch ossl-modules directory: it
# depends on any one of them (libssl3 on Debian 12, libssl3t64 on 13, libssl4
# for 4.0), an OpenSSL whose core can load it.

# Nothing is installed but these, so `cpack` needs only hwaccel,
# hwaccel_static, hwaccel-engines and hwaccel_man built (the tests are not part of "install").
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
install(FILES ${PROJECT_SOURCE_DIR}/openssl.cnf.example ${PROJECT_SOURCE_DIR}/README.md
  DESTINATION share/doc/hwaccel)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/hwaccel/docs)

set(_hwaccel_libssl_dep "libssl3 (>= 3.0.0) | libssl3t64 (>= 3.0.0) | libssl4")

execute_process(COMMAND dpkg --print-architecture OUTPUT_VARIABLE _arch
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hwaccel)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "OpenSSL 3 provider: SHA-1/SHA-2/SHA-3/SHAKE and SM4 on the CPU's fastest engine")
set(CPACK_PACKAGE_CONTACT "hwaccel maintainers <hwaccel@localhost>")
set(CPACK_STRIP_FILES ON)  # as Debian ships binaries
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # hwaccel_<version>_<arch>.deb
if(_arch)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${_arch})
endif()
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME hwaccel)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "${_hwaccel_libssl_dep}")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME hwaccel-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# CPack puts the summary above (shared by both packages) first.
set(CPACK_DEBIAN_DEV_DESCRIPTION "The provider as a static library, for programs that link it
into themselves and register hwaccel_provider_init with OSSL_PROVIDER_add_builtin
instead of loading hwaccel.so: libhwaccel.a, hwaccel/hwaccel_provider.h, hwaccel.pc,
and a CMake package (find_package(hwaccel), target hwaccel::hwaccel).")
# The header includes <openssl/core.h>, hwaccel.pc requires libcrypto (the
# CMake package OpenSSL::Crypto), and both name -lstdc++ (libstdc++.so, from
# the compiler's -dev package). No cmake dependency: like Debian's other -dev
# packages, the CMake files are there for whoever builds with CMake.
# The building compiler's own libstdc++ -dev package first (Debian policy: a
# real package before a virtual one), e.g. libstdc++-12-dev on Debian 12.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  string(REGEX MATCH "^[0-9]+" _hwaccel_gcc_major "${CMAKE_CXX_COMPILER_VERSION}")
  set(_hwaccel_stdcxx_dep "libstdc++-${_hwaccel_gcc_major}-dev | libstdc++-dev")
else()
  set(_hwaccel_stdcxx_dep "libstdc++-dev")
endif()
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libssl-dev (>= 3.0.0), ${_hwaccel_stdcxx_dep}")
# libc6 and libstdc++6 with their versions, where dpkg-dev is installed.
find_program(_hwaccel_shlibdeps dpkg-shlibdeps)
if(_hwaccel_shlibdeps)
  set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
endif()
include(CPack)
