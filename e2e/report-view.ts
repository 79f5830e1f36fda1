/**
 * What the report proofs share: Debian's Chromium as a reviewer opens the HTML report in it, and a test's
 * attachment read back from a run's JSON report (where the HTML report takes it from).
 */
import { readFile } from 'node:fs/promises';

export const CHROMIUM = '/usr/bin/chromium';
/** A laptop screen: what a reviewer has. */
export const VIEWPORT = { width: 1280, height: 800 };
/** As root on a closed network, Chromium needs these to start at once and quietly. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Suite {
  suites?: Suite[];
  specs?: {
    title: string;
    tests: { results: { attachments: { name: string; body?: string }[] }[] }[];
  }[];
}

/** The body of the attachment `name` of the test titled `title` in the JSON report at `reportPath`. */
export async function attachmentOf(reportPath: string, title: string, name: string): Promise<string> {
  const report = JSON.parse(await readFile(reportPath, 'utf8')) as { suites: Suite[] };
  const found: string[] = [];
  const walk = (suite: Suite) => {
    for (const s of suite.suites ?? []) walk(s);
    for (const spec of suite.specs ?? [])
      if (spec.title === title)
        for (const t of spec.tests)
          for (const r of t.results)
            for (const a of r.attachments)
              if (a.name === name && a.body) found.push(Buffer.from(a.body, 'base64').toString('utf8'));
  };
  for (const s of report.suites) walk(s);
  if (!found[0]) throw new Error(`no ${name} attached to "${title}" in ${reportPath}`);
  return found[0];
}
