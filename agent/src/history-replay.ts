import type { LogRecord } from '@acp-snapshot/session-log';
import type { SessionUpdate, ToolCallLocation } from '@agentclientprotocol/sdk';
import type { ToolDefinition } from './tools/types.js';

/**
 * The session/update notifications that show a persisted conversation again (session/load), in log
 * order: user and assistant messages from committed messages (reasoning as thought chunks), tool calls
 * from tool/call and their final state from tool/result. Compacted history is shown in full: the log
 * keeps every original message.
 */
export function historyUpdates(records: LogRecord[], tools: ToolDefinition[], cwd: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const text = (t: string) => ({ type: 'text' as const, text: t });
  for (const { event } of records) {
    switch (event.type) {
      case 'message/committed': {
        const m = event.message;
        if (m.role === 'user')
          updates.push({ sessionUpdate: 'user_message_chunk', content: text(m.content) });
        if (m.role === 'assistant') {
          if (m.reasoning) updates.push({ sessionUpdate: 'agent_thought_chunk', content: text(m.reasoning) });
          if (m.content) updates.push({ sessionUpdate: 'agent_message_chunk', content: text(m.content) });
        }
        break;
      }
      case 'tool/call': {
        const tool = tools.find((t) => t.name === event.name);
        let args: unknown;
        try {
          args = event.arguments.trim() === '' ? {} : JSON.parse(event.arguments);
        } catch {
          args = undefined;
        }
        let title = event.name;
        let locations: ToolCallLocation[] = [];
        try {
          if (tool) {
            title = tool.title(args);
            if (args !== undefined) locations = tool.locations(args, cwd);
          }
        } catch {
          // Titles and locations are cosmetic; a tool that cannot derive them keeps the defaults.
        }
        updates.push({
          sessionUpdate: 'tool_call',
          toolCallId: event.toolCallId,
          title,
          kind: tool?.kind ?? 'other',
          status: 'pending',
          locations,
          rawInput: args ?? { arguments: event.arguments },
        });
        break;
      }
      case 'tool/result':
        updates.push({
          sessionUpdate: 'tool_call_update',
          toolCallId: event.toolCallId,
          status: event.status,
          content: [{ type: 'content', content: text(event.preview) }],
        });
        break;
      default:
        break;
    }
  }
  return updates;
}
