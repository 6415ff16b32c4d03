import { useApp } from 'ink';
import { useEffect, useState } from 'react';
import { Dashboard, type DashboardData } from './Dashboard.js';

/** Polls the server for dashboard data every `intervalMs` and renders it. */
export function DashboardApp({ load, intervalMs }: { load: () => Promise<DashboardData>; intervalMs: number }) {
  const { exit } = useApp();
  const [data, setData] = useState<DashboardData | null>(null);
  const [error, setError] = useState<string | undefined>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: one polling loop for the life of the screen
  useEffect(() => {
    let stopped = false;
    const poll = () =>
      load().then(
        (next) => {
          if (stopped) return;
          setData(next);
          setError(undefined);
        },
        (err: Error) => !stopped && setError(err.message),
      );
    void poll();
    const timer = setInterval(poll, intervalMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);
  return <Dashboard data={data} error={error} onQuit={() => exit()} />;
}
