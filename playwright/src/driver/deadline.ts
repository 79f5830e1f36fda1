/**
 * A time by which a whole run must end (a scenario's `timeoutMs`): every wait of the run races it. When it
 * passes, `onExpiry` acts (kills the agent) and gives the error those waits then fail with.
 */
export class Deadline {
  /** Rejects with the error of `onExpiry` when the time is up. */
  readonly expired: Promise<never>;
  private readonly at: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(ms: number, onExpiry: () => Error) {
    this.at = Date.now() + ms;
    this.expired = new Promise<never>((_, reject) => {
      this.timer = setTimeout(() => reject(onExpiry()), ms);
    });
    this.expired.catch(() => {});
  }

  /** Milliseconds left (negative once passed). */
  get remainingMs(): number {
    return this.at - Date.now();
  }

  /** The run ended: the time no longer matters. */
  clear(): void {
    clearTimeout(this.timer);
  }
}
