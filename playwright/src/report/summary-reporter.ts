/**
 * A Playwright reporter that ends a red run with one block per shared cause (causes.ts): the cause,
 * the change, the scenarios it broke, and the one command that accepts it when it was intended. A
 * one-word prompt change that breaks thirty scenarios is one block, not thirty errors to read.
 */
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { addCause, type Group, summarize } from './cause-summary.js';
import { CAUSE_ANNOTATION, type Cause } from './causes.js';

export default class SummaryReporter implements Reporter {
  private readonly groups = new Map<string, Group>();
  private replayed = 0;

  onTestEnd(test: TestCase, result: TestResult): void {
    if (test.parent.project()?.name !== 'replay') return;
    this.replayed++;
    if (result.status === test.expectedStatus) return;
    const scenario = test.title;
    for (const a of test.annotations.concat(result.annotations)) {
      if (a.type !== CAUSE_ANNOTATION || !a.description) continue;
      addCause(this.groups, scenario, JSON.parse(a.description) as Cause);
    }
  }

  onEnd(_result: FullResult): void {
    const text = summarize([...this.groups.values()], this.replayed);
    if (text) console.log(text);
  }

  printsToStdio(): boolean {
    return true;
  }
}
