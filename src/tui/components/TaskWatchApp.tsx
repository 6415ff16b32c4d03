import { useApp } from 'ink';
import { useEffect, useState } from 'react';
import { SPINNER, useTicker } from '../hooks/use-ticker.js';
import { TaskWatch, type WatchedImage } from './TaskWatch.js';

export interface SettledTask {
  status: 'pending' | 'completed' | 'failed';
  cost?: string;
  images?: WatchedImage[];
  errors?: { code: string; message?: string }[];
}

/** Follows a task with `follow` (which resolves once it settles), redrawing a spinner meanwhile. */
export function TaskWatchApp(props: { taskId: string; type: string; expected: number; follow: () => Promise<SettledTask>; onDone: (task: SettledTask | Error) => void }) {
  const { exit } = useApp();
  const [started] = useState(() => Date.now());
  const [task, setTask] = useState<SettledTask | null>(null);
  const tick = useTicker(100, task === null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: follows the task once, for the life of the view
  useEffect(() => {
    props.follow().then(
      (settled) => {
        setTask(settled);
        props.onDone(settled);
        setTimeout(exit, 0);
      },
      (err: Error) => {
        props.onDone(err);
        exit(err);
      },
    );
  }, []);
  return (
    <TaskWatch
      taskId={props.taskId}
      type={props.type}
      expected={props.expected}
      status={task?.status ?? 'pending'}
      elapsedMs={Date.now() - started}
      spinner={SPINNER[tick % SPINNER.length]}
      cost={task?.cost}
      images={task?.images}
      errors={task?.errors}
    />
  );
}
