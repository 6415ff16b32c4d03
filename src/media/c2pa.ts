import { constants, createPrivateKey, type SignKeyObjectInput, sign as signBytes } from 'node:crypto';
import type { Manifest, ManifestStore } from '@contentauth/c2pa-types';

/**
 * A thin wrapper over @contentauth/c2pa-node (docs/provenance.md). Its native binary ships for a
 * few platforms only, so the library is imported lazily and a load that fails is an answer, not a
 * crash: the service then stores its outputs unsigned.
 */
export type C2paLib = typeof import('@contentauth/c2pa-node');

export type C2paLoad = { ok: true; lib: C2paLib } | { ok: false; reason: string };

/** Imports c2pa-node and loads its native binary (it loads on first use: a throwaway builder forces it here). */
export async function loadC2pa(): Promise<C2paLoad> {
  try {
    const lib = await import('@contentauth/c2pa-node');
    lib.Builder.new();
    return { ok: true, lib };
  } catch (err) {
    return { ok: false, reason: (err as Error).message.split('\n')[0] ?? String(err) };
  }
}

/** c2pa-node's signing algorithms. */
export type SigningAlg = 'es256' | 'es384' | 'es512' | 'ps256' | 'ed25519';

/**
 * The certificate chain (leaf first) and its PKCS#8 key, PEM; the key's algorithm (default es256); the timestamp
 * authority, when one is configured.
 */
export interface SignerMaterial {
  chainPem: string;
  privateKeyPem: string;
  alg?: SigningAlg;
  timestampUrl?: string;
}

/**
 * How Node's crypto makes each algorithm's signature as COSE holds it (ECDSA as r||s; RSA-PSS with a salt the hash's
 * length).
 */
const NODE_SIGNING: Record<SigningAlg, { hash: string | null; options: Omit<SignKeyObjectInput, 'key'> }> = {
  es256: { hash: 'sha256', options: { dsaEncoding: 'ieee-p1363' } },
  es384: { hash: 'sha384', options: { dsaEncoding: 'ieee-p1363' } },
  es512: { hash: 'sha512', options: { dsaEncoding: 'ieee-p1363' } },
  ps256: { hash: 'sha256', options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } },
  ed25519: { hash: null, options: {} },
};

export interface AssetBytes {
  data: Buffer;
  mimeType: string;
}

/** What c2pa-node's `signConfigAsync` signs with: the signer's settings and the callback that makes the signature. */
export interface AssetSigner {
  config: Parameters<InstanceType<C2paLib['Builder']>['signConfigAsync']>[1];
  sign: (data: Buffer) => Promise<Buffer>;
}

/**
 * A signer whose signature is made by Node's crypto: c2pa-node signs with it through
 * `signConfigAsync`, which does its work off the event loop (its `LocalSigner` only signs
 * synchronously, on the loop). Not a `CallbackSigner`: one of those keeps the process alive for
 * as long as it exists (a CLI command would never exit); the callback here lives for one sign.
 */
export function createAssetSigner(material: SignerMaterial): AssetSigner {
  const key = createPrivateKey(material.privateKeyPem);
  const alg = material.alg ?? 'es256';
  const { hash, options } = NODE_SIGNING[alg];
  return {
    config: {
      alg,
      certs: [Buffer.from(material.chainPem)],
      // The signature, the certificates and a timestamp token fit in this.
      reserveSize: 20_000,
      ...(material.timestampUrl ? { tsaUrl: material.timestampUrl } : {}),
      directCoseHandling: false,
    },
    sign: async (data: Buffer) => signBytes(hash, data, { key, ...options }),
  };
}

/**
 * Builder settings: no thumbnail of the output in the manifest. A thumbnail is optional in C2PA
 * and would cost 50–140 ms a 1024² image against 1–6 ms without (measured, docs/provenance.md).
 */
const BUILDER_SETTINGS = { builder: { thumbnail: { enabled: false } } };

/** An ingredient: the bytes of a source the output was made from, and how it relates to the output. */
export interface IngredientAsset extends AssetBytes {
  title: string;
  relationship: 'parentOf' | 'componentOf' | 'inputTo';
  /** What the manifest's actions name it by (their `parameters.ingredientIds`). */
  label: string;
}

/** Signs `asset` with the manifest `definition` (plus its ingredients); answers the signed bytes. */
export async function signAsset(
  lib: C2paLib,
  signer: AssetSigner,
  asset: AssetBytes,
  definition: Manifest,
  ingredients: IngredientAsset[] = [],
): Promise<Buffer> {
  const builder = lib.Builder.withJson(definition, BUILDER_SETTINGS as never);
  for (const ingredient of ingredients) {
    await builder.addIngredient(
      JSON.stringify({
        title: ingredient.title,
        format: ingredient.mimeType,
        relationship: ingredient.relationship,
        label: ingredient.label,
      }),
      {
        buffer: ingredient.data,
        mimeType: ingredient.mimeType,
      },
    );
  }
  const output: { buffer: Buffer | null } = { buffer: null };
  await builder.signConfigAsync(signer.sign, signer.config, { buffer: asset.data, mimeType: asset.mimeType }, output);
  if (!output.buffer) throw new Error('c2pa: the signed asset was not written');
  return output.buffer;
}

/**
 * Reads and validates an asset's manifest store; null when it has none. Trust is checked against
 * `anchorsPem` only; nothing is fetched (no remote manifest, no OCSP): a verify never reaches out.
 */
export async function readAsset(lib: C2paLib, asset: AssetBytes, anchorsPem: string[]): Promise<ManifestStore | null> {
  const settings = {
    ...(anchorsPem.length > 0 ? { trust: { user_anchors: anchorsPem.join('\n') } } : {}),
    verify: { verify_trust: true, remote_manifest_fetch: false, ocsp_fetch: false },
  };
  const reader = await lib.Reader.fromAsset(
    { buffer: asset.data, mimeType: asset.mimeType },
    JSON.stringify(settings) as never,
  );
  return reader ? reader.json() : null;
}
