import { expect, test } from '@playwright/test';
import { findSecrets, scrub } from './secrets.js';

const alice = { values: ['s3cr3t-value'], home: '/home/alice', user: 'alice' };

test("scrubbing removes keys, tokens, the home directory, the user name and anyone else's home", () => {
  const text =
    'key sk-live-0123456789abcdefXYZ and raw s3cr3t-value, "Authorization": "Bearer abcdefghijkl", home /home/alice/x, alice wrote; /home/alicex is bob\'s, as /Users/bob/y';
  expect(scrub(text, alice)).toBe(
    'key sk-[redacted] and raw [redacted-key], "Authorization": "[redacted]", home {{realHome}}/x, {{user}} wrote; /home/someone is bob\'s, as /Users/someone/y',
  );
  expect(scrub('the root of it', { values: [], user: 'root' })).toBe('the root of it');
  // Homes that name nobody stay: a common account, a placeholder, a dot directory.
  const nobody = '/home/user/a /home/node/b {{realHome}}/c ../home/.qwen/d /Users/runner/e';
  expect(scrub(nobody, alice)).toBe(nobody);
});

test('a home at the start of a JSON string line is found, and the escape before it kept', () => {
  const line = JSON.stringify({ output: 'cwd:\n/home/alice/project\nowner:\n/home/carol/x' });
  expect(scrub(line, alice)).toBe(
    JSON.stringify({ output: 'cwd:\n{{realHome}}/project\nowner:\n/home/someone/x' }),
  );
});

test('the guard and the scrubber are one: a text has finds exactly when scrubbing changes it, and scrubbed text has none', () => {
  const texts = [
    'nothing here at all',
    'token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 in the log',
    'dir /home/alice-dev/x and -home-alice-proj',
    'carol at /Users/carol, alice in {{user}}',
    'a key s3cr3t-value\\ns3cr3t-value twice',
  ];
  for (const t of texts) {
    const scrubbed = scrub(t, alice);
    expect(findSecrets(t, alice).length > 0, t).toBe(scrubbed !== t);
    expect(findSecrets(scrubbed, alice), scrubbed).toEqual([]);
    expect(scrub(scrubbed, alice)).toBe(scrubbed);
  }
});

test('a text scrubbed once is scrubbed again by its own secrets: the same text under other secrets, or none, gets its own answer', () => {
  const text = 'raw s3cr3t-value from /home/alice';
  const bob = { values: ['from /home'], home: '/home/bob', user: 'bob' };
  for (let round = 0; round < 2; round++) {
    expect(scrub(text, alice)).toBe('raw [redacted-key] from {{realHome}}');
    expect(scrub(text)).toBe('raw s3cr3t-value from /home/someone');
    expect(scrub(text, bob)).toBe('raw s3cr3t-value [redacted-key]/someone');
    // An equal set of secrets in another object answers as the first did.
    expect(scrub(text, { ...alice })).toBe('raw [redacted-key] from {{realHome}}');
  }
});
