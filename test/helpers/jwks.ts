import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/**
 * An external token issuer for tests: a real HTTP server answering its JWKS (one RS256 key,
 * kid k1), and `sign`, which makes tokens of `issuer` for the audience `imgtask`, valid 5 minutes.
 */
export async function startJwksIssuer(
  t: TestContext,
): Promise<{ jwksUrl: string; sign(claims: Record<string, unknown>, issuer?: string): Promise<string> }> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const jwks = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => jwks.close(resolve)));
  return {
    jwksUrl: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`,
    sign: (claims, issuer = 'https://id.example') =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(issuer)
        .setAudience('imgtask')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey),
  };
}
