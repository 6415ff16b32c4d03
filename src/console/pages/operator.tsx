/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from '../deps.js';
import { operatorSession, render } from '../http.js';
import { EmptyState, Page } from '../layout.js';
import { Accounts, Keys } from '../operator/account-sections.js';
import { Doctor, Queues } from '../operator/health-sections.js';
import { loadOperatorView } from '../operator/load.js';

/** `GET /console/operator`: across accounts, for the operator session only (an account's session gets 403). */
export function registerOperator(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get('/operator', async (c) => {
    const session = operatorSession(c);
    const view = await loadOperatorView(deps);
    return render(
      c,
      <Page title="Operator" session={session} active="/console/operator" styles={['charts.css']} lead="Every account, every key, the doctor's checks and the queues">
        <Doctor doctor={view.doctor} />
        <Queues dashboard={view.dashboard} lanes={view.lanes} />
        {view.accounts.length === 0 ? (
          <EmptyState title="No accounts yet">
            <p>
              Create an account with <code>imgtask accounts create NAME --credit 10</code>, then sign in to its console with <code>imgtask console --account NAME</code>.
            </p>
          </EmptyState>
        ) : (
          <>
            <Accounts accounts={view.accounts} />
            <Keys accounts={view.accounts} />
          </>
        )}
      </Page>,
    );
  });
}
