// The OSSL_ALGORITHM tables this provider answers queries with.
#pragma once

#include "prov_ctx.hpp"

namespace hwaccel {

// Fills prov.digests and prov.ciphers; every entry carries prov.property.
void build_algorithm_tables(ProvCtx& prov);

}  // namespace hwaccel
