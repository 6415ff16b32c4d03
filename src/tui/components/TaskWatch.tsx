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
        Array.from({ length: props.expected }, (_, i) => (
          <Text key={i}>
            {'  '}image {i + 1} <Text color="yellow">{props.spinner}</Text> working
          </Text>
        ))}
      {done &&
        (props.images ?? []).map((image, i) =>
          image.status === 'success' ? (
            <Text key={i}>
              {'  '}image {i + 1} <Text color="green">✓</Text> {image.size} {image.url ?? image.service_url}
              {image.savedTo ? `  saved ${image.savedTo}` : ''}
            </Text>
          ) : (
            <Text key={i}>
              {'  '}image {i + 1} <Text color="red">✗ {image.error?.code}</Text>
              {image.error?.message ? `: ${image.error.message}` : ''}
            </Text>
          ),
        )}
      {props.status === 'failed' &&
        (props.errors ?? []).map((error, i) => (
          <Text key={i} color="red">
            {'  '}
            {error.code}
            {error.message ? `: ${error.message}` : ''}
          </Text>
        ))}
    </Box>
  );
}
