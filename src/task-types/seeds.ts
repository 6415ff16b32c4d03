import { randomInt } from 'node:crypto';
import { z } from 'zod';

/**
 * Seeds are 32-bit unsigned: what Stable Diffusion front ends (A1111, ComfyUI) and most OpenAI-compatible servers take.
 */
const SEED_SPACE = 2 ** 32;

/** The `seed` of a generate or video body: item i is made with (seed + i) mod 2^32. */
export const SeedField = z
  .number()
  .int()
  .min(0)
  .max(SEED_SPACE - 1)
  .optional()
  .describe(
    '0..4294967295; item i is made with (seed + i) mod 2^32 (run i, of a ComfyUI model that makes several images a run: its images share the seed); a random seed is chosen (and reported on each item) when absent',
  );

/**
 * The seed a successful item reports, in a result (optional: items of tasks prepared before seeds were kept have none).
 */
export const ItemSeed = z
  .number()
  .int()
  .optional()
  .describe(
    'the seed this item was made with: the request’s seed (or the one chosen) + its index (its run’s, of a model that makes several images a run), mod 2^32; absent only on items of tasks prepared before seeds were kept',
  );

/**
 * The task's base seed: the request's, else one chosen at random. Called once, in `prepare`,
 * so the choice is journaled with the plan and a retry or a restart makes the same items.
 */
export const baseSeed = (requested: number | undefined): number => requested ?? randomInt(0, SEED_SPACE);

/** Item `index`'s seed: consecutive from the base, wrapping at 2^32. */
export const itemSeed = (base: number, index: number): number => (base + index) % SEED_SPACE;
