/**
 * The prompt-aware model stand-in for checks that need a model turn against an agent nobody here wrote:
 * the repository's model emulator (emulator/), answering each request by what it asks rather than
 * by position, because real agents make background calls (titles, memory, suggestions, routing) at times
 * no script can predict. The answer depends on the newest user prompt of the request:
 * - "Count slowly ..." (a check that cancels): a little text, then a stall until the agent hangs up;
 * - "Create a file named X ..." : a call of the request's own write tool (when it offers one), then text;
 * - "Read the file X ..."        : a call of the request's own read tool (when it offers one), then text;
 * - a tool result as the newest message: a short closing text;
 * - anything else (a plain prompt, a background call): a short text.
 * Tool arguments are filled from the tool's own JSON schema (a path-like property gets the file's absolute
 * path in the check's workspace, a content-like one the text), so agents with any tool names work.
 */

import { type WireFormat, wireFormatOf } from '@acp-snapshot/core';
import type { Emulator, LoggedRequest, ScriptEntry } from '@acp-snapshot/emulator';
import { startEmulator } from '@acp-snapshot/emulator';

type Json = Record<string, unknown>;

/** A tool a request offers the model: its name and JSON schema of its arguments. */
export interface OfferedTool {
  name: string;
  schema: Json;
}

/** What the newest message of a request is: a user prompt (its text) or a tool result. */
export type NewestMessage = { kind: 'user'; text: string } | { kind: 'tool-result' } | { kind: 'none' };

const WIRE_NAMES: Record<WireFormat, string> = {
  'openai-chat': 'OpenAI Chat Completions',
  'openai-responses': 'OpenAI Responses',
  'anthropic-messages': 'Anthropic Messages',
  gemini: 'Gemini generateContent',
};

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => {
      const part = p as Json;
      if (typeof part.text === 'string') return part.text;
      if (typeof part.content === 'string' && part.type === 'input_text') return part.content;
      return '';
    })
    .join('\n');
}

const isToolResultPart = (p: unknown) => {
  const part = p as Json;
  return part.type === 'tool_result' || part.type === 'function_call_output' || 'functionResponse' in part;
};

/** The text the stand-in answers a plain prompt (or a background call) with. */
export const STAND_IN_TEXT = 'Hello from the conformance model stand-in.';

/** Instructions rather than conversation: a system or developer message, wherever a format puts one. */
const isInstruction = (m: unknown) => {
  const role = (m as Json).role;
  return role === 'system' || role === 'developer';
};

/**
 * The newest message of the conversation in a request body in any of the four wire formats. Trailing
 * instructions are skipped: an agent may put a system message after the prompt (claude-agent-acp 0.101 does).
 */
export function newestMessage(body: Json): NewestMessage {
  // OpenAI Chat and Anthropic: messages[]; Responses: input (a string or items); Gemini: contents[].
  const list = (body.messages ?? body.contents ?? body.input) as unknown;
  if (typeof list === 'string') return { kind: 'user', text: list };
  if (!Array.isArray(list)) return { kind: 'none' };
  const last = list.findLast((m) => !isInstruction(m)) as Json | undefined;
  if (last === undefined) return { kind: 'none' };
  if (last.role === 'tool' || last.type === 'function_call_output') return { kind: 'tool-result' };
  const parts = (last.content ?? last.parts) as unknown;
  if (Array.isArray(parts) && parts.some(isToolResultPart)) return { kind: 'tool-result' };
  if (last.role === 'user' || last.type === 'message') return { kind: 'user', text: textOf(parts) };
  return { kind: 'none' };
}

/** The tools a request body offers, in any of the four wire formats. */
export function offeredTools(body: Json): OfferedTool[] {
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  return tools.flatMap((t): OfferedTool[] => {
    if (Array.isArray(t.functionDeclarations))
      return (t.functionDeclarations as Json[]).map((d) => ({
        name: String(d.name),
        schema: ((d.parametersJsonSchema ?? d.parameters) as Json | undefined) ?? {},
      }));
    const fn = (t.function as Json | undefined) ?? t;
    if (typeof fn.name !== 'string') return [];
    return [{ name: fn.name, schema: ((fn.parameters ?? fn.input_schema) as Json | undefined) ?? {} }];
  });
}

const READ_TOOL = /^(read_?file|read_text_file|read|view|cat)$|read.?file/i;
const WRITE_TOOL = /^(write_?file|write|create_?file|write_text_file)$|write.?file/i;

