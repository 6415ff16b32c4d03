import type { PromptEnhancer } from '../provider-types.js';

/** Added to every negative prompt. */
const DEFAULT_NEGATIVE = 'blurry, low quality, jpeg artifacts, distorted, deformed, watermark, signature, text';

const STYLES: Array<{ when: RegExp; terms: string }> = [
  {
    when: /\b(photo|photograph|photorealistic|portrait of|dslr|camera)\b/i,
    terms: 'photorealistic, natural light, 50mm lens, shallow depth of field, sharp focus, high detail',
  },
  {
    when: /\b(painting|oil|watercolou?r|acrylic|impressionis\w*)\b/i,
    terms: 'fine art, visible brushwork, rich colour palette, gallery lighting',
  },
  {
    when: /\b(illustration|drawing|sketch|cartoon|comic|anime|manga)\b/i,
    terms: 'clean line art, vibrant flat colours, well-defined shapes',
  },
  {
    when: /\b(3d|render|isometric|low poly|cgi)\b/i,
    terms: 'physically based rendering, global illumination, soft shadows',
  },
  { when: /\b(logo|icon|emblem)\b/i, terms: 'simple, centered, flat design, plain background, vector style' },
];
const DEFAULT_TERMS = 'highly detailed, balanced composition, soft natural lighting, sharp focus';

/**
 * Prompt enhancement without a language model, by documented rules: the first style the
 * prompt names (photo, painting, illustration, 3D, logo) adds its terms, else general
 * quality terms; composition and lighting terms the prompt already has are not repeated;
 * the negative prompt gains DEFAULT_NEGATIVE. Same input, same output.
 */
export function createRulePromptEnhancer(): PromptEnhancer {
  return {
    async enhance(prompt, negativePrompt) {
      const terms = (STYLES.find((style) => style.when.test(prompt))?.terms ?? DEFAULT_TERMS)
        .split(', ')
        .filter((term) => !prompt.toLowerCase().includes(term.toLowerCase()));
      const positive = terms.length ? `${prompt.trim().replace(/[.,;\s]+$/, '')}, ${terms.join(', ')}` : prompt.trim();
      const negative = negativePrompt ? `${negativePrompt.trim()}, ${DEFAULT_NEGATIVE}` : DEFAULT_NEGATIVE;
      return { positive: positive.slice(0, 8192), negative: negative.slice(0, 8192) };
    },
  };
}
