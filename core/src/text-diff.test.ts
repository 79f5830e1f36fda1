import { expect, test } from '@playwright/test';
import { firstHunk, markedWords, unifiedDiff } from './text-diff.js';

const prompt = (word: string) =>
  [
    'You are a careful coding agent working in the user project.',
    '',
    '- Use the tools to inspect files before changing them.',
    `- Make the ${word} change that does what the user asked.`,
    '- Run commands with bash when it helps.',
    '- When you are done, answer briefly.',
    '',
    'Working directory: {{cwd}}',
  ].join('\n');

test('a one-word change shows its line, the line after the change, and the word marked', () => {
  expect(firstHunk(prompt('smallest'), prompt('largest'))).toBe(
    [
      '    @@ recorded line 2, live line 2 @@',
      '     ',
      '     - Use the tools to inspect files before changing them.',
      '    -- Make the smallest change that does what the user asked.',
      '    +- Make the largest change that does what the user asked.',
      '    ~- Make the [-smallest-]{+largest+} change that does what the user asked.',
      '     - Run commands with bash when it helps.',
      '     - When you are done, answer briefly.',
    ].join('\n'),
  );
  expect(firstHunk('same', 'same')).toBe('');
});

test('distant changes are counted, long lines are cut around the change, the full diff has every hunk', () => {
  const a = `${'x\n'.repeat(20)}first\n${'y\n'.repeat(20)}second\n`;
  const b = a.replace('first', 'FIRST').replace('second', 'SECOND');
  expect(firstHunk(a, b)).toContain('(1 more hunk)');
  expect(unifiedDiff(a, b, 'system prompt').match(/^@@/gm)).toHaveLength(2);
  const long = `${'word '.repeat(60)}tail`;
  const marked = firstHunk(long, long.replace('tail', 'end')).split('\n').at(-1)!;
  expect(marked).toMatch(/^ {4}~….*\[-tail-\]\{\+end\+\}$/);
  expect(markedWords('a b c', 'a x c')).toBe('a [-b-]{+x+} c');
});
