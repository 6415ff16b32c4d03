import { z } from 'zod';
import { UsdString } from './setting-fields.js';

// The review section: the price of image.review and the thresholds of its embedded checks.

/** image.review: the price per image, and the thresholds of the embedded technical checks. */
export const ReviewSection = z.strictObject({
  price: UsdString,
  minShortSide: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .describe('The shorter side, in pixels, below which "resolution" fails.'),
  minSharpness: z
    .number()
    .min(0)
    .describe(
      'Variance of the Laplacian (grey levels², on the image scaled to 512 px on its longer side) below which "sharp focus" fails.',
    ),
  maxClipped: z
    .number()
    .min(0)
    .max(1)
    .describe(
      'Share of pixels at pure black or pure white (0..1) above which "exposure" fails (clipped shadows or highlights).',
    ),
  brightness: z
    .tuple([z.number().min(0).max(255), z.number().min(0).max(255)])
    .describe(
      'Mean brightness (0–255) outside which "exposure" fails: too dark below the first, too bright above the second.',
    ),
});
