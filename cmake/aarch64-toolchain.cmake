# Cross build for arm64 (aarch64, little-endian) with Debian's
# g++-aarch64-linux-gnu; the results run under qemu-aarch64-static. Used by
# scripts/cross-aarch64.sh:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-toolchain.cmake \
#         -DHWACCEL_AARCH64_SYSROOT=$PWD/build-aarch64/sysroot
#
# HWACCEL_AARCH64_SYSROOT is the staging tree the script fills, as for s390x
# (cmake/s390x-toolchain.cmake): Catch2's headers and CMake package and,
# for the EVP suites, Debian's arm64 libssl3/libssl-dev unpacked with dpkg -x.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

if(NOT HWACCEL_AARCH64_SYSROOT AND DEFINED ENV{HWACCEL_AARCH64_SYSROOT})
  set(HWACCEL_AARCH64_SYSROOT "$ENV{HWACCEL_AARCH64_SYSROOT}")
endif()
# try_compile projects see the same value.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES HWACCEL_AARCH64_SYSROOT)

set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu ${HWACCEL_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (OpenSSL) answers from the staging tree, never from the host's
# x86-64 libraries.
if(HWACCEL_AARCH64_SYSROOT)
  set(ENV{PKG_CONFIG_LIBDIR} "${HWACCEL_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig")
  set(ENV{PKG_CONFIG_SYSROOT_DIR} "${HWACCEL_AARCH64_SYSROOT}")
  set(ENV{PKG_CONFIG_PATH} "")
endif()

# Debian's per-architecture headers (openssl/configuration.h) live in the
# multiarch directory, which the cross compiler does not search in a staging tree.
if(HWACCEL_AARCH64_SYSROOT AND EXISTS "${HWACCEL_AARCH64_SYSROOT}/usr/include/aarch64-linux-gnu")
  set(CMAKE_CXX_STANDARD_INCLUDE_DIRECTORIES "${HWACCEL_AARCH64_SYSROOT}/usr/include/aarch64-linux-gnu")
endif()

# Test programs run under qemu-user with every extension qemu has (-cpu max);
# CTest and Catch's discovery use this.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -cpu max -L /usr/aarch64-linux-gnu)
