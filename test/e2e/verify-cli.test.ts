import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeTestChain } from '../helpers/c2pa-certs.js';
import { signWithChain, tamperPng } from '../helpers/c2pa-sign.js';
import { runCli } from '../helpers/cli.js';
import { startService } from '../helpers/harness.js';
import { makeImage, serveFiles } from '../helpers/images.js';
import { tempDir } from '../helpers/temp-dir.js';

test('imgtask verify: a signed file in words (exit 0), a tampered one Invalid with its failures (exit 4), a plain one "no Content Credentials" (exit 5); --json the report; a URL through the API', async (t) => {
  const chain = await makeTestChain({ commonName: 'cli test signer' });
  const plain = await makeImage({ width: 72, height: 48 });
  const signed = await signWithChain(chain, plain, 'image/png', { model: 'test-model', seed: 42, taskId: 'tsk_cli' });
  const dir = await tempDir(t);
  const files = { signed: join(dir, 'signed.png'), tampered: join(dir, 'tampered.png'), plain: join(dir, 'plain.png') };
  await writeFile(files.signed, signed);
  await writeFile(files.tampered, tamperPng(signed));
  await writeFile(files.plain, plain);
  const h = await startService(t, { config: { fetch: { allowPrivateAddresses: true } } });
  const env = { IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey };

  const valid = await runCli(['verify', files.signed], env);
  assert.equal(valid.code, 0, valid.stderr);
  const lines = valid.stdout.trim().split('\n');
  assert.match(
    lines[0],
    /^Valid: intact, signed by cli test signer, issued by imgtask(?: on \d{4}-\d\d-\d\d)? \(a certificate not trusted here\)$/,
  );
  assert.match(lines[1], /^created by trainedAlgorithmicMedia with imgtask$/);
  assert.match(lines[2], /^model test-model, seed 42, task tsk_cli, task type image\.generate$/);
  assert.doesNotMatch(valid.stdout, /failure/, 'a Valid file lists no failures');

  const tampered = await runCli(['verify', files.tampered], env);
  assert.equal(tampered.code, 4, tampered.stderr);
  assert.match(tampered.stdout, /^Invalid: altered or badly signed/);
  assert.match(tampered.stdout, /^failure assertion\.dataHash\.mismatch/m);

  const none = await runCli(['verify', files.plain], env);
  assert.equal(none.code, 5, none.stderr);
  assert.equal(none.stdout, 'no Content Credentials\n');

  const json = await runCli(['verify', files.signed, '--json'], env);
  assert.equal(json.code, 0, json.stderr);
  assert.equal(json.json.validation, 'Valid');
  assert.equal(json.json.imgtask.seed, 42);

  const url = await serveFiles(t, { '/signed.png': signed });
  const byUrl = await runCli(['verify', url('/signed.png'), '--json'], env);
  assert.equal(byUrl.code, 0, byUrl.stderr);
  assert.deepEqual(byUrl.json, json.json, 'a URL is read by the server: the same report');

  const missing = await runCli(['verify', join(dir, 'nothing.png')], env);
  assert.equal(missing.code, 2, 'a file that is not there is a usage error');
});
