/**
 * The private key of a signing certificate as a KeyObject, parsed once per PEM.
 *
 * Why: Node (20.20 reproduces it) leaves OpenSSL's per-thread error queue dirty when a TLS
 * client is given a server name OpenSSL refuses (empty or over 255 bytes: `tls.connect`
 * ignores SSL_set_tlsext_host_name's failure). The next crypto call that parses a PEM in that
 * thread then fails with that stale error — `error:0A00013F:SSL routines::ssl3 ext invalid
 * servername` from `createSign().sign(pem)` in the WS-Security or XAdES signature — although
 * nothing is wrong with the key. Signing with an already-parsed KeyObject does not parse and is
 * not affected (docs/dian.md, "Signing and OpenSSL's error queue").
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';

const MAX_CACHED_KEYS = 256;
const keys = new Map<string, KeyObject>();

/** An SSL-library error can only be a stale entry left by a TLS call: parsing a key never raises one. */
function isStaleTlsError(error: unknown): boolean {
  return error instanceof Error && /SSL routines/.test(error.message);
}

export function signingKey(privateKeyPem: string): KeyObject {
  let key = keys.get(privateKeyPem);
  if (key) return key;
  try {
    key = createPrivateKey(privateKeyPem);
  } catch (error) {
    // The failed parse consumed the stale entry: a second parse reads the key itself.
    if (!isStaleTlsError(error)) throw error;
    key = createPrivateKey(privateKeyPem);
  }
  if (keys.size >= MAX_CACHED_KEYS) keys.delete(keys.keys().next().value!);
  keys.set(privateKeyPem, key);
  return key;
}
