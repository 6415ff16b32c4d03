import type { VideoFormat } from '../domain/media-types.js';
import { webpTiming } from './video-timing.js';

// Probing: MP4 (ISO BMFF boxes) and WebP (RIFF chunks), in TypeScript, every offset checked.

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

const fourcc = (data: Buffer, at: number) => data.toString('latin1', at, at + 4);

/** Reads big- or little-endian integers from `data[start, end)`; any read past `end` is a VideoReadError. */
class Reader {
  constructor(
    readonly data: Buffer,
    readonly start: number,
    readonly end: number,
    readonly what: string,
  ) {}

  private at(offset: number, bytes: number): number {
    const at = this.start + offset;
    if (offset < 0 || at + bytes > this.end) throw new VideoReadError(`${this.what} is truncated`);
    return at;
  }
  u8 = (offset: number) => this.data[this.at(offset, 1)];
  u16le = (offset: number) => this.data.readUInt16LE(this.at(offset, 2));
  u32be = (offset: number) => this.data.readUInt32BE(this.at(offset, 4));
  u64be = (offset: number): number => {
    const value = this.data.readBigUInt64BE(this.at(offset, 8));
    if (value > BigInt(Number.MAX_SAFE_INTEGER))
      throw new VideoReadError(`${this.what} has an out-of-range 64-bit value`);
    return Number(value);
  };
  u24le = (offset: number) => this.data.readUIntLE(this.at(offset, 3), 3);
  u32le = (offset: number) => this.data.readUInt32LE(this.at(offset, 4));
  fourcc = (offset: number) => fourcc(this.data, this.at(offset, 4));
}

interface Box {
  type: string;
  /** The payload, after the header. */
  body: Reader;
}

/** The boxes directly inside `[start, end)`; size 1 means a 64-bit size follows, size 0 runs to `end`. */
function boxes(data: Buffer, start: number, end: number): Box[] {
  const found: Box[] = [];
  let at = start;
  while (at < end) {
    if (end - at < 8) throw new VideoReadError('MP4 box header is truncated');
    let size = data.readUInt32BE(at);
    const type = fourcc(data, at + 4);
    let header = 8;
    if (size === 1) {
      if (end - at < 16) throw new VideoReadError(`MP4 box ${JSON.stringify(type)} is truncated`);
      const large = data.readBigUInt64BE(at + 8);
      if (large > BigInt(Number.MAX_SAFE_INTEGER))
        throw new VideoReadError(`MP4 box ${JSON.stringify(type)} is too large`);
      size = Number(large);
      header = 16;
    } else if (size === 0) {
      size = end - at;
    }
    if (size < header || at + size > end)
      throw new VideoReadError(`MP4 box ${JSON.stringify(type)} is truncated or has a bad size`);
    found.push({ type, body: new Reader(data, at + header, at + size, `MP4 box ${type}`) });
    at += size;
  }
  return found;
}

const child = (box: Box | undefined, type: string): Box | undefined =>
  box ? boxes(box.body.data, box.body.start, box.body.end).find((b) => b.type === type) : undefined;

/** The first track of `moov` whose handler is video ('vide'), with its media box. */
function firstVideoTrack(data: Buffer, moov: Box): { trak: Box; mdia: Box | undefined } | undefined {
  for (const trak of boxes(data, moov.body.start, moov.body.end).filter((b) => b.type === 'trak')) {
    const mdia = child(trak, 'mdia');
    const hdlr = child(mdia, 'hdlr');
    // hdlr: version and flags, pre_defined, then the handler type.
    if (hdlr?.body.fourcc(8) === 'vide') return { trak, mdia };
  }
  return undefined;
}

/** A movie (mvhd) or media (mdhd) header's timescale and duration; version 1 has 64-bit times. Zeros when absent. */
function headerTimes(header: Box | undefined): { timescale: number; duration: number } {
  if (!header) return { timescale: 0, duration: 0 };
  return header.body.u8(0) === 1
    ? { timescale: header.body.u32be(20), duration: header.body.u64be(24) }
    : { timescale: header.body.u32be(12), duration: header.body.u32be(16) };
}

