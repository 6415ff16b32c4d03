import { readFileSync } from 'node:fs';
import type { Manifest, ManifestStore } from '@contentauth/c2pa-types';
import { ConfigError } from '../domain/config-error.js';
import type { CredentialsReport, OutputOrigin, OutputSigner, ProvenanceStatus } from '../domain/provenance.js';
import {
  type C2paLib,
  type C2paLoad,
  createAssetSigner,
  loadC2pa,
  readAsset,
  type SigningAlg,
  signAsset,
} from '../media/c2pa.js';
import { buildManifest, IMGTASK_ASSERTION, SOURCE_INGREDIENT } from './provenance-manifest.js';

/** The package's version (package.json beside src/ and dist/): the claim generator's. */
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The keys a signer signs with (src/services/provenance-keys.ts loads them). */
export interface SignerKeys {
  chainPem: string;
  privateKeyPem: string;
  /** Default es256. */
  alg?: SigningAlg;
  /** The local CA is among `anchorsPem` when the keys are local ones. */
  anchorsPem: string[];
  certificate: ProvenanceStatus['certificate'];
}

export interface OutputSignerDeps {
  /** provenance.enabled, includePrompt and timestampUrl, as read at start. */
  settings: { enabled: boolean; includePrompt: boolean; timestampUrl?: string };
  /** The signing keys; only asked for when signing is enabled (a refused certificate throws: the start fails). */
  keys: () => Promise<SignerKeys>;
  /** Trust anchors of verify when signing is off (with it, the keys' anchors). */
  anchorsPem?: () => Promise<string[]>;
  /** Loads c2pa-node; tests inject one that fails. */
  load?: () => Promise<C2paLoad>;
  log: (message: string) => void;
  version?: string;
}

/** A 1×1 PNG: what the start signs once, so a certificate c2pa refuses stops the start instead of every output. */
const PROBE_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAcCBlCwAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * The output signer (docs/provenance.md): built at start. Off when provenance.enabled is false;
 * unavailable (one warning; outputs stored unsigned) when c2pa-node's binary does not load here;
 * a certificate the keys' loader or c2pa refuses fails the start with the reason.
 */
export async function createOutputSigner(deps: OutputSignerDeps): Promise<OutputSigner> {
  const version = deps.version ?? VERSION;
  const loaded = await (deps.load ?? loadC2pa)();
  const lib: C2paLib | undefined = loaded.ok ? loaded.lib : undefined;
  let status: ProvenanceStatus;
  let sign: OutputSigner['sign'] = async (data) => ({ data, state: 'unsigned' });
  let anchors: string[] = [];

  if (!deps.settings.enabled) {
    status = { state: 'off' };
    anchors = (await deps.anchorsPem?.()) ?? [];
  } else if (!lib) {
    const reason = `the C2PA library does not load on this platform (${(loaded as { reason: string }).reason})`;
    status = { state: 'unavailable', reason };
    deps.log(`provenance: ${reason}; outputs are stored unsigned`);
  } else {
    const keys = await deps.keys();
    anchors = keys.anchorsPem;
    const signer = createAssetSigner({
      chainPem: keys.chainPem,
      privateKeyPem: keys.privateKeyPem,
      alg: keys.alg,
      timestampUrl: deps.settings.timestampUrl,
    });
    const manifestOf = (mimeType: string, origin: OutputOrigin): Manifest =>
      buildManifest({ version, mimeType, origin, includePrompt: deps.settings.includePrompt });
    // Without a timestamp authority (a probe would reach it at every start), the probe signs once here.
    if (!deps.settings.timestampUrl) {
      const probe: OutputOrigin = { action: 'created', taskId: 'probe', taskType: 'probe' };
      await signAsset(lib, signer, { data: PROBE_PNG, mimeType: 'image/png' }, manifestOf('image/png', probe)).catch(
        (err: Error) => {
          throw new ConfigError(
            `provenance: the signing certificate is refused (${err.message}): a C2PA signing certificate has keyUsage digitalSignature and extendedKeyUsage emailProtection or documentSigning, and is issued by a CA (docs/provenance.md)`,
          );
        },
      );
    }
    status = { state: 'signing', ...(keys.certificate ? { certificate: keys.certificate } : {}) };
    sign = async (data, mimeType, origin) => {
      const ingredients = origin.ingredient
        ? [{ ...origin.ingredient, relationship: 'parentOf' as const, label: SOURCE_INGREDIENT }]
        : [];
      return {
        data: await signAsset(lib, signer, { data, mimeType }, manifestOf(mimeType, origin), ingredients),
        state: 'signed',
      };
    };
  }

  return {
    sign,
    async verify(data, mimeType) {
      if (!lib)
        throw new Error(
          `provenance: the C2PA library does not load on this platform (${(loaded as { reason: string }).reason})`,
        );
      return reportOf(await readAsset(lib, { data, mimeType }, anchors));
    },
    status: () => status,
  };
}

