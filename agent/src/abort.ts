/** Thrown inside a turn when its AbortController fired (session/cancel, shutdown). */
export class TurnCancelled extends Error {
  override readonly name = 'TurnCancelled';
  constructor() {
    super('the turn was cancelled');
  }
}

/**
 * Settles with `p`, or rejects with TurnCancelled as soon as `signal` aborts, whichever comes first.
 * A plugin or tool that ignores its signal therefore cannot hang a cancelled turn.
 */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.reject(new TurnCancelled());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      p.catch(() => {});
      reject(new TurnCancelled());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
