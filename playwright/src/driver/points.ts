/**
 * Points during a prompt turn at which the driver acts (sends `session/cancel`, or SIGKILLs the agent):
 * a condition on what the client has observed so far, never a wall-clock guess, except `afterSilenceMs`,
 * whose timer is reset by each update. Which points are deterministic in replay, and why, is in
 * docs/scenarios.md, "Adding a scenario".
 */
import type { TurnPoint } from '../scenario/input.js';

/** A one-line description of a point, for step titles. */
export function describePoint(point: TurnPoint): string {
  if ('before' in point) return 'before the first update';
  if ('afterUpdates' in point) return `after ${point.afterUpdates} update(s)`;
  if ('afterSilenceMs' in point) return `after ${point.afterSilenceMs} ms without an update`;
  return point.after === 'permission_request' ? 'at the permission request' : 'at the first message chunk';
}

/**
 * Watches one prompt turn for one point and calls `fire` exactly once when it is reached. The driver
 * feeds it what the client sees; `dispose` stops a pending silence timer when the turn ends first.
 */
export class PointWatcher {
  private fired = false;
  private updates = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly point: TurnPoint,
    private readonly fire: () => void,
  ) {}

  /** Whether the point was reached (and `fire` called). */
  get reached(): boolean {
    return this.fired;
  }

  /** The prompt request was written (the point `before: first_update` is reached here). */
  prompted(): void {
    if ('before' in this.point) this.trigger();
  }

  /** A session/update of the prompted session arrived. */
  update(kind: string): void {
    if (this.fired) return;
    this.updates++;
    const p = this.point;
    if ('afterUpdates' in p && this.updates >= p.afterUpdates) this.trigger();
    else if ('after' in p && p.after === 'first_message_chunk' && kind === 'agent_message_chunk')
      this.trigger();
    else if ('afterSilenceMs' in p) {
      // A condition wait, not a sleep: the silence is measured from the latest update.
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.trigger(), p.afterSilenceMs);
    }
  }

  /** A permission request arrived; true when this is the point (the caller then does not answer normally). */
  permissionRequest(): boolean {
    if (this.fired || !('after' in this.point) || this.point.after !== 'permission_request') return false;
    this.trigger();
    return true;
  }

  /** The turn is over: a silence timer still running never fires. */
  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private trigger(): void {
    if (this.fired) return;
    this.fired = true;
    this.dispose();
    this.fire();
  }
}
