// SM4 in ECB, CBC, CFB128, OFB and CTR: mode traits over sm4_modes.
#include "cipher/cipher_dispatch.hpp"
#include "cipher/ciphers.hpp"
#include "cipher/sm4_modes.hpp"

namespace hwaccel {
namespace {

struct Sm4 {
    using State = Sm4State;
    static constexpr size_t kKeyLen = 16;
    static void bind(State& s, const Selection& engines) { s.engine = engines.sm4; }
    static void set_key(State& s, const uint8_t* key) { s.engine->set_key(&s.key, key); }
    static void forget_stream(State& s) { sm4_forget_stream(s); }
    // The dispatch layer's flag is EVP's "encrypting"; SM4 code below takes
    // a direction.
    static Sm4Direction direction(bool encrypting) {
        return encrypting ? Sm4Direction::kEncrypt : Sm4Direction::kDecrypt;
    }
    // CFB and OFB keep their stream in iv: nothing to rebuild.
    static void resume_stream(State&) {}
};

struct Sm4Ecb : Sm4 {
    static constexpr unsigned kMode = EVP_CIPH_ECB_MODE;
    static constexpr size_t kIvLen = 0, kBlockSize = 16;
    static constexpr bool kRestoreIvOnInit = false;
    static void blocks(State& s, bool encrypting, uint8_t* o, const uint8_t* i, size_t n) {
        sm4_ecb(s, direction(encrypting), o, i, n);
    }
};

struct Sm4Cbc : Sm4 {
    static constexpr unsigned kMode = EVP_CIPH_CBC_MODE;
    static constexpr size_t kIvLen = 16, kBlockSize = 16;
    static constexpr bool kRestoreIvOnInit = true;
    static void blocks(State& s, bool encrypting, uint8_t* o, const uint8_t* i, size_t n) {
        sm4_cbc(s, direction(encrypting), o, i, n);
    }
};

struct Sm4Cfb : Sm4 {
    static constexpr unsigned kMode = EVP_CIPH_CFB_MODE;
    static constexpr size_t kIvLen = 16, kBlockSize = 1;
    static constexpr bool kRestoreIvOnInit = true;
    static void stream(State& s, bool encrypting, uint8_t* o, const uint8_t* i, size_t n) {
        sm4_cfb(s, direction(encrypting), o, i, n);
    }
};

struct Sm4Ofb : Sm4 {
    static constexpr unsigned kMode = EVP_CIPH_OFB_MODE;
    static constexpr size_t kIvLen = 16, kBlockSize = 1;
    static constexpr bool kRestoreIvOnInit = true;
    static void stream(State& s, bool, uint8_t* o, const uint8_t* i, size_t n) { sm4_ofb(s, o, i, n); }
};

struct Sm4Ctr : Sm4 {
    static constexpr unsigned kMode = EVP_CIPH_CTR_MODE;
    static constexpr size_t kIvLen = 16, kBlockSize = 1;
    static constexpr bool kRestoreIvOnInit = false;  // a NULL-IV init continues the counter
    static void stream(State& s, bool, uint8_t* o, const uint8_t* i, size_t n) { sm4_ctr(s, o, i, n); }
    static void resume_stream(State& s) { sm4_ctr_resume(s); }
};

}  // namespace

const OSSL_DISPATCH* sm4_ecb_functions() { return CipherDispatch<Sm4Ecb>::functions(); }
const OSSL_DISPATCH* sm4_cbc_functions() { return CipherDispatch<Sm4Cbc>::functions(); }
const OSSL_DISPATCH* sm4_cfb_functions() { return CipherDispatch<Sm4Cfb>::functions(); }
const OSSL_DISPATCH* sm4_ofb_functions() { return CipherDispatch<Sm4Ofb>::functions(); }
const OSSL_DISPATCH* sm4_ctr_functions() { return CipherDispatch<Sm4Ctr>::functions(); }

}  // namespace hwaccel
