import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { Builder, LocalSigner, Reader } from '@contentauth/c2pa-node';
import type { ProvenanceConfig } from '../../../src/config/schema.js';
import { describeUsage } from '../../../src/services/provenance-certificates.js';
import {
  loadSigningKeys,
  loadTrustAnchors,
  localKeyFiles,
  type SigningKeyOptions,
} from '../../../src/services/provenance-keys.js';
import { createOutputSigner } from '../../../src/services/provenance-signer.js';
import { makeSelfSignedLeaf, makeTestChain } from '../../helpers/c2pa-certs.js';
import { makeImage } from '../../helpers/images.js';
import { tempDir } from '../../helpers/temp-dir.js';

const DAY = 86_400_000;
const LOCAL: ProvenanceConfig = { enabled: true, includePrompt: false };

/** Options over a data dir, recording what the loader logs. */
function optionsFor(dataDir: string, more: Partial<SigningKeyOptions> = {}) {
  const warnings: string[] = [];
  const infos: string[] = [];
  const options: SigningKeyOptions = {
    provenance: LOCAL,
    dataDir,
    secret: async () => undefined,
    env: (name) => process.env[name],
    log: { warn: (m) => warnings.push(m), info: (m) => infos.push(m) },
    ...more,
  };
  return { options, warnings, infos };
}

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

test('the first load makes a local CA and signing certificate under keys/ (0600 files, 0700 folder), warning once; the next load reuses them', async (t) => {
  const data = await tempDir(t);
  const first = optionsFor(data);
  const keys = await loadSigningKeys(first.options);
  assert.equal(keys.local, true);
  assert.equal(keys.alg, 'es256');
  assert.equal(first.warnings.length, 1);
  assert.match(first.warnings[0] ?? '', /untrusted.*C2PA-trusted CA.*docs\/provenance\.md#certificates/);

  const files = localKeyFiles(data);
  assert.equal(await modeOf(join(data, 'keys')), 0o700);
  assert.equal(await modeOf(files.ca), 0o600);
  assert.equal(await modeOf(files.signing), 0o600);
  assert.deepEqual(
    (await readdir(join(data, 'keys'))).sort(),
    ['provenance-ca.pem', 'provenance-signing.pem'],
    'no temp file left behind',
  );

  // The chain: the leaf (CA:FALSE, digitalSignature, emailProtection + documentSigning, ~1 year), then the CA (CA:TRUE,
  // ~10 years).
  const [leafPem, caPem] = keys.chainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  const leaf = new X509Certificate(leafPem as string);
  const ca = new X509Certificate(caPem as string);
  assert.equal(leaf.ca, false);
  assert.equal(ca.ca, true);
  assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey));
  assert.deepEqual(describeUsage(leafPem as string), {
    ca: false,
    digitalSignature: true,
    eku: ['1.3.6.1.5.5.7.3.4', '1.3.6.1.5.5.7.3.36'],
  });
  const leafDays = (Date.parse(leaf.validTo) - Date.now()) / DAY;
  const caDays = (Date.parse(ca.validTo) - Date.now()) / DAY;
  assert.ok(leafDays > 364 && leafDays <= 365, `${leafDays}`);
  assert.ok(caDays > 3649 && caDays <= 3650, `${caDays}`);
  assert.match(keys.privateKeyPem, /^-----BEGIN PRIVATE KEY-----/, 'PKCS#8');
  assert.deepEqual(keys.anchorsPem, [caPem?.concat('\n')]);
  assert.equal(keys.certificate.sha256, leaf.fingerprint256.replaceAll(':', '').toLowerCase());
  assert.equal(keys.certificate.local, true);

  const again = optionsFor(data);
  const reused = await loadSigningKeys(again.options);
  assert.equal(reused.certificate.sha256, keys.certificate.sha256);
  assert.equal(reused.privateKeyPem, keys.privateKeyPem);
  assert.deepEqual(again.warnings, [], 'said once, at creation');
  assert.equal(again.infos.length, 1);
});

test('two first loads at once on one data dir make one CA, not two', async (t) => {
  const data = await tempDir(t);
  const a = optionsFor(data);
  const b = optionsFor(data);
  const [one, two] = await Promise.all([loadSigningKeys(a.options), loadSigningKeys(b.options)]);
  assert.deepEqual(one.anchorsPem, two.anchorsPem);
  assert.equal(one.certificate.sha256, two.certificate.sha256);
  assert.equal(a.warnings.length + b.warnings.length, 1);
});

