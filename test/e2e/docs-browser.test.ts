import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import puppeteer, { type Page } from 'puppeteer-core';
import { startService } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

const CHROMIUM = '/usr/bin/chromium';

// What the callbacks below use of the page's globals: they run in the browser, and the project's
// TypeScript has no DOM library (adding it would make `window` and `document` valid in src/ too).
declare const window: any;
declare const document: any;
declare const location: any;

/** The section Scalar draws for one operation: its id ends with the operation's deep link. */
const sectionOf = (link: string) => `[id$="${link.replace(/"/g, '\\"')}"]`;

/** Waits until the section for `link` is drawn and scrolled to the top of the viewport; answers its text. */
async function shownSection(page: Page, link: string): Promise<string> {
  await page.waitForFunction(
    (selector: string) => {
      const el = document.querySelector(selector);
      if (!el) return false;
      const top = el.getBoundingClientRect().top;
      return top >= -5 && top < window.innerHeight / 3;
    },
    { timeout: 30_000 },
    sectionOf(link),
  );
  return page.$eval(sectionOf(link), (el: any) => el.innerText);
}

// CI installs chromium (.ci/run) and runs this: there it fails rather than skips when the browser is missing.
test('/docs in a real headless Chromium: renders the reference, searches, follows a deep link, loads nothing from another host', {
  skip: existsSync(CHROMIUM) || process.env.CI ? false : `${CHROMIUM} is not installed (.ci/run installs it)`,
  timeout: 120_000,
}, async (t) => {
  const h = await startService(t);
  const dir = await tempDir(t, 'imgtask-docs-');
  const doc = (await h.request('GET', '/openapi.json')).json;
  const origin = new URL(h.url);

  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // As root (CI, containers) Chromium runs only without its sandbox. Any other host resolves
    // to nothing, so a request that slipped past the interception below could not leave either.
    args: [
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      `--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE ${origin.hostname}`,
    ],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const offHost: string[] = [];
    const pageErrors: string[] = [];
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (url.protocol === 'data:' || url.protocol === 'blob:' || url.host === origin.host) return void req.continue();
      offHost.push(req.url());
      void req.abort();
    });
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    await page.evaluateOnNewDocument(() => {
      const seen: string[] = [];
      window.cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e: any) =>
        seen.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });

    // A deep link to one operation: the page opens scrolled to it, with its field table.
    const generate = doc.paths['/image/generate'].post;
    const started = Date.now();
    await page.goto(`${h.url}/docs#tag/images/POST/image/generate`, { waitUntil: 'load' });
    const section = await shownSection(page, 'tag/images/POST/image/generate');
    const renderMs = Date.now() - started;
    assert.ok(section.includes(generate.summary), 'the operation title');
    for (const field of ['prompt', 'negative_prompt', 'count'])
      assert.match(section, new RegExp(`^${field}$`, 'm'), `the body field ${field}`);
    assert.match(section, /^201$/m, 'its answers');

    // The sidebar lists every operation of the open tag by title, and the other tags.
    const sidebar = await page.$eval('aside, nav', (el: any) => el.innerText);
    for (const path of ['/image/rate', '/image/alt', '/image/upload'])
      assert.ok(sidebar.includes(doc.paths[path].post.summary), `sidebar: ${path}`);
    for (const tag of ['tasks', 'webhooks', 'webhook-events'])
      assert.match(sidebar, new RegExp(`^${tag}$`, 'm'), `sidebar: tag ${tag}`);
    assert.equal(
      await page.$$eval('button', (buttons: any[]) => buttons.some((b) => /Ask AI/.test(b.textContent ?? ''))),
      false,
      'no AI agent',
    );

    const shot = join(dir, 'docs.png');
    await page.screenshot({ path: shot });
    const png = await readFile(shot);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
    assert.ok((await stat(shot)).size > 20_000, `a drawn page, not a blank one (${png.length} bytes)`);

    // Search (Ctrl+K), pick the one hit with Enter: the reference moves to that operation.
    const rotate = doc.paths['/webhook/{id}/rotate-secret'].post;
    await page.keyboard.down('Control');
    await page.keyboard.press('k');
    await page.keyboard.up('Control');
    await page.waitForFunction(() => document.activeElement?.tagName === 'INPUT', { timeout: 20_000 });
    await page.keyboard.type('rotate-secret');
    const hit = `[role="option"][id$="/tag/webhooks/POST/webhook/{id}/rotate-secret"]`;
    await page.waitForSelector(hit, { timeout: 20_000 });
    assert.ok(
      (await page.$eval(hit, (el: any) => el.innerText)).includes(rotate.summary),
      'the hit shows the operation title',
    );
    await page.keyboard.press('ArrowDown');
    await page.waitForSelector(`${hit}[aria-selected="true"]`, { timeout: 20_000 });
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      () => decodeURIComponent(location.hash) === '#tag/webhooks/POST/webhook/{id}/rotate-secret',
      { timeout: 20_000 },
    );
    assert.ok((await shownSection(page, 'tag/webhooks/POST/webhook/{id}/rotate-secret')).includes(rotate.summary));

    assert.deepEqual(offHost, [], `requests to other hosts:\n${offHost.join('\n')}`);
    // Resource timing sees what interception might not (workers, preloads): all of it from this server.
    const loaded: string[] = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    assert.ok(
      loaded.some((url) => url.startsWith(`${h.url}/openapi.json`)),
      'the description was fetched',
    );
    assert.deepEqual(
      loaded.filter((url) => new URL(url).host !== origin.host),
      [],
      'loaded from another host',
    );
    // Scalar probes once whether it may compile code (`new Function`), catches the refusal and goes on; nothing else is
    // refused.
    const violations: string[] = await page.evaluate(() => window.cspViolations);
    assert.deepEqual(
      violations.filter((v) => v !== 'script-src eval'),
      [],
      'the page needed something its CSP refuses',
    );
    assert.deepEqual(pageErrors, []);
    t.diagnostic(`deep link drawn in ${renderMs} ms; screenshot ${png.length} bytes`);
  } finally {
    await browser.close();
  }
});
