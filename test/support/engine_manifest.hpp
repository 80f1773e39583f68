// The engine manifest: which engines a test run really exercised, and how.
//
// With HWACCEL_ENGINE_MANIFEST naming a file, each suite appends one line per
// engine it has put to work (once per process):
//     family <TAB> engine <TAB> suite <TAB> how <TAB> program
// family as the registry names it (sha1, sha256, sha3, sm4); suite e.g.
// backend, evp, ct-trace, ct-memcheck; how "native", or what
// HWACCEL_ENGINE_MANIFEST_MODELS says for this engine ("phe=PHE SIGILL
// model;cpacf=..." gives "model: PHE SIGILL model"), or else
// HWACCEL_ENGINE_MANIFEST_HOW (e.g. for a whole run under qemu).
// scripts/engine-manifest.py compares the file with the registry's list
// (hwaccel-engines) and fails if an engine this CPU runs missed a suite.
// Header-only, so any test binary can record without another library.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace hwaccel::test {

namespace manifest_detail {

// What HWACCEL_ENGINE_MANIFEST_MODELS says for `engine`, or "".
inline std::string model_of(const std::string& engine) {
    const char* models = std::getenv("HWACCEL_ENGINE_MANIFEST_MODELS");
    if (models == nullptr) return "";
    const std::string all(models);
    size_t pos = 0;
    while (pos <= all.size()) {
        size_t end = all.find(';', pos);
        if (end == std::string::npos) end = all.size();
        const std::string item = all.substr(pos, end - pos);
        const size_t eq = item.find('=');
        if (eq != std::string::npos && item.substr(0, eq) == engine) return item.substr(eq + 1);
        pos = end + 1;
    }
    return "";
}

inline std::string program_name() {
    char buf[256];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "?";
    buf[n] = '\0';
    const char* slash = std::strrchr(buf, '/');
    return slash ? slash + 1 : buf;
}

}  // namespace manifest_detail

// Records that `suite` exercised `engine` of `family`. One write() per line on
// an O_APPEND descriptor, so parallel test processes do not interleave.
inline void record_engine(const std::string& family, const std::string& engine, const std::string& suite) {
    const char* path = std::getenv("HWACCEL_ENGINE_MANIFEST");
    if (path == nullptr || *path == '\0') return;
    static std::mutex mutex;
    static std::set<std::string> done;
    const std::string key = family + '\t' + engine + '\t' + suite;
    std::lock_guard<std::mutex> lock(mutex);
    if (!done.insert(key).second) return;
    std::string how = manifest_detail::model_of(engine);
    if (!how.empty()) how = "model: " + how;
    else if (const char* h = std::getenv("HWACCEL_ENGINE_MANIFEST_HOW"); h && *h) how = h;
    else how = "native";
    const std::string line = key + '\t' + how + '\t' + manifest_detail::program_name() + '\n';
    const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;  // the manifest check then reports the engine as not run
    ssize_t ignored = write(fd, line.data(), line.size());
    (void)ignored;
    close(fd);
}

// The registry's family name for an algorithm name as OpenSSL spells it
// (SHA1, SHA2-256, SHA256, SHA3-512, SHAKE128, SM4-CBC, ...); "" if none.
inline std::string family_of_algorithm(const std::string& name) {
    std::string n;
    for (char c : name) n += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    if (n.rfind("SM4", 0) == 0) return "sm4";
    if (n.find("SHA3") != std::string::npos || n.find("SHAKE") != std::string::npos) return "sha3";
    if (n.find("224") != std::string::npos || n.find("256") != std::string::npos) return "sha256";
    if (n == "SHA1" || n == "SHA-1") return "sha1";
    return "";
}

// Every family whose engine serves the algorithm: SM4-GCM's GHASH runs on
// the ghash family's engine.
inline std::vector<std::string> families_of_algorithm(const std::string& name) {
    std::string n;
    for (char c : name) n += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    std::vector<std::string> out = {family_of_algorithm(name)};
    if (n == "SM4-GCM" || n == "1.2.156.10197.1.104.8") out = {"sm4", "ghash"};
    return out;
}

// Records the engine the provider reports for `family` in its "engines"
// parameter ("sha1=sha-ni,sha256=...,sm4=..."; anything after the engine's
// name is ignored).
inline void record_provider_engine(const std::string& engines_param, const std::string& family,
                                   const std::string& suite) {
    const std::string key = family + "=";
    size_t pos = 0;
    while ((pos = engines_param.find(key, pos)) != std::string::npos) {
        if (pos == 0 || engines_param[pos - 1] == ',' || engines_param[pos - 1] == ' ') {
            size_t end = pos + key.size();
            while (end < engines_param.size() && engines_param[end] != ',' && engines_param[end] != ' ' &&
                   engines_param[end] != '(' && engines_param[end] != ';')
                ++end;
            record_engine(family, engines_param.substr(pos + key.size(), end - pos - key.size()), suite);
            return;
        }
        pos += key.size();
    }
}

}  // namespace hwaccel::test
