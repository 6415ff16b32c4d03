import { AppError } from '../domain/errors.js';
import { isoTime } from '../domain/time.js';
import type { BlobStore } from '../store/blobs.js';
import { NO_EVENT, type StoredFile, scrubbedTask, type TaskRecord, type UploadRecord } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import { type Clock, type Owner, ownedBy } from './ports.js';
import { posterName } from './video-posters.js';

/** Where the service's own media live, one blob store per kind. */
export interface MediaBlobs {
  images: BlobStore;
  videos: BlobStore;
  posters: BlobStore;
}

export interface DataRemovalDeps {
  store: Pick<Store, 'tasks' | 'webhooks' | 'uploads'>;
  blobs: MediaBlobs;
  clock: Clock;
  /** Cancels a pending task through the one settlement (the engine's cancel); undefined when it had settled. */
  cancel: (taskId: string) => Promise<TaskRecord | undefined>;
  /** A settled task's webhook event as the outbox stores it (engine/task-views.ts `taskEventEnvelope`). */
  eventEnvelope: (id: string, createdAt: string, task: TaskRecord) => unknown;
  /** Resolves once this process has written the event of a task that has just settled (none in flight: at once). */
  eventRecorded?: (taskId: string) => Promise<void>;
}

/**
 * The blob names a task's items stored: their recorded `files`, and for items stored before files were recorded, the
 * output their result names.
 */
