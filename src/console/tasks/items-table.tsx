/** @jsxImportSource hono/jsx */
import type { TaskRecord } from '../../engine/task-registry.js';
import { num, Table } from '../components/table.js';
import type { GalleryItem } from '../gallery/gallery-items.js';
import { ItemThumb } from '../gallery/item-thumb.js';
import { Json, StatusBadge, safeHref, When } from './format.js';
import type { ProgressView } from './inspector-data.js';

/** Where an item's output is, when it has one to open (a made image or video, or the image an item was about). */
function outputHref(result: unknown): string | undefined {
  if (result === null || typeof result !== 'object') return undefined;
  const { service_url: serviceUrl, url } = result as { service_url?: unknown; url?: unknown };
  return safeHref(serviceUrl) ?? safeHref(url);
}

/** A running item's state: "running 40 %" where its provider reports how far it has come. */
const pendingText = (fraction: number | undefined): string =>
  fraction === undefined ? 'pending' : `running ${Math.round(fraction * 100)} %`;

/**
 * Each item, numbered from 1 as the CLI numbers them: its status, error code and message, and what it made (a thumbnail
 * with its verdicts) or a link to the image it was about.
 */
export function ItemsTable({
  task,
  progress,
  outputs,
  verdicts,
}: {
  task: TaskRecord;
  progress?: ProgressView;
  outputs: Map<number, GalleryItem>;
  verdicts: Map<string, 'pass' | 'fail'>;
}) {
  const media = task.type.startsWith('video.') ? 'video' : 'image';
  return (
    <Table
      id="task-items"
      class="task-items"
      caption="Items of this task"
      columns={[num('Item'), 'Status', 'Error code', 'Error message', 'Output']}
    >
      {task.items.map((item, index) => {
        const output = outputs.get(index);
        const href = item.status === 'success' && !output ? outputHref(item.result) : undefined;
        const fraction =
          progress?.items[index] && 'fraction' in progress.items[index] ? progress.items[index].fraction : undefined;
        return (
          <tr data-index={String(index)}>
            <th scope="row" class="num">
              {String(index + 1)}
            </th>
            <td class="item-status">
              {item.status === 'pending' ? (
                <span class="badge pending">{pendingText(fraction)}</span>
              ) : (
                <StatusBadge status={item.status} />
              )}
            </td>
            <td class="item-code">{item.error ? <code>{item.error.code}</code> : ''}</td>
            <td class="item-message">{item.error?.message ?? ''}</td>
            <td class="item-output">
              {output && <ItemThumb item={output} verdict={verdicts.get(output.id)} />}
              {href && (
                <a href={href} rel="noopener noreferrer">
                  {`Open ${media}`}
                </a>
              )}
              {item.result !== undefined && (
                <details>
                  <summary>{`Item ${index + 1} result`}</summary>
                  <Json value={item.result} />
                </details>
              )}
            </td>
          </tr>
        );
      })}
    </Table>
  );
}

/**
 * While pending: a progress bar, the live counts and estimates; tasks.js follows the task's status stream from here.
 */
export function LiveProgress({ progress, eventsUrl }: { progress: ProgressView; eventsUrl: string }) {
  return (
    <section id="live" class="panel" aria-labelledby="live-heading" data-events={eventsUrl}>
      <h2 id="live-heading">Progress</h2>
      <progress
        id="live-bar"
        class="progress"
        max={String(Math.max(progress.total, 1))}
        value={String(progress.finished)}
        aria-labelledby="live-heading"
      />
      <p
        id="live-text"
        aria-live="polite"
      >{`${progress.finished} of ${progress.total} items finished (${progress.succeeded} succeeded, ${progress.failed} failed)`}</p>
      {progress.queuePosition !== undefined && (
        <p class="muted">{`Tasks ahead of it in its lane: ${progress.queuePosition}`}</p>
      )}
      {progress.estimatedFinishAt && (
        <p class="muted">
          Estimated to finish at <When at={progress.estimatedFinishAt} />
        </p>
      )}
      <p class="muted">This page follows the task live and reloads when it settles.</p>
    </section>
  );
}
