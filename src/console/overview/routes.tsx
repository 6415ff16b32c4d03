/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import { CHART_ASSETS } from '../components/charts.js';
import type { ConsoleDeps, ConsoleEnv } from '../console-deps.js';
import { accountSession, render } from '../console-http.js';
import { EmptyState, Page } from '../layout.js';
import { Balance, Spend } from './money-sections.js';
import { loadOverview, type Overview } from './overview-data.js';
import { Failures, LastDay } from './task-sections.js';

function Tasks({ tasks }: { tasks: Overview['tasks'] }) {
  if (tasks === null) return <p class="muted">Tasks need the tasks:read scope, which this session does not hold.</p>;
  if (!tasks.any) {
    return (
      <EmptyState title="No tasks yet">
        <p>
          No tasks yet: try the <a href="/console/playground">Playground</a>, or{' '}
          <a href="/console/keys">create a key</a> and call the API.
        </p>
      </EmptyState>
    );
  }
  return (
    <>
      <LastDay day={tasks.day} />
      <Failures failures={tasks.failures} />
    </>
  );
}

/** `GET /console`: the account's home: money, spend against limits, the last day's tasks, the latest failures. */
export function registerOverview(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get('/', async (c) => {
    const session = accountSession(c);
    const overview = await loadOverview(deps, session);
    return render(
      c,
      <Page
        title="Overview"
        session={session}
        active="/console"
        {...CHART_ASSETS}
        lead={`Account ${overview.account.name}`}
      >
        <Balance account={overview.account} />
        <Spend spend={overview.spend} limits={overview.limits} />
        <Tasks tasks={overview.tasks} />
      </Page>,
    );
  });
}
