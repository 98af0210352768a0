#ifndef FOLDSYNC_CRYPTO_SHIM_H
#define FOLDSYNC_CRYPTO_SHIM_H
// OpenSSL's libcrypto: SHA-256 and the constant-time comparison for token
// hashing; public keys (PEM, DER) and signature verification (EVP_DigestVerify,
// HMAC, RSA-PSS parameters) for JSON Web Tokens. Nothing needs a wrapper:
// Swift sees the functions as they are.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/rsa.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/bn.h>

#endif
