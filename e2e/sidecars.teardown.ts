/**
 * Teardown of the fixture-writing projects (record, refresh): deletes the sidecars no session fixture
 * references any more, however the project was started (`npm run refresh` or `npx playwright test
 * --project=refresh`), so the guards never meet an orphan a refresh left behind.
 */

import { fixturesDir, pruneSidecars } from '@acp-snapshot/playwright/testing';
import { test } from '@playwright/test';

test('remove unreferenced sidecars', async () => {
  for (const f of await pruneSidecars(fixturesDir())) console.log(`removed unreferenced sidecar ${f}`);
});
