import type { ToolCallRequest } from '@acp-snapshot/core';
import type { PermissionOption, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import { TurnCancelled, untilAborted } from './abort.js';
import { CONFIGURED_MODE } from './session-settings.js';
import type { ToolDefinition, ToolOutcome } from './tools/types.js';
import type { ToolRunContext } from './turn-context.js';

/** The options of every permission question: allow or reject this one call. */
export const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: 'allow_once', kind: 'allow_once', name: 'Allow' },
  { optionId: 'reject_once', kind: 'reject_once', name: 'Reject' },
];

interface PreparedCall {
  call: ToolCallRequest;
  tool: ToolDefinition | undefined;
  args: unknown;
  /** Why the call cannot run (unknown tool, arguments not JSON); sent back to the model. */
  invalid?: string;
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
}

/**
 * Runs the tool calls of one model step, in order (so the log and the tool messages are deterministic):
 * announce every call (tool_call, pending), then for each: permission per policy, in_progress, run,
 * completed/failed with content. Every call ends with a tool/result and a committed tool message.
 */
export class ToolRunner {
  constructor(
    private readonly session: ToolRunContext,
    private readonly turn: number,
    private readonly step: number,
    private readonly signal: AbortSignal,
  ) {}

  async runAll(calls: ToolCallRequest[]): Promise<void> {
    const prepared = calls.map((c) => this.prepare(c));
    for (const p of prepared) {
      await this.session.record({
        type: 'tool/call',
        turn: this.turn,
        step: this.step,
        toolCallId: p.call.id,
        name: p.call.name,
        arguments: p.call.arguments,
      });
      await this.session.client.update({
        sessionUpdate: 'tool_call',
        toolCallId: p.call.id,
        title: p.title,
        kind: p.kind,
        status: 'pending',
        locations: p.locations,
        rawInput: p.args ?? { arguments: p.call.arguments },
      });
    }
    for (const p of prepared) {
      if (this.signal.aborted) throw new TurnCancelled();
      await this.runOne(p);
    }
  }

  private prepare(call: ToolCallRequest): PreparedCall {
    const { tools } = this.session.services;
    const tool = tools.find((t) => t.name === call.name);
    let args: unknown;
    let invalid: string | undefined;
    try {
      args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    } catch (e) {
      invalid =
        `Error: the arguments of this ${call.name || 'tool'} call are not valid JSON (${(e as Error).message}). ` +
        'Call the tool again with a JSON object that matches its parameters schema.';
    }
    if (!tool) {
      invalid = `Error: there is no tool named "${call.name}". Available tools: ${tools.map((t) => t.name).join(', ')}.`;
    }
    const safe = <T>(f: () => T, fallback: T): T => {
      try {
        return f();
      } catch {
        return fallback;
      }
    };
    return {
      call,
      tool,
      args,
      ...(invalid ? { invalid } : {}),
      title: tool ? safe(() => tool.title(args), call.name) : call.name || 'unknown tool',
      kind: tool?.kind ?? 'other',
      locations: tool && !invalid ? safe(() => tool.locations(args, this.session.cwd), []) : [],
    };
  }

