import { useApp } from 'ink';
import { useEffect, useState } from 'react';
import type { TaskView } from '../../client/http-client.js';
import { SPINNER, useTicker } from '../hooks/use-ticker.js';
import type { ProgressLike } from '../progress-view.js';
import { type Line, type TaskLinesOptions, taskLines } from '../task-lines.js';
import { seconds, TaskWatch } from './TaskWatch.js';

/**
 * Follows a task with `follow` (which resolves once it settles, telling each progress it hears),
 * redrawing a spinner and the progress bar meanwhile; its last frame is the task's full report,
 * the one place a watch prints it.
 */
export function TaskWatchApp(props: {
  taskId: string;
  type: string;
  expected: number;
  follow: (onProgress: (progress: ProgressLike) => void) => Promise<TaskView>;
  onDone: (task: TaskView | Error) => void;
  options?: TaskLinesOptions;
}) {
  const { exit } = useApp();
  const [started] = useState(() => Date.now());
  const [report, setReport] = useState<Line[] | null>(null);
  const [progress, setProgress] = useState<ProgressLike | undefined>();
  const tick = useTicker(100, report === null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: follows the task once, for the life of the view
  useEffect(() => {
    props.follow(setProgress).then(
      (settled) => {
        setReport(taskLines(settled, { ...props.options, elapsed: seconds(Date.now() - started) }));
        props.onDone(settled);
      },
      (err: Error) => {
        props.onDone(err);
        exit(err);
      },
    );
  }, []);
  // Exit once the report is committed to the tree, so Ink's last frame (written on unmount) holds it:
  // a timer could fire before React renders the new state on a loaded machine.
  useEffect(() => {
    if (report !== null) exit();
  }, [report, exit]);
  const now = Date.now();
  return (
    <TaskWatch
      taskId={props.taskId}
      type={props.type}
      expected={props.expected}
      elapsedMs={now - started}
      spinner={SPINNER[tick % SPINNER.length]}
      report={report ?? undefined}
      progress={progress}
      now={now}
    />
  );
}
