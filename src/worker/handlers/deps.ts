import type { Config } from '../../config/schema.js';
import type { ProviderSet } from '../../providers/types.js';
import type { ImageLibrary } from '../../services/images.js';
import type { DestinationLookup } from '../../services/ports.js';

/** What the image task types need from the running service. */
export interface ImageTypeDeps {
  config: () => Config;
  providers: () => ProviderSet;
  images: ImageLibrary;
  destinations: DestinationLookup;
}
