import { Box, Text } from 'ink';
import { overallFraction as overall, type ProgressLike, progressBar, progressText } from '../progress-view.js';
import type { Line, Tone } from '../task-lines.js';

export interface TaskWatchProps {
  taskId: string;
  type: string;
  /** Items expected (count); one line each while pending: videos for a video task, else images. */
  expected: number;
  elapsedMs: number;
  spinner: string;
  /** The settled task's report (task-lines.ts); absent while it is pending. */
  report?: Line[];
  /** Where the pending task stands, as its live status stream last told (none when polling). */
  progress?: ProgressLike;
  /** The time the estimates are shown against (ms since the epoch). */
  now?: number;
}

const BAR_WIDTH = 20;

/** One item while the task is pending: finished (✓/✗), or working with its fraction when reported. */
function ItemLine({
  noun,
  n,
  spinner,
  item,
}: {
  noun: string;
  n: number;
  spinner: string;
  item?: ProgressLike['items'][number];
}) {
  if (item?.status === 'success')
    return (
      <Text>
        {`  ${noun} ${n} `}
        <Text color="green">✓</Text> done
      </Text>
    );
  if (item?.status === 'failed')
    return (
      <Text>
        {`  ${noun} ${n} `}
        <Text color="red">✗</Text> failed
      </Text>
    );
  const fraction = item?.fraction === undefined ? '' : ` ${Math.floor(item.fraction * 100)}%`;
  return (
    <Text>
      {`  ${noun} ${n} `}
      <Text color="yellow">{spinner}</Text> working{fraction}
    </Text>
  );
}

/** Elapsed time as a view shows it: 1.2s. */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;
const COLOURS: Record<Tone, string> = { good: 'green', bad: 'red', busy: 'yellow' };

/** One line of a report, its pieces coloured by tone (none under NO_COLOR: chalk is off then). */
export function ReportLine({ line }: { line: Line }) {
  return (
    <Text>
      {line.map((segment, i) =>
        segment.tone || segment.bold ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: a line's pieces never reorder
          <Text key={i} color={segment.tone ? COLOURS[segment.tone] : undefined} bold={segment.bold}>
            {segment.text}
          </Text>
        ) : (
          segment.text
        ),
      )}
    </Text>
  );
}

/** One task being followed: a line per image with a spinner, then its report once it settles. */
export function TaskWatch(props: TaskWatchProps) {
  if (props.report)
    return (
      <Box flexDirection="column">
        {props.report.map((line, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a settled report never reorders
          <ReportLine key={i} line={line} />
        ))}
      </Box>
    );
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>{props.taskId}</Text> {props.type} <Text color="yellow">{`${props.spinner} pending`}</Text>{' '}
        {seconds(props.elapsedMs)}
      </Text>
      {props.progress && (
        <Text>
          {'  '}
          <Text color="yellow">{progressBar(overall(props.progress), BAR_WIDTH)}</Text>{' '}
          {progressText(props.progress, props.now ?? Date.now())}
        </Text>
      )}
      {Array.from({ length: props.progress?.total ?? props.expected }, (_, i) => i + 1).map((n) => (
        <ItemLine
          key={`working-${n}`}
          noun={props.type.startsWith('video.') ? 'video' : 'image'}
          n={n}
          spinner={props.spinner}
          item={props.progress?.items[n - 1]}
        />
      ))}
    </Box>
  );
}
