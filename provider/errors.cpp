#include "errors.hpp"

#include <cstdarg>
#include <new>

namespace hwaccel {

const OSSL_ITEM* reason_strings() {
    static const OSSL_ITEM table[] = {
        {kErrInternal, const_cast<char*>("hwaccel internal error")},
        {kErrOutOfMemory, const_cast<char*>("out of memory")},
        {kErrBadEngineSpec, const_cast<char*>("invalid engine selection")},
        {kErrFinalCalledTwice, const_cast<char*>("final called twice")},
        {kErrUpdateAfterFinal, const_cast<char*>("update after final")},
        {kErrOutputBufferTooSmall, const_cast<char*>("output buffer too small")},
        {kErrInvalidXofLength, const_cast<char*>("invalid xof length")},
        {kErrNoKeySet, const_cast<char*>("no key set")},
        {kErrInvalidKeyLength, const_cast<char*>("invalid key length")},
        {kErrInvalidIvLength, const_cast<char*>("invalid iv length")},
        {kErrBadDecrypt, const_cast<char*>("bad decrypt")},
        {kErrWrongFinalBlockLength, const_cast<char*>("wrong final block length")},
        {kErrInvalidNum, const_cast<char*>("invalid num")},
        {kErrNotInitialised, const_cast<char*>("operation not initialised")},
        {kErrInvalidParameter, const_cast<char*>("invalid parameter")},
        {kErrInvalidLength, const_cast<char*>("invalid length")},
        {kErrSelfTestFailed, const_cast<char*>("engine failed its self-test")},
        {kErrXtsDuplicatedKeys, const_cast<char*>("xts duplicated keys")},
        {kErrXtsDataUnitTooLarge, const_cast<char*>("xts data unit is too large")},
        {0, nullptr},
    };
    return table;
}

void raise_error(const ProvCtx* prov, int reason, const char* fmt, ...) {
    if (prov == nullptr || prov->core.new_error == nullptr) return;
    prov->core.new_error(prov->handle);
    if (prov->core.set_error_debug) prov->core.set_error_debug(prov->handle, nullptr, 0, nullptr);
    if (prov->core.vset_error) {
        va_list args;
        va_start(args, fmt);
        prov->core.vset_error(prov->handle, static_cast<uint32_t>(reason), fmt, args);
        va_end(args);
    }
}

}  // namespace hwaccel
