import { randomId } from '../domain/ids.js';
import type { VideoFormat } from '../providers/types.js';
import type { BlobStore } from '../store/blobs.js';

export interface StoredVideo {
  id: string;
  fileName: string;
  format: VideoFormat;
  bytes: number;
  serviceUrl: string;
  data: Buffer;
}

/** Videos the service made: stored durably, served at `/videos/<id>.<ext>`. */
export function createVideoLibrary(deps: { blobs: BlobStore; publicBase: () => string }) {
  const serviceUrl = (fileName: string) => `${deps.publicBase()}/videos/${fileName}`;
  return {
    serviceUrl,
    /** Where a stored video lives on disk; throws for a name that is not a video file name. */
    pathOf: (fileName: string) => deps.blobs.pathOf(fileName),
    async save(data: Buffer, format: VideoFormat): Promise<StoredVideo> {
      const id = randomId('vid');
      const fileName = `${id}.${format}`;
      await deps.blobs.put(fileName, data);
      return { id, fileName, format, bytes: data.length, serviceUrl: serviceUrl(fileName), data };
    },
  };
}

export type VideoLibrary = ReturnType<typeof createVideoLibrary>;
