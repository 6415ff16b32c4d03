import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { type Asset, JPEG, PNG } from '@trustnxt/c2pa-ts/asset';
import { SuperBox } from '@trustnxt/c2pa-ts/jumbf';
import { ManifestStore } from '@trustnxt/c2pa-ts/manifest';
import type { OutputOrigin, OutputSigner } from '../../../src/domain/provenance.js';
import { createOutputSigner } from '../../../src/services/provenance-signer.js';
import { makeTestChain } from '../../helpers/c2pa-certs.js';
import { makeImage } from '../../helpers/images.js';

/**
 * Validates with @trustnxt/c2pa-ts, a C2PA reader written apart from c2pa-rs (it checks hashes and the signature, not
 * the chain of trust).
 */
async function independentlyValidate(asset: Asset) {
  const jumbf = asset.getManifestJUMBF();
  assert.ok(jumbf, 'the file carries a C2PA manifest store');
  const store = ManifestStore.read(SuperBox.fromBuffer(jumbf as Uint8Array<ArrayBuffer>));
  const result = await store.validate(asset);
  return { store, result };
}

let signer: OutputSigner;
before(async () => {
  const chain = await makeTestChain();
  signer = await createOutputSigner({
    settings: { enabled: true, includePrompt: false },
    keys: async () => ({
      chainPem: chain.chainPem,
      privateKeyPem: chain.privateKeyPem,
      anchorsPem: [],
      certificate: undefined,
    }),
    log: () => {},
  });
});

const origin: OutputOrigin = {
  action: 'created',
  taskId: 'tsk_indep',
  taskType: 'image.generate',
  model: 'placeholder-v1',
  seed: 1,
};

for (const [format, Reader] of [
  ['png', PNG],
  ['jpeg', JPEG],
] as const) {
  test(`a signed ${format} validates with the independent c2pa-ts reader, and one changed byte does not`, async () => {
    const signed = await signer.sign(await makeImage({ format, width: 80, height: 80 }), `image/${format}`, origin);
    const { store, result } = await independentlyValidate(new Reader(signed.data));
    assert.equal(result.isValid, true, JSON.stringify(result.statusEntries.filter((e) => !e.success)));
    const labels = store.getActiveManifest()?.assertions?.assertions.map((a) => a.label) ?? [];
    assert.ok(labels.includes('io.imgtask.generation'), labels.join(', '));
    assert.ok(
      labels.some((l) => l?.startsWith('c2pa.actions')),
      labels.join(', '),
    );

    const tampered = Buffer.from(signed.data);
    tampered[tampered.length - 40] ^= 0x01;
    const after = await independentlyValidate(new Reader(tampered));
    assert.equal(after.result.isValid, false);
  });
}