  private async runOne(p: PreparedCall): Promise<void> {
    if (p.invalid || !p.tool) return this.finish(p, failed(p.invalid ?? 'Error: unknown tool'));
    const verdict = await this.permit(p, p.tool);
    if (verdict !== 'allowed') return this.finish(p, failed(verdict));
    await this.session.client.update({
      sessionUpdate: 'tool_call_update',
      toolCallId: p.call.id,
      status: 'in_progress',
    });
    let outcome: ToolOutcome;
    try {
      outcome = await untilAborted(p.tool.run(p.args, this.toolContext(p.call.id)), this.signal);
    } catch (e) {
      if (this.signal.aborted) throw e;
      outcome = failed(`Error: ${p.call.name} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    await this.finish(p, outcome);
  }

  /** Applies the permission policy; returns 'allowed' or the text the model gets instead of a result. */
  private async permit(p: PreparedCall, tool: ToolDefinition): Promise<'allowed' | string> {
    if (tool.permission === 'none') return 'allowed';
    // Read at each call, not at turn start: a mode set while a turn runs applies to its next tool call.
    const { settings } = this.session;
    const policy = settings.permissions[tool.permission];
    if (policy === 'allow') return 'allowed';
    if (policy === 'deny') {
      if (settings.modeId === CONFIGURED_MODE)
        return `Denied: the agent's permission policy (permissions.${tool.permission} = "deny") does not allow this tool call.`;
      const what = tool.permission === 'edit' ? 'file edits' : 'commands';
      return `Denied: this session's mode "${settings.modeId}" does not allow ${what}, so the tool did not run.`;
    }
    const toolCallId = p.call.id;
    await this.session.record({
      type: 'permission/request',
      turn: this.turn,
      toolCallId,
      options: PERMISSION_OPTIONS,
    });
    let outcome: { outcome: 'cancelled' } | { outcome: 'selected'; optionId: string };
    try {
      const response = await untilAborted(
        this.session.client.requestPermission({
          toolCall: {
            toolCallId,
            title: p.title,
            kind: p.kind,
            status: 'pending',
            locations: p.locations,
            rawInput: p.args,
          },
          options: PERMISSION_OPTIONS,
        }),
        this.signal,
      );
      outcome = response.outcome;
    } catch (e) {
      if (!this.signal.aborted) {
        this.session.services.log(`permission request for ${toolCallId} failed: ${(e as Error).message}`);
      }
      outcome = { outcome: 'cancelled' };
    }
    await this.session.record({
      type: 'permission/outcome',
      turn: this.turn,
      toolCallId,
      ...(outcome.outcome === 'selected'
        ? { outcome: 'selected', optionId: outcome.optionId }
        : { outcome: 'cancelled' }),
    });
    if (this.signal.aborted) throw new TurnCancelled();
    if (outcome.outcome === 'selected' && outcome.optionId === 'allow_once') return 'allowed';
    if (outcome.outcome === 'cancelled')
      return 'Rejected: the permission request was cancelled, so the tool did not run.';
    return 'Rejected: the user did not allow this tool call, so it did not run. Do not retry it unchanged.';
  }

  private toolContext(toolCallId: string) {
    const { session } = this;
    const { config, toolEnv, ids } = session.services;
    return {
      cwd: session.cwd,
      spillRoot: config.spillRoot,
      env: toolEnv,
      signal: this.signal,
      // Scoped by session and turn so a second agent process on the same session never reuses an id.
      newId: (prefix: string) => ids.next(`${prefix}-${session.id}-t${this.turn}`),
      fs: session.client.fs,
      previewBudget: config.tools.previewBudget,
      bashTimeoutMs: config.tools.bashTimeoutMs,
      ...(session.client.terminal ? { terminal: session.client.terminal } : {}),
      report: (content: ToolCallContent[]) =>
        session.client.update({ sessionUpdate: 'tool_call_update', toolCallId, content }),
    };
  }

  /** Reports and persists a call's result, and commits the tool message the model will see. */
  private async finish(p: PreparedCall, outcome: ToolOutcome): Promise<void> {
    const { session, turn, step } = this;
    await session.client.update({
      sessionUpdate: 'tool_call_update',
      toolCallId: p.call.id,
      status: outcome.status,
      content: outcome.content,
      ...(outcome.locations ? { locations: outcome.locations } : {}),
    });
    await session.record({
      type: 'tool/result',
      turn,
      step,
      toolCallId: p.call.id,
      status: outcome.status,
      preview: outcome.output,
      ...(outcome.spill ? { spill: outcome.spill } : {}),
    });
    await session.record({
      type: 'message/committed',
      turn,
      message: { role: 'tool', toolCallId: p.call.id, content: outcome.output },
    });
  }

  /** Answers every tool call of the last assistant message that has no result yet (cancel, error, crash). */
  async closeDangling(note: string): Promise<void> {
    for (const { id } of this.session.conversation.danglingToolCalls()) {
      const outcome = failed(note);
      await this.session.client.update({
        sessionUpdate: 'tool_call_update',
        toolCallId: id,
        status: 'failed',
        content: outcome.content,
      });
      await this.session.record({
        type: 'tool/result',
        turn: this.turn,
        step: this.step,
        toolCallId: id,
        status: 'failed',
        preview: note,
      });
      await this.session.record({
        type: 'message/committed',
        turn: this.turn,
        message: { role: 'tool', toolCallId: id, content: note },
      });
    }
  }
}

function failed(text: string): ToolOutcome {
  const content: ToolCallContent[] = [{ type: 'content', content: { type: 'text', text } }];
  return { status: 'failed', output: text, content };
}
