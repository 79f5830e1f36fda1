/**
 * ACP v2 through the `acp` fixture, against a real agent process that answers v2 and v1 through the SDK's
 * protocol router (testing/agents/v2-agent.mjs), and a v1-only one (the same agent without its v2 side). What
 * a test author observes: the turn's stop reason from the idle state update, the permission answered, the
 * file written, a cancel, history replayed through resume, the wire as sent with its random ids numbered, a
 * downgrade said in the report, a demand for v2 refused naming both versions, malformed v2 named by line.
 */
import { join } from 'node:path';
import { conversation } from '../compare/conversation.js';
import { test as fixtures } from '../fixtures.js';
import { acpSnapshotTexts, expect } from '../matchers.js';
import { REPO_ROOT } from '../scenario/corpus.js';
import { protocolLine } from './protocol-v2.js';

const agentFile = join(REPO_ROOT, 'playwright/src/testing/agents/v2-agent.mjs');
const v2Agent = [process.execPath, agentFile];
const v1Only = [process.execPath, agentFile, 'v1-only'];

fixtures.describe('an agent answering v2', () => {
  fixtures.use({ agentProfile: { command: v2Agent }, protocolVersion: 2 });

  fixtures('prompt ends on idle with its stop reason; the snapshot is the wire as sent', async ({ acp }) => {
    const init = await acp.initialize();
    expect(init.protocolVersion).toBe(2);
    expect(acp.negotiation).toEqual({ asked: 2, version: 2 });
    await acp.newSession();
    const r = await acp.prompt('hello 世界');
    expect(r.stopReason).toBe('end_turn');
    expect(r.text).toBe('You said: hello 世界 👋🏽');
    expect(r.updates.at(-1)).toMatchObject({ sessionUpdate: 'state_update', state: 'idle' });
    expect(await acp.close()).toBe(true);
    const { stdout } = await acpSnapshotTexts(acp);
    const lines = stdout.trimEnd().split('\n');
    // The prompt's response only acknowledges, with a message id numbered like the session's.
    expect(lines).toContain('{"jsonrpc":"2.0","id":"{{id:3}}","result":{"messageId":"{{messageId:1}}"}}');
    // Chunks kept one per line (not merged), the agent's random message id numbered by first appearance.
    const chunks = lines.filter((l) => l.includes('agent_message_chunk'));
    expect(chunks).toHaveLength(3);
    for (const c of chunks) expect(c).toContain('"messageId":"{{messageId:2}}"');
    expect(stdout).toContain('"state":"idle","stopReason":"end_turn"');
    expect(acp.problems).toEqual([]);
  });

  fixtures('a tool call with a permission, a cancel and a resume with replay', async ({ acp, roots }) => {
    await acp.initialize();
    const { sessionId } = await acp.newSession();
    acp.answerPermissions('allow');
    const tool = await acp.prompt('tool notes.txt');
    expect(tool.stopReason).toBe('end_turn');
    expect(tool.text).toBe('Wrote notes.txt.');
    expect(tool.updates.map((u) => u.sessionUpdate)).toContain('tool_call_update');
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(join(roots.cwd, 'notes.txt'), 'utf8')).toBe('written by the v2 agent\n');

    const waiting = acp.promptInFlight('wait');
    await acp.waitForUpdate('agent_message_chunk');
    await acp.cancel();
    expect((await waiting).stopReason).toBe('cancelled');

    await acp.resumeSession(sessionId, { replayFrom: { type: 'start' } });
    expect(await acp.close()).toBe(true);
    const { stdout } = await acpSnapshotTexts(acp);
    // The replay: the two prompts and the two answers as upserts, after the resume request.
    const replayed = stdout.split('\n').filter((l) => /"sessionUpdate":"(user|agent)_message"/.test(l));
    expect(replayed.map((l) => JSON.parse(l).params.update.sessionUpdate)).toEqual([
      'user_message',
      'agent_message',
      'user_message',
      'agent_message',
    ]);
    expect(stdout).toContain('"subject":{"type":"tool_call"');
    expect(acp.problems).toEqual([]);
    // The conversation view merges the replay's upserts into messages and ends each turn at its idle update.
    const view = conversation(
      acp.stdout.map((l) => l.text),
      acp.sent.map((l) => l.text),
    );
    expect(view.filter((b) => b.kind === 'response').map((b) => b.title)).toEqual([
      'stop: end_turn',
      'stop: cancelled',
    ]);
    expect(view.find((b) => b.kind === 'permission')?.title).toBe('permission asked: Write notes.txt');
    // The resume's replay upserts the four messages the turns made: it adds no block, it restates them.
    expect(view.filter((b) => b.kind === 'user' || b.kind === 'agent').map((b) => b.body)).toEqual([
      'tool notes.txt',
      'Wrote notes.txt.',
      'wait',
      'Working…',
    ]);
    // Run again, its ids minted anew, the same conversation matches the committed snapshot of the wire.
    await expect(acp).toMatchAcpSnapshot();
  });

  fixtures('an MCP server in session/new names its stdio transport, as v2 requires', async ({ acp }) => {
    await acp.initialize();
    const server = { name: 'notes', command: process.execPath, args: ['notes.js'], env: [] };
    const { sessionId } = await acp.newSession({ mcpServers: [server] });
    expect(sessionId).toMatch(/^sess_/);
    const sent = acp.sent.find((l) => l.text.includes('"session/new"'));
    expect(JSON.parse(sent!.text).params.mcpServers).toEqual([{ type: 'stdio', ...server }]);
    await acp.close();
  });

  fixtures('malformed v2 fails naming the line and the rule', async ({ acp }) => {
    await acp.initialize();
    await acp.newSession();
    await acp.prompt('broken');
    await acp.close();
    const at = (kind: string) => acp.stdout.findIndex((l) => l.text.includes(kind)) + 1;
    expect(acp.problems).toEqual([
      `stdout line ${at('"text":"no id"')} (agent process 1): ACP v2: a agent_message_chunk must carry its messageId (chunks append to the message it names); the agent sent none`,
      `stdout line ${at('nobody-made-me')} (agent process 1): ACP v2: a agent_message upsert for message "nobody-made-me", which no earlier update created, holds no content (an upsert patches a message; the first one must create it)`,
      expect.stringMatching(
        /^stdout line \d+ \(agent process 1\): ACP v2: a second idle state update for session sess_\S+ with no prompt since the last one/,
      ),
    ]);
  });
});

