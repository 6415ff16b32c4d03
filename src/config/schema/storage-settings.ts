import { z } from 'zod';

// Where state and files live: the store section and the images section (local or an S3 bucket).

/**
 * The bucket of `images.storage: "s3"`: the S3 destination's settings, its secret key given as
 * provider keys are (`secretAccessKeySecret` a secret of the encrypted store, `secretAccessKeyEnv`
 * an environment variable, `secretAccessKey` inline, least safe). No keys at all: the AWS SDK's
 * default chain (AWS_* environment, shared files, instance role).
 */
const ImagesS3 = z
  .strictObject({
    bucket: z.string().min(3).max(63).describe("The bucket's name (3 to 63 characters)."),
    region: z
      .string()
      .min(1)
      .max(64)
      .default('us-east-1')
      .describe("The bucket's region, as the S3 client signs for it."),
    endpoint: z
      .url({ protocol: /^https?$/ })
      .nullable()
      .default(null)
      .describe(
        "The http(s) URL of an S3-compatible store (MinIO, R2, …); null: AWS S3. The operator's setting, like a provider's baseUrl: reached directly, private addresses included.",
      ),
    forcePathStyle: z
      .boolean()
      .nullable()
      .default(null)
      .describe(
        'Path-style URLs (endpoint/bucket/key), as MinIO and most self-hosted stores need; null: on when an endpoint is set.',
      ),
    prefix: z
      .string()
      .max(512)
      .refine(
        (prefix) =>
          !prefix.split('/').slice(0, -1).includes('') &&
          !prefix.split('/').some((segment) => segment === '.' || segment === '..'),
        'segments between slashes must not be empty, "." or ".."',
      )
      .default('')
      .describe(
        'Put before every key as it is (`imgtask/` makes a folder); images go under `<prefix>images/`, videos under `<prefix>videos/`, sharded as on disk.',
      ),
    accessKeyId: z
      .string()
      .min(1)
      .max(256)
      .nullable()
      .default(null)
      .describe(
        "The access key id; with it, exactly one of secretAccessKeySecret, secretAccessKeyEnv or secretAccessKey. null, with none of them: the AWS SDK's default chain (AWS_* environment, shared files, instance role).",
      ),
    secretAccessKeySecret: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a secret name')
      .optional()
      .describe(
        'The secret access key: the name of a secret in the encrypted store (`imgtask secrets set <name>`); one not set stops the start with a config error.',
      ),
    secretAccessKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
      .optional()
      .describe(
        'The secret access key: the name of an environment variable that holds it; one not set stops the start with a config error.',
      ),
    secretAccessKey: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe('The secret access key, inline in the config file (least safe).'),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(600_000)
      .default(30_000)
      .describe('Milliseconds: the connection and idle-socket deadline of each request to the bucket.'),
  })
  .refine(
    (s3) =>
      [s3.secretAccessKeySecret, s3.secretAccessKeyEnv, s3.secretAccessKey].filter((v) => v !== undefined).length ===
      (s3.accessKeyId === null ? 0 : 1),
    {
      message:
        'with accessKeyId give exactly one of secretAccessKeySecret, secretAccessKeyEnv or secretAccessKey; without it, none (the AWS default chain)',
    },
  );

export const StoreSection = z.strictObject({
  /** Where the state lives: the journaled files of the data dir, or a PostgreSQL database (store.postgres). */
  driver: z.enum(['file', 'postgres']),
  snapshotEveryBytes: z
    .number()
    .int()
    .min(4096)
    .describe(
      'File store: once the journal reaches this many bytes, the state is written to snapshot.json and the journal is cut (at least 4096).',
    ),
  verifyPayloads: z
    .boolean()
    .describe(
      'File store: check that every journaled change survives JSON unchanged before applying it (live state is built from the change itself, replay from its JSON); one that does not is refused with an error. A development aid the test suite turns on; slower.',
    ),
  /**
   * Free bytes kept in each folder the service writes to (the store's, images/, videos/): below
   * it, creates and uploads are refused with 507 STORAGE_FULL and /ready answers 503, while
   * work already accepted goes on being written into what is left. 0 = no floor.
   * @default 67108864
   */
  minFreeBytes: z
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024),
  postgres: z.strictObject({
    /** postgres://user:password@host:port/database (env IMGTASK_DATABASE_URL); needed when driver is "postgres". */
    url: z
      .string()
      .refine(
        (value) => /^postgres(ql)?:\/\/[^\s]+$/.test(value),
        'a PostgreSQL URL such as postgres://user:password@host:5432/imgtask',
      )
      .nullable(),
    /** Connections this process keeps open at most. */
    poolSize: z.number().int().min(1).max(100),
  }),
});

export const ImagesSection = z
  .strictObject({
    cacheMaxAgeSeconds: z.number().int().min(0),
    /**
     * Where images and videos live: the data dir ("local") or an S3-compatible bucket ("s3", images.s3), shared by
     * processes on several machines. Read at start.
     */
    storage: z.enum(['local', 's3']).default('local'),
    s3: ImagesS3.nullable().default(null),
  })
  .refine((images) => images.storage !== 's3' || images.s3 !== null, {
    message: 'storage "s3" needs images.s3 ({ bucket, … })',
    path: ['s3'],
  });
