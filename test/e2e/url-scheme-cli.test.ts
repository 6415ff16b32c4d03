// A server or receiver URL given without its scheme (127.0.0.1:8080, localhost:3000) is refused
// before anything is sent, saying that http:// is missing and what to type instead.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';

test('--url, IMGTASK_URL and --forward-to without http://: exit 2, the URL to use instead', async () => {
  const cases: Array<[string[], Record<string, string>, string]> = [
    [
      ['generate', 'a cat'],
      { IMGTASK_URL: '127.0.0.1:8080' },
      'IMGTASK_URL 127.0.0.1:8080 needs http:// or https:// in front: use http://127.0.0.1:8080',
    ],
    [
      ['--url', '127.0.0.1:8080', 'tasks', 'list'],
      {},
      '--url 127.0.0.1:8080 needs http:// or https:// in front: use http://127.0.0.1:8080',
    ],
    [
      ['--url', 'localhost:8080', 'rate', 'img_x'],
      {},
      '--url localhost:8080 needs http:// or https:// in front: use http://localhost:8080',
    ],
    [
      ['webhooks', 'listen', '--token', 'tok', '--forward-to', 'localhost:3000'],
      {},
      '--forward-to localhost:3000 needs http:// or https:// in front: use http://localhost:3000',
    ],
    [
      ['webhooks', 'listen', '--token', 'tok', '--forward-to', '127.0.0.1:3000/hook'],
      {},
      '--forward-to 127.0.0.1:3000/hook needs http:// or https:// in front: use http://127.0.0.1:3000/hook',
    ],
    [
      ['webhooks', 'listen', '--token', 'tok', '--forward-to', 'a hook'],
      {},
      '--forward-to a hook is not a URL (such as http://127.0.0.1:3000/hook)',
    ],
    [['--url', 'ftp://127.0.0.1', 'tasks', 'list'], {}, '--url must be an http or https URL, not ftp:'],
  ];
  for (const [args, env, message] of cases) {
    const result = await runCli(args, { IMGTASK_API_KEY: 'mak_test', ...env });
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.equal(result.stderr, `imgtask: VALIDATION_ERROR: ${message}\n`, args.join(' '));
  }
});
