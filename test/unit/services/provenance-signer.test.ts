import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { promisify } from 'node:util';
import type { OutputOrigin, OutputSigner } from '../../../src/domain/provenance.js';
import { bundledFfmpegPath } from '../../../src/media/ffmpeg.js';
import { createOutputSigner } from '../../../src/services/provenance-signer.js';
import { makeTestChain, type TestChain } from '../../helpers/c2pa-certs.js';
import { makeImage } from '../../helpers/images.js';
import { tempDir } from '../../helpers/temp-dir.js';

const AI = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';
const VERSION = (
  JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

let chain: TestChain;
before(async () => {
  chain = await makeTestChain();
});

const origin: OutputOrigin = {
  action: 'created',
  taskId: 'tsk_test1',
  taskType: 'image.generate',
  model: 'placeholder-v1',
  provider: 'placeholder',
  seed: 42,
  parametersSha256: 'a'.repeat(64),
  rating: 'sfw',
  review: { passed: true, score: 0.9 },
  prompt: 'a red fox in the snow',
};

async function signerWith(
  options: { anchors?: string[]; includePrompt?: boolean; log?: (m: string) => void } = {},
): Promise<OutputSigner> {
  return createOutputSigner({
    settings: { enabled: true, includePrompt: options.includePrompt ?? false },
    keys: async () => ({
      chainPem: chain.chainPem,
      privateKeyPem: chain.privateKeyPem,
      anchorsPem: options.anchors ?? [],
      certificate: undefined,
    }),
    log: options.log ?? (() => {}),
  });
}

for (const format of ['png', 'jpeg', 'webp'] as const) {
  test(`a ${format} is signed and reads back with the actions, the AI source type, the claim generator and imgtask's assertion, without the prompt`, async () => {
    const signer = await signerWith();
    const image = await makeImage({ format, width: 96, height: 64 });
    const signed = await signer.sign(image, `image/${format}`, origin);
    assert.equal(signed.state, 'signed');
    assert.notDeepEqual(signed.data, image);
    const report = await signer.verify(signed.data, `image/${format}`);
    assert.equal(report.present, true);
    assert.equal(report.validation, 'Valid', JSON.stringify(report.failures));
    assert.deepEqual(
      report.failures?.map((f) => f.code),
      ['signingCredential.untrusted'],
    );
    assert.equal(report.claimGenerator, `imgtask ${VERSION}`);
    assert.deepEqual(report.actions, [{ action: 'c2pa.created', digitalSourceType: AI, softwareAgent: 'imgtask' }]);
    assert.equal(report.signer?.commonName, 'imgtask test signer');
    assert.deepEqual(report.imgtask, {
      taskId: 'tsk_test1',
      taskType: 'image.generate',
      model: 'placeholder-v1',
      provider: 'placeholder',
      seed: 42,
      parametersSha256: 'a'.repeat(64),
      rating: 'sfw',
      review: { passed: true, score: 0.9 },
    });
    assert.deepEqual(report.ingredients, []);
  });
}

test('an mp4 is signed and reads back', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'clip.mp4');
  await promisify(execFile)(bundledFfmpegPath(), [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=64x64:rate=8',
    '-t',
    '1',
    '-pix_fmt',
    'yuv420p',
    '-c:v',
    'libx264',
    '-movflags',
    '+faststart',
    file,
  ]);
  const video = await readFile(file);
  const signer = await signerWith();
  const signed = await signer.sign(video, 'video/mp4', { ...origin, taskType: 'video.generate' });
  assert.equal(signed.state, 'signed');
  const report = await signer.verify(signed.data, 'video/mp4');
  assert.equal(report.validation, 'Valid', JSON.stringify(report.failures));
  assert.equal(report.imgtask?.taskType, 'video.generate');
  assert.deepEqual(
    report.actions?.map((a) => a.action),
    ['c2pa.created'],
  );
});

test('the prompt is in the assertion only with includePrompt', async () => {
  const signer = await signerWith({ includePrompt: true });
  const signed = await signer.sign(await makeImage(), 'image/png', origin);
  assert.equal((await signer.verify(signed.data, 'image/png')).imgtask?.prompt, 'a red fox in the snow');
});

test('an edit names its source as the parentOf ingredient, opened then edited', async () => {
  const signer = await signerWith();
  const source = await makeImage({ format: 'jpeg', rgb: [20, 120, 220] });
  const edited: OutputOrigin = {
    action: 'edited',
    taskId: 'tsk_edit',
    taskType: 'image.remove_background',
    ingredient: { data: source, mimeType: 'image/jpeg', title: 'source.jpg' },
  };
  const signed = await signer.sign(await makeImage({ format: 'png' }), 'image/png', edited);
  const report = await signer.verify(signed.data, 'image/png');
  assert.equal(report.validation, 'Valid', JSON.stringify(report.failures));
  assert.deepEqual(report.ingredients, [{ title: 'source.jpg', relationship: 'parentOf' }]);
  assert.deepEqual(report.actions, [
    { action: 'c2pa.opened', softwareAgent: 'imgtask' },
    { action: 'c2pa.edited', digitalSourceType: AI, softwareAgent: 'imgtask' },
  ]);
});

