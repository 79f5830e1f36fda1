import { expect, test } from '@playwright/test';
import { defineAcpConfig } from './config.js';
import { applyRules, checkRules } from './profile.js';

const update = (kind: string, n: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId: 's', update: { sessionUpdate: kind, n } },
  });
const response = JSON.stringify({ jsonrpc: '2.0', id: 3, result: { stopReason: 'end_turn' } });

test('anytime updates move after the other lines, so where they came on the wire is not compared', () => {
  const early = [update('available_commands_update', 1), update('agent_message_chunk', 1), response];
  const late = [update('agent_message_chunk', 1), response, update('available_commands_update', 1)];
  const rules = { anytimeUpdates: ['available_commands_update'] };
  expect(applyRules(early, rules)).toEqual(applyRules(late, rules));
  expect(applyRules(early, rules)).toEqual([
    update('agent_message_chunk', 1),
    response,
    update('available_commands_update', 1),
  ]);
  // Without the rule the order is compared as written.
  expect(applyRules(early, {})).not.toEqual(applyRules(late, {}));
});

test('anytime updates that race one another compare equal in either order', () => {
  const rules = {
    anytimeUpdates: ['available_commands_update', 'session_info_update'],
    paths: ['/params/update/n'],
  };
  const titleFirst = [response, update('session_info_update', 2), update('available_commands_update', 1)];
  const commandsFirst = [update('available_commands_update', 3), response, update('session_info_update', 4)];
  expect(applyRules(titleFirst, rules)).toEqual(applyRules(commandsFirst, rules));
  // Sorted as normalized: the volatile field does not decide the order.
  expect(applyRules(titleFirst, rules).map((l) => JSON.parse(l).params?.update?.sessionUpdate)).toEqual([
    undefined,
    'available_commands_update',
    'session_info_update',
  ]);
});

test('a bad pattern names its index and the text', () => {
  expect(() => applyRules([response], { patterns: [{ pattern: '(', placeholder: 'x' }] })).toThrow(
    'agent profile normalize.patterns[0]: not a regular expression: "("',
  );
});

test('one rule spelling: a JSON Pointer or a pattern, and a placeholder, in a profile as in model.ids', () => {
  const message = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    result: { agentInfo: { version: '1.2.3' }, key: 'k-9' },
  });
  expect(
    applyRules([message], {
      paths: ['/result/agentInfo/version', { path: '/result/key', placeholder: '{{cacheKey}}' }],
    }),
  ).toEqual([
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      result: { agentInfo: { version: '{{volatile}}' }, key: '{{cacheKey}}' },
    }),
  ]);
  // The same rules are model.ids rules.
  expect(() =>
    checkRules(
      [
        { path: '/metadata/user_id', placeholder: '{{userId}}' },
        { path: '/input/*/id', placeholder: '{{itemId}}' },
        { pattern: 'inst-[0-9a-f]{8}', placeholder: '{{installation}}' },
      ],
      'model.ids',
      { name: true },
    ),
  ).not.toThrow();
});

test('the other spelling is refused, naming the field and the rule to write', () => {
  const ids = (rules: unknown[]) => () => checkRules(rules, 'model.ids', { name: true });
  expect(
    ids([
      { path: '/a', placeholder: '{{a}}' },
      { path: 'metadata.user_id', name: 'userId' },
    ]),
  ).toThrow(
    'model.ids[1]: "name" is not the rule spelling; write { path: "/metadata/user_id", placeholder: "{{userId}}" } (a JSON Pointer and a placeholder, as every normalization rule is written)',
  );
  expect(ids([{ path: 'input[*].id', placeholder: '{{itemId}}' }])).toThrow(
    'model.ids[0]: the dotted path "input[*].id" is not the rule spelling; write { path: "/input/*/id", placeholder: "{{itemId}}" }',
  );
  expect(ids([{ pattern: 'inst-\\d+', name: 'installation' }])).toThrow(
    'model.ids[0]: "name" is not the rule spelling; write { pattern: "inst-\\\\d+", placeholder: "{{installation}}" }',
  );
  expect(ids([{ path: '/a' }])).toThrow(
    'model.ids[0]: no placeholder; write { path: "/a", placeholder: "{{name}}" }',
  );
  expect(ids([{ path: '/a', placeholder: 'userId' }])).toThrow(
    'model.ids[0].placeholder: "userId" is not one {{name}}; write { path: "/a", placeholder: "{{name}}" }, e.g. "{{userId}}"',
  );
  // In the config the 0.x series reads the earlier spelling, as the one spelling (old-rule-spelling.test.ts);
  // a rule that is wrong in either spelling still stops the run before any agent starts.
  const config = defineAcpConfig({
    agents: { a: { command: ['a'], normalize: { patterns: [{ pattern: 'x', name: 'x' } as never] } } },
  });
  expect(config.projects?.[0]?.use?.agentProfile?.normalize).toEqual({
    patterns: [{ pattern: 'x', placeholder: '{{x}}' }],
  });
  expect(() =>
    defineAcpConfig({
      agents: { a: { command: ['a'] } },
      model: { kind: 'http', ids: [{ path: 'metadata.user_id', placeholder: 'userId' }] },
    }),
  ).toThrow(
    'defineAcpConfig: model.ids[0].placeholder: "userId" is not one {{name}}; write { path: "/metadata/user_id", placeholder: "{{name}}" }',
  );
  expect(() => applyRules([], { paths: ['result.agentInfo.version'] })).toThrow(
    'agent profile normalize.paths[0]: the dotted path "result.agentInfo.version" is not the rule spelling; write { path: "/result/agentInfo/version", placeholder: "{{volatile}}" }',
  );
});

test('a permission request racing its tool call updates compares equal either side of them, and only then', () => {
  const call = (status?: string, extra: object = {}) =>
    JSON.stringify({
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: 's',
        update: { sessionUpdate: 'tool_call_update', toolCallId: 't1', ...(status && { status }), ...extra },
      },
    });
  const ask = JSON.stringify({
    jsonrpc: '2.0',
    id: 3,
    method: 'session/request_permission',
    params: { sessionId: 's', toolCall: { toolCallId: 't1' }, options: [] },
  });
  const started = JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 't1', status: 'pending' } },
  });
  // As claude-agent-acp wrote them in two recordings: the input's update before the request, or after it.
  const inputFirst = [
    started,
    call(undefined, { title: 'Write' }),
    call(undefined, { rawInput: { a: 1 } }),
    ask,
    call('completed'),
  ];
  const askFirst = [
    started,
    call(undefined, { title: 'Write' }),
    ask,
    call(undefined, { rawInput: { a: 1 } }),
    call('completed'),
  ];
  const rules = { racingPermissionRequests: true };
  expect(applyRules(inputFirst, rules)).toEqual(applyRules(askFirst, rules));
  expect(applyRules(askFirst, rules)[1]).toBe(ask);
  // A request after the call's completion, or another call's update, keeps its place.
  const afterDone = [started, call('completed'), ask];
  expect(applyRules(afterDone, rules)).toEqual(afterDone);
  const other = call(undefined, { toolCallId: 't2' }).replace(
    '"toolCallId":"t1","toolCallId":"t2"',
    '"toolCallId":"t2"',
  );
  expect(applyRules([started, other, ask], rules)).toEqual([started, other, ask]);
  // Without the rule the order is compared as written.
  expect(applyRules(inputFirst, {})).not.toEqual(applyRules(askFirst, {}));
});
