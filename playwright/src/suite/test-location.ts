/**
 * A scenario test whose location is its `input.json`, not the suite's source line that declares it.
 * Playwright has no option for a test's location: it takes the file, line and column of the frame that calls
 * `test()`. So the call is made from a one-line function compiled with that file as its script name
 * (`vm.runInThisContext`'s `filename`), at column 1 of line 1: the list reporter, the HTML report, `--list`
 * and editors then point at the scenario. Test ids, `-g` and snapshot paths still come from the spec file.
 */
import { runInThisContext } from 'node:vm';

/** Calls `declare(title, body)` (Playwright's `test`) from a frame located at line 1, column 1 of `file`. */
export function declareAt<B>(
  file: string,
  declare: (title: string, body: B) => void,
  title: string,
  body: B,
): void {
  // The call starts the script's second line, and the line offset makes that line 1: column 1 of line 1.
  const call = runInThisContext('(d, t, b) =>\nd(t, b)', { filename: file, lineOffset: -1 }) as (
    d: typeof declare,
    t: string,
    b: B,
  ) => void;
  call(declare, title, body);
}
