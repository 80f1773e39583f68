#!/bin/bash
# Builds the Linux kernel's x86 crypto code for SM4, SHA-1, SHA-256, SHA-3 and
# GHASH into a user-space static library, from Debian's own kernel source
# package (linux-source-6.1, Debian 12's kernel line), for benchmarking only:
# tools/kernel_bench.cpp (hwaccel-kernel-bench) races hwaccel's engines
# against it. Nothing of the kernel is copied into this repository or
# shipped: the GPL sources are unpacked into a private cache at run time and
# compiled there, with small shim headers of our own (written below) standing
# in for the kernel's linkage, frame and unaligned-access macros.
#
#   kernel-peer.sh [PREFIX]        (default: ~/.cache/hwaccel/kernel-peer)
#
# Needs root the first time if linux-source-6.1 is not installed (apt-get
# install, about 140 MB in /usr/src). Prints PREFIX on the last line; then
#   cmake -DHWACCEL_KERNEL_PEER=PREFIX ...  builds hwaccel-kernel-bench.
# PREFIX/lib/libkernelpeer.a holds, unchanged from the kernel's source:
#   arch/x86/crypto/sm4-aesni-avx-asm_64.S   sm4_aesni_avx_crypt4/crypt8, *_blk8
#   arch/x86/crypto/sm4-aesni-avx2-asm_64.S  sm4_aesni_avx2_{ctr_enc,cbc_dec,cfb_dec}_blk16
#   arch/x86/crypto/sha256_ni_asm.S          sha256_ni_transform
#   arch/x86/crypto/sha1_ni_asm.S            sha1_ni_transform
#   arch/x86/crypto/ghash-clmulni-intel_asm.S clmul_ghash_update, clmul_ghash_mul
#   crypto/sm4.c                             sm4_expandkey, sm4_crypt_block (C)
#   crypto/sha3_generic.c                    crypto_sha3_init/update/final (C; the file
#                                            is cut before its algorithm table and
#                                            module registration, which need the
#                                            crypto API)
# 6.1 has no GFNI or AVX-512 SM4 (its fastest x86 SM4 is AES-NI/AVX2) and no
# assembly SHA-3. PREFIX/include/kernel_peer.h declares what the library holds.
set -euo pipefail
P=${1:-$HOME/.cache/hwaccel/kernel-peer}
PKG=linux-source-6.1
TARBALL=/usr/src/$PKG.tar.xz
# Bump when the file list, shims or flags change: a cached build with another
# recipe is rebuilt.
RECIPE_ID=1
log() { echo "kernel-peer: $*" >&2; }

pkg_version() { dpkg-query -W -f '${Version}' "$PKG" 2>/dev/null || true; }
cached() {
    [ -f "$P/.complete" ] && [ -f "$P/lib/libkernelpeer.a" ] &&
        [ "$(cat "$P/.recipe" 2>/dev/null)" = "$RECIPE_ID $(pkg_version)" ]
}
if cached; then echo "$P"; exit 0; fi
# One build at a time: a second caller waits, then finds it cached.
mkdir -p "$P"
exec 9>"$P.lock"
flock 9
if cached; then echo "$P"; exit 0; fi

if [ ! -f "$TARBALL" ]; then
    log "installing $PKG (Debian's kernel source, about 140 MB)"
    apt-get install -y --no-install-recommends "$PKG" >&2
fi
[ -f "$TARBALL" ] || { log "no $TARBALL after installing $PKG"; exit 1; }
log "$PKG $(pkg_version)"

rm -rf "${P:?}"/{src,shim,obj,lib,include,.complete,.recipe}
mkdir -p "$P/src" "$P/shim/linux" "$P/shim/asm" "$P/shim/crypto/internal" "$P/obj" "$P/lib" "$P/include"

# Only the files used (and, for reading next to tools/kernel_bench.cpp's
# loops, the glue that drives them). xz decompresses the whole stream anyway:
# about 15 s.
FILES=(arch/x86/crypto/sm4-aesni-avx-asm_64.S arch/x86/crypto/sm4-aesni-avx2-asm_64.S
       arch/x86/crypto/sha256_ni_asm.S arch/x86/crypto/sha1_ni_asm.S
       arch/x86/crypto/ghash-clmulni-intel_asm.S
       crypto/sm4.c crypto/sha3_generic.c include/crypto/sm4.h include/crypto/sha3.h
       arch/x86/crypto/sm4_aesni_avx_glue.c arch/x86/crypto/sm4_aesni_avx2_glue.c
       arch/x86/crypto/sm4-avx.h arch/x86/crypto/ghash-clmulni-intel_glue.c
       arch/x86/crypto/sha256_ssse3_glue.c arch/x86/crypto/sha1_ssse3_glue.c COPYING)
