import type { LivePreview, VideoFormat } from '../domain/media-types.js';
import type { ImageFormat } from '../media/images.js';

/** An image handed to a provider: decoded enough to know what it is. */
export interface SourceImage {
  data: Buffer;
  format: ImageFormat;
  width: number;
  height: number;
}

/**
 * What every item handed to a provider carries, image or video: its place, seed, options, signal, reports and workflow.
 */
export interface ItemParams {
  /** The item's position in its task. */
  index: number;
  /**
   * The item's seed (the request's seed + index, 0..2^32−1): every provider that takes one uses it; deterministic
   * providers draw from it.
   */
  seed?: number;
  options: Record<string, unknown>;
  signal: AbortSignal;
  /** Reports how far the work has come, 0..1, where the provider knows (see ItemContext.reportProgress). */
  onProgress?: (fraction: number) => void;
  /**
   * Hands over a live preview of the image being made (ComfyUI's binary preview frames), where the provider sends them
   * (see ItemContext.reportPreview).
   */
  onPreview?: (preview: LivePreview) => void;
  /**
   * The model's declared parameters, as this request set them with every default filled in (config `parameters`,
   * checked at create).
   */
  parameters?: Record<string, string | number | boolean>;
  /**
   * A whole API-format graph the request posted (`workflow`, keys with the `workflow:raw` scope, models with
   * `allowRawWorkflows`): run instead of the model's own.
   */
  workflow?: Record<string, { class_type: string; inputs: Record<string, unknown> }>;
  /**
   * Which output of which run this item is, when one run of the model's workflow writes several
   * outputs (docs/comfyui.md#every-output): items of the same `key` share one job, and
   * item `output` (0-based, of `outputs`) takes that output's file. Absent: one output per run.
   */
  run?: { key: string; output: number; outputs: number };
}

export interface GenerateParams extends ItemParams {
  model: string;
  prompt: string;
  negativePrompt?: string;
  width: number;
  height: number;
  inputs: SourceImage[];
}

/** Any encoded image sharp can read; the worker re-encodes it to the requested format. */
export interface GeneratedImage {
  data: Buffer;
}

export interface ImageGenerator {
  generate(params: GenerateParams): Promise<GeneratedImage>;
  /** True when the provider has no capacity now (see capacity.ts); absent = never busy. */
  busy?(): boolean;
  /**
   * True while the provider's server cannot be reached: failover prefers one that is up, and when every one is down
   * picks one whose generate() waits for it. Absent = never down.
   */
  down?(): boolean;
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
  enhance(
    prompt: string,
    negativePrompt: string | undefined,
    signal: AbortSignal,
  ): Promise<{ positive: string; negative?: string }>;
}

export type { VideoFormat } from '../domain/media-types.js';

export interface VideoParams extends ItemParams {
  model: string;
  prompt: string;
  negativePrompt?: string;
  /** Even numbers (H.264 with 4:2:0 chroma needs them). */
  width: number;
  height: number;
  durationS: number;
  fps: number;
  /** The container the caller wants; a provider that can only make MP4 answers MP4 and the caller converts. */
  format: VideoFormat;
  /** The first frame, when the request sent one. */
  input?: SourceImage;
}

/** An encoded clip: H.264 MP4 or animated WebP. */
export interface GeneratedVideo {
  data: Buffer;
  format: VideoFormat;
}

export interface VideoGenerator {
  generate(params: VideoParams): Promise<GeneratedVideo>;
  /** True when the provider has no capacity now; absent = never busy. */
  busy?(): boolean;
  /** True while the provider's server cannot be reached (see ImageGenerator.down). Absent = never down. */
  down?(): boolean;
}

/** What a vision model is asked to judge: how well the image matches `prompt`, and each free-text criterion. */
export interface JudgeRequest {
  prompt?: string;
  criteria: string[];
}

/**
 * A vision model's judgement: `prompt` when one was asked (score 0–1), one finding per asked
 * criterion, in order, with the criterion as asked. Throws ProviderError('REVIEW_FAILED') on an
 * unusable reply.
 */
export interface Judgement {
  prompt?: { passed: boolean; score: number; note: string };
  findings: { criterion: string; passed: boolean; note: string }[];
  summary?: string;
}

export interface ImageJudge {
  judge(image: SourceImage, request: JudgeRequest, signal: AbortSignal): Promise<Judgement>;
}

/** Reads the text in an image (OCR); `confidence` 0–100. */
export interface TextReader {
  read(image: SourceImage, signal: AbortSignal): Promise<{ text: string; confidence: number }>;
}

/**
 * The providers a running service has. Generators are looked up by the provider names a
 * model lists; the rest are one per capability. Undefined = not available here.
 */
export interface ProviderSet {
  generator(name: string): ImageGenerator | undefined;
  /** Video generators by provider name, as video models list them. */
  videoGenerator(name: string): VideoGenerator | undefined;
  /** Serves the built-in nsfw_sfw scale. */
  nsfwRater?: ImageRater;
  /** A vision model: serves custom rating scales (and alt text). */
  visionRater?: ImageRater;
  altText?: AltTextWriter;
  backgroundRemover?: BackgroundRemover;
  promptEnhancer?: PromptEnhancer;
  /** A vision model that judges prompt adherence and free-text criteria (image.review). */
  judge?: ImageJudge;
  /** OCR, for review's text checks (the embedded one). */
  textReader?: TextReader;
}
