import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { joinRootSlices } from './root-slices.js';

test('a root streamed in slices is joined back into its placeholder; partial runs stay as they are', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('cwd', 'spill', 'home'),
      fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 5 }),
      (name, cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b)];
        const slices = points.map((p, i) => `{{${name}[${p}:${points[i + 1] ?? ''}]}}`).join('');
        expect(joinRootSlices(`see ${slices}/x`)).toBe(`see {{${name}}}/x`);
      },
    ),
  );
  expect(joinRootSlices('{{cwd[0:4]}}')).toBe('{{cwd[0:4]}}');
  expect(joinRootSlices('{{cwd[4:]}} {{cwd[0:4]}}{{home[4:]}} {{id:1}}')).toBe(
    '{{cwd[4:]}} {{cwd[0:4]}}{{home[4:]}} {{id:1}}',
  );
});
