// Errors reach OpenSSL's error queue through the core's upcalls, with reason
// strings the user can read (`openssl errstr`, ERR_print_errors).
#pragma once

#include <openssl/core.h>

#include <new>

#include "prov_ctx.hpp"

namespace hwaccel {

enum Reason : int {
    kErrInternal = 1,
    kErrOutOfMemory,
    kErrBadEngineSpec,
    kErrFinalCalledTwice,
    kErrUpdateAfterFinal,
    kErrOutputBufferTooSmall,
    kErrInvalidXofLength,
    kErrNoKeySet,
    kErrInvalidKeyLength,
    kErrInvalidIvLength,
    kErrBadDecrypt,
    kErrWrongFinalBlockLength,
    kErrInvalidNum,
    kErrNotInitialised,
    kErrInvalidParameter,
    kErrInvalidLength,
    kErrSelfTestFailed,
    kErrXtsDuplicatedKeys,
    kErrXtsDataUnitTooLarge,
};

// The table returned by OSSL_FUNC_PROVIDER_GET_REASON_STRINGS.
const OSSL_ITEM* reason_strings();

// Raises `reason` with an optional printf-style detail; safe with a null ctx
// (then nothing is raised).
void raise_error(const ProvCtx* prov, int reason, const char* fmt = nullptr, ...)
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
