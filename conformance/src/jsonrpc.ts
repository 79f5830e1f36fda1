/**
 * Whole-transcript JSON-RPC 2.0 checks over one connection: line framing, message shapes, id echo,
 * result xor error, and schema validity of everything the agent sent.
 */
import { clip } from './check.js';
import { checkAgentMessage } from './schema.js';
import { type AgentConnection, isResponse } from './wire.js';

function validId(id: unknown): boolean {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
}

/** Problems with stdout framing: each line must be one JSON-RPC 2.0 object (request, notification or response). */
export function framingProblems(conn: AgentConnection): string[] {
  const problems: string[] = [];
  for (const entry of conn.inbound) {
    const where = `stdout line ${entry.line}`;
    if (entry.problem) {
      problems.push(`${where}: ${entry.problem}: ${JSON.stringify(clip(entry.raw))}`);
      continue;
    }
    const m = entry.msg!;
    if (m.jsonrpc !== '2.0') {
      problems.push(`${where}: "jsonrpc" is ${JSON.stringify(m.jsonrpc)}, not "2.0": ${clip(entry.raw)}`);
      continue;
    }
    if ('method' in m) {
      if (typeof m.method !== 'string')
        problems.push(`${where}: "method" is not a string: ${clip(entry.raw)}`);
      if ('id' in m && !validId(m.id))
        problems.push(`${where}: request id is not a string or integer: ${clip(entry.raw)}`);
      continue;
    }
    if (!('id' in m))
      problems.push(`${where}: neither a request, a notification nor a response: ${clip(entry.raw)}`);
  }
  return problems;
}

/** Problems with responses: result xor error, and a well-formed error object (integer code, string message). */
export function responseShapeProblems(conn: AgentConnection): string[] {
  const problems: string[] = [];
  for (const entry of conn.inbound) {
    const m = entry.msg;
    if (!m || !isResponse(m)) continue;
    const where = `stdout line ${entry.line}`;
    const hasResult = 'result' in m;
    const hasError = 'error' in m;
    if (hasResult === hasError) {
      problems.push(
        `${where}: a response must carry exactly one of "result" and "error", it has ${hasResult ? 'both' : 'neither'}: ${clip(entry.raw)}`,
      );
      continue;
    }
    if (hasError) {
      const e = m.error as Record<string, unknown> | null;
      if (typeof e !== 'object' || e === null || !Number.isInteger(e.code) || typeof e.message !== 'string') {
        problems.push(
          `${where}: the error object needs an integer "code" and a string "message": ${clip(entry.raw)}`,
        );
      }
    }
  }
  return problems;
}

/** The client requests sent on a connection, by id (JSON of the id, so 1 and "1" differ). */
export function sentRequests(conn: AgentConnection): Map<string, string> {
  const byId = new Map<string, string>();
  for (const o of conn.outbound) {
    if (o.msg && typeof o.msg.method === 'string' && 'id' in o.msg)
      byId.set(JSON.stringify(o.msg.id), o.msg.method);
  }
  return byId;
}

/**
 * Problems with ids: each response echoes the id of a request the client sent (same type and value) and
 * answers it once; a null id only for a parse error or invalid request. With `expectAllAnswered`, every
 * request the client sent must have been answered.
 */
export function idProblems(conn: AgentConnection, expectAllAnswered = false): string[] {
  const sent = sentRequests(conn);
  const answered = new Map<string, number>();
  const problems: string[] = [];
  for (const entry of conn.inbound) {
    const m = entry.msg;
    if (!m || !isResponse(m)) continue;
    const key = JSON.stringify(m.id);
    if (m.id === null) {
      const code = (m.error as { code?: unknown } | undefined)?.code;
      if (code !== -32700 && code !== -32600) {
        problems.push(
          `stdout line ${entry.line}: id null is only for parse errors and invalid requests: ${clip(entry.raw)}`,
        );
      }
      continue;
    }
    if (!sent.has(key)) {
      problems.push(
        `stdout line ${entry.line}: id ${key} answers no request the client sent: ${clip(entry.raw)}`,
      );
      continue;
    }
    answered.set(key, (answered.get(key) ?? 0) + 1);
  }
  for (const [key, n] of answered)
    if (n > 1) problems.push(`request id ${key} (${sent.get(key)}) was answered ${n} times`);
  if (expectAllAnswered) {
    for (const [key, method] of sent) {
      if (!answered.has(key))
        problems.push(`request id ${key} (${method}) got no response with that exact id`);
    }
  }
  return problems;
}

/** Schema problems of every message the agent sent on the connection. */
export function schemaProblems(conn: AgentConnection): string[] {
  const sent = sentRequests(conn);
  const problems: string[] = [];
  for (const entry of conn.inbound) {
    const m = entry.msg;
    if (!m) continue;
    const method = isResponse(m) ? sent.get(JSON.stringify(m.id)) : undefined;
    for (const p of checkAgentMessage(m, method)) problems.push(`stdout line ${entry.line}: ${p}`);
  }
  return problems;
}
