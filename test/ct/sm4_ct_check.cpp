// Constant-time check for every SM4 engine this CPU can run, in the style of
// ctgrind: the key, plaintext, IV and counter are marked undefined for
// valgrind's memcheck, which then reports any conditional jump or memory
// address that depends on them. Run as
//     valgrind --error-exitcode=1 --track-origins=yes ./sm4_ct_check
// (run_memcheck.sh, which fails the check when valgrind is missing, unless
// HWACCEL_ALLOW_CT_SKIP=1). Without valgrind the client requests do nothing
// and the program just runs.
//
// Also the provider's mode code that handles secrets (provider/cipher/
// sm4_modes.cpp, compiled in): every mode over every engine as it is and over
// a bare copy without the optional fused modes, which takes every fallback
// and serial loop, from the middle of a block, across the fallbacks'
// 32-block chunk. And the provider's PKCS#7 unpad (cipher/pkcs7.hpp, the
// very inline function the provider calls) over a decrypted block marked
// secret: every case of pkcs7_unpad_cases.hpp. And SM4-CCM's MAC, CTR and
// tag comparison (provider/cipher/sm4_ccm_mode.cpp, compiled in).
//
// And every GHASH engine (the family serving SM4-GCM): set_key with H
// secret, update with H, Y and the data secret, at each engine's group sizes
// and tails. And SM4-GCM's mode code (provider/cipher/sm4_gcm_mode.cpp,
// compiled in) over every pair of SM4 and GHASH engine, with the tag
// comparison its decryption uses (constant_time_equal.hpp, the very inline
// function sm4_gcm.cpp calls); and SM4-XTS's (sm4_xts_mode.cpp) over every
// engine as it is (the x86 engines' fused xts member) and bare.
//
// Built a second time with SM4_CT_DELIBERATE_LEAK (sm4_ct_leak): it then also
// does a table lookup indexed by a secret byte, which memcheck must report;
// the CTest entries assert that it does, so a check that cannot fail would
// not go unnoticed.
#include <valgrind/memcheck.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cipher/pkcs7.hpp"
#include "cipher/sm4_ccm_mode.hpp"
#include "cipher/sm4_gcm_mode.hpp"
#include "cipher/sm4_xts_mode.hpp"
#include "constant_time_equal.hpp"
#include "cipher/sm4_modes.hpp"
#include "constant_time_equal.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/registry.hpp"
#include "pkcs7_unpad_cases.hpp"
#include "support/engine_manifest.hpp"

namespace {

constexpr size_t kMaxBlocks = 130;

uint64_t checksum = 0;

// Publishes a result: marks it defined first (it is derived from secrets, and
// the program's own branches on it are not the engine's), then folds it into
// a checksum so the compiler cannot drop the work.
void publish(const void* p, size_t n) {
    VALGRIND_MAKE_MEM_DEFINED(p, n);
    const uint8_t* b = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; ++i) checksum = checksum * 1099511628211ull ^ b[i];
}

void secret(void* p, size_t n) { VALGRIND_MAKE_MEM_UNDEFINED(p, n); }

void fill(uint8_t* p, size_t n, uint8_t seed) {
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(seed + 31 * i + (i >> 3));
}

void check_engine(const hwaccel::Sm4Engine& e) {
    static uint8_t key[16], pt[16 * kMaxBlocks], out[16 * kMaxBlocks], back[16 * kMaxBlocks];
    static uint8_t iv[16];
    hwaccel::Sm4Key k;

    fill(key, sizeof key, 1);
    fill(pt, sizeof pt, 2);
    secret(key, sizeof key);
    secret(pt, sizeof pt);

    e.set_key(&k, key);

    const size_t counts[] = {1, 2, 4, 5, 7, 16, 33, 64, 65, kMaxBlocks};
    for (size_t n : counts) {
        e.ecb(&k, hwaccel::Sm4Direction::kEncrypt, out, pt, n);
        e.ecb(&k, hwaccel::Sm4Direction::kDecrypt, back, out, n);
        publish(out, 16 * n);
        publish(back, 16 * n);
        secret(pt, sizeof pt);  // ecb's output may have been published in place of it

        e.encrypt_block(&k, out, pt);
        publish(out, 16);

        // Every mode with an IV or counter, where the engine has it: the
        // fused parallel ones, then the fused serial ones.
        using ModeFn = void (*)(const hwaccel::Sm4Key*, uint8_t*, const uint8_t*, size_t, uint8_t*);
        const ModeFn modes[] = {e.ctr, e.cbc_decrypt, e.cfb_decrypt, e.cbc_encrypt, e.cfb_encrypt, e.ofb};
        uint8_t seed = 3;
        for (ModeFn f : modes) {
            if (!f) continue;
            fill(iv, sizeof iv, seed++);
            iv[15] = 0xF0;  // CTR: carries into the upper bytes inside the call
            secret(iv, sizeof iv);
            f(&k, out, pt, n, iv);
            publish(out, 16 * n);
            publish(iv, sizeof iv);
        }
        // GCM's ctr_with_first: the counter secret here too (the engine
        // cannot tell), its first block out of the text.
        if (e.ctr_with_first) {
            uint8_t first[16];
            fill(iv, sizeof iv, seed++);
            iv[15] = 0xF0;
            secret(iv, sizeof iv);
            e.ctr_with_first(&k, first, out, pt, n, iv);
            publish(out, 16 * n);
            publish(first, sizeof first);
            publish(iv, sizeof iv);
        }
        // In place.
        std::memcpy(back, pt, 16 * n);
        e.ecb(&k, hwaccel::Sm4Direction::kEncrypt, back, back, n);
        publish(back, 16 * n);
    }
    publish(&k, sizeof k);
}

