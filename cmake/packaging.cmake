# A Debian package with CPack (scripts/package.sh runs `cpack -G DEB`):
# hwaccel.so into the modules directory of the OpenSSL it was built against
# (HWACCEL_MODULESDIR, the multiarch ossl-modules directory that
# `openssl version -m` names), hwaccel-engines into /usr/bin, the example
# config and the docs under /usr/share/doc/hwaccel. The module links no
# libcrypto (docs/DESIGN.md) and loads into any OpenSSL from 3.0 to 4.0, all
# of which Debian builds with the same multiarch ossl-modules directory: it
# depends on any one of them (libssl3 on Debian 12, libssl3t64 on 13, libssl4
# for 4.0), an OpenSSL whose core can load it.

# Nothing is installed but these, so `cpack` needs only hwaccel and
# hwaccel-engines built (the tests are not part of "install").
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
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
if(_arch)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${_arch})
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_hwaccel_libssl_dep}")
# libc6 and libstdc++6 with their versions, where dpkg-dev is installed.
find_program(_hwaccel_shlibdeps dpkg-shlibdeps)
if(_hwaccel_shlibdeps)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
endif()
include(CPack)
