import { Box, Text } from 'ink';

export interface WatchedImage {
  status: 'success' | 'failed';
  size?: string;
  url?: string | null;
  service_url?: string;
  error?: { code: string; message?: string };
  savedTo?: string;
}

export interface TaskWatchProps {
  taskId: string;
  type: string;
  /** Images expected (count); one line each while pending. */
  expected: number;
  status: 'pending' | 'completed' | 'failed';
  elapsedMs: number;
  spinner: string;
  cost?: string;
  images?: WatchedImage[];
  errors?: { code: string; message?: string }[];
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** One task being followed: a line per image with a spinner, then sizes, URLs and per-item errors. */
/** Items with their 1-based position: a settled task's lists never reorder, so the position is their identity. */
const numbered = <T,>(items: T[]) => items.map((item, i) => ({ n: i + 1, item }));

export function TaskWatch(props: TaskWatchProps) {
  const done = props.status !== 'pending';
  const colour = props.status === 'completed' ? 'green' : props.status === 'failed' ? 'red' : 'yellow';
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>{props.taskId}</Text> {props.type} <Text color={colour}>{done ? props.status : `${props.spinner} pending`}</Text> {seconds(props.elapsedMs)}
        {props.cost !== undefined && done ? `  cost ${props.cost} USD` : ''}
      </Text>
      {!done &&
        Array.from({ length: props.expected }, (_, i) => i + 1).map((n) => (
          <Text key={`working-${n}`}>
            {'  '}image {n} <Text color="yellow">{props.spinner}</Text> working
          </Text>
        ))}
      {done &&
        numbered(props.images ?? []).map(({ n, item: image }) =>
          image.status === 'success' ? (
            <Text key={`image-${n}`}>
              {'  '}image {n} <Text color="green">✓</Text> {image.size} {image.url ?? image.service_url}
              {image.savedTo ? `  saved ${image.savedTo}` : ''}
            </Text>
          ) : (
            <Text key={`image-${n}`}>
              {'  '}image {n} <Text color="red">✗ {image.error?.code}</Text>
              {image.error?.message ? `: ${image.error.message}` : ''}
            </Text>
          ),
        )}
      {props.status === 'failed' &&
        numbered(props.errors ?? []).map(({ n, item: error }) => (
          <Text key={`error-${n}`} color="red">
            {'  '}
            {error.code}
            {error.message ? `: ${error.message}` : ''}
          </Text>
        ))}
    </Box>
  );
}
