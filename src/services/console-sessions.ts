import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { AppError } from '../domain/errors.js';
import { randomBase62, randomId } from '../domain/ids.js';
import { ALL_SCOPES } from '../domain/scopes.js';
import type { ConsoleSessionRecord } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import type { AuthService } from './auth.js';
import type { Clock } from './ports.js';

/** A printed sign-in link lasts ten minutes and opens one session. */
export const LINK_LIFETIME_MS = 10 * 60 * 1000;
const LINK_PREFIX = 'csl_';
const SESSION_PREFIX = 'css_';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const iso = (millis: number): string => new Date(millis).toISOString();

/** Only a path inside the console is a place to go after sign-in (never another host: no open redirect). */
export function safeNext(next: string | undefined): string {
  if (
    !next ||
    !/^\/console(\/[A-Za-z0-9._~\-/]*)?(\?[A-Za-z0-9._~\-=&%+]*)?$/.test(next) ||
    next.includes('//') ||
    /(^|\/)\.\.?(\/|$|\?)/.test(next)
  )
    return '/console';
  return next;
}

/** A live session as the console sees it. */
export interface ConsoleSession {
  id: string;
  /** null: the operator view. */
  accountId: string | null;
  scopes: string[];
  expiresAt: string;
  /**
   * The token of the session's forms (CSRF): derived from the cookie's secret, so a page of another site cannot know
   * it.
   */
  csrf: string;
}

/** What `console sessions list` shows of a record: never its hash. */
export interface ConsoleSessionView {
  id: string;
  kind: 'link' | 'session';
  account: string | null;
  via: 'link' | 'token' | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
  userAgent: string | null;
}

export const csrfOf = (secret: string): string => sha256(`csrf:${secret}`).slice(0, 43);

/** The web console's sign-in links and sessions. */
export interface ConsoleSessionService {
  /**
   * A one-time sign-in link for an account (or the operator view: `accountId` null). Answers the code to put in the
   * link.
   */
  issueLink(
    accountId: string | null,
    next?: string,
  ): Promise<{
    code: string;
    path: string;
    expiresAt: string;
  }>;
  /** Uses a link (once) and opens its session; UNAUTHORIZED when the link is unknown, used, revoked or expired. */
  redeemLink(
    code: string,
    userAgent?: string,
  ): Promise<{
    cookie: string;
    session: ConsoleSession;
    next: string;
  }>;
  /**
   * Opens a session from an OAuth access token (ours, or an external issuer's): the token's scopes, never past its
   * expiry.
   */
  signInWithToken(token: string, userAgent?: string): Promise<{ cookie: string; session: ConsoleSession }>;
  /** The live session of a cookie's secret, or undefined (unknown, expired or revoked). */
  resolve(secret: string | undefined): Promise<ConsoleSession | undefined>;
  /** Ends the session of this cookie's secret (sign out). */
  signOut(secret: string | undefined): Promise<void>;
  /** Links and sessions not expired yet, oldest first, with their account's name. */
  list(): Promise<ConsoleSessionView[]>;
  /** Revokes a session or link by id; NOT_FOUND when there is no such live one. */
  revoke(id: string): Promise<{ id: string; revoked: true }>;
}

/**
 * Web console sign-in: one-time links an operator prints, access tokens pasted on the sign-in
 * page, and the sessions both open (a secret in an HttpOnly cookie; only its hash is stored).
 */
