// `imgtask provenance show` and doctor's provenance check, over the CLI on a data dir.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { localKeyFiles } from '../../src/services/provenance-keys.js';
import { makeTestChain } from '../helpers/c2pa-certs.js';
import { runCli } from '../helpers/cli.js';
import { testStoreConfig } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

const fingerprintOf = (pem: string) => new X509Certificate(pem).fingerprint256.replaceAll(':', '').toLowerCase();

test('provenance show prints the local certificate made at first start: fingerprint, serial and expiry; doctor says it renews itself', async (t) => {
  const data = await tempDir(t);
  const config = join(data, 'imgtask.json');
  await writeFile(config, JSON.stringify(await testStoreConfig(t)));
  assert.equal((await runCli(['--data', data, '--config', config, 'accounts', 'create', 'acme'])).code, 0);
  const shown = await runCli(['--data', data, '--config', config, 'provenance', 'show', '--json']);
  assert.equal(shown.code, 0, shown.stdout + shown.stderr);
  const leafPem =
    (await readFile(localKeyFiles(data).signing, 'utf8')).split('-----END CERTIFICATE-----')[0] +
    '-----END CERTIFICATE-----\n';
  const sha256 = fingerprintOf(leafPem);
  assert.equal(shown.json.state, 'signing');
  assert.equal(shown.json.certificate.sha256, sha256);
  assert.equal(shown.json.certificate.local, true);
  assert.equal(shown.json.certificate.serial, new X509Certificate(leafPem).serialNumber.toLowerCase());
  assert.ok(shown.json.certificate.daysLeft >= 364, String(shown.json.certificate.daysLeft));

  const text = await runCli(['--data', data, '--config', config, 'provenance', 'show']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^provenance: signing$/m);
  assert.match(text.stdout, /^certificate: local .*untrusted/m);
  assert.match(text.stdout, new RegExp(`^  sha256: +${sha256}$`, 'm'));
  assert.match(text.stdout, /^ {2}not after: +\d{4}-\d\d-\d\dT[\d:.]+Z \(36[45] days left; renews itself/m);

  const doctor = await runCli(['--data', data, '--config', config, 'doctor', '--json']);
  assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
  assert.equal(doctor.json.provenance.ok, true);
  assert.deepEqual(doctor.json.warnings, []);
  assert.match(doctor.json.provenance.notes.join('\n'), /renews itself/);
});

test('doctor warns of a configured certificate that expires in 10 days, and provenance show says so; provenance off shows off', async (t) => {
  const data = await tempDir(t);
  const chain = await makeTestChain({ leafDays: 10 });
  await writeFile(join(data, 'chain.pem'), chain.chainPem);
  await writeFile(join(data, 'key.pem'), chain.privateKeyPem);
  const store = await testStoreConfig(t);
  const config = join(data, 'imgtask.json');
  // Relative to the config file's folder, run from elsewhere.
  await writeFile(
    config,
    JSON.stringify({ ...store, provenance: { certificate: { file: 'chain.pem' }, privateKey: { file: 'key.pem' } } }),
  );
  assert.equal((await runCli(['--data', data, '--config', config, 'accounts', 'create', 'acme'])).code, 0);

  const doctor = await runCli(['--data', data, '--config', config, 'doctor', '--json']);
  assert.equal(doctor.code, 0, `a warning fails nothing: ${doctor.stdout}${doctor.stderr}`);
  assert.equal(doctor.json.ok, true);
  assert.equal(doctor.json.provenance.certificate.local, false);
  assert.ok(
    [9, 10].includes(doctor.json.provenance.certificate.daysLeft),
    String(doctor.json.provenance.certificate.daysLeft),
  );
  assert.deepEqual(
    doctor.json.warnings.filter((w: string) => w.startsWith('provenance: ')),
    [doctor.json.provenance.warnings[0]],
  );
  assert.match(
    doctor.json.provenance.warnings[0],
    /^provenance: the signing certificate expires on \d{4}-\d\d-\d\d \((9|10) days left\); install a renewed one before then$/,
  );
  const text = await runCli(['--data', data, '--config', config, 'doctor']);
  assert.match(
    text.stdout,
    /^provenance EXPIRES SOON: signing with the configured certificate \(CN=imgtask test signer, O=imgtask\)/m,
  );

  const shown = await runCli(['--data', data, '--config', config, 'provenance', 'show']);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /^certificate: configured/m);
  assert.match(shown.stdout, new RegExp(`^  sha256: +${fingerprintOf(chain.leafPem)}$`, 'm'));
  assert.match(shown.stdout, /\((9|10) days left\)$/m);

  const off = join(data, 'off.json');
  await writeFile(off, JSON.stringify({ ...store, provenance: { enabled: false } }));
  const offShown = await runCli(['--data', data, '--config', off, 'provenance', 'show', '--json']);
  assert.equal(offShown.code, 0, offShown.stderr);
  assert.deepEqual(offShown.json, { state: 'off' });
});

test('a configured certificate without extendedKeyUsage stops the command with what is wrong', async (t) => {
  const data = await tempDir(t);
  const chain = await makeTestChain({ leafEku: false });
  await writeFile(join(data, 'chain.pem'), chain.chainPem);
  await writeFile(join(data, 'key.pem'), chain.privateKeyPem);
  const store = await testStoreConfig(t);
  const plain = join(data, 'plain.json');
  await writeFile(plain, JSON.stringify(store));
  assert.equal((await runCli(['--data', data, '--config', plain, 'accounts', 'create', 'acme'])).code, 0);
  const config = join(data, 'imgtask.json');
  await writeFile(
    config,
    JSON.stringify({ ...store, provenance: { certificate: { file: 'chain.pem' }, privateKey: { file: 'key.pem' } } }),
  );
  const shown = await runCli(['--data', data, '--config', config, 'provenance', 'show']);
  assert.notEqual(shown.code, 0);
  assert.match(
    shown.stderr,
    /provenance\.certificate: the certificate has no extendedKeyUsage; C2PA signers need emailProtection or documentSigning/,
  );
});
