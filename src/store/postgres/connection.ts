import pg from 'pg';

/** How imgtask connects to PostgreSQL: a pool, or one client, both reading amounts as JS numbers. */

const INT8 = 20;
const NUMERIC = 1700;

/** bigint (micro-USD, counts) and numeric (sums) as JS numbers: every amount fits in 2^53. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => (value === null ? null : Number(value));
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export function createPool(options: {
  url: string;
  poolSize?: number;
  applicationName?: string;
  log?: (message: string) => void;
}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    application_name: options.applicationName ?? 'imgtask',
    types,
  });
  // An idle connection that breaks (the server restarts) must not take the process down: the pool drops it.
  pool.on('error', (err) => options.log?.(`postgres: idle connection error: ${err.message}`));
  return pool;
}

export function clientConfig(url: string): pg.ClientConfig {
  return { connectionString: url, types };
}
