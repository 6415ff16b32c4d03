import { createSafeFetcher, SafeFetchError } from '../net/safe-fetch.js';
import { signWebhook } from './sign.js';

export interface DeliveryResult {
  /** HTTP status, or null when no answer came. */
  status: number | null;
  latencyMs: number;
  error?: string;
}

type Fetcher = ReturnType<typeof createSafeFetcher>;

/**
 * One fetcher per setting pair, kept: its keep-alive pool is what lets a busy endpoint be
 * sent many events over a few connections instead of one new connection each. A changed
 * setting gets a new fetcher (and pool), so a reload's stricter guard applies to every
 * connection from then on.
 */
const fetchers = new Map<string, Fetcher>();
function fetcherFor(timeoutMs: number, allowPrivateAddresses: boolean): Fetcher {
  const key = `${timeoutMs}/${allowPrivateAddresses}`;
  let fetcher = fetchers.get(key);
  if (!fetcher) {
    fetcher = createSafeFetcher({
      allowPrivateAddresses,
      privateAddressesSetting: 'webhooks.allowPrivateAddresses',
      maxBytes: 1024 * 1024,
      timeoutMs,
      maxRedirects: 0,
      keepAlive: true,
    });
    fetchers.set(key, fetcher);
  }
  return fetcher;
}

/**
 * POSTs one event to one endpoint through the SSRF-guarded fetcher (no redirects), signed
 * with the webhook's secret when it has one: headers `webhook-id` (the event id, the same on
 * every retry), `webhook-timestamp`, `webhook-signature`.
 */
export async function deliverWebhook(
  target: { url: string; secret?: string },
  message: { id: string; body: string },
  options: { timeoutMs: number; allowPrivateAddresses: boolean; now: () => number },
): Promise<DeliveryResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.secret) {
    const timestamp = Math.floor(options.now() / 1000);
    headers['webhook-id'] = message.id;
    headers['webhook-timestamp'] = String(timestamp);
    headers['webhook-signature'] = signWebhook(target.secret, message.id, timestamp, message.body);
  } else {
    headers['webhook-id'] = message.id;
  }
  const fetcher = fetcherFor(options.timeoutMs, options.allowPrivateAddresses);
  const started = performance.now();
  try {
    const { status } = await fetcher.send(target.url, { method: 'POST', headers, body: message.body });
    return { status, latencyMs: Math.round(performance.now() - started) };
  } catch (err) {
    const reason = err instanceof SafeFetchError ? err.message : (err as Error).message;
    return { status: null, latencyMs: Math.round(performance.now() - started), error: reason };
  }
}
