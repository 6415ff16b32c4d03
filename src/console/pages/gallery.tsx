/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from '../deps.js';
import { accountSession, render } from '../http.js';
import { EmptyState, Page } from '../layout.js';

export function registerGallery(app: Hono<ConsoleEnv>, _deps: ConsoleDeps): void {
  app.get('/gallery', (c) => {
    const session = accountSession(c);
    return render(
      c,
      <Page title="Gallery" session={session} active="/console/gallery">
        <EmptyState title="Nothing yet">
          <p>No images yet: generate one from the Playground.</p>
        </EmptyState>
      </Page>,
    );
  });
}
