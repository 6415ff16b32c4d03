/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from '../deps.js';
import { accountSession, render } from '../http.js';
import { EmptyState, Page } from '../layout.js';

export function registerDestinations(app: Hono<ConsoleEnv>, _deps: ConsoleDeps): void {
  app.get('/destinations', (c) => {
    const session = accountSession(c);
    return render(
      c,
      <Page title="Destinations" session={session} active="/console/destinations">
        <EmptyState title="Nothing yet">
          <p>No destinations yet.</p>
        </EmptyState>
      </Page>,
    );
  });
}
