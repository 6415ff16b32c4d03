import type { SafeFetchError } from '../net/safe-fetch.js';

export interface StoredObject {
  key: string;
  data: Buffer;
  contentType: string;
  /** For whoever reads the object from the storage (stored images never change under their key). */
  cacheControl?: string;
  /** The task that made the object, kept as object metadata where the storage has any. */
  taskId?: string;
}

/** A storage target. */
export interface StorageDriver {
  /**
   * Writes an object. Resolves with the key it was written under, exactly as the storage names
   * it (an S3 prefix included), and its public URL, or null when it has none. `signal` (the
   * item's) aborts a request under way.
   */
  put(object: StoredObject, signal?: AbortSignal): Promise<{ key: string; url: string | null }>;
  /** Deletes an object by the key `put` resolved with. */
  remove(key: string): Promise<void>;
}

/**
 * A storage refused or failed; `providerResponse` is what it said, for the caller and the
 * operator. `refused`: the SSRF guard would not let the request reach the storage's address,
 * which the destination's settings (or the server's) decide, not the storage.
 */
export class StorageError extends Error {
  constructor(
    message: string,
    readonly providerResponse?: string,
    readonly timedOut = false,
    readonly refused = false,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

/**
 * The SSRF guard's failure as a StorageError, in its own words (they name the host and, for an address it refuses, the
 * setting).
 */
export const guardFailure = (err: SafeFetchError) =>
  new StorageError(err.message, undefined, err.reason === 'timeout', err.reason === 'refused');

/** A key in a URL path: each segment percent-encoded, the slashes kept. */
export const encodeKey = (key: string) => key.split('/').map(encodeURIComponent).join('/');

/** `base/<key>`, the key encoded; null without a base. */
export const publicUrl = (base: string | undefined, key: string) =>
  base ? `${base.replace(/\/+$/, '')}/${encodeKey(key)}` : null;