log "unpacking ${#FILES[@]} files from $TARBALL"
tar -xJf "$TARBALL" -C "$P/src" --strip-components=1 "${FILES[@]/#/$PKG/}"

S=$P/shim
# --- shim headers: ours, only what these files use ---------------------------
# Assembler side. Debian's 6.1 config has no frame pointers (ORC unwinder), so
# FRAME_BEGIN/END are empty there too; RET is CONFIG_SLS's "ret; int3" (the
# return thunk CONFIG_RETHUNK adds is patched back to that on CPUs that need
# no mitigation; a user-space build cannot model it). No CFI/IBT: Debian's
# config has neither.
cat >"$S/linux/linkage.h" <<'EOF'
/* kernel-peer shim (hwaccel): the kernel's symbol macros for user space. */
#pragma once
#ifdef __ASSEMBLY__
#define SYM_FUNC_START(name) .globl name; .type name, @function; .p2align 4; name:
#define SYM_FUNC_START_LOCAL(name) .type name, @function; .p2align 4; name:
#define SYM_FUNC_END(name) .size name, . - name
#define RET ret; int3
#endif
EOF
cat >"$S/linux/cfi_types.h" <<'EOF'
/* kernel-peer shim (hwaccel): no kCFI in user space. */
#pragma once
#ifdef __ASSEMBLY__
#define SYM_TYPED_FUNC_START(name) SYM_FUNC_START(name)
#endif
EOF
cat >"$S/asm/frame.h" <<'EOF'
/* kernel-peer shim (hwaccel): CONFIG_FRAME_POINTER off, as in Debian's config. */
#pragma once
#ifdef __ASSEMBLY__
#define FRAME_BEGIN
#define FRAME_END
#endif
EOF
# C side.
cat >"$S/linux/types.h" <<'EOF'
/* kernel-peer shim (hwaccel): kernel integer types and helpers. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef uint64_t __le64;
typedef uint32_t __le32;
#define ____cacheline_aligned __attribute__((__aligned__(64)))
#define __alias(symbol) __attribute__((__alias__(#symbol)))
#define __init
#define __exit
#define EINVAL 22
static inline u32 rol32(u32 w, unsigned s) { return (w << (s & 31)) | (w >> ((-s) & 31)); }
static inline u64 rol64(u64 w, unsigned s) { return (w << (s & 63)) | (w >> ((-s) & 63)); }
EOF
cat >"$S/linux/module.h" <<'EOF'
/* kernel-peer shim (hwaccel): no modules in user space. */
#pragma once
#include <linux/types.h>
#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
#define MODULE_DESCRIPTION(s)
#define MODULE_LICENSE(s)
#define MODULE_AUTHOR(s)
#define MODULE_ALIAS_CRYPTO(s)
EOF
: >"$S/linux/init.h"
: >"$S/linux/crypto.h"
cat >"$S/asm/unaligned.h" <<'EOF'
/* kernel-peer shim (hwaccel): unaligned loads and stores, x86 byte order. */
#pragma once
#include <linux/types.h>
static inline u32 get_unaligned_be32(const void *p) { u32 v; memcpy(&v, p, 4); return __builtin_bswap32(v); }
static inline void put_unaligned_be32(u32 v, void *p) { v = __builtin_bswap32(v); memcpy(p, &v, 4); }
static inline u64 get_unaligned_le64(const void *p) { u64 v; memcpy(&v, p, 8); return v; }
static inline void put_unaligned_le64(u64 v, void *p) { memcpy(p, &v, 8); }
static inline void put_unaligned_le32(u32 v, void *p) { memcpy(p, &v, 4); }
EOF
cat >"$S/crypto/internal/hash.h" <<'EOF'
/* kernel-peer shim (hwaccel): the two shash accessors sha3_generic.c's
   init/update/final use; the tfm only carries the digest size. */
#pragma once
#include <linux/types.h>
struct crypto_shash { unsigned int digestsize; };
struct shash_desc { struct crypto_shash *tfm; void *__ctx[] __attribute__((__aligned__(8))); };
static inline void *shash_desc_ctx(struct shash_desc *desc) { return desc->__ctx; }
static inline unsigned int crypto_shash_digestsize(struct crypto_shash *tfm) { return tfm->digestsize; }
EOF
cat >"$P/include/kernel_peer.h" <<'EOF'
/* kernel-peer (hwaccel): what libkernelpeer.a holds, declared as the kernel
   6.1 glue declares it. For benchmarking only. */
