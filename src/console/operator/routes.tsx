/** @jsxImportSource hono/jsx */
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { laneNameProblem } from '../../domain/lane-names.js';
import { DoneNotice } from '../components/done-notice.js';
import type { ConsoleDeps, ConsoleEnv } from '../console-deps.js';
import { operatorSession, readForm, render, seeOther } from '../console-http.js';
import { EmptyState, Notice, Page } from '../layout.js';
import { Accounts, Keys } from './account-sections.js';
import { ERASE_ACTION } from './erase-form.js';
import { Doctor, Queues } from './health-sections.js';
import { LANE_ACTIONS } from './lane-table.js';
import { loadOperatorView } from './operator-data.js';

/** What a lane form did, after its 303 (`?done=`). */
const DONE = {
  paused: 'Lane paused on every process: its queued items wait, running items finish, new tasks are still accepted.',
  resumed: 'Lane resumed: its queued items start again.',
  erased: 'Account erased: its keys are revoked, its data removed, and its name is now its id.',
} as const;

/** `GET /console/operator`: across accounts, for the operator session only (an account's session gets 403). */
export function registerOperator(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  /** The view, with what a form did or why it was refused. */
  const page = async (
    c: Context<ConsoleEnv>,
    outcome: { done?: string; refused?: string } = {},
    status: ContentfulStatusCode = 200,
  ) => {
    const session = operatorSession(c);
    const view = await loadOperatorView(deps);
    return render(
      c,
      <Page
        title="Operator"
        session={session}
        active="/console/operator"
        styles={['charts.css']}
        lead="Every account, every key, the doctor's checks and the queues"
      >
        {outcome.refused && <Notice kind="error">{outcome.refused}</Notice>}
        <DoneNotice done={outcome.done} messages={DONE} />
        <Doctor doctor={view.doctor} />
        <Queues dashboard={view.dashboard} session={session} />
        {view.accounts.length === 0 ? (
          <EmptyState title="No accounts yet">
            <p>
              Create an account with <code>imgtask accounts create NAME --credit 10</code>, then sign in to its console
              with <code>imgtask console --account NAME</code>.
            </p>
          </EmptyState>
        ) : (
          <>
            <Accounts accounts={view.accounts} session={session} />
            <Keys accounts={view.accounts} />
          </>
        )}
      </Page>,
      status,
    );
  };

  app.get('/operator', (c) => page(c, { done: c.req.query('done') }));

  /** The lane a form names, or the refusal page: the same check as `imgtask queues pause`. */
  const laneOf = async (c: Context<ConsoleEnv>): Promise<{ lane: string } | { refused: Response }> => {
    operatorSession(c);
    const lane = (await readForm(c)).lane ?? '';
    const problem = laneNameProblem(lane);
    return problem ? { refused: await page(c, { refused: `Not paused or resumed: ${problem}.` }, 400) } : { lane };
  };

  app.post(LANE_ACTIONS.pause, async (c) => {
    const named = await laneOf(c);
    if ('refused' in named) return named.refused;
    await deps.engine.pauseLane(named.lane);
    return seeOther(c, '/console/operator?done=paused#lanes');
  });

  // Erase, confirmed by the account's name typed again (as imgtask accounts erase asks on a terminal).
  app.post(ERASE_ACTION, async (c) => {
    operatorSession(c);
    const form = await readForm(c);
    const account = (await deps.accounts.list()).find((a) => a.id === form.account);
    if (!account) return page(c, { refused: 'Not erased: no such account.' }, 404);
    if (!account.erasedAt && (form.confirm ?? '').trim() !== account.name) {
      return page(c, { refused: `Not erased: type the account's name, ${account.name}, to confirm.` }, 400);
    }
    await deps.accountErase.erase(account.id);
    return seeOther(c, '/console/operator?done=erased#accounts-title');
  });

  app.post(LANE_ACTIONS.resume, async (c) => {
    const named = await laneOf(c);
    if ('refused' in named) return named.refused;
    // Resumed elsewhere meanwhile (another operator, the CLI): say so rather than pretend.
    if (!(await deps.engine.resumeLane(named.lane)))
      return page(c, { refused: `The lane ${named.lane} is not paused: it was resumed already.` }, 409);
    return seeOther(c, '/console/operator?done=resumed#lanes');
  });
}
