import type { ConfigSource } from '../config/source.js';
import type { StorageDriver, StoredObject } from '../destinations/storage-driver.js';
import { AppError } from '../domain/errors.js';
import { randomBase62, sortableId } from '../domain/ids.js';
import { isoTime } from '../domain/time.js';
import type { DestinationRecord } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import { DESTINATION_CONFIGS, type DestinationProviderId, SECRET_FIELDS } from './destination-configs.js';
import { type Clock, type Owner, ownedBy } from './ports.js';
import { open, seal } from './secrets.js';

const mask = (value: string) => (value.length <= 4 ? '****' : `****${value.slice(-4)}`);
const isMasked = (value: unknown) => typeof value === 'string' && value.startsWith('****');

export interface DestinationView {
  id: string;
  name: string;
  provider: { id: DestinationProviderId };
  config: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** Builds a driver for a destination (the composition root wires the real ones). */
export type DriverFactory = (providerId: DestinationProviderId, config: Record<string, unknown>) => StorageDriver;

export interface DeliveredTo {
  name: string;
  status: 'success' | 'failed';
  key?: string;
  url?: string | null;
  error?: { code: string; message: string; provider_response?: string };
}

/**
 * The answer to a test upload: the object's full key (as `put` reported it) and its public URL,
 * and whether it was deleted afterwards (the URL then no longer serves it).
 */
type TestUpload = { ok: true; key: string; url: string | null } & (
  | { deleted: true }
  | { deleted: false; deleteError: string }
);

/** The SSRF guard would not let the request reach the storage's address (a driver's StorageError says so). */
const refusedByGuard = (err: unknown) => (err as { refused?: boolean }).refused === true;

/** What a storage said: its own answer when it gave one, else the error's message. */
const storageMessage = (err: unknown) =>
  (err as { providerResponse?: string }).providerResponse ?? (err as Error).message;

function renderKey(
  template: string,
  vars: { taskId: string; imageId: string; index: number; date: string; ext: string },
): string {
  return template.replace(/\{(taskId|imageId|index|date|ext)\}/g, (_, name: keyof typeof vars) => String(vars[name]));
}

/** A destination as every door gives it (POST /destinations, as its body). */
export interface CreateDestinationInput {
  name: string;
  provider: { id: DestinationProviderId };
  config: unknown;
}

/** A change of a destination (PATCH /destinations/{id}, as its body): a new name and/or a whole new config. */
export interface UpdateDestinationInput {
  name?: string;
  provider?: { id: string };
  config?: Record<string, unknown>;
}

/** An image to deliver, and what its object key is made of. */
export interface DeliveredImage {
  taskId: string;
  imageId: string;
  index: number;
  ext: string;
  data: Buffer;
  contentType: string;
}

/** Destinations: an account's named storage targets, managed, tested, and delivered to by tasks. */
export interface DestinationService {
  create(accountId: string, input: CreateDestinationInput): Promise<DestinationView>;
  list(accountId: string): Promise<DestinationView[]>;
  get(owner: Owner, id: string): Promise<DestinationView>;
  /** Changes name and/or config; the provider cannot change (DESTINATIONS_INVALID_PROVIDER). */
  update(owner: Owner, id: string, input: UpdateDestinationInput): Promise<DestinationView>;
  delete(owner: Owner, id: string): Promise<void>;
  /** Writes a small test object, then deletes it (DESTINATION_TEST_FAILED when the write is refused). */
  test(owner: Owner, id: string): Promise<TestUpload>;
  exists(accountId: string, name: string): Promise<boolean>;
  /** Delivers one image to the named destination; a failure is an answer, not a throw. */
  deliver(accountId: string, name: string, image: DeliveredImage, signal?: AbortSignal): Promise<DeliveredTo>;
}

/**
 * Destinations: named storage targets of an account (docs/api/destinations.md). Secret config
 * fields are sealed with the secrets key and answered masked; reading a secret that cannot be
 * decrypted is 500 UNKNOWN_ERROR (docs/reference/errors.md#request-errors).
 */
export function createDestinationService(deps: {
  store: Store;
  clock: Clock;
  config: Pick<ConfigSource, 'current'>;
  secretsKey: Uint8Array;
  driver: DriverFactory;
  isUnderAllowedRoot: (path: string, roots: readonly string[]) => boolean;
  /** Folders local destinations may always write under (the data dir's exports folder), beside the configured roots. */
  localRoots?: readonly string[];
}): DestinationService {
  const allowedRoots = () => [...(deps.localRoots ?? []), ...deps.config.current().destinations.local.allowedRoots];
  const { store, clock } = deps;

  function secretsOf(record: DestinationRecord): Record<string, unknown> {
    if (!record.sealedSecrets) return {};
    try {
      return JSON.parse(open(deps.secretsKey, record.id, record.sealedSecrets)) as Record<string, unknown>;
    } catch {
      throw new AppError(
        'UNKNOWN_ERROR',
        `the secrets of destination ${record.name} cannot be read with this data dir's key`,
      );
    }
  }

  const fullConfig = (record: DestinationRecord) => ({ ...record.config, ...secretsOf(record) });

  function view(record: DestinationRecord): DestinationView {
    const secrets = secretsOf(record);
    const masked: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(secrets)) {
      masked[field] =
        typeof value === 'string'
          ? mask(value)
          : Object.fromEntries(Object.entries(value as Record<string, string>).map(([k, v]) => [k, mask(v)]));
    }
    return {
      id: record.id,
      name: record.name,
      provider: record.provider,
      config: { ...record.config, ...masked },
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    };
  }

