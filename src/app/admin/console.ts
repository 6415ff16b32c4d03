import { z } from 'zod';
import { AppError } from '../../domain/errors.js';
import { AccountRef } from './accounts.js';
import { adminOp } from './op.js';

export const consoleOps = {
  /** A one-time sign-in link to the web console, for an account or the operator view (valid 10 minutes, single use). */
  'console.link': adminOp({
    args: z.object({
      account: AccountRef.optional(),
      operator: z.boolean().optional(),
      next: z.string().max(500).optional(),
    }),
    run: async (s, a) => {
      if ((a.account === undefined) === (a.operator !== true))
        throw new AppError(
          'VALIDATION_ERROR',
          'name one of an account (--account NAME) or the operator view (--operator)',
        );
      if (!s.config.current().console.enabled)
        throw new AppError('VALIDATION_ERROR', 'the web console is off (console.enabled: false)');
      const account = a.account === undefined ? null : await s.accounts.find(a.account);
      const link = await s.consoleSessions.issueLink(account?.id ?? null, a.next);
      return { url: `${s.publicBase()}${link.path}`, expiresAt: link.expiresAt, account: account?.name ?? null };
    },
  }),
  'console.sessions.list': adminOp({ args: z.object({}), run: (s) => s.consoleSessions.list() }),
  'console.sessions.revoke': adminOp({
    args: z.object({ id: z.string().min(1) }),
    run: (s, a) => s.consoleSessions.revoke(a.id),
  }),
};
