import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Child } from 'hono/jsx';
import { HtmlEscapedCallbackPhase, resolveCallback } from 'hono/utils/html';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Principal } from '../services/auth.js';
import type { ConsoleSession } from '../services/console-sessions.js';
import type { ConsoleEnv } from './console-deps.js';

/**
 * Answers a console page: the doctype, then the page. The body is handed over as a plain string:
 * @hono/node-server writes one at once, while the String object JSX renders to would make it
 * build a full Response and stream the page through it (about twice the CPU of a large page).
 */
export async function render(
  c: Context<ConsoleEnv>,
  page: Child,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  const text = await resolveCallback(await html`<!doctype html>${page}`, HtmlEscapedCallbackPhase.Stringify, false, {});
  return c.html(String(text), status);
}

/** Thrown where a page needs a session the request does not have: answered by the sign-in page (see mount.ts). */
export class SignInNeeded extends Error {
  constructor() {
    super('sign in to the console');
  }
}

/** Thrown where a page is for the other kind of session (the operator view, or an account's pages). */
export class WrongSession extends Error {}

/** The request's session; SignInNeeded without one. */
export function sessionOf(c: Context<ConsoleEnv>): ConsoleSession {
  const session = c.get('session');
  if (!session) throw new SignInNeeded();
  return session;
}

/** A session that acts for one account (every page but the operator view). */
export type AccountSession = ConsoleSession & { accountId: string };

/** The session of an account (every page but the operator view). */
export function accountSession(c: Context<ConsoleEnv>): AccountSession {
  const session = sessionOf(c);
  if (session.accountId === null)
    throw new WrongSession(
      'this is the operator session: account pages need an account session (imgtask console --account NAME)',
    );
  return session as AccountSession;
}

/** The operator session (the operator view). */
export function operatorSession(c: Context<ConsoleEnv>): ConsoleSession {
  const session = sessionOf(c);
  if (session.accountId !== null)
    throw new WrongSession('the operator view needs the operator session (imgtask console --operator)');
  return session;
}

/**
 * The principal the services see for a console action: the account holder, as an OAuth access
 * token with the session's scopes would be, so every scope, limit and money rule of the API applies.
 */
export const principalOf = (session: ConsoleSession & { accountId: string }): Principal => ({
  kind: 'accessToken',
  accountId: session.accountId,
  scopes: session.scopes,
});

/** A form post's fields, as text (a repeated field keeps its last value; `all` of `readFormAll` keeps every one). */
export async function readForm(c: Context<ConsoleEnv>): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(body)) if (typeof value === 'string') out[name] = value;
  return out;
}

/** A form post's fields, each as the list of its values (checkbox groups). */
export async function readFormAll(c: Context<ConsoleEnv>): Promise<Record<string, string[]>> {
  const body = await c.req.parseBody({ all: true });
  const out: Record<string, string[]> = Object.create(null);
  for (const [name, value] of Object.entries(body)) {
    const values = Array.isArray(value) ? value : [value];
    out[name] = values.filter((v): v is string => typeof v === 'string');
  }
  return out;
}

/** After a successful post: 303 to a page (the browser then GETs it; a reload does not post again). */
export const seeOther = (c: Context<ConsoleEnv>, path: string): Response => c.redirect(path, 303);
