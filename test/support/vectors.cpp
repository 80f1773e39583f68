#include "support/vectors.hpp"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>

namespace hwaccel::test {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
    throw std::runtime_error(where + ": " + what);
}

std::string_view trim(std::string_view s) {
    const char* ws = " \t\r\n";
    size_t b = s.find_first_not_of(ws);
    if (b == std::string_view::npos) return {};
    size_t e = s.find_last_not_of(ws);
    return s.substr(b, e - b + 1);
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Non-negative decimal; throws on anything else.
size_t parse_size(const std::string& s, const std::string& where) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
        fail(where, "expected a decimal number, got '" + s + "'");
    return static_cast<size_t>(std::stoull(s));
}

std::vector<std::string> read_lines(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open vector file " + path);
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

// Splits "key = value" at the first '='; false if there is none.
bool split_key_value(std::string_view line, std::string& key, std::string& value) {
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) return false;
    key = std::string(trim(line.substr(0, eq)));
    value = std::string(trim(line.substr(eq + 1)));
    return true;
}

std::string at_line(const std::string& path, size_t line) {
    return path + ":" + std::to_string(line);
}

}  // namespace

// ---------------------------------------------------------------- hex

Bytes from_hex(std::string_view hex) {
    if (hex.size() % 2 != 0) throw std::runtime_error("odd-length hex string");
    Bytes out(hex.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) {
        int hi = hex_digit(hex[2 * i]);
        int lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            throw std::runtime_error("bad hex character near '" +
                                     std::string(hex.substr(2 * i, 2)) + "'");
        out[i] = static_cast<uint8_t>(hi << 4 | lo);
    }
    return out;
}

std::string to_hex(const uint8_t* data, size_t len) {
    static const char kDigits[] = "0123456789abcdef";
    std::string s(2 * len, '0');
    for (size_t i = 0; i < len; ++i) {
        s[2 * i] = kDigits[data[i] >> 4];
        s[2 * i + 1] = kDigits[data[i] & 15];
    }
    return s;
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
        if (x != y) return false;
    }
    return true;
}

std::string vector_path(const std::string& relative) {
    // The environment wins so that a binary copied elsewhere (cross runs) can
    // still find the files.
    const char* dir = std::getenv("HWACCEL_VECTOR_DIR");
#ifdef HWACCEL_VECTOR_DIR
    if (dir == nullptr || *dir == '\0') dir = HWACCEL_VECTOR_DIR;
#endif
    if (dir == nullptr) throw std::runtime_error("HWACCEL_VECTOR_DIR is not set");
    return std::string(dir) + "/" + relative;
}

// ---------------------------------------------------------------- NIST CAVP

const std::string* RspRecord::find(const std::string& key) const {
    for (const auto& kv : fields)
        if (kv.first == key) return &kv.second;
    return nullptr;
}

const std::string& RspRecord::at(const std::string& key) const {
    if (const std::string* v = find(key)) return *v;
    fail(where(), "missing field '" + key + "'");
}

std::string RspRecord::where() const { return at_line(file, line); }

std::vector<RspRecord> parse_rsp(const std::string& path) {
    std::vector<std::string> lines = read_lines(path);
    std::vector<RspRecord> records;
    std::map<std::string, std::string> headers;
    bool open = false;  // a record is being filled
    for (size_t n = 0; n < lines.size(); ++n) {
        std::string_view line = trim(lines[n]);
        if (line.empty()) {
            open = false;
            continue;
        }
        if (line[0] == '#') continue;
        if (line[0] == '[') {
            if (line.back() != ']') fail(at_line(path, n + 1), "unterminated header");
            std::string_view inner = line.substr(1, line.size() - 2);
            std::string key, value;
            if (!split_key_value(inner, key, value)) key = std::string(trim(inner));
            headers[key] = value;
            open = false;
            continue;
        }
        std::string key, value;
        if (!split_key_value(line, key, value))
            fail(at_line(path, n + 1), "expected 'Key = value'");
        if (!open) {
            records.emplace_back();
            records.back().file = path;
            records.back().line = n + 1;
            records.back().headers = headers;
            open = true;
        }
        records.back().fields.emplace_back(std::move(key), std::move(value));
    }
    return records;
}

namespace {

// Checks a "[L = ...]" header against the digest length; SHAVS states it in
// bytes and SHA3VS in bits, so either matches.
void check_digest_header(const RspRecord& r, size_t digest_len) {
    auto it = r.headers.find("L");
    if (it == r.headers.end()) return;
    size_t l = parse_size(it->second, r.where());
    if (l != digest_len && l != 8 * digest_len)
        fail(r.where(), "digest length " + std::to_string(digest_len) +
                            " bytes does not match [L = " + it->second + "]");
}

void check_bits(const RspRecord& r, const std::string& value, size_t bytes,
                const std::string& what) {
    if (parse_size(value, r.where()) != 8 * bytes)
        fail(r.where(), what + " = " + value + " bits but " + std::to_string(bytes) +
                            " bytes were given");
}

}  // namespace

