import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { startFakeComfyUi, txt2imgWorkflow } from '../fakes/comfyui.js';
import { runCli } from '../helpers/cli.js';
import { eventually, type Harness, startService } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

const CHROMIUM = '/usr/bin/chromium';

// What the callbacks below use of the page's globals: they run in the browser, and the project's
// TypeScript has no DOM library (adding it would make `window` and `document` valid in src/ too).
declare const window: any;
declare const document: any;
declare const axe: any;

const AXE_SOURCE = readFile(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8');

/** Text that would run if a page ever rendered it as markup: each sets a flag the test reads. */
const XSS = {
  prompt: 'a lighthouse <img src=x onerror="window.__xss=1">',
  metadata: '<script>window.__xss=2</script>',
  webhook: 'http://127.0.0.1:9/hook?q=<script>window.__xss=3</script>',
};

/** Where the screenshots go: CONSOLE_SCREENSHOTS names a folder to keep them (the docs' pictures), else a temp dir. */
async function screenshotDir(t: TestContext): Promise<string> {
  const kept = process.env.CONSOLE_SCREENSHOTS;
  if (!kept) return tempDir(t, 'imgtask-console-shots-');
  await mkdir(kept, { recursive: true });
  return kept;
}

/**
 * A service whose model `flux` is served by a fake ComfyUI: its jobs can be held, so a task stays pending while the
 * page watches.
 */
async function serviceWithComfy(t: TestContext) {
  const fake = await startFakeComfyUi(t, { stepDelayMs: 20 });
  const dir = await tempDir(t);
  const workflow = join(dir, 'flux.json');
  await writeFile(workflow, JSON.stringify(txt2imgWorkflow()));
  const h = await startService(t, {
    config: {
      providers: { gpu: { type: 'comfyui', baseUrl: fake.baseUrl, pollIntervalMs: 50, timeoutMs: 60_000 } },
      models: {
        flux: {
          provider: 'gpu',
          workflow,
          bindings: {
            prompt: '6.inputs.text',
            negativePrompt: '7.inputs.text',
            seed: '3.inputs.seed',
            width: '5.inputs.width',
            height: '5.inputs.height',
            batchSize: '5.inputs.batch_size',
          },
          price: { perImage: '0.01', perInput: '0.002' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: true, nativeSize: '256x256' },
        },
      },
      // The placeholder video model, small: a real clip, encoded fast, for the gallery's poster frames.
      videoModels: {
        placeholder: {
          provider: 'placeholder',
          price: { perSecond: '0.002', perInput: '0' },
          capabilities: {
            maxInputs: 0,
            negativePrompt: true,
            maxDurationS: 10,
            maxFps: 30,
            maxSize: '320x180',
            nativeSize: '160x90',
          },
        },
      },
      webhooks: { allowPrivateAddresses: true },
    },
  });
  return { h, fake };
}

/**
 * The CLI on the harness's store: the file store's data dir is reached through the running
 * server's socket; PostgreSQL directly (its URL), and there the link names the public URL.
 */
function cliEnv(h: Harness): Record<string, string> {
  const url = (h.storeConfig.store as { postgres?: { url?: string } } | undefined)?.postgres?.url;
  return { IMGTASK_DATABASE_URL: url ?? '', IMGTASK_PUBLIC_URL: h.url };
}

/**
 * A browser that can reach only the service: every other host resolves to nothing, and any request
 * to one is recorded and aborted. `failed` records every answer of 400 or more (the browser logs
 * each in its console), `thumbs` how each console thumbnail was answered (its X-Thumbnail).
 */
async function openBrowser(h: Harness): Promise<{
  browser: Browser;
  page: (context?: BrowserContext, alsoHost?: string) => Promise<Page>;
  offHost: string[];
  errors: string[];
  failed: string[];
  thumbs: Map<string, string | undefined>;
}> {
  const origin = new URL(h.url);
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      `--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE ${origin.hostname}`,
      '--disable-background-networking',
    ],
  });
  const offHost: string[] = [];
  const errors: string[] = [];
  const failed: string[] = [];
  const thumbs = new Map<string, string | undefined>();
  const page = async (context: BrowserContext = browser.defaultBrowserContext(), alsoHost?: string) => {
    const p = await context.newPage();
    await p.setViewport({ width: 1280, height: 1000 });
    await p.setRequestInterception(true);
    p.on('request', (req) => {
      const url = new URL(req.url());
      if (url.protocol === 'data:' || url.protocol === 'blob:' || url.host === origin.host || url.host === alsoHost)
        return void req.continue();
      offHost.push(req.url());
      void req.abort();
    });
    p.on('pageerror', (err) => errors.push(`page error: ${String(err)}`));
    p.on('response', (res) => {
      const url = new URL(res.url());
      if (res.status() >= 400) failed.push(`${res.status()} ${res.request().method()} ${url.pathname}`);
      if (url.pathname.startsWith('/console/thumbs/'))
        thumbs.set(`${url.pathname}${url.search}`, res.headers()['x-thumbnail']);
    });
    p.on('dialog', (dialog) => void dialog.accept());
    await p.evaluateOnNewDocument(() => {
      window.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e: any) =>
        window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    return p;
  };
  return { browser, page, offHost, errors, failed, thumbs };
}

