import { Box, Text, useInput } from 'ink';
import { useState } from 'react';
import type { DashboardFigures, DashboardTask, LaneFigures } from '../../domain/dashboard.js';
import { overallFraction, progressBar, progressText } from '../progress-view.js';

/** The dashboard's figures, as the admin socket answers them (the operator service's shape). */
export type DashboardData = Omit<DashboardFigures, 'lanes'> & {
  /** Absent from a server older than the lanes' figures. */
  lanes?: DashboardLane[];
};

/** What the lanes line reads of a lane: items waiting and running, its slots, and whether an operator paused it. */
type DashboardLane = Pick<LaneFigures, 'lane' | 'queued' | 'running' | 'capacity' | 'paused'>;

const ROWS = 8;
const clip = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text);

/**
 * A row's last column: the cost, or for a pending task how far it has come (`q2`: two tasks ahead in its queue; `40%`).
 */
const lastColumn = (task: DashboardTask): string => {
  if (task.status !== 'pending' || !task.progress) return task.cost;
  if (task.progress.queuePosition !== undefined) return `q${task.progress.queuePosition}`;
  return `${Math.floor(overallFraction(task.progress) * 100)}%`;
};

/**
 * The lanes on one line, paused ones first, then the most queued (what clipping cuts matters least):
 * `Lanes gpu 12 queued 2/2 PAUSED  image.rate 0 queued 1/4` (running of its capacity after the queued).
 */
const lanesLine = (lanes: readonly DashboardLane[]): string => {
  const ordered = [...lanes].sort((a, b) => Number(b.paused) - Number(a.paused) || b.queued - a.queued);
  const shown = ordered.map(
    (lane) => `${lane.lane} ${lane.queued} queued ${lane.running}/${lane.capacity}${lane.paused ? ' PAUSED' : ''}`,
  );
  return `Lanes ${shown.join('  ') || 'none busy'}`;
};

/**
 * The operator's view over a running server, for an 80×24 terminal: task counts, throughput,
 * failures by code, balances, webhook health, the lanes, and recent tasks (j/k to move, enter for
 * details, q to quit). It shows data; it decides nothing.
 */
export function Dashboard({ data, error, onQuit }: { data: DashboardData | null; error?: string; onQuit: () => void }) {
  const [selected, setSelected] = useState(0);
  const [details, setDetails] = useState(false);
  const tasks = data?.tasks ?? [];
  useInput((input, key) => {
    if (input === 'q' || (key.ctrl && input === 'c')) onQuit();
    else if (input === 'j' || key.downArrow) setSelected((s) => Math.min(s + 1, Math.max(0, tasks.length - 1)));
    else if (input === 'k' || key.upArrow) setSelected((s) => Math.max(0, s - 1));
    else if (key.return) setDetails((d) => !d);
    else if (key.escape) setDetails(false);
  });
  if (!data) return <Text>{error ? `cannot reach the server: ${error}` : 'loading…'}</Text>;
  const first = Math.max(0, Math.min(selected - ROWS + 1, tasks.length - ROWS));
  const visible = tasks.slice(first, first + ROWS);
  const task = tasks[selected];
  return (
    <Box flexDirection="column" width={80}>
      <Text>
        <Text bold>imgtask</Text> {clip(data.url, 34)}{' '}
        <Text dimColor>{data.generatedAt.slice(11, 19)} j/k enter q</Text>
      </Text>
      <Text>
        Tasks <Text color="yellow">pending {data.counts.pending}</Text>{' '}
        <Text color="green">completed {data.counts.completed}</Text>{' '}
        <Text color="red">failed {data.counts.failed}</Text> {data.throughputPerMinute}/min
      </Text>
      <Text>
        {clip(
          `Failures ${data.failures.length ? data.failures.map((f) => `${f.code} ${f.count}`).join('  ') : 'none'}`,
          80,
        )}
      </Text>
      <Text>
        {clip(
          `Accounts ${data.accounts.map((a) => `${a.name} ${a.available}/${a.balance}${a.reserved !== '0' ? ` (held ${a.reserved})` : ''}`).join('  ') || 'none'}`,
          80,
        )}
      </Text>
      <Text>
        Webhooks pending {data.webhooks.pending} delivered {data.webhooks.delivered}{' '}
        <Text color={data.webhooks.failed ? 'red' : undefined}>failed {data.webhooks.failed}</Text>
        {data.webhooks.disabled.length ? <Text color="red"> disabled {data.webhooks.disabled.length}</Text> : ''}
      </Text>
      {data.webhooks.disabled.slice(0, 2).map((w) => (
        <Text key={w.id} color="red">
          {clip(`  ${w.id} ${w.url}: ${w.reason}`, 80)}
        </Text>
      ))}
      {data.lanes && (
        <Text color={data.lanes.some((lane) => lane.paused) ? 'yellow' : undefined}>
          {clip(lanesLine(data.lanes), 80)}
        </Text>
      )}
      <Text dimColor>
        {'─'.repeat(30)} recent tasks {'─'.repeat(35)}
      </Text>
      {visible.length === 0 && <Text dimColor>no tasks yet</Text>}
      {visible.map((t, i) => {
        const index = first + i;
        const colour = t.status === 'completed' ? 'green' : t.status === 'failed' ? 'red' : 'yellow';
        return (
          <Text key={t.id} inverse={index === selected}>
            {index === selected ? '>' : ' '} {t.id.slice(0, 26).padEnd(26)} {t.type.slice(0, 23).padEnd(23)}{' '}
            <Text color={colour}>{t.status.padEnd(9)}</Text> {clip(t.account, 10).padEnd(10)} {clip(lastColumn(t), 6)}
          </Text>
        );
      })}
      {details && task && (
        <Box flexDirection="column" borderStyle="single" width={80}>
          <Text>
            {clip(`${task.id}  ${task.type}  ${task.status}  account ${task.account}  cost ${task.cost}`, 76)}
          </Text>
          <Text>{clip(`created ${task.createdAt}  updated ${task.updatedAt}`, 76)}</Text>
          {task.errorCode && <Text color="red">{clip(`error ${task.errorCode}`, 76)}</Text>}
          {task.status === 'pending' && task.progress && (
            <Text color="yellow">
              {clip(
                `${progressBar(overallFraction(task.progress), 20)} ${progressText(task.progress, Date.parse(data.generatedAt))}`,
                76,
              )}
            </Text>
          )}
        </Box>
      )}
    </Box>
  );
}
