import {
  formatReplayReport,
  hydrateRoots,
  hydrateText,
  LlmAbortError,
  type LlmCallContext,
  type LlmPlugin,
  LlmProviderError,
  type LlmRequest,
  REPLAY_NOTE_PREFIX,
  type ReplayDrift,
  recordCommand,
  refreshCommand,
  type StreamChunk,
  type VolatileRoots,
} from '@acp-snapshot/core';
import { callLabel, type ExpectedCall, type ReplayEntry } from '@acp-snapshot/session-log';
import { delay, hangUntilAborted, MAX_RECORDED_DELAY_MS } from './delivery.js';
import { findDrift, type RecordedContext } from './drift.js';
import { ReplayConcurrencyError, ReplayDriftError, ReplayExhaustedError } from './errors.js';

/** How chunks are paced: 'none' yields them back to back; 'recorded' replays recorded gaps (capped). */
export type Timing = 'none' | 'recorded';

/** Everything a ReplayPlayer serves from. */
export interface ReplayPlayerOptions {
  scenario: string;
  entries: ReplayEntry[];
  /** Where the entries came from (fixture or override path), for messages. */
  source: string;
  recorded?: RecordedContext;
  timing?: Timing;
  /** 'ignore' skips fingerprint comparison but still checks turn / step / purpose (refresh mode). */
  fingerprints?: 'check' | 'ignore';
  /** Roots replaced in live text before it is compared with recorded text. */
  roots?: VolatileRoots;
  /** Writes one stderr line. */
  log: (line: string) => void;
}

type CallContext = LlmCallContext;

const matches = (e: ExpectedCall | undefined, turn: number, step: number, purpose: string): boolean =>
  !!e &&
  e.turn === turn &&
  (e.step === undefined || e.step === step) &&
  (e.purpose === undefined || e.purpose === purpose);

const before = (a: ExpectedCall, turn: number, step: number): boolean =>
  a.turn !== undefined && (a.turn < turn || (a.turn === turn && (a.step ?? 0) < step));

/**
 * The replay LLM plugin: serves a script positionally, one stream at a time, checking each live
 * request against the recorded one first. The first call seeks the first recorded call made at the
 * same turn, step and purpose (so a second agent process that loaded the session continues where the
 * first stopped); after that calls are strictly sequential.
 */
export class ReplayPlayer implements LlmPlugin {
  readonly name = 'replay';
  private position: number | undefined;
  private active: { call: number; label: string } | undefined;
  private readonly consumed: number[] = [];
  private closed = false;

  constructor(private readonly opts: ReplayPlayerOptions) {}

  stream(request: LlmRequest, ctx: LlmCallContext): AsyncIterable<StreamChunk> {
    return this.serve(request, ctx);
  }

  private fail(e: Error): never {
    for (const line of e.message.split('\n')) this.opts.log(`llm-replay: ${line}`);
    throw e;
  }

  private refreshHint(): string {
    return `If the change was intended, run \`${refreshCommand(this.opts.scenario)}\` to re-derive the recording from the current code.`;
  }

  private recordHint(): string {
    return (
      `If that is intended, re-record the scenario: \`${recordCommand(this.opts.scenario)}\` ` +
      '(with DEEPSEEK_API_KEY set, or ACP_SNAPSHOT_BASE_URL pointing at an OpenAI-compatible server such as the bundled emulator).'
    );
  }

