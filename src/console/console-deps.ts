import type { ApiDeps, ApiEnv } from '../api/api-deps.js';
import type { AccountService } from '../services/accounts.js';
import type { ConsoleSession, ConsoleSessionService } from '../services/console-sessions.js';
import type { OperatorService } from '../services/operator.js';
import type { Clock } from '../services/ports.js';
import type { TokenService } from '../services/tokens.js';

/** What the console needs: the API's services (every action goes through them, as the API's do) and its own. */
export interface ConsoleDeps extends ApiDeps {
  accounts: AccountService;
  consoleSessions: ConsoleSessionService;
  tokens: TokenService;
  clock: Clock;
  operator: OperatorService;
  /** The operator view's doctor status: the checks of `imgtask doctor` (ledger, storage, engines). */
  doctor: () => Promise<{ ok: boolean; problems: string[] }>;
  /** Erasing an account (the operator view), as imgtask accounts erase does. */
  accountErase: { erase(ref: string): Promise<unknown> };
  /** Pausing and resuming lanes (the operator view), fleet-wide on a shared database. */
  engine: {
    pauseLane(lane: string): Promise<unknown>;
    /** False when the lane was not paused. */
    resumeLane(lane: string): Promise<boolean>;
  };
}

export type ConsoleEnv = {
  Bindings: ApiEnv['Bindings'];
  Variables: ApiEnv['Variables'] & {
    /** The signed-in session, when the request carries a live one. */
    session?: ConsoleSession;
    /** The request's own origin (scheme://host[:port]), as the browser addressed it. */
    origin: string;
  };
};
