"""Makes keys and JWTs for foldsync's tests with an implementation that is
not ours: PyJWT and cryptography (from PyPI, in the test virtualenv that
.ci/run makes). Commands (results on stdout):

  keys DIR                 writes every key pair the tests use into DIR
  sign SPEC_JSON           prints a token (a list of SPECs: one per line); SPEC is {"alg", "key" (a file:
                           secret bytes or a PEM private key), "claims",
                           "headers"?, "raw_claims"? (the payload text,
                           instead of claims, for malformed claims),
                           "der_signature"? (ECDSA: send the DER form),
                           "any_key"? (HS: sign with the file's bytes
                           whatever they are), "life"? (exp is now plus
                           this many seconds)}
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import time

import jwt
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def write_pair(directory: str, name: str, private) -> None:
    with open(os.path.join(directory, name + ".key"), "wb") as f:
        f.write(private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
    with open(os.path.join(directory, name + ".pub"), "wb") as f:
        f.write(private.public_key().public_bytes(serialization.Encoding.PEM,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo))


def keys(directory: str) -> None:
    os.makedirs(directory, exist_ok=True)
    write_pair(directory, "rsa", rsa.generate_private_key(public_exponent=65537, key_size=2048))
    write_pair(directory, "ec256", ec.generate_private_key(ec.SECP256R1()))
    write_pair(directory, "ec384", ec.generate_private_key(ec.SECP384R1()))
    write_pair(directory, "ed25519", ed25519.Ed25519PrivateKey.generate())
    for name, size in (("hs256", 32), ("hs384", 48), ("hs512", 64), ("hs-other", 32)):
        with open(os.path.join(directory, name + ".secret"), "wb") as f:
            f.write(os.urandom(size))
    with open(os.path.join(directory, "short.secret"), "wb") as f:
        f.write(os.urandom(16))


def load_key(path: str, alg: str):
    data = open(path, "rb").read()
    if alg.startswith("HS"):
        return data
    return serialization.load_pem_private_key(data, password=None)


def sign(spec: dict) -> str:
    alg = spec["alg"]
    if "life" in spec:
        spec["claims"]["exp"] = int(time.time() + spec["life"])
    key = load_key(spec["key"], alg)
    headers = spec.get("headers") or {}
    if "raw_claims" not in spec and not spec.get("der_signature") and not spec.get("any_key"):
        return jwt.encode(spec["claims"], key, algorithm=alg, headers=headers)
    # Hand-made: a payload PyJWT would not write (duplicate keys, a string
    # exp) or a DER ECDSA signature; signed with cryptography directly.
    header = {"alg": alg, "typ": "JWT", **headers}
    payload = spec["raw_claims"] if "raw_claims" in spec else json.dumps(spec["claims"])
    signing_input = (b64(json.dumps(header).encode()) + "." + b64(payload.encode())).encode()
    algorithm = jwt.get_algorithm_by_name(alg)
    if alg.startswith("HS"):
        # Any bytes as the secret, a PEM public key too (the HS/RS confusion
        # attack), which PyJWT rightly refuses to sign with.
        digest = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}[alg]
        signature = hmac.new(key, signing_input, digest).digest()
    elif spec.get("der_signature"):
        digest = {"ES256": hashes.SHA256(), "ES384": hashes.SHA384()}[alg]
        signature = key.sign(signing_input, ec.ECDSA(digest))
    else:
        signature = algorithm.sign(signing_input, algorithm.prepare_key(key))
    return signing_input.decode() + "." + b64(signature)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "keys":
        keys(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "sign":
        spec = json.loads(sys.argv[2])
        for one in spec if isinstance(spec, list) else [spec]:
            print(sign(one))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
