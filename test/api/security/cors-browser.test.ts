// CORS in a real browser: a page on another origin polls a task with its PAT, as docs/api/tasks.md
// documents. Runs headless Chromium (Debian's `chromium`); skipped where it is not installed.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import puppeteer from 'puppeteer-core';
import { startService, waitForTask } from '../../helpers/harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A page origin of its own (another port than the API's): serves an empty HTML page. */
async function pageOrigin(t: TestContext): Promise<string> {
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>poller</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections(); // the browser keeps its connection to the page open
    return new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * What the page's script sees of a cross-origin GET with the PAT: status, body and the x-request-id it may read, or the
 * error.
 */
type Seen = { status: number; body: unknown; requestId: string | null } | { error: string };

test('a page on a listed origin polls status and result with a PAT; a page on another origin is blocked by the browser', {
  skip: !existsSync(CHROMIUM) && `no ${CHROMIUM}`,
}, async (t) => {
  const allowed = await pageOrigin(t);
  const other = await pageOrigin(t);
  const h = await startService(t, { config: { cors: { origins: [allowed] } } });
  const created = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} });
  const { taskId, access } = created.json.data;
  await waitForTask(h, taskId);

  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  t.after(() => browser.close());
  const page = await browser.newPage();
  const poll = async (origin: string, path: string): Promise<Seen> => {
    await page.goto(`${origin}/`);
    return page.evaluate(
      async (url, pat) => {
        try {
          const res = await fetch(url, { headers: { authorization: `Bearer ${pat}` } });
          return { status: res.status, body: await res.json(), requestId: res.headers.get('x-request-id') };
        } catch (err) {
          return { error: String(err) };
        }
      },
      `${h.url}${path}`,
      access.publicAccessToken as string,
    );
  };

  const status = await poll(allowed, `/tasks/${taskId}/status`);
  assert.ok(!('error' in status), JSON.stringify(status));
  assert.deepEqual([status.status, status.body], [200, { data: { status: 'completed' } }]);
  assert.match(status.requestId ?? '', /^req_/, 'x-request-id is exposed to the page');
  const result = await poll(allowed, `/tasks/${taskId}/result`);
  assert.ok(
    !('error' in result) && result.status === 200 && (result.body as { data: { id: string } }).data.id === taskId,
    JSON.stringify(result),
  );

  const blocked = await poll(other, `/tasks/${taskId}/status`);
  assert.ok('error' in blocked, `the browser let an unlisted origin read the answer: ${JSON.stringify(blocked)}`);
  assert.match(blocked.error, /TypeError/);
});
