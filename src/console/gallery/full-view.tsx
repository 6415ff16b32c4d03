/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import type { ConsoleSession } from '../../services/console-sessions.js';
import { Page } from '../layout.js';
import { deleteUrl } from '../tasks/action-buttons.js';
import { CredentialsSection, type ItemCredentials } from './credentials.js';
import type { GalleryItem } from './gallery-items.js';
import { altText, boxOf, cutoutCaption, isCutout, Verdicts } from './grid.js';
import { thumbSrcset, thumbUrl, VIEW_WIDTHS } from './thumbnails.js';

/** The full view's nominal width in CSS pixels. */
const VIEW_WIDTH = 800;

function Row({ label, children }: { label: string; children?: Child }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

function Media({ item, original }: { item: GalleryItem; original: string }) {
  const box = boxOf(item, VIEW_WIDTH);
  if (item.kind === 'video') {
    return item.file.endsWith('.mp4') ? (
      <video
        controls
        muted
        preload="metadata"
        src={original}
        poster={thumbUrl(item.taskId, item.index, 1280)}
        width={box.width}
        height={box.height}
      >
        <a href={original}>Open the video</a>
      </video>
    ) : (
      <img src={original} width={box.width} height={box.height} alt={altText(item)} />
    );
  }
  return (
    <a href={original}>
      <img
        src={thumbUrl(item.taskId, item.index, 1280)}
        srcset={thumbSrcset(item.taskId, item.index, VIEW_WIDTHS)}
        sizes="(max-width: 52rem) 100vw, 50rem"
        width={box.width}
        height={box.height}
        alt={altText(item)}
        class={isCutout(item) ? 'checker' : undefined}
      />
    </a>
  );
}

/** One image (or video) of the gallery: larger, with what made it, its verdicts and its task's metadata. */
export function FullView({
  session,
  item,
  verdict,
  credentials,
}: {
  session: ConsoleSession;
  item: GalleryItem;
  verdict: 'pass' | 'fail' | undefined;
  credentials: ItemCredentials;
}) {
  const original = `/${item.kind === 'video' ? 'videos' : 'images'}/${item.file}`;
  const title = item.kind === 'video' ? 'Video' : 'Image';
  const caption = isCutout(item) ? cutoutCaption(item) : item.prompt;
  return (
    <Page
      title={title}
      session={session}
      active="/console/gallery"
      styles={['gallery.css']}
      lead={<a href="/console/gallery">Back to the gallery</a>}
    >
      <figure class="full-view">
        <Media item={item} original={original} />
        {caption && <figcaption>{caption}</figcaption>}
      </figure>
      <p class="actions">
        <a class="button" download={item.file} href={original}>
          Download
        </a>
        <a href={original}>{`Original (${item.file})`}</a>
        <a href={`/console/tasks/${item.taskId}`}>Open the task</a>
        <a class="button danger" href={deleteUrl(item.taskId, 'gallery')}>
          {`Delete the task${item.taskType === 'image.generate' || item.taskType === 'video.generate' ? ' (all its items)' : ''}…`}
        </a>
      </p>
      <h2>Details</h2>
      <dl class="details">
        <Row label="Prompt">{item.prompt ?? '—'}</Row>
        <Row label="Negative prompt">{item.negativePrompt ?? '—'}</Row>
        <Row label="Model">{item.model ?? '—'}</Row>
        <Row label="Size">{item.width && item.height ? `${item.width} × ${item.height}` : '—'}</Row>
        <Row label="Seed">{item.seed ?? '—'}</Row>
        <Row label="Rating and review">
          {item.rating || verdict ? (
            <span class="verdicts">
              <Verdicts item={item} verdict={verdict} />
            </span>
          ) : (
            'Not rated, no review found'
          )}
        </Row>
        <Row label="Made with">{item.apiKeyId ? <code>{item.apiKeyId}</code> : 'an access token'}</Row>
        <Row label="Task">
          <code>{item.taskId}</code>
          {` (${item.taskType}, item ${item.index + 1}, ${item.createdAt})`}
        </Row>
      </dl>
      <CredentialsSection credentials={credentials} />
      <h2>Metadata</h2>
      {item.metadata === null ? (
        <p class="muted">This task has no metadata.</p>
      ) : (
        <pre>{JSON.stringify(item.metadata, null, 2)}</pre>
      )}
    </Page>
  );
}
