// A digest context freed by EVP holds no message bytes: the allocator (which
// sees every block hwaccel frees) searches each freed block for the message.
// Covers the message abandoned mid-way (freectx must wipe it), finished
// (final wiped it), abandoned then re-initialised, and a copy freed; and
// the blocks still live, where the instance keeps a finished context as a
// spare for the next newctx.
#include <openssl/evp.h>

#include <catch2/catch.hpp>
#include <string>

#include "failing_allocator.hpp"
#include "provider_fixture.hpp"

using namespace hwaccel::test;

namespace {

// 40 bytes: shorter than every block, so each hasher holds them buffered.
std::string message() {
    std::string m(40, '\0');
    for (size_t i = 0; i < m.size(); ++i) m[i] = static_cast<char>(0xa5 ^ (i * 29 + 3));
    return m;
}

void update(EVP_MD_CTX* ctx, const EVP_MD* md, const std::string& m) {
    REQUIRE(EVP_DigestInit_ex2(ctx, md, nullptr) == 1);
    REQUIRE(EVP_DigestUpdate(ctx, m.data(), m.size()) == 1);
}

}  // namespace

TEST_CASE("freed digest contexts hold no message bytes", "[wipe]") {
    const std::string m = message();
    for (const std::string& engines : engine_selections()) {
        LoadedProvider prov(engines);
        for (const auto& d : all_digests()) {
            INFO(d.name << " under engines '" << engines << "'");
            MdPtr md = prov.md(d.name);
            // Looked for: the message's middle 24 bytes, wherever a hasher keeps them.
            watch_freed_blocks_for(m.substr(8, 24));
            const long serial = allocation_serial();
            {
                MdCtxPtr abandoned(EVP_MD_CTX_new());
                update(abandoned.get(), md.get(), m);
                MdCtxPtr copy(EVP_MD_CTX_new());
                REQUIRE(EVP_MD_CTX_copy_ex(copy.get(), abandoned.get()) == 1);
                MdCtxPtr reinit(EVP_MD_CTX_new());
                update(reinit.get(), md.get(), m);
                REQUIRE(EVP_DigestInit_ex2(reinit.get(), md.get(), nullptr) == 1);
                MdCtxPtr finished(EVP_MD_CTX_new());
                update(finished.get(), md.get(), m);
                unsigned char out[64];
                final_digest(finished.get(), out, d.xof ? 32 : size_t(EVP_MD_get_size(md.get())), d.xof);
            }
            CHECK(freed_block_holding_watched() == "");
            // A finished context the instance keeps as its spare
            // (spare_contexts.hpp) is live, not freed: it holds nothing either.
            CHECK(live_block_holding(serial, {{"message", m.substr(8, 24)}}) == "");
            watch_freed_blocks_for("");
        }
    }
}