fixtures.describe('an agent answering 1', () => {
  fixtures.use({ agentProfile: { command: v1Only } });

  fixtures.describe('asked for the highest', () => {
    fixtures.use({ protocolVersion: 'highest' });
    fixtures('continues on v1 and the report says so', async ({ acp }) => {
      const init = await acp.initialize();
      expect(init.protocolVersion).toBe(1);
      expect(acp.negotiation).toEqual({ asked: 'highest', version: 1, agent: 'v2-agent 0.0.1' });
      // The report's `acp protocol` line (the fixture's annotation).
      expect(protocolLine(acp.negotiation!)).toBe(
        "asked for ACP v2 ('highest'); v2-agent 0.0.1 answered 1: this run is ACP v1",
      );
      const { sessionId } = await acp.newSession();
      expect(sessionId).toMatch(/^sess_/);
      expect(await acp.close()).toBe(true);
      // One initialize on the wire, asking for 2; the answer 1.
      expect(acp.sent.filter((l) => l.text.includes('"initialize"'))).toHaveLength(1);
      expect(acp.sent[0]!.text).toContain('"protocolVersion":2');
      expect(acp.stdout[0]!.text).toContain('"protocolVersion":1');
      // The v1 client's requests continue the ids after the v2 initialize's 0, and its answers reach it.
      const requests = acp.sent.map((l) => JSON.parse(l.text) as { id?: unknown; method?: string });
      expect(requests.map((m) => [m.method, m.id])).toEqual([
        ['initialize', 0],
        ['session/new', 1],
      ]);
      const answered = acp.stdout.map((l) => JSON.parse(l.text) as { id?: unknown; method?: string });
      expect(answered.filter((m) => m.method === undefined).map((m) => m.id)).toEqual([0, 1]);
    });
  });

  fixtures.describe('when the test demands v2', () => {
    fixtures.use({ protocolVersion: 2 });
    fixtures('initialize fails naming both versions and how to run v1', async ({ acp }) => {
      await expect(acp.initialize()).rejects.toThrow(
        "initialize: the test asks for ACP protocol version 2 and v2-agent 0.0.1 answered 1; run it on v1 with test.use({ protocolVersion: 1 }) (or 'highest', which continues on the version the agent answers)",
      );
    });
  });
});

const edit = join(REPO_ROOT, 'fixtures/scenarios/edit-allowed');
fixtures.describe('our agent on v2 (through the SDK router), replaying a recording', () => {
  fixtures.use({
    agentProfile: {
      command: [
        process.execPath,
        join(REPO_ROOT, 'agent/dist/main.js'),
        '--overlay',
        join(REPO_ROOT, 'agent/overlays/replay.json'),
      ],
    },
    model: { kind: 'replay', log: join(edit, 'session.jsonl') },
    workspaceSeed: join(edit, 'workspace'),
    protocolVersion: 'highest',
  });

  fixtures('an edit behind a permission, then its history replayed by resume', async ({ acp, roots }) => {
    const init = await acp.initialize();
    expect(acp.negotiation).toEqual({ asked: 'highest', version: 2 });
    expect(init.protocolVersion).toBe(2);
    const { sessionId } = await acp.newSession();
    acp.answerPermissions('allow');
    const turn = await acp.prompt(
      'In greeting.py, make the greeting say "Hello, ACP" instead of "Hello, world".',
    );
    expect(turn.stopReason).toBe('end_turn');
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(join(roots.cwd, 'greeting.py'), 'utf8')).toContain('Hello, ACP');
    await acp.restart();
    await acp.initialize();
    await acp.resumeSession(sessionId, { replayFrom: { type: 'start' } });
    expect(await acp.close()).toBe(true);
    const { stdout } = await acpSnapshotTexts(acp);
    // The second process replays the conversation as whole-message upserts, the tool call by its update.
    const second = stdout
      .split('\n')
      .slice(stdout.split('\n').findLastIndex((l) => l.includes('"protocolVersion":2')));
    expect(second.some((l) => l.includes('"sessionUpdate":"user_message"'))).toBe(true);
    expect(second.some((l) => l.includes('"sessionUpdate":"agent_message"'))).toBe(true);
    expect(stdout).not.toContain('"sessionUpdate":"tool_call"');
    expect(stdout).toContain('"sessionUpdate":"tool_call_update"');
    expect(acp.problems).toEqual([]);
    await expect(acp).toMatchAcpSnapshot();
  });
});
