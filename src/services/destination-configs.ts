import { z } from 'zod';

// What each kind of destination is configured with: the schemas a create or update is checked against.

const HttpUrl = z.url({ protocol: /^https?$/, error: 'an http or https URL' }).max(2048);
/** A `.` or `..` segment would name another object once a URL or a folder path resolves it. */
const hasDotSegment = (path: string) => path.split('/').some((segment) => segment === '.' || segment === '..');
/** Object keys: `{taskId}`, `{imageId}`, `{index}`, `{date}` (YYYY-MM-DD, UTC) and `{ext}`. */
const KeyTemplate = z
  .string()
  .min(1)
  .max(512)
  .regex(/\{imageId\}/, 'must contain {imageId} so keys are unique')
  .refine(
    (template) => !template.split('/').includes('') && !hasDotSegment(template),
    'segments between slashes must not be empty, "." or ".."',
  )
  .default('{date}/{taskId}/{imageId}.{ext}');
/** Put before every key as it is (`renders/` makes a folder); only its last segment may be empty. */
const KeyPrefix = z
  .string()
  .max(512)
  .refine(
    (prefix) => !prefix.split('/').slice(0, -1).includes('') && !hasDotSegment(prefix),
    'segments between slashes must not be empty, "." or ".."',
  );

export const DESTINATION_CONFIGS = {
  local: z.object({
    path: z.string().startsWith('/', 'an absolute folder path').max(1024),
    publicBaseUrl: HttpUrl.optional(),
    keyTemplate: KeyTemplate,
  }),
  s3: z.object({
    bucket: z.string().min(3).max(63),
    region: z.string().min(1).max(64).default('us-east-1'),
    endpoint: HttpUrl.optional(),
    prefix: KeyPrefix.optional(),
    forcePathStyle: z.boolean().optional(),
    accessKeyId: z.string().min(1).max(256),
    secretAccessKey: z.string().min(1).max(512),
    publicBaseUrl: HttpUrl.optional(),
    keyTemplate: KeyTemplate,
  }),
  http: z.object({
    urlTemplate: HttpUrl.refine((url) => url.includes('%7Bkey%7D') || url.includes('{key}'), 'must contain {key}'),
    headers: z.record(z.string().min(1).max(128), z.string().max(4096)).optional(),
    publicUrlTemplate: z.string().max(2048).optional(),
    keyTemplate: KeyTemplate,
  }),
} as const;
export type DestinationProviderId = keyof typeof DESTINATION_CONFIGS;
export const DESTINATION_PROVIDERS = Object.keys(DESTINATION_CONFIGS) as [
  DestinationProviderId,
  ...DestinationProviderId[],
];

/** Config fields that are secrets: sealed at rest, masked in answers. */
export const SECRET_FIELDS: Record<DestinationProviderId, string[]> = {
  local: [],
  s3: ['secretAccessKey'],
  http: ['headers'],
};
