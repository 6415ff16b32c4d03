import assert from 'node:assert/strict';
import { runAdminOp } from '../../src/app/admin/ops.js';
import type { Harness } from './harness.js';

/** An answer of the console, with its HTML text. */
export interface ConsoleResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Where a redirect points (its Location), or null. */
  location: string | null;
}

/**
 * A browser-like client of the console: it keeps the session cookie, and its posts carry the origin and the form token
 * as a console page's would.
 */
export interface ConsoleClient {
  /** The session cookie's value (the secret). */
  cookie: string;
  /** The session's form token, read from the last page that carried one. */
  csrf: string;
  get(path: string, headers?: Record<string, string>): Promise<ConsoleResponse>;
  /** Posts a form (urlencoded), with `_csrf` and Origin added unless given. */
  post(
    path: string,
    fields?: Record<string, string | string[]>,
    headers?: Record<string, string>,
  ): Promise<ConsoleResponse>;
}

async function answer(res: Response): Promise<ConsoleResponse> {
  return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
}

/** A one-time sign-in link, as `imgtask console` prints it. */
export async function consoleLink(
  h: Harness,
  who: { account?: string; operator?: boolean; next?: string } = { account: 'acme' },
): Promise<string> {
  const link = await runAdminOp(h.server.services.admin, 'console.link', who);
  return link.url;
}

/**
 * Follows a one-time link as a browser does: opens its page (which spends nothing), then presses
 * its button, a same-origin POST to the link. Answers the POST's answer.
 */
export async function followLink(url: string, headers: Record<string, string> = {}): Promise<Response> {
  const page = await fetch(url, { redirect: 'manual', headers });
  assert.equal(page.status, 200, `the link opens its sign-in page (got ${page.status})`);
  const action = /<form method="post" action="([^"]+)"/.exec(await page.text())?.[1];
  assert.equal(action, new URL(url).pathname, 'the page posts to the link itself');
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: new URL(url).origin, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: '',
  });
}

/**
 * Signs in through a one-time link (as the account `acme` of the harness by default) and answers a client holding the
 * session.
 */
export async function consoleSignIn(
  h: Harness,
  who: { account?: string; operator?: boolean } = { account: 'acme' },
): Promise<ConsoleClient> {
  const url = await consoleLink(h, who);
  const res = await followLink(url);
  assert.equal(res.status, 303, `the sign-in link answers a redirect (got ${res.status})`);
  const cookie = /imgtask_console=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  assert.ok(cookie, 'the sign-in link sets the session cookie');
  return consoleClient(h, cookie);
}

/** A client sending `cookie` as its console session. */
export function consoleClient(h: Harness, cookie: string): ConsoleClient {
  const client: ConsoleClient = {
    cookie,
    csrf: '',
    async get(path, headers = {}) {
      const res = await answer(
        await fetch(`${h.url}${path}`, {
          redirect: 'manual',
          headers: { cookie: `imgtask_console=${cookie}`, ...headers },
        }),
      );
      const token = /<meta name="csrf-token" content="([^"]+)"/.exec(res.text)?.[1];
      if (token) client.csrf = token;
      return res;
    },
    async post(path, fields = {}, headers = {}) {
      if (!client.csrf) await client.get('/console');
      const form = new URLSearchParams();
      if (!('_csrf' in fields)) form.append('_csrf', client.csrf);
      for (const [name, value] of Object.entries(fields))
        for (const v of Array.isArray(value) ? value : [value]) form.append(name, v);
      const res = await fetch(`${h.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          cookie: `imgtask_console=${cookie}`,
          origin: new URL(h.url).origin,
          'content-type': 'application/x-www-form-urlencoded',
          ...headers,
        },
        body: form.toString(),
      });
      return answer(res);
    },
  };
  return client;
}
