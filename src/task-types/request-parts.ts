import { z } from 'zod';
import { PRIORITY } from '../domain/scheduling.js';

/** The request limits (docs/api/limits.md), written where the schemas use them. */
export const LIMITS = {
  prompt: 8192,
  count: 20,
  inputs: 20,
  inputUrl: 2048,
  customWebhooks: 5,
  destinationName: 64,
  metadataBytes: 2048,
  urls: 10,
  levelsMin: 2,
  levelsMax: 7,
  levelValue: 24,
  levelDescription: 150,
  /** video.generate (ours: the interface does not show them; docs/api/videos.md#generate-post-videogenerate). */
  videoCount: 4,
  videoSeconds: 10,
  videoFps: [8, 30],
  videoInputs: 1,
} as const;

/**
 * Body pieces several task types share (docs/api/images.md#generate-post-imagegenerate). A type's own fields live in
 * its module;
 * these are the ones whose meaning is the same everywhere: webhooks, access, metadata,
 * destination, image URLs and rating levels.
 */
export const ImageRef = z.string().min(1).max(LIMITS.inputUrl);

/** A C0 control character other than tab, line feed and carriage return. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return true;
  }
  return false;
}

/**
 * Free text that is drawn or sent to a provider: prompts, review criteria, rating levels. A C0
 * control character (other than tab and line breaks) is no text a model should read, and XML,
 * where the placeholder draws a prompt, cannot hold one: refused by the schema, naming the field.
 */
export const FreeText = z
  .string()
  .refine(
    (text) => !hasControlCharacter(text),
    'must not contain control characters (U+0000 to U+001F other than tab, line feed and carriage return)',
  );

/**
 * An input image of generation: a URL (service URL or `img_` id too), or `{ type: image, source: { type: url, url } }`.
 */
export const InputEntry = z.union([
  ImageRef,
  z.object({ type: z.literal('image'), source: z.object({ type: z.literal('url'), url: ImageRef }) }),
]);
/** The URL of an input entry, whichever of its two forms was sent. */
export const inputUrl = (entry: z.infer<typeof InputEntry>): string =>
  typeof entry === 'string' ? entry : entry.source.url;
export const HttpUrl = z.url({ protocol: /^https?$/, error: 'an http or https URL' }).max(LIMITS.inputUrl);

/**
 * Where the task goes in its lane against other work (docs/scheduling.md): higher first; at most its key's maxPriority.
 */
export const Priority = z
  .number()
  .int()
  .min(PRIORITY.min)
  .max(PRIORITY.max)
  .optional()
  .describe('-10..10 (default 0): higher starts first in its lane, across accounts; at most the key’s maxPriority');

/** The request's priority, kept when it was sent (rate and alt keep only the fields they name). */
export const priorityPart = (body: { priority?: number }): { priority?: number } =>
  body.priority === undefined ? {} : { priority: body.priority };

export const WebhookOptions = z.object({
  dashboard: z.boolean().optional(),
  custom: z
    .array(z.object({ url: HttpUrl }))
    .max(LIMITS.customWebhooks)
    .optional(),
});
export const AccessOptions = z.object({ pat: z.object({ enabled: z.boolean().default(true) }).optional() });

/** The path of the first `"__proto__"` key inside a JSON value (JSON.parse keeps it as an own key), or null. */
function protoKeyPath(value: unknown, path: (string | number)[] = []): (string | number)[] | null {
  if (value === null || typeof value !== 'object') return null;
  const entries: [string | number, unknown][] = Array.isArray(value) ? [...value.entries()] : Object.entries(value);
  for (const [key, inner] of entries) {
    if (key === '__proto__') return [...path, key];
    const found = protoKeyPath(inner, [...path, key]);
    if (found) return found;
  }
  return null;
}

/**
 * A task's metadata: any JSON object, kept and answered exactly as sent. A `"__proto__"` key, at
 * any depth, is refused (naming its path) rather than dropped: zod's record, and any JavaScript
 * that copies the object by assignment, would take it for the prototype and lose it silently.
 * Checked on the raw value, before the record's parse (which skips the key).
 */
export const Metadata = z.preprocess(
  (value, ctx) => {
    const path = protoKeyPath(value);
    if (path)
      ctx.addIssue({ code: 'custom', path, input: value, message: '"__proto__" is not allowed as a metadata key' });
    return value;
  },
  z.record(z.string(), z.unknown()),
);
export const DestinationName = z.string().min(1).max(LIMITS.destinationName);

export const RatingLevel = z.object({
  value: FreeText.min(1).max(LIMITS.levelValue),
  description: FreeText.min(1).max(LIMITS.levelDescription),
});
export type RatingLevel = z.infer<typeof RatingLevel>;
export const Levels = z.array(RatingLevel).min(LIMITS.levelsMin).max(LIMITS.levelsMax);
