import { randomId } from '../domain/ids.js';
import { VIDEO_MIME } from '../domain/media-types.js';
import type { OutputOrigin, ProvenanceState } from '../domain/provenance.js';
import type { VideoFormat } from '../providers/provider-types.js';
import type { BlobStore, ByteRange, OpenedBlob } from '../store/blobs.js';
import type { StoredFile } from '../store/records.js';
import { putBlob } from './image-library.js';
import { type StoringSigner, signForStorage } from './output-signing.js';
import { createVideoPosters, posterName } from './video-posters.js';

export interface StoredVideo {
  id: string;
  fileName: string;
  format: VideoFormat;
  bytes: number;
  serviceUrl: string;
  /** What was written: the video and, when one could be made, its poster (an item's `files`). */
  files: StoredFile[];
  data: Buffer;
  /** Whether the stored video carries Content Credentials; set for a video stored with an origin. */
  provenance?: ProvenanceState;
}

/** Stored videos and their posters: store (signed), read and their public URLs. */
export interface VideoLibrary {
  serviceUrl(fileName: string): string;
  /** A stored video's size; null when the name is not a video's or nothing is stored under it. */
  stat(fileName: string): Promise<{ size: number } | null>;
  /** A stored video's bytes (a range of them), as a stream; null as for `stat`. */
  open(fileName: string, range?: ByteRange): Promise<OpenedBlob | null>;
  /** A stored video's poster frame (WebP); made now for a video stored without one; null when none can be made. */
  poster(videoFile: string): Promise<Buffer | null>;
  /**
   * Stores a video and its poster. With an `origin` (a made video) the video is signed before it
   * is stored, so the file, /videos and a destination carry its credentials; the poster, a
   * still for pages that list videos, is not signed (it is made from the same frames).
   */
  save(data: Buffer, format: VideoFormat, origin?: OutputOrigin): Promise<StoredVideo>;
}

/**
 * Videos the service made: stored durably (the data dir or the shared bucket), served at
 * `/videos/<id>.<ext>`, each with a poster frame (its first frame as a still) for pages that
 * show videos as pictures.
 */
export function createVideoLibrary(deps: {
  blobs: BlobStore;
  posters: BlobStore;
  publicBase: () => string;
  ffmpegPath: () => string;
  /** Signs the videos stored with an origin (docs/provenance.md); none: they are stored unsigned. */
  signer?: StoringSigner;
  log?: (message: string) => void;
}): VideoLibrary {
  const serviceUrl = (fileName: string) => `${deps.publicBase()}/videos/${fileName}`;
  const posters = createVideoPosters({ videos: deps.blobs, posters: deps.posters, ffmpegPath: deps.ffmpegPath });
  return {
    serviceUrl,
    /** A stored video's size; null when the name is not a video's or nothing is stored under it. */
    stat: (fileName: string) => deps.blobs.stat(fileName),
    /** A stored video's bytes (a range of them), as a stream; null as for `stat`. */
    open: (fileName: string, range?: ByteRange) => deps.blobs.open(fileName, range),
    /** A stored video's poster frame (WebP); made now for a video stored without one; null when none can be made. */
    poster: posters.get,
    /**
     * Stores a video and its poster. With an `origin` (a made video) the video is signed before it
     * is stored, so the file, /videos and a destination carry its credentials; the poster, a
     * still for pages that list videos, is not signed (it is made from the same frames).
     */
    async save(data: Buffer, format: VideoFormat, origin?: OutputOrigin): Promise<StoredVideo> {
      const id = randomId('vid');
      const fileName = `${id}.${format}`;
      const stored = await signForStorage(deps.signer, data, VIDEO_MIME[format], origin, deps.log);
      await putBlob(deps.blobs, fileName, stored.data, VIDEO_MIME[format], 'video');
      const poster = await posters.make(fileName, data);
      const files: StoredFile[] = [{ name: fileName, bytes: stored.data.length }];
      if (poster) files.push({ name: posterName(fileName), bytes: poster.length });
      const video = {
        id,
        fileName,
        format,
        bytes: stored.data.length,
        serviceUrl: serviceUrl(fileName),
        files,
        data: stored.data,
      };
      return stored.provenance ? { ...video, provenance: stored.provenance } : video;
    },
  };
}
