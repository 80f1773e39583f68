#include "property_name.hpp"

namespace hwaccel {
namespace {

// OpenSSL's property parser keeps at most 999 characters of a value.
constexpr size_t kMaxValue = 999;

bool ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// What property_parse.c's parse_unquoted takes whole: a letter first, then
// printable ASCII other than space and comma.
bool unquoted_value(const std::string& s) {
    if (s.empty() || !ascii_alpha(s[0])) return false;
    for (char c : s)
        if (c <= ' ' || c > '~' || c == ',') return false;
    return true;
}

}  // namespace

std::string provider_property(std::string name) {
    const size_t slash = name.rfind('/');
    if (slash != std::string::npos) {
        name.erase(0, slash + 1);
        const std::string so = ".so";
        if (name.size() > so.size() && name.compare(name.size() - so.size(), so.size(), so) == 0)
            name.resize(name.size() - so.size());
    }
    if (!name.empty() && name.size() <= kMaxValue) {
        if (unquoted_value(name)) return "provider=" + name;
        for (char quote : {'\'', '"'})
            if (name.find(quote) == std::string::npos) return "provider=" + (quote + name + quote);
    }
    return "provider=hwaccel";
}

}  // namespace hwaccel