type Assertion = { label: string; data: unknown };
type SignatureInfo = { common_name?: string; issuer?: string; time?: string };

/** What a manifest store says, as a CredentialsReport: its active manifest and its validation. */
export function reportOf(store: ManifestStore | null): CredentialsReport {
  const manifest = store?.active_manifest ? store.manifests?.[store.active_manifest] : undefined;
  if (!store || !manifest) return { present: false };
  const assertions = (manifest.assertions ?? []) as Assertion[];
  const actionsAssertion = assertions.find((a) => a.label === 'c2pa.actions' || a.label === 'c2pa.actions.v2');
  const actions = ((actionsAssertion?.data as { actions?: Record<string, unknown>[] } | undefined)?.actions ?? []).map(
    (a) => ({
      action: String(a.action),
      ...(typeof a.digitalSourceType === 'string' ? { digitalSourceType: a.digitalSourceType } : {}),
      ...(softwareAgentOf(a.softwareAgent) ? { softwareAgent: softwareAgentOf(a.softwareAgent) } : {}),
    }),
  );
  const own = assertions.find((a) => a.label === IMGTASK_ASSERTION);
  const info = (manifest.signature_info ?? {}) as SignatureInfo;
  const generator = manifest.claim_generator_info?.[0];
  const failures = (store.validation_status ?? []).map((s) => ({
    code: s.code,
    ...(s.explanation ? { explanation: s.explanation } : {}),
  }));
  return {
    present: true,
    validation: validationOf(store),
    signer: {
      ...(info.common_name ? { commonName: info.common_name } : {}),
      ...(info.issuer ? { issuer: info.issuer } : {}),
      ...(info.time ? { time: info.time } : {}),
    },
    ...(generator ? { claimGenerator: [generator.name, generator.version].filter(Boolean).join(' ') } : {}),
    actions,
    ...(own ? { imgtask: own.data as Record<string, unknown> } : {}),
    ingredients: (manifest.ingredients ?? []).map((i) => ({
      ...(i.title ? { title: i.title } : {}),
      ...(i.relationship ? { relationship: i.relationship } : {}),
    })),
    failures,
  };
}

function softwareAgentOf(agent: unknown): string | undefined {
  if (typeof agent === 'string') return agent;
  if (agent && typeof agent === 'object' && 'name' in agent) return String((agent as { name: unknown }).name);
  return undefined;
}

/**
 * c2pa's validation state; a store without one (an old reader) is Invalid when it lists a failure other than an
 * untrusted signer.
 */
function validationOf(store: ManifestStore): 'Valid' | 'Trusted' | 'Invalid' {
  const state = (store as { validation_state?: string }).validation_state;
  if (state === 'Valid' || state === 'Trusted' || state === 'Invalid') return state;
  const failing = (store.validation_status ?? []).some((s) => s.code !== 'signingCredential.untrusted');
  return failing ? 'Invalid' : 'Valid';
}
