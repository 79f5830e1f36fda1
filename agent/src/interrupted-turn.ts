import type { ChatMessage } from '@acp-snapshot/core';
import type { LogRecord } from '@acp-snapshot/session-log';
import { StreamAssembler } from './stream-assembler.js';

/**
 * What the user saw of an answer a killed process was streaming: the text (and reasoning) of the
 * open turn's last model call, when the process died before committing it. session/load commits it,
 * as a live turn commits its partial answer on cancel or error, so the loaded history and the next
 * model request both carry what the user read. Compaction calls are not answers and are skipped.
 */
export function uncommittedAnswer(records: readonly LogRecord[], turn: number): ChatMessage | undefined {
  let step: number | undefined;
  let answer: StreamAssembler | undefined;
  for (const { event } of records) {
    if (!('turn' in event) || event.turn !== turn) continue;
    if (event.type === 'llm/request') {
      step = event.purpose === 'turn' ? event.step : undefined;
      answer = step === undefined ? undefined : new StreamAssembler();
    } else if (event.type === 'assistant/chunk' && event.step === step) {
      answer?.add(event.chunk);
    } else if (event.type === 'message/committed' && event.message.role === 'assistant') {
      answer = undefined;
    }
  }
  if (!answer?.text) return undefined;
  return {
    role: 'assistant',
    content: answer.text,
    ...(answer.reasoning ? { reasoning: answer.reasoning } : {}),
  };
}
