// Algorithm names, aliases and OIDs exactly as OpenSSL's default provider
// registers them (openssl-3.0 providers/implementations/include/prov/names.h),
// so EVP_sha256()-style code and `openssl dgst -sha256` reach us.
#pragma once

namespace hwaccel::names {

inline constexpr const char kSha1[] = "SHA1:SHA-1:SSL3-SHA1:1.3.14.3.2.26";
inline constexpr const char kSha224[] = "SHA2-224:SHA-224:SHA224:2.16.840.1.101.3.4.2.4";
inline constexpr const char kSha256[] = "SHA2-256:SHA-256:SHA256:2.16.840.1.101.3.4.2.1";
inline constexpr const char kSha3_224[] = "SHA3-224:2.16.840.1.101.3.4.2.7";
inline constexpr const char kSha3_256[] = "SHA3-256:2.16.840.1.101.3.4.2.8";
inline constexpr const char kSha3_384[] = "SHA3-384:2.16.840.1.101.3.4.2.9";
inline constexpr const char kSha3_512[] = "SHA3-512:2.16.840.1.101.3.4.2.10";
inline constexpr const char kShake128[] = "SHAKE-128:SHAKE128:2.16.840.1.101.3.4.2.11";
inline constexpr const char kShake256[] = "SHAKE-256:SHAKE256:2.16.840.1.101.3.4.2.12";

inline constexpr const char kSm4Ecb[] = "SM4-ECB:1.2.156.10197.1.104.1";
inline constexpr const char kSm4Cbc[] = "SM4-CBC:SM4:1.2.156.10197.1.104.2";
inline constexpr const char kSm4Ofb[] = "SM4-OFB:SM4-OFB128:1.2.156.10197.1.104.3";
inline constexpr const char kSm4Cfb[] = "SM4-CFB:SM4-CFB128:1.2.156.10197.1.104.4";
inline constexpr const char kSm4Ctr[] = "SM4-CTR:1.2.156.10197.1.104.7";
inline constexpr const char kSm4Ccm[] = "SM4-CCM:1.2.156.10197.1.104.9";
// OpenSSL 3.6/4.0 (3.0 has no SM4-GCM).
inline constexpr const char kSm4Gcm[] = "SM4-GCM:1.2.156.10197.1.104.8";
inline constexpr const char kSm4Xts[] = "SM4-XTS:1.2.156.10197.1.104.10";

// The opaque SM4 key (EVP_SKEY, OpenSSL 3.5+), under a name of its own. Not
// "SM4": no provider has a key management of that name, so EVP_SKEY_import
// of "SM4" falls back to the default's GENERIC-SECRET, which keys the
// default's SM4 ciphers; a "SM4" of hwaccel's would take those imports over,
// and OpenSSL refuses an hwaccel key for the default's cipher, so loading
// hwaccel would break such a program (and "SM4" alone also collides with
// SM4-CBC's alias in OpenSSL's name map: docs/openssl-versions.md, 3.5).
inline constexpr const char kSm4SecretKey[] = "SM4-SECRET";

}  // namespace hwaccel::names
