import { z } from 'zod';
import { CreateDestinationBody } from '../../api/routes/destinations/create.js';
import { UpdateDestinationBody } from '../../api/routes/destinations/update.js';
import { AccountRef } from './accounts.js';
import { adminOp } from './op.js';

const DestinationId = z.object({ id: z.string().min(1) });

/** The destination routes' bodies and not-found codes, on any account's destinations. */
export const destinationOps = {
  'destinations.create': adminOp({
    args: z.intersection(CreateDestinationBody, z.object({ account: AccountRef })),
    run: async (s, a) => {
      const { account, ...body } = a;
      return s.destinations.create((await s.accounts.find(account)).id, body);
    },
  }),
  'destinations.list': adminOp({
    args: z.object({ account: AccountRef }),
    run: async (s, a) => s.destinations.list((await s.accounts.find(a.account)).id),
  }),
  'destinations.show': adminOp({ args: DestinationId, run: (s, a) => s.destinations.get(null, a.id) }),
  'destinations.update': adminOp({
    args: UpdateDestinationBody.extend(DestinationId.shape),
    run: (s, { id, ...changes }) => s.destinations.update(null, id, changes),
  }),
  'destinations.delete': adminOp({
    args: DestinationId,
    run: async (s, a) => {
      await s.destinations.delete(null, a.id);
      return { id: a.id, deleted: true as const };
    },
  }),
  'destinations.test': adminOp({ args: DestinationId, run: (s, a) => s.destinations.test(null, a.id) }),
};