void check_ghash(const hwaccel::GhashEngine& e) {
    static uint8_t h[16], y[16], data[16 * kMaxBlocks];
    hwaccel::GhashKey k;
    fill(h, sizeof h, 11);
    secret(h, sizeof h);
    e.set_key(&k, h);
    const size_t counts[] = {0, 1, 2, 3, 7, 8, 9, 16, 17, 35, kMaxBlocks};
    for (size_t n : counts) {
        fill(y, sizeof y, 12);
        fill(data, sizeof data, 13);
        secret(y, sizeof y);
        secret(data, sizeof data);
        e.update(&k, y, data, n);
        publish(y, sizeof y);
    }
    publish(&k, sizeof k);
}

hwaccel::Sm4Direction direction_of(bool encrypt) {
    return encrypt ? hwaccel::Sm4Direction::kEncrypt : hwaccel::Sm4Direction::kDecrypt;
}

// The provider's modes over engine e: key, data, IV and the mode state all
// secret; only num and the lengths are public.
void check_modes(const hwaccel::Sm4Engine& e) {
    static uint8_t key[16], in[16 * kMaxBlocks], out[16 * kMaxBlocks];
    fill(key, sizeof key, 5);
    fill(in, sizeof in, 6);
    const size_t counts[] = {1, 2, 33};  // 33: across the fallbacks' 32-block chunk
    for (int mode = 0; mode < 6; ++mode)
        for (size_t n : counts) {
            hwaccel::Sm4State st;
            std::memset(&st, 0, sizeof st);
            st.engine = &e;
            secret(key, sizeof key);
            e.set_key(&st.key, key);
            fill(st.iv, sizeof st.iv, 7);
            st.iv[15] = 0xF0;
            secret(st.iv, sizeof st.iv);
            secret(st.keystream, sizeof st.keystream);
            secret(in, sizeof in);
            if (mode < 2) {
                hwaccel::sm4_cbc(st, direction_of(mode == 0), out, in, n);
                publish(out, 16 * n);
            } else {
                // 5 bytes, then the rest of that block, n blocks and 3 bytes.
                const size_t len = 11 + 16 * n + 3;
                for (size_t off : {size_t{0}, size_t{5}}) {
                    const size_t part = off == 0 ? 5 : len;
                    if (mode == 2 || mode == 3) hwaccel::sm4_cfb(st, direction_of(mode == 2), out + off, in + off, part);
                    else if (mode == 4) hwaccel::sm4_ofb(st, out + off, in + off, part);
                    else hwaccel::sm4_ctr(st, out + off, in + off, part);
                }
                publish(out, 5 + len);
            }
            publish(st.iv, sizeof st.iv);
            publish(st.keystream, sizeof st.keystream);
            publish(&st.key, sizeof st.key);
        }
    // SM4-CCM (sm4_ccm_mode.cpp): key, nonce, AAD and payload secret, the
    // lengths public; a short payload (its keystream taken with E(B_0)), a
    // middle one (one stack buffer) and a long one (in chunks). Encryption:
    // decryption runs the same CTR and MAC code, then branches on its
    // verdict, which it returns (public by design); the tag comparison is
    // checked on its own, its verdict published after.
    for (size_t len : {size_t{21}, size_t{200}, size_t{16 * kMaxBlocks - 3}}) {
        hwaccel::Sm4State st;
        std::memset(&st, 0, sizeof st);
        st.engine = &e;
        secret(key, sizeof key);
        e.set_key(&st.key, key);
        uint8_t nonce[12], tag[16], other[16];
        fill(nonce, sizeof nonce, 8);
        fill(other, sizeof other, 9);
        secret(nonce, sizeof nonce);
        secret(in, sizeof in);
        hwaccel::Sm4CcmMessage m;
        hwaccel::ccm_start(m, nonce, 3, len, 16);
        hwaccel::ccm_aad(st, m, in, 40);
        if (!hwaccel::ccm_encrypt(st, m, out, in, len, tag)) std::abort();  // len is the declared one
        publish(out, len);
        secret(other, sizeof other);
        bool equal = hwaccel::constant_time_equal(tag, other, sizeof tag);
        publish(&equal, sizeof equal);
        publish(tag, sizeof tag);
        publish(&m, sizeof m);
        publish(&st, sizeof st);
    }
}

