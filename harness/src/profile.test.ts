import { expect, test } from '@playwright/test';
import { applyRules } from './profile.js';

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