test('one changed byte of the signed image reads as Invalid, naming the hash mismatch', async () => {
  const signer = await signerWith();
  const signed = await signer.sign(await makeImage({ format: 'jpeg', width: 128, height: 128 }), 'image/jpeg', origin);
  const tampered = Buffer.from(signed.data);
  tampered[tampered.length - 100] ^= 0x01;
  const report = await signer.verify(tampered, 'image/jpeg');
  assert.equal(report.present, true);
  assert.equal(report.validation, 'Invalid');
  assert.ok(
    report.failures?.some((f) => f.code === 'assertion.dataHash.mismatch'),
    JSON.stringify(report.failures),
  );
});

test('with the CA as a trust anchor the credentials read as Trusted', async () => {
  const signer = await signerWith({ anchors: [chain.caPem] });
  const signed = await signer.sign(await makeImage(), 'image/png', origin);
  const report = await signer.verify(signed.data, 'image/png');
  assert.equal(report.validation, 'Trusted');
  assert.deepEqual(report.failures, []);
});

test('a file without credentials reads as not present', async () => {
  const signer = await signerWith();
  assert.deepEqual(await signer.verify(await makeImage(), 'image/png'), { present: false });
});

test('a leaf without extendedKeyUsage is refused when the signer is built, with a clear message', async () => {
  const bad = await makeTestChain({ leafEku: false });
  await assert.rejects(
    createOutputSigner({
      settings: { enabled: true, includePrompt: false },
      keys: async () => ({
        chainPem: bad.chainPem,
        privateKeyPem: bad.privateKeyPem,
        anchorsPem: [],
        certificate: undefined,
      }),
      log: () => {},
    }),
    /provenance: the signing certificate is refused .*extendedKeyUsage/,
  );
});

test('a library that does not load: one warning, state unavailable, outputs unchanged and unsigned', async () => {
  const logs: string[] = [];
  let keysAsked = false;
  const signer = await createOutputSigner({
    settings: { enabled: true, includePrompt: false },
    keys: async () => {
      keysAsked = true;
      throw new Error('not asked');
    },
    load: async () => ({ ok: false, reason: 'index.node: invalid ELF header' }),
    log: (m) => logs.push(m),
  });
  assert.equal(logs.length, 1);
  assert.match(
    logs[0] ?? '',
    /^provenance: the C2PA library does not load on this platform \(index.node: invalid ELF header\); outputs are stored unsigned$/,
  );
  assert.equal(signer.status().state, 'unavailable');
  const image = await makeImage();
  const out = await signer.sign(image, 'image/png', origin);
  assert.equal(out.state, 'unsigned');
  assert.equal(out.data, image);
  assert.equal(keysAsked, false);
});

test('provenance.enabled false: off, no log line, outputs unsigned, verify still reads', async () => {
  const logs: string[] = [];
  const signer = await createOutputSigner({
    settings: { enabled: false, includePrompt: false },
    keys: async () => assert.fail('no keys when off'),
    log: (m) => logs.push(m),
  });
  assert.deepEqual(signer.status(), { state: 'off' });
  const image = await makeImage();
  assert.deepEqual(await signer.sign(image, 'image/png', origin), { data: image, state: 'unsigned' });
  assert.deepEqual(logs, []);
  const signed = await (await signerWith()).sign(image, 'image/png', origin);
  assert.equal((await signer.verify(signed.data, 'image/png')).validation, 'Valid');
});

test('a process that built the signer and signed exits on its own (the signer holds no handle that keeps it alive)', async (t) => {
  const dir = await tempDir(t);
  const script = join(dir, 'sign-and-end.mts');
  const src = new URL('../../../src/services/provenance-signer.ts', import.meta.url).pathname;
  const certs = new URL('../../helpers/c2pa-certs.ts', import.meta.url).pathname;
  await writeFile(
    script,
    `import { createOutputSigner } from '${src}';
import { makeTestChain } from '${certs}';
const chain = await makeTestChain();
const signer = await createOutputSigner({ settings: { enabled: true, includePrompt: false }, keys: async () => ({ chainPem: chain.chainPem, privateKeyPem: chain.privateKeyPem, anchorsPem: [] }), log: () => {} });
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAcCBlCwAAAABJRU5ErkJggg==', 'base64');
console.log((await signer.sign(png, 'image/png', { action: 'created', taskId: 't', taskType: 'image.generate' })).state);
`,
  );
  // Without the fix the child never exits: the kill after 30 s fails the test.
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
    cwd: process.cwd(),
    timeout: 30_000,
  });
  assert.equal(stdout.trim(), 'signed');
});
