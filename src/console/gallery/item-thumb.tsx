/** @jsxImportSource hono/jsx */
import type { GalleryItem } from './gallery-items.js';
import { altText, boxOf, cutoutCaption, isCutout, itemPath, Verdicts } from './grid.js';
import { INSPECTOR_WIDTHS, thumbSrcset, thumbUrl } from './thumbnails.js';

/** The inspector's thumbnail width in CSS pixels. */
const THUMB_WIDTH = 160;

/**
 * One output of a task as a small picture (a video's poster frame, labelled), linking to its
 * full view in the gallery, with its rating and review verdict (or a cut-out's caption) beside it.
 */
export function ItemThumb({ item, verdict }: { item: GalleryItem; verdict: 'pass' | 'fail' | undefined }) {
  const box = boxOf(item, THUMB_WIDTH);
  const image = (
    <img
      src={thumbUrl(item.taskId, item.index, 160)}
      srcset={thumbSrcset(item.taskId, item.index, INSPECTOR_WIDTHS)}
      sizes={`${THUMB_WIDTH}px`}
      width={box.width}
      height={box.height}
      alt={altText(item)}
      class={isCutout(item) ? 'checker' : undefined}
    />
  );
  const verdicts = item.rating !== null || verdict !== undefined;
  // Every picture gets a line: what a cut-out is, its verdicts, or that it has none.
  const note = isCutout(item)
    ? cutoutCaption(item)
    : verdicts
      ? null
      : item.kind === 'video'
        ? `Video, ${item.width} × ${item.height}`
        : 'Not rated, no review found';
  return (
    <figure class="item-thumb">
      <a href={itemPath(item)}>
        {item.kind === 'video' ? (
          <span class="video-thumb">
            {image}
            <span class="video-label">Video</span>
          </span>
        ) : (
          image
        )}
      </a>
      <figcaption>
        {note && <span class={isCutout(item) ? undefined : 'muted'}>{note}</span>}
        {verdicts && <Verdicts item={item} verdict={verdict} />}
      </figcaption>
    </figure>
  );
}