/** Arguments for `tool` that name `absPath` (and carry `content`, for a write), from its schema. */
export function toolArguments(tool: OfferedTool, absPath: string, content?: string): Json {
  const props = (tool.schema.properties as Record<string, Json> | undefined) ?? {};
  const names = Object.keys(props);
  const args: Json = {};
  const pathKey = names.find((n) => /path|file/i.test(n)) ?? 'path';
  args[pathKey] = absPath;
  if (content !== undefined) args[names.find((n) => /content|text|data/i.test(n)) ?? 'content'] = content;
  return args;
}

const SLOW = /count slowly/i;
const CREATE = /create a file named (\S+?)[.,]?\s/i;
const READ = /read the file (\S+?)[.,]?\s/i;

/** The emulator entry that answers `body` for a check whose workspace is `cwd`. */
export function respondTo(body: Json, cwd: string): ScriptEntry {
  // A structured-output call (gemini-cli's model router) wants JSON of its schema, not prose.
  const schema = requestedSchema(body);
  if (schema) return { reply: { text: JSON.stringify(schemaValue(schema)) } };
  const newest = newestMessage(body);
  if (newest.kind === 'tool-result') return { reply: { text: 'Done: the tool call finished.' } };
  const prompt = newest.kind === 'user' ? `${newest.text} ` : '';
  if (SLOW.test(prompt))
    return {
      fail: {
        kind: 'hang',
        afterChunks: 2,
        reply: { text: 'Counting slowly: one, two, three, four, five.' },
      },
    };
  const tools = offeredTools(body);
  const create = CREATE.exec(prompt);
  const writer = create && tools.find((t) => WRITE_TOOL.test(t.name));
  if (create && writer)
    return {
      reply: {
        toolCalls: [{ name: writer.name, arguments: toolArguments(writer, `${cwd}/${create[1]}`, 'ok\n') }],
      },
    };
  const read = READ.exec(prompt);
  const reader = read && tools.find((t) => READ_TOOL.test(t.name));
  if (read && reader)
    return {
      reply: { toolCalls: [{ name: reader.name, arguments: toolArguments(reader, `${cwd}/${read[1]}`) }] },
    };
  return { reply: { text: STAND_IN_TEXT } };
}

/** The JSON schema a request asks its answer to follow (Gemini `generationConfig`, OpenAI `response_format`). */
function requestedSchema(body: Json): Json | undefined {
  const gen = body.generationConfig as Json | undefined;
  if (gen?.responseMimeType === 'application/json')
    return (gen.responseJsonSchema ?? gen.responseSchema) as Json | undefined;
  const format = body.response_format as { type?: string; json_schema?: { schema?: Json } } | undefined;
  return format?.type === 'json_schema' ? format.json_schema?.schema : undefined;
}

/** A small value that follows `schema`: its required properties, the first enum value, numbers at their minimum. */
function schemaValue(schema: Json): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (String(schema.type ?? 'object').toLowerCase()) {
    case 'string':
      return 'stand-in';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    default: {
      const props = (schema.properties ?? {}) as Record<string, Json>;
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : Object.keys(props);
      return Object.fromEntries(required.filter((k) => props[k]).map((k) => [k, schemaValue(props[k]!)]));
    }
  }
}

/** A running stand-in for one check. */
export interface ModelStandIn {
  /** The base URL to give the agent (`/v1/...` and unprefixed paths both reach it). */
  url: string;
  requests: LoggedRequest[];
  /**
   * When the agent asked for a wire format the stand-in does not serve: why a model-turn check says nothing
   * about the agent (the kit reports it as skip), else undefined.
   */
  unsupported(): string | undefined;
  close(): Promise<void>;
}

/** Starts the stand-in on 127.0.0.1 for a check whose session cwd is `cwd`. */
export async function startModelStandIn(cwd: string): Promise<ModelStandIn> {
  const emulator: Emulator = await startEmulator({
    script: { description: 'conformance model stand-in (prompt-aware)', responses: [] },
    respond: (body) => respondTo(body, cwd),
  });
  return {
    url: emulator.url,
    requests: emulator.requests,
    unsupported() {
      // A HEAD preflight is answered 404 harmlessly; any other unserved request can break a model turn.
      const missed = emulator.requests.find((r) => r.served === 'not_found' && r.method !== 'HEAD');
      if (!missed) return undefined;
      const format = wireFormatOf(missed.path);
      const what = `${missed.method} ${missed.path}`;
      return format
        ? `the agent's model speaks ${WIRE_NAMES[format]} (${what}), which the model stand-in does not serve yet`
        : `the agent asked the model stand-in for ${what}, which it does not serve`;
    },
    close: () => emulator.close(),
  };
}
