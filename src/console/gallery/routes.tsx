/** @jsxImportSource hono/jsx */
import type { Context, Hono } from 'hono';
import { AppError } from '../../domain/errors.js';
import type { ConsoleDeps, ConsoleEnv } from '../console-deps.js';
import { accountSession, principalOf, render } from '../console-http.js';
import { EmptyState, Notice, Page } from '../layout.js';
import { credentialsOf } from './credentials.js';
import { FullView } from './full-view.js';
import { galleryItemsOf } from './gallery-items.js';
import { DEFAULT_PAGE_SIZE, type GalleryFilters, parseGalleryQuery, readGalleryPage } from './gallery-query.js';
import { Filters, Grid, Pager, pageHref } from './grid.js';
import { verdictsSince } from './recent-reviews.js';
import { createThumbAnswers } from './thumb-answer.js';
import { thumbWidth } from './thumbnails.js';

const NO_FILTERS: GalleryFilters = { model: '', rating: '', key: '', from: '', to: '' };

/** An item index from a path: digits only. */
function indexParam(c: Context<ConsoleEnv>): number {
  const text = c.req.param('index') ?? '';
  if (!/^\d{1,4}$/.test(text)) throw new AppError('NOT_FOUND', 'no such item');
  return Number(text);
}

export function registerGallery(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const thumbAnswer = createThumbAnswers(deps);

  app.get('/gallery', async (c) => {
    const session = accountSession(c);
    const config = deps.config.current();
    const models = { image: new Set(Object.keys(config.models)), video: new Set(Object.keys(config.videoModels)) };
    const modelNames = [...new Set([...models.image, ...models.video])];
    const keys = await deps.apiKeys.list(session.accountId);
    let parsed: ReturnType<typeof parseGalleryQuery>;
    try {
      parsed = parseGalleryQuery(c.req.query());
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const page = (
        <Page title="Gallery" session={session} active="/console/gallery" styles={['gallery.css']}>
          <Notice kind="error">{err.message}</Notice>
          <Filters filters={{ ...NO_FILTERS, ...pickText(c.req.query()) }} models={modelNames} keys={keys} />
        </Page>
      );
      return render(c, page, 400);
    }
    const { filters, cursor, per } = parsed;
    const page = await readGalleryPage(deps.tasks, principalOf(session), { filters, cursor, per, models });
    const filtered = Object.values(filters).some(Boolean);
    const newest = cursor ? pageHref(filters, per, null, DEFAULT_PAGE_SIZE) : null;
    const older = page.next ? pageHref(filters, per, page.next, DEFAULT_PAGE_SIZE) : null;
    return render(
      c,
      <Page
        title="Gallery"
        session={session}
        active="/console/gallery"
        styles={['gallery.css']}
        lead="Images and videos of your settled tasks, newest first."
      >
        {c.req.query('done') === 'deleted' && (
          <Notice kind="ok">
            Deleted: the task's images, videos, request and result are gone; its cost and status are kept.
          </Notice>
        )}
        <Filters filters={filters} models={modelNames} keys={keys} />
        <h2 class="visually-hidden">Images</h2>
        {page.items.length > 0 ? (
          <Grid items={page.items} verdicts={page.verdicts} />
        ) : filtered || cursor ? (
          <EmptyState title="No images here">
            <p>{cursor ? 'No older images match.' : 'No image matches these filters.'}</p>
            <p>
              <a href="/console/gallery">Show every image</a>
            </p>
          </EmptyState>
        ) : (
          <EmptyState title="No images yet">
            <p>Images and videos you generate show here.</p>
            <p>
              <a href="/console/playground">Generate one in the Playground</a>
            </p>
          </EmptyState>
        )}
        <Pager newest={newest} older={older} />
      </Page>,
    );
  });

  app.get('/gallery/:taskId/:index', async (c) => {
    const session = accountSession(c);
    const principal = principalOf(session);
    const task = await deps.tasks.getOwned(principal, c.req.param('taskId'));
    const index = indexParam(c);
    const item = galleryItemsOf(task).find((i) => i.index === index);
    if (!item) throw new AppError('NOT_FOUND', 'no such item');
    const [verdicts, credentials] = await Promise.all([
      verdictsSince(deps.tasks, session.accountId, task.createdAt),
      credentialsOf(deps, item),
    ]);
    return render(
      c,
      <FullView session={session} item={item} verdict={verdicts.get(item.id)} credentials={credentials} />,
    );
  });

  app.get('/thumbs/:taskId/:index', async (c) => {
    const session = accountSession(c);
    const task = await deps.tasks.getOwned(principalOf(session), c.req.param('taskId'));
    const width = thumbWidth(c.req.query('w'));
    const index = indexParam(c);
    const item = galleryItemsOf(task).find((i) => i.index === index);
    if (!item) throw new AppError('NOT_FOUND', 'no such image');
    return thumbAnswer(item, width, c.req.header('if-none-match'));
  });
}

/** The text fields of a query, for re-showing a refused form as typed. */
function pickText(query: Record<string, string>): Partial<GalleryFilters> {
  const out: Partial<GalleryFilters> = {};
  for (const name of Object.keys(NO_FILTERS) as (keyof GalleryFilters)[])
    if (typeof query[name] === 'string') out[name] = query[name].slice(0, 200);
  return out;
}
