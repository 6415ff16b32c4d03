import type { VideoInfo } from './video-probe.js';

/**
 * How far a clip's frame count may be from the number bound into a workflow: 8 frames, or 10 % of
 * the number when that is more. Video models make frames in blocks (Wan and HunyuanVideo 4n + 1,
 * LTX-Video 8n + 1), so a count up to 7 short is the model's rounding, not a wrong clip.
 */
export function frameTolerance(bound: number): number {
  return Math.max(8, Math.ceil(bound * 0.1));
}

/**
 * Why a clip is not the video asked for, or null when it is: fewer than 2 frames (a still image,
 * which is what an animated WebP of identical frames becomes), or, when the number of frames was
 * bound into the model's workflow, a count further from it than frameTolerance.
 */
export function framesProblem(info: Pick<VideoInfo, 'frames'>, boundFrames?: number): string | null {
  if (info.frames < 2)
    return `the provider made ${info.frames === 1 ? 'a still image (1 frame)' : 'no frames'}, not a video`;
  if (boundFrames !== undefined && Math.abs(info.frames - boundFrames) > frameTolerance(boundFrames)) {
    return `the provider made ${info.frames} frames; ${boundFrames} were asked for (at most ${frameTolerance(boundFrames)} off)`;
  }
  return null;
}
