/**
 * The sleep of an event stream's send loop: `sleep()` resolves at the next `wake()` (an event
 * held, the stream aborted or ended). A wake while the loop is not asleep is dropped: the loop
 * looks at what is held before it sleeps again.
 */
export function createStreamWakeup(): { wake(): void; sleep(): Promise<void> } {
  let waiting: (() => void) | undefined;
  return {
    wake: () => waiting?.(),
    sleep: () =>
      new Promise<void>((resolve) => {
        waiting = resolve;
      }).then(() => {
        waiting = undefined;
      }),
  };
}
