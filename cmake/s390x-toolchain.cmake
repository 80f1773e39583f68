# Cross build for IBM Z (s390x, big-endian) with Debian's g++-s390x-linux-gnu;
# the results run under qemu-s390x-static. Used by scripts/cross-s390x.sh:
#   cmake -S . -B build-s390x -DCMAKE_TOOLCHAIN_FILE=cmake/s390x-toolchain.cmake \
#         -DHWACCEL_S390X_SYSROOT=$PWD/build-s390x/sysroot
#
# HWACCEL_S390X_SYSROOT is a staging tree the script fills: Catch2's headers
# and CMake package (Catch2 is header-only, but its package points at
# /usr/include, which must not reach a cross compiler's include path) and,
# when available, Debian's s390x libssl-dev unpacked with dpkg -x. Packages
# are looked up there only; programs (pkg-config, the host's tools) on the host.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)

set(CMAKE_C_COMPILER s390x-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER s390x-linux-gnu-g++)

if(NOT HWACCEL_S390X_SYSROOT AND DEFINED ENV{HWACCEL_S390X_SYSROOT})
  set(HWACCEL_S390X_SYSROOT "$ENV{HWACCEL_S390X_SYSROOT}")
endif()
# try_compile projects see the same value.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES HWACCEL_S390X_SYSROOT)

set(CMAKE_FIND_ROOT_PATH /usr/s390x-linux-gnu ${HWACCEL_S390X_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (OpenSSL) answers from the staging tree, never from the host's
# x86-64 libraries.
if(HWACCEL_S390X_SYSROOT)
  set(ENV{PKG_CONFIG_LIBDIR} "${HWACCEL_S390X_SYSROOT}/usr/lib/s390x-linux-gnu/pkgconfig")
  set(ENV{PKG_CONFIG_SYSROOT_DIR} "${HWACCEL_S390X_SYSROOT}")
  set(ENV{PKG_CONFIG_PATH} "")
endif()

# Debian keeps an architecture's own headers (openssl/configuration.h) in the
# multiarch directory, which a cross compiler does not search in a staging tree.
if(HWACCEL_S390X_SYSROOT AND EXISTS "${HWACCEL_S390X_SYSROOT}/usr/include/s390x-linux-gnu")
  set(CMAKE_CXX_STANDARD_INCLUDE_DIRECTORIES "${HWACCEL_S390X_SYSROOT}/usr/include/s390x-linux-gnu")
endif()

# Test programs run under qemu-user; CTest and Catch's discovery use this.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-s390x-static -L /usr/s390x-linux-gnu)
