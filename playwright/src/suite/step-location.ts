import { readFileSync } from 'node:fs';
import type { Location } from '@playwright/test/reporter';

/**
 * Where each driver step of a scenario is written: its `"op"` line in input.json, so the report's steps open the
 * scenario file (not the harness source). A step given its location also spares Playwright a captured,
 * source-mapped stack per step (~1-5 ms each). `at.step` is the scenario step's index (the driver's
 * StepRunner); steps without one (the spawn, nested lines of an exchange) share the last step's line.
 */
export function scenarioStepLocations(inputPath: string): (at?: { step: number }) => Location {
  let text = '';
  try {
    text = readFileSync(inputPath, 'utf8');
  } catch {
    // A scenario without input.json fails on its own; its steps point at line 1.
  }
  const opLines: number[] = [];
  let line = 1;
  const re = /\n|"op"\s*:/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0] === '\n') line++;
    else opLines.push(line);
  }
  let current: Location = { file: inputPath, line: 1, column: 1 };
  return (at) => {
    if (at) current = { file: inputPath, line: opLines[at.step] ?? 1, column: 1 };
    return current;
  };
}
