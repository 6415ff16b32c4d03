/** The stored records, one module per resource in records/: this module gathers them for code across layers. */
export * from './records/accounts.js';
export * from './records/api-keys.js';
export * from './records/billing-alerts.js';
export * from './records/console-sessions.js';
export * from './records/destinations.js';
export * from './records/idempotency.js';
export * from './records/lane-pauses.js';
export * from './records/secrets.js';
export * from './records/tasks.js';
export * from './records/uploads.js';
export * from './records/webhooks.js';
