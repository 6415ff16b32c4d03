/** @jsxImportSource hono/jsx */
import type { ZodType } from 'zod';
import {
  DESTINATION_CONFIGS,
  DESTINATION_PROVIDERS,
  type DestinationProviderId,
} from '../../services/destination-configs.js';

export const PROVIDER_NAMES: Record<DestinationProviderId, string> = {
  local: 'Local folder',
  s3: 'S3 or S3-compatible bucket',
  http: 'HTTP PUT',
};

const KEY_TEMPLATE =
  'object key of each image, from {taskId} {imageId} {index} {date} {ext}; must contain {imageId} (default {date}/{taskId}/{imageId}.{ext})';

/** What each config field is for (the schema says which are required). */
const NOTES: Record<string, string> = {
  'local.path':
    "absolute folder: under the data dir's exports/ folder, or one of the server's destinations.local.allowedRoots",
  'local.publicBaseUrl': 'the URL that folder is served at: images then carry it',
  'local.keyTemplate': KEY_TEMPLATE,
  's3.bucket': 'the bucket name',
  's3.region': 'default us-east-1',
  's3.endpoint': 'for an S3-compatible storage (MinIO, R2, …): its URL',
  's3.prefix': 'put before every key (renders/ makes a folder)',
  's3.forcePathStyle': 'true for storages that take the bucket in the path',
  's3.accessKeyId': 'the access key id',
  's3.secretAccessKey': 'secret: stored encrypted, shown masked (****1234)',
  's3.publicBaseUrl': 'the URL objects are served at: images then carry it',
  's3.keyTemplate': KEY_TEMPLATE,
  'http.urlTemplate': 'the URL each image is PUT to; must contain {key}',
  'http.headers': 'an object of header names and values sent with each PUT; secret: stored encrypted, shown masked',
  'http.publicUrlTemplate': 'the public URL of an object, with {key}',
  'http.keyTemplate': KEY_TEMPLATE,
};

/** A config to start from, per provider: the required fields with placeholder values. */
export function exampleConfig(provider: DestinationProviderId, allowedRoots: readonly string[]): string {
  const examples: Record<DestinationProviderId, Record<string, unknown>> = {
    local: {
      path: allowedRoots[0] ? `${allowedRoots[0].replace(/\/$/, '')}/images` : '/path/to/data-dir/exports/images',
    },
    s3: { bucket: 'my-bucket', region: 'us-east-1', accessKeyId: 'AKIA…', secretAccessKey: '…' },
    http: { urlTemplate: 'https://storage.example/upload/{key}', headers: { Authorization: 'Bearer …' } },
  };
  return JSON.stringify(examples[provider], null, 2);
}

const fieldsOf = (provider: DestinationProviderId) =>
  Object.entries((DESTINATION_CONFIGS[provider] as unknown as { shape: Record<string, ZodType> }).shape);

/** Each provider's config fields, required first, as a definition list (a <details> per provider). */
export function ProviderHelp({ only }: { only?: DestinationProviderId }) {
  const providers = only ? [only] : DESTINATION_PROVIDERS;
  return (
    <div class="provider-help">
      {providers.map((provider) => (
        <details id={`help-${provider}`} open={only !== undefined}>
          <summary>{`${PROVIDER_NAMES[provider]} (${provider}): config fields`}</summary>
          <dl>
            {fieldsOf(provider).map(([field, schema]) => (
              <>
                <dt>{field}</dt>
                <dd>{`${schema.safeParse(undefined).success ? 'optional' : 'required'}: ${NOTES[`${provider}.${field}`] ?? ''}`}</dd>
              </>
            ))}
          </dl>
        </details>
      ))}
    </div>
  );
}
