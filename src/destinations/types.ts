interface StoredObject {
  key: string;
  data: Buffer;
  contentType: string;
}

/** A storage target. `put` resolves with the object's public URL, or null when it has none. */
export interface StorageDriver {
  put(object: StoredObject): Promise<{ url: string | null }>;
}

/** A storage refused or failed; `providerResponse` is what it said, for the caller and the operator. */
export class StorageError extends Error {
  constructor(
    message: string,
    readonly providerResponse?: string,
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}
