import type { VideoGenerator } from '../types.js';

export interface OpenAiVideoOptions {
  name: string;
  baseUrl: string;
  model: string;
  sizes: string[];
  seconds: number[];
  pollIntervalMs: number;
  timeoutMs: number;
  apiKey?: string;
}

/** An OpenAI-compatible video API: POST {baseUrl}/videos, poll GET /videos/{id}, download GET /videos/{id}/content (MP4). */
export function createOpenAiVideo(_options: OpenAiVideoOptions): VideoGenerator {
  return {
    async generate() {
      throw new Error('not implemented yet');
    },
  };
}