#pragma once
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
struct sm4_ctx { uint32_t rkey_enc[32]; uint32_t rkey_dec[32]; };
int sm4_expandkey(struct sm4_ctx *ctx, const uint8_t *in_key, unsigned int key_len);
void sm4_crypt_block(const uint32_t *rk, uint8_t *out, const uint8_t *in);
/* AES-NI/AVX: nblocks 1..4 (crypt4) or 1..8 (crypt8). */
void sm4_aesni_avx_crypt4(const uint32_t *rk, uint8_t *dst, const uint8_t *src, int nblocks);
void sm4_aesni_avx_crypt8(const uint32_t *rk, uint8_t *dst, const uint8_t *src, int nblocks);
void sm4_aesni_avx_ctr_enc_blk8(const uint32_t *rk, uint8_t *dst, const uint8_t *src, uint8_t *iv);
void sm4_aesni_avx_cbc_dec_blk8(const uint32_t *rk, uint8_t *dst, const uint8_t *src, uint8_t *iv);
void sm4_aesni_avx_cfb_dec_blk8(const uint32_t *rk, uint8_t *dst, const uint8_t *src, uint8_t *iv);
/* AES-NI/AVX2: 16 blocks each. */
void sm4_aesni_avx2_ctr_enc_blk16(const uint32_t *rk, uint8_t *dst, const uint8_t *src, uint8_t *iv);
void sm4_aesni_avx2_cbc_dec_blk16(const uint32_t *rk, uint8_t *dst, const uint8_t *src, uint8_t *iv);
void sm4_aesni_avx2_cfb_dec_blk16(const uint32_t *rk, uint8_t *dst, const uint8_t *src, uint8_t *iv);
/* SHA-NI: whole 64-byte blocks, state as native 32-bit words. */
void sha256_ni_transform(uint32_t *digest, const void *data, int blocks);
void sha1_ni_transform(uint32_t *digest, const void *data, int blocks);
/* PCLMULQDQ GHASH, one block per multiply; shash is H*x (ghash_setkey). */
struct kernel_u128 { uint64_t a, b; };
void clmul_ghash_update(char *dst, const char *src, unsigned int srclen, const struct kernel_u128 *shash);
void clmul_ghash_mul(char *dst, const struct kernel_u128 *shash);
/* crypto/sha3_generic.c's shash functions over our two-field shash_desc. */
struct kernel_sha3_state { uint64_t st[25]; unsigned int rsiz, rsizw, partial; uint8_t buf[144]; };
struct kernel_shash { unsigned int digestsize; };
struct kernel_sha3_desc { struct kernel_shash *tfm; struct kernel_sha3_state ctx; };
int crypto_sha3_init(struct kernel_sha3_desc *desc);
int crypto_sha3_update(struct kernel_sha3_desc *desc, const uint8_t *data, unsigned int len);
int crypto_sha3_final(struct kernel_sha3_desc *desc, uint8_t *out);
#ifdef __cplusplus
}
#endif
EOF

# --- compile -----------------------------------------------------------------
# The kernel's C flags that matter for speed (-O2, no SSE in kernel C, no red
# zone, 64-bit Keccak inlining); asm as the kernel assembles it.
CC=${CC:-cc}
CFLAGS_K=(-O2 -fno-strict-aliasing -fno-common -mno-sse -mno-mmx -mno-sse2 -mno-3dnow -mno-avx -mno-red-zone
          -DCONFIG_64BIT -I"$S" -I"$P/src/include")
# shellcheck disable=SC2054  # -Wa,--noexecstack is one argument
AFLAGS_K=(-D__ASSEMBLY__ -I"$S" -Wa,--noexecstack)
cd "$P/obj"
for f in sm4-aesni-avx-asm_64 sm4-aesni-avx2-asm_64 sha256_ni_asm sha1_ni_asm ghash-clmulni-intel_asm; do
    $CC "${AFLAGS_K[@]}" -c "$P/src/arch/x86/crypto/$f.S" -o "$f.o"
done
$CC "${CFLAGS_K[@]}" -c "$P/src/crypto/sm4.c" -o sm4.o
sed '/^static struct shash_alg algs\[\]/,$d' "$P/src/crypto/sha3_generic.c" >sha3_generic_cut.c
$CC "${CFLAGS_K[@]}" -c sha3_generic_cut.c -o sha3_generic.o
ar rcs "$P/lib/libkernelpeer.a" ./*.o
echo "$RECIPE_ID $(pkg_version)" >"$P/.recipe"
touch "$P/.complete"
log "built $P/lib/libkernelpeer.a"
echo "$P"
