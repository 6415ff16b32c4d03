import { timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { clientAddress as clientAddressOf } from '../domain/client-address.js';
import type { ConsoleEnv } from './console-deps.js';

/**
 * No inline script or style, nothing from another host: every script and stylesheet is a file
 * of ours under /console/assets; images and videos come from this server (thumbnails, /images,
 * /videos) or are drawn by a script (data:, blob:). Forms post only here; no page frames ours.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Headers every console answer carries, pages and assets alike. */
export function securityHeaders(): MiddlewareHandler<ConsoleEnv> {
  return async function securityHeaders(c, next) {
    await next();
    c.res.headers.set('content-security-policy', CONTENT_SECURITY_POLICY);
    c.res.headers.set('x-content-type-options', 'nosniff');
    c.res.headers.set('x-frame-options', 'DENY');
    c.res.headers.set('referrer-policy', 'same-origin');
    c.res.headers.set('cross-origin-opener-policy', 'same-origin');
    c.res.headers.set('cross-origin-resource-policy', 'same-origin');
    if (!c.res.headers.has('cache-control')) c.res.headers.set('cache-control', 'no-store');
  };
}

/** The origin the browser addressed: the public URL's when one is set, else this request's own. */
export function requestOrigin(c: Context, publicUrl: string | null): string {
  if (publicUrl) return new URL(publicUrl).origin;
  return new URL(c.req.url).origin;
}

/**
 * Whether a state-changing request comes from a page of this origin: its Origin header names
 * it, or (a browser that sends none) Sec-Fetch-Site says same-origin. A form of another site
 * posting here fails both.
 */
export function fromOwnOrigin(c: Context<ConsoleEnv>): boolean {
  const origin = c.req.header('origin');
  if (origin !== undefined) return origin === c.var.origin || origin === new URL(c.req.url).origin;
  return c.req.header('sec-fetch-site') === 'same-origin';
}

/** Compares two secrets in time that does not depend on where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Clients whose window is kept at most (about 1 MB). */
const MAX_CLIENTS = 10_000;

/**
 * Counts attempts per client in fixed one-minute windows (sign-in links and pasted tokens):
 * past `perMinute`, `take` answers the seconds to wait. In memory, per process: it slows a
 * guesser down; the secrets themselves (256 random bits) are what cannot be guessed.
 */
export function createAttemptLimiter(perMinute: number, now: () => number = Date.now) {
  /** Per client, in the order their window began (a new window goes to the end): the oldest first. */
  const windows = new Map<string, { start: number; count: number }>();
  /**
   * Makes room: windows of past minutes go; if this minute's clients still fill it, its oldest tenth (never all, which
   * would forgive everyone).
   */
  const evict = (current: number) => {
    for (const [client, window] of windows) if (window.start !== current) windows.delete(client);
    let extra = windows.size - MAX_CLIENTS * 0.9;
    for (const client of windows.keys()) {
      if (extra-- <= 0) break;
      windows.delete(client);
    }
  };
  return {
    take(client: string): number | null {
      const t = now();
      const start = t - (t % 60_000);
      let window = windows.get(client);
      if (!window || window.start !== start) {
        windows.delete(client);
        if (windows.size >= MAX_CLIENTS) evict(start);
        window = { start, count: 0 };
        windows.set(client, window);
      }
      window.count += 1;
      return window.count > perMinute ? Math.ceil((start + 60_000 - t) / 1000) : null;
    },
  };
}

/**
 * Who is asking, for the attempt limiter: the peer's address, or behind a trusted proxy the client it forwards for
 * (`server.trustedProxies`).
 */
export function clientAddress(c: Context<ConsoleEnv>, trustedProxies: readonly string[]): string {
  return clientAddressOf(c.env?.incoming?.socket?.remoteAddress, c.req.header('x-forwarded-for'), trustedProxies);
}
