/**
 * The agent's ACP v2 side, beside v1 (acp-server.ts) through the SDK's protocol router: the same sessions
 * and turns, spoken in v2. The session/prompt response acknowledges with the user message's id and the turn
 * runs after it, ending with the idle state update and its stop reason; message chunks carry the id of the
 * message they belong to; a tool call is created by its first tool_call_update; plans are plan_update; a
 * permission request names its tool call as its subject; history comes back through session/resume with
 * `replayFrom: {type: "start"}` (as upserts, one per message). v2 has no client fs (files are read and
 * written here) and no session modes (the mode stays a config option).
 */
import { isAbsolute } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import * as acp2 from '@agentclientprotocol/sdk/experimental/v2';
import type { AcpAgent } from './acp-server.js';
import { localFileAccess } from './file-access.js';
import type { IdGenerator } from './seams.js';
import type { SessionClient } from './turn-context.js';

/** The v2 app over the same agent. */
/** The v2 app over the same agent; message ids come from the agent's id seam (counters in tests). */
export function v2App(agent: AcpAgent, info: acp2.Implementation, ids: IdGenerator): acp2.AgentApp {
  const newClient = (client: acp2.AgentContext) => (id: string) => new V2SessionClient(client, id, ids);
  return acp2
    .agent({ name: info.name })
    .onRequest('initialize', () => ({
      protocolVersion: 2,
      info,
      capabilities: {
        session: { prompt: { embeddedContext: {} }, delete: {} },
      },
    }))
    .onRequest('session/new', async ({ params, client }) => {
      agent.ignoreMcpServers(params.mcpServers?.length ?? 0);
      const session = await agent.newSession(absolute(params.cwd), newClient(client));
      return { sessionId: session.id, configOptions: v2ConfigOptions(session.settings.configOptions()) };
    })
    .onRequest('session/resume', async ({ params, client }) => {
      agent.ignoreMcpServers(params.mcpServers?.length ?? 0);
      const replay = params.replayFrom?.type === 'start';
      const session = await agent.reopen(
        params.sessionId,
        absolute(params.cwd),
        newClient(client),
        replay ? 'session/load' : 'session/resume',
      );
      // v2: the current state after any replay and before the response (nothing runs in a reopened session).
      await (session.client as V2SessionClient).state({ state: 'idle' });
      return { configOptions: v2ConfigOptions(session.settings.configOptions()) };
    })
    .onRequest('session/prompt', ({ params }) => {
      const session = agent.live(params.sessionId);
      const messageId = ids.next('msg');
      const client = session.client as V2SessionClient;
      // Acknowledged now; the turn runs behind the response and ends with the idle state update. The user
      // message is echoed first with the acknowledged id: v2 clients render it from that update.
      setImmediate(() => {
        void (async () => {
          await client.userMessage(messageId, params.prompt);
          await client.state({ state: 'running' });
          let stopReason: string;
          try {
            stopReason = await session.prompt(params.prompt as acp.ContentBlock[]);
          } catch (e) {
            stopReason = 'error';
            agent.log(`session ${session.id}: the turn failed: ${(e as Error).message}`);
          }
          client.endMessage();
          await client.state({ state: 'idle', stopReason } as acp2.StateUpdate);
        })();
      });
      return { messageId };
    })
    .onNotification('session/cancel', ({ params }) => {
      agent.find(params.sessionId)?.cancel();
    })
    .onRequest('session/list', ({ params }) => agent.list(params))
    .onRequest('session/close', ({ params }) => agent.closeSession(params.sessionId))
    .onRequest('session/delete', ({ params }) => agent.deleteSession(params.sessionId));
}

/** v1's config options in v2's shape: an option's `id` is its `configId`, a select group's `group` its `groupId`. */
function v2ConfigOptions(options: readonly acp.SessionConfigOption[]): acp2.SessionConfigOption[] {
  return options.map((o) => {
    const { id, ...rest } = o as acp.SessionConfigOption & { id: string; options?: unknown[] };
    const choices = Array.isArray(rest.options)
      ? rest.options.map((c) => {
          if (!c || typeof c !== 'object' || !('group' in c)) return c;
          const { group, ...g } = c as { group: string };
          return { ...g, groupId: group };
        })
      : rest.options;
    return { ...rest, configId: id, ...(choices !== undefined && { options: choices }) } as never;
  });
}

/**
 * A tool call's content in v2's shape: a v1 diff (`path`, `oldText`, `newText`) is a structured change (`add`
 * for a new file, else `modify`); text and terminal content pass as they are.
 */