std::vector<MsgVector> load_msg_vectors(const std::string& path) {
    std::vector<MsgVector> out;
    for (const RspRecord& r : parse_rsp(path)) {
        const std::string* msg = r.find("Msg");
        if (msg == nullptr) continue;
        MsgVector v;
        v.where = r.where();
        v.msg = from_hex(*msg);
        if (const std::string* len = r.find("Len")) {
            size_t bits = parse_size(*len, v.where);
            if (bits % 8 != 0) fail(v.where, "bit-oriented message in a byte-oriented file");
            // Len = 0 is written "Msg = 00".
            if (bits == 0) v.msg.clear();
            check_bits(r, *len, v.msg.size(), "Len");
        }
        if (const std::string* md = r.find("MD")) {
            v.expected = from_hex(*md);
            check_digest_header(r, v.expected.size());
        } else {
            v.expected = from_hex(r.at("Output"));
            if (const std::string* ol = r.find("Outputlen"))
                check_bits(r, *ol, v.expected.size(), "Outputlen");
            else if (auto it = r.headers.find("Outputlen"); it != r.headers.end())
                check_bits(r, it->second, v.expected.size(), "[Outputlen]");
        }
        out.push_back(std::move(v));
    }
    if (out.empty()) throw std::runtime_error(path + ": no vectors found");
    return out;
}

MonteVectors load_monte(const std::string& path) {
    MonteVectors m;
    m.file = path;
    bool have_seed = false;
    for (const RspRecord& r : parse_rsp(path)) {
        if (const std::string* count = r.find("COUNT")) {
            if (!have_seed) fail(r.where(), "checkpoint before the seed");
            if (parse_size(*count, r.where()) != m.checkpoints.size())
                fail(r.where(), "COUNT out of sequence");
            Bytes cp;
            if (const std::string* md = r.find("MD")) {
                cp = from_hex(*md);
                check_digest_header(r, cp.size());
            } else {
                cp = from_hex(r.at("Output"));
                check_bits(r, r.at("Outputlen"), cp.size(), "Outputlen");
            }
            m.checkpoints.push_back(std::move(cp));
        } else if (const std::string* seed = r.find("Seed")) {
            m.seed = from_hex(*seed);
            have_seed = true;
        } else if (const std::string* msg = r.find("Msg")) {
            m.seed = from_hex(*msg);
            have_seed = true;
            auto lo = r.headers.find("Minimum Output Length (bits)");
            auto hi = r.headers.find("Maximum Output Length (bits)");
            if (lo == r.headers.end() || hi == r.headers.end())
                fail(r.where(), "SHAKE Monte file without output length headers");
            size_t lo_bits = parse_size(lo->second, r.where());
            size_t hi_bits = parse_size(hi->second, r.where());
            if (lo_bits % 8 || hi_bits % 8 || lo_bits == 0 || lo_bits > hi_bits)
                fail(r.where(), "unusable output length range");
            m.min_out_len = lo_bits / 8;
            m.max_out_len = hi_bits / 8;
        }
    }
    if (!have_seed || m.checkpoints.empty())
        throw std::runtime_error(path + ": not a Monte file");
    return m;
}

std::vector<Bytes> monte_sha2(const Bytes& seed_in, size_t digest_len, size_t count,
                              const HashFn& hash) {
    if (seed_in.size() != digest_len) throw std::invalid_argument("seed length != digest length");
    std::vector<Bytes> checkpoints;
    Bytes seed = seed_in;
    // window = MD[i-3] || MD[i-2] || MD[i-1], slid by one digest per step.
    Bytes window(3 * digest_len);
    Bytes md(digest_len);
    for (size_t j = 0; j < count; ++j) {
        for (size_t k = 0; k < 3; ++k)
            std::memcpy(window.data() + k * digest_len, seed.data(), digest_len);
        for (int i = 3; i <= 1002; ++i) {
            hash(window.data(), window.size(), md.data(), digest_len);
            std::memmove(window.data(), window.data() + digest_len, 2 * digest_len);
            std::memcpy(window.data() + 2 * digest_len, md.data(), digest_len);
        }
        seed = md;
        checkpoints.push_back(md);
    }
    return checkpoints;
}

