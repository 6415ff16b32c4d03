import type { HttpBindings } from '@hono/node-server';
import type { ConfigSource } from '../config/source.js';
import type { AccountService } from '../services/accounts.js';
import type { ApiKeyService } from '../services/api-keys.js';
import type { AuthService, Principal } from '../services/auth.js';
import type { DestinationService } from '../services/destinations.js';
import type { ImageLibrary } from '../services/images.js';
import type { Outbox } from '../services/outbox.js';
import type { TaskTypeRegistry } from '../services/task-types.js';
import type { TaskService } from '../services/tasks.js';
import type { WebhookService } from '../services/webhooks.js';

/** What the API needs from the rest of the service; tests hand it real ones. */
export interface ApiDeps {
  /** The config in force: read `current()` when a setting is used, so a reload applies at once. */
  config: ConfigSource;
  accounts: AccountService;
  apiKeys: ApiKeyService;
  auth: AuthService;
  tasks: TaskService;
  registry: TaskTypeRegistry;
  images: ImageLibrary;
  webhooks: WebhookService;
  outbox: Outbox;
  destinations: DestinationService;
  log: (message: string) => void;
}

export type ApiEnv = {
  /** Present when served by @hono/node-server: the raw Node request, for streaming uploads. */
  Bindings: Partial<HttpBindings>;
  Variables: {
    requestId: string;
    principal: Principal;
  };
};
