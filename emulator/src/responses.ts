// OpenAI Responses (`POST /v1/responses`): output items (reasoning, message, function_call, custom_tool_call) and the
// typed event stream `response.created` ... `response.completed`, numbered by `sequence_number`.

import type { ScriptChunking, ScriptReply } from './script.js';
import { contentText, type RoleText, roleOf } from './template.js';
import {
  argsCharsOf,
  argsText,
  DEFAULT_ARGS_PIECE,
  DEFAULT_TEXT_PIECE,
  errorBody,
  eventFrame,
  type Frame,
  finishOf,
  pieces,
  type ResponseIdentity,
  splitChars,
  usageFigures,
} from './wire.js';
import type { ErrorFields, FormatAdapter } from './wire-format.js';

type Item =
  | { id: string; type: 'reasoning'; summary: { type: 'summary_text'; text: string }[] }
  | {
      id: string;
      type: 'message';
      status: 'completed';
      role: 'assistant';
      content: { type: 'output_text'; annotations: []; logprobs: []; text: string }[];
    }
  | {
      id: string;
      type: 'function_call';
      status: 'completed';
      arguments: string;
      call_id: string;
      name: string;
    }
  | {
      id: string;
      type: 'custom_tool_call';
      status: 'completed';
      input: string;
      call_id: string;
      name: string;
    };

/** The reply's output items, in stream order; call ids are handed out here, once per reply. */
function outputItems(reply: ScriptReply, who: ResponseIdentity): Item[] {
  const items: Item[] = [];
  const id = (kind: string) => `${kind}_emu_${who.index}_${items.length}`;
  if (reply.reasoning !== undefined)
    items.push({
      id: id('rs'),
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: reply.reasoning }],
    });
  if (reply.text !== undefined || !reply.toolCalls?.length)
    items.push({
      id: id('msg'),
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', annotations: [], logprobs: [], text: reply.text ?? '' }],
    });
  for (const c of reply.toolCalls ?? [])
    items.push(
      c.custom
        ? {
            id: id('ctc'),
            type: 'custom_tool_call',
            status: 'completed',
            input: argsText(c.arguments),
            call_id: c.id ?? who.nextToolCallId(),
            name: c.name,
          }
        : {
            id: id('fc'),
            type: 'function_call',
            status: 'completed',
            arguments: argsText(c.arguments),
            call_id: c.id ?? who.nextToolCallId(),
            name: c.name,
          },
    );
  return items;
}

