// Errors reach OpenSSL's error queue through the core's upcalls. Where the
// default provider refuses the same thing, hwaccel raises OpenSSL's own code
// (library PROV, its PROV_R_* or common ERR_R_* reason), so code that
// branches on ERR_GET_LIB/ERR_GET_REASON sees no difference; the core passes
// a reason whose library bits are set straight through (core_vset_error in
// every OpenSSL 3.x/4.0). The rest are hwaccel's own reasons, filed under the
// library number the core gave the module at load, with strings from
// reason_strings(). The table with the reasons why: docs/DESIGN.md, Errors.
#pragma once

#include <openssl/core.h>
#include <openssl/err.h>
#include <openssl/proverr.h>

#include <cstdint>
#include <new>

#include "prov_ctx.hpp"

namespace hwaccel {

// A reason of OpenSSL's library PROV: the full code the default provider's
// ERR_raise(ERR_LIB_PROV, reason) files.
constexpr uint32_t prov_reason(unsigned long reason) {
    return static_cast<uint32_t>(ERR_PACK(ERR_LIB_PROV, 0, reason));
}

// hwaccel's own reasons start here, above every reason number OpenSSL uses in
// any library (the largest are SSL's, near 1100, and system errno values). A
// provider's library number wraps into OpenSSL's own after 128 loads in a
// process (ERR_LIB_MASK is 0xFF); own numbers that no library uses keep its
// strings from replacing OpenSSL's, and keep ERR_GET_REASON unambiguous.
constexpr uint32_t kOwnReasonBase = 0x4000;

// PROV_R_REPEATED_PARAMETER of OpenSSL 3.6+ (not in older headers); raised
// only where the running OpenSSL's default provider raises it.
constexpr unsigned long kProvRepeatedParameter = 252;

enum Reason : uint32_t {
    // As the default provider raises them.
    kErrInternal = prov_reason(ERR_R_INTERNAL_ERROR),
    kErrOutOfMemory = prov_reason(ERR_R_MALLOC_FAILURE),
    kErrOutputBufferTooSmall = prov_reason(PROV_R_OUTPUT_BUFFER_TOO_SMALL),
    kErrNoKeySet = prov_reason(PROV_R_NO_KEY_SET),
    kErrInvalidKeyLength = prov_reason(PROV_R_INVALID_KEY_LENGTH),
    kErrInvalidIvLength = prov_reason(PROV_R_INVALID_IV_LENGTH),
    kErrBadDecrypt = prov_reason(PROV_R_BAD_DECRYPT),
    kErrWrongFinalBlockLength = prov_reason(PROV_R_WRONG_FINAL_BLOCK_LENGTH),
    kErrCipherOperationFailed = prov_reason(PROV_R_CIPHER_OPERATION_FAILED),
    // A parameter the caller passed cannot be read (OpenSSL's name: the
    // provider failed to "get" it), e.g. the wrong type or a bad value.
    kErrFailedToGetParameter = prov_reason(PROV_R_FAILED_TO_GET_PARAMETER),
    // A parameter the caller asked for cannot be written.
    kErrFailedToSetParameter = prov_reason(PROV_R_FAILED_TO_SET_PARAMETER),
    kErrRepeatedParameter = prov_reason(kProvRepeatedParameter),
    kErrInvalidDigestLength = prov_reason(PROV_R_INVALID_DIGEST_LENGTH),
    kErrInvalidTag = prov_reason(PROV_R_INVALID_TAG),
    kErrInvalidTagLength = prov_reason(PROV_R_INVALID_TAG_LENGTH),
    kErrTagNotNeeded = prov_reason(PROV_R_TAG_NOT_NEEDED),
    kErrTagNotSet = prov_reason(PROV_R_TAG_NOT_SET),
    kErrInvalidAad = prov_reason(PROV_R_INVALID_AAD),
    kErrInvalidData = prov_reason(PROV_R_INVALID_DATA),
    kErrXtsDuplicatedKeys = prov_reason(PROV_R_XTS_DUPLICATED_KEYS),
    kErrXtsDataUnitTooLarge = prov_reason(PROV_R_XTS_DATA_UNIT_IS_TOO_LARGE),
    // The default's code when a key generation's randomness fails.
    kErrFailedToGenerateKey = prov_reason(PROV_R_FAILED_TO_GENERATE_KEY),

    // hwaccel's own: the default provider has no such refusal.
    kErrBadEngineSpec = kOwnReasonBase + 3,
    kErrFinalCalledTwice = kOwnReasonBase + 4,
    kErrUpdateAfterFinal = kOwnReasonBase + 5,
    kErrNotInitialised = kOwnReasonBase + 14,
    kErrInvalidParameter = kOwnReasonBase + 15,
    kErrInvalidLength = kOwnReasonBase + 16,
    kErrSelfTestFailed = kOwnReasonBase + 17,
};

// The table returned by OSSL_FUNC_PROVIDER_GET_REASON_STRINGS (own reasons
// only: OpenSSL has the strings of its codes).
const OSSL_ITEM* reason_strings();

// Raises `reason` with an optional printf-style detail; safe with a null ctx
// (then nothing is raised).
void raise_error(const ProvCtx* prov, uint32_t reason, const char* fmt = nullptr, ...)
    __attribute__((format(printf, 3, 4)));

// Every dispatch entry runs its body through this barrier: no C++ exception
// may unwind through libcrypto's C frames.
template <class Result, class Body>
Result guarded(const ProvCtx* prov, Result on_error, Body&& body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        raise_error(prov, kErrOutOfMemory);
    } catch (...) {
        raise_error(prov, kErrInternal, "unexpected exception");
    }
    return on_error;
}

}  // namespace hwaccel
