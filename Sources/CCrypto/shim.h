#ifndef FOLDSYNC_CRYPTO_SHIM_H
#define FOLDSYNC_CRYPTO_SHIM_H
// OpenSSL's libcrypto, for token hashing (SHA-256) and the constant-time
// comparison. Nothing needs a wrapper: Swift sees EVP_Digest, EVP_sha256 and
// CRYPTO_memcmp as they are.
#include <openssl/crypto.h>
#include <openssl/evp.h>

#endif
