// The shared cipher vector loaders (test/support/vectors.hpp) on the files
// the SM4 suites read and on malformed ones: a loader that dropped a record
// or misread a field would let those suites pass on less than they claim.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

// A vector file with `text`, removed with the object.
class TempFile {
public:
    explicit TempFile(const std::string& text) {
        char name[] = "/tmp/hwaccel-vectors-XXXXXX";
        const int fd = mkstemp(name);
        REQUIRE(fd >= 0);
        close(fd);
        path_ = name;
        std::ofstream(path_) << text;
    }
    ~TempFile() { std::remove(path_.c_str()); }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

}  // namespace

TEST_CASE("test support: the SM4 vector files load completely", "[support]") {
    // Every record of each file, counted by hand.
    const std::vector<std::pair<const char*, size_t>> rsp = {
        {"sm4/draft-ribose-cfrg-sm4-10-ecb.txt", 4},
        {"sm4/draft-ribose-cfrg-sm4-10-cbc.txt", 2},
        {"sm4/draft-ribose-cfrg-sm4-10-cfb.txt", 2},
        {"sm4/draft-ribose-cfrg-sm4-10-ctr.txt", 2},
    };
    for (const auto& f : rsp) {
        INFO(f.first);
        const std::vector<CipherVector> v = load_rsp_cipher_vectors(vector_path(f.first));
        CHECK(v.size() == f.second);
        for (const CipherVector& c : v) {
            CHECK(c.cipher.empty());
            CHECK(c.key.size() == 16);
            CHECK(c.plaintext.size() == c.ciphertext.size());
            CHECK(c.other.empty());
        }
    }
    const std::vector<CipherVector> evp = load_evp_cipher_tests(vector_path("sm4/evpciph_sm4.txt"));
    REQUIRE(evp.size() == 5);
    CHECK(evp[0].cipher == "SM4-ECB");
    CHECK(evp[0].iv.empty());
    CHECK(to_hex(evp[0].ciphertext) == "681edf34d206965e86b3e94f536e4246");
    CHECK(evp[4].cipher == "SM4-CTR");
    CHECK(evp[4].plaintext.size() == 64);
    CHECK(evp[4].where.find("evpciph_sm4.txt:") != std::string::npos);
}

TEST_CASE("test support: cipher loaders read fields and refuse malformed files", "[support]") {
    SECTION(".rsp: headers and COUNT skipped, keys in any case, the position of the record") {
        TempFile f("# comment\n[ENCRYPT]\n\nCOUNT = 0\nKEY = 00ff\nPlainText = 01\n"
                   "ciphertext = 02\nIV = 0a0b\n\nCOUNT = 1\nKEY = 11\nPLAINTEXT = \n"
                   "CIPHERTEXT = \nTAG = 99\n");
        const std::vector<CipherVector> v = load_rsp_cipher_vectors(f.path());
        REQUIRE(v.size() == 2);
        CHECK(v[0].where == f.path() + ":4");
        CHECK(v[0].key == Bytes{0x00, 0xff});
        CHECK(v[0].iv == Bytes{0x0a, 0x0b});
        CHECK(v[0].plaintext == Bytes{0x01});
        CHECK(v[0].ciphertext == Bytes{0x02});
        CHECK(v[0].other.empty());
        CHECK(v[1].plaintext.empty());
        REQUIRE(v[1].other.size() == 1);
        CHECK(v[1].other[0].first == "TAG");
    }
    SECTION(".rsp: a missing field, a field twice, bad hex, no records") {
        TempFile missing("KEY = 00\nPLAINTEXT = 00\n");
        CHECK_THROWS_WITH(load_rsp_cipher_vectors(missing.path()),
                          Catch::Contains(":1") && Catch::Contains("missing CIPHERTEXT"));
        TempFile twice("KEY = 00\nKey = 01\nPLAINTEXT = 00\nCIPHERTEXT = 00\n");
        CHECK_THROWS_WITH(load_rsp_cipher_vectors(twice.path()), Catch::Contains("given twice"));
        TempFile bad_hex("KEY = 0g\nPLAINTEXT = 00\nCIPHERTEXT = 00\n");
        CHECK_THROWS_WITH(load_rsp_cipher_vectors(bad_hex.path()),
                          Catch::Contains(bad_hex.path() + ":1") && Catch::Contains("hex"));
        TempFile empty("# nothing\n");
        CHECK_THROWS_WITH(load_rsp_cipher_vectors(empty.path()), Catch::Contains("no vectors"));
    }
    SECTION("evp stanzas: titles and other stanza types skipped, unknown keys kept") {
        TempFile f("Title = t\n\nDigest = SHA1\nInput = 00\nOutput = 00\n\n"
                   "Cipher = SM4-CBC\nKey = 00:01\nIV = 02\nOperation = ENCRYPT\n"
                   "Plaintext = \"ab\"\nCiphertext = 0304\n");
        const std::vector<CipherVector> v = load_evp_cipher_tests(f.path());
        REQUIRE(v.size() == 1);
        CHECK(v[0].where == f.path() + ":7");
        CHECK(v[0].cipher == "SM4-CBC");
        CHECK(v[0].key == Bytes{0x00, 0x01});
        CHECK(v[0].plaintext == Bytes{'a', 'b'});
        CHECK(v[0].ciphertext == Bytes{0x03, 0x04});
        REQUIRE(v[0].other.size() == 1);
        CHECK(v[0].other[0] == std::make_pair(std::string("Operation"), std::string("ENCRYPT")));
    }
    SECTION("evp stanzas: a missing field, bad hex (with its line), no Cipher stanza") {
        TempFile missing("Cipher = SM4-ECB\nKey = 00\nCiphertext = 00\n");
        CHECK_THROWS_WITH(load_evp_cipher_tests(missing.path()), Catch::Contains("missing PLAINTEXT"));
        TempFile bad_hex("Cipher = SM4-ECB\nKey = 00\nPlaintext = 0\nCiphertext = 00\n");
        CHECK_THROWS_WITH(load_evp_cipher_tests(bad_hex.path()),
                          Catch::Contains(bad_hex.path() + ":3"));
        TempFile none("Digest = SHA1\nInput = 00\nOutput = 00\n");
        CHECK_THROWS_WITH(load_evp_cipher_tests(none.path()), Catch::Contains("no Cipher stanzas"));
    }
}
