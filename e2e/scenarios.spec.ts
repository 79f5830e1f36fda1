/**
 * This repository's scenario corpus (fixtures/scenarios/NAME/), through the harness package as a user
 * consumes it: one test per scenario, replayed, recorded or refreshed by the project's mode, and the
 * fixture-tree rules (playwright.config.ts, `scenarioProjects`).
 */
import { scenarioSuite } from '@acp-snapshot/playwright';

scenarioSuite();
