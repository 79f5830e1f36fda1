import { expect, test } from '@playwright/test';
import { applyRules } from './profile.js';

const update = (kind: string, n: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId: 's', update: { sessionUpdate: kind, n } },
  });
const response = JSON.stringify({ jsonrpc: '2.0', id: 3, result: { stopReason: 'end_turn' } });

test('anytime updates move after the other lines in arrival order, so where they came on the wire is not compared', () => {
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

test('two anytime kinds that race each other compare equal in either order; each keeps its own order', () => {
  const rules = { anytimeUpdates: ['available_commands_update', 'session_info_update'] };
  const a = [
    response,
    update('available_commands_update', 1),
    update('session_info_update', 1),
    update('available_commands_update', 2),
  ];
  const b = [
    update('session_info_update', 1),
    response,
    update('available_commands_update', 1),
    update('available_commands_update', 2),
  ];
  expect(applyRules(a, rules)).toEqual(applyRules(b, rules));
  expect(applyRules(a, rules)).toEqual([
    response,
    update('available_commands_update', 1),
    update('available_commands_update', 2),
    update('session_info_update', 1),
  ]);
  // Within a kind the order is still compared.
  const swapped = [response, update('available_commands_update', 2), update('available_commands_update', 1)];
  expect(applyRules(swapped, rules)).not.toEqual(applyRules(a.slice(0, 2).concat(a[3]!), rules));
});

test('a bad pattern names its index and the text', () => {
  expect(() => applyRules([response], { patterns: [{ pattern: '(', placeholder: 'x' }] })).toThrow(
    'agent profile normalize.patterns[0]: not a regular expression: "("',
  );
});
