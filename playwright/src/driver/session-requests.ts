/**
 * The session-surface steps of a scenario (`resume_session`, `list_sessions`, `close_session`,
 * `delete_session`, `set_mode`, `set_config_option`): one request each (a list follows its cursor), the
 * response checked against the step's `expectError`.
 */
import * as acp from '@agentclientprotocol/sdk';
import type { Step } from '../scenario/input.js';
import type { AcpClient } from './acp-client.js';

/** A step this module runs. */
export type SessionRequestStep = Extract<
  Step,
  {
    op:
      | 'resume_session'
      | 'list_sessions'
      | 'close_session'
      | 'delete_session'
      | 'set_mode'
      | 'set_config_option';
  }
>;

/** What a session request needs from the driver. */
export interface SessionRequestContext {
  /** The client, inside the step the driver opened (its requests are part of it). */
  client: AcpClient;
  /** Scenario expectations that did not hold. */
  problems: string[];
  /** The step's title, for messages. */
  title: string;
  /** The id of scenario session `n` (default 1). */
  sessionId: (n?: number) => string;
}

/** How many `session/list` pages one step follows before it gives up on an agent whose cursor never ends. */
export const MAX_LIST_PAGES = 100;

/** Sends the step's request and checks its response against the step's expectation. */
export function runSessionRequest(s: SessionRequestStep, ctx: SessionRequestContext): Promise<void> {
  const { client } = ctx;
  switch (s.op) {
    case 'resume_session':
      // In the cwd the session was created in.
      return expect(s, ctx, client.resumeSession(ctx.sessionId(s.session)));
    case 'list_sessions':
      return expect(s, ctx, listAllPages(s.cwd, ctx));
    case 'close_session':
      return expect(s, ctx, client.closeSession(ctx.sessionId(s.session)));
    case 'delete_session':
      return expect(s, ctx, client.deleteSession(ctx.sessionId(s.session)));
    case 'set_mode':
      return expect(s, ctx, client.setMode(s.modeId, ctx.sessionId(s.session)));
    case 'set_config_option':
      return expect(s, ctx, client.setConfigOption(s.configId, s.value, ctx.sessionId(s.session)));
  }
}

/** Every page of `session/list`, following nextCursor; resolves to a line saying how many sessions it listed. */
async function listAllPages(cwd: string | undefined, ctx: SessionRequestContext): Promise<string> {
  let cursor: string | undefined;
  let count = 0;
  for (let page = 1; ; page++) {
    const r = await ctx.client.listSessions({ ...(cwd ? { cwd } : {}), ...(cursor ? { cursor } : {}) });
    count += r.sessions.length;
    if (!r.nextCursor) return `${count} session(s) in ${page} page(s)`;
    if (page === MAX_LIST_PAGES) {
      ctx.problems.push(
        `${ctx.title}: session/list still had a nextCursor after ${MAX_LIST_PAGES} pages (${count} sessions); an agent's cursor must end`,
      );
      return `${count} session(s), stopped after ${MAX_LIST_PAGES} pages`;
    }
    cursor = r.nextCursor;
  }
}

/**
 * Awaits a response: a result, or with `expectError` a JSON-RPC error containing that text. What did not
 * match is a problem; an error nobody expected ends the run like any other step's.
 */
async function expect(
  s: { expectError?: string | undefined },
  ctx: SessionRequestContext,
  pending: Promise<unknown>,
): Promise<void> {
  pending.catch(() => {});
  try {
    const r = await pending;
    ctx.client.note(`→ ${typeof r === 'string' ? r : 'ok'}`);
    if (s.expectError !== undefined) {
      ctx.problems.push(
        `${ctx.title}: expected a JSON-RPC error containing ${JSON.stringify(s.expectError)}, got a result`,
      );
    }
  } catch (e) {
    if (!(e instanceof acp.RequestError) || s.expectError === undefined) throw e;
    ctx.client.note(`→ JSON-RPC error ${e.code}: ${e.message.slice(0, 80)}`);
    if (!e.message.includes(s.expectError)) {
      ctx.problems.push(
        `${ctx.title}: expected a JSON-RPC error containing ${JSON.stringify(s.expectError)}, got error ${e.code}: ${e.message}`,
      );
    }
  }
}
