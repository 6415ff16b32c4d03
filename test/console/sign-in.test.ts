import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAdminOp } from '../../src/app/admin/ops.js';
import { consoleClient, consoleLink, consoleSignIn, followLink } from '../helpers/console.js';
import { startService } from '../helpers/harness.js';
import { startJwksIssuer } from '../helpers/jwks.js';
import { ManualClock } from '../helpers/manual-clock.js';

/** Every page the console has: none may show anything without a session. */
const PAGES = [
  '/console',
  '/console/tasks',
  '/console/tasks/tsk_0000000000000000000000000',
  '/console/gallery',
  '/console/playground',
  '/console/keys',
  '/console/webhooks',
  '/console/destinations',
  '/console/usage',
  '/console/operator',
];

const cookieOf = (res: Response): string | undefined =>
  /imgtask_console=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];

/** Posts the sign-in form with a pasted token, as the sign-in page does. */
const postToken = (url: string, token: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: new URL(url).origin, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ token, next: '/console/usage' }).toString(),
  });

test('without a session every console page answers a redirect to sign-in, never data', async (t) => {
  const h = await startService(t);
  for (const path of PAGES) {
    const res = await fetch(`${h.url}${path}`, { redirect: 'manual' });
    assert.equal(res.status, 303, path);
    assert.equal(res.headers.get('location'), `/console/sign-in?next=${encodeURIComponent(path)}`, path);
    assert.equal(await res.text(), '', `${path} carries no page`);
  }
  const page = await fetch(`${h.url}/console/sign-in`);
  assert.equal(page.status, 200);
  const text = await page.text();
  assert.match(text, /imgtask console --account NAME/);
  assert.doesNotMatch(text, /csrf-token/, 'no session, no form token');
  // A post without a session gets the sign-in page (401), with nothing done.
  const post = await fetch(`${h.url}/console/sign-out`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: new URL(h.url).origin },
  });
  assert.equal(post.status, 401);
});

test('a printed link signs in once, into an HttpOnly SameSite=Strict cookie under /console, and opens the page it names', async (t) => {
  const h = await startService(t);
  const link = await consoleLink(h, { account: 'acme', next: '/console/gallery' });
  assert.match(link, new RegExp(`^${h.url}/console/sign-in/csl_[0-9A-Za-z]{43}$`));
  const first = await followLink(link, { 'user-agent': 'console-test/1.0' });
  assert.equal(first.status, 303);
  assert.equal(first.headers.get('location'), '/console/gallery');
  const setCookie = first.headers.get('set-cookie') ?? '';
  assert.match(setCookie, /HttpOnly/i);
  assert.match(setCookie, /SameSite=Strict/i);
  assert.match(setCookie, /Path=\/console/);
  assert.doesNotMatch(setCookie, /Secure/i, 'plain http: no Secure flag');
  const client = consoleClient(h, cookieOf(first)!);
  const home = await client.get('/console');
  assert.equal(home.status, 200);
  assert.match(home.text, /<title>Overview · imgtask console<\/title>/);

  const second = await followLink(link);
  assert.equal(second.status, 401, 'a second use is refused');
  assert.match(await second.text(), /already used, has expired or was revoked/);
  assert.equal(cookieOf(second), undefined);

  const sessions = await runAdminOp(h.server.services.admin, 'console.sessions.list', {});
  const session = sessions.find((s) => s.kind === 'session');
  assert.equal(session?.account, 'acme');
  assert.equal(session?.via, 'link');
  assert.equal(session?.userAgent, 'console-test/1.0');
  assert.ok(!sessions.some((s) => JSON.stringify(s).includes(client.cookie)), 'the list never shows a secret');
});

