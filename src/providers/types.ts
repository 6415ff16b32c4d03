import type { ImageFormat } from '../media/images.js';

/** An image handed to a provider: decoded enough to know what it is. */
export interface SourceImage {
  data: Buffer;
  format: ImageFormat;
  width: number;
  height: number;
}

export interface GenerateParams {
  model: string;
  prompt: string;
  negativePrompt?: string;
  width: number;
  height: number;
  inputs: SourceImage[];
  /** The item's position; deterministic providers use it as a seed. */
  index: number;
  options: Record<string, unknown>;
  signal: AbortSignal;
}

/** Any encoded image sharp can read; the worker re-encodes it to the requested format. */
export interface GeneratedImage {
  data: Buffer;
}

export interface ImageGenerator {
  generate(params: GenerateParams): Promise<GeneratedImage>;
  /** True when the provider has no capacity now (see capacity.ts); absent = never busy. */
  busy?(): boolean;
}

export interface RatingLevel {
  value: string;
  description: string;
}

export interface RatingRequest {
  mode: 'nsfw_sfw' | 'custom';
  levels: RatingLevel[];
}

/** Returns one of the request's level values; throws ProviderError('RATING_FAILED') when it cannot. */
export interface ImageRater {
  rate(image: SourceImage, request: RatingRequest, signal: AbortSignal): Promise<string>;
}

/** Returns alt text (the worker trims it to 1..160 characters). */
export interface AltTextWriter {
  describe(image: SourceImage, signal: AbortSignal): Promise<string>;
}

export interface BackgroundRemover {
  remove(image: SourceImage, signal: AbortSignal): Promise<{ data: Buffer; format: 'png' | 'webp' }>;
}

export interface PromptEnhancer {
  enhance(prompt: string, negativePrompt: string | undefined, signal: AbortSignal): Promise<{ positive: string; negative?: string }>;
}

/**
 * The providers a running service has. Generators are looked up by the provider names a
 * model lists; the rest are one per capability. Undefined = not available here.
 */
export interface ProviderSet {
  generator(name: string): ImageGenerator | undefined;
  /** Serves the built-in nsfw_sfw scale. */
  nsfwRater?: ImageRater;
  /** A vision model: serves custom rating scales (and alt text). */
  visionRater?: ImageRater;
  altText?: AltTextWriter;
  backgroundRemover?: BackgroundRemover;
  promptEnhancer?: PromptEnhancer;
}
