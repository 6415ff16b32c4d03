// Helpers for config-reload tests: apply a config that differs from the running one only where
// a test says, and observe receivers that hold requests open.
import assert from 'node:assert/strict';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { deepMerge, type JsonObject, loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import type { Harness } from './harness.js';
import { makeImage } from './images.js';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Dotted paths of the leaves of a value (arrays count as leaves). */
function leafPaths(value: unknown, prefix = ''): string[] {
  if (!isPlainObject(value) || Object.keys(value).length === 0) return [prefix];
  return Object.entries(value).flatMap(([key, inner]) => leafPaths(inner, prefix ? `${prefix}.${key}` : key));
}

/** Dotted paths where two configs differ (a key present on one side only is one path). */
function changedPaths(a: unknown, b: unknown, prefix = ''): string[] {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((key) => changedPaths(a[key], b[key], prefix ? `${prefix}.${key}` : key));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix];
}

const related = (x: string, y: string) => x === y || x.startsWith(`${y}.`) || y.startsWith(`${x}.`);

/**
 * Builds the running config with `overrides` merged over it (validated like a config file) and
 * applies it the way the config-file watcher does. Fails if the result is not a real change, or
 * changes anything outside `overrides`, so each test varies exactly one setting.
 */
export async function reloadWith(h: Harness, overrides: JsonObject): Promise<Config> {
  const current = h.server.services.config.current();
  // The settings as a file would give them: the workflows are what loading read, not a setting.
  const { workflows: _read, ...settings } = current;
  const next = loadConfig({ env: {}, overrides: deepMerge(settings as unknown as JsonObject, overrides) });
  const changed = changedPaths(current, next);
  assert.ok(changed.length > 0, `the reload changes nothing: ${JSON.stringify(overrides)}`);
  const expected = leafPaths(overrides);
  const stray = changed.filter((path) => !expected.some((wanted) => related(path, wanted)));
  assert.deepEqual(stray, [], 'the reload changes only the settings under test');
  assert.deepEqual(await h.server.services.reload(next), { deferred: [] });
  assert.deepEqual(h.server.services.config.current(), next, 'the new config is in force');
  return next;
}

/** Uploads one generated PNG over HTTP; answers the file entry (`id`, `service_url`, …). */
export async function uploadImage(h: Harness): Promise<{ id: string; service_url: string; format: string }> {
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(await makeImage())]), 'a.png');
  const res = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
    body: form,
  });
  assert.equal(res.status, 201);
  return ((await res.json()) as { data: { files: Array<{ id: string; service_url: string; format: string }> } }).data
    .files[0];
}

/** Calls an operation of the running server's admin socket, as the CLI does. */
export function adminCall(h: Harness, op: string, args: object): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(args);
    const req = httpRequest(
      {
        socketPath: h.server.services.layout.adminSocket,
        path: `/admin/${op}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export interface HoldingReceiver {
  url(path?: string): string;
  /** Paths of the requests received, in arrival order. */
  arrived: string[];
  /** Requests received and not yet answered (nor dropped by the sender). */
  readonly open: number;
  /** The most requests that were open at once. */
  readonly maxOpen: number;
  /** Answers every open request with `status`. */
  releaseAll(status?: number): void;
}

/**
 * A loopback receiver that holds each request open until released, or answers it after
 * `answerAfterMs`: it shows how many requests a sender has in flight at once.
 */
export async function startHoldingReceiver(
  t: TestContext,
  options: { answerAfterMs?: number; status?: number } = {},
): Promise<HoldingReceiver> {
  const held = new Set<(status: number) => void>();
  const arrived: string[] = [];
  let maxOpen = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = (status: number) => {
        held.delete(answer);
        if (!res.writableEnded && !res.destroyed) res.writeHead(status).end('ok');
      };
      res.on('close', () => held.delete(answer));
      held.add(answer);
      arrived.push(req.url ?? '');
      maxOpen = Math.max(maxOpen, held.size);
      if (options.answerAfterMs !== undefined) setTimeout(() => answer(options.status ?? 200), options.answerAfterMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: (path = '/hook') => `${base}${path}`,
    arrived,
    get open() {
      return held.size;
    },
    get maxOpen() {
      return maxOpen;
    },
    releaseAll(status = 200) {
      for (const answer of [...held]) answer(status);
    },
  };
}
