import type { ConfigSource } from '../config/source.js';
import { createHttpPut } from '../destinations/http-put.js';
import { createLocalFolder } from '../destinations/local-folder.js';
import { createS3 } from '../destinations/s3.js';
import { guardFailure } from '../destinations/storage-driver.js';
import { createSafeFetcher, SafeFetchError } from '../net/safe-fetch.js';
import type { DriverFactory } from '../services/destinations.js';

/**
 * Builds the storage driver of a destination. The S3 endpoint and the HTTP URL are
 * user-supplied, so both connect only through the SSRF guard's checked addresses.
 */
export function createDriverFactory(
  config: Pick<ConfigSource, 'current'>,
  localRoots: readonly string[] = [],
): DriverFactory {
  return (providerId, settings) => {
    const { destinations } = config.current();
    const guard = createSafeFetcher({
      allowPrivateAddresses: destinations.allowPrivateAddresses,
      privateAddressesSetting: 'destinations.allowPrivateAddresses',
      maxBytes: 1024 * 1024,
      timeoutMs: destinations.timeoutMs,
      maxRedirects: 0,
    });
    const s = settings as Record<string, never>;
    if (providerId === 'local')
      return createLocalFolder({
        path: s.path,
        publicBaseUrl: s.publicBaseUrl,
        allowedRoots: [...localRoots, ...destinations.local.allowedRoots],
      });
    if (providerId === 's3') {
      if (s.endpoint) {
        try {
          guard.checkHost(s.endpoint);
        } catch (err) {
          throw err instanceof SafeFetchError ? guardFailure(err) : err;
        }
      }
      return createS3({
        ...(settings as unknown as Parameters<typeof createS3>[0]),
        timeoutMs: destinations.timeoutMs,
        agents: guard.agents(),
      });
    }
    return createHttpPut({
      urlTemplate: String(s.urlTemplate).replaceAll('%7Bkey%7D', '{key}'),
      headers: s.headers,
      publicUrlTemplate: s.publicUrlTemplate,
      send: (url, request, signal) => guard.send(url, request, signal),
    });
  };
}