test("opening a link spends nothing (a mail scanner or a link preview leaves it usable); only its page's same-origin POST signs in", async (t) => {
  const h = await startService(t);
  const link = await consoleLink(h);
  for (let i = 0; i < 3; i++) {
    const preview = await fetch(link, { redirect: 'manual' });
    assert.equal(preview.status, 200, 'a GET shows the page');
    assert.equal(cookieOf(preview), undefined, 'a GET opens no session');
  }
  assert.equal(
    (await runAdminOp(h.server.services.admin, 'console.sessions.list', {})).filter((s) => s.kind === 'session').length,
    0,
  );
  const crossSite = await fetch(link, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  assert.equal(crossSite.status, 401, 'a POST from another site is refused');
  assert.equal(cookieOf(crossSite), undefined);
  const signedIn = await followLink(link);
  assert.equal(signedIn.status, 303, 'the link still works after the previews and the refused POST');
  assert.ok(cookieOf(signedIn));
});

test('a link expires after ten minutes; next= only ever leads inside the console', async (t) => {
  const clock = new ManualClock(Date.parse('2026-11-27T08:00:00.000Z'));
  const h = await startService(t, { clock });
  const late = await consoleLink(h);
  clock.advance(10 * 60_000);
  const refused = await followLink(late);
  assert.equal(refused.status, 401);

  for (const next of [
    '//evil.example/console',
    'https://evil.example/',
    '/api-key',
    '/console/../api-key',
    '/console/\\evil',
  ]) {
    const res = await followLink(await consoleLink(h, { account: 'acme', next }));
    assert.equal(res.headers.get('location'), '/console', next);
  }
});

test('a pasted access token signs in, with its scopes and never past its expiry; API keys, PATs and junk are refused', async (t) => {
  const h = await startService(t);
  const { accessToken, expiresAt } = await h.server.services.tokens.issueAccessToken(
    h.accountId,
    ['tasks:read'],
    60_000,
  );
  const ok = await postToken(h.url, `  ${accessToken}\n`);
  assert.equal(ok.status, 303);
  assert.equal(ok.headers.get('location'), '/console/usage');
  assert.ok(cookieOf(ok));
  const [session] = await runAdminOp(h.server.services.admin, 'console.sessions.list', {});
  assert.equal(session.via, 'token');
  assert.ok(session.expiresAt <= expiresAt, 'the session ends when the token does');

  for (const [token, reason] of [
    [h.apiKey, /not an API key/],
    ['pat_abc', /not an API key or a public access token/],
    ['not-a-token', /./],
    ['', /./],
  ] as const) {
    const res = await postToken(h.url, token);
    assert.equal(res.status, 401, `refused: ${token.slice(0, 8)}`);
    assert.equal(cookieOf(res), undefined);
    assert.match(await res.text(), reason);
  }
});

test('an external issuer’s access token (JWKS) signs in to its account', async (t) => {
  const { jwksUrl, sign } = await startJwksIssuer(t);
  const h = await startService(t, {
    config: {
      auth: { externalIssuer: { issuer: 'https://id.example', jwksUrl, audience: 'imgtask', accountClaim: 'account' } },
    },
  });
  const token = await sign({ account: 'acme', scope: 'keys manage' });
  const res = await postToken(h.url, token);
  assert.equal(res.status, 303);
  const page = await consoleClient(h, cookieOf(res)!).get('/console');
  assert.equal(page.status, 200);
});

test('sign-in attempts are rate-limited per client', async (t) => {
  const h = await startService(t);
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) statuses.push((await postToken(h.url, 'wrong')).status);
  assert.deepEqual(statuses.slice(0, 10), Array(10).fill(401));
  assert.equal(statuses[10], 429);
  const link = await consoleLink(h);
  const limited = await fetch(link, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: new URL(link).origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  assert.equal(limited.status, 429, 'using a link counts too');
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
});

test('sign-in attempts are counted per client behind a trusted proxy (server.trustedProxies); without one, X-Forwarded-For is ignored', async (t) => {
  const spoofed = await startService(t);
  const rotating: number[] = [];
  for (let i = 0; i < 11; i++)
    rotating.push((await postToken(spoofed.url, 'wrong', { 'x-forwarded-for': `203.0.113.${i}` })).status);
  assert.equal(rotating[10], 429, 'a client naming itself anew each time is still one client');

  const proxied = await startService(t, { config: { server: { trustedProxies: ['127.0.0.1', '::1'] } } });
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++)
    statuses.push((await postToken(proxied.url, 'wrong', { 'x-forwarded-for': '6.6.6.6, 203.0.113.1' })).status);
  assert.deepEqual(statuses.slice(0, 10), Array(10).fill(401));
  assert.equal(statuses[10], 429, 'the client the proxy names is limited');
  assert.equal(
    (await postToken(proxied.url, 'wrong', { 'x-forwarded-for': '203.0.113.2' })).status,
    401,
    'another client behind the same proxy is not',
  );
  assert.equal(
    (await postToken(proxied.url, 'wrong', { 'x-forwarded-for': '203.0.113.2, 203.0.113.1' })).status,
    429,
    'a hop the client wrote is not believed',
  );
});

