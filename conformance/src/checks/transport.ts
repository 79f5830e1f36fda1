/** Transport and JSON-RPC framing checks (ACP v1 transports: newline-delimited JSON-RPC 2.0 over stdio). */
import { type Check, type CheckContext, fail, failIf } from '../check.js';
import { finish, initialize, initializeParams, newSession, promptTurn, resultOf } from '../exchange.js';
import {
  framingProblems,
  idProblems,
  responseShapeProblems,
  schemaProblems,
  sentRequests,
} from '../jsonrpc.js';
import type { AgentConnection } from '../wire.js';

const STRING_ID = 'conformance-string-id';

/**
 * An ordinary session: initialize (integer id), session/new (string id), one prompt turn (permissions
 * allowed), one unknown method (an error response), then stdin closed and the exit awaited.
 */
async function basicExchange(ctx: CheckContext): Promise<{ conn: AgentConnection; error?: unknown }> {
  const conn = ctx.start();
  let error: unknown;
  try {
    await initialize(conn, ctx);
    const sessionId = await newSession(conn, ctx, STRING_ID);
    await promptTurn(conn, ctx, sessionId, 'Say hello in one short sentence.');
    await conn.request('conformance/no_such_method', {}, ctx.timeouts.request);
  } catch (e) {
    // The transcript is judged first: a broken exchange is usually explained by a framing or id problem.
    error = e;
  }
  await finish(conn, ctx);
  return { conn, error };
}

const ndjson: Check = {
  id: 'transport.ndjson',
  title: 'stdout carries only newline-delimited JSON-RPC 2.0 messages (valid UTF-8, one per line)',
  source: 'protocol/transports (stdio); JSON-RPC 2.0',
  level: 'mandatory',
  turns: ['simple'],
  async run(ctx) {
    const { conn, error } = await basicExchange(ctx);
    failIf(framingProblems(conn));
    if (error) throw error;
    return `${conn.inbound.length} stdout lines, all JSON-RPC 2.0`;
  },
};

const idEcho: Check = {
  id: 'jsonrpc.id-echo',
  title: 'every response echoes its request id exactly (integer and string ids), once',
  source: 'JSON-RPC 2.0 section 5; protocol/overview',
  level: 'mandatory',
  turns: ['simple'],
  async run(ctx) {
    const { conn, error } = await basicExchange(ctx);
    const ids = [...sentRequests(conn).keys()];
    failIf(idProblems(conn, true));
    if (error) throw error;
    return `ids ${ids.join(', ')} echoed exactly`;
  },
};

const resultXorError: Check = {
  id: 'jsonrpc.result-xor-error',
  title: 'every response has exactly one of result / error; errors have an integer code and a string message',
  source: 'JSON-RPC 2.0 section 5; schema $defs/Error',
  level: 'mandatory',
  turns: ['simple'],
  async run(ctx) {
    const { conn, error } = await basicExchange(ctx);
    failIf(responseShapeProblems(conn));
    if (error) throw error;
    return 'all responses well-formed';
  },
};

const schema: Check = {
  id: 'schema.messages',
  title:
    'every agent message validates against the SDK schema (responses per method, updates, permission requests)',
  source: '@agentclientprotocol/sdk schema/v1/schema.json',
  level: 'mandatory',
  turns: ['permission'],
  async run(ctx) {
    const conn = ctx.start();
    try {
      await initialize(conn, ctx);
      const sessionId = await newSession(conn, ctx);
      await promptTurn(conn, ctx, sessionId, 'Create a file named conformance.txt containing the word ok.');
      await conn.request('conformance/no_such_method', {}, ctx.timeouts.request);
    } finally {
      await finish(conn, ctx);
    }
    failIf(schemaProblems(conn));
    const n = conn.messages.length;
    const perms = conn.messages.filter((m) => m.method === 'session/request_permission').length;
    return `${n} messages valid (${perms} permission request${perms === 1 ? '' : 's'})`;
  },
};

const parseError: Check = {
  id: 'jsonrpc.parse-error',
  title: 'a line that is not JSON gets error -32700 with id null, and the connection stays usable',
  source: 'JSON-RPC 2.0 section 5.1',
  level: 'advisory',
  async run(ctx) {
    const conn = ctx.start();
    try {
      conn.send('{"jsonrpc": "2.0", "id": 99, "method": "initialize", this is not json');
      const err = await conn
        .waitFor(
          (m) => 'id' in m && !('method' in m) && (m.id === null || m.id === 99),
          'an error response to the malformed line',
          ctx.timeouts.request,
        )
        .catch((e: Error) => fail(e.message));
      const code = (err.error as { code?: unknown } | undefined)?.code;
      if (err.id !== null || code !== -32700) {
        fail(`expected {"id": null, "error": {"code": -32700}}, got ${JSON.stringify(err)}`);
      }
      resultOf(
        await conn.request('initialize', initializeParams(conn), ctx.timeouts.request),
        'initialize after the parse error',
      );
    } finally {
      await finish(conn, ctx);
    }
    return 'parse error -32700 with id null; initialize succeeded afterwards';
  },
};

const exitOnStdinClose: Check = {
  id: 'lifecycle.exit-on-stdin-close',
  title: 'the agent exits on its own when its stdin closes',
  source: 'protocol/transports (stdio: the client closes the connection by closing stdin)',
  level: 'advisory',
  async run(ctx) {
    const conn = ctx.start();
    await initialize(conn, ctx);
    await newSession(conn, ctx);
    const { exitedOnItsOwn, exit } = await conn.shutdown(ctx.timeouts.exit);
    if (!exitedOnItsOwn) fail(`still running ${ctx.timeouts.exit} ms after stdin closed (killed)`);
    return `exited with ${exit.signal ?? `code ${exit.code}`}`;
  },
};

/** Transport-level checks. */
export const transportChecks: Check[] = [
  ndjson,
  idEcho,
  resultXorError,
  schema,
  parseError,
  exitOnStdinClose,
];
