/**
 * Content Credentials (C2PA) of the outputs the service makes: what a signature says about how an
 * output was made, and what reading one answers. The shapes shared by the task types that store
 * outputs, the signing service and the verify route (docs/provenance.md).
 */

/** How an output was made, as its manifest states it. */
export interface OutputOrigin {
  /** `created`: made from a prompt alone; `edited`: made from an input image, named as the ingredient. */
  action: 'created' | 'edited';
  taskId: string;
  /** image.generate, image.remove_background, video.generate. */
  taskType: string;
  model?: string;
  /** The provider (config name) that made it, when known. */
  provider?: string;
  seed?: number;
  /** SHA-256 (hex) of the ComfyUI workflow as run; else of the request's generation parameters (`parametersSha256`). */
  workflowSha256?: string;
  parametersSha256?: string;
  /** The rating level, when the task rated its output. */
  rating?: string;
  /** The review verdict, when the task reviewed its output. */
  review?: { passed: boolean; score?: number };
  /** The prompt: only when `provenance.includePrompt` is on (the signing service drops it otherwise). */
  prompt?: string;
  /** The source image of an edit (background removal, generate with inputs). */
  ingredient?: { data: Buffer; mimeType: string; title: string };
}

/** Whether a stored output carries credentials: `unsigned` when signing is off or unavailable here. */
export type ProvenanceState = 'signed' | 'unsigned';

/** What reading an asset's credentials found (POST /image/verify, `imgtask verify`). */
export interface CredentialsReport {
  /** False: the file carries no C2PA manifest (nothing else is set). */
  present: boolean;
  /**
   * `Trusted`: valid and signed by a certificate chaining to a trust anchor; `Valid`: intact, signer not trusted here;
   * `Invalid`: altered or badly signed.
   */
  validation?: 'Valid' | 'Trusted' | 'Invalid';
  signer?: { commonName?: string; organization?: string; issuer?: string; time?: string };
  claimGenerator?: string;
  /** The c2pa.actions assertion's actions. */
  actions?: { action: string; digitalSourceType?: string; softwareAgent?: string }[];
  /** imgtask's own assertion (task id, model, provider, seed, hashes, rating, review), when present. */
  imgtask?: Record<string, unknown>;
  ingredients?: { title?: string; relationship?: string }[];
  /** Validation failures, by C2PA status code (e.g. assertion.dataHash.mismatch). */
  failures?: { code: string; explanation?: string }[];
}

/** Signs stored outputs and reads credentials; the one port task types, routes and the CLI use. */
export interface OutputSigner {
  /**
   * Signs encoded bytes (image/png, image/jpeg, image/webp, video/mp4). Answers them unchanged with `unsigned` when
   * signing is off or unavailable; never throws for that.
   */
  sign(data: Buffer, mimeType: string, origin: OutputOrigin): Promise<{ data: Buffer; state: ProvenanceState }>;
  /**
   * Reads and validates the credentials of any image or video (trust anchors: the local CA and
   * `provenance.trustAnchors`).
   */
  verify(data: Buffer, mimeType: string): Promise<CredentialsReport>;
  status(): ProvenanceStatus;
}

export interface ProvenanceStatus {
  /**
   * `signing`; `off` (provenance.enabled false); `unavailable` (the native library did not load, or the certificate was
   * refused).
   */
  state: 'signing' | 'off' | 'unavailable';
  reason?: string;
  /**
   * The signing certificate: `sha256` its fingerprint (hex), `serial` its serial number (hex), `local` true for the one
   * made under the data dir's keys/.
   */
  certificate?: {
    subject: string;
    issuer: string;
    notBefore: string;
    notAfter: string;
    sha256: string;
    local: boolean;
    serial?: string;
  };
}
