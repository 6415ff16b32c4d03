import { z } from 'zod';
import { Timestamp } from '../../common-schemas.js';

/** The destination resource (docs/api/destinations.md); secret config fields are masked (`****1234`). */
export const Destination = z.object({
  id: z.string(),
  name: z.string(),
  provider: z.object({ id: z.enum(['local', 's3', 'http']) }),
  config: z.record(z.string(), z.unknown()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Destination = z.infer<typeof Destination>;