// SM4-GCM over engines e and g: key, AAD and text secret; the IV and the
// lengths public. A 12-byte IV and a 17-byte one (J0 through GHASH); AAD and text in
// odd pieces from the middle of a block, the text across the mode's 4 KiB
// chunk; both directions; the tag compared with an expected one that differs
// in its last byte (the verdict is public: published before use).
void check_gcm(const hwaccel::Sm4Engine& e, const hwaccel::GhashEngine& g) {
    static uint8_t key[16], iv[17], aad[100], in[5000], out[5000], tag[16], expected[16];
    for (size_t iv_len : {size_t{12}, size_t{17}})
        for (bool encrypt : {true, false}) {
            hwaccel::Sm4GcmState st;
            std::memset(&st, 0, sizeof st);
            hwaccel::sm4_gcm_bind(st, &e, &g);
            fill(key, sizeof key, 21);
            fill(iv, sizeof iv, 22);
            fill(aad, sizeof aad, 23);
            fill(in, sizeof in, 24);
            secret(key, sizeof key);
            secret(aad, sizeof aad);
            secret(in, sizeof in);
            hwaccel::sm4_gcm_set_key(st, key);
            // The IV is public (sent with the message); with an IV other than
            // 12 bytes J0 = GHASH_H(IV) is not, and neither is its counter.
            hwaccel::sm4_gcm_set_iv(st, iv, iv_len);
            bool ok = hwaccel::sm4_gcm_aad(st, aad, 5) && hwaccel::sm4_gcm_aad(st, aad + 5, 60);
            size_t done = 0;
            for (size_t piece : {size_t{3}, size_t{29}, size_t{4500}, size_t{13}}) {
                ok = ok && (encrypt ? hwaccel::sm4_gcm_encrypt(st, out + done, in + done, piece)
                                    : hwaccel::sm4_gcm_decrypt(st, out + done, in + done, piece));
                done += piece;
            }
            hwaccel::sm4_gcm_tag(st, tag);
            // A second message of whole blocks, H known: E_K(J0) with its
            // keystream (the engine's ctr_with_first, where it has one).
            hwaccel::sm4_gcm_set_iv(st, iv, iv_len);
            ok = ok && (encrypt ? hwaccel::sm4_gcm_encrypt(st, out + done, in, 256)
                                : hwaccel::sm4_gcm_decrypt(st, out + done, in, 256));
            hwaccel::sm4_gcm_tag(st, tag);
            publish(out + done, 256);
            std::memcpy(expected, tag, sizeof tag);
            expected[15] ^= 1;
            bool equal = hwaccel::constant_time_equal(tag, expected, sizeof tag);
            publish(&ok, sizeof ok);
            publish(&equal, sizeof equal);
            publish(out, done);
            publish(tag, sizeof tag);
            publish(&st, sizeof st);
        }
}

// SM4-XTS over engine e (as it is: its fused xts; bare: the ECB fallback):
// key, tweak and data secret; both standards and directions; a single
// block, stolen tails, past the fused batches and the 128-block chunk.
void check_xts(const hwaccel::Sm4Engine& e) {
    static uint8_t key[32], iv[16], in[16 * 300], out[16 * 300];
    fill(key, sizeof key, 31);
    fill(iv, sizeof iv, 32);
    fill(in, sizeof in, 33);
    for (hwaccel::XtsStandard standard : {hwaccel::XtsStandard::kGb, hwaccel::XtsStandard::kIeee})
        for (bool encrypt : {true, false})
            for (size_t len : {size_t{16}, size_t{16 * 9 + 5}, size_t{16 * 300 - 7}}) {
                hwaccel::Sm4XtsKey k;
                k.engine = &e;
                secret(key, sizeof key);
                secret(iv, sizeof iv);
                secret(in, sizeof in);
                // As the provider schedules them: the pair (or two set_key
                // calls where the engine has no pair function).
                hwaccel::sm4_set_key_pair(e, &k.data, key, &k.tweak, key + 16);
                hwaccel::sm4_xts(k, standard, direction_of(encrypt), iv, out, in, len);
                publish(out, len);
                publish(&k, sizeof k);
            }
}

