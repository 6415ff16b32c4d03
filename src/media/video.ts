import type { VideoFormat } from '../providers/types.js';

/** What a produced clip is, read from its container (never from a name). */
export interface VideoInfo {
  format: VideoFormat;
  width: number;
  height: number;
  durationS: number;
  frames: number;
  fps: number;
}

export class VideoReadError extends Error {}

/** Reads an MP4 (ISO BMFF boxes) or animated WebP (RIFF chunks) header; throws VideoReadError when it is neither. */
export function probeVideo(_data: Buffer): VideoInfo {
  throw new VideoReadError('not implemented yet');
}

/** The ffmpeg binary shipped in @ffmpeg-installer/ffmpeg. */
export function bundledFfmpegPath(): string {
  throw new Error('not implemented yet');
}

/**
 * Encodes raw RGB24 frames (width × height × 3 bytes each) into an H.264 MP4 (yuv420p, faststart)
 * through ffmpeg, or an animated WebP through sharp.
 */
export async function encodeFrames(
  _frames: AsyncIterable<Buffer> | Iterable<Buffer>,
  _options: { width: number; height: number; fps: number; format: VideoFormat; ffmpegPath: string; signal?: AbortSignal },
): Promise<Buffer> {
  throw new Error('not implemented yet');
}

/** Converts an MP4 to an animated WebP (looping, same frame rate) through ffmpeg. */
export async function mp4ToWebp(_data: Buffer, _options: { ffmpegPath: string; signal?: AbortSignal }): Promise<Buffer> {
  throw new Error('not implemented yet');
}
