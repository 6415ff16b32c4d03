import { readFileSync } from 'node:fs';
import type { RouteSpec } from '../route.js';
import { addDiscriminators, createConverter } from './converter.js';
import { buildPaths } from './operations.js';
import { EVENTS_TAG, TAGS } from './tags.js';
import { buildWebhooks } from './webhook-event-schemas.js';

/** The package's version (package.json beside src/ and dist/): the description's version is the service's. */
const VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * The OpenAPI 3.1 description of the API, generated from the mounted routes and the very zod
 * schemas that validate requests: one source of truth.
 */
export function buildOpenApi(routes: RouteSpec[], serverUrl: string) {
  const { convert, components } = createConverter();
  const paths = buildPaths(routes, convert);
  const webhooks = buildWebhooks(convert);
  addDiscriminators(components);

  const used = new Set(
    Object.values(paths).flatMap((ops) => Object.values(ops).map((op) => (op as { tags: string[] }).tags[0])),
  );
  const tags = TAGS.filter((tag) => used.has(tag.name)).map(({ name, description }) => ({ name, description }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'imgtask',
      version: VERSION,
      description:
        'Self-hosted asynchronous image and video task service: image generation, rating, alt text, background removal and review; video generation; uploads. Every task is followed by polling, live events (SSE) or signed webhooks, and may be written to storage destinations; accounts manage their API keys, webhooks, destinations and usage.',
      license: { name: 'AGPL-3.0-or-later', identifier: 'AGPL-3.0-or-later' },
    },
    servers: [{ url: serverUrl }],
    tags: [...tags, EVENTS_TAG],
    paths,
    webhooks,
    components: {
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (mak_…)' },
        accessToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An OAuth access token (imgtask tokens issue)',
        },
        publicAccessToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'pat_ + JWT',
          description: 'A Public Access Token for one task, valid one hour',
        },
      },
    },
  };
}
