#include "errors.hpp"

#include <cstdarg>
#include <new>

namespace hwaccel {

const OSSL_ITEM* reason_strings() {
    static const OSSL_ITEM table[] = {
        {kErrBadEngineSpec, const_cast<char*>("invalid engine selection")},
        {kErrFinalCalledTwice, const_cast<char*>("final called twice")},
        {kErrUpdateAfterFinal, const_cast<char*>("update after final")},
        {kErrNotInitialised, const_cast<char*>("operation not initialised")},
        {kErrInvalidParameter, const_cast<char*>("invalid parameter")},
        {kErrInvalidLength, const_cast<char*>("invalid length")},
        {kErrSelfTestFailed, const_cast<char*>("engine failed its self-test")},
        {0, nullptr},
    };
    return table;
}

void raise_error(const ProvCtx* prov, uint32_t reason, const char* fmt, ...) {
    if (prov == nullptr || prov->core.new_error == nullptr) return;
    prov->core.new_error(prov->handle);
    if (prov->core.set_error_debug) prov->core.set_error_debug(prov->handle, nullptr, 0, nullptr);
    if (prov->core.vset_error) {
        va_list args;
        va_start(args, fmt);
        prov->core.vset_error(prov->handle, reason, fmt, args);
        va_end(args);
    }
}

}  // namespace hwaccel
