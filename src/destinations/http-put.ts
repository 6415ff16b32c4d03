import { SafeFetchError } from '../net/safe-fetch.js';
import type { StorageDriver } from './storage-driver.js';
import { encodeKey, guardFailure, StorageError } from './storage-driver.js';

type HttpRequest = { method: 'PUT' | 'DELETE'; headers: Record<string, string>; body: Buffer };

export interface HttpPutOptions {
  /** The URL to PUT each object to; `{key}` is replaced by the object key. */
  urlTemplate: string;
  headers?: Record<string, string>;
  /** Where the stored object can be read; `{key}` as above. Omitted: no public URL. */
  publicUrlTemplate?: string;
  /** The SSRF-guarded sender. */
  send: (url: string, request: HttpRequest, signal?: AbortSignal) => Promise<{ status: number; body: string }>;
}

/**
 * The template with the key in it, encoded. A `.` or `..` segment is refused: URL parsing would resolve it to another
 * path.
 */
function fill(template: string, key: string): string {
  if (key.split('/').some((segment) => segment === '.' || segment === '..'))
    throw new StorageError(`the key ${key} has a "." or ".." segment, which a URL cannot hold`);
  return template.replaceAll('{key}', encodeKey(key));
}

/** Our headers plus the configured ones, which replace ours of the same name in any case. */
function withConfigured(ours: Record<string, string>, configured: Record<string, string> = {}): Record<string, string> {
  const replaced = new Set(Object.keys(configured).map((name) => name.toLowerCase()));
  return { ...Object.fromEntries(Object.entries(ours).filter(([name]) => !replaced.has(name))), ...configured };
}

/**
 * Stores objects with an HTTP PUT (WebDAV, presigning gateways, simple upload services), and
 * deletes them with a DELETE of the same URL. Each PUT carries `cache-control` and
 * `x-imgtask-task-id` (the configured headers win over both).
 */
export function createHttpPut(options: HttpPutOptions): StorageDriver {
  async function request(
    key: string,
    method: HttpRequest['method'],
    headers: Record<string, string>,
    body: Buffer,
    signal?: AbortSignal,
  ): Promise<void> {
    const url = fill(options.urlTemplate, key);
    let answer: { status: number; body: string };
    try {
      answer = await options.send(url, { method, headers: withConfigured(headers, options.headers), body }, signal);
    } catch (err) {
      throw err instanceof SafeFetchError ? guardFailure(err) : new StorageError((err as Error).message);
    }
    if (answer.status < 200 || answer.status >= 300)
      throw new StorageError(
        `the storage answered HTTP ${answer.status}`,
        `HTTP ${answer.status}: ${answer.body.slice(0, 400)}`,
      );
  }

  return {
    async put(object, signal) {
      const headers: Record<string, string> = { 'content-type': object.contentType };
      if (object.cacheControl) headers['cache-control'] = object.cacheControl;
      if (object.taskId) headers['x-imgtask-task-id'] = object.taskId;
      await request(object.key, 'PUT', headers, object.data, signal);
      return { key: object.key, url: options.publicUrlTemplate ? fill(options.publicUrlTemplate, object.key) : null };
    },
    async remove(key) {
      await request(key, 'DELETE', {}, Buffer.alloc(0));
    },
  };
}
