import type { OutputOrigin } from '../../src/domain/provenance.js';
import { createAssetSigner, loadC2pa, signAsset } from '../../src/media/c2pa.js';
import { buildManifest } from '../../src/services/provenance-manifest.js';
import type { TestChain } from './c2pa-certs.js';

/** Signs `data` with the test chain, as the service signs an output (imgtask's manifest for `origin`). */
export async function signWithChain(chain: TestChain, data: Buffer, mimeType: string, origin: Partial<OutputOrigin> = {}): Promise<Buffer> {
  const loaded = await loadC2pa();
  if (!loaded.ok) throw new Error(`c2pa-node does not load: ${loaded.reason}`);
  const signer = createAssetSigner(loaded.lib, { chainPem: chain.chainPem, privateKeyPem: chain.privateKeyPem });
  const manifest = buildManifest({ version: '0.0.0-test', mimeType, origin: { action: 'created', taskId: 'tsk_test', taskType: 'image.generate', ...origin }, includePrompt: false });
  return signAsset(loaded.lib, signer, { data, mimeType }, manifest);
}

/** The same bytes with one byte of the image data changed (a PNG's first IDAT chunk), so its data hash no longer matches. */
export function tamperPng(data: Buffer): Buffer {
  const at = data.indexOf('IDAT');
  if (at < 0) throw new Error('no IDAT chunk');
  const out = Buffer.from(data);
  out[at + 12] ^= 0xff;
  return out;
}