function fileNamesOf(task: TaskRecord): string[] {
  const names = new Set<string>();
  for (const item of task.items) {
    for (const file of item.files ?? []) names.add(file.name);
    const serviceUrl = (item.result as { service_url?: unknown } | undefined)?.service_url;
    if (typeof serviceUrl === 'string') names.add(serviceUrl.slice(serviceUrl.lastIndexOf('/') + 1).split(/[?#]/)[0]);
  }
  return [...names];
}

/**
 * Deletes stored files by name, each from the store of its kind; a video takes its poster along
 * (one may have been made after the item recorded its files). A name of no kind, or already
 * gone, is skipped.
 */
export async function removeStoredFiles(blobs: MediaBlobs, files: readonly Pick<StoredFile, 'name'>[]): Promise<void> {
  const removals: Promise<void>[] = [];
  for (const { name } of files) {
    if (blobs.images.isFileName(name)) removals.push(blobs.images.delete(name));
    else if (blobs.posters.isFileName(name)) removals.push(blobs.posters.delete(name));
    else if (blobs.videos.isFileName(name))
      removals.push(blobs.videos.delete(name), blobs.posters.delete(posterName(name)));
  }
  await Promise.all(removals);
}

/** Deleting a task's or an upload's data: records, stored files, and the event a deleted task leaves. */
export interface DataRemoval {
  removeTaskData(task: TaskRecord): Promise<TaskRecord>;
  /** An upload's blob, then its record. */
  removeUploadData(upload: UploadRecord): Promise<void>;
  /**
   * The task as its settlement's event shows it (the outbox asks as it writes one): a task
   * cancelled because it is being deleted shows as scrubbed, so not even the first delivery
   * carries what its owner asked to delete.
   */
  eventTask(task: TaskRecord): TaskRecord;
  /**
   * Deletes the owner's task (DELETE /tasks/{id}; `owner` null: any account's): a pending one
   * is cancelled first, through the one settlement. Another account's task, or none, is
   * TASK_NOT_FOUND. Again on a deleted task: the same scrubbed task.
   */
  removeTask(owner: Owner, taskId: string): Promise<TaskRecord>;
  /**
   * Deletes the owner's upload (DELETE /image/upload/{id}), leaving a tombstone: again, the same answer. Another
   * account's, or none, is NOT_FOUND.
   */
  removeUpload(owner: Owner, id: string): Promise<UploadRecord>;
}

/**
 * Removing what a user sent or got (docs/data-lifecycle.md): a task's outputs and text
 * (DELETE /tasks/{id}, retention, an erase) and uploaded images. A task keeps what accounting
 * needs (`scrubbedTask`); its stored webhook event is rewritten from the scrubbed task, so a
 * delivery still pending sends nothing removed. Every step may run again: a crash in the middle
 * is finished by the next call.
 */
export function createDataRemoval(deps: DataRemovalDeps): DataRemoval {
  const { store, blobs, clock } = deps;
  /**
   * Pending tasks this process is cancelling to delete them: their settlement's event is written scrubbed from the
   * start.
   */
  const deleting = new Set<string>();

  /** The event of a scrubbed task, its payload rebuilt from what is left. */
  async function scrubEvent(task: TaskRecord): Promise<void> {
    if (!task.eventId || task.eventId === NO_EVENT) return;
    const event = await store.webhooks.getEvent(task.eventId);
    if (event) await store.webhooks.replaceEventPayload(event.id, deps.eventEnvelope(event.id, event.createdAt, task));
  }

  /**
   * Removes a settled task's data: its files first (a crash after leaves a record pointing at
   * nothing, finished by the next call; never a file no record names), then the record is
   * scrubbed, then its stored event. Answers the scrubbed task. A pending task is answered as it
   * is (cancel it first: `removeTask`).
   */
  async function removeTaskData(task: TaskRecord): Promise<TaskRecord> {
    if (task.status === 'pending') return task;
    await removeStoredFiles(
      blobs,
      fileNamesOf(task).map((name) => ({ name })),
    );
    // An event being written now from the task as it settled is waited for, so it is scrubbed below.
    await deps.eventRecorded?.(task.id);
    const at = isoTime(clock.now());
    const stored = await store.tasks.removeData(task.id, at);
    // Gone meanwhile (retention purged the record): what is answered is scrubbed all the same, and there is no event
    // left to rebuild.
    if (!stored) return scrubbedTask(task, at);
    await scrubEvent(stored);
    return stored;
  }

  /** An upload's blob, then its record. */
  async function removeUploadData(upload: UploadRecord): Promise<void> {
    await blobs.images.delete(upload.fileName);
    await store.uploads.delete(upload.id);
  }

  return {
    removeTaskData,
    removeUploadData,

    /**
     * The task as its settlement's event shows it (the outbox asks as it writes one): a task
     * cancelled because it is being deleted shows as scrubbed, so not even the first delivery
     * carries what its owner asked to delete.
     */
    eventTask: (task: TaskRecord): TaskRecord =>
      deleting.has(task.id) ? scrubbedTask(task, isoTime(clock.now())) : task,

    /**
     * Deletes the owner's task (DELETE /tasks/{id}; `owner` null: any account's): a pending one
     * is cancelled first, through the one settlement. Another account's task, or none, is
     * TASK_NOT_FOUND. Again on a deleted task: the same scrubbed task.
     */
    async removeTask(owner: Owner, taskId: string): Promise<TaskRecord> {
      let task = await store.tasks.get(taskId);
      if (!task || !ownedBy(owner, task.accountId)) throw new AppError('TASK_NOT_FOUND');
      if (task.status !== 'pending') return removeTaskData(task);
      deleting.add(taskId);
      try {
        // A cancel settles it at once (an item finishing meanwhile makes it work the settlement out again); a few tries
        // bound a task another process keeps settling.
        for (let tries = 0; task.status === 'pending' && tries < 3; tries++) {
          task = (await deps.cancel(taskId)) ?? (await store.tasks.get(taskId)) ?? task;
        }
        if (task.status === 'pending') throw new Error(`task ${taskId} is still pending after its cancel`);
        return await removeTaskData(task);
      } finally {
        deleting.delete(taskId);
      }
    },

    /**
     * Deletes the owner's upload (DELETE /image/upload/{id}), leaving a tombstone: again, the same answer. Another
     * account's, or none, is NOT_FOUND.
     */
    async removeUpload(owner: Owner, id: string): Promise<UploadRecord> {
      const upload = await store.uploads.get(id);
      if (!upload || !ownedBy(owner, upload.accountId)) throw new AppError('NOT_FOUND', `no upload ${id}`);
      if (upload.deletedAt !== undefined) return upload;
      // The file first: a crash between leaves a record whose repeat finishes the delete.
      await blobs.images.delete(upload.fileName);
      const tombstone: UploadRecord = { ...upload, deletedAt: isoTime(clock.now()) };
      await store.uploads.put(tombstone);
      return tombstone;
    },
  };
}
