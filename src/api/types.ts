import type { Config } from '../config/schema.js';
import type { AccountService } from '../services/accounts.js';
import type { ApiKeyService } from '../services/api-keys.js';
import type { AuthService, Principal } from '../services/auth.js';
import type { TaskTypeRegistry } from '../services/task-types.js';
import type { TaskService } from '../services/tasks.js';

/** What the API needs from the rest of the service; tests hand it real ones. */
export interface ApiDeps {
  config: Config;
  accounts: AccountService;
  apiKeys: ApiKeyService;
  auth: AuthService;
  tasks: TaskService;
  registry: TaskTypeRegistry;
  log: (message: string) => void;
}

export type ApiEnv = {
  Variables: {
    requestId: string;
    principal: Principal;
  };
};
