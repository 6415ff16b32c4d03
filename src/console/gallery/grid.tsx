/** @jsxImportSource hono/jsx */
import { html } from 'hono/html';
import type { ApiKeyView } from '../../services/api-keys.js';
import type { GalleryItem } from './gallery-items.js';
import { cursorText, type GalleryCursor, type GalleryFilters } from './gallery-query.js';
import { GRID_WIDTHS, thumbSrcset, thumbUrl } from './thumbnails.js';

/** A tile's nominal width in CSS pixels (its `width` attribute; the stylesheet scales it to the column). */
const TILE_WIDTH = 320;
const ALT_LENGTH = 120;

/** An item's alt text: its prompt, cut to a readable length. */
export function altText(item: GalleryItem): string {
  const words = item.prompt ?? (item.kind === 'video' ? 'A generated video' : 'A generated image');
  return words.length > ALT_LENGTH ? `${words.slice(0, ALT_LENGTH - 1).trimEnd()}…` : words;
}

/** Width and height attributes for a display width, keeping the item's aspect (square when unknown). */
export function boxOf(item: GalleryItem, width: number): { width: number; height: number } {
  if (!item.width || !item.height) return { width, height: width };
  const shown = Math.min(width, item.width);
  return { width: shown, height: Math.max(1, Math.round((shown * item.height) / item.width)) };
}

/** The item's rating and review verdict, as text (badges, no wrapper: a grid renders 48 of them). */
export function Verdicts({ item, verdict }: { item: GalleryItem; verdict: 'pass' | 'fail' | undefined }) {
  return (
    <>
      {item.rating && 'level' in item.rating && <span class="badge rating">{`Rating: ${item.rating.level}`}</span>}
      {item.rating && 'failed' in item.rating && <span class="badge failed">Rating failed</span>}
      {verdict && <span class={verdict === 'pass' ? 'badge success' : 'badge failed'}>{`Review: ${verdict}`}</span>}
    </>
  );
}

export const itemPath = (item: Pick<GalleryItem, 'taskId' | 'index'>): string =>
  `/console/gallery/${item.taskId}/${item.index}`;

/** A background-removal cut-out: transparent, so it is shown on a checkerboard. */
export const isCutout = (item: Pick<GalleryItem, 'taskType'>): boolean => item.taskType === 'image.remove_background';

/** A line that says what a cut-out is (it has no prompt, model or rating to show). */
export const cutoutCaption = (item: Pick<GalleryItem, 'file'>): string =>
  `Background removed, transparent ${item.file.slice(item.file.lastIndexOf('.') + 1).toUpperCase()}`;

/**
 * One tile, written with hono's `html` template rather than JSX: the grid renders 48 of them per
 * page and the template costs less than half as much. It escapes every value it is given exactly
 * as JSX does (prompts, model names and file names stay text); nothing here is raw(). A video
 * shows its poster frame (the same thumbnail route), labelled as a video.
 */
function tile(item: GalleryItem, verdict: 'pass' | 'fail' | undefined) {
  const box = boxOf(item, TILE_WIDTH);
  const image = html`<img src="${thumbUrl(item.taskId, item.index, 320)}" srcset="${thumbSrcset(item.taskId, item.index, GRID_WIDTHS)}" sizes="(max-width: 40rem) 45vw, 14rem" width="${box.width}" height="${box.height}" loading="lazy" alt="${altText(item)}"${isCutout(item) ? html` class="checker"` : ''}/>`;
  const picture =
    item.kind === 'video'
      ? html`<span class="video-thumb">${image}<span class="video-label">Video</span></span>`
      : image;
  const rating =
    item.rating && 'level' in item.rating
      ? html`<span class="badge rating">Rating: ${item.rating.level}</span>`
      : item.rating && 'failed' in item.rating
        ? html`<span class="badge failed">Rating failed</span>`
        : '';
  const review = verdict
    ? html`<span class="${verdict === 'pass' ? 'badge success' : 'badge failed'}">Review: ${verdict}</span>`
    : '';
  const caption = isCutout(item) ? html`<span>${cutoutCaption(item)}</span>` : '';
  const model = item.model ? html`<span class="muted">${item.model}</span>` : '';
  const video = item.kind === 'video' ? html`<a href="/videos/${item.file}">Open the video</a>` : '';
  return html`<li class="tile"><a href="${itemPath(item)}">${picture}</a><p class="tile-meta">${caption}${rating}${review}${model}${video}</p></li>`;
}

export function Grid({ items, verdicts }: { items: GalleryItem[]; verdicts: Map<string, 'pass' | 'fail'> }) {
  return <ul class="gallery-grid">{items.map((item) => tile(item, verdicts.get(item.id)))}</ul>;
}

/** The filter form: a GET form, so a filtered page is a link. */
export function Filters({ filters, models, keys }: { filters: GalleryFilters; models: string[]; keys: ApiKeyView[] }) {
  return (
    <form method="get" action="/console/gallery" class="filters" aria-label="Filter the gallery">
      <label for="gallery-model">
        Model
        <select id="gallery-model" name="model">
          <option value="">Any</option>
          {models.map((model) => (
            <option value={model} selected={model === filters.model}>
              {model}
            </option>
          ))}
        </select>
      </label>
      <label for="gallery-rating">
        Rating level
        <input
          id="gallery-rating"
          name="rating"
          type="text"
          list="gallery-rating-levels"
          value={filters.rating}
          size={10}
        />
        <datalist id="gallery-rating-levels">
          <option value="sfw" />
          <option value="nsfw" />
        </datalist>
      </label>
      <label for="gallery-key">
        Key
        <select id="gallery-key" name="key">
          <option value="">Any</option>
          {keys.map((key) => (
            <option value={key.id} selected={key.id === filters.key}>
              {key.name ? `${key.name} (${key.keyPreview})` : key.keyPreview}
            </option>
          ))}
        </select>
      </label>
      <label for="gallery-from">
        From
        <input id="gallery-from" name="from" type="date" value={filters.from} />
      </label>
      <label for="gallery-to">
        To
        <input id="gallery-to" name="to" type="date" value={filters.to} />
      </label>
      <button type="submit">Apply</button>
      <a href="/console/gallery">Clear</a>
    </form>
  );
}

/** The query of the same filters at another page. */
export function pageHref(
  filters: GalleryFilters,
  per: number,
  cursor: GalleryCursor | null,
  defaultPer: number,
): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  if (per !== defaultPer) params.set('per', String(per));
  if (cursor) params.set('cursor', cursorText(cursor));
  const query = params.toString();
  return query ? `/console/gallery?${query}` : '/console/gallery';
}

export function Pager({ newest, older }: { newest: string | null; older: string | null }) {
  if (!newest && !older) return null;
  return (
    <nav class="pager" aria-label="Gallery pages">
      {newest && <a href={newest}>Newest</a>}
      {older && (
        <a href={older} rel="next">
          Older
        </a>
      )}
    </nav>
  );
}
