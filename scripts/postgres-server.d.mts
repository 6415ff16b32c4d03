import type { ChildProcess } from 'node:child_process';

export interface PostgresServer {
  /** Admin URL (user and password `imgtask`, database `postgres`). */
  readonly url: string;
  readonly port: number;
  /** The server's folder (data, socket); removed by `stop()`. */
  readonly dir: string;
  /** The running postgres process. */
  readonly process: ChildProcess | null;
  /** A fast shutdown, then a start on the same data and port. */
  restart(): Promise<void>;
  /** A fast shutdown, keeping the data and port for `resume()`. */
  pause(): Promise<void>;
  /** Starts a paused server again on the same data and port. */
  resume(): Promise<void>;
  /** A fast shutdown; removes the folder. */
  stop(): Promise<void>;
}

export function startPostgresServer(options?: {
  port?: number;
  flags?: string[];
  log?: (line: string) => void;
}): Promise<PostgresServer>;
