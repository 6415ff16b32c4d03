import { z } from 'zod';

/** Schema pieces the route files share to describe their answers. */
export const Timestamp = z.string().describe('ISO 8601 with milliseconds, UTC');
export const Usd = z.string().describe('decimal USD, e.g. "0.0002"');

/** The `{ data }` envelope of every success answer. */
export const dataOf = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

/** The answer of a DELETE. */
export const Deleted = z.object({ id: z.string(), deleted: z.literal(true) });
