// Scenario steps in the report point at their own line of input.json.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { scenarioStepLocations } from './step-location.js';

test('each driver step is located at its "op" line; nested steps at their step', () => {
  const input = join(mkdtempSync(join(tmpdir(), 'acp-steploc-')), 'input.json');
  writeFileSync(
    input,
    [
      '{',
      '  "description": "two prompts",',
      '  "steps": [',
      '    { "op": "initialize" },',
      '    { "op": "new_session" },',
      '    {',
      '      "op": "prompt",',
      '      "text": "Read /tmp/x/op.txt"',
      '    }',
      '  ]',
      '}',
    ].join('\n'),
  );
  const locate = scenarioStepLocations(input);
  expect(locate('spawn agent')).toEqual({ file: input, line: 1, column: 1 });
  expect(locate('step 1 (initialize)')).toEqual({ file: input, line: 4, column: 1 });
  expect(locate('step 3 (prompt "Read /tmp/x/op.txt")')).toEqual({ file: input, line: 7, column: 1 });
  expect(locate('agent: "Done."')).toEqual({ file: input, line: 7, column: 1 });
  expect(locate('step 2 (new_session)').line).toBe(5);
  // A step the file does not have (a driver-added restart) keeps to line 1, never a wrong line.
  expect(locate('step 9 (restart)').line).toBe(1);
});

test('a missing input.json gives line 1, not a throw', () => {
  const locate = scenarioStepLocations('/nonexistent/acp-steploc/input.json');
  expect(locate('step 1 (initialize)')).toEqual({
    file: '/nonexistent/acp-steploc/input.json',
    line: 1,
    column: 1,
  });
});
