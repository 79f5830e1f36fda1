import type { FinishReason, StreamChunk, ToolCallRequest, Usage } from '@acp-snapshot/core';

/** Builds one assistant message from a model stream: text, reasoning, tool calls by index, finish. */
export class StreamAssembler {
  text = '';
  reasoning = '';
  finish: { reason: FinishReason; usage?: Usage } | undefined;
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();

  add(chunk: StreamChunk): void {
    switch (chunk.type) {
      case 'text':
        this.text += chunk.text;
        break;
      case 'reasoning':
        this.reasoning += chunk.text;
        break;
      case 'tool_call_start':
        this.calls.set(chunk.index, { id: chunk.id, name: chunk.name, args: '' });
        break;
      case 'tool_call_args': {
        // Arguments for an index never started are kept under a synthetic call so nothing is lost;
        // the unknown tool name then becomes a tool error the model can recover from.
        const call = this.calls.get(chunk.index) ?? { id: `call_index_${chunk.index}`, name: '', args: '' };
        call.args += chunk.delta;
        this.calls.set(chunk.index, call);
        break;
      }
      case 'finish':
        this.finish = chunk.usage ? { reason: chunk.reason, usage: chunk.usage } : { reason: chunk.reason };
        break;
    }
  }

  /** Tool calls in index order. */
  toolCalls(): ToolCallRequest[] {
    return [...this.calls.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([, c]) => ({ id: c.id, name: c.name, arguments: c.args }));
  }
}
