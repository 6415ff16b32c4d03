import { webcrypto } from 'node:crypto';
import { createRemoteJWKSet, type JWTPayload, errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { ConfigSource } from '../config/source.js';
import { AppError } from '../domain/errors.js';
import { randomId } from '../domain/ids.js';
import { DEFAULT_TOKEN_SCOPES, isScope } from '../domain/scopes.js';
import { isoTime } from '../domain/time.js';
import { signHs256 } from './hs256.js';
import type { Clock } from './ports.js';

const ISSUER = 'imgtask';
const ACCESS_AUDIENCE = 'imgtask-api';
const PAT_AUDIENCE = 'imgtask-pat';
export const PAT_PREFIX = 'pat_';
/** A PAT is valid for one hour (docs/api/tasks.md). */
const PAT_LIFETIME_MS = 60 * 60 * 1000;

export interface AccessTokenClaims {
  /** The account id, or for an external issuer the claim that names the account (id or name). */
  account: string;
  scopes: string[];
  external: boolean;
}

export interface PatClaims {
  accountId: string;
  taskId: string;
}

const scopesOf = (payload: JWTPayload): string[] => {
  const raw =
    typeof payload.scope === 'string' ? payload.scope.split(' ') : Array.isArray(payload.scp) ? payload.scp : [];
  return raw.filter((scope): scope is string => typeof scope === 'string' && isScope(scope));
};

/** OAuth access tokens and Public Access Tokens (PATs): issue and verify. */
export interface TokenService {
  /** A signed access token for an account, with its scopes, for `ttlMs`. */
  issueAccessToken(
    accountId: string,
    scopes: readonly string[] | undefined,
    ttlMs: number,
  ): Promise<{ accessToken: string; expiresAt: string }>;
  /** Verifies an access token; any failure is 401 UNAUTHORIZED (the PAT codes are for PATs). */
  verifyAccessToken(token: string): Promise<AccessTokenClaims>;
  /** A Public Access Token (PAT) for one task of the account. */
  issuePat(accountId: string, taskId: string): Promise<string>;
  /** 401 INVALID_TOKEN when malformed or not signed here; 401 TOKEN_EXPIRED after an hour. */
  verifyPat(token: string): Promise<PatClaims>;
}

/**
 * OAuth access tokens and Public Access Tokens: HS256 JWTs signed with the server's key.
 * Both verify against the injected clock, so expiry is testable without sleeping.
 */
export function createTokenService(options: {
  signingKey: Uint8Array;
  clock: Clock;
  config: Pick<ConfigSource, 'current'>;
}): TokenService {
  const { clock } = options;
  const signingKeyBytes = new Uint8Array(options.signingKey);
  // jose turns raw key bytes into a CryptoKey on every sign and verify; importing once saves that.
  const signingKey: Promise<webcrypto.CryptoKey> = webcrypto.subtle.importKey(
    'raw',
    new Uint8Array(options.signingKey),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
  // The external issuer's key set, kept while its jwksUrl stays the same (jose caches the keys).
  let jwksFor: { url: string; keys: ReturnType<typeof createRemoteJWKSet> } | null = null;
  const externalIssuer = () => {
    const issuer = options.config.current().auth.externalIssuer;
    if (!issuer) return null;
    if (jwksFor?.url !== issuer.jwksUrl)
      jwksFor = { url: issuer.jwksUrl, keys: createRemoteJWKSet(new URL(issuer.jwksUrl)) };
    return { issuer, jwks: jwksFor.keys };
  };
  const seconds = (ms: number) => Math.floor(ms / 1000);

  async function verifyOwn(token: string, audience: string) {
    return jwtVerify(token, await signingKey, {
      issuer: ISSUER,
      audience,
      algorithms: ['HS256'],
      currentDate: new Date(clock.now()),
    });
  }

  return {
    async issueAccessToken(
      accountId: string,
      scopes: readonly string[] = DEFAULT_TOKEN_SCOPES,
      ttlMs: number,
    ): Promise<{ accessToken: string; expiresAt: string }> {
      const now = clock.now();
      const accessToken = await new SignJWT({ scope: scopes.join(' ') })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(ISSUER)
        .setAudience(ACCESS_AUDIENCE)
        .setSubject(accountId)
        .setJti(randomId('tok'))
        .setIssuedAt(seconds(now))
        .setExpirationTime(seconds(now + ttlMs))
        .sign(await signingKey);
      return { accessToken, expiresAt: isoTime(seconds(now + ttlMs) * 1000) };
    },

    /** Verifies an access token; any failure is 401 UNAUTHORIZED (the PAT codes are for PATs). */
    async verifyAccessToken(token: string): Promise<AccessTokenClaims> {
      try {
        const { payload } = await verifyOwn(token, ACCESS_AUDIENCE);
        if (typeof payload.sub !== 'string') throw new Error('no subject');
        return { account: payload.sub, scopes: scopesOf(payload), external: false };
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) throw new AppError('UNAUTHORIZED', 'the access token has expired');
      }
      const trusted = externalIssuer();
      if (!trusted) throw new AppError('UNAUTHORIZED', 'the access token is not valid');
      const { issuer: external, jwks } = trusted;
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: external.issuer,
          audience: external.audience,
          currentDate: new Date(clock.now()),
        });
        const account = payload[external.accountClaim];
        if (typeof account !== 'string' || account === '') throw new Error(`no ${external.accountClaim} claim`);
        return { account, scopes: scopesOf(payload), external: true };
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) throw new AppError('UNAUTHORIZED', 'the access token has expired');
        throw new AppError('UNAUTHORIZED', 'the access token is not valid');
      }
    },

    async issuePat(accountId: string, taskId: string): Promise<string> {
      const now = clock.now();
      const claims = {
        tid: taskId,
        iss: ISSUER,
        aud: PAT_AUDIENCE,
        sub: accountId,
        iat: seconds(now),
        exp: seconds(now + PAT_LIFETIME_MS),
      };
      return `${PAT_PREFIX}${signHs256(claims, signingKeyBytes)}`;
    },

    /** 401 INVALID_TOKEN when malformed or not signed here; 401 TOKEN_EXPIRED after an hour. */
    async verifyPat(token: string): Promise<PatClaims> {
      if (!token.startsWith(PAT_PREFIX)) throw new AppError('INVALID_TOKEN');
      try {
        const { payload } = await verifyOwn(token.slice(PAT_PREFIX.length), PAT_AUDIENCE);
        if (typeof payload.sub !== 'string' || typeof payload.tid !== 'string') throw new AppError('INVALID_TOKEN');
        return { accountId: payload.sub, taskId: payload.tid };
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) throw new AppError('TOKEN_EXPIRED');
        throw new AppError('INVALID_TOKEN');
      }
    },
  };
}
