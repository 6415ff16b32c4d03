import { z } from 'zod';
import { CreateApiKeyBody } from '../../api/routes/api-keys/create.js';
import { RotateApiKeyBody } from '../../api/routes/api-keys/rotate.js';
import { UpdateApiKeyBody } from '../../api/routes/api-keys/update.js';
import { AppError } from '../../domain/errors.js';
import { ALL_SCOPES, DEFAULT_TOKEN_SCOPES } from '../../domain/scopes.js';
import { parseDuration } from '../../domain/time.js';
import { AccountRef } from './accounts.js';
import { adminOp } from './op.js';

export const credentialOps = {
  /** The body of `POST /api-key`, for an account the operator names. */
  'keys.create': adminOp({
    args: CreateApiKeyBody.extend({ account: AccountRef }),
    run: async (s, { account, ...body }) =>
      s.apiKeys.create({ ...body, accountId: (await s.accounts.find(account)).id }),
  }),
  /** The body of `PATCH /api-key/{id}`, for any account's key. */
  'keys.update': adminOp({
    args: UpdateApiKeyBody.extend({ id: z.string().min(1) }),
    run: async (s, { id, ...body }) => s.apiKeys.update(null, id, body),
  }),
  /** `POST /api-key/{id}/rotate`, for any account's key. */
  'keys.rotate': adminOp({
    args: RotateApiKeyBody.extend({ id: z.string().min(1) }),
    run: async (s, a) => s.apiKeys.rotate(null, a.id, a.graceSeconds),
  }),
  'keys.list': adminOp({
    args: z.object({ account: AccountRef }),
    run: async (s, a) => s.apiKeys.list((await s.accounts.find(a.account)).id),
  }),
  'keys.revoke': adminOp({
    args: z.object({ id: z.string().min(1) }),
    run: async (s, a) => ({ ...(await s.apiKeys.revoke(null, a.id)), revoked: true as const }),
  }),
  'tokens.issue': adminOp({
    args: z.object({ account: AccountRef, scopes: z.array(z.enum(ALL_SCOPES)).optional(), ttl: z.string().optional() }),
    run: async (s, a) => {
      const account = await s.accounts.find(a.account);
      const ttl = parseDuration(a.ttl ?? s.config.current().auth.accessTokenTtl);
      if (ttl === null) throw new AppError('VALIDATION_ERROR', 'ttl is a duration such as 90s, 15m, 1h or 30d');
      return s.tokens.issueAccessToken(account.id, a.scopes ?? [...DEFAULT_TOKEN_SCOPES], ttl);
    },
  }),
  'secrets.set': adminOp({
    args: z.object({ name: z.string(), value: z.string() }),
    run: async (s, a) => {
      const saved = await s.secrets.set(a.name, a.value);
      await s.refreshProviders();
      return saved;
    },
  }),
  'secrets.list': adminOp({
    args: z.object({}),
    run: (s) => s.secrets.list(),
  }),
  'secrets.delete': adminOp({
    args: z.object({ name: z.string() }),
    run: async (s, a) => {
      if (!(await s.secrets.delete(a.name))) throw new AppError('VALIDATION_ERROR', `no secret "${a.name}"`);
      await s.refreshProviders();
      return { name: a.name, deleted: true as const };
    },
  }),
};
