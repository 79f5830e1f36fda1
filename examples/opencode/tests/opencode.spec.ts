// OpenCode through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/opencode.spec.ts/opencode/<test>/exchanges.jsonl), its output is compared with the snapshots
// beside it.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, starterSuite, test } from '@acp-snapshot/playwright';

// The package's starter tests: no model, a plain answer, a tool call, a multi-turn conversation, a cancelled turn.
starterSuite({
  loadSession: true,
  sessionId: /^ses_/,
  // The stand-in quotes the cwd, and the date from OpenCode's system prompt.
  scripted: { date: /as of [A-Z][a-z]{2} [A-Z][a-z]{2} \d{2} \d{4}\./ },
  // OpenCode asks before it writes (the profile's `permission.edit: "ask"`), naming the file by its absolute path.
  permissions: (cwd) => [`${cwd}/notes.txt`],
});

test('quirk: only the harness model is offered, and message ids are random', async ({ acp, roots }) => {
  await acp.initialize();
  const session = await acp.newSession();
  // Without `enabled_providers` the model list holds the OpenCode Zen models of the catalogue bundled with each
  // version; the profile keeps only its own provider, pointed at the harness's model server.
  const model = session.configOptions?.find((o) => o.id === 'model');
  expect(model && 'options' in model ? model.options : undefined).toEqual([
    { value: 'replay/qwen3-coder-plus', name: 'replay/qwen3-coder-plus' },
  ]);
  const turn = await acp.prompt('Say hello in Chinese.');
  expect(turn.stopReason).toBe('end_turn');
  await acp.close();
  // Every chunk carries the message's id, a clock then random characters: the profile replaces it.
  const ids = new Set(
    acp.stdout
      .map(
        (l) => JSON.parse(l.text) as { params?: { update?: { sessionUpdate?: string; messageId?: string } } },
      )
      .filter((m) => m.params?.update?.sessionUpdate === 'agent_message_chunk')
      .map((m) => m.params?.update?.messageId),
  );
  expect([...ids]).toEqual([expect.stringMatching(/^msg_[0-9a-f]{12}[0-9A-Za-z]{14}$/)]);
  // At each start OpenCode installs its plugin SDK from the npm registry into its config directory unless the
  // profile's lockfile says it is there: a replay must reach no network, so no npm cache and no package.
  expect(existsSync(join(roots.home, '.npm')), "an npm cache in the agent's HOME").toBe(false);
  expect(readdirSync(join(roots.home, '.config/opencode/node_modules'))).toEqual(['.package-lock.json']);
  // Compiled with Bun, OpenCode unpacks a native library (5.6 MB) at each start where BUN_TMPDIR says: the
  // harness points it beside the test's root, and it goes with the test instead of piling up in the machine's /tmp.
  expect(readdirSync(roots.tmp).filter((f) => f.endsWith('.so'))).toHaveLength(1);
  await expect(acp).toMatchAcpSnapshot();
});