test('signing out, or revoking the session, ends it at once', async (t) => {
  const h = await startService(t);
  const a = await consoleSignIn(h);
  const out = await a.post('/console/sign-out');
  assert.equal(out.status, 303);
  assert.equal(out.location, '/console/sign-in');
  assert.equal((await a.get('/console')).status, 303, 'the old cookie opens nothing');

  const b = await consoleSignIn(h);
  const live = (await runAdminOp(h.server.services.admin, 'console.sessions.list', {})).filter(
    (s) => s.kind === 'session' && !s.revokedAt,
  );
  assert.equal(live.length, 1);
  assert.deepEqual(await runAdminOp(h.server.services.admin, 'console.sessions.revoke', { id: live[0].id }), {
    id: live[0].id,
    revoked: true,
  });
  assert.equal((await b.get('/console')).status, 303);
  await assert.rejects(runAdminOp(h.server.services.admin, 'console.sessions.revoke', { id: live[0].id }), {
    code: 'NOT_FOUND',
  });
});

test('a state-changing request from another site, or without the session’s form token, is refused', async (t) => {
  const h = await startService(t);
  const client = await consoleSignIn(h);
  const foreign = await client.post('/console/sign-out', {}, { origin: 'https://evil.example' });
  assert.equal(foreign.status, 401);
  assert.match(foreign.text, /another site/);
  const noOrigin = await fetch(`${h.url}/console/sign-out`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: `imgtask_console=${client.cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: `_csrf=${client.csrf}`,
  });
  assert.equal(noOrigin.status, 401, 'no Origin and no Sec-Fetch-Site: refused');
  const badToken = await client.post('/console/sign-out', { _csrf: 'x'.repeat(43) });
  assert.equal(badToken.status, 401);
  assert.match(badToken.text, /out of date or did not come from the console/);
  assert.equal((await client.get('/console')).status, 200, 'still signed in: nothing was done');
});

test('console answers carry a strict Content-Security-Policy; assets are hashed, immutable and need no session', async (t) => {
  const h = await startService(t);
  const client = await consoleSignIn(h);
  const page = await client.get('/console');
  const csp = page.headers.get('content-security-policy') ?? '';
  for (const directive of [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ])
    assert.ok(csp.includes(directive), directive);
  assert.equal(page.headers.get('x-frame-options'), 'DENY');
  assert.equal(page.headers.get('cache-control'), 'no-store');
  assert.doesNotMatch(page.text, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
  assert.doesNotMatch(page.text, /\sstyle=|\son[a-z]+=/i, 'no inline style or handler');
  const assets = [...page.text.matchAll(/(?:href|src)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
  assert.ok(assets.length >= 2);
  for (const path of assets) {
    assert.match(path, /\.[0-9a-f]{12}\.(css|js)$/);
    const res = await fetch(`${h.url}${path}`);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const again = await fetch(`${h.url}${path}`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    assert.equal(again.status, 304);
  }
  assert.equal((await fetch(`${h.url}/console/assets/console.000000000000.css`)).status, 404);
  assert.equal((await client.get('/console/no-such-page')).status, 404);
});

test('the Secure flag is set when the public URL is https', async (t) => {
  const h = await startService(t, { config: { publicUrl: 'https://images.example.com' } });
  const link = await consoleLink(h);
  assert.ok(link.startsWith('https://images.example.com/console/sign-in/'), 'the link names the public URL');
  const res = await followLink(link.replace('https://images.example.com', h.url));
  assert.match(res.headers.get('set-cookie') ?? '', /Secure/);
});

test('the operator session sees the operator view only; an account session cannot open it', async (t) => {
  const h = await startService(t);
  const operator = await consoleSignIn(h, { operator: true });
  assert.equal((await operator.get('/console/operator')).status, 200);
  assert.equal((await operator.get('/console/keys')).status, 403);
  const account = await consoleSignIn(h);
  assert.equal((await account.get('/console/operator')).status, 403);
  await assert.rejects(runAdminOp(h.server.services.admin, 'console.link', {}), { code: 'VALIDATION_ERROR' });
  await assert.rejects(runAdminOp(h.server.services.admin, 'console.link', { account: 'nobody' }), {
    code: 'VALIDATION_ERROR',
  });
});

test('console.enabled: false answers every /console path as an unknown route', async (t) => {
  const h = await startService(t, { config: { console: { enabled: false } } });
  for (const path of ['/console', '/console/sign-in', '/console/assets/console.css']) {
    const res = await fetch(`${h.url}${path}`, { redirect: 'manual' });
    assert.equal(res.status, 404, path);
    assert.equal(((await res.json()) as { code: string }).code, 'NOT_FOUND');
  }
  await assert.rejects(runAdminOp(h.server.services.admin, 'console.link', { account: 'acme' }), {
    code: 'VALIDATION_ERROR',
  });
});