test('the local signing certificate is renewed from the same CA within 30 days of its expiry', async (t) => {
  const data = await tempDir(t);
  const made = await loadSigningKeys(optionsFor(data).options);
  const later = optionsFor(data, { now: () => new Date(Date.now() + 340 * DAY) });
  const renewed = await loadSigningKeys(later.options);
  assert.notEqual(renewed.certificate.sha256, made.certificate.sha256);
  assert.deepEqual(renewed.anchorsPem, made.anchorsPem, 'the same CA');
  assert.ok(Date.parse(renewed.certificate.notAfter) > Date.now() + 700 * DAY);
  assert.deepEqual(later.warnings, []);
  assert.match(later.infos.join('\n'), /renewed the local signing certificate/);
  // The renewed one is the one kept.
  assert.equal(
    (await loadSigningKeys({ ...later.options, log: { info() {}, warn() {} } })).certificate.sha256,
    renewed.certificate.sha256,
  );
});

test('the local certificate signs with c2pa-node, and reads back Trusted with its CA as the anchor', async (t) => {
  const keys = await loadSigningKeys(optionsFor(await tempDir(t)).options);
  const png = await makeImage({ width: 64, height: 64, format: 'png' });
  const signer = LocalSigner.newSigner(Buffer.from(keys.chainPem), Buffer.from(keys.privateKeyPem), keys.alg);
  const created = {
    action: 'c2pa.created',
    digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
  };
  const builder = Builder.withJson({
    claim_generator_info: [{ name: 'imgtask-test', version: '0' }],
    assertions: [{ label: 'c2pa.actions', data: { actions: [created] } }],
  } as never);
  const out: { buffer: Buffer | null } = { buffer: null };
  await builder.sign(signer, { buffer: png, mimeType: 'image/png' }, out as never);
  assert.ok(out.buffer && out.buffer.length > png.length);
  const reader = await Reader.fromAsset({ buffer: out.buffer, mimeType: 'image/png' });
  assert.ok(reader, 'a manifest is there');
  // Without anchors: intact, its only failure the untrusted signer.
  const store = reader.json();
  assert.equal(store.validation_state, 'Valid');
  assert.deepEqual(
    store.validation_results?.activeManifest?.failure.map((status) => status.code),
    ['signingCredential.untrusted'],
  );

  const outputs = await createOutputSigner({
    settings: { enabled: true, includePrompt: false },
    keys: async () => keys,
    log: () => {},
  });
  const signed = await outputs.sign(png, 'image/png', {
    action: 'created',
    taskId: 'tsk_keys',
    taskType: 'image.generate',
  });
  assert.equal(signed.state, 'signed');
  const report = await outputs.verify(signed.data, 'image/png');
  assert.equal(report.validation, 'Trusted');
  assert.equal(report.signer?.commonName, 'imgtask local signer');
});

