import type { Writable } from 'node:stream';
import pg from 'pg';
import { clientConfig } from './connection.js';
import type { Statement } from './db.js';

/** Runs statements on the shared pipelined connections (see createPipelines). */
export interface Pipelines {
  /**
   * Runs `statements`: with `transaction`, between BEGIN and COMMIT (when any fails, nothing is
   * kept and that failure is thrown: those after it fail as aborted and COMMIT answers ROLLBACK);
   * without, each on its own. Answers each statement's result.
   */
  run(statements: readonly Statement[], transaction: boolean): Promise<pg.QueryResult[]>;
  close(): Promise<void>;
}

interface Connection {
  client: pg.Client;
  /** Statements sent and not answered yet. */
  waiting: number;
  /** Holding what is sent until the end of this turn of the event loop. */
  corked: boolean;
  /** The error that broke the connection: what every statement on it fails with. */
  broken?: Error;
}

/**
 * A few connections in pipeline mode (a statement is sent without waiting for the one before to
 * be answered), shared by every batch and named statement of the process. What is sent in one
 * turn of the event loop leaves in one write per connection: on a machine whose cores the
 * database shares, each write to it is a system call and a wake-up of the server process, so a
 * burst costs a few writes instead of one per batch. A batch's transaction (BEGIN, its
 * statements, COMMIT) is queued as one block, so transactions on one connection never
 * interleave, and the server runs each back to back: its row locks are held for the time the
 * server needs, never across a round trip to this process. A statement goes to the connection
 * with the fewest waiting. A connection that breaks fails what waits on it (with its error) and
 * is replaced on next use. `setup` runs first on each connection.
 */
export function createPipelines(options: {
  url: string;
  count: number;
  applicationName?: string;
  setup: string;
  onBroken: (err: Error) => void;
}): Pipelines {
  const connections: (Connection | undefined)[] = Array.from({ length: options.count }, () => undefined);
  let closed = false;

  function open(slot: number): Connection {
    const client = new pg.Client({
      ...clientConfig(options.url),
      application_name: options.applicationName ?? 'imgtask',
      pipeline: true,
    });
    const connection: Connection = { client, waiting: 0, corked: false };
    const broke = (err: Error) => {
      connection.broken ??= err;
      if (connections[slot] === connection) connections[slot] = undefined;
      if (!closed) options.onBroken(err);
    };
    client.on('error', broke);
    client.on('end', () => broke(new Error('Connection terminated')));
    // Queued before anything else is sent on it; a connection that cannot be made fails what waits on it.
    client.connect().catch(broke);
    client.query(options.setup).catch(() => undefined);
    connections[slot] = connection;
    return connection;
  }

  function pick(): Connection {
    let best: Connection | undefined;
    for (let slot = 0; slot < connections.length; slot++) {
      const connection = connections[slot] ?? open(slot);
      if (!best || connection.waiting < best.waiting) best = connection;
    }
    return best!;
  }

  /** Sends `queries` on `connection` as one block, in the write of this turn. */
  function send(connection: Connection, queries: () => Promise<pg.QueryResult>[]): Promise<pg.QueryResult>[] {
    const stream = (connection.client as unknown as { connection: { stream: Writable } }).connection.stream;
    if (!connection.corked) {
      connection.corked = true;
      stream.cork();
      setImmediate(() => {
        connection.corked = false;
        stream.uncork();
      });
    }
    return queries();
  }

  return {
    async run(statements, transaction) {
      if (closed) throw new Error('the store is closed');
      const connection = pick();
      const { client } = connection;
      const sent = send(connection, () =>
        transaction
          ? [client.query('BEGIN'), ...statements.map((statement) => client.query(statement)), client.query('COMMIT')]
          : statements.map((statement) => client.query(statement)),
      );
      connection.waiting += sent.length;
      const settled = await Promise.allSettled(sent);
      connection.waiting -= sent.length;
      // Every statement answered (COMMIT too) is done, even when the connection broke right
      // after (a server shutting down sends its FATAL behind the answers): the batch is kept.
      const failed = settled.find((result) => result.status === 'rejected');
      if (failed) throw connection.broken ?? failed.reason;
      const results = settled.map((result) => (result as PromiseFulfilledResult<pg.QueryResult>).value);
      if (!transaction) return results;
      if (results[results.length - 1].command !== 'COMMIT') throw new Error('the transaction was rolled back');
      return results.slice(1, -1);
    },
    async close() {
      closed = true;
      await Promise.all(connections.map((connection) => connection?.client.end().catch(() => undefined)));
    },
  };
}