std::vector<Bytes> monte_sha3(const Bytes& seed, size_t digest_len, size_t count,
                              const HashFn& hash) {
    if (seed.size() != digest_len) throw std::invalid_argument("seed length != digest length");
    std::vector<Bytes> checkpoints;
    Bytes md = seed, next(digest_len);
    for (size_t j = 0; j < count; ++j) {
        for (int i = 1; i <= 1000; ++i) {
            hash(md.data(), md.size(), next.data(), digest_len);
            md.swap(next);
        }
        checkpoints.push_back(md);
    }
    return checkpoints;
}

std::vector<Bytes> monte_shake(const Bytes& msg, size_t min_out_len, size_t max_out_len,
                               size_t count, const HashFn& hash) {
    if (min_out_len == 0 || min_out_len > max_out_len || max_out_len > 0xffff + min_out_len)
        throw std::invalid_argument("bad SHAKE Monte output range");
    const size_t range = max_out_len - min_out_len + 1;
    std::vector<Bytes> checkpoints;
    Bytes output = msg;
    size_t out_len = max_out_len;
    Bytes next(max_out_len);
    for (size_t j = 0; j < count; ++j) {
        for (int i = 1; i <= 1000; ++i) {
            uint8_t in[16] = {};  // leftmost 128 bits, zero-padded
            std::memcpy(in, output.data(), output.size() < 16 ? output.size() : 16);
            next.resize(out_len);
            hash(in, sizeof in, next.data(), out_len);
            output.swap(next);
            // out_len >= min_out_len >= 1; a 1-byte output gives 8 bits only.
            unsigned rightmost = output.back();
            if (output.size() >= 2) rightmost |= unsigned{output[output.size() - 2]} << 8;
            out_len = min_out_len + rightmost % range;
        }
        checkpoints.push_back(output);
    }
    return checkpoints;
}

// ---------------------------------------------------------------- OpenSSL evp_test

size_t EvpDigestTest::total_input_length() const {
    size_t n = 0;
    for (const EvpInput& in : inputs) n += in.data.size() * in.count;
    return n;
}

Bytes parse_evp_value(std::string_view value) {
    if (value.empty()) return {};
    if (value.front() == '"') {
        if (value.size() < 2 || value.back() != '"')
            throw std::runtime_error("unterminated string literal");
        std::string_view s = value.substr(1, value.size() - 2);
        Bytes out;
        for (size_t i = 0; i < s.size(); ++i) {
            if (s[i] != '\\') {
                out.push_back(static_cast<uint8_t>(s[i]));
                continue;
            }
            // evp_test.c knows only \n.
            if (i + 1 == s.size() || s[i + 1] != 'n')
                throw std::runtime_error("bad escape sequence in string literal");
            out.push_back('\n');
            ++i;
        }
        return out;
    }
    std::string hex;
    for (char c : value)
        if (c != ':') hex.push_back(c);
    return from_hex(hex);
}

namespace {

// One "Key = value" line of an evp_test file.
struct StanzaLine {
    std::string key, value, where;
};

// A group of lines; the first names its type ("Digest = SHA1").
struct Stanza {
    std::string title;  // latest "Title =" before it, if any
    std::vector<StanzaLine> lines;
};

// OpenSSL's evp_test files: groups of "Key = value" lines separated by blank
// lines, '#' comments; a "Title = ..." line outside a group names the groups
// after it.
std::vector<Stanza> read_evp_stanzas(const std::string& path) {
    std::vector<std::string> lines = read_lines(path);
    std::vector<Stanza> stanzas;
    std::string title;
    bool open = false;  // a group is being filled
    for (size_t n = 0; n < lines.size(); ++n) {
        std::string_view line = trim(lines[n]);
        const std::string where = at_line(path, n + 1);
        if (line.empty()) {
            open = false;
            continue;
        }
        if (line[0] == '#') continue;
        std::string key, value;
        if (!split_key_value(line, key, value)) fail(where, "expected 'Key = value'");
        if (!open && key == "Title") {
            title = value;
            continue;
        }
        if (!open) {
            stanzas.push_back({title, {}});
            open = true;
        }
        stanzas.back().lines.push_back({std::move(key), std::move(value), where});
    }
    return stanzas;
}

// Runs f, giving an error from the value decoders (which know no position)
// the position `where` in `path`.
template <class F>
void at_position(const std::string& path, const std::string& where, F&& f) {
    try {
        f();
    } catch (const std::runtime_error& e) {
        if (std::string(e.what()).rfind(path, 0) == 0) throw;
        fail(where, e.what());
    }
}

}  // namespace

