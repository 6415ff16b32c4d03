import { isIP } from 'node:net';
import { createSafeFetcher, SafeFetchError } from '../net/safe-fetch.js';

const SETTING = 'webhooks.allowPrivateAddresses';

/** The names RFC 6761 reserves for loopback (`localhost`, `*.localhost`): this machine, whatever a resolver says. */
const LOOPBACK_NAME = /^(?:.+\.)?localhost\.?$/i;

/**
 * Why deliveries to `url` can never be made under the current setting, or null when they may be
 * tried. Decided without DNS: an IP-literal host goes through the delivery guard's own check
 * (the same fetcher settings deliveries use), and the loopback names are refused as loopback.
 * A name that resolves to a private address is only known by resolving it, which is left to
 * each delivery (records change; a lookup at create would also tell a caller what the service's
 * resolver sees): that attempt's error names the address and the setting (docs/api/webhooks.md).
 */
export function webhookTargetRefusal(url: string, allowPrivateAddresses: boolean): string | null {
  const guard = createSafeFetcher({
    allowPrivateAddresses,
    privateAddressesSetting: SETTING,
    maxBytes: 0,
    timeoutMs: 0,
    maxRedirects: 0,
  });
  try {
    guard.checkHost(url);
  } catch (err) {
    if (err instanceof SafeFetchError) return err.message;
    throw err;
  }
  const host = new URL(url).hostname;
  if (!allowPrivateAddresses && !isIP(host) && LOOPBACK_NAME.test(host))
    return `${host} is a loopback name user URLs may not reach (unless ${SETTING} is true)`;
  return null;
}
