import { expect, test } from '@playwright/test';
import { scrubSecrets } from './scrub.js';

test('scrubbing removes keys, tokens, the home directory and the user name', () => {
  const text =
    'key sk-live-0123456789abcdefXYZ and raw s3cr3t-value, "Authorization": "Bearer abcdefghijkl", home /home/alice/x, alice wrote; /home/alicex stays';
  expect(scrubSecrets(text, { values: ['s3cr3t-value'], home: '/home/alice', user: 'alice' })).toBe(
    'key sk-[redacted] and raw [redacted-key], "Authorization": "[redacted]", home {{realHome}}/x, {{user}} wrote; /home/alicex stays',
  );
  expect(scrubSecrets('the root of it', { values: [], user: 'root' })).toBe('the root of it');
});
