// Scenario steps in the report point at their own line of input.json.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { scenarioStepLocations } from './step-location.js';

test('each scenario step is located at its "op" line; the spawn and nested steps at the last step', () => {
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
  // The spawn comes before any step.
  expect(locate()).toEqual({ file: input, line: 1, column: 1 });
  expect(locate({ step: 0 })).toEqual({ file: input, line: 4, column: 1 });
  expect(locate({ step: 2 })).toEqual({ file: input, line: 7, column: 1 });
  // A line nested in step 3's exchange ("agent: ...") stays on step 3.
  expect(locate()).toEqual({ file: input, line: 7, column: 1 });
  expect(locate({ step: 1 }).line).toBe(5);
  // A step the file does not have keeps to line 1, never a wrong line.
  expect(locate({ step: 9 }).line).toBe(1);
});

test('a missing input.json gives line 1, not a throw', () => {
  const locate = scenarioStepLocations('/nonexistent/acp-steploc/input.json');
  expect(locate({ step: 0 })).toEqual({ file: '/nonexistent/acp-steploc/input.json', line: 1, column: 1 });
});
