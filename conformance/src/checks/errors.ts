/** Error handling and extensibility checks (JSON-RPC 2.0 error codes; ACP v1 protocol/extensibility). */
import { type Check, clip, fail } from '../check.js';
import { finish, initialize, newSession } from '../exchange.js';
import { checkDef } from '../schema.js';

function errorCode(resp: Record<string, unknown>): unknown {
  return (resp.error as { code?: unknown } | undefined)?.code;
}

const unknownMethod: Check = {
  id: 'jsonrpc.unknown-method',
  title: 'an unknown method gets error -32601 and the connection stays usable',
  source: 'JSON-RPC 2.0 section 5.1; protocol/extensibility',
  level: 'mandatory',
  async run(ctx) {
    const conn = ctx.start();
    let resp: Record<string, unknown>;
    try {
      await initialize(conn, ctx);
      resp = await conn.request('conformance/no_such_method', { probe: true }, ctx.timeouts.request);
      if (errorCode(resp) !== -32601)
        fail(`expected error -32601, got ${clip(JSON.stringify(resp.error ?? { result: resp.result }))}`);
      await newSession(conn, ctx);
    } finally {
      await finish(conn, ctx);
    }
    return `-32601 ${clip(JSON.stringify((resp.error as { message?: unknown }).message), 60)}; session/new worked afterwards`;
  },
};

/** Requests whose params break the schema on purpose. */
const BAD_PARAMS: { method: string; params: unknown; why: string }[] = [
  {
    method: 'session/new',
    params: { cwd: 42, mcpServers: 'none' },
    why: 'cwd is a number, mcpServers a string',
  },
  { method: 'session/prompt', params: { sessionId: 'conformance-session' }, why: 'prompt is missing' },
];

const invalidParams: Check = {
  id: 'jsonrpc.invalid-params',
  title: 'a request with params that break the schema gets error -32602',
  source: 'JSON-RPC 2.0 section 5.1; schema $defs/NewSessionRequest, PromptRequest',
  level: 'advisory',
  async run(ctx) {
    const conn = ctx.start();
    const problems: string[] = [];
    try {
      await initialize(conn, ctx);
      for (const bad of BAD_PARAMS) {
        const resp = await conn.request(bad.method, bad.params, ctx.timeouts.request);
        if (errorCode(resp) !== -32602) {
          problems.push(
            `${bad.method} (${bad.why}): expected error -32602, got ${clip(JSON.stringify(resp.error ?? { result: resp.result }), 120)}`,
          );
        }
      }
    } finally {
      await finish(conn, ctx);
    }
    if (problems.length) fail(problems.join('; '));
    return BAD_PARAMS.map((b) => `${b.method}: -32602`).join(', ');
  },
};

const extRequest: Check = {
  id: 'ext.request',
  title: 'a `_`-prefixed extension request is answered (a result, or an error such as -32601)',
  source: 'protocol/extensibility (custom requests must be answered)',
  level: 'mandatory',
  async run(ctx) {
    const conn = ctx.start();
    let resp: Record<string, unknown>;
    try {
      await initialize(conn, ctx);
      resp = await conn
        .request('_conformance/ping', { probe: true }, ctx.timeouts.request)
        .catch((e: Error) => fail(e.message));
      if ('error' in resp) {
        const p = checkDef('Error', resp.error);
        if (p) fail(`the error ${p}`);
      }
    } finally {
      await finish(conn, ctx);
    }
    return 'error' in resp ? `answered with error ${String(errorCode(resp))}` : 'answered with a result';
  },
};

const extNotification: Check = {
  id: 'ext.notification',
  title: 'a `_`-prefixed extension notification is ignored: no response, and the agent keeps serving',
  source:
    'protocol/extensibility (unknown notifications are ignored); JSON-RPC 2.0 (notifications get no response)',
  level: 'mandatory',
  async run(ctx) {
    const conn = ctx.start();
    try {
      await initialize(conn, ctx);
      conn.notify('_conformance/notice', { probe: true });
      conn.notify('conformance/unknown_notification', { probe: true });
      await newSession(conn, ctx);
    } finally {
      await finish(conn, ctx);
    }
    // A notification has no id, so any answer to it carries id null or none.
    const stray = conn.inbound.filter(
      (i) => i.msg && !('method' in i.msg) && (i.msg.id === null || !('id' in i.msg)),
    );
    if (stray.length > 0) fail(`the agent answered a notification: ${clip(stray[0]!.raw)}`);
    return 'no response to the notifications; session/new worked afterwards';
  },
};

/** Error and extensibility checks. */
export const errorChecks: Check[] = [unknownMethod, invalidParams, extRequest, extNotification];