export function createConsoleSessionService(deps: {
  store: Store;
  clock: Clock;
  auth: AuthService;
  sessionTtlMs: () => number;
  /** How long an expired session or link is kept (retention.consoleSessions); null: kept (the sweep's to remove). */
  keepExpiredMs?: () => number | null;
}): ConsoleSessionService {
  const { store, clock } = deps;
  /** The account is there and not being erased (or erased). */
  const accountLive = async (accountId: string): Promise<boolean> => {
    const account = await store.accounts.get(accountId);
    return account !== undefined && account.erasingSince === undefined && account.erasedAt === undefined;
  };

  async function open(from: {
    accountId: string | null;
    scopes: string[];
    via: 'link' | 'token';
    userAgent?: string;
    notAfter?: number;
  }): Promise<{ cookie: string; session: ConsoleSession }> {
    const now = clock.now();
    const secret = SESSION_PREFIX + randomBase62(43);
    const expires = Math.min(now + deps.sessionTtlMs(), from.notAfter ?? Number.POSITIVE_INFINITY);
    const record: ConsoleSessionRecord = {
      id: randomId('cs'),
      hash: sha256(secret),
      kind: 'session',
      accountId: from.accountId,
      scopes: from.scopes,
      via: from.via,
      createdAt: iso(now),
      expiresAt: iso(expires),
    };
    if (from.userAgent) record.userAgent = from.userAgent.slice(0, 200);
    await store.consoleSessions.put(record);
    const keep = deps.keepExpiredMs ? deps.keepExpiredMs() : 0;
    if (keep !== null) await store.consoleSessions.purgeExpired(iso(now - keep));
    return {
      cookie: secret,
      session: {
        id: record.id,
        accountId: record.accountId,
        scopes: record.scopes,
        expiresAt: record.expiresAt,
        csrf: csrfOf(secret),
      },
    };
  }

  return {
    /**
     * A one-time sign-in link for an account (or the operator view: `accountId` null). Answers the code to put in the
     * link.
     */
    async issueLink(
      accountId: string | null,
      next?: string,
    ): Promise<{ code: string; path: string; expiresAt: string }> {
      const now = clock.now();
      const code = LINK_PREFIX + randomBase62(43);
      const record: ConsoleSessionRecord = {
        id: randomId('cs'),
        hash: sha256(code),
        kind: 'link',
        accountId,
        scopes: [...ALL_SCOPES],
        next: safeNext(next),
        createdAt: iso(now),
        expiresAt: iso(now + LINK_LIFETIME_MS),
      };
      await store.consoleSessions.put(record);
      return { code, path: `/console/sign-in/${code}`, expiresAt: record.expiresAt };
    },

    /** Uses a link (once) and opens its session; UNAUTHORIZED when the link is unknown, used, revoked or expired. */
    async redeemLink(
      code: string,
      userAgent?: string,
    ): Promise<{ cookie: string; session: ConsoleSession; next: string }> {
      if (!code.startsWith(LINK_PREFIX)) throw new AppError('UNAUTHORIZED', 'this sign-in link is not valid');
      const link = await store.consoleSessions.consume(sha256(code), iso(clock.now()));
      if (!link)
        throw new AppError(
          'UNAUTHORIZED',
          'this sign-in link was already used, has expired or was revoked: print a new one with imgtask console',
        );
      if (link.accountId !== null && !(await accountLive(link.accountId)))
        throw new AppError('UNAUTHORIZED', 'the account of this link is gone');
      const opened = await open({ accountId: link.accountId, scopes: link.scopes, via: 'link', userAgent });
      return { ...opened, next: link.next ?? '/console' };
    },

    /**
     * Opens a session from an OAuth access token (ours, or an external issuer's): the token's scopes, never past its
     * expiry.
     */
    async signInWithToken(token: string, userAgent?: string): Promise<{ cookie: string; session: ConsoleSession }> {
      const trimmed = token.trim();
      if (trimmed.startsWith('mak_') || trimmed.startsWith('pat_'))
        throw new AppError(
          'UNAUTHORIZED',
          'sign in with an OAuth access token (imgtask tokens issue), not an API key or a public access token',
        );
      const principal = await deps.auth.authenticate(`Bearer ${trimmed}`);
      if (principal.kind !== 'accessToken') throw new AppError('UNAUTHORIZED', 'sign in with an OAuth access token');
      const exp = decodeJwt(trimmed).exp;
      return open({
        accountId: principal.accountId,
        scopes: principal.scopes,
        via: 'token',
        userAgent,
        notAfter: exp === undefined ? undefined : exp * 1000,
      });
    },

    /** The live session of a cookie's secret, or undefined (unknown, expired or revoked). */
    async resolve(secret: string | undefined): Promise<ConsoleSession | undefined> {
      if (!secret?.startsWith(SESSION_PREFIX) || secret.length > 100) return undefined;
      const record = await store.consoleSessions.getByHash(sha256(secret));
      if (record?.kind !== 'session' || record.revokedAt || record.expiresAt <= iso(clock.now())) return undefined;
      // A session opened as its account's erase began outlives the erase's deletion of sessions: it ends with the
      // account.
      if (record.accountId !== null && !(await accountLive(record.accountId))) return undefined;
      return {
        id: record.id,
        accountId: record.accountId,
        scopes: record.scopes,
        expiresAt: record.expiresAt,
        csrf: csrfOf(secret),
      };
    },

    /** Ends the session of this cookie's secret (sign out). */
    async signOut(secret: string | undefined): Promise<void> {
      const session = await this.resolve(secret);
      if (session) await store.consoleSessions.revoke(session.id, iso(clock.now()));
    },

    /** Links and sessions not expired yet, oldest first, with their account's name. */
    async list(): Promise<ConsoleSessionView[]> {
      const records = await store.consoleSessions.list(iso(clock.now()));
      const names = new Map((await store.accounts.list()).map((account) => [account.id, account.name]));
      return records.map((r) => ({
        id: r.id,
        kind: r.kind,
        account: r.accountId === null ? null : (names.get(r.accountId) ?? r.accountId),
        via: r.via ?? null,
        createdAt: r.createdAt,
        expiresAt: r.expiresAt,
        usedAt: r.usedAt ?? null,
        revokedAt: r.revokedAt ?? null,
        userAgent: r.userAgent ?? null,
      }));
    },

    /** Revokes a session or link by id; NOT_FOUND when there is no such live one. */
    async revoke(id: string): Promise<{ id: string; revoked: true }> {
      const done = await store.consoleSessions.revoke(id, iso(clock.now()));
      if (!done) throw new AppError('NOT_FOUND', `no console session or link "${id}" to revoke`);
      return { id, revoked: true };
    },
  };
}
