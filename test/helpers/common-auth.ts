import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { Harness } from './harness.js';

export interface AuthCase {
  method: string;
  path: string;
  body?: unknown;
}

/** The cases every authenticated route shares: no header, a malformed header, an unknown key. */
export async function assertRejectsMissingCredentials(t: TestContext, h: Harness, route: AuthCase): Promise<void> {
  const cases: Array<[string, Record<string, string>]> = [
    ['no Authorization header', {}],
    ['a Basic header', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['an unknown API key', { authorization: 'Bearer mak_0000000000000000000000000000000000000000000' }],
  ];
  for (const [name, headers] of cases) {
    await t.test(`${route.method} ${route.path} refuses ${name} with 401 UNAUTHORIZED`, async () => {
      const res = await h.request(route.method, route.path, { auth: null, headers, body: route.body });
      assert.equal(res.status, 401);
      assert.equal(res.json.code, 'UNAUTHORIZED');
      assert.equal(typeof res.json.message, 'string');
    });
  }
}
