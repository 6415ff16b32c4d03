import { Reader } from '@contentauth/c2pa-node';

/**
 * An output's C2PA manifest as c2pa-node reads it: its actions, imgtask's assertion, its ingredients and validation.
 */
export interface ReadCredentials {
  actions: { action: string; digitalSourceType?: string }[];
  imgtask: Record<string, unknown>;
  ingredients: { title?: string; relationship?: string }[];
  claimGenerator: { name?: string; version?: string }[];
  /** c2pa's failure codes, a locally issued signer's `signingCredential.untrusted` left out. */
  failures: string[];
}

/**
 * Reads the Content Credentials of a file with c2pa-node's Reader (not the service's signer); null when it carries
 * none.
 */
export async function readCredentials(data: Buffer, mimeType: string): Promise<ReadCredentials | null> {
  let reader: Reader | null;
  try {
    reader = await Reader.fromAsset({ buffer: data, mimeType });
  } catch (err) {
    // c2pa answers a file without a manifest with an error naming the missing JUMBF box.
    if (/jumbf|manifest/i.test((err as Error).message)) return null;
    throw err;
  }
  const manifest = reader?.getActive();
  if (!reader || !manifest) return null;
  const assertions = (manifest.assertions ?? []) as { label: string; data: any }[];
  const actions = assertions.find((a) => a.label.startsWith('c2pa.actions'))?.data.actions ?? [];
  const status = (reader.json().validation_status ?? []) as { code: string }[];
  return {
    actions,
    imgtask: assertions.find((a) => a.label === 'io.imgtask.generation')?.data ?? {},
    ingredients: (manifest.ingredients ?? []).map((i) => ({
      title: i.title ?? undefined,
      relationship: i.relationship ?? undefined,
    })),
    claimGenerator: (manifest.claim_generator_info ?? []) as { name?: string; version?: string }[],
    failures: status.map((s) => s.code).filter((code) => code !== 'signingCredential.untrusted'),
  };
}
