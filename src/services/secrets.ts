import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import { isoTime } from '../domain/time.js';
import type { Store } from '../store/store-contract.js';
import type { Clock } from './ports.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** AES-256-GCM with the secret's name as associated data: a sealed value moved to another name does not open. */
export function seal(key: Uint8Array, name: string, value: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(name));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

export function open(key: Uint8Array, name: string, sealed: string): string {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAAD(Buffer.from(name));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}

/** A stored secret's record, without its value. */
export interface SecretEntry {
  name: string;
  createdAt: string;
  updatedAt: string;
}

/** Provider keys and header values, sealed with the data dir's key. */
export interface SecretService {
  set(name: string, value: string): Promise<SecretEntry>;
  /** The value, or undefined when there is no such secret. Throws UNKNOWN_ERROR when it cannot be decrypted. */
  get(name: string): Promise<string | undefined>;
  list(): Promise<SecretEntry[]>;
  delete(name: string): Promise<boolean>;
}

/**
 * Secrets at rest (provider keys now, destination credentials later): encrypted with a key
 * file in the data dir (`keys/secrets.key`, 0600), journaled only as ciphertext, never listed
 * with their values.
 */
export function createSecretService(store: Store, key: Uint8Array, clock: Clock): SecretService {
  return {
    async set(name: string, value: string): Promise<SecretEntry> {
      if (!NAME.test(name))
        throw new AppError('VALIDATION_ERROR', 'a secret name is 1 to 64 letters, digits, ".", "_" or "-"');
      if (!value) throw new AppError('VALIDATION_ERROR', 'a secret value cannot be empty');
      const now = isoTime(clock.now());
      const existing = await store.secrets.get(name);
      await store.secrets.put({
        id: name,
        sealed: seal(key, name, value),
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      });
      return { name, createdAt: existing?.createdAt ?? now, updatedAt: now };
    },
    async get(name: string): Promise<string | undefined> {
      const record = await store.secrets.get(name);
      if (!record) return undefined;
      try {
        return open(key, name, record.sealed);
      } catch {
        throw new AppError('UNKNOWN_ERROR', `the secret "${name}" cannot be decrypted with this data dir's key`);
      }
    },
    async list(): Promise<SecretEntry[]> {
      return (await store.secrets.list()).map((s) => ({ name: s.id, createdAt: s.createdAt, updatedAt: s.updatedAt }));
    },
    async delete(name: string): Promise<boolean> {
      return store.secrets.delete(name);
    },
  };
}
