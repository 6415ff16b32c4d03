import type { StorageDriver } from './types.js';
import { StorageError } from './types.js';

export interface HttpPutOptions {
  /** The URL to PUT each object to; `{key}` is replaced by the object key. */
  urlTemplate: string;
  headers?: Record<string, string>;
  /** Where the stored object can be read; `{key}` as above. Omitted: no public URL. */
  publicUrlTemplate?: string;
  /** The SSRF-guarded sender. */
  send: (url: string, request: { method: 'PUT'; headers: Record<string, string>; body: Buffer }) => Promise<{ status: number; body: string }>;
}

const fill = (template: string, key: string) => template.replaceAll('{key}', key.split('/').map(encodeURIComponent).join('/'));

/** Stores objects with an HTTP PUT (WebDAV, presigning gateways, simple upload services). */
export function createHttpPut(options: HttpPutOptions): StorageDriver {
  return {
    async put(object) {
      let answer: { status: number; body: string };
      try {
        answer = await options.send(fill(options.urlTemplate, object.key), { method: 'PUT', headers: { 'content-type': object.contentType, ...options.headers }, body: object.data });
      } catch (err) {
        throw new StorageError((err as Error).message, undefined, /in time|timeout/i.test((err as Error).message));
      }
      if (answer.status < 200 || answer.status >= 300) throw new StorageError(`the storage answered HTTP ${answer.status}`, `HTTP ${answer.status}: ${answer.body.slice(0, 400)}`);
      return { url: options.publicUrlTemplate ? fill(options.publicUrlTemplate, object.key) : null };
    },
  };
}
