import type { OutputOrigin } from '../../src/domain/provenance.js';
import { loadC2pa } from '../../src/media/c2pa.js';
import { buildManifest } from '../../src/services/provenance-manifest.js';
import type { TestChain } from './c2pa-certs.js';

/**
 * Signs `data` with the test chain and imgtask's manifest for `origin`, as the service signs an
 * output. With c2pa-node's LocalSigner (signing on the loop): its CallbackSigner would keep the
 * test process alive until collected.
 */
export async function signWithChain(
  chain: TestChain,
  data: Buffer,
  mimeType: string,
  origin: Partial<OutputOrigin> = {},
): Promise<Buffer> {
  const loaded = await loadC2pa();
  if (!loaded.ok) throw new Error(`c2pa-node does not load: ${loaded.reason}`);
  const signer = loaded.lib.LocalSigner.newSigner(
    Buffer.from(chain.chainPem),
    Buffer.from(chain.privateKeyPem),
    'es256',
  );
  const manifest = buildManifest({
    version: '0.0.0-test',
    mimeType,
    origin: { action: 'created', taskId: 'tsk_test', taskType: 'image.generate', ...origin },
    includePrompt: false,
  });
  const builder = loaded.lib.Builder.withJson(manifest, { builder: { thumbnail: { enabled: false } } } as never);
  const output: { buffer: Buffer | null } = { buffer: null };
  builder.sign(signer, { buffer: data, mimeType }, output);
  if (!output.buffer) throw new Error('c2pa: the signed asset was not written');
  return output.buffer;
}

/**
 * The same bytes with one byte of the image data changed (a PNG's first IDAT chunk), so its data hash no longer
 * matches.
 */
export function tamperPng(data: Buffer): Buffer {
  const at = data.indexOf('IDAT');
  if (at < 0) throw new Error('no IDAT chunk');
  const out = Buffer.from(data);
  out[at + 12] ^= 0xff;
  return out;
}
