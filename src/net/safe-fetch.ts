import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isBlockedAddress, isMetadataAddress } from './ip-guard.js';

export interface SafeFetchOptions {
  /** Let URLs reach private, loopback and similar ranges (cloud metadata addresses excepted). @default false */
  allowPrivateAddresses: boolean;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** Whole-request deadline, redirects included. */
  timeoutMs: number;
  maxRedirects: number;
  /**
   * The setting that lifts the address check (`fetch.allowPrivateAddresses`, …), named in each
   * refusal of an address so that whoever reads it knows what would allow it.
   */
  privateAddressesSetting?: string;
  /**
   * Let URLs reach cloud metadata addresses (169.254/16, fd00:ec2::/32 and the others
   * ip-guard lists), which allowPrivateAddresses does not lift: `fetch.allowMetadataAddresses`.
   * A fetcher built without it (webhooks, destinations) never reaches them, and its refusals
   * name no setting for it. @default false
   */
  allowMetadataAddresses?: boolean;
  /** Overrides the address check (tests use it to block one loopback address and not another). */
  isBlocked?: (address: string) => boolean;
  /**
   * Keep connections open for the next request to the same host (webhook deliveries). Each
   * is still opened through the guarded lookup to a checked address, an IP-literal host is
   * still checked before every request, and the pool is this fetcher's own. @default false
   */
  keepAlive?: boolean;
}

/**
 * A reused connection reset before any answer: most likely the server closed it while idle.
 * Sent once more (deliveries are at least once; the event id lets a receiver drop a repeat).
 */
class StaleConnectionError extends Error {}

export type FetchFailure = 'refused' | 'unreachable' | 'status' | 'too_large' | 'timeout' | 'encoding' | 'aborted';

export class SafeFetchError extends Error {
  constructor(
    readonly reason: FetchFailure,
    message: string,
  ) {
    super(message);
    this.name = 'SafeFetchError';
  }
}

/** The one setting that lets fetched URLs reach metadata addresses (docs/security.md#cloud-metadata-addresses). */
const METADATA_SETTING = 'fetch.allowMetadataAddresses';

/**
 * The abort reason of a request stopped by its caller's signal (a cancelled task, a worker stopping), not by its
 * deadline.
 */
const BY_CALLER = Symbol('aborted by the caller');

/**
 * The request's deadline and the caller's signal as one signal; `done` unhooks both, so the
 * caller's signal (an item's, which lives as long as the item) keeps no listener per request.
 */
function requestSignal(timeoutMs: number, caller: AbortSignal | undefined): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onAbort = () => controller.abort(BY_CALLER);
  if (caller?.aborted) onAbort();
  else caller?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
}

/** Why a request whose signal fired stopped: its caller aborted it, or its deadline passed. */
const stoppedReason = (signal: AbortSignal): FetchFailure => (signal.reason === BY_CALLER ? 'aborted' : 'timeout');

export interface FetchedBody {
  data: Buffer;
  contentType: string | null;
  finalUrl: string;
  status: number;
}

export interface OutgoingRequest {
  method: 'POST' | 'PUT' | 'DELETE';
  headers: Record<string, string>;
  body: string | Buffer;
}

/**
 * The one way user URLs are fetched (DESIGN "Fetching user URLs"): http(s) only; every
 * resolved address checked, and the connection made to that very address (no DNS rebinding
 * between check and connect); every redirect re-checked; a size cap enforced while streaming;
 * one deadline for the whole chain; compressed bodies refused (no decompression bombs).
 */
