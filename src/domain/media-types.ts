/** Content types of the image formats the service reads and writes, by format name or file extension. */
export const IMAGE_MIME: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

/** Content types of the video formats the service writes, by file extension. */
export const VIDEO_MIME: Readonly<Record<string, string>> = { mp4: 'video/mp4', webp: 'image/webp' };

/** The containers video tasks make: H.264 MP4, or animated WebP. */
export type VideoFormat = 'mp4' | 'webp';

/** A small live image of work under way (a ComfyUI preview frame): encoded bytes and their media type. */
export interface LivePreview {
  data: Buffer;
  mimeType: 'image/jpeg' | 'image/png' | 'image/webp';
}
