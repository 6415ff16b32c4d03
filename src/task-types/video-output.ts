import { ProviderError } from '../domain/task-status.js';
import { mp4ToWebp } from '../media/video-encode.js';
import { framesProblem } from '../media/video-frames.js';
import { probeVideo, type VideoInfo, VideoReadError } from '../media/video-probe.js';
import { webpToMp4 } from '../media/video-webp.js';
import type { GeneratedVideo, VideoFormat } from '../providers/provider-types.js';

export interface VideoOutputOptions {
  format: VideoFormat;
  /** The frame rate asked for: an animated WebP stored at int(1000 / fps) ms a frame is converted at that rate. */
  fps: number;
  /** The number of frames bound into the model's workflow, when it binds them. */
  boundFrames?: number;
  ffmpegPath: string;
  signal: AbortSignal;
}

function probe(data: Buffer): VideoInfo {
  try {
    return probeVideo(data);
  } catch (err) {
    throw new ProviderError(
      'PROVIDER_ERROR',
      `the provider answered something that is not a video${err instanceof VideoReadError ? `: ${err.message}` : ''}`,
      { cause: err },
    );
  }
}

/**
 * A provider's clip checked and in the requested container, with what its file says. It must be a
 * video with the frames asked for (framesProblem), else the item fails PROVIDER_ERROR, not retried
 * (the same workflow makes the same clip), before anything is converted; then an MP4 becomes an
 * animated WebP, or an animated WebP an MP4, when the other was asked.
 */
export async function videoOutput(
  made: GeneratedVideo,
  options: VideoOutputOptions,
): Promise<{ data: Buffer; info: VideoInfo }> {
  const madeInfo = probe(made.data);
  const problem = framesProblem(madeInfo, options.boundFrames);
  if (problem) throw new ProviderError('PROVIDER_ERROR', problem, { retryable: false });
  // The container read from the bytes, whatever the provider called its file.
  if (madeInfo.format === options.format) return { data: made.data, info: madeInfo };
  const { ffmpegPath, signal } = options;
  let data: Buffer;
  try {
    data =
      madeInfo.format === 'mp4'
        ? await mp4ToWebp(made.data, { ffmpegPath, signal })
        : await webpToMp4(made.data, { ffmpegPath, fps: options.fps, signal });
  } catch (err) {
    if (signal.aborted) throw err;
    const [from, to] = madeInfo.format === 'mp4' ? ['MP4', 'WebP'] : ['WebP', 'MP4'];
    // ffmpeg's own words stay in the log (they may name paths of this host): the client is told what failed.
    throw new ProviderError(
      'PROVIDER_ERROR',
      `the provider's ${from} could not be converted to ${to} (the service log has the encoder's output)`,
      { cause: err },
    );
  }
  return { data, info: probe(data) };
}
