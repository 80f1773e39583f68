// Known answers for the GHASH engines: McGrew and Viega's GCM test cases 2
// and 4 (one block, two blocks, seven blocks with padded A and C), then 78
// blocks in one call (the aggregated bulk paths of the CLMUL engines, their
// tails included) and the same blocks over uneven calls.
#include <cstring>

#include "hwaccel/engines.hpp"
#include "selftest_kat.hpp"

namespace hwaccel::selftest {
namespace {

// D. McGrew, J. Viega, "The Galois/Counter Mode of Operation (GCM)", revised
// spec, Appendix B. Test case 2: H, C1, X1 = GHASH after C1, len(A)||len(C),
// GHASH(H, A, C).
constexpr char kCase2H[] = "66e94bd4ef8a2c3b884cfa59ca342b2e";
constexpr char kCase2Blocks[] = "0388dace60b6a392f328c2b971b2fe78"
                                "00000000000000000000000000000080";
constexpr char kCase2X1[] = "5e2ec746917062882c85b0685353deb7";
constexpr char kCase2Ghash[] = "f38cbb1ad69223dcc3457ae5b6b0f885";
// Test case 4: A (20 bytes) and C (60 bytes), each zero-padded to whole
// blocks, then len(A)||len(C).
constexpr char kCase4H[] = "b83b533708bf535d0aa6e52980d53b78";
constexpr char kCase4Blocks[] =
    "feedfacedeadbeeffeedfacedeadbeef"
    "abaddad2000000000000000000000000"
    "42831ec2217774244b7221b784d0d49c"
    "e3aa212f2c02a4e035c17e2329aca12e"
    "21d514b25466931c7d8f6a5aac84aa05"
    "1ba30b396a0aac973d58e09100000000"
    "00000000000000a000000000000001e0";
constexpr char kCase4Ghash[] = "698e57f70e6ecc7fd9463b7260a9ae5f";

// GHASH under test case 4's H of the 1232-byte pattern() message as A, no C,
// then len(A)||len(C) = 9856 bits: AES-128-GCM's tag XOR E(K, Y0), with
// test case 4's K and IV (E(K, Y0) = 3247184b3c4f69a44dbcd22887bbb418 there):
//   python3 -c 'from cryptography.hazmat.primitives.ciphers.aead import AESGCM;
//     m = bytes((i*167+13)%251 for i in range(1232));
//     print(AESGCM(bytes.fromhex("feffe9928665731c6d6a8f9467308308")).encrypt(
//       bytes.fromhex("cafebabefacedbaddecaf888"), b"", m).hex())'
//   -> f984064c160fcffb986da576e70abc4a, XOR E(K, Y0):
constexpr size_t kBulkBlocks = 77;
constexpr char kBulkLength[] = "00000000000026800000000000000000";
constexpr char kBulkGhash[] = "cbc31e072a40a65fd5d1775e60b10852";
// The same blocks in uneven calls (empty calls included), 78 in all.
constexpr size_t kChunks[] = {1, 0, 7, 16, 53, 0, 1};

bool check_vectors(KatRun& run, const GhashEngine& engine, GhashKey& key) {
    const std::vector<uint8_t> h2 = from_hex(kCase2H), blocks2 = from_hex(kCase2Blocks);
    engine.set_key(&key, h2.data());
    if (!run.expect("set_key", 0, key.h, h2.data(), 16)) return false;
    uint8_t y[16] = {0};
    engine.update(&key, y, blocks2.data(), 1);
    if (!run.expect("update", 1, y, from_hex(kCase2X1).data(), 16)) return false;
    std::memset(y, 0, sizeof y);
    engine.update(&key, y, blocks2.data(), 2);
    if (!run.expect("update", 2, y, from_hex(kCase2Ghash).data(), 16)) return false;
    const std::vector<uint8_t> h4 = from_hex(kCase4H), blocks4 = from_hex(kCase4Blocks);
    engine.set_key(&key, h4.data());
    std::memset(y, 0, sizeof y);
    engine.update(&key, y, blocks4.data(), blocks4.size() / 16);
    return run.expect("update", blocks4.size() / 16, y, from_hex(kCase4Ghash).data(), 16);
}

// Leaves key set to test case 4's H (check_vectors).
bool check_bulk(KatRun& run, const GhashEngine& engine, GhashKey& key) {
    std::vector<uint8_t> message = pattern(16 * kBulkBlocks);
    const std::vector<uint8_t> length = from_hex(kBulkLength);
    message.insert(message.end(), length.begin(), length.end());
    const size_t total = kBulkBlocks + 1;
    uint8_t y[16] = {0};
    engine.update(&key, y, message.data(), total);
    if (!run.expect("update", total, y, from_hex(kBulkGhash).data(), 16)) return false;
    uint8_t chunked[16] = {0};
    size_t at = 0;
    for (size_t n : kChunks) {
        engine.update(&key, chunked, message.data() + 16 * at, n);
        at += n;
    }
    return run.expect("update in uneven calls", total, chunked, y, 16);
}

}  // namespace

std::string ghash_known_answers(const GhashEngine& engine) {
    KatRun run("ghash", engine.name);
    GhashKey key;
    if (check_vectors(run, engine, key)) check_bulk(run, engine, key);
    return run.failure();  // public test keys: nothing to wipe
}

}  // namespace hwaccel::selftest
