/** A secret, encrypted (AES-256-GCM) with the data dir's secrets key; `id` is its name. */
export interface SecretRecord {
  id: string;
  /** base64 of iv (12 bytes) ‖ tag (16 bytes) ‖ ciphertext. */
  sealed: string;
  createdAt: string;
  updatedAt: string;
}
