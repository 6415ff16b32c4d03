import type { HttpBindings } from '@hono/node-server';
import type { ConfigSource } from '../config/source.js';
import type { OutputSigner, ProvenanceStatus } from '../domain/provenance.js';
import type { AccountEvents } from '../engine/account-events.js';
import type { TaskTypeRegistry } from '../engine/task-registry.js';
import type { TaskService } from '../engine/task-service.js';
import type { TaskStreams } from '../engine/task-stream.js';
import type { ApiKeyService } from '../services/api-keys.js';
import type { AuthService, Principal } from '../services/auth.js';
import type { DataRemoval } from '../services/data-removal.js';
import type { DestinationService } from '../services/destinations.js';
import type { IdempotencyService } from '../services/idempotency.js';
import type { ImageLibrary } from '../services/image-library.js';
import type { UploadService } from '../services/uploads.js';
import type { UsageService } from '../services/usage.js';
import type { VerifySource } from '../services/verify-source.js';
import type { VideoLibrary } from '../services/video-library.js';
import type { WebhookService } from '../services/webhooks/webhook-service.js';

/** What the API needs from the rest of the service; tests hand it real ones. */
export interface ApiDeps {
  /** The config in force: read `current()` when a setting is used, so a reload applies at once. */
  config: ConfigSource;
  apiKeys: ApiKeyService;
  auth: AuthService;
  tasks: TaskService;
  registry: TaskTypeRegistry;
  images: ImageLibrary;
  /** Uploaded images and their records (POST /image/upload). */
  uploads: UploadService;
  /** Deleting a task's or an upload's data (DELETE /tasks/{id}, DELETE /image/upload/{id}). */
  dataRemoval: Pick<DataRemoval, 'removeTask' | 'removeUpload'>;
  videos: VideoLibrary;
  webhooks: WebhookService;
  destinations: DestinationService;
  idempotency: IdempotencyService;
  /** Live status streams: the fan-out of task changes to GET /tasks/{id}/events. */
  taskStreams: TaskStreams;
  /** Each account's settled-task events, live: the fan-out to GET /webhook/events. */
  accountEvents: AccountEvents;
  usage: UsageService;
  /** Reads and validates Content Credentials (POST /image/verify, the console's full view). */
  outputSigner: Pick<OutputSigner, 'verify'>;
  /** What POST /image/verify reads: a URL through the SSRF guard, or the account's upload from storage. */
  verifySource: VerifySource;
  log: (message: string) => void;
  ops: Ops;
}

/** What the access log and the operations routes (/metrics, /ready) need from the running service. */
export interface Ops {
  /** Where access lines go, in pino's shape: the fields, then the message. */
  accessLog: Record<'info' | 'warn' | 'error', (fields: object, message: string) => void>;
  /** Counts and times one answered request, by its route pattern (never the raw path). */
  observeRequest(request: { method: string; route: string; status: number; seconds: number }): void;
  /** Every metric, in the Prometheus text format. */
  metrics(): Promise<{ contentType: string; text: string }>;
  /** What keeps the service from being ready, one phrase each; empty when it is ready. */
  notReady(): Promise<string[]>;
  /**
   * Whether outputs are signed (GET /ready's detail): an unavailable signer leaves the service ready, its outputs
   * unsigned.
   */
  provenance(): Pick<ProvenanceStatus, 'state' | 'reason'>;
  /** The lanes an operator paused (GET /ready's detail): their work waits, yet the service is ready. */
  pausedLanes(): Promise<{ lane: string; pausedAt: string }[]>;
}

export type ApiEnv = {
  /** Present when served by @hono/node-server: the raw Node request, for streaming uploads. */
  Bindings: Partial<HttpBindings>;
  Variables: {
    requestId: string;
    principal: Principal;
    /** The unexpected error a 500 answers, for the request's access line. */
    fault?: Error;
    /** The task a create made, for the request's access line (the one line a create logs at info). */
    created?: CreatedTaskFields;
  };
};

/** What a create's access line tells of the task it made. */
export interface CreatedTaskFields {
  taskId: string;
  type: string;
  items: number;
  estimateUsd: number;
}
