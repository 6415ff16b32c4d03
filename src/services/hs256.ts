import { createHmac } from 'node:crypto';

// The protected header every token signed here carries, encoded once.
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * Signs claims as a compact HS256 JWT (RFC 7515/7519) in one synchronous HMAC: minting a PAT
 * on every create no longer pays a WebCrypto round trip through the thread pool. Verification
 * stays with jose, which checks these like any other JWT.
 */
export function signHs256(claims: Record<string, unknown>, key: Uint8Array): string {
  const signingInput = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${signingInput}.${createHmac('sha256', key).update(signingInput).digest('base64url')}`;
}
