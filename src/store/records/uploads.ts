/**
 * An image a client uploaded (POST /image/upload): whose it is, for DELETE /image/upload/{id},
 * retention and the account's stored bytes. `id` is the image id (`img_…`).
 */
export interface UploadRecord {
  id: string;
  accountId: string;
  /** The key that uploaded it; null for an access token. */
  apiKeyId: string | null;
  /** The blob's name (`img_….png`). */
  fileName: string;
  bytes: number;
  createdAt: string;
  /**
   * When its owner deleted it (DELETE /image/upload/{id}): its file is gone and the record stays
   * as a tombstone, so a repeat answers as the first did. Deleted records hold no bytes, and
   * neither retention nor usage counts them.
   */
  deletedAt?: string;
}