// PKCS#7 unpad over every case, the block secret. Its verdict and length
// are public by design (the caller branches on them), so they are published
// before use; then checked, so the cases are what they claim. Returns how
// many verdicts were wrong. Out of line so valgrind's report names it.
[[gnu::noinline]] int check_unpad() {
    int wrong = 0;
    for (int i = 0; i < hwaccel::test::kUnpadCases; ++i) {
        const hwaccel::test::UnpadCase c = hwaccel::test::unpad_case(i);
        uint8_t block[16];
        fill(block, sizeof block, static_cast<uint8_t>(9 + i));
        hwaccel::test::make_unpad_block(c, block);
        secret(block, sizeof block);
        size_t len = 0;
        bool ok = hwaccel::pkcs7_unpad(block, &len);
        publish(&ok, sizeof ok);
        publish(&len, sizeof len);
        if (ok != hwaccel::test::unpad_is_valid(c) || (ok && len != 16 - c.pad)) ++wrong;
    }
    return wrong;
}

}  // namespace

#ifdef SM4_CT_DELIBERATE_LEAK
// The classic table S-box: the address of the load depends on the secret.
// Out of line so valgrind's report names it.
[[gnu::noinline]] uint8_t sm4_ct_deliberate_leak(const uint8_t* secret_byte) {
    static const uint8_t table[16] = {0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7,
                                      0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c, 0x05};
    return table[*secret_byte & 15];
}
#endif

int main() {
    int checked = 0;
    for (const hwaccel::Sm4Engine* e : hwaccel::sm4_engines()) {
        if (!e->available(hwaccel::cpu_features())) continue;
        check_engine(*e);
        check_modes(*e);
        hwaccel::Sm4Engine bare = *e;  // without the optional fused modes: every fallback
        bare.ctr = nullptr;
        bare.cbc_decrypt = bare.cfb_decrypt = nullptr;
        bare.cbc_encrypt = bare.cfb_encrypt = bare.ofb = nullptr;
        bare.ccm = nullptr;
        check_modes(bare);
        check_xts(*e);
        bare.xts = nullptr;
        check_xts(bare);
        for (const hwaccel::GhashEngine* g : hwaccel::ghash_engines())
            if (g->available(hwaccel::cpu_features())) check_gcm(*e, *g);
        std::printf("sm4 engine %s checked, and the provider's modes (XTS too) over it as it is and bare, "
                    "GCM over it with every GHASH engine\n", e->name);
        ++checked;
#ifndef SM4_CT_DELIBERATE_LEAK
        // The engine manifest: only a run under memcheck checks anything.
        if (RUNNING_ON_VALGRIND) hwaccel::test::record_engine("sm4", e->name, "ct-memcheck");
#endif
    }
    for (const hwaccel::GhashEngine* e : hwaccel::ghash_engines()) {
        if (!e->available(hwaccel::cpu_features())) continue;
        check_ghash(*e);
        std::printf("ghash engine %s checked\n", e->name);
        ++checked;
#ifndef SM4_CT_DELIBERATE_LEAK
        if (RUNNING_ON_VALGRIND) hwaccel::test::record_engine("ghash", e->name, "ct-memcheck");
#endif
    }
    const int unpad_wrong = check_unpad();
    std::printf("pkcs7_unpad checked over %d blocks: %d wrong verdict(s)\n", hwaccel::test::kUnpadCases,
                unpad_wrong);
#ifdef SM4_CT_DELIBERATE_LEAK
    uint8_t s = 0x5A;
    secret(&s, 1);
    uint8_t v = sm4_ct_deliberate_leak(&s);
    publish(&v, 1);
    std::printf("deliberate secret-indexed lookup done\n");
#endif
    std::printf("checksum %016llx, %d engine(s)\n", static_cast<unsigned long long>(checksum), checked);
    return checked > 0 && unpad_wrong == 0 ? 0 : 1;
}
