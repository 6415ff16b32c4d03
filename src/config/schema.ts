import { z } from 'zod';
import { AuthSection, ConsoleSection } from './schema/auth-settings.js';
import { EmbeddedSection } from './schema/embedded-settings.js';
import { ModelSchema, VideoModelSchema } from './schema/model-settings.js';
import { BillingSection, LogSection, MetricsSection, RetentionSection } from './schema/operations-settings.js';
import { DestinationsSection, FetchSection, WebhooksSection } from './schema/outbound-settings.js';
import { type PemSourceSchema, ProvenanceSchema } from './schema/provenance-settings.js';
import { ProviderSchema } from './schema/provider-settings.js';
import { ReviewSection } from './schema/review-settings.js';
import { CorsSection, ServerSection } from './schema/server-settings.js';
import { ModelId } from './schema/setting-fields.js';
import { ImagesSection, StoreSection } from './schema/storage-settings.js';
import { LimitsSection, SyncSection, TaskEventsSection, WorkSection } from './schema/work-settings.js';
import type { LoadedWorkflow } from './workflows.js';

/**
 * The config. A `.describe()` text documents a key in docs/reference/configuration.md (npm run
 * docs) where the `$comment` texts of config/default.json do not; it never changes parsing.
 */
export const ConfigSchema = z.strictObject({
  server: ServerSection,
  cors: CorsSection,
  publicUrl: z.url({ protocol: /^https?$/ }).nullable(),
  store: StoreSection,
  work: WorkSection,
  limits: LimitsSection,
  auth: AuthSection,
  fetch: FetchSection,
  images: ImagesSection,
  webhooks: WebhooksSection,
  billing: BillingSection,
  sync: SyncSection,
  taskEvents: TaskEventsSection,
  defaultModel: z
    .string()
    .min(1)
    .describe('The image model `model: auto` resolves to: an id of models (checked at load).'),
  models: z
    .record(ModelId, ModelSchema)
    .describe(
      'Image models by id (lowercase letters, digits, . _ -; up to 64 characters): { provider | providers, workflow?, bindings?, price, capabilities, options }. GET /models lists them; a request names one in `model`.',
    ),
  /** The video model `model: auto` resolves to. */
  defaultVideoModel: z.string().min(1),
  videoModels: z.record(ModelId, VideoModelSchema),
  review: ReviewSection,
  /** Video encoding: the ffmpeg binary (null = the one shipped in @ffmpeg-installer/ffmpeg). */
  video: z.strictObject({ ffmpegPath: z.string().min(1).nullable() }),
  providers: z
    .record(z.string().min(1), ProviderSchema)
    .describe(
      "Providers by name, each { type, … } with the keys of its type; models name them in provider or providers. Two names are special and must be of type openai: `vision` (alt text, custom rating scales, review's judge) and `chat` (magic prompts); they make no images.",
    ),
  embedded: EmbeddedSection,
  log: LogSection,
  metrics: MetricsSection,
  destinations: DestinationsSection,
  console: ConsoleSection,
  retention: RetentionSection,
  provenance: ProvenanceSchema.default({ enabled: true, includePrompt: false }).describe(
    'C2PA Content Credentials on every stored image and video: the signing certificate and key (or a local one made at first start), a timestamp authority, whether the prompt is included, and the extra trust anchors of verify (docs/provenance.md). Read at start.',
  ),
});

/**
 * The config as loaded: the settings, and the ComfyUI workflows models name, read and checked (keyed `models.<id>` /
 * `videoModels.<id>`).
 */
export type Config = z.infer<typeof ConfigSchema> & { workflows: Readonly<Record<string, LoadedWorkflow>> };
export type ModelConfig = z.infer<typeof ModelSchema>;
export type VideoModelConfig = z.infer<typeof VideoModelSchema>;
export type ProviderConfig = z.infer<typeof ProviderSchema>;
export type PemSource = z.infer<typeof PemSourceSchema>;
export type ProvenanceConfig = z.infer<typeof ProvenanceSchema>;