/**
 * axe-core over the page (run through the debugger protocol, so the page's CSP does not apply to it): the serious and
 * critical violations.
 */
async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(await AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const { violations } = await axe.run(document, { resultTypes: ['violations'] });
    return violations.map((v: any) => ({
      impact: v.impact,
      id: v.id,
      nodes: v.nodes.map((n: any) => n.target.join(' ')).slice(0, 3),
    }));
  });
  return result
    .filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical')
    .map((v: { id: string; nodes: string[] }) => `${v.id}: ${v.nodes.join(', ')}`);
}

/**
 * Tabs through the whole page and answers the visible controls that never took the focus: every
 * action must be reachable by keyboard. Controls inside a closed <details> are not visible, so not counted.
 */
async function unreachableByKeyboard(page: Page): Promise<string[]> {
  const count: number = await page.evaluate(() => {
    let n = 0;
    for (const el of document.querySelectorAll(
      'a[href], button, input:not([type="hidden"]), select, textarea, summary',
    )) {
      // checkVisibility also leaves out what a closed <details> hides (content-visibility), which the keyboard skips.
      const visible = el.checkVisibility({ checkVisibilityCSS: true });
      el.dataset.kb = visible && !el.disabled ? `c${n++}` : '';
    }
    window.__focused = new Set();
    document.addEventListener(
      'focusin',
      (e: any) => e.target?.dataset?.kb && window.__focused.add(e.target.dataset.kb),
    );
    document.body.focus();
    return n;
  });
  // Scrollable regions and <details> add tab stops of their own: go round the page more than once.
  for (let i = 0; i < 2 * count + 30; i++) await page.keyboard.press('Tab');
  return page.evaluate(() =>
    [...document.querySelectorAll('[data-kb]')]
      .filter((el: any) => el.dataset.kb && !window.__focused.has(el.dataset.kb))
      .map(
        (el: any) => `${el.tagName.toLowerCase()} "${(el.textContent || el.name || el.id || '').trim().slice(0, 40)}"`,
      ),
  );
}

/** Checks a page as every console page must be, and saves its screenshot. */
async function checkPage(page: Page, dir: string, name: string): Promise<void> {
  // The page as it opens (a field typed into may have scrolled it); charts draw a frame after load: let them.
  await page.evaluate(
    () =>
      new Promise((resolve) => {
        window.scrollTo(0, 0);
        window.requestAnimationFrame(() => window.requestAnimationFrame(resolve));
      }),
  );
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: false });
  assert.deepEqual(await accessibilityProblems(page), [], `${name}: serious or critical accessibility violations`);
  assert.deepEqual(await page.evaluate(() => window.cspViolations), [], `${name}: needed something its CSP refuses`);
  assert.equal(await page.evaluate(() => window.__xss), undefined, `${name}: a payload ran`);
}

/**
 * The keys table against the window: the page's and the table's widths, and whether each Rotate
 * button is drawn inside the table's box and the window (not scrolled off to the right).
 */
async function keysLayout(page: Page) {
  return page.evaluate(() => {
    const wrap = document.querySelector('table.keys').closest('.table-wrap');
    const box = wrap.getBoundingClientRect();
    const rotate = [...document.querySelectorAll('table.keys button')].filter(
      (b: any) => b.textContent.trim() === 'Rotate',
    );
    return {
      page: document.documentElement.scrollWidth,
      window: window.innerWidth,
      table: wrap.scrollWidth,
      room: wrap.clientWidth,
      rotateInView: rotate.map((b: any) => {
        const r = b.getBoundingClientRect();
        return r.width > 0 && r.left >= box.left && r.right <= box.right && r.right <= window.innerWidth;
      }),
    };
  });
}

