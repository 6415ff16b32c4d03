import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { ConsoleDeps, ConsoleEnv } from './console-deps.js';
import { requestOrigin } from './security.js';

/** The session cookie: HttpOnly, SameSite=Strict, only under /console, Secure when the public URL is https. */
export const SESSION_COOKIE = 'imgtask_console';

const secureFor = (deps: ConsoleDeps): boolean => deps.config.current().publicUrl?.startsWith('https:') ?? false;

/** Loads the request's session (when its cookie names a live one) and its origin into the context. */
export function loadSession(deps: ConsoleDeps): MiddlewareHandler<ConsoleEnv> {
  return async function loadSession(c, next) {
    c.set('origin', requestOrigin(c, deps.config.current().publicUrl));
    const session = await deps.consoleSessions.resolve(getCookie(c, SESSION_COOKIE));
    if (session) c.set('session', session);
    await next();
  };
}

export function setSessionCookie(c: Context<ConsoleEnv>, deps: ConsoleDeps, secret: string, expiresAt: string): void {
  setCookie(c, SESSION_COOKIE, secret, {
    path: '/console',
    httpOnly: true,
    sameSite: 'Strict',
    secure: secureFor(deps),
    expires: new Date(expiresAt),
  });
}

export function clearSessionCookie(c: Context<ConsoleEnv>, deps: ConsoleDeps): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/console', httpOnly: true, sameSite: 'Strict', secure: secureFor(deps) });
}

export const sessionSecret = (c: Context<ConsoleEnv>): string | undefined => getCookie(c, SESSION_COOKIE);
