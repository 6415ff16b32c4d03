/**
 * The tags of the description, one per resource, in the order a reader meets them: each route
 * is tagged by the first segment of its path (`/image/…` and `/images/{file}` are both images).
 */
export const TAGS: { name: string; description: string; segments: string[] }[] = [
  {
    name: 'images',
    description:
      'Image tasks (generate, rate, alt text, remove background, review) with an API key; uploads, which give any task an image to work on; and the image files the service serves',
    segments: ['image', 'images'],
  },
  {
    name: 'videos',
    description: 'Video generation tasks, the video models and their prices, and the video files the service serves',
    segments: ['video', 'videos'],
  },
  {
    name: 'tasks',
    description:
      'Every task, whatever its type: its status, result and live events; cancel it; estimate the cost of one before creating it',
    segments: ['tasks'],
  },
  { name: 'models', description: 'The configured image generation models and their prices', segments: ['models'] },
  {
    name: 'api-keys',
    description: "The account's API keys: create, limit, rotate and revoke them (with an OAuth access token)",
    segments: ['api-key'],
  },
  {
    name: 'webhooks',
    description: "The account's webhooks, their deliveries, tests and redeliveries (with an OAuth access token)",
    segments: ['webhook'],
  },
  {
    name: 'usage',
    description:
      "The account's charges over a range of days, by day, key, task type or model (with an OAuth access token)",
    segments: ['usage'],
  },
  {
    name: 'destinations',
    description:
      'Storage destinations (S3-compatible buckets, HTTP endpoints, local folders) that results are also written to (with an OAuth access token)',
    segments: ['destinations'],
  },
  {
    name: 'service',
    description:
      'The service itself: where to go (GET /), liveness, readiness, Prometheus metrics, and this description as JSON and as a page',
    segments: ['', 'health', 'ready', 'metrics', 'openapi.json', 'docs'],
  },
];

/** The tag of the events the service sends (the document's `webhooks`), apart from the routes that manage webhooks. */
export const EVENTS_TAG = {
  name: 'webhook-events',
  description: 'Events the service sends to webhooks, signed as Standard Webhooks',
};

/** The resource tag of a route; a route whose first path segment no tag lists is a mistake to fix here. */
export function tagOf(path: string): string {
  const segment = path.split('/')[1];
  const tag = TAGS.find((t) => t.segments.includes(segment));
  if (!tag) throw new Error(`openapi: no tag for routes under /${segment}: add it to TAGS`);
  return tag.name;
}