test('the console in a real headless Chromium: sign in, create a key, generate live, gallery, inspector, usage, cancel, sign out — accessible, keyboard-reachable, and safe', {
  skip: existsSync(CHROMIUM) || process.env.CI ? false : `${CHROMIUM} is not installed (.ci/run installs it)`,
  timeout: 240_000,
}, async (t) => {
  const { h, fake } = await serviceWithComfy(t);
  const shots = await screenshotDir(t);
  // Another account's task: its id must answer not found here.
  const other = await h.server.services.accounts.create('globex', 10_000_000);
  const { raw: otherKey } = await h.server.services.apiKeys.create({ accountId: other.id, name: 'theirs' });
  const foreign = await h.request('POST', '/image/generate', {
    auth: otherKey,
    body: { prompt: 'not yours', model: 'auto' },
  });
  assert.equal(foreign.status, 201);

  const { browser, page: newPage, offHost, errors, failed, thumbs } = await openBrowser(h);
  t.after(() => browser.close());
  try {
    const page = await newPage();

    // 1. Sign in from the link `imgtask console` prints (through the running server's admin socket).
    const printed = await runCli(['--data', h.dataDir, 'console', '--account', 'acme'], cliEnv(h));
    assert.equal(printed.code, 0, printed.stderr);
    await page.goto(printed.stdout.trim(), { waitUntil: 'load' });
    await checkPage(page, shots, 'sign-in-link');
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click('form[method="post"] button[type="submit"]'),
    ]);
    assert.equal(new URL(page.url()).pathname, '/console');
    assert.equal(await page.$eval('h1', (el: any) => el.textContent), 'Overview');

    // The usage chart before any work: its data, to see it change.
    await page.goto(`${h.url}/console/usage`, { waitUntil: 'load' });
    const usageBefore = await page.$$eval('[data-chart]', (els: any[]) => els.map((el) => el.dataset.chart).join('|'));

    // 2. Create a key, by keyboard only: type its name, then press Enter in the field.
    await page.goto(`${h.url}/console/keys`, { waitUntil: 'load' });
    await page.focus('#key-name');
    await page.keyboard.type('browser key');
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.keyboard.press('Enter')]);
    const raw = await page.$eval('#raw-key', (el: any) => el.textContent.trim());
    assert.match(raw, /^mak_[0-9A-Za-z]{43}$/, 'the raw key, shown once');
    await checkPage(page, shots, 'keys-created');
    const keys = await h.request('GET', '/api-key', { auth: h.token });
    const created = keys.json.data.find((k: { name?: string }) => k.name === 'browser key');
    assert.ok(created, 'the key exists');
    // Rename it from its Edit page.
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click(`a[href="/console/keys/${created.id}/edit"]`),
    ]);
    await checkPage(page, shots, 'key-edit');
    await page.$eval('#edit-name', (el: any) => {
      el.value = '';
    });
    await page.type('#edit-name', 'browser key, renamed');
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click('form[aria-label^="Settings of"] button[type="submit"]'),
    ]);
    assert.match(await page.$eval('main', (el: any) => el.textContent), /The key was changed/);
    assert.equal((await h.server.services.apiKeys.get(h.accountId, created.id)).name, 'browser key, renamed');

    // 3. Each playground form, untouched: its script asks no estimate of a form missing what it needs
    // (no 400 in the browser's console) and shows no error, only what to fill in.
    for (const type of [
      'image.rate',
      'image.alt',
      'image.remove_background',
      'image.review',
      'video.generate',
      'image.generate',
    ]) {
      const answered = failed.length;
      await page.goto(`${h.url}/console/playground?type=${type}`, { waitUntil: 'load' });
      const estimate = `#${type.replace(/[^a-z0-9]+/gi, '-')}-estimate`;
      await page.waitForFunction(
        (sel: string) => /^Fill in /.test(document.querySelector(sel)?.textContent ?? ''),
        { timeout: 15_000 },
        estimate,
      );
      await new Promise((resolve) => setTimeout(resolve, 600));
      const shown = await page.$eval(estimate, (el: any) => ({
        text: el.textContent,
        muted: el.classList.contains('unavailable'),
      }));
      assert.match(
        shown.text,
        /^Fill in (Prompt|Image URLs|Image URL) to see the estimated cost\.$/,
        `${type}: says what to fill in`,
      );
      assert.equal(shown.muted, true);
      assert.doesNotMatch(
        await page.$eval('main', (el: any) => el.textContent),
        /VALIDATION_ERROR|No estimate/,
        `${type}: no error before anything is typed`,
      );
      assert.deepEqual(failed.slice(answered), [], `${type}: no request failed on load`);
    }

    // A generate from the playground, with payloads in the prompt and metadata, watched live.
    fake.holdJobs();
    await page.goto(`${h.url}/console/playground?type=image.generate`, { waitUntil: 'load' });
    await page.select('#image-generate-key', created.id);
    await page.type('#image-generate-prompt', XSS.prompt);
    await page.select('#image-generate-model', 'flux');
    await page.click('#image-generate-rating');
    await page.type('#image-generate-metadata', JSON.stringify({ note: XSS.metadata }));
    await page.waitForFunction(
      () => /Estimated cost: 0\.01\d* USD/.test(document.getElementById('image-generate-estimate')?.textContent ?? ''),
      { timeout: 15_000 },
    );
    assert.deepEqual(failed, [], 'no request of the playground failed');
    await checkPage(page, shots, 'playground');
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click('form[action="/console/playground/image.generate"] button[type="submit"]'),
    ]);
    const taskPath = new URL(page.url()).pathname;
    assert.match(taskPath, /^\/console\/tasks\/tsk_/);
    const taskId = taskPath.split('/').pop()!;
    await page.waitForSelector('#live-bar');
    await eventually(() => fake.queue().running !== null, 15_000);
    await checkPage(page, shots, 'task-pending');
    fake.releaseJobs();
    // The page follows the task's status stream and shows it settled without anyone reloading it.
    await page.waitForFunction(
      () => /completed/.test(document.querySelector('main')?.textContent ?? '') && !document.getElementById('live-bar'),
      { timeout: 30_000 },
    );
    const inspector = await page.$eval('main', (el: any) => el.textContent);
    assert.ok(inspector.includes('a lighthouse <img src=x onerror='), 'the prompt, as text');
    assert.ok(inspector.includes(XSS.metadata), 'the metadata, as text');
    // Its image, reviewed: the inspector shows the picture with its rating and verdict, item 1 as the CLI numbers it.
    const made = (await h.request('GET', `/tasks/${taskId}`, { auth: raw })).json.data;
    const reviewed = await h.request('POST', '/image/review', {
      auth: raw,
      body: { url: made.result.images[0].service_url },
    });
    assert.equal(reviewed.status, 200, reviewed.text);
    await page.reload({ waitUntil: 'load' });
    await page.waitForFunction(
      () => [...document.querySelectorAll('.item-thumb img')].every((img: any) => img.complete && img.naturalWidth > 0),
      { timeout: 15_000 },
    );
    const output = await page.$eval('#task-items tr[data-index="0"]', (row: any) => ({
      number: row.querySelector('th').textContent,
      pictures: row.querySelectorAll('.item-thumb img').length,
      link: row.querySelector('.item-thumb a')?.getAttribute('href'),
      text: row.querySelector('.item-output').textContent,
    }));
    assert.equal(output.number, '1');
    assert.equal(output.pictures, 1, 'the picture, not a link to it');
    assert.equal(output.link, `/console/gallery/${taskId}/0`);
    assert.match(output.text, /Rating: (sfw|nsfw)/);
    assert.ok(output.text.includes(`Review: ${reviewed.json.data.result.verdict}`), output.text);
    assert.doesNotMatch(output.text, /Open image/);
    await checkPage(page, shots, 'task');

    // 4. The image in the gallery, with its rating; a cut-out of it and a video beside it.
    const cut = await h.request('POST', '/image/remove-background', {
      auth: raw,
      body: { url: made.result.images[0].id },
    });
    const clip = await h.request('POST', '/video/generate', {
      auth: raw,
      body: { prompt: 'a lighthouse, the camera turning', duration_s: 1, fps: 8 },
    });
    for (const created of [cut, clip]) {
      assert.equal(created.status, 201, created.text);
      await eventually(
        async () =>
          (await h.request('GET', `/tasks/${created.json.data.taskId}`, { auth: raw })).json.data.status ===
          'completed',
        30_000,
      );
    }
    await page.goto(`${h.url}/console/gallery`, { waitUntil: 'load' });
    const tile = await page.$(`a[href^="/console/gallery/${taskId}/0"]`);
    assert.ok(tile, 'the tile of the new image');
    const tileText = await page.$eval('.gallery-grid', (el: any) => el.textContent);
    assert.match(tileText, /Rating: (sfw|nsfw)/);
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('.gallery-grid img')].every((img: any) => img.complete && img.naturalWidth > 0),
      { timeout: 15_000 },
    );
    const poster = await page.$eval(`a[href="/console/gallery/${clip.json.data.taskId}/0"]`, (a: any) => ({
      src: a.querySelector('img').currentSrc,
      label: a.textContent,
    }));
    assert.equal(poster.label, 'Video');
    assert.equal(
      thumbs.get(new URL(poster.src).pathname + new URL(poster.src).search),
      'resized',
      'the video’s own first frame, not the placeholder',
    );
    const cutout = await page.$eval(`a[href="/console/gallery/${cut.json.data.taskId}/0"]`, (a: any) => ({
      background: window.getComputedStyle(a.querySelector('img')).backgroundImage,
      caption: a.closest('li').querySelector('.tile-meta').textContent,
    }));
    assert.match(cutout.background, /conic-gradient/, 'a checkerboard behind the cut-out');
    assert.match(cutout.caption, /^Background removed, transparent (PNG|WEBP)/);
    await checkPage(page, shots, 'gallery');
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), tile!.click()]);
    assert.ok((await page.$eval('main', (el: any) => el.textContent)).includes(XSS.prompt));
    await checkPage(page, shots, 'gallery-image');

    // 5. The usage chart changed with the charge.
    await page.goto(`${h.url}/console/usage`, { waitUntil: 'load' });
    const usageAfter = await page.$$eval('[data-chart]', (els: any[]) => els.map((el) => el.dataset.chart).join('|'));
    assert.notEqual(usageAfter, usageBefore, 'the usage charts show the new charge');
    assert.equal(await page.$$eval('.chart canvas', (els: any[]) => els.length > 0), true, 'drawn');
    await checkPage(page, shots, 'usage');

    // 6. Cancel a running task from its inspector.
    fake.holdJobs();
    const running = await h.request('POST', '/image/generate', {
      auth: raw,
      body: { prompt: 'to be cancelled', model: 'flux' },
    });
    await eventually(() => fake.queue().running !== null, 15_000);
    await page.goto(`${h.url}/console/tasks/${running.json.data.taskId}`, { waitUntil: 'load' });
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(`form[action$="/cancel"] button`)]);
    await eventually(
      async () =>
        (await h.request('GET', `/tasks/${running.json.data.taskId}`, { auth: raw })).json.data.status !== 'pending',
      15_000,
    );
    await page.reload({ waitUntil: 'load' });
    assert.match(await page.$eval('main', (el: any) => el.textContent), /TASK_CANCELLED/);
    assert.ok(fake.interrupts.length > 0 || fake.queue().running === null, 'the job left the GPU');
    fake.releaseJobs();

    // 7. A webhook whose URL carries a payload: shown as text, runs nothing.
    await page.goto(`${h.url}/console/webhooks`, { waitUntil: 'load' });
    await page.type('#wh-url', XSS.webhook);
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click('form[action="/console/webhooks"] button[type="submit"]'),
    ]);
    assert.ok((await page.$eval('main', (el: any) => el.textContent)).includes(XSS.webhook), 'the URL, as text');
    await checkPage(page, shots, 'webhooks');

    // The keys table at 1400 and 1280 pixels, with a key that has every limit set: no sideways scroll, Rotate in view.
    await h.server.services.apiKeys.create({
      accountId: h.accountId,
      name: 'the nightly batch of product photographs',
      spendingLimit: 12_345_670_000,
      spendingLimitPeriod: 'week',
      requestsPerMinute: 6000,
      expiresAt: new Date(Date.now() + 300 * 86_400_000).toISOString(),
      maxConcurrent: 128,
      maxPriority: 10,
    });
    for (const width of [1400, 1280]) {
      await page.setViewport({ width, height: 1000 });
      await page.goto(`${h.url}/console/keys`, { waitUntil: 'load' });
      const layout = await keysLayout(page);
      assert.ok(
        layout.table <= layout.room && layout.page <= layout.window,
        `${width} px: the keys table fits (${JSON.stringify(layout)})`,
      );
      assert.ok(
        layout.rotateInView.length >= 3 && layout.rotateInView.every(Boolean),
        `${width} px: every Rotate button in view (${JSON.stringify(layout)})`,
      );
    }

    // 8. Every other page: accessible, keyboard-reachable, nothing from elsewhere.
    for (const [name, path] of [
      ['overview', '/console'],
      ['tasks', '/console/tasks'],
      ['destinations', '/console/destinations'],
      ['keys', '/console/keys'],
    ] as const) {
      await page.goto(`${h.url}${path}`, { waitUntil: 'load' });
      await checkPage(page, shots, name);
    }
    for (const path of [
      '/console',
      '/console/tasks',
      `/console/tasks/${taskId}`,
      '/console/gallery',
      '/console/playground?type=image.generate',
      '/console/keys',
      '/console/webhooks',
      '/console/usage',
    ]) {
      await page.goto(`${h.url}${path}`, { waitUntil: 'load' });
      assert.deepEqual(await unreachableByKeyboard(page), [], `${path}: controls the keyboard never reaches`);
    }

    // 9. Another account's task: not found.
    const notYours = await page.goto(`${h.url}/console/tasks/${foreign.json.data.taskId}`, { waitUntil: 'load' });
    assert.equal(notYours?.status(), 404);
    assert.ok(!(await page.$eval('main', (el: any) => el.textContent)).includes('not yours </'), 'nothing of it shown');

    // 10. A form on another site posting to the console: refused, nothing made.
    const attacker = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form method="post" action="${h.url}/console/keys"><input name="name" value="planted"></form><script>document.forms[0].submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise((resolve) => attacker.close(resolve)));
    const attackerHost = `127.0.0.1:${(attacker.address() as AddressInfo).port}`;
    const evil = await newPage(browser.defaultBrowserContext(), attackerHost);
    // The attacker's page posts itself away at once: its own load may never be seen.
    evil.goto(`http://${attackerHost}/`).catch(() => {});
    await eventually(() => new URL(evil.url()).pathname === '/console/keys', 15_000);
    await evil.waitForSelector('main');
    assert.equal(new URL(evil.url()).pathname, '/console/keys');
    assert.match(await evil.$eval('main', (el: any) => el.textContent), /another site/);
    const after = await h.request('GET', '/api-key', { auth: h.token });
    assert.ok(!after.json.data.some((k: { name?: string }) => k.name === 'planted'), 'no key was made');

    // 11. The operator view, in a session of its own.
    const operatorContext = await browser.createBrowserContext();
    const operator = await newPage(operatorContext);
    const opLink = await runCli(['--data', h.dataDir, 'console', '--operator'], cliEnv(h));
    await operator.goto(opLink.stdout.trim(), { waitUntil: 'load' });
    await Promise.all([
      operator.waitForNavigation({ waitUntil: 'load' }),
      operator.click('form[method="post"] button[type="submit"]'),
    ]);
    assert.equal(new URL(operator.url()).pathname, '/console/operator');
    assert.match(await operator.$eval('main', (el: any) => el.textContent), /globex/);
    await checkPage(operator, shots, 'operator');

    // 12. Sign out: the console asks to sign in again.
    await page.bringToFront();
    await page.goto(`${h.url}/console`, { waitUntil: 'load' });
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form.sign-out button')]);
    assert.equal(new URL(page.url()).pathname, '/console/sign-in');
    await checkPage(page, shots, 'sign-in');
    await page.goto(`${h.url}/console/tasks`, { waitUntil: 'load' });
    assert.equal(new URL(page.url()).pathname, '/console/sign-in');

    assert.deepEqual(offHost, [], `requests to other hosts:\n${offHost.join('\n')}`);
    assert.deepEqual(errors, []);
  } catch (err) {
    t.diagnostic(`screenshots in ${shots}`);
    throw err;
  }
});