std::vector<EvpDigestTest> load_evp_digest_tests(const std::string& path) {
    std::vector<EvpDigestTest> tests;
    for (const Stanza& s : read_evp_stanzas(path)) {
        if (s.lines.front().key != "Digest") continue;
        EvpDigestTest t;
        t.where = s.lines.front().where;
        t.title = s.title;
        t.digest = s.lines.front().value;
        for (size_t i = 1; i < s.lines.size(); ++i) {
            const StanzaLine& l = s.lines[i];
            at_position(path, l.where, [&] {
                if (l.key == "Input") {
                    t.inputs.push_back({parse_evp_value(l.value), 1});
                } else if (l.key == "Output") {
                    t.output = parse_evp_value(l.value);
                } else if (l.key == "Ncopy" || l.key == "Count") {
                    if (t.inputs.empty()) fail(l.where, l.key + " before any Input");
                    size_t k = parse_size(l.value, l.where);
                    if (k == 0) fail(l.where, l.key + " must be positive");
                    EvpInput& last = t.inputs.back();
                    if (l.key == "Count") {
                        if (last.count != 1) fail(l.where, "Count given twice for one Input");
                        last.count = k;
                    } else {
                        Bytes copies;
                        copies.reserve(last.data.size() * k);
                        for (size_t j = 0; j < k; ++j)
                            copies.insert(copies.end(), last.data.begin(), last.data.end());
                        last.data.swap(copies);
                    }
                } else {
                    t.other.emplace_back(l.key, l.value);
                }
            });
        }
        tests.push_back(std::move(t));
    }
    if (tests.empty()) throw std::runtime_error(path + ": no Digest stanzas found");
    return tests;
}

// ---------------------------------------------------------------- cipher known answers

namespace {

// A cipher test from its "name = value" fields: Key, IV, Plaintext and
// Ciphertext in any case, each at most once, all but IV required; any other
// name is kept in `other`. `decode` reads a value.
CipherVector make_cipher_vector(const std::string& path, const std::string& where,
                                const std::string& cipher, const std::vector<StanzaLine>& fields,
                                Bytes (*decode)(std::string_view)) {
    CipherVector v;
    v.where = where;
    v.cipher = cipher;
    std::set<std::string> seen;  // upper-cased names
    for (const StanzaLine& f : fields) {
        Bytes* field = iequals(f.key, "Key")          ? &v.key
                       : iequals(f.key, "IV")         ? &v.iv
                       : iequals(f.key, "Plaintext")  ? &v.plaintext
                       : iequals(f.key, "Ciphertext") ? &v.ciphertext
                                                      : nullptr;
        if (field == nullptr) {
            v.other.emplace_back(f.key, f.value);
            continue;
        }
        std::string name;
        for (char c : f.key) name.push_back(static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c));
        if (!seen.insert(name).second) fail(f.where, f.key + " given twice");
        at_position(path, f.where, [&] { *field = decode(f.value); });
    }
    for (const char* need : {"KEY", "PLAINTEXT", "CIPHERTEXT"})
        if (seen.count(need) == 0) fail(where, std::string("missing ") + need);
    return v;
}

Bytes decode_hex(std::string_view s) { return from_hex(s); }

}  // namespace

std::vector<CipherVector> load_rsp_cipher_vectors(const std::string& path) {
    std::vector<CipherVector> out;
    for (const RspRecord& r : parse_rsp(path)) {
        std::vector<StanzaLine> fields;  // an .rsp record knows only its first line
        for (const auto& kv : r.fields)
            if (!iequals(kv.first, "COUNT")) fields.push_back({kv.first, kv.second, r.where()});
        out.push_back(make_cipher_vector(path, r.where(), "", fields, decode_hex));
    }
    if (out.empty()) throw std::runtime_error(path + ": no vectors found");
    return out;
}

std::vector<CipherVector> load_evp_cipher_tests(const std::string& path) {
    std::vector<CipherVector> tests;
    for (const Stanza& s : read_evp_stanzas(path)) {
        const StanzaLine& head = s.lines.front();
        if (head.key != "Cipher") continue;
        const std::vector<StanzaLine> fields(s.lines.begin() + 1, s.lines.end());
        tests.push_back(make_cipher_vector(path, head.where, head.value, fields, parse_evp_value));
    }
    if (tests.empty()) throw std::runtime_error(path + ": no Cipher stanzas found");
    return tests;
}

// ---------------------------------------------------------------- PRNG

size_t Lcg::length(size_t max) {
    size_t len;
    switch (next32() % 3) {
    case 0:
        len = next32() % 128;
        break;
    case 1:
        len = next32() % 3072;
        break;
    default:
        len = next32();
        break;
    }
    return len % (max + 1);
}

Bytes lcg_bytes_seeded_from_len(size_t len) {
    Lcg rng(len);
    return rng.bytes(len);
}

}  // namespace hwaccel::test