function probeMp4(data: Buffer): VideoInfo {
  const top = boxes(data, 0, data.length);
  if (top[0]?.type !== 'ftyp') throw new VideoReadError('not an MP4: no ftyp box first');
  const moov = top.find((b) => b.type === 'moov');
  if (!moov) throw new VideoReadError('MP4 has no moov box');
  if (!top.some((b) => b.type === 'mdat')) throw new VideoReadError('MP4 has no mdat box (no media data)');
  const mvhd = child(moov, 'mvhd');
  const movie = headerTimes(mvhd);
  const video = firstVideoTrack(data, moov);
  if (!video) throw new VideoReadError('MP4 has no video track');
  const { trak, mdia } = video;
  const tkhd = child(trak, 'tkhd');
  if (!tkhd) throw new VideoReadError('MP4 video track has no tkhd box');
  const tv = tkhd.body.u8(0);
  const dims = tv === 1 ? 4 + 84 : 4 + 72;
  // 16.16 fixed point.
  const width = Math.round(tkhd.body.u32be(dims) / 65536);
  const height = Math.round(tkhd.body.u32be(dims + 4) / 65536);
  const mdhd = child(mdia, 'mdhd');
  const track = headerTimes(mdhd);
  const stsz = child(child(child(mdia, 'minf'), 'stbl'), 'stsz');
  const frames = stsz ? stsz.body.u32be(8) : 0;
  const durationS =
    track.timescale > 0 && track.duration > 0
      ? track.duration / track.timescale
      : movie.timescale > 0
        ? movie.duration / movie.timescale
        : 0;
  return { format: 'mp4', width, height, durationS, frames, fps: durationS > 0 ? frames / durationS : 0 };
}

/** The video track's sample entry type ('avc1' for H.264), or null. */
export function mp4Codec(data: Buffer): string | null {
  try {
    const moov = boxes(data, 0, data.length).find((b) => b.type === 'moov');
    const video = moov ? firstVideoTrack(data, moov) : undefined;
    if (!video) return null;
    const stsd = child(child(child(video.mdia, 'minf'), 'stbl'), 'stsd');
    if (!stsd || stsd.body.u32be(4) < 1) return null;
    const [entry] = boxes(data, stsd.body.start + 8, stsd.body.end);
    return entry?.type ?? null;
  } catch {
    return null;
  }
}

function probeWebp(data: Buffer): VideoInfo {
  // RIFF size counts from byte 8; a file may be padded past it, never cut short of it.
  const riffEnd = 8 + data.readUInt32LE(4);
  if (riffEnd > data.length) throw new VideoReadError('WebP is truncated');
  let at = 12;
  let canvas: { width: number; height: number } | null = null;
  let still: { width: number; height: number } | null = null;
  const delays: number[] = [];
  while (at < riffEnd) {
    if (riffEnd - at < 8) throw new VideoReadError('WebP chunk header is truncated');
    const type = fourcc(data, at);
    const size = data.readUInt32LE(at + 4);
    const body = new Reader(data, at + 8, at + 8 + size, `WebP chunk ${type}`);
    if (at + 8 + size > riffEnd) throw new VideoReadError(`WebP chunk ${JSON.stringify(type)} is truncated`);
    if (type === 'VP8X') canvas = { width: body.u24le(4) + 1, height: body.u24le(7) + 1 };
    else if (type === 'ANMF') delays.push(body.u24le(12));
    else if (type === 'VP8 ') {
      // Frame tag (3 bytes), start code 9d 01 2a, then 14-bit width and height.
      if (body.u8(3) !== 0x9d || body.u8(4) !== 0x01 || body.u8(5) !== 0x2a)
        throw new VideoReadError('WebP VP8 chunk has no start code');
      still = { width: body.u16le(6) & 0x3fff, height: body.u16le(8) & 0x3fff };
    } else if (type === 'VP8L') {
      if (body.u8(0) !== 0x2f) throw new VideoReadError('WebP VP8L chunk has no signature');
      const bits = body.u32le(1);
      still = { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    at += 8 + size + (size & 1);
  }
  if (delays.length > 0) {
    if (!canvas) throw new VideoReadError('animated WebP has no VP8X chunk');
    const durationS = delays.reduce((sum, delay) => sum + delay, 0) / 1000;
    // Counted at the clip's rate: the encoder stores a run of identical frames as one longer frame.
    const frames = webpTiming(delays).repeats.reduce((sum, repeats) => sum + repeats, 0);
    return { format: 'webp', ...canvas, durationS, frames, fps: durationS > 0 ? frames / durationS : 0 };
  }
  const size = canvas ?? still;
  if (!size || !still) throw new VideoReadError('WebP has no image data');
  return { format: 'webp', ...size, durationS: 0, frames: 1, fps: 0 };
}

/** Reads an MP4 (ISO BMFF boxes) or animated WebP (RIFF chunks) header; throws VideoReadError when it is neither. */
export function probeVideo(data: Buffer): VideoInfo {
  if (data.length >= 12 && fourcc(data, 0) === 'RIFF' && fourcc(data, 8) === 'WEBP') return probeWebp(data);
  if (data.length >= 8 && fourcc(data, 4) === 'ftyp') return probeMp4(data);
  throw new VideoReadError('neither an MP4 nor a WebP');
}
