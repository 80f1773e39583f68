// The version of the libcrypto we are loaded into (not the headers we were
// built with): behaviour that changed between OpenSSL releases follows the
// running library, as the default provider of that library would behave.
#pragma once

#include <atomic>

namespace hwaccel {

// major * 100 + minor of the running libcrypto; 3.0 until told otherwise.
// One libcrypto per process, so a process-wide value is right; the atomic
// keeps concurrent loads tidy. Read inline: digests ask on every call.
extern std::atomic<int> g_running_openssl_version;

// Records "3.5.7"-style version text from the core's "openssl-version".
void set_running_openssl_version(const char* version);

// OpenSSL 3.0-3.3 give SHAKE a default output length (16/32 bytes); 3.4 and
// later have none (size 0, final refused until xoflen is set).
inline bool shake_has_default_length() { return g_running_openssl_version.load(std::memory_order_relaxed) < 304; }

// OpenSSL 3.6 and later refuse a parameter named twice in one request.
inline bool refuses_repeated_params() { return g_running_openssl_version.load(std::memory_order_relaxed) >= 306; }

// OpenSSL 4.0's SM4-XTS refuses "xts_standard" named twice; 3.6's still
// takes the first (its other ciphers refuse from 3.6 on).
inline bool xts_refuses_repeated_standard() { return g_running_openssl_version.load(std::memory_order_relaxed) >= 400; }
// OpenSSL 3.6 and later answer "encrypt-then-mac" for every cipher.
inline bool has_encrypt_then_mac_param() { return g_running_openssl_version.load(std::memory_order_relaxed) >= 306; }

// OpenSSL 3.6 and later list a cipher's gettable "tls-mac" as an octet
// string; 3.5 and earlier as an octet pointer (what it really is).
inline bool lists_tls_mac_as_octet_string() { return g_running_openssl_version.load(std::memory_order_relaxed) >= 306; }

}  // namespace hwaccel
