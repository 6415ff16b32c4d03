/** The PostgreSQL store: what the app and the CLI use of it. */
export { migrate, schemaVersion } from './migrations.js';
export { PgStore } from './pg-store.js';
