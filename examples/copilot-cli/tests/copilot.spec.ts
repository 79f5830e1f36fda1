// GitHub Copilot CLI through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/copilot.spec.ts/copilot/<test>/exchanges.jsonl), its output is compared with the snapshots
// beside it.
import { expect, starterSuite, test } from '@acp-snapshot/playwright';

// The package's starter tests: no model, a plain answer, a tool call, a multi-turn conversation, a cancelled turn.
starterSuite({
  loadSession: true,
  // The stand-in quotes the cwd, and the date from the time Copilot puts before the prompt.
  scripted: { date: /as of \d{4}-\d{2}-\d{2}\./ },
  // Copilot asks before it creates the file (it asks by default; the profile refuses COPILOT_ALLOW_ALL).
  permissions: () => ['Create file'],
});

test('quirk: no GitHub login in its provider mode, and the session title comes with the time it was set', async ({
  acp,
}) => {
  const init = await acp.initialize();
  // It offers a GitHub login, which a session in provider mode never needs.
  expect(init.authMethods?.map((m) => m.id)).toEqual(['copilot-login']);
  await acp.newSession();
  const turn = await acp.prompt('Say hello in Chinese.');
  expect(turn.stopReason).toBe('end_turn');
  expect(turn.text).toContain('你好 👋');
  await acp.close();
  // The title is the first prompt, set with a clock time: the profile replaces the time.
  const titles = acp.stdout
    .map(
      (l) =>
        JSON.parse(l.text) as {
          params?: { update?: { sessionUpdate?: string; title?: string; updatedAt?: string } };
        },
    )
    .filter((m) => m.params?.update?.sessionUpdate === 'session_info_update')
    .map((m) => [m.params?.update?.title, m.params?.update?.updatedAt]);
  expect(titles).toEqual([['Say hello in Chinese.', expect.stringMatching(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/)]]);
  await expect(acp).toMatchAcpSnapshot();
});