/** `length` and `content_filter` end a response as `incomplete`, as the API does. */
function ending(reply: ScriptReply): { status: string; incomplete_details: { reason: string } | null } {
  const finish = finishOf(reply);
  if (finish === 'length')
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter')
    return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

function responseObject(
  reply: ScriptReply,
  who: ResponseIdentity,
  output: Item[],
  done: boolean,
): Record<string, unknown> {
  const u = usageFigures(reply, argsCharsOf(reply), who.promptChars);
  const end = done ? ending(reply) : { status: 'in_progress', incomplete_details: null };
  return {
    id: `resp_emu_${who.index}`,
    object: 'response',
    created_at: who.created,
    status: end.status,
    error: null,
    incomplete_details: end.incomplete_details,
    model: who.model,
    output: done ? output : [],
    parallel_tool_calls: true,
    usage: done
      ? {
          input_tokens: u.prompt,
          input_tokens_details: { cached_tokens: u.hit },
          output_tokens: u.completion,
          output_tokens_details: { reasoning_tokens: u.reasoning },
          total_tokens: u.prompt + u.completion,
        }
      : null,
    metadata: {},
  };
}

/** The events of one item between its `output_item.added` and `output_item.done`. */
function itemEvents(item: Item, at: number, textMax: number, argsMax: number): [string, object][] {
  const ref = { item_id: item.id, output_index: at };
  if (item.type === 'reasoning') {
    const text = item.summary[0]!.text;
    const part = { ...ref, summary_index: 0 };
    return [
      ['response.reasoning_summary_part.added', { ...part, part: { type: 'summary_text', text: '' } }],
      ...pieces(text, textMax).map((delta): [string, object] => [
        'response.reasoning_summary_text.delta',
        { ...part, delta },
      ]),
      ['response.reasoning_summary_text.done', { ...part, text }],
      ['response.reasoning_summary_part.done', { ...part, part: { type: 'summary_text', text } }],
    ];
  }
  if (item.type === 'message') {
    const text = item.content[0]!.text;
    const part = { ...ref, content_index: 0 };
    const outputText = (t: string) => ({ type: 'output_text', annotations: [], logprobs: [], text: t });
    return [
      ['response.content_part.added', { ...part, part: outputText('') }],
      ...pieces(text, textMax).map((delta): [string, object] => [
        'response.output_text.delta',
        { ...part, delta, logprobs: [] },
      ]),
      ['response.output_text.done', { ...part, text, logprobs: [] }],
      ['response.content_part.done', { ...part, part: outputText(text) }],
    ];
  }
  if (item.type === 'custom_tool_call')
    return [
      ...splitChars(item.input, argsMax).map((delta): [string, object] => [
        'response.custom_tool_call_input.delta',
        { ...ref, delta },
      ]),
      ['response.custom_tool_call_input.done', { ...ref, input: item.input }],
    ];
  return [
    ...splitChars(item.arguments, argsMax).map((delta): [string, object] => [
      'response.function_call_arguments.delta',
      { ...ref, delta },
    ]),
    ['response.function_call_arguments.done', { ...ref, arguments: item.arguments }],
  ];
}

/** The item as `output_item.added` announces it: in progress, nothing generated yet. */
function opened(item: Item): object {
  if (item.type === 'reasoning') return { ...item, summary: [] };
  if (item.type === 'message') return { ...item, status: 'in_progress', content: [] };
  if (item.type === 'custom_tool_call') return { ...item, status: 'in_progress', input: '' };
  return { ...item, status: 'in_progress', arguments: '' };
}

/** The events that carry a piece of what the model generates (what `afterChunks` counts). */
const PIECE_EVENTS = new Set([
  'response.output_text.delta',
  'response.reasoning_summary_text.delta',
  'response.function_call_arguments.delta',
  'response.custom_tool_call_input.delta',
]);

function streamFrames(
  reply: ScriptReply,
  chunking: ScriptChunking | undefined,
  who: ResponseIdentity,
): Frame[] {
  const textMax = chunking?.textPieceChars ?? DEFAULT_TEXT_PIECE;
  const argsMax = chunking?.argsPieceChars ?? DEFAULT_ARGS_PIECE;
  const items = outputItems(reply, who);
  const events: [string, object][] = [
    ['response.created', { response: responseObject(reply, who, items, false) }],
    ['response.in_progress', { response: responseObject(reply, who, items, false) }],
  ];
  items.forEach((item, at) => {
    events.push(['response.output_item.added', { output_index: at, item: opened(item) }]);
    events.push(...itemEvents(item, at, textMax, argsMax));
    events.push(['response.output_item.done', { output_index: at, item }]);
  });
  const final = responseObject(reply, who, items, true);
  events.push([
    `response.${final.status === 'incomplete' ? 'incomplete' : 'completed'}`,
    { response: final },
  ]);
  return events.map(([type, data], sequence_number) =>
    eventFrame(type, { type, sequence_number, ...data }, PIECE_EVENTS.has(type)),
  );
}

function inputMessages(body: Record<string, unknown>): RoleText[] {
  const out: RoleText[] = [];
  if (typeof body.instructions === 'string') out.push({ role: 'system', text: body.instructions });
  if (typeof body.input === 'string') out.push({ role: 'user', text: body.input });
  // `instructions` may also be a list of input items (each a system or developer message).
  const listed = Array.isArray(body.instructions)
    ? body.instructions.map((i: unknown) => ({ role: 'system', ...(i as object) }))
    : [];
  for (const item of [...listed, ...(Array.isArray(body.input) ? body.input : [])]) {
    if (!item || typeof item !== 'object') continue;
    const i = item as {
      type?: unknown;
      role?: unknown;
      content?: unknown;
      output?: unknown;
      arguments?: unknown;
      input?: unknown;
    };
    if (i.type === 'function_call_output' || i.type === 'custom_tool_call_output')
      out.push({ role: 'tool', text: contentText(i.output) });
    else if (i.type === 'function_call') out.push({ role: 'assistant', text: String(i.arguments ?? '') });
    else if (i.type === 'custom_tool_call') out.push({ role: 'assistant', text: String(i.input ?? '') });
    else if (typeof i.role === 'string') out.push({ role: roleOf(i.role), text: contentText(i.content) });
  }
  return out;
}

const json = (v: unknown) => JSON.stringify(v ?? []);

export const responsesFormat: FormatAdapter = {
  name: 'openai-responses',
  model: (body) => (typeof body.model === 'string' ? body.model : undefined),
  messages: inputMessages,
  promptChars: (body) =>
    json(body.instructions ?? '').length + json(body.input).length + json(body.tools).length,
  streamFrames,
  streamEnd: '',
  complete: (reply, who) => JSON.stringify(responseObject(reply, who, outputItems(reply, who), true)),
  errorBody: (status, over) => errorBody(status, over),
  defaultStreamErrorMessage: 'The server had an error while processing your request.',
  streamError: (over: ErrorFields, sent) =>
    eventFrame('error', {
      type: 'error',
      sequence_number: sent,
      code: over.code ?? 'server_error',
      message: over.message,
      param: null,
    }).text,
  truncated: (who) =>
    `{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_emu_${who.index}_0","delta":"trunc`,
  dataFrame: (data) => `event: response.output_text.delta\ndata: ${data}\n\n`,
};
