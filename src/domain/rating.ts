/** The built-in `nsfw_sfw` scale, as a vision model is asked to apply it. */
export const NSFW_LEVELS = [
  { value: 'sfw', description: 'safe for work: no nudity, sexual content or graphic violence' },
  { value: 'nsfw', description: 'not safe for work: nudity, sexual content or graphic violence' },
] as const;