test('a configured certificate and key load from a file, an environment variable or a secret', async (t) => {
  const data = await tempDir(t);
  const chain = await makeTestChain();
  await writeFile(join(data, 'chain.pem'), chain.chainPem);
  await writeFile(join(data, 'key.pem'), chain.privateKeyPem);
  const leafSha = new X509Certificate(chain.leafPem).fingerprint256.replaceAll(':', '').toLowerCase();

  const fromFiles = await loadSigningKeys(
    optionsFor(data, {
      configDir: data,
      provenance: {
        ...LOCAL,
        certificate: { file: 'chain.pem' },
        privateKey: { file: join(data, 'key.pem') },
        trustAnchors: { file: 'chain.pem' },
      },
    }).options,
  );
  assert.equal(fromFiles.local, false);
  assert.equal(fromFiles.alg, 'es256');
  assert.equal(fromFiles.certificate.sha256, leafSha);
  assert.equal(fromFiles.certificate.local, false);
  assert.equal(fromFiles.anchorsPem.length, 2, 'both certificates of the anchors file (no local CA was made)');
  await assert.rejects(stat(localKeyFiles(data).ca), 'no local CA is made beside a configured certificate');

  process.env.IMGTASK_TEST_PROVENANCE_CERT = chain.chainPem;
  t.after(() => delete process.env.IMGTASK_TEST_PROVENANCE_CERT);
  const secrets: Record<string, string> = { 'signing-key': chain.privateKeyPem };
  const fromEnvAndSecret = await loadSigningKeys(
    optionsFor(data, {
      secret: async (name) => secrets[name],
      provenance: {
        ...LOCAL,
        certificate: { env: 'IMGTASK_TEST_PROVENANCE_CERT' },
        privateKey: { secret: 'signing-key' },
      },
    }).options,
  );
  assert.equal(fromEnvAndSecret.certificate.sha256, leafSha);
  assert.deepEqual(fromEnvAndSecret.anchorsPem, []);

  await assert.rejects(
    loadSigningKeys(
      optionsFor(data, {
        provenance: { ...LOCAL, certificate: { env: 'IMGTASK_TEST_PROVENANCE_CERT' }, privateKey: { secret: 'nope' } },
      }).options,
    ),
    /provenance\.privateKey: no secret "nope" \(set it with: imgtask secrets set nope/,
  );
  await assert.rejects(
    loadSigningKeys(
      optionsFor(data, {
        provenance: {
          ...LOCAL,
          certificate: { env: 'IMGTASK_TEST_UNSET_VARIABLE' },
          privateKey: { secret: 'signing-key' },
        },
      }).options,
    ),
    /provenance\.certificate: the environment variable IMGTASK_TEST_UNSET_VARIABLE is not set/,
  );
  await assert.rejects(
    loadSigningKeys(
      optionsFor(data, {
        configDir: data,
        provenance: { ...LOCAL, certificate: { file: 'missing.pem' }, privateKey: { secret: 'signing-key' } },
      }).options,
    ),
    /provenance\.certificate: cannot read .*missing\.pem \(ENOENT\)/,
  );
});

/** Loads a configured chain and key from files; answers the refusal's message. */
async function refusal(t: import('node:test').TestContext, chainPem: string, keyPem: string): Promise<string> {
  const data = await tempDir(t);
  await writeFile(join(data, 'chain.pem'), chainPem);
  await writeFile(join(data, 'key.pem'), keyPem);
  const options = optionsFor(data, {
    configDir: data,
    provenance: { ...LOCAL, certificate: { file: 'chain.pem' }, privateKey: { file: 'key.pem' } },
  }).options;
  const err = await loadSigningKeys(options).then(
    () => assert.fail('loaded'),
    (e: Error) => e,
  );
  assert.equal(err.name, 'ConfigError');
  return err.message;
}

test('configured certificates C2PA refuses are refused at load, each saying what is wrong and what to do', async (t) => {
  const noEku = await makeTestChain({ leafEku: false });
  assert.match(
    await refusal(t, noEku.chainPem, noEku.privateKeyPem),
    /the certificate has no extendedKeyUsage; C2PA signers need emailProtection or documentSigning; ask your CA/,
  );

  const caLeaf = await makeTestChain({ leafCa: true });
  assert.match(
    await refusal(t, caLeaf.chainPem, caLeaf.privateKeyPem),
    /the first certificate is a CA certificate \(basicConstraints CA:TRUE\); give the signing \(end-entity\) certificate first/,
  );

  const self = await makeSelfSignedLeaf();
  assert.match(
    await refusal(t, self.certificatePem, self.privateKeyPem),
    /the certificate is self-signed; C2PA verifiers refuse a self-signed signer; use a certificate issued by a CA/,
  );

  const expired = await makeTestChain({ leafDays: -3 });
  assert.match(
    await refusal(t, expired.chainPem, expired.privateKeyPem),
    /the certificate expired on \d{4}-\d\d-\d\dT.*; install a renewed certificate/,
  );

  const other = await makeTestChain();
  assert.match(
    await refusal(t, other.chainPem, noEku.privateKeyPem),
    /provenance\.privateKey: the key does not match the certificate/,
  );

  assert.match(await refusal(t, 'not a pem', other.privateKeyPem), /no PEM certificate found/);
});

test('with signing off, verify trusts the local CA once made, and provenance.trustAnchors', async (t) => {
  const data = await tempDir(t);
  assert.deepEqual(
    await loadTrustAnchors({ provenance: LOCAL, dataDir: data, secret: async () => undefined, env: () => undefined }),
    [],
  );
  await assert.rejects(stat(join(data, 'keys')), 'nothing is made');
  const keys = await loadSigningKeys(optionsFor(data).options);
  const chain = await makeTestChain();
  const anchors = await loadTrustAnchors({
    provenance: { ...LOCAL, trustAnchors: { secret: 'anchors' } },
    dataDir: data,
    secret: async () => chain.caPem,
    env: () => undefined,
  });
  assert.deepEqual(anchors, [...keys.anchorsPem, chain.caPem]);
});