function v2ToolCallContent(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  return content.map((c: { type?: string; path?: string; oldText?: string | null }) =>
    c?.type === 'diff'
      ? {
          type: 'diff',
          changes: [{ operation: c.oldText == null ? 'add' : 'modify', path: c.path, fileType: 'text' }],
        }
      : c,
  );
}

/** A v1 tool call (or its update) as a v2 tool_call_update patch. */
function v2ToolCall(u: Record<string, unknown>): Record<string, unknown> {
  return 'content' in u ? { ...u, content: v2ToolCallContent(u.content) } : u;
}

function absolute(cwd: string): string {
  if (!isAbsolute(cwd))
    throw acp2.RequestError.invalidParams({ cwd }, `cwd must be an absolute path, got "${cwd}"`);
  return cwd;
}

const CHUNK_ROLE: Record<string, string> = {
  agent_message_chunk: 'agent',
  agent_thought_chunk: 'thought',
  user_message_chunk: 'user',
};
/** A replayed message is one upsert: v1's chunk kinds as v2's message kinds. */
const UPSERT_OF: Record<string, string> = {
  agent_message_chunk: 'agent_message',
  agent_thought_chunk: 'agent_thought',
  user_message_chunk: 'user_message',
};

/**
 * A session's client on v2: the session speaks v1 updates; each becomes its v2 form. A run of chunks of
 * one kind is one message (one messageId); anything else in between starts the next one.
 */
class V2SessionClient implements SessionClient {
  readonly fs = localFileAccess;
  private message: { kind: string; id: string } | undefined;
  /** Set while the session replays history (before any turn): messages are whole, sent as upserts. */
  private replaying = true;

  constructor(
    private readonly client: acp2.AgentContext,
    private readonly sessionId: string,
    private readonly ids: IdGenerator,
  ) {}

  async update(update: acp.SessionUpdate): Promise<void> {
    const u = update as Record<string, unknown> & { sessionUpdate: string };
    const role = CHUNK_ROLE[u.sessionUpdate];
    if (role) {
      if (this.message?.kind !== u.sessionUpdate)
        this.message = { kind: u.sessionUpdate, id: this.ids.next('msg') };
      const { id } = this.message;
      if (this.replaying) {
        this.message = undefined;
        return this.send({ sessionUpdate: UPSERT_OF[u.sessionUpdate], messageId: id, content: [u.content] });
      }
      return this.send({ ...u, messageId: id });
    }
    this.message = undefined;
    if (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update')
      return this.send(v2ToolCall({ ...u, sessionUpdate: 'tool_call_update' }));
    if (u.sessionUpdate === 'config_option_update')
      return this.send({
        ...u,
        configOptions: v2ConfigOptions(u.configOptions as acp.SessionConfigOption[]),
      });
    if (u.sessionUpdate === 'plan')
      return this.send({
        sessionUpdate: 'plan_update',
        plan: { type: 'items', planId: this.sessionId, entries: u.entries },
      });
    // v2 has no modes: the mode is announced by its config option.
    if (u.sessionUpdate === 'current_mode_update') return;
    return this.send(u);
  }

  async requestPermission(
    request: Omit<acp.RequestPermissionRequest, 'sessionId'>,
  ): Promise<acp.RequestPermissionResponse> {
    this.message = undefined;
    await this.state({ state: 'requires_action' });
    const r = await this.client.request('session/request_permission', {
      sessionId: this.sessionId,
      title: request.toolCall.title ?? request.toolCall.toolCallId,
      subject: { type: 'tool_call', toolCall: v2ToolCall(request.toolCall) as acp2.ToolCallUpdate },
      options: request.options as acp2.PermissionOption[],
    });
    await this.state({ state: 'running' });
    return r as acp.RequestPermissionResponse;
  }

  /** A state update (running, requires_action, idle with its stop reason); the first one ends the replay. */
  state(update: acp2.StateUpdate): Promise<void> {
    this.replaying = false;
    return this.send({ sessionUpdate: 'state_update', ...update });
  }

  /** The prompt's user message, whole, under the id its acknowledgement gave. */
  userMessage(messageId: string, content: unknown): Promise<void> {
    this.replaying = false;
    this.message = undefined;
    return this.send({ sessionUpdate: 'user_message', messageId, content });
  }

  /** The turn ended: its next chunk starts a new message. */
  endMessage(): void {
    this.message = undefined;
  }

  private send(update: Record<string, unknown>): Promise<void> {
    // Best effort, as on v1: the client may be gone while a cancelled turn winds down; the log is the record.
    return this.client
      .notify('session/update', { sessionId: this.sessionId, update: update as acp2.SessionUpdate })
      .catch(() => {});
  }
}