export function createSafeFetcher(options: SafeFetchOptions) {
  const metadata = (address: string) => !options.allowMetadataAddresses && isMetadataAddress(address);
  const blocked = (address: string) =>
    metadata(address) || (!options.allowPrivateAddresses && (options.isBlocked ?? isBlockedAddress)(address));
  const unless = (setting: string | undefined) => (setting ? ` (unless ${setting} is true)` : '');
  /**
   * The refusal of `address` (which `hostname` resolves to, when a name did): a metadata address
   * says so, and that allowPrivateAddresses does not lift it; any other names that setting.
   */
  const offLimits = (address: string, hostname?: string) => {
    if (metadata(address)) {
      const whatever = options.privateAddressesSetting ? `, whatever ${options.privateAddressesSetting} says` : '';
      const subject = hostname ? `${hostname} resolves to ${address}, a` : `${address} is a`;
      return new SafeFetchError(
        'refused',
        `${subject} cloud metadata address, which user URLs may not reach${whatever}${unless(options.allowMetadataAddresses === undefined ? undefined : METADATA_SETTING)}`,
      );
    }
    const subject = hostname ? `${hostname} resolves to ${address}, which` : `${address} is an address`;
    return new SafeFetchError(
      'refused',
      `${subject} user URLs may not reach${unless(options.privateAddressesSetting)}`,
    );
  };

  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      // Refuse when any answer is off limits: mixing a public and a private record is a known trick.
      const bad = addresses.find((entry) => blocked(entry.address));
      if (bad) return callback(offLimits(bad.address, hostname), '', 0);
      if (addresses.length === 0)
        return callback(new SafeFetchError('refused', `${hostname} resolves to no address`), '', 0);
      if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };

  // Idle connections close after 4 s, or sooner when the server announces a shorter keep-alive.
  const pool = options.keepAlive
    ? {
        http: new http.Agent({ keepAlive: true, timeout: 4000, lookup: guardedLookup }),
        https: new https.Agent({ keepAlive: true, timeout: 4000, lookup: guardedLookup }),
      }
    : null;

  function fetchOnce(
    url: URL,
    signal: AbortSignal,
    send?: OutgoingRequest,
  ): Promise<{ redirect: string } | FetchedBody> {
    return new Promise((resolve, reject) => {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) && blocked(host)) return reject(offLimits(host));
      const client = url.protocol === 'https:' ? https : http;
      /**
       * The status of an answer whose head came, while its body is read: a deadline then is the body's, not a missing
       * answer.
       */
      let answered: number | null = null;
      const bodyTooSlow = (status: number) =>
        new SafeFetchError(
          'timeout',
          `${url.host} answered HTTP ${status}, but its body did not finish within ${options.timeoutMs / 1000} s`,
        );
      const req = client.request(url, {
        method: send ? send.method : 'GET',
        lookup: guardedLookup,
        signal,
        agent: pool ? pool[url.protocol === 'https:' ? 'https' : 'http'] : false,
        headers: send
          ? { 'user-agent': 'imgtask', 'content-length': String(Buffer.byteLength(send.body)), ...send.headers }
          : { 'user-agent': 'imgtask', accept: 'image/*', 'accept-encoding': 'identity' },
      });
      req.on('error', (err) => {
        if (err instanceof SafeFetchError) return reject(err);
        const code = (err as NodeJS.ErrnoException).code;
        if (req.reusedSocket && !signal.aborted && (code === 'ECONNRESET' || code === 'EPIPE'))
          return reject(new StaleConnectionError(code));
        if (signal.aborted && stoppedReason(signal) === 'aborted')
          return reject(new SafeFetchError('aborted', `the request to ${url.host} was aborted`));
        if (signal.aborted && answered !== null) return reject(bodyTooSlow(answered));
        if (signal.aborted) return reject(new SafeFetchError('timeout', `no answer from ${url.host} in time`));
        reject(
          new SafeFetchError(
            'unreachable',
            `cannot reach ${url.host}: ${(err as NodeJS.ErrnoException).code ?? err.message}`,
          ),
        );
      });
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        answered = status;
        if (send) {
          // The answer to a POST, PUT or DELETE: its status and a bounded excerpt of its body (a storage's error
          // message).
          const chunks: Buffer[] = [];
          let kept = 0;
          res.on('data', (chunk: Buffer) => {
            if (kept < 4096) chunks.push(chunk);
            kept += chunk.length;
          });
          res.on('end', () =>
            resolve({
              data: Buffer.concat(chunks).subarray(0, 4096),
              contentType: res.headers['content-type'] ?? null,
              finalUrl: url.href,
              status,
            }),
          );
          res.on('error', () =>
            reject(
              signal.aborted && stoppedReason(signal) === 'timeout'
                ? bodyTooSlow(status)
                : new SafeFetchError('unreachable', `the answer from ${url.host} was cut off`),
            ),
          );
          return;
        }
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          return resolve({ redirect: new URL(res.headers.location, url).href });
        }
        if (status < 200 || status >= 300) {
          res.resume();
          return reject(new SafeFetchError('status', `${url.host} answered HTTP ${status}`));
        }
        const encoding = res.headers['content-encoding'];
        if (encoding && encoding !== 'identity') {
          res.destroy();
          return reject(new SafeFetchError('encoding', `${url.host} sent a ${encoding}-encoded body`));
        }
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > options.maxBytes) {
          res.destroy();
          return reject(
            new SafeFetchError('too_large', `the body is ${declared} bytes, more than ${options.maxBytes}`),
          );
        }
        const chunks: Buffer[] = [];
        let total = 0;
        res.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > options.maxBytes) {
            res.destroy();
            reject(new SafeFetchError('too_large', `the body is more than ${options.maxBytes} bytes`));
          } else chunks.push(chunk);
        });
        res.on('error', () =>
          reject(
            new SafeFetchError(
              signal.aborted ? stoppedReason(signal) : 'unreachable',
              `the answer from ${url.host} was cut off`,
            ),
          ),
        );
        res.on('end', () =>
          resolve({
            data: Buffer.concat(chunks),
            contentType: res.headers['content-type'] ?? null,
            finalUrl: url.href,
            status,
          }),
        );
      });
      req.end(send?.body);
    });
  }

  const checkUrl = (raw: string): URL => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new SafeFetchError('refused', 'not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new SafeFetchError('refused', `only http and https URLs are fetched, not ${url.protocol}`);
    if (url.username || url.password) throw new SafeFetchError('refused', 'URLs with credentials are not fetched');
    return url;
  };

  return {
    /**
     * Sends a body (webhook deliveries, PUTs to storage) with the same address checks;
     * redirects are not followed (it must reach the URL it was made for). Resolves with the
     * status and the start of the answer's body. `caller` aborts it (reason `aborted`).
     */
    async send(
      rawUrl: string,
      request: OutgoingRequest,
      caller?: AbortSignal,
    ): Promise<{ status: number; body: string }> {
      const url = checkUrl(rawUrl);
      const { signal, done } = requestSignal(options.timeoutMs, caller);
      try {
        const result = await fetchOnce(url, signal, request).catch((err: Error) => {
          if (!(err instanceof StaleConnectionError)) throw err;
          // Once more: the pool hands out another connection or opens a new one.
          return fetchOnce(url, signal, request).catch((again: Error) => {
            throw again instanceof StaleConnectionError
              ? new SafeFetchError('unreachable', `cannot reach ${url.host}: ${again.message}`)
              : again;
          });
        });
        return 'redirect' in result
          ? { status: 0, body: '' }
          : { status: result.status, body: result.data.toString('utf8') };
      } finally {
        done();
      }
    },

    /** Node agents whose connections go only to checked addresses (for clients such as the S3 SDK). */
    agents() {
      return { http: new http.Agent({ lookup: guardedLookup }), https: new https.Agent({ lookup: guardedLookup }) };
    },

    /** Refuses an IP-literal host that is off limits (agents' lookups never see IP literals). */
    checkHost(rawUrl: string): void {
      const host = checkUrl(rawUrl).hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) && blocked(host)) throw offLimits(host);
    },

    /** GETs a URL, following checked redirects; `caller` (an item's signal) aborts it (reason `aborted`). */
    async fetch(rawUrl: string, caller?: AbortSignal): Promise<FetchedBody> {
      const { signal, done } = requestSignal(options.timeoutMs, caller);
      try {
        let current = rawUrl;
        for (let hop = 0; ; hop++) {
          const result = await fetchOnce(checkUrl(current), signal);
          if (!('redirect' in result)) return result;
          if (hop >= options.maxRedirects)
            throw new SafeFetchError('refused', `more than ${options.maxRedirects} redirects`);
          current = result.redirect;
        }
      } finally {
        done();
      }
    },
  };
}
