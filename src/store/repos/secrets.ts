import type { SecretRecord } from '../records/secrets.js';

export interface SecretRepo {
  put(secret: SecretRecord): Promise<void>;
  /** False when there was no such secret. */
  delete(id: string): Promise<boolean>;
  get(id: string): Promise<SecretRecord | undefined>;
  list(): Promise<SecretRecord[]>;
}
