import type { OutputOrigin, OutputSigner, ProvenanceState } from '../domain/provenance.js';

/** The signer the image and video libraries store outputs through; none: every output is stored unsigned. */
export type StoringSigner = Pick<OutputSigner, 'sign'>;

/**
 * An output's bytes as they are stored (docs/provenance.md): signed when it has an origin (a made
 * output; uploads have none), with whether they carry credentials. A signature that cannot be made
 * leaves the output unsigned rather than losing an image already made (and paid for): its item
 * says `provenance: unsigned`.
 */
export async function signForStorage(
  signer: StoringSigner | undefined,
  data: Buffer,
  mimeType: string,
  origin: OutputOrigin | undefined,
  log?: (message: string) => void,
): Promise<{ data: Buffer; provenance?: ProvenanceState }> {
  if (!origin) return { data };
  if (!signer) return { data, provenance: 'unsigned' };
  try {
    const signed = await signer.sign(data, mimeType, origin);
    return { data: signed.data, provenance: signed.state };
  } catch (err) {
    log?.(
      `provenance: ${origin.taskType} output of task ${origin.taskId} stored unsigned: signing failed (${(err as Error).message})`,
    );
    return { data, provenance: 'unsigned' };
  }
}
