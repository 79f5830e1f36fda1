import type { VolatileRoots } from '@acp-snapshot/core';
import type { BodyEvent } from '@acp-snapshot/session-log';
import { type ContentBlock, RequestError, type StopReason } from '@agentclientprotocol/sdk';
import type { Conversation } from './conversation.js';
import { promptToText } from './prompt-content.js';
import type { AgentServices } from './services.js';
import type { SessionSettings } from './session-settings.js';
import type { SessionWriter } from './session-store.js';
import { TurnRunner } from './turn.js';
import type { SessionClient, TurnContext } from './turn-context.js';

/** One ACP session: its conversation, its log, and at most one running prompt turn. */
export class AgentSession implements TurnContext {
  private turnAbort: AbortController | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    readonly id: string,
    readonly cwd: string,
    readonly systemPrompt: string,
    readonly services: AgentServices,
    readonly client: SessionClient,
    readonly writer: SessionWriter,
    readonly conversation: Conversation,
    readonly settings: SessionSettings,
  ) {}

  /** Volatile roots replaced by placeholders before fingerprinting requests. */
  get roots(): VolatileRoots {
    const { config, home, roots } = this.services;
    return { ...roots, cwd: this.cwd, spill: config.spillRoot, persist: config.persistRoot, home };
  }

  /** Persists an event (durably) and applies it to the conversation: the only way state changes. */
  async record(event: BodyEvent): Promise<void> {
    await this.writer.write(event);
    this.conversation.apply(event);
    this.settings.apply(event);
  }

  /** session/cancel: aborts the running turn, if any. A cancel between turns is a no-op. */
  cancel(): void {
    this.turnAbort?.abort();
  }

  /** Runs one prompt turn to its stop reason; errors that end the turn reject with a RequestError. */
  async prompt(blocks: ContentBlock[]): Promise<StopReason> {
    if (this.running) {
      throw RequestError.invalidRequest(
        { sessionId: this.id },
        'a prompt is already running in this session; cancel it or wait for its response',
      );
    }
    const text = promptToText(blocks);
    const abort = new AbortController();
    this.turnAbort = abort;
    const run = new TurnRunner(this, this.conversation.lastTurn + 1, abort.signal).run(text);
    this.running = run;
    try {
      return await run;
    } finally {
      // Cleared before the response is sent, so a late cancel cannot reach the next turn.
      this.turnAbort = undefined;
      this.running = undefined;
    }
  }

  /**
   * Cancels any running turn, waits for it to settle, and closes the log. `session/close` marks the
   * close in the log first; a shutdown (stdin closed) does not, since the client did not ask for it.
   */
  async close(opts: { byClient?: boolean } = {}): Promise<void> {
    this.cancel();
    await this.running?.catch(() => {});
    if (opts.byClient) await this.record({ type: 'session/close' });
    await this.writer.close();
  }
}