  /** Picks the entry for this call, or throws the replay error that explains why there is none. */
  private claim(request: LlmRequest, ctx: CallContext): number {
    const { scenario, entries, source } = this.opts;
    const live = { turn: ctx.turn, step: ctx.step, purpose: request.purpose };
    const total = entries.length;
    const head = `scenario "${scenario}"`;
    if (this.active) {
      this.fail(
        new ReplayConcurrencyError(
          `${head}: a model call at ${callLabel(live)} started while call ${this.active.call} (${this.active.label}) ` +
            'is still streaming; llm-replay serves one stream at a time (concurrent sessions cannot be replayed yet).',
        ),
      );
    }
    if (this.position === undefined) {
      const found = entries.findIndex((e) => matches(e.request, live.turn, live.step, live.purpose));
      if (found !== -1) this.position = found;
      else if (!entries.some((e) => e.request?.turn !== undefined)) this.position = 0;
      else if (entries.every((e) => !e.request || before(e.request, live.turn, live.step)))
        this.position = total;
      else {
        const recorded = entries
          .map((e, i) => `call ${i + 1}: ${e.request ? callLabel(e.request) : '?'}`)
          .join('; ');
        this.fail(
          new ReplayDriftError(
            `${head}: the agent made its first model call at ${callLabel(live)}, but ${source} records no call there ` +
              `(recorded: ${recorded}). The agent's model calls no longer line up with the recording. ${this.recordHint()}`,
          ),
        );
      }
    }
    const index = this.position;
    const entry = entries[index];
    if (!entry) {
      this.fail(
        new ReplayExhaustedError(
          `${head}: the agent made model call ${index + 1} (${callLabel(live)}) but ${source} holds only ${total} ` +
            `recorded model call${total === 1 ? '' : 's'}. The agent now makes more model calls than were recorded. ${this.recordHint()}`,
        ),
      );
    }
    const expected = entry.request;
    if (
      expected &&
      ((expected.turn !== undefined && expected.turn !== live.turn) ||
        (expected.step !== undefined && expected.step !== live.step) ||
        (expected.purpose !== undefined && expected.purpose !== live.purpose))
    ) {
      this.fail(
        new ReplayDriftError(
          `${head}: model call ${index + 1} of ${total} is made at ${callLabel(live)}, but the recording made it at ` +
            `${callLabel(expected)} (${expected.location ?? source}). The agent's model calls no longer line up with the recording. ${this.recordHint()}`,
        ),
      );
    }
    if (this.opts.fingerprints !== 'ignore') {
      const roots = { ...this.opts.roots, ...ctx.roots };
      const drift = findDrift(expected, request, ctx.fingerprint, this.opts.recorded ?? {}, roots);
      if (drift) {
        // The whole diff goes to stderr under its own prefix (the harness attaches stderr; the error keeps one hunk).
        for (const line of drift.full?.split('\n') ?? []) this.opts.log(`llm-replay diff: ${line}`);
        // The drift as data for the harness, which keys the failure's cause by it (never by this error's text).
        const { detail: _detail, full: _full, ...data } = drift;
        this.report(data);
        this.fail(
          new ReplayDriftError(
            `${head}: model call ${index + 1} of ${total} (${callLabel(live)}) sends a different request than the ` +
              `recording (${expected?.location ?? source}): first differing part ${drift.path}\n${drift.detail}\n${this.refreshHint()}`,
          ),
        );
      }
    }
    this.position = index + 1;
    this.consumed.push(index + 1);
    this.active = { call: index + 1, label: callLabel(live) };
    // Reported as each call is claimed, not only at close: a process killed mid-turn (SIGKILL runs no
    // close) has still said which calls it made, so the harness's unused-call check stays exact.
    this.report();
    return index;
  }

  /** The line the harness reads: every call this process has claimed so far. */
  private report(drift?: ReplayDrift): void {
    const { scenario, entries } = this.opts;
    this.opts.log(
      formatReplayReport({
        scenario,
        consumed: this.consumed,
        total: entries.length,
        ...(drift && { drift }),
      }),
    );
  }

  private async *serve(request: LlmRequest, ctx: CallContext): AsyncGenerator<StreamChunk> {
    const index = this.claim(request, ctx);
    const entry = this.opts.entries[index]!;
    const { signal } = ctx;
    const release = () => {
      if (this.active?.call === index + 1) this.active = undefined;
    };
    try {
      // Recorded output names roots by placeholder; the agent gets this run's real paths, as live.
      const roots = { ...this.opts.roots, ...ctx.roots };
      const chunks = hydrateRoots(entry.chunks ?? [], roots);
      const delays = this.opts.timing === 'recorded' && entry.kind === 'chunks' ? entry.delaysMs : undefined;
      const last = chunks.length - 1;
      for (let i = 0; i <= last; i++) {
        if (signal.aborted) throw new LlmAbortError();
        const wait = delays?.[i];
        if (wait) await delay(Math.min(wait, MAX_RECORDED_DELAY_MS), signal);
        // The call ends when its terminal chunk is handed out, whether or not the consumer returns.
        if (i === last && entry.kind === 'chunks') release();
        yield chunks[i]!;
      }
      if (entry.kind === 'throw') {
        throw new LlmProviderError(hydrateText(entry.message, roots), entry.code, entry.status);
      }
      if (entry.kind === 'hang') await hangUntilAborted(signal);
    } finally {
      release();
    }
  }

  /** Prints the consumption line the harness reads, and a human line when calls were left unused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const total = this.opts.entries.length;
    const { scenario } = this.opts;
    this.report();
    const used = new Set(this.consumed);
    const unused: number[] = [];
    for (let n = 1; n <= total; n++) if (!used.has(n)) unused.push(n);
    if (unused.length > 0) {
      const n = unused.length;
      this.opts.log(
        `${REPLAY_NOTE_PREFIX}scenario ${scenario}: ${n} recorded model call${n === 1 ? ' was' : 's were'} never made ` +
          `(call${n === 1 ? '' : 's'} ${unused.join(', ')}) by this agent process`,
      );
    }
  }
}