  function parseConfig(providerId: DestinationProviderId, config: unknown): Record<string, unknown> {
    const parsed = DESTINATION_CONFIGS[providerId].safeParse(config);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new AppError('VALIDATION_ERROR', `config.${issue.path.join('.')}: ${issue.message}`);
    }
    if (providerId === 'local' && !deps.isUnderAllowedRoot((parsed.data as { path: string }).path, allowedRoots())) {
      throw new AppError(
        'VALIDATION_ERROR',
        `config.path must lie under the data dir's exports folder or one of the server's destinations.local.allowedRoots (${allowedRoots().join(', ')})`,
      );
    }
    return parsed.data as Record<string, unknown>;
  }

  function split(
    id: string,
    providerId: DestinationProviderId,
    config: Record<string, unknown>,
  ): Pick<DestinationRecord, 'config' | 'sealedSecrets'> {
    const plain: Record<string, unknown> = {};
    const secret: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(config))
      (SECRET_FIELDS[providerId].includes(field) ? secret : plain)[field] = value;
    try {
      // A record never holds an undefined field: the store journals plain JSON.
      return Object.keys(secret).length
        ? { config: plain, sealedSecrets: seal(deps.secretsKey, id, JSON.stringify(secret)) }
        : { config: plain };
    } catch {
      throw new AppError('UNKNOWN_ERROR', 'the destination secrets could not be stored');
    }
  }

  async function owned(owner: Owner, id: string): Promise<DestinationRecord> {
    const record = await store.destinations.get(id);
    if (!record || !ownedBy(owner, record.accountId))
      throw new AppError('DESTINATION_NOT_FOUND', `no destination ${id}`);
    return record;
  }

  const driverOf = (record: DestinationRecord) => deps.driver(record.provider.id, fullConfig(record));

  /**
   * As the service's own copies are served: for images.cacheMaxAgeSeconds, not as immutable (what a cache may keep
   * after a delete: docs/data-lifecycle.md).
   */
  const imageCacheControl = () => `public, max-age=${deps.config.current().images.cacheMaxAgeSeconds}`;

  /** Deletes the test object; a failure is reported, not thrown: the write, which is what was tested, succeeded. */
  async function removeTestObject(
    driver: StorageDriver,
    key: string,
  ): Promise<{ deleted: true } | { deleted: false; deleteError: string }> {
    try {
      await driver.remove(key);
      return { deleted: true };
    } catch (err) {
      return { deleted: false, deleteError: storageMessage(err) };
    }
  }

  return {
    async create(accountId: string, input: CreateDestinationInput): Promise<DestinationView> {
      const config = parseConfig(input.provider.id, input.config);
      const id = sortableId('dst', clock.now());
      const at = isoTime(clock.now());
      return view(
        await store.destinations.put({
          id,
          accountId,
          name: input.name,
          provider: { id: input.provider.id },
          ...split(id, input.provider.id, config),
          createdAt: at,
          updatedAt: at,
        }),
      );
    },
    async list(accountId: string): Promise<DestinationView[]> {
      return (await store.destinations.listByAccount(accountId)).map(view);
    },
    async get(owner: Owner, id: string): Promise<DestinationView> {
      return view(await owned(owner, id));
    },
    /**
     * Changes name and/or config; the provider cannot change (DESTINATIONS_INVALID_PROVIDER). Masked secrets sent back
     * keep their values.
     */
    async update(owner: Owner, id: string, input: UpdateDestinationInput): Promise<DestinationView> {
      const record = await owned(owner, id);
      if (input.provider && input.provider.id !== record.provider.id) {
        throw new AppError(
          'DESTINATIONS_INVALID_PROVIDER',
          `a destination's provider cannot change (it is ${record.provider.id}); create a new destination`,
        );
      }
      const { config: _config, sealedSecrets: _sealed, ...kept } = record;
      let stored: Pick<DestinationRecord, 'config' | 'sealedSecrets'> = record.sealedSecrets
        ? { config: record.config, sealedSecrets: record.sealedSecrets }
        : { config: record.config };
      if (input.config) {
        const current = fullConfig(record);
        const merged: Record<string, unknown> = { ...input.config };
        for (const field of SECRET_FIELDS[record.provider.id]) {
          const sent = merged[field];
          if (
            sent === undefined ||
            isMasked(sent) ||
            (typeof sent === 'object' && sent && Object.values(sent).every(isMasked))
          )
            merged[field] = current[field];
        }
        stored = split(id, record.provider.id, parseConfig(record.provider.id, merged));
      }
      const replaced = await store.destinations.replace({
        ...kept,
        name: input.name ?? record.name,
        ...stored,
        updatedAt: isoTime(clock.now()),
      });
      if (!replaced) throw new AppError('DESTINATION_NOT_FOUND', `no destination ${id}`);
      return view(replaced);
    },
    async delete(owner: Owner, id: string): Promise<void> {
      await store.destinations.delete((await owned(owner, id)).id);
    },
    /**
     * Writes a small test object, then deletes it. A refused write is 502 DESTINATION_TEST_FAILED
     * with the storage's own message; a refused delete only says `deleted: false` and why. An
     * address the SSRF guard refuses is 400 VALIDATION_ERROR: the settings decide it, not the
     * storage, and the message names the setting that would allow it.
     */
    async test(owner: Owner, id: string): Promise<TestUpload> {
      const record = await owned(owner, id);
      const object: StoredObject = {
        key: `imgtask-test/${randomBase62(12)}.txt`,
        data: Buffer.from(`imgtask destination test ${isoTime(clock.now())}\n`),
        contentType: 'text/plain',
      };
      let driver: StorageDriver;
      let written: { key: string; url: string | null };
      try {
        // Building the driver checks the address too (the SSRF guard): a refusal is a failed test as well.
        driver = driverOf(record);
        written = await driver.put(object);
      } catch (err) {
        throw new AppError(refusedByGuard(err) ? 'VALIDATION_ERROR' : 'DESTINATION_TEST_FAILED', storageMessage(err));
      }
      return { ok: true, ...written, ...(await removeTestObject(driver, written.key)) };
    },
    async exists(accountId: string, name: string): Promise<boolean> {
      return (await store.destinations.getByName(accountId, name)) !== undefined;
    },
    /**
     * Delivers one image to the named destination. Success: `{ name, status, key, url }` (url
     * null when the storage has no public URL). Failure: `{ name, status: failed, error }`.
     * `signal` (the item's) aborts the upload under way.
     */
    async deliver(accountId: string, name: string, image: DeliveredImage, signal?: AbortSignal): Promise<DeliveredTo> {
      const record = await store.destinations.getByName(accountId, name);
      if (!record)
        return {
          name,
          status: 'failed',
          error: { code: 'PROVIDER_ERROR', message: `the destination "${name}" no longer exists` },
        };
      const key = renderKey(String(record.config.keyTemplate ?? '{date}/{taskId}/{imageId}.{ext}'), {
        ...image,
        date: isoTime(clock.now()).slice(0, 10),
      });
      try {
        const written = await driverOf(record).put(
          {
            key,
            data: image.data,
            contentType: image.contentType,
            cacheControl: imageCacheControl(),
            taskId: image.taskId,
          },
          signal,
        );
        return { name, status: 'success', key: written.key, url: written.url };
      } catch (err) {
        const e = err as Error & { providerResponse?: string; timedOut?: boolean };
        const error: DeliveredTo['error'] = { code: e.timedOut ? 'TIMEOUT' : 'PROVIDER_ERROR', message: e.message };
        if (e.providerResponse) error.provider_response = e.providerResponse;
        return { name, status: 'failed', error };
      }
    },
  };
}
