import { z } from 'zod';

// The embedded section: the in-process models (NSFW rating, background removal, alt text and OCR).

export const EmbeddedSection = z.strictObject({
  preload: z
    .boolean()
    .default(true)
    .describe(
      'Load the enabled models in the background at start, so the first request does not wait for a load; false: each loads on first use.',
    ),
  nsfw: z.strictObject({
    enabled: z
      .boolean()
      .describe(
        'Rate the nsfw_sfw scale with the embedded model, unless providers.vision does (its nsfw: true); false: nsfw_sfw requests then fail validation (VALIDATION_ERROR).',
      ),
    timeoutMs: z
      .number()
      .int()
      .min(1000)
      .describe(
        "Milliseconds a rating (or the model's load) may take before it fails with TIMEOUT; taken when the model is first used, a reload does not change it.",
      ),
  }),
  backgroundRemoval: z.strictObject({
    enabled: z
      .boolean()
      .describe(
        'Remove backgrounds with the embedded model; false: background-removal requests fail validation (VALIDATION_ERROR).',
      ),
    model: z
      .enum(['small', 'medium'])
      .describe(
        'The ISNet model: `small` or `medium`; taken when the model is first used, a reload does not change it.',
      ),
    threads: z
      .number()
      .int()
      .min(1)
      .max(16)
      .describe(
        'onnxruntime threads of the model (1..16); taken when the model is first used, a reload does not change it.',
      ),
    timeoutMs: z
      .number()
      .int()
      .min(1000)
      .describe(
        "Milliseconds a removal (or the model's load) may take before it fails with TIMEOUT; taken when the model is first used, a reload does not change it.",
      ),
  }),
  altText: z.strictObject({
    enabled: z
      .boolean()
      .describe(
        'Write alt text with the embedded describer, unless providers.vision does; false: alt-text requests then fail validation (VALIDATION_ERROR), and review has no OCR.',
      ),
    ocr: z
      .boolean()
      .describe(
        "Read the text in images with tesseract.js (English): quoted in alt text, and measured by review's text checks (without OCR they go to the vision judge); false: no OCR. Taken for alt text when the describer is first used; a reload does not change that.",
      ),
  }),
});
