import type { Config } from '../config/schema.js';
import type { ConfigSource } from '../config/source.js';
import type { OutputSigner } from '../domain/provenance.js';
import type { C2paLoad } from '../media/c2pa.js';
import { createSafeFetcher } from '../net/safe-fetch.js';
import { createImageLibrary, type ImageLibrary } from '../services/image-library.js';
import type { UrlFetcher } from '../services/ports.js';
import { createSpaceGuard, type SpaceGuard } from '../services/space-guard.js';
import { createVerifySource, type VerifySource } from '../services/verify-source.js';
import { createVideoLibrary, type VideoLibrary } from '../services/video-library.js';
import type { StorageFs } from '../store/durable-fs.js';
import { createFreeSpaceWatch } from '../store/free-space.js';
import type { Store } from '../store/store-contract.js';
import { type BlobStores, openBlobStores, tidyBlobStores } from './blob-storage.js';
import type { DataDirLayout } from './data-dir.js';
import type { Logger } from './logger.js';
import { openOutputSigner } from './output-signer.js';
import { ffmpegPathOf } from './providers.js';

/** Where images and videos are kept, how they are signed and fetched, and the free-space guard over their folders. */
export interface MediaServices {
  blobs: BlobStores;
  space: SpaceGuard;
  outputSigner: OutputSigner;
  images: ImageLibrary;
  videos: VideoLibrary;
  verifySource: VerifySource;
}

/**
 * Opens the blob stores and builds the media services over them. `initial` is the config at start:
 * images.storage and provenance.* are read once; the rest follows `config`, so a reload applies.
 */
export async function openMediaServices(deps: {
  initial: Config;
  config: ConfigSource;
  layout: DataDirLayout;
  store: Store;
  secret: (name: string) => Promise<string | undefined>;
  fs: StorageFs;
  publicBase: () => string;
  log: (message: string) => void;
  /** The caller's plain log, when it takes messages (tests, the CLI); else the structured logger. */
  plainLog: ((message: string) => void) | undefined;
  logger: Logger;
  loadC2pa: (() => Promise<C2paLoad>) | undefined;
}): Promise<MediaServices> {
  const { initial, config, layout, store, secret, publicBase, log } = deps;
  // images.storage: the data dir's folders, or one S3-compatible bucket shared by every process (read at start).
  const blobs = await openBlobStores(initial, { root: layout.root, secret, fs: deps.fs });
  await tidyBlobStores(blobs, log);
  // Free space where the service writes: the store's folder (file store) and the blob folders (local storage).
  const freeSpace = createFreeSpaceWatch({
    fs: deps.fs,
    folders: [...(initial.store.driver === 'file' ? [{ name: 'store', path: layout.store }] : []), ...blobs.folders],
  });
  const space = createSpaceGuard({
    readings: freeSpace.read,
    minFreeBytes: () => config.current().store.minFreeBytes,
    writeFailure: () => store.writeFailure(),
  });
  // Signs made images and videos as they are stored (provenance.*, read at start); a refused certificate stops the
  // start.
  const outputSigner = await openOutputSigner({
    config: initial,
    dataDir: layout.root,
    secret,
    log: deps.plainLog,
    logger: deps.logger,
    load: deps.loadC2pa,
  });
  // Other URLs through the SSRF guard, built per call from the fetch.* settings in force, so a reload applies to the
  // next fetch.
  const fetcher: UrlFetcher = {
    fetch: (url, signal) =>
      createSafeFetcher({ ...config.current().fetch, privateAddressesSetting: 'fetch.allowPrivateAddresses' }).fetch(
        url,
        signal,
      ),
  };
  const images = createImageLibrary({
    signer: outputSigner,
    log,
    space,
    blobs: blobs.images,
    fetcher,
    publicBase,
    config,
  });
  const videos = createVideoLibrary({
    blobs: blobs.videos,
    posters: blobs.posters,
    publicBase,
    ffmpegPath: () => ffmpegPathOf(config.current()),
    signer: outputSigner,
    log,
  });
  // What POST /image/verify reads: other URLs through the guarded fetcher.
  const verifySource = createVerifySource({ store, images: blobs.images, videos: blobs.videos, publicBase, fetcher });
  return { blobs, space, outputSigner, images, videos, verifySource };
}
