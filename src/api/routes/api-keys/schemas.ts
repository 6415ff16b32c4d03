import { z } from 'zod';
import { Timestamp, Usd } from '../../schemas.js';

/** The API key resource (SPEC part 2); never the raw key, which only the create answer carries. */
export const ApiKey = z.object({
  id: z.string(),
  keyPreview: z.string(),
  userId: z.string(),
  name: z.string().optional(),
  scopes: z.array(z.string()),
  spendingLimit: Usd.optional(),
  spendingLimitPeriod: z.enum(['day', 'week', 'month']),
  createdAt: Timestamp,
});
export type ApiKey = z.infer<typeof ApiKey>;
