import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/load.js';
import { closestMatch } from '../../../src/domain/did-you-mean.js';

/** The problem lines of a config that fails its schema. */
function problemsOf(overrides: Record<string, unknown>): string[] {
  try {
    loadConfig({ env: {}, overrides: overrides as never });
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
  assert.fail('the config loaded');
}

test('closestMatch: one edit in a short word, a swap, a case change; nothing far off', () => {
  assert.equal(closestMatch('webhoks', ['webhooks', 'work', 'server']), 'webhooks');
  assert.equal(closestMatch('prot', ['host', 'port']), 'port');
  assert.equal(closestMatch('Webhooks', ['webhooks']), 'webhooks');
  assert.equal(closestMatch('zzzzzz', ['webhooks', 'work']), undefined);
  assert.equal(closestMatch('a', ['b']), 'b', 'one edit is always close enough');
  assert.equal(closestMatch('ab', ['xy']), undefined);
});

test('a config that fails its schema: one line per problem, unknown keys with the known key they are likely a typo of', () => {
  const lines = problemsOf({
    webhoks: {},
    server: { prot: 1, hots: 'x' },
    work: { shutdownGraceMs: 'soon' },
    providers: { gpu: { type: 'comfyui', baseUrl: 'http://127.0.0.1:8188', heders: {} } },
    nothingLikeIt: 1,
  });
  assert.deepEqual(lines.sort(), [
    'nothingLikeIt: unknown key',
    'providers.gpu.heders: unknown key; did you mean `headers`?',
    'server.hots: unknown key; did you mean `host`?',
    'server.prot: unknown key; did you mean `port`?',
    'webhoks: unknown key; did you mean `webhooks`?',
    'work.shutdownGraceMs: Invalid input: expected number, received string',
  ]);
});
