/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from '../deps.js';
import { accountSession, render } from '../http.js';
import { EmptyState, Page } from '../layout.js';

export function registerWebhooks(app: Hono<ConsoleEnv>, _deps: ConsoleDeps): void {
  app.get('/webhooks', (c) => {
    const session = accountSession(c);
    return render(
      c,
      <Page title="Webhooks" session={session} active="/console/webhooks">
        <EmptyState title="Nothing yet">
          <p>No webhooks yet.</p>
        </EmptyState>
      </Page>,
    );
  });
}
