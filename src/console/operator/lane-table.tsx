/** @jsxImportSource hono/jsx */
import { waitText } from '../../domain/waits.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import type { LaneFigures } from '../../services/operator.js';
import { PostForm } from '../components/post-form.js';
import { num, Table } from '../components/table.js';

/**
 * Where the operator view's lane forms post, under /console (the lane is a form field: its name may hold `+` or `:`).
 */
export const LANE_ACTIONS = { pause: '/operator/lanes/pause', resume: '/operator/lanes/resume' } as const;

/** Pause (asking first) or Resume, named for its lane to a screen reader. */
function LaneAction({ lane, session }: { lane: LaneFigures; session: ConsoleSession }) {
  const action = lane.paused ? 'resume' : 'pause';
  return (
    <PostForm
      session={session}
      action={`/console${LANE_ACTIONS[action]}`}
      confirm={
        lane.paused
          ? undefined
          : `Pause the lane ${lane.lane} on every process? Its queued items wait until it is resumed; running items finish; new tasks are still accepted.`
      }
    >
      <input type="hidden" name="lane" value={lane.lane} />
      <button type="submit" class="quiet">
        {lane.paused ? 'Resume' : 'Pause'}
        <span class="visually-hidden">{` lane ${lane.lane}`}</span>
      </button>
    </PostForm>
  );
}

/**
 * Each lane: items queued and running, its slots, the oldest wait, its state and the accounts with the most queued,
 * with its Pause or Resume.
 */
export function LaneTable({ lanes, session }: { lanes: readonly LaneFigures[]; session: ConsoleSession }) {
  return (
    <Table
      caption="Lanes"
      columns={[
        'Lane',
        num('Queued'),
        num('Running'),
        num('Capacity'),
        num('Oldest wait'),
        'State',
        'Top accounts (queued)',
        'Action',
      ]}
    >
      {lanes.map((lane) => (
        <tr>
          <th scope="row">{lane.lane}</th>
          <td class="num">{String(lane.queued)}</td>
          <td class="num">{String(lane.running)}</td>
          <td class="num">{String(lane.capacity)}</td>
          <td class="num">{lane.queued > 0 ? waitText(lane.oldestQueuedSeconds) : '–'}</td>
          <td>
            {lane.paused ? (
              <span class="badge pending">
                {lane.pausedAt ? `paused since ${lane.pausedAt.slice(0, 19).replace('T', ' ')} UTC` : 'paused'}
              </span>
            ) : (
              'active'
            )}
          </td>
          <td>{lane.topAccounts.map((top) => `${top.name} ${top.queued}`).join(', ') || '–'}</td>
          <td>
            <LaneAction lane={lane} session={session} />
          </td>
        </tr>
      ))}
    </Table>
  );
}
