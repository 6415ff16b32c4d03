import type { ConfigSource } from '../config/source.js';
import { IMAGE_MIME, VIDEO_MIME } from '../domain/media-types.js';
import type { ProviderSet } from '../providers/provider-types.js';
import type { DestinationService } from '../services/destinations.js';
import type { ImageLibrary } from '../services/image-library.js';
import type { VideoLibrary } from '../services/video-library.js';

/** What the image task types need from the running service (the composition root wires it). */
export interface ImageTaskDeps {
  config: Pick<ConfigSource, 'current'>;
  /** The providers in force; rebuilt on a config reload or a secret change. */
  providers: () => ProviderSet;
  images: ImageLibrary;
  videos: VideoLibrary;
  /** The ffmpeg binary (video conversion). */
  ffmpegPath: () => string;
  destinations: Pick<DestinationService, 'exists' | 'deliver'>;
}

/**
 * Sends a stored image (or video: its id stands for {imageId} in the key) to the request's destination, if it names
 * one. The image item keeps
 * `destination` (success: name, status, key, url; failure: name, status, error) and its `url`
 * becomes the destination's public URL, or null when the storage has none or delivery failed
 * (the image stays at its service_url either way, and is charged: it was made).
 */
export async function deliverToDestination(
  deps: ImageTaskDeps,
  item: Record<string, unknown>,
  args: {
    accountId: string;
    destination?: string;
    taskId: string;
    index: number;
    image: { id: string; format: string; data: Buffer };
    signal: AbortSignal;
  },
): Promise<void> {
  if (!args.destination) return;
  const delivered = await deps.destinations.deliver(
    args.accountId,
    args.destination,
    {
      taskId: args.taskId,
      imageId: args.image.id,
      index: args.index,
      ext: args.image.format,
      data: args.image.data,
      contentType: IMAGE_MIME[args.image.format] ?? VIDEO_MIME[args.image.format] ?? 'application/octet-stream',
    },
    args.signal,
  );
  item.url = delivered.status === 'success' ? (delivered.url ?? null) : null;
  item.destination = delivered;
}
