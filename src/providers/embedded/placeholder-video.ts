import type { VideoGenerator } from '../types.js';

/** The embedded placeholder video model: deterministic frames from the prompt, encoded to real MP4 or animated WebP. */
export function createPlaceholderVideoGenerator(_options: { ffmpegPath: () => string }): VideoGenerator {
  return {
    async generate() {
      throw new Error('not implemented yet');
    },
  };
}
