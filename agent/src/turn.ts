import { type FinishReason, isLlmAbortError, isLlmProviderError, type LlmRequest } from '@acp-snapshot/core';
import type { TurnEndKind } from '@acp-snapshot/session-log';
import { RequestError, type StopReason } from '@agentclientprotocol/sdk';
import { TurnCancelled } from './abort.js';
import { maybeCompact } from './compaction.js';
import { callModel } from './model-call.js';
import { StreamAssembler } from './stream-assembler.js';
import { ToolRunner } from './tool-runner.js';
import type { TurnContext } from './turn-context.js';
import { TURN_ERROR_RPC_CODE, TurnError } from './turn-error.js';

const FINISH_TO_STOP: Record<
  Exclude<FinishReason, 'tool_calls' | 'insufficient_system_resource'>,
  [StopReason, TurnEndKind]
> = {
  stop: ['end_turn', 'completed'],
  length: ['max_tokens', 'max_tokens'],
  content_filter: ['refusal', 'refusal'],
};

/**
 * One prompt turn: commit the user message, then model steps until the model stops. Each step persists
 * its request fingerprint and every chunk, streams updates to the client, and runs requested tools.
 * Turns and steps are numbered from 1.
 */
export class TurnRunner {
  /** The assistant message being streamed, committed partially if the turn is cancelled or fails. */
  private partial: StreamAssembler | undefined;
  private step = 0;

  constructor(
    private readonly session: TurnContext,
    private readonly turn: number,
    private readonly signal: AbortSignal,
  ) {}

  async run(userText: string): Promise<StopReason> {
    const { session, turn } = this;
    await session.record({ type: 'turn/start', turn });
    await session.record({ type: 'message/committed', turn, message: { role: 'user', content: userText } });
    try {
      const [stopReason, kind] = await this.loop();
      await session.record({ type: 'turn/end', turn, kind });
      return stopReason;
    } catch (e) {
      return await this.endAbnormally(e);
    }
  }

  private async loop(): Promise<[StopReason, TurnEndKind]> {
    const { config } = this.session.services;
    for (this.step = 1; ; this.step++) {
      if (this.step > config.maxStepsPerTurn) return ['max_turn_requests', 'max_turn_requests'];
      if (this.signal.aborted) throw new TurnCancelled();
      await maybeCompact(this.session, this.turn, this.step, this.signal);
      const assembled = await this.modelStep();
      const reason = assembled.finish!.reason;
      const toolCalls = assembled.toolCalls();
      // Tool calls are kept only when they will run, so every committed call gets its result.
      const runTools = toolCalls.length > 0 && (reason === 'tool_calls' || reason === 'stop');
      await this.commitAssistant(assembled, runTools ? toolCalls : []);
      if (reason === 'insufficient_system_resource') {
        throw new TurnError(
          'the model provider ended the response: insufficient system resources (finish_reason insufficient_system_resource); try again later',
          'insufficient_system_resource',
        );
      }
      if (runTools) {
        await new ToolRunner(this.session, this.turn, this.step, this.signal).runAll(toolCalls);
        continue;
      }
      // tool_calls without any call is treated as a plain stop.
      return FINISH_TO_STOP[reason === 'tool_calls' ? 'stop' : reason];
    }
  }

  /** One model call (model-call.ts), persisting every chunk, showing text and thoughts, assembling the message. */
  private async modelStep(): Promise<StreamAssembler> {
    const { session, turn, step, signal } = this;
    const { config, toolSchemas } = session.services;
    const request: LlmRequest = {
      model: session.settings.model,
      system: session.systemPrompt,
      messages: [...session.conversation.messages],
      tools: toolSchemas,
      params: config.llm.params,
      purpose: 'turn',
    };
    const assembled = new StreamAssembler();
    this.partial = assembled;
    await callModel({ session, turn, step, signal }, request, 'the model stream', async (chunk) => {
      await session.record({ type: 'assistant/chunk', turn, step, chunk });
      assembled.add(chunk);
      if (chunk.type === 'text' && chunk.text) {
        await session.client.update({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: chunk.text },
        });
      } else if (chunk.type === 'reasoning' && chunk.text) {
        await session.client.update({
          sessionUpdate: 'agent_thought_chunk',
          content: { type: 'text', text: chunk.text },
        });
      }
    });
    this.partial = undefined;
    return assembled;
  }

  private async commitAssistant(
    a: StreamAssembler,
    toolCalls: ReturnType<StreamAssembler['toolCalls']>,
  ): Promise<void> {
    await this.session.record({
      type: 'message/committed',
      turn: this.turn,
      message: {
        role: 'assistant',
        content: a.text,
        ...(a.reasoning ? { reasoning: a.reasoning } : {}),
        ...(toolCalls.length ? { toolCalls } : {}),
      },
    });
  }

  /**
   * Cancel or failure: keep what the user saw (partial text is committed), answer every tool call still
   * open so the conversation stays valid for the next request, then persist turn/end.
   */
  private async endAbnormally(e: unknown): Promise<StopReason> {
    const { session, turn } = this;
    // Whatever the plugin or tool threw after a cancel (abort errors, cut connections), the turn was cancelled.
    const cancelled = this.signal.aborted;
    if (this.partial?.text) await this.commitAssistant(this.partial, []);
    this.partial = undefined;
    const note = cancelled
      ? 'Cancelled: the user interrupted the turn before this tool call finished.'
      : 'Not run: the turn ended with an error before this tool call finished.';
    await new ToolRunner(session, turn, Math.max(this.step, 1), this.signal).closeDangling(note);
    if (cancelled) {
      await session.record({ type: 'turn/end', turn, kind: 'cancelled' });
      return 'cancelled';
    }
    const err = toTurnError(e);
    session.services.log(`turn ${turn} of ${session.id} failed: ${err.message}`);
    await session.record({
      type: 'turn/end',
      turn,
      kind: 'error',
      error: { message: err.message, code: err.code },
    });
    throw new RequestError(TURN_ERROR_RPC_CODE, err.message, {
      code: err.code,
      ...(err.status !== undefined ? { status: err.status } : {}),
      turn,
    });
  }
}

function toTurnError(e: unknown): TurnError {
  if (e instanceof TurnError) return e;
  if (isLlmProviderError(e)) {
    return new TurnError(
      `model provider error (${e.code}${e.status ? `, HTTP ${e.status}` : ''}): ${e.message}`,
      e.code,
      e.status,
    );
  }
  if (isLlmAbortError(e)) return new TurnError(`the model call was aborted: ${e.message}`, 'aborted');
  return new TurnError(`internal agent error: ${e instanceof Error ? e.message : String(e)}`, 'internal');
}
