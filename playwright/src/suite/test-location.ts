/**
 * A scenario test whose location is its `input.json`, not the suite's source line that declares it.
 * Playwright has no option for a test's location: it takes the file, line and column of the frame that calls
 * `test()`. So the call is made from a one-line function compiled with that file as its script name
 * (`vm.runInThisContext`'s `filename`), at column 1 of line 1: the list reporter, the HTML report, `--list`
 * and editors then point at the scenario. Test ids, `-g` and snapshot paths still come from the spec file.
 */
import { runInThisContext } from 'node:vm';

/**
 * Calls `declare(title, body)` (Playwright's `test`) from a frame located at `at` in `file` (default: line 1,
 * column 1).
 */
export function declareAt<B>(
  file: string,
  declare: (title: string, body: B) => void,
  title: string,
  body: B,
  at: { line: number; column: number } = { line: 1, column: 1 },
): void {
  // The call is on the script's second line, which the line offset numbers `at.line`, after `column - 1` spaces.
  const source = `(d, t, b) =>\n${' '.repeat(Math.max(0, at.column - 1))}d(t, b)`;
  const call = runInThisContext(source, { filename: file, lineOffset: at.line - 2 }) as (
    d: typeof declare,
    t: string,
    b: B,
  ) => void;
  call(declare, title, body);
}
